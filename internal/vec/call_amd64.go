//go:build amd64 && !noasm

package vec

// The kernels that take an argument block (kernArgs or convArgs) are
// numbered for callKernel in one block per family; a number the family
// lacks (convf5x24, convw2x7, ...) is a hole.
const (
	kernBase  = 0  // kern{mr}x{8,8m,16,16m}: kernBase + 4(mr−1) + variant (k8 … k16m)
	dotkBase  = 24 // dotk{mr}x{nr}: dotkBase + 4(mr−1) + nr−1
	convfBase = 36 // convf{mr}x{8nv}: convfBase + 3(mr−1) + nv−1
	convdBase = 54 // convd{mr}x{8nv}: convdBase + 2(mr−1) + nv−1
	convwBase = 66 // convw{mr}x{nr}: convwBase + 8(mr−1) + nr−1
	convwEnd  = 90
)

// familyEnd is the number after the last of the family numbered from base.
func familyEnd(base int) int {
	switch base {
	case kernBase:
		return dotkBase
	case dotkBase:
		return convfBase
	case convfBase:
		return convdBase
	case convdBase:
		return convwBase
	}
	return convwEnd
}

// kern calls the outer-product kernel for mr rows and variant v.
func kern(mr, v int, ka *kernArgs) { callKernel(kernBase, 4, mr-1, v, ka.ptr()) }

// dotKern calls the mr×nr inner-product kernel.
func dotKern(mr, nr int, ka *kernArgs) { callKernel(dotkBase, 4, mr-1, nr-1, ka.ptr()) }

// convFwdKern calls the forward kernel for mr rows and nv vectors per tile.
func convFwdKern(mr, nv int, ca *convArgs) { callKernel(convfBase, 3, mr-1, nv-1, ca.ptr()) }

// convDXKern calls the input-gradient kernel for mr rows and nv vectors per
// tile.
func convDXKern(mr, nv int, ca *convArgs) { callKernel(convdBase, 2, mr-1, nv-1, ca.ptr()) }

// convDWKern calls the mr×nr weight-gradient kernel.
func convDWKern(mr, nr int, ca *convArgs) { callKernel(convwBase, 8, mr-1, nr-1, ca.ptr()) }

// callKernel calls kernel j of row block i of the family numbered from
// base, per kernels a row block, with the argument block p: kernel number
// base + per·i + j. A number outside the family (a block size its callers
// never ask for) panics rather than reach another family's kernel. The
// switch makes static calls, so that escape analysis sees the kernels'
// noescape (a call through a table of functions would move every argument
// block to the heap), and compiles to one jump table.
func callKernel(base, per, i, j int, p *int64) {
	id := base + per*i + j
	if i < 0 || uint(j) >= uint(per) || id >= familyEnd(base) {
		panic("vec: bad kernel")
	}
	switch id {
	case kernBase + 0:
		kern1x8(p)
	case kernBase + 1:
		kern1x8m(p)
	case kernBase + 2:
		kern1x16(p)
	case kernBase + 3:
		kern1x16m(p)
	case kernBase + 4:
		kern2x8(p)
	case kernBase + 5:
		kern2x8m(p)
	case kernBase + 6:
		kern2x16(p)
	case kernBase + 7:
		kern2x16m(p)
	case kernBase + 8:
		kern3x8(p)
	case kernBase + 9:
		kern3x8m(p)
	case kernBase + 10:
		kern3x16(p)
	case kernBase + 11:
		kern3x16m(p)
	case kernBase + 12:
		kern4x8(p)
	case kernBase + 13:
		kern4x8m(p)
	case kernBase + 14:
		kern4x16(p)
	case kernBase + 15:
		kern4x16m(p)
	case kernBase + 16:
		kern5x8(p)
	case kernBase + 17:
		kern5x8m(p)
	case kernBase + 18:
		kern5x16(p)
	case kernBase + 19:
		kern5x16m(p)
	case kernBase + 20:
		kern6x8(p)
	case kernBase + 21:
		kern6x8m(p)
	case kernBase + 22:
		kern6x16(p)
	case kernBase + 23:
		kern6x16m(p)
	case dotkBase + 0:
		dotk1x1(p)
	case dotkBase + 1:
		dotk1x2(p)
	case dotkBase + 2:
		dotk1x3(p)
	case dotkBase + 3:
		dotk1x4(p)
	case dotkBase + 4:
		dotk2x1(p)
	case dotkBase + 5:
		dotk2x2(p)
	case dotkBase + 6:
		dotk2x3(p)
	case dotkBase + 7:
		dotk2x4(p)
	case dotkBase + 8:
		dotk3x1(p)
	case dotkBase + 9:
		dotk3x2(p)
	case dotkBase + 10:
		dotk3x3(p)
	case dotkBase + 11:
		dotk3x4(p)
	case convfBase + 0:
		convf1x8(p)
	case convfBase + 1:
		convf1x16(p)
	case convfBase + 2:
		convf1x24(p)
	case convfBase + 3:
		convf2x8(p)
	case convfBase + 4:
		convf2x16(p)
	case convfBase + 5:
		convf2x24(p)
	case convfBase + 6:
		convf3x8(p)
	case convfBase + 7:
		convf3x16(p)
	case convfBase + 8:
		convf3x24(p)
	case convfBase + 9:
		convf4x8(p)
	case convfBase + 10:
		convf4x16(p)
	case convfBase + 11:
		convf4x24(p)
	case convfBase + 12:
		convf5x8(p)
	case convfBase + 13:
		convf5x16(p)
	case convfBase + 15:
		convf6x8(p)
	case convfBase + 16:
		convf6x16(p)
	case convdBase + 0:
		convd1x8(p)
	case convdBase + 1:
		convd1x16(p)
	case convdBase + 2:
		convd2x8(p)
	case convdBase + 3:
		convd2x16(p)
	case convdBase + 4:
		convd3x8(p)
	case convdBase + 5:
		convd3x16(p)
	case convdBase + 6:
		convd4x8(p)
	case convdBase + 7:
		convd4x16(p)
	case convdBase + 8:
		convd5x8(p)
	case convdBase + 9:
		convd5x16(p)
	case convdBase + 10:
		convd6x8(p)
	case convdBase + 11:
		convd6x16(p)
	case convwBase + 0:
		convw1x1(p)
	case convwBase + 1:
		convw1x2(p)
	case convwBase + 2:
		convw1x3(p)
	case convwBase + 3:
		convw1x4(p)
	case convwBase + 4:
		convw1x5(p)
	case convwBase + 5:
		convw1x6(p)
	case convwBase + 6:
		convw1x7(p)
	case convwBase + 7:
		convw1x8(p)
	case convwBase + 8:
		convw2x1(p)
	case convwBase + 9:
		convw2x2(p)
	case convwBase + 10:
		convw2x3(p)
	case convwBase + 11:
		convw2x4(p)
	case convwBase + 12:
		convw2x5(p)
	case convwBase + 13:
		convw2x6(p)
	case convwBase + 16:
		convw3x1(p)
	case convwBase + 17:
		convw3x2(p)
	case convwBase + 18:
		convw3x3(p)
	case convwBase + 19:
		convw3x4(p)
	default:
		panic("vec: bad kernel")
	}
}
