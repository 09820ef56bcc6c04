// Command gen writes the AVX2/FMA kernels of package vec with avo.
//
// It lives in its own module so that the generator's dependencies stay out of
// the main module. Run it through go generate in internal/vec:
//
//	go run -C asm gen.go -out ../kernels_amd64.s -stubs ../kernels_stub_amd64.go -pkg vec
//
// Every generated function is a leaf that takes raw pointers and element
// strides; the Go side checks bounds before calling.
package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

var maskTab Mem

func main() {
	ConstraintExpr("amd64,!noasm")

	// maskTab holds eight all-ones words followed by eight zero words: the
	// 8-lane mask that enables the first r lanes starts at word 8-r.
	maskTab = GLOBL("masktab", RODATA|NOPTR)
	for i := 0; i < 16; i++ {
		v := uint32(0)
		if i < 8 {
			v = 0xffffffff
		}
		DATA(4*i, U32(v))
	}

	for mr := 1; mr <= 6; mr++ {
		for nv := 1; nv <= 2; nv++ {
			genKern(mr, nv, false)
			genKern(mr, nv, true)
		}
	}
	for mr := 1; mr <= 3; mr++ {
		for nr := 1; nr <= 4; nr++ {
			genDotKern(mr, nr)
		}
	}
	genPackBT()
	genPackBN()
	genGer()
	genDot()
	genSum64(false)
	genSum64(true)
	genAxpy()
	genExp(false)
	genPanelDot()
	genPanelDot512()
	genExp(true)
	genPanelRBF512()
	genRBFArg()
	genDotMixed()
	genMaxTo()
	genPairMax()
	genRelu()
	genReluGrad()
	genNonFinite()
	genScale64()
	// The convolution kernels last, so that adding them moved none of
	// the others.
	for mr := 1; mr <= 6; mr++ {
		for nv := 1; nv <= 3 && mr*nv <= 12; nv++ {
			genConvFwd(mr, nv)
		}
		for nv := 1; nv <= 2; nv++ {
			genConvDX(mr, nv)
		}
	}
	for mr := 1; mr <= 3; mr++ {
		for nr := 1; nr <= convDWMaxCols[mr]; nr++ {
			genConvDW(mr, nr)
		}
	}
	genMaxPool2Grad()
	genMaxPool2()
	// The AVX-512 GEMM kernel after all the others, for the same reason.
	genKernZ(kernZRows)
	genAdam()
	Generate()
}

// leaf starts the function name with Go signature sig and doc comment doc:
// a NOSPLIT leaf that keeps none of the pointers it is given.
func leaf(name, sig, doc string) {
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(doc)
}

// blockLeaf starts the kernel name, whose one argument p points to a block
// of fields at the byte offsets off, and returns the address of field f.
func blockLeaf(name, doc string, off map[string]int) func(f string) Mem {
	leaf(name, "func(p *int64)", doc)
	pa := gp("p")
	return func(f string) Mem { return Mem{Base: pa, Disp: off[f]} }
}

// loadMask returns a YMM mask enabling the first r lanes (1 ≤ r ≤ 8).
func loadMask(r Register) VecVirtual {
	base := GP64()
	LEAQ(maskTab, base)
	idx := GP64()
	MOVQ(U32(8), idx)
	SUBQ(r, idx)
	m := YMM()
	VMOVDQU(Mem{Base: base, Index: idx, Scale: 4}, m)
	return m
}

// row returns the address of row i given bases r0 (rows 0..2) and r3
// (rows 3..5) and the row stride st in bytes.
func row(r0, r3, st Register, i int) Mem {
	switch i {
	case 0:
		return Mem{Base: r0}
	case 1:
		return Mem{Base: r0, Index: st, Scale: 1}
	case 2:
		return Mem{Base: r0, Index: st, Scale: 2}
	case 3:
		return Mem{Base: r3}
	case 4:
		return Mem{Base: r3, Index: st, Scale: 1}
	default:
		return Mem{Base: r3, Index: st, Scale: 2}
	}
}

// genKern writes kern{mr}x{8nv}[m]: an mr×8nv outer-product micro-kernel run
// over nt column tiles.
//
//	for t < nt: C[i, t·8nv+j] = alpha·Σ_p A[i,p]·B_t[p,j] + beta·C[i, t·8nv+j]
//
// A(i,p) is at a[i·rsa + p·csa]; B_t(p,j) at b[t·bts + p·ldb + j]; C(i,j) at
// c[i·ldc + j]. C is read only when loadC ≠ 0. In the masked variant the last
// 8-lane vector of each row holds only rem valid columns (1..8), in B and in
// C; the lanes past them are not written, and read from B only in the first
// ku steps (0 ≤ ku ≤ k), where the caller guarantees that they exist (they
// then feed only lanes that are never stored). Partial rows of C are
// loaded with VMASKMOVPS but stored with plain 16-, 8- and 4-byte moves:
// masked stores are slow on several cores.
func genKern(mr, nv int, masked bool) {
	name := fmt.Sprintf("kern%dx%d", mr, 8*nv)
	if masked {
		name += "m"
	}
	arg := blockLeaf(name, fmt.Sprintf("%s is an outer-product micro-kernel over %d rows and %d columns per tile.", name, mr, 8*nv), argOff)

	// Independent accumulator sets to hide FMA latency for thin kernels.
	sets := 1
	for sets*2*mr*nv <= 12 && sets*mr*nv < 8 {
		sets *= 2
	}

	nt := load(arg("nt"))
	bt := load(arg("b"))
	ct := load(arg("c"))

	var mask VecVirtual
	var rem GPVirtual
	if masked {
		rem = load(arg("rem"))
		mask = loadMask(rem)
	}

	tiles(name, nt, func() {
		acc := make([][][]VecVirtual, sets)
		for s := range acc {
			acc[s] = zeroAcc(mr, nv)
		}
		a0 := load(arg("a"))
		rsa := loadStride(arg("rsa"))
		csa := loadStride(arg("csa"))
		ldb := loadStride(arg("ldb"))
		a3 := row3(a0, rsa, mr)
		bp := GP64()
		MOVQ(bt, bp)
		// In the masked variant the first ku steps load B at full width (the
		// caller guarantees that the lanes past rem are readable there; they
		// only feed lanes that are never stored) and the rest masked.
		kk := load(arg("k"))
		var kmask GPVirtual
		if masked {
			kmask = GP64()
			MOVQ(kk, kmask)
			ku := load(arg("ku"))
			SUBQ(ku, kmask)
			MOVQ(ku, kk)
		}

		step := func(s int, maskB bool) {
			bv := make([]VecVirtual, nv)
			for v := 0; v < nv; v++ {
				bv[v] = YMM()
				if maskB && v == nv-1 {
					VMASKMOVPS(Mem{Base: bp, Disp: 32 * v}, mask, bv[v])
				} else {
					VMOVUPS(Mem{Base: bp, Disp: 32 * v}, bv[v])
				}
			}
			for i := 0; i < mr; i++ {
				t := YMM()
				VBROADCASTSS(row(a0, a3, rsa, i), t)
				for v := 0; v < nv; v++ {
					VFMADD231PS(bv[v], t, acc[s][i][v])
				}
			}
			ADDQ(csa, a0)
			if mr > 3 {
				ADDQ(csa, a3)
			}
			ADDQ(ldb, bp)
		}

		unrolled(name, name+"_masked", kk, max(sets, 4), func(u int) { step(u%sets, false) })
		if masked {
			countdown(name+"_masked", name+"_store", kmask, func() { step(0, true) })
		} else {
			Label(name + "_masked")
		}

		Label(name + "_store")
		for s := 1; s < sets; s++ {
			for i := 0; i < mr; i++ {
				for v := 0; v < nv; v++ {
					VADDPS(acc[s][i][v], acc[0][i][v], acc[0][i][v])
				}
			}
		}
		alpha := YMM()
		VBROADCASTSS(arg("alpha"), alpha)
		for i := 0; i < mr; i++ {
			for v := 0; v < nv; v++ {
				VMULPS(alpha, acc[0][i][v], acc[0][i][v])
			}
		}
		ldc := loadStride(arg("ldc"))
		c3 := row3(ct, ldc, mr)
		loadC := load(arg("loadC"))
		TESTQ(loadC, loadC)
		JE(LabelRef(name + "_nobeta"))
		beta := YMM()
		VBROADCASTSS(arg("beta"), beta)
		for i := 0; i < mr; i++ {
			for v := 0; v < nv; v++ {
				m := row(ct, c3, ldc, i).Offset(32 * v)
				if masked && v == nv-1 {
					t := YMM()
					VMASKMOVPS(m, mask, t)
					VFMADD231PS(t, beta, acc[0][i][v])
				} else {
					VFMADD231PS(m, beta, acc[0][i][v])
				}
			}
		}
		Label(name + "_nobeta")
		for i := 0; i < mr; i++ {
			for v := 0; v < nv; v++ {
				m := row(ct, c3, ldc, i).Offset(32 * v)
				if masked && v == nv-1 {
					storePartial(fmt.Sprintf("%s_r%d", name, i), acc[0][i][v], m, rem)
				} else {
					VMOVUPS(acc[0][i][v], m)
				}
			}
		}

		bts := loadStride(arg("bts"))
		ADDQ(bts, bt)
		ADDQ(U32(32*nv), ct)
	})
}

// kernZRows is the number of rows of the AVX-512 GEMM kernel.
const kernZRows = 12

// genKernZ writes kernz{mr}x16: genKern's mr×16 outer-product kernel
// (unmasked) with one 16-lane ZMM accumulator per row of C, mr up to 12:
// per step one 16-float row of B and a fused multiply-add per row with its
// element of A broadcast from memory. Each element of C gets the same
// sequence of fused multiply-adds, in the same order, as in kern6x16: the
// two kernels give the same results.
func genKernZ(mr int) {
	name := fmt.Sprintf("kernz%dx16", mr)
	arg := blockLeaf(name, fmt.Sprintf("%s is an AVX-512 outer-product micro-kernel over %d rows and 16 columns per tile.", name, mr), argOff)
	nt := load(arg("nt"))
	bt := load(arg("b"))
	ct := load(arg("c"))
	tiles(name, nt, func() {
		acc := make([]VecVirtual, mr)
		for i := range acc {
			acc[i] = ZMM()
			VXORPS(acc[i], acc[i], acc[i])
		}
		rsa := loadStride(arg("rsa"))
		csa := loadStride(arg("csa"))
		ldb := loadStride(arg("ldb"))
		// Rows 3g, 3g+1 and 3g+2 of A from base g.
		bases := make([]GPVirtual, (mr+2)/3)
		bases[0] = load(arg("a"))
		for g := 1; g < len(bases); g++ {
			bases[g] = GP64()
			LEAQ(Mem{Base: bases[g-1], Index: rsa, Scale: 2}, bases[g])
			ADDQ(rsa, bases[g])
		}
		aRow := func(i int) Mem {
			m := Mem{Base: bases[i/3]}
			if i%3 > 0 {
				m.Index, m.Scale = rsa, uint8(i%3)
			}
			return m
		}
		bp := GP64()
		MOVQ(bt, bp)
		kk := load(arg("k"))
		step := func(int) {
			b := ZMM()
			VMOVUPS(Mem{Base: bp}, b)
			for i := 0; i < mr; i++ {
				VFMADD231PS_BCST(aRow(i), b, acc[i])
			}
			for _, g := range bases {
				ADDQ(csa, g)
			}
			ADDQ(ldb, bp)
		}
		unrolled(name, name+"_store", kk, 4, step)

		Label(name + "_store")
		alpha := ZMM()
		VBROADCASTSS(arg("alpha"), alpha)
		for i := 0; i < mr; i++ {
			VMULPS(alpha, acc[i], acc[i])
		}
		ldc := loadStride(arg("ldc"))
		cRow := func(i int) Mem {
			r := GP64()
			MOVQ(ct, r)
			for g := 0; g < i/3; g++ {
				LEAQ(Mem{Base: r, Index: ldc, Scale: 2}, r)
				ADDQ(ldc, r)
			}
			m := Mem{Base: r}
			if i%3 > 0 {
				m.Index, m.Scale = ldc, uint8(i%3)
			}
			return m
		}
		loadC := load(arg("loadC"))
		TESTQ(loadC, loadC)
		JE(LabelRef(name + "_nobeta"))
		beta := ZMM()
		VBROADCASTSS(arg("beta"), beta)
		for i := 0; i < mr; i++ {
			VFMADD231PS(cRow(i), beta, acc[i])
		}
		Label(name + "_nobeta")
		for i := 0; i < mr; i++ {
			VMOVUPS(acc[i], cRow(i))
		}
		bts := loadStride(arg("bts"))
		ADDQ(bts, bt)
		ADDQ(U32(64), ct)
	})
}

// row3 returns, for a block of more than three rows (rows > 3), a new
// register with the address base + 3·st of row 3, the second base of row;
// for fewer rows, none.
func row3(base, st Register, rows int) GPVirtual {
	if rows <= 3 {
		return nil
	}
	r := GP64()
	LEAQ(Mem{Base: base, Index: st, Scale: 2}, r)
	ADDQ(st, r)
	return r
}

// zeroAcc returns rows×cols new YMM accumulators, cleared.
func zeroAcc(rows, cols int) [][]VecVirtual {
	acc := make([][]VecVirtual, rows)
	for i := range acc {
		acc[i] = make([]VecVirtual, cols)
		for j := range acc[i] {
			acc[i][j] = YMM()
			VXORPS(acc[i][j], acc[i][j], acc[i][j])
		}
	}
	return acc
}

// storePartial writes the first rem (1..8) lanes of v to addr.
func storePartial(lbl string, v VecVirtual, addr Mem, rem GPVirtual) {
	base, r, x := GP64(), GP64(), XMM()
	LEAQ(addr, base)
	MOVQ(rem, r)
	CMPQ(r, U32(4))
	JL(LabelRef(lbl + "_lo"))
	VMOVUPS(v.AsX(), Mem{Base: base})
	VEXTRACTF128(U8(1), v, x)
	ADDQ(U32(16), base)
	SUBQ(U32(4), r)
	JMP(LabelRef(lbl + "_two"))
	Label(lbl + "_lo")
	VMOVAPS(v.AsX(), x)
	Label(lbl + "_two")
	TESTQ(U32(2), r)
	JE(LabelRef(lbl + "_one"))
	VMOVLPS(x, Mem{Base: base})
	VMOVHLPS(x, x, x)
	ADDQ(U32(8), base)
	Label(lbl + "_one")
	TESTQ(U32(1), r)
	JE(LabelRef(lbl + "_done"))
	VMOVSS(x, Mem{Base: base})
	Label(lbl + "_done")
}

// genDotKern writes dotk{mr}x{nr}: an mr×nr block of inner products over nt
// column tiles, for C = alpha·A·Bᵀ + beta·C with A and B both stored with
// contiguous rows of length k (the kernArgs field rsa holds lda).
//
//	for t < nt: C[i, t·nr+j] = alpha·Σ_p a[i·lda+p]·b[(t·nr+j)·ldb+p] + beta·C[i, t·nr+j]
func genDotKern(mr, nr int) {
	name := fmt.Sprintf("dotk%dx%d", mr, nr)
	arg := blockLeaf(name, fmt.Sprintf("%s computes %d×%d blocks of inner products of rows of a and b.", name, mr, nr), argOff)

	nt := load(arg("nt"))
	bt := load(arg("b"))
	ct := load(arg("c"))

	tiles(name, nt, func() {
		acc := zeroAcc(mr, nr)
		// Addresses: A rows via a0 + i·lda, B rows via b0/b3 + j·ldb.
		a0 := load(arg("a"))
		lda := loadStride(arg("rsa"))
		ldb := loadStride(arg("ldb"))
		b0 := GP64()
		MOVQ(bt, b0)
		b3 := row3(b0, ldb, nr)
		kk := load(arg("k"))

		ptrs := []Register{a0, b0}
		if nr > 3 {
			ptrs = append(ptrs, b3)
		}
		strip(name+"_loop", name+"_tail", kk, 8, func() {
			av := loadVecs(mr, func(i int) Mem { return row(a0, a0, lda, i) })
			for j := 0; j < nr; j++ {
				bv := YMM()
				VMOVUPS(row(b0, b3, ldb, j), bv)
				for i := 0; i < mr; i++ {
					VFMADD231PS(av[i], bv, acc[i][j])
				}
			}
		}, moveBy(32, ptrs...)...)

		mask := maskedTail(name+"_tail", name+"_reduce", kk)
		for i := 0; i < mr; i++ {
			ta := YMM()
			VMASKMOVPS(row(a0, a0, lda, i), mask, ta)
			for j := 0; j < nr; j++ {
				tb := YMM()
				VMASKMOVPS(row(b0, b3, ldb, j), mask, tb)
				VFMADD231PS(ta, tb, acc[i][j])
			}
		}

		Label(name + "_reduce")
		// Lanes 0..nr-1 of sums[i] hold row i's nr results.
		zero := YMM()
		VXORPS(zero, zero, zero)
		sums := make([]VecVirtual, mr)
		for i := 0; i < mr; i++ {
			sums[i] = hadd4(acc[i], 0, zero)
		}
		alpha := XMM()
		VBROADCASTSS(arg("alpha"), alpha)
		for i := 0; i < mr; i++ {
			VMULPS(alpha, sums[i], sums[i])
		}
		ldc := loadStride(arg("ldc"))
		cAddr := func(i, j int) Mem { return row(ct, ct, ldc, i).Offset(4 * j) }
		// store writes the results, adding beta·C first when withC.
		store := func(withC bool) {
			var beta VecVirtual
			if withC {
				beta = XMM()
				VBROADCASTSS(arg("beta"), beta)
			}
			for i := 0; i < mr; i++ {
				if nr == 4 {
					if withC {
						VFMADD231PS(cAddr(i, 0), beta, sums[i])
					}
					VMOVUPS(sums[i], cAddr(i, 0))
					continue
				}
				// Scalar stores: masked stores are slow on several cores.
				for j := 0; j < nr; j++ {
					t := lane(sums[i], j)
					if withC {
						VFMADD231SS(cAddr(i, j), beta, t)
					}
					VMOVSS(t, cAddr(i, j))
				}
			}
		}
		loadC := load(arg("loadC"))
		TESTQ(loadC, loadC)
		JE(LabelRef(name + "_nobeta"))
		store(true)
		JMP(LabelRef(name + "_next"))
		Label(name + "_nobeta")
		store(false)

		Label(name + "_next")
		tmp := GP64()
		IMUL3Q(U32(nr), ldb, tmp)
		ADDQ(tmp, bt)
		ADDQ(U32(4*nr), ct)
	})
}

// argOff holds the byte offsets of the fields of vec.kernArgs; a test in
// package vec checks them against unsafe.Offsetof.
var argOff = map[string]int{
	"a": 0, "b": 8, "c": 16,
	"nt": 24, "k": 32, "rsa": 40, "csa": 48, "ldb": 56, "bts": 64, "ldc": 72,
	"loadC": 80, "rem": 88, "alpha": 96, "beta": 100, "ku": 104,
}

// load reads a 64-bit field into a new register.
func load(m Mem) GPVirtual {
	r := GP64()
	MOVQ(m, r)
	return r
}

// gp loads the parameter name (an integer or a pointer) into a new
// general-purpose register.
func gp(name string) Register { return Load(Param(name), GP64()) }

// loadStride reads a stride in elements of four bytes into a new register,
// in bytes.
func loadStride(m Mem) GPVirtual {
	r := load(m)
	SHLQ(U8(2), r)
	return r
}

// paramAddr returns the stack address of a scalar parameter.
func paramAddr(name string) Mem {
	b, err := Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// genGer writes gerAVX(p *kernArgs), the rank-1 product of k = 1:
//
//	for i < nt: C[i, j] = alpha·a[i·rsa]·b[j] + beta·C[i, j]   (j < n = p.k)
//
// with C read only when loadC ≠ 0. One call covers the whole matrix, which
// is what a batch-1 weight gradient needs.
func genGer() {
	arg := blockLeaf("gerAVX", "gerAVX computes the rank-1 update C = alpha·a·bᵀ + beta·C described by p.", argOff)
	rows := load(arg("nt"))
	ap := load(arg("a"))
	rsa := loadStride(arg("rsa"))
	ct := load(arg("c"))
	ldc := loadStride(arg("ldc"))
	alpha, beta := YMM(), YMM()
	VBROADCASTSS(arg("alpha"), alpha)
	VBROADCASTSS(arg("beta"), beta)
	n := load(arg("k"))
	rem := GP64()
	MOVQ(n, rem)
	ANDQ(U32(7), rem)
	mask := YMM()
	VXORPS(mask, mask, mask)
	TESTQ(rem, rem)
	JE(LabelRef("ger_rows"))
	m := loadMask(rem)
	VMOVUPS(m, mask)

	Label("ger_rows")
	s := YMM()
	VBROADCASTSS(Mem{Base: ap}, s)
	VMULPS(alpha, s, s)
	bp := load(arg("b"))
	cp := GP64()
	MOVQ(ct, cp)
	cnt := GP64()
	MOVQ(n, cnt)
	loadC := load(arg("loadC"))
	for _, withC := range []bool{true, false} {
		lbl := "ger_noc"
		if withC {
			lbl = "ger_c"
			TESTQ(loadC, loadC)
			JE(LabelRef("ger_noc_loop32"))
		}
		Label(lbl + "_loop32")
		CMPQ(cnt, U32(32))
		JL(LabelRef(lbl + "_loop8"))
		for u := 0; u < 4; u++ {
			v := YMM()
			VMULPS(Mem{Base: bp, Disp: 32 * u}, s, v)
			if withC {
				VFMADD231PS(Mem{Base: cp, Disp: 32 * u}, beta, v)
			}
			VMOVUPS(v, Mem{Base: cp, Disp: 32 * u})
		}
		ADDQ(U32(128), bp)
		ADDQ(U32(128), cp)
		SUBQ(U32(32), cnt)
		JMP(LabelRef(lbl + "_loop32"))
		Label(lbl + "_loop8")
		CMPQ(cnt, U32(8))
		JL(LabelRef(lbl + "_tail"))
		v := YMM()
		VMULPS(Mem{Base: bp}, s, v)
		if withC {
			VFMADD231PS(Mem{Base: cp}, beta, v)
		}
		VMOVUPS(v, Mem{Base: cp})
		ADDQ(U32(32), bp)
		ADDQ(U32(32), cp)
		SUBQ(U32(8), cnt)
		JMP(LabelRef(lbl + "_loop8"))
		Label(lbl + "_tail")
		TESTQ(cnt, cnt)
		JE(LabelRef("ger_next"))
		t := YMM()
		VMASKMOVPS(Mem{Base: bp}, mask, t)
		VMULPS(t, s, t)
		if withC {
			u := YMM()
			VMASKMOVPS(Mem{Base: cp}, mask, u)
			VFMADD231PS(u, beta, t)
		}
		storePartial(lbl+"_ps", t, Mem{Base: cp}, cnt)
		JMP(LabelRef("ger_next"))
	}
	Label("ger_next")
	ADDQ(rsa, ap)
	ADDQ(ldc, ct)
	DECQ(rows)
	JNE(LabelRef("ger_rows"))
	VZEROUPPER()
	RET()
}

// genPackBN writes packBNAVX(dst, b *float32, ldb, kc, strips int), the
// copy of a kc×(16·strips) block of a row-major B into strips of kc×16
// floats, kc·16 apart (1 ≤ strips ≤ 4):
//
//	dst[s·kc·16 + p·16 + j] = b[p·ldb + 16·s + j]   for j < 16, p < kc
//
// Several strips per pass make each row access 128–256 contiguous bytes,
// which matters when ldb is a large power of two.
func genPackBN() {
	leaf("packBNAVX", "func(dst, b *float32, ldb, kc, strips int)", "packBNAVX copies a kc×(16·strips) block of b into strips of kc×16 floats.")
	for ns := 4; ns >= 1; ns-- {
		lbl := fmt.Sprintf("packbn_s%d", ns)
		Label(lbl)
		strips := gp("strips")
		if ns > 1 {
			CMPQ(strips, U32(ns))
			JL(LabelRef(fmt.Sprintf("packbn_s%d", ns-1)))
		}
		d, b := gp("dst"), gp("b")
		ldb := loadStride(paramAddr("ldb"))
		n := gp("kc")
		st := GP64()
		MOVQ(n, st)
		SHLQ(U8(6), st) // kc·16 floats in bytes
		d2 := GP64()
		LEAQ(Mem{Base: d, Index: st, Scale: 2}, d2)
		Label(lbl + "_loop")
		TESTQ(n, n)
		JE(LabelRef("packbn_done"))
		for s := 0; s < ns; s++ {
			x0, x1 := YMM(), YMM()
			VMOVUPS(Mem{Base: b, Disp: 64 * s}, x0)
			VMOVUPS(Mem{Base: b, Disp: 64*s + 32}, x1)
			var m Mem
			switch s {
			case 0:
				m = Mem{Base: d}
			case 1:
				m = Mem{Base: d, Index: st, Scale: 1}
			case 2:
				m = Mem{Base: d2}
			default:
				m = Mem{Base: d2, Index: st, Scale: 1}
			}
			VMOVUPS(x0, m)
			VMOVUPS(x1, m.Offset(32))
		}
		ADDQ(ldb, b)
		ADDQ(U32(64), d)
		ADDQ(U32(64), d2)
		DECQ(n)
		JMP(LabelRef(lbl + "_loop"))
	}
	Label("packbn_done")
	VZEROUPPER()
	RET()
}

// genPackBT writes packBTAVX(dst, b *float32, ldb, kc, halves int), the
// transposing copy that packs 8 or 16 rows of a row-major B for the kernels
// of Bᵀ:
//
//	dst[p·16 + j] = b[j·ldb + p]   for j < 8·halves, p < kc (kc a multiple of 8)
//
// in 8×8 blocks transposed in registers.
func genPackBT() {
	leaf("packBTAVX", "func(dst, b *float32, ldb, kc, halves int)", "packBTAVX packs the transpose of an (8·halves)×kc block of b (kc a multiple of 8, halves 1 or 2) into 16-wide rows of dst.")
	ldb := loadStride(paramAddr("ldb"))
	for half := 0; half < 2; half++ {
		lbl := fmt.Sprintf("packbt_h%d", half)
		if half == 1 {
			h := gp("halves")
			CMPQ(h, U32(2))
			JL(LabelRef("packbt_done"))
		}
		q0 := gp("b")
		if half == 1 {
			LEAQ(Mem{Base: q0, Index: ldb, Scale: 8}, q0)
		}
		q3 := row3(q0, ldb, 8)
		q6 := row3(q3, ldb, 8)
		d := gp("dst")
		if half == 1 {
			ADDQ(U32(32), d)
		}
		cnt := gp("kc")
		Label(lbl + "_loop")
		TESTQ(cnt, cnt)
		JE(LabelRef(lbl + "_done"))
		r := make([]VecVirtual, 8)
		addrs := []Mem{
			{Base: q0}, {Base: q0, Index: ldb, Scale: 1}, {Base: q0, Index: ldb, Scale: 2},
			{Base: q3}, {Base: q3, Index: ldb, Scale: 1}, {Base: q3, Index: ldb, Scale: 2},
			{Base: q6}, {Base: q6, Index: ldb, Scale: 1},
		}
		for i := range r {
			r[i] = YMM()
			VMOVUPS(addrs[i], r[i])
		}
		// t: pairs of rows interleaved; u: columns q and q+4 of four rows;
		// o: whole columns.
		t := make([]VecVirtual, 8)
		for i := 0; i < 8; i += 2 {
			t[i], t[i+1] = YMM(), YMM()
			VUNPCKLPS(r[i+1], r[i], t[i])
			VUNPCKHPS(r[i+1], r[i], t[i+1])
		}
		u := make([]VecVirtual, 8)
		for g := 0; g < 2; g++ {
			b := 4 * g
			u[b], u[b+1], u[b+2], u[b+3] = YMM(), YMM(), YMM(), YMM()
			VSHUFPS(U8(0x44), t[b+2], t[b], u[b])
			VSHUFPS(U8(0xEE), t[b+2], t[b], u[b+1])
			VSHUFPS(U8(0x44), t[b+3], t[b+1], u[b+2])
			VSHUFPS(U8(0xEE), t[b+3], t[b+1], u[b+3])
		}
		for q := 0; q < 8; q++ {
			o := YMM()
			if q < 4 {
				VPERM2F128(U8(0x20), u[q+4], u[q], o)
			} else {
				VPERM2F128(U8(0x31), u[q], u[q-4], o)
			}
			VMOVUPS(o, Mem{Base: d, Disp: 64 * q})
		}
		ADDQ(U32(32), q0)
		ADDQ(U32(32), q3)
		ADDQ(U32(32), q6)
		ADDQ(U32(512), d)
		SUBQ(U32(8), cnt)
		JMP(LabelRef(lbl + "_loop"))
		Label(lbl + "_done")
	}
	Label("packbt_done")
	VZEROUPPER()
	RET()
}

// Streaming kernels walk n elements with pointers that move on by a fixed
// number of bytes per pass.

// bump is a pointer that a loop moves on by bytes per pass.
type bump struct {
	r     Register
	bytes int
}

// block opens the block lbl of a loop over n elements, which goes on at
// exit when fewer than per remain.
func block(lbl, exit string, n Register, per int) {
	Label(lbl)
	CMPQ(n, U32(per))
	JL(LabelRef(exit))
}

// advance moves each pointer on by its bump and takes per off n.
func advance(n Register, per int, bumps ...bump) {
	for _, b := range bumps {
		ADDQ(U32(b.bytes), b.r)
	}
	SUBQ(U32(per), n)
}

// strip writes the loop lbl: while n ≥ per, body, then the pointers and n
// move on; then on to exit.
func strip(lbl, exit string, n Register, per int, body func(), bumps ...bump) {
	block(lbl, exit, n, per)
	body()
	advance(n, per, bumps...)
	JMP(LabelRef(lbl))
}

// vectors writes the main loops of a kernel over n elements, per elements
// in a vector, where op(k) handles k vectors: pre_loop{unroll·per} over
// blocks of unroll vectors, then pre_loop{per} over single ones, each
// pointer of ptrs moving on by bytes per vector; then on to exit.
func vectors(pre, exit string, n Register, per, bytes, unroll int, op func(k int), ptrs ...Register) {
	many, one := fmt.Sprintf("%s_loop%d", pre, unroll*per), fmt.Sprintf("%s_loop%d", pre, per)
	strip(many, one, n, unroll*per, func() { op(unroll) }, moveBy(unroll*bytes, ptrs...)...)
	strip(one, exit, n, per, func() { op(1) }, moveBy(bytes, ptrs...)...)
}

// mapVecs loads k vectors of vb bytes from src, applies f to each and
// stores them to dst: all the loads, then all of f, then all the stores.
func mapVecs(dst, src Register, vb, k int, newVec func() VecVirtual, f func(VecVirtual)) {
	xs := make([]VecVirtual, k)
	for i := range xs {
		xs[i] = newVec()
	}
	for i, x := range xs {
		VMOVUPS(Mem{Base: src, Disp: vb * i}, x)
	}
	for _, x := range xs {
		f(x)
	}
	for i, x := range xs {
		VMOVUPS(x, Mem{Base: dst, Disp: vb * i})
	}
}

// moveBy returns the bumps that move each of ptrs on by bytes.
func moveBy(bytes int, ptrs ...Register) []bump {
	b := make([]bump, len(ptrs))
	for i, r := range ptrs {
		b[i] = bump{r, bytes}
	}
	return b
}

// countdown writes the loop lbl: while n > 0, body, then the pointers move
// on by their bumps and n by one; then on to exit.
func countdown(lbl, exit string, n Register, body func(), bumps ...bump) {
	Label(lbl)
	TESTQ(n, n)
	JE(LabelRef(exit))
	body()
	for _, b := range bumps {
		ADDQ(U32(b.bytes), b.r)
	}
	DECQ(n)
	JMP(LabelRef(lbl))
}

// unrolled writes the depth loop of a kernel over kk steps: name_unrolled
// over blocks of unroll steps (step(u) for u < unroll), then name_tail over
// single steps (step(0)), each pointer of ptrs moving on by one float32 per
// step; then on to exit.
func unrolled(name, exit string, kk Register, unroll int, step func(u int), ptrs ...Register) {
	strip(name+"_unrolled", name+"_tail", kk, unroll, func() {
		for u := 0; u < unroll; u++ {
			step(u)
		}
	}, moveBy(4*unroll, ptrs...)...)
	countdown(name+"_tail", exit, kk, func() { step(0) }, moveBy(4, ptrs...)...)
}

// hadd4 returns an XMM whose lane l holds the sum of the eight lanes of
// accs[j0+l], or 0 where j0+l is past the end of accs (zero is a cleared
// YMM).
func hadd4(accs []VecVirtual, j0 int, zero VecVirtual) VecVirtual {
	col := func(j int) VecVirtual {
		if j < len(accs) {
			return accs[j]
		}
		return zero
	}
	h01, h23 := YMM(), YMM()
	VHADDPS(col(j0+1), col(j0), h01)
	if len(accs) > j0+2 {
		VHADDPS(col(j0+3), col(j0+2), h23)
	} else {
		VXORPS(h23, h23, h23)
	}
	VHADDPS(h23, h01, h01)
	s := XMM()
	VEXTRACTF128(U8(1), h01, s)
	VADDPS(s, h01.AsX(), s)
	return s
}

// lane returns an XMM holding lane k of x in its low lane: x itself for
// k = 0.
func lane(x VecVirtual, k int) VecVirtual {
	if k == 0 {
		return x
	}
	t := XMM()
	VPERMILPS(U8(k), x, t)
	return t
}

// maskedTail opens the block lbl for the last n < 8 elements, which goes on
// at exit when there are none, and returns the mask of their lanes.
func maskedTail(lbl, exit string, n Register) VecVirtual {
	Label(lbl)
	TESTQ(n, n)
	JE(LabelRef(exit))
	return loadMask(n)
}

// finish writes the label lbl and the end of a function without results.
func finish(lbl string) {
	Label(lbl)
	VZEROUPPER()
	RET()
}

// retValue ends a function that returns r.
func retValue(r Register) {
	VZEROUPPER()
	Store(r, ReturnIndex(0))
	RET()
}

// inst is an instruction as avo writes it.
type inst func(...Op)

// elem holds the packed instructions of the element type of a reduction:
// float32 or float64.
type elem struct {
	f64      bool
	xor, add inst
}

var (
	f32 = elem{false, VXORPS, VADDPS}
	f64 = elem{true, VXORPD, VADDPD}
)

// zeros4 returns four new YMM accumulators, cleared.
func (e elem) zeros4() []VecVirtual {
	acc := []VecVirtual{YMM(), YMM(), YMM(), YMM()}
	for _, r := range acc {
		e.xor(r, r, r)
	}
	return acc
}

// sum adds the four accumulators acc in pairs and returns the sum of the
// lanes of the result in the low lane of an XMM.
func (e elem) sum(acc []VecVirtual) VecVirtual {
	e.add(acc[1], acc[0], acc[0])
	e.add(acc[3], acc[2], acc[2])
	e.add(acc[2], acc[0], acc[0])
	return e.hsum(acc[0])
}

// hsum returns the sum of the lanes of the YMM y (eight float32 or four
// float64) in the low lane of an XMM, halving the vector until one lane is
// left.
func (e elem) hsum(y VecVirtual) VecVirtual {
	x := XMM()
	VEXTRACTF128(U8(1), y, x)
	e.add(x, y.AsX(), x)
	t := XMM()
	if e.f64 {
		VUNPCKHPD(x, x, t)
		VADDSD(t, x, x)
		return x
	}
	VMOVHLPS(x, x, t)
	VADDPS(t, x, x)
	VMOVSHDUP(x, t)
	VADDSS(t, x, x)
	return x
}

// genDot writes dotAVX(a, b *float32, n int) float32 = Σ a[i]·b[i].
func genDot() {
	leaf("dotAVX", "func(a, b *float32, n int) float32", "dotAVX returns the float32 inner product of a[:n] and b[:n].")
	a, b, n := gp("a"), gp("b"), gp("n")
	acc := f32.zeros4()
	vectors("dot", "dot_tail", n, 8, 32, 4, func(k int) {
		for u := 0; u < k; u++ {
			t := YMM()
			VMOVUPS(Mem{Base: a, Disp: 32 * u}, t)
			VFMADD231PS(Mem{Base: b, Disp: 32 * u}, t, acc[u])
		}
	}, a, b)
	mask := maskedTail("dot_tail", "dot_reduce", n)
	ta, tb := YMM(), YMM()
	VMASKMOVPS(Mem{Base: a}, mask, ta)
	VMASKMOVPS(Mem{Base: b}, mask, tb)
	VFMADD231PS(ta, tb, acc[1])
	Label("dot_reduce")
	retValue(f32.sum(acc))
}

// genSum64 writes dot64AVX(a, b *float32, n int) float64 = Σ a[i]·b[i], or
// with diff sqDistAVX(a, b *float32, n int) float64 = Σ (a[i]−b[i])², with
// differences, products and sums in float64.
func genSum64(diff bool) {
	name, pre, doc := "dot64AVX", "dot64", "dot64AVX returns the inner product of a[:n] and b[:n] accumulated in float64."
	if diff {
		name, pre, doc = "sqDistAVX", "sqd", "sqDistAVX returns the squared distance of a[:n] and b[:n] accumulated in float64."
	}
	leaf(name, "func(a, b *float32, n int) float64", doc)
	a, b, n := gp("a"), gp("b"), gp("n")
	// term adds the terms of the lanes of ta and tb to acc, with the packed
	// or the scalar subtraction and fused multiply-add.
	term := func(ta, tb, acc VecVirtual, sub, fma inst) {
		if diff {
			sub(tb, ta, ta)
			tb = ta
		}
		fma(ta, tb, acc)
	}
	acc := f64.zeros4()
	vectors(pre, pre+"_tail", n, 4, 16, 4, func(k int) {
		for u := 0; u < k; u++ {
			ta, tb := YMM(), YMM()
			VCVTPS2PD(Mem{Base: a, Disp: 16 * u}, ta)
			VCVTPS2PD(Mem{Base: b, Disp: 16 * u}, tb)
			term(ta, tb, acc[u], VSUBPD, VFMADD231PD)
		}
	}, a, b)
	Label(pre + "_tail")
	s := f64.sum(acc)
	countdown(pre+"_scalar", pre+"_done", n, func() {
		xa, xb := XMM(), XMM()
		VCVTSS2SD(Mem{Base: a}, xa, xa)
		VCVTSS2SD(Mem{Base: b}, xb, xb)
		term(xa, xb, s, VSUBSD, VFMADD231SD)
	}, moveBy(4, a, b)...)
	Label(pre + "_done")
	retValue(s)
}

// genAxpy writes axpyAVX(alpha float32, x, y *float32, n int): y += alpha·x.
func genAxpy() {
	leaf("axpyAVX", "func(alpha float32, x, y *float32, n int)", "axpyAVX computes y[:n] += alpha·x[:n].")
	x, y, n := gp("x"), gp("y"), gp("n")
	al := YMM()
	VBROADCASTSS(paramAddr("alpha"), al)
	vectors("axpy", "axpy_tail", n, 8, 32, 4, func(k int) {
		for u := 0; u < k; u++ {
			t := YMM()
			VMOVUPS(Mem{Base: y, Disp: 32 * u}, t)
			VFMADD231PS(Mem{Base: x, Disp: 32 * u}, al, t)
			VMOVUPS(t, Mem{Base: y, Disp: 32 * u})
		}
	}, x, y)
	mask := maskedTail("axpy_tail", "axpy_done", n)
	tx, ty := YMM(), YMM()
	VMASKMOVPS(Mem{Base: x}, mask, tx)
	VMASKMOVPS(Mem{Base: y}, mask, ty)
	VFMADD231PS(tx, al, ty)
	VMASKMOVPS(ty, mask, Mem{Base: y})
	finish("axpy_done")
}

// Cephes expf constants: x = n·ln2 + r with ln2 split as c1 + c2 (c1 has few
// bits so n·c1 is exact), exp(r) ≈ 1 + r + r²·P(r) on |r| ≤ ln2/2.
var expConsts = []struct {
	name string
	v    float32
}{
	{"exp_lo", -104},
	{"exp_hi", 89},
	{"exp_log2e", 1.44269504088896341},
	{"exp_c1", 0.693359375},
	{"exp_c2", -2.12194440e-4},
	{"exp_p0", 1.9875691500e-4},
	{"exp_p1", 1.3981999507e-3},
	{"exp_p2", 8.3334519073e-3},
	{"exp_p3", 4.1665795894e-2},
	{"exp_p4", 1.6666665459e-1},
	{"exp_p5", 5.0000001201e-1},
	{"exp_one", 1},
}

// genExp writes expAVX(dst, src *float32, n int): dst[i] = exp(src[i]); with
// z, expAVX512 for n a multiple of 16: the same instructions on 16 lanes.
func genExp(z bool) {
	name, pre, vb, newVec := "expAVX", "exp", 32, YMM
	doc := "expAVX sets dst[i] = exp(src[i]) for i < n (see expGo for the algorithm)."
	round := func(v VecVirtual) { VROUNDPS(U8(0), v, v) }
	if z {
		name, pre, vb, newVec = "expAVX512", "expz", 64, ZMM
		doc = "expAVX512 sets dst[i] = exp(src[i]) for i < n, n a multiple of 16."
		round = func(v VecVirtual) { VRNDSCALEPS(U8(0), v, v) }
	}
	leaf(name, "func(dst, src *float32, n int)", doc)
	cm, bias := expConstMem()
	dst, src, n := gp("dst"), gp("src"), gp("n")
	body := func(x VecVirtual) { expBody(cm, bias, x, newVec, round) }

	// Two vectors per pass, then at most one, then (AVX2) a masked tail.
	per := vb / 4
	loop := func(k int) string { return fmt.Sprintf("%s_loop%d", pre, k) }
	strip(loop(2*per), loop(per), n, 2*per, func() { mapVecs(dst, src, vb, 2, newVec, body) }, moveBy(2*vb, src, dst)...)
	exit := pre + "_tail"
	if z {
		exit = pre + "_done"
	}
	block(loop(per), exit, n, per)
	mapVecs(dst, src, vb, 1, newVec, body)
	if z {
		finish(exit)
		return
	}
	advance(n, per, moveBy(vb, src, dst)...)
	mask := maskedTail(exit, pre+"_done", n)
	xt := YMM()
	VMASKMOVPS(Mem{Base: src}, mask, xt)
	body(xt)
	VMASKMOVPS(xt, mask, Mem{Base: dst})
	finish(pre + "_done")
}

// expBody computes exp of x in place (vectors from newVec, rounding to
// nearest even by round), the algorithm of expGo.
func expBody(cm map[string]Mem, bias Mem, x VecVirtual, newVec func() VecVirtual, round func(VecVirtual)) {
	t := newVec()
	VBROADCASTSS(cm["exp_lo"], t)
	VMAXPS(x, t, x) // NaN in x propagates
	VBROADCASTSS(cm["exp_hi"], t)
	VMINPS(x, t, x)
	fn := newVec()
	VBROADCASTSS(cm["exp_log2e"], fn)
	VMULPS(x, fn, fn)
	round(fn)
	VBROADCASTSS(cm["exp_c1"], t)
	VFNMADD231PS(t, fn, x) // x -= fn·c1
	VBROADCASTSS(cm["exp_c2"], t)
	VFNMADD231PS(t, fn, x) // x -= fn·c2
	p := newVec()
	VBROADCASTSS(cm["exp_p0"], p)
	for _, c := range []string{"exp_p1", "exp_p2", "exp_p3", "exp_p4", "exp_p5"} {
		VBROADCASTSS(cm[c], t)
		VFMADD213PS(t, x, p) // p = p·x + c
	}
	z := newVec()
	VMULPS(x, x, z)
	VFMADD213PS(x, z, p) // p = p·z + x
	VBROADCASTSS(cm["exp_one"], t)
	VADDPS(t, p, p)
	// 2^n as 2^(n>>1) · 2^(n−n>>1) so that both factors are normal.
	ni := newVec()
	VCVTPS2DQ(fn, ni)
	n1 := newVec()
	VPSRAD(U8(1), ni, n1)
	VPSUBD(n1, ni, ni)
	VPBROADCASTD(bias, t)
	VPADDD(t, n1, n1)
	VPADDD(t, ni, ni)
	VPSLLD(U8(23), n1, n1)
	VPSLLD(U8(23), ni, ni)
	VMULPS(n1, p, p)
	VMULPS(ni, p, x)
}

// expConstMem declares the constants of the exp kernels (once).
func expConstMem() (map[string]Mem, Mem) {
	if expCM == nil {
		expCM = map[string]Mem{}
		for _, c := range expConsts {
			// Stored as bit patterns: the assembler reads a float DATA value
			// without a decimal point (such as $(1)) as an integer.
			expCM[c.name] = ConstData(c.name, U32(math.Float32bits(c.v)))
		}
		expBias = ConstData("exp_bias", U32(127))
	}
	return expCM, expBias
}

var (
	expCM   map[string]Mem
	expBias Mem
)

// genPanelDot writes panelDotAVX(dst, pan, b *float32, np, d int): the dot
// products of b[:d] with the np·16 points stored in feature-major panels of
// 16 (panel q holds feature f of its points at pan[q·16d + 16f : +16]). Each
// panel is d broadcast-FMAs into two 8-lane accumulators; four panels run
// side by side.
func genPanelDot() {
	leaf("panelDotAVX", "func(dst, pan, b *float32, np, d int)", "panelDotAVX sets dst[16q+l] = Σ_f pan[16dq+16f+l]·b[f] for q < np, l < 16 (d ≥ 1).")
	genPanelDotBody("pdot", 32, 4, YMM, nil)
	VZEROUPPER()
	RET()
}

// genPanelDot512 writes panelDotAVX512, panelDotAVX with one 16-lane
// accumulator per panel and eight panels side by side; each lane runs the
// same fused multiply-adds in the same order, so the results are identical.
func genPanelDot512() {
	leaf("panelDotAVX512", "func(dst, pan, b *float32, np, d int)", "panelDotAVX512 is panelDotAVX with AVX-512 (d ≥ 1).")
	genPanelDotBody("pdotz", 64, 8, ZMM, nil)
	VZEROUPPER()
	RET()
}

// genPanelDotBody writes the body of a panel-dot kernel whose vectors hold
// vb bytes (32: two vectors per 64-byte panel row, 64: one), running w
// panels (even) side by side before single panels. If epi is not nil it is
// applied to every vector of dot products before the store, with the
// offset in bytes of that vector from dst; the pointers adv advance with
// dst. The caller ends the function.
func genPanelDotBody(pre string, vb, w int, newVec func() VecVirtual, epi func(acc VecVirtual, disp int), adv ...advPtr) {
	dst, pan, b, np, d := gp("dst"), gp("pan"), gp("b"), gp("np"), gp("d")
	st := GP64() // panel stride in bytes: 64·d
	MOVQ(d, st)
	SHLQ(U8(6), st)
	per := 64 / vb // vectors per panel row

	block := func(lbl string, w int) {
		// w panels (w even or 1) from base pan.
		acc := make([]VecVirtual, w*per)
		for i := range acc {
			acc[i] = newVec()
			VXORPS(acc[i], acc[i], acc[i])
		}
		nb := (w + 1) / 2
		bases := make([]GPVirtual, nb)
		for i := range bases {
			bases[i] = GP64()
			if i == 0 {
				MOVQ(pan, bases[i])
			} else {
				LEAQ(Mem{Base: bases[i-1], Index: st, Scale: 2}, bases[i])
			}
		}
		bp := GP64()
		MOVQ(b, bp)
		f := GP64()
		MOVQ(d, f)
		Label(lbl + "_f")
		bv := newVec()
		VBROADCASTSS(Mem{Base: bp}, bv)
		for i := 0; i < w; i++ {
			for h := 0; h < per; h++ {
				m := Mem{Base: bases[i/2], Disp: vb * h}
				if i%2 == 1 {
					m = Mem{Base: bases[i/2], Index: st, Scale: 1, Disp: vb * h}
				}
				VFMADD231PS(m, bv, acc[i*per+h])
			}
		}
		for i := range bases {
			ADDQ(U32(64), bases[i])
		}
		ADDQ(U32(4), bp)
		DECQ(f)
		JNZ(LabelRef(lbl + "_f"))
		for i := range acc {
			if epi != nil {
				epi(acc[i], vb*i)
			}
			VMOVUPS(acc[i], Mem{Base: dst, Disp: vb * i})
		}
	}

	Label(pre + "_loopw")
	CMPQ(np, U32(w))
	JL(LabelRef(pre + "_loop1"))
	block(pre+"_bw", w)
	ADDQ(U32(64*w), dst)
	for _, a := range adv {
		ADDQ(U32(64*w*a.mul), a.r)
	}
	for i := 0; i < w; i++ {
		ADDQ(st, pan)
	}
	SUBQ(U32(w), np)
	JMP(LabelRef(pre + "_loopw"))
	Label(pre + "_loop1")
	TESTQ(np, np)
	JE(LabelRef(pre + "_done"))
	block(pre+"_b1", 1)
	ADDQ(U32(64), dst)
	for _, a := range adv {
		ADDQ(U32(64*a.mul), a.r)
	}
	ADDQ(st, pan)
	DECQ(np)
	JMP(LabelRef(pre + "_loop1"))
	Label(pre + "_done")
}

// advPtr is a pointer that a panel kernel advances by mul bytes per byte
// of dst.
type advPtr struct {
	r   GPVirtual
	mul int
}

// genPanelRBF512 writes panelRBFAVX512(dst, pan, b, norms *float32, c
// *float64, nb, ng float32, np, d int) float64: the RBF kernel row
// exp(−g·max(norms[i] + nb − 2·z_i·b, 0)) over np panels of 16 points in one
// pass, the instructions of panelDotAVX512, rbfArgAVX and expAVX512 per lane
// (identical results), and, if c is not nil, Σ c[i]·dst[i] in float64 in
// the partial sums and order of dotMixedAVX (identical result). The
// exponentials and the sum of a block run while the next block's panels
// load.
func genPanelRBF512() {
	leaf("panelRBFAVX512", "func(dst, pan, b, norms *float32, c *float64, nb, ng float32, np, d int) float64", "panelRBFAVX512 sets dst[i] = exp(-g·max(norms[i]+nb-2·dot_i, 0)) for i < 16·np, dot_i the panel dot products (d ≥ 1), and returns Σ c[i]·dst[i] as dotMixedAVX does (0 if c is nil).")
	cm, bias := expConstMem()
	nrm, cp := GP64(), GP64()
	Load(Param("norms"), nrm)
	Load(Param("c"), cp)
	arg := newRBFArgOps(ZMM)
	// s01, s23: dotMixedAVX's accumulators 0|1 and 2|3 side by side.
	s01, s23 := ZMM(), ZMM()
	VXORPD(s01, s01, s01)
	VXORPD(s23, s23, s23)
	withSum := GP64()
	MOVQ(cp, withSum)
	round := func(v VecVirtual) { VRNDSCALEPS(U8(0), v, v) }
	epi := func(x VecVirtual, disp int) {
		arg.apply(x, Mem{Base: nrm, Disp: disp})
		expBody(cm, bias, x, ZMM, round)
		lbl := fmt.Sprintf("prbf_nosum_%d_%d", disp, epiCount)
		epiCount++
		TESTQ(withSum, withSum)
		JE(LabelRef(lbl))
		lo, hi := ZMM(), ZMM()
		VCVTPS2PD(x.AsY(), lo)
		VFMADD231PD(Mem{Base: cp, Disp: 2 * disp}, lo, s01)
		h := YMM()
		VEXTRACTF32X8(U8(1), x, h)
		VCVTPS2PD(h, hi)
		VFMADD231PD(Mem{Base: cp, Disp: 2*disp + 64}, hi, s23)
		Label(lbl)
	}
	genPanelDotBody("prbf", 64, 8, ZMM, epi, advPtr{nrm, 1}, advPtr{cp, 2})
	// acc0+acc1, acc2+acc3, then their sum, reduced as dotMixedAVX does.
	a, b := YMM(), YMM()
	VEXTRACTF64X4(U8(1), s01, a)
	VADDPD(a, s01.AsY(), a)
	VEXTRACTF64X4(U8(1), s23, b)
	VADDPD(b, s23.AsY(), b)
	VADDPD(b, a, a)
	r := f64.hsum(a)
	VZEROUPPER()
	Store(r, ReturnIndex(0))
	RET()
}

var epiCount int

// rbfTwo declares the constant 2 of the RBF kernels (once).
func rbfTwo() Mem {
	if rbfTwoMem == nil {
		m := ConstData("rbf_two", U32(math.Float32bits(2)))
		rbfTwoMem = &m
	}
	return *rbfTwoMem
}

var rbfTwoMem *Mem

// rbfArgOps holds the constants of the RBF exponent −g·max(norms + nb −
// 2·dot, 0) in vectors of one width, loaded from the parameters nb and ng
// (g) of the function being generated.
type rbfArgOps struct {
	nb, ng, two, zero VecVirtual
	newVec            func() VecVirtual
}

func newRBFArgOps(newVec func() VecVirtual) rbfArgOps {
	r := rbfArgOps{nb: newVec(), ng: newVec(), two: newVec(), zero: newVec(), newVec: newVec}
	VBROADCASTSS(paramAddr("nb"), r.nb)
	VBROADCASTSS(paramAddr("ng"), r.ng)
	// −g: flip the sign bit by subtracting from zero.
	VXORPS(r.zero, r.zero, r.zero)
	VSUBPS(r.ng, r.zero, r.ng)
	VBROADCASTSS(rbfTwo(), r.two)
	return r
}

// apply turns the dot products in x into the exponents, given the squared
// norms (a vector or memory operand). 2·dot is exact, so the fused
// subtraction rounds exactly as the scalar expression does.
func (r rbfArgOps) apply(x VecVirtual, norms Op) {
	t := r.newVec()
	VADDPS(norms, r.nb, t)    // norms + nb
	VFNMADD231PS(x, r.two, t) // t −= 2·dot
	VMAXPS(t, r.zero, t)      // max(0, t): a NaN in t is kept
	VMULPS(r.ng, t, x)
}

// genRBFArg writes rbfArgAVX(dst, norms *float32, nb, g float32, n int):
// dst[i] = −g·max(norms[i] + nb − 2·dst[i], 0), the exponent of an RBF
// kernel row from its dot products. 2·dst[i] is exact, so the fused
// subtraction rounds exactly as the scalar expression does.
func genRBFArg() {
	leaf("rbfArgAVX", "func(dst, norms *float32, nb, ng float32, n int)", "rbfArgAVX sets dst[i] = -g·max(norms[i]+nb-2·dst[i], 0) for i < n.")
	dst, nrm, n := gp("dst"), gp("norms"), gp("n")
	arg := newRBFArgOps(YMM)
	strip("rbfarg_loop8", "rbfarg_tail", n, 8, func() {
		x := YMM()
		VMOVUPS(Mem{Base: dst}, x)
		arg.apply(x, Mem{Base: nrm})
		VMOVUPS(x, Mem{Base: dst})
	}, bump{dst, 32}, bump{nrm, 32})
	mask := maskedTail("rbfarg_tail", "rbfarg_done", n)
	xt, nt := YMM(), YMM()
	VMASKMOVPS(Mem{Base: dst}, mask, xt)
	VMASKMOVPS(Mem{Base: nrm}, mask, nt)
	arg.apply(xt, nt)
	VMASKMOVPS(xt, mask, Mem{Base: dst})
	finish("rbfarg_done")
}

// genDotMixed writes dotMixedAVX(c *float64, x *float32, n int) float64 =
// Σ c[i]·x[i] in float64 for n a multiple of 16.
func genDotMixed() {
	leaf("dotMixedAVX", "func(c *float64, x *float32, n int) float64", "dotMixedAVX returns Σ c[i]·float64(x[i]) for i < n, n a multiple of 16.")
	c, x, n := gp("c"), gp("x"), gp("n")
	acc := f64.zeros4()
	strip("dmix_loop16", "dmix_reduce", n, 16, func() {
		for u := 0; u < 4; u++ {
			t := YMM()
			VCVTPS2PD(Mem{Base: x, Disp: 16 * u}, t)
			VFMADD231PD(Mem{Base: c, Disp: 32 * u}, t, acc[u])
		}
	}, bump{x, 64}, bump{c, 128})
	Label("dmix_reduce")
	retValue(f64.sum(acc))
}

// nanMax sets dst = max(a, b) lane-wise with NaN propagation: VMAXPS
// returns its second source when either is NaN, so a NaN in a is kept, and
// a NaN in b is ORed in as an all-ones (NaN) lane.
func nanMax(a, b, dst VecVirtual) {
	u := YMM()
	VCMPPS(U8(3), b, b, u) // unordered: b is NaN
	VMAXPS(a, b, dst)      // max(b, a); a if either is NaN
	VORPS(u, dst, dst)
}

// genMaxTo writes maxToAVX(dst, a, b *float32, n int): dst[i] =
// max(a[i], b[i]) with NaN propagation, n a multiple of 8.
func genMaxTo() {
	leaf("maxToAVX", "func(dst, a, b *float32, n int)", "maxToAVX sets dst[i] = max(a[i], b[i]) (NaN-propagating) for i < n, n a multiple of 8.")
	dst, a, b, n := gp("dst"), gp("a"), gp("b"), gp("n")
	strip("maxto_loop", "maxto_done", n, 8, func() {
		va, vb := YMM(), YMM()
		VMOVUPS(Mem{Base: a}, va)
		VMOVUPS(Mem{Base: b}, vb)
		nanMax(va, vb, va)
		VMOVUPS(va, Mem{Base: dst})
	}, bump{a, 32}, bump{b, 32}, bump{dst, 32})
	finish("maxto_done")
}

// genPairMax writes pairMaxAVX(dst, src *float32, n int, relu bool):
// dst[i] = max(src[2i], src[2i+1]) (NaN-propagating), then max(·, 0) if
// relu (keeping NaN and −0 as the scalar relu does), n a multiple of 8.
func genPairMax() {
	leaf("pairMaxAVX", "func(dst, src *float32, n int, relu bool)", "pairMaxAVX sets dst[i] = max(src[2i], src[2i+1]) (NaN-propagating), relu'd if relu, for i < n, n a multiple of 8.")
	dst, src, n := gp("dst"), gp("src"), gp("n")
	relu := Load(Param("relu"), GP8())
	zero := YMM()
	VXORPS(zero, zero, zero)
	reluVariants("pairmax", "", relu, func(lbl string, doRelu bool) {
		strip(lbl, "pairmax_done", n, 8, func() {
			lo, hi, ev, od := YMM(), YMM(), YMM(), YMM()
			VMOVUPS(Mem{Base: src}, lo)
			VMOVUPS(Mem{Base: src, Disp: 32}, hi)
			VSHUFPS(U8(0x88), hi, lo, ev) // lanes: x0 x2 x8 x10 | x4 x6 x12 x14
			VSHUFPS(U8(0xDD), hi, lo, od) // lanes: x1 x3 x9 x11 | x5 x7 x13 x15
			VPERMPD(U8(0xD8), ev, ev)     // x0 x2 x4 x6 x8 x10 x12 x14
			VPERMPD(U8(0xD8), od, od)
			nanMax(ev, od, ev)
			if doRelu {
				VMAXPS(ev, zero, ev) // max(0, m); m if NaN or both zero
			}
			VMOVUPS(ev, Mem{Base: dst})
		}, bump{src, 64}, bump{dst, 32})
	})
}

// reluVariants writes body twice: pre_plain without the relu, and pre_relu
// with it, entered when the flag relu is set (first is the suffix of the
// first label of a body). Both go on at pre_done, where the function ends.
func reluVariants(pre, first string, relu Register, body func(lbl string, doRelu bool)) {
	TESTB(relu, relu)
	JNE(LabelRef(pre + "_relu" + first))
	body(pre+"_plain", false)
	body(pre+"_relu", true)
	finish(pre + "_done")
}

// genRelu writes reluAVX(dst, src *float32, n int): dst[i] = max(src[i], 0)
// as nn's scalar relu (negative values become +0; NaN and −0 stay), n a
// multiple of 8.
func genRelu() {
	leaf("reluAVX", "func(dst, src *float32, n int)", "reluAVX sets dst[i] = src[i] < 0 ? +0 : src[i] for i < n, n a multiple of 8.")
	dst, src, n := gp("dst"), gp("src"), gp("n")
	zero := YMM()
	VXORPS(zero, zero, zero)
	// Intel vmaxps x, zero, x: zero if zero > x, else x (x when NaN or ±0).
	relu := func(x VecVirtual) { VMAXPS(x, zero, x) }
	vectors("relu", "relu_done", n, 8, 32, 4, func(k int) { mapVecs(dst, src, 32, k, YMM, relu) }, src, dst)
	finish("relu_done")
}

// genNonFinite writes nonFiniteAVX(x *float32, n int) bool: whether some
// x[i] is NaN or ±Inf (all exponent bits set), n a multiple of 8.
func genNonFinite() {
	leaf("nonFiniteAVX", "func(x *float32, n int) bool", "nonFiniteAVX reports whether x[i] is NaN or ±Inf for some i < n, n a multiple of 8.")
	x, n := gp("x"), gp("n")
	c := ConstData("exp_bits", U32(0x7f800000))
	mask := YMM()
	VBROADCASTSS(c, mask)
	acc := []VecVirtual{YMM(), YMM()}
	for _, a := range acc {
		VPXOR(a, a, a)
	}
	vectors("nf", "nf_done", n, 8, 32, 2, func(k int) {
		for u := 0; u < k; u++ {
			t := YMM()
			VANDPS(Mem{Base: x, Disp: 32 * u}, mask, t)
			VPCMPEQD(mask, t, t)
			VPOR(t, acc[u], acc[u])
		}
	}, x)
	Label("nf_done")
	VPOR(acc[1], acc[0], acc[0])
	r := GP8()
	VPTEST(acc[0], acc[0])
	SETNE(r)
	retValue(r)
}

// genReluGrad writes reluGradAVX(dst, dy, y *float32, n int): dst[i] =
// dy[i] where y[i] > 0 and +0 elsewhere (NaN y included), n a multiple of 8.
func genReluGrad() {
	leaf("reluGradAVX", "func(dst, dy, y *float32, n int)", "reluGradAVX sets dst[i] = y[i] > 0 ? dy[i] : +0 for i < n, n a multiple of 8.")
	// g holds dy (a parameter named g would clash with the assembler's g).
	dst, g, y, n := gp("dst"), gp("dy"), gp("y"), gp("n")
	zero := YMM()
	VXORPS(zero, zero, zero)
	grad := func(u int) {
		m := YMM()
		// Intel vcmpps m, zero, [y], LT_OQ (0x11): 0 < y, false for NaN.
		VCMPPS(U8(0x11), Mem{Base: y, Disp: 32 * u}, zero, m)
		VANDPS(Mem{Base: g, Disp: 32 * u}, m, m)
		VMOVUPS(m, Mem{Base: dst, Disp: 32 * u})
	}
	strip("rgrad_loop16", "rgrad_loop8", n, 16, func() {
		grad(0)
		grad(1)
	}, bump{dst, 64}, bump{g, 64}, bump{y, 64})
	block("rgrad_loop8", "rgrad_done", n, 8)
	grad(0)
	finish("rgrad_done")
}

// convOff holds the byte offsets of the fields of vec.convArgs, the argument
// block of the convolution kernels; a test in package vec checks them.
var convOff = map[string]int{
	"w": 0, "x": 8, "y": 16, "off": 24, "xo": 32, "g": 40,
	"nt": 48, "k": 56, "ldw": 64, "ldy": 72, "ldg": 80,
}

// The convolution kernels work on vectors of eight output pixels. Vector v
// reads its input at x + xo[v] (elements) and, for row r of the implicit
// im2col matrix, at x + xo[v] + off[r]; its outputs (or output gradients)
// are the eight floats at y + 8v of every row of y (ldy apart). No im2col
// matrix is built: the kernels gather the input as they go.

// genConvFwd writes convf{mr}x{8nv}: the forward product for mr output
// channels over nt tiles of nv vectors,
//
//	y[i·ldy + 8v + l] = g[i] + Σ_{r<k} w[i·ldw + r] · x[xo[v] + off[r] + l]
//
// summed from the bias g[i] with one fused multiply-add per r, r ascending.
func genConvFwd(mr, nv int) {
	name := fmt.Sprintf("convf%dx%d", mr, 8*nv)
	arg := blockLeaf(name, fmt.Sprintf("%s is the implicit-im2col convolution kernel over %d output channels and tiles of %d pixels.", name, mr, 8*nv), convOff)
	convTiles(name, nv, arg, func(yp, xop GPVirtual) {
		acc := make([][]VecVirtual, mr)
		bias := load(arg("g"))
		for i := range acc {
			acc[i] = make([]VecVirtual, nv)
			for v := range acc[i] {
				acc[i][v] = YMM()
				if v == 0 {
					VBROADCASTSS(Mem{Base: bias, Disp: 4 * i}, acc[i][v])
				} else {
					VMOVAPS(acc[i][0], acc[i][v])
				}
			}
		}
		xb := offsetAddrs(load(arg("x")), xop, nv)
		a0 := load(arg("w"))
		lda := loadStride(arg("ldw"))
		a3 := row3(a0, lda, mr)
		offp := load(arg("off"))
		kk := load(arg("k"))

		step := func(u int) {
			o := loadOffset(offp, u)
			bv := loadVecs(nv, func(v int) Mem { return Mem{Base: xb[v], Index: o, Scale: 4} })
			for i := 0; i < mr; i++ {
				t := YMM()
				VBROADCASTSS(row(a0, a3, lda, i).Offset(4*u), t)
				for v := 0; v < nv; v++ {
					VFMADD231PS(bv[v], t, acc[i][v])
				}
			}
		}
		// The weights and the row offsets move on by one element per step.
		ptrs := []Register{a0}
		if mr > 3 {
			ptrs = append(ptrs, a3)
		}
		unrolled(name, name+"_store", kk, 5, step, append(ptrs, offp)...)

		Label(name + "_store")
		ldy := loadStride(arg("ldy"))
		y3 := row3(yp, ldy, mr)
		for i := 0; i < mr; i++ {
			for v := 0; v < nv; v++ {
				VMOVUPS(acc[i][v], row(yp, y3, ldy, i).Offset(32*v))
			}
		}
	})
}

// convTiles writes the loop of a convolution kernel over its nt tiles of
// nv vectors, tile(yp, xop) with yp at the tile's outputs and xop at its
// vector offsets, and ends the function.
func convTiles(name string, nv int, arg func(string) Mem, tile func(yp, xop GPVirtual)) {
	nt := load(arg("nt"))
	yp := load(arg("y"))
	xop := load(arg("xo"))

	tiles(name, nt, func() {
		tile(yp, xop)
		ADDQ(U32(32*nv), yp)
		ADDQ(U32(4*nv), xop)
	})
}

// tiles writes the loop name_tile of a kernel over nt tiles, tile() for each
// (which moves the pointers on to the next), and ends the function.
func tiles(name string, nt Register, tile func()) {
	Label(name + "_tile")
	tile()
	DECQ(nt)
	JNE(LabelRef(name + "_tile"))
	VZEROUPPER()
	RET()
}

// offsetAddrs returns offsetAddr(x, offs, i) for i < n.
func offsetAddrs(x, offs Register, n int) []GPVirtual {
	r := make([]GPVirtual, n)
	for i := range r {
		r[i] = offsetAddr(x, offs, i)
	}
	return r
}

// loadVecs loads n new YMM vectors, vector i from addr(i).
func loadVecs(n int, addr func(i int) Mem) []VecVirtual {
	vs := make([]VecVirtual, n)
	for i := range vs {
		vs[i] = YMM()
		VMOVUPS(addr(i), vs[i])
	}
	return vs
}

// loadOffset reads the int32 offs[i] into a new register, sign-extended.
func loadOffset(offs Register, i int) GPVirtual {
	o := GP64()
	MOVLQSX(Mem{Base: offs, Disp: 4 * i}, o)
	return o
}

// offsetAddr returns a new register with the address of element offs[i]
// of the float32 array at x.
func offsetAddr(x, offs Register, i int) GPVirtual {
	o := loadOffset(offs, i)
	r := GP64()
	LEAQ(Mem{Base: x, Index: o, Scale: 4}, r)
	return r
}

// convDWMaxCols is the widest block of the weight-gradient kernel for mr
// rows: up to twelve accumulators, plus mr rows of dy and one input vector.
var convDWMaxCols = [4]int{0, 8, 6, 4}

// genConvDW writes convw{mr}x{nr}: an mr×nr block of the weight gradient
// over nt vectors, as inner products,
//
//	g[i·ldg + j] += Σ_{v<nt} Σ_l y[i·ldy + 8v + l] · x[xo[v] + off[j] + l]
//
// (y holds the output gradient), each sum kept in eight lanes and added
// across them at the end as dotk does.
func genConvDW(mr, nr int) {
	name := fmt.Sprintf("convw%dx%d", mr, nr)
	arg := blockLeaf(name, fmt.Sprintf("%s adds a %d×%d block of a convolution's weight gradient, gathering the input as it goes.", name, mr, nr), convOff)

	acc := zeroAcc(mr, nr)
	dy0 := load(arg("y"))
	ldy := loadStride(arg("ldy"))
	xj := offsetAddrs(load(arg("x")), load(arg("off")), nr)
	xop := load(arg("xo"))
	nv := load(arg("nt"))

	step := func(u int) {
		o := loadOffset(xop, u)
		dv := loadVecs(mr, func(i int) Mem { return row(dy0, dy0, ldy, i).Offset(32 * u) })
		for j := 0; j < nr; j++ {
			xt := YMM()
			VMOVUPS(Mem{Base: xj[j], Index: o, Scale: 4}, xt)
			for i := 0; i < mr; i++ {
				VFMADD231PS(dv[i], xt, acc[i][j])
			}
		}
	}
	strip(name+"_loop2", name+"_tail", nv, 2, func() {
		step(0)
		step(1)
	}, bump{dy0, 64}, bump{xop, 8})
	Label(name + "_tail")
	TESTQ(nv, nv)
	JE(LabelRef(name + "_reduce"))
	step(0)

	Label(name + "_reduce")
	zero := YMM()
	VXORPS(zero, zero, zero)
	g := load(arg("g"))
	ldg := loadStride(arg("ldg"))
	// Groups of four columns: lanes 0..3 of s hold row i's four sums.
	for i := 0; i < mr; i++ {
		m := row(g, g, ldg, i)
		for j0 := 0; j0 < nr; j0 += 4 {
			s := hadd4(acc[i], j0, zero)
			if nr-j0 >= 4 {
				VADDPS(m.Offset(4*j0), s, s)
				VMOVUPS(s, m.Offset(4*j0))
				continue
			}
			for j := j0; j < nr; j++ {
				t := lane(s, j-j0)
				VADDSS(m.Offset(4*j), t, t)
				VMOVSS(t, m.Offset(4*j))
			}
		}
	}
	VZEROUPPER()
	RET()
}

// genConvDX writes convd{mr}x{8nv}: the input gradient of mr rows of the
// implicit im2col matrix over nt tiles of nv vectors, added into x:
//
//	x[xo[v] + off[i] + l] += Σ_{c<k} w[i + c·ldw] · y[c·ldy + 8v + l]
//
// (y holds the output gradient, w the weights with rows r contiguous). The
// additions into x are made row by row, vector by vector, in that order, so
// that rows whose targets overlap are still added correctly (the callers
// order the rows so that those of one call do not overlap).
func genConvDX(mr, nv int) {
	name := fmt.Sprintf("convd%dx%d", mr, 8*nv)
	arg := blockLeaf(name, fmt.Sprintf("%s adds the input gradient of %d im2col rows over tiles of %d pixels into x.", name, mr, 8*nv), convOff)
	convTiles(name, nv, arg, func(yp, xop GPVirtual) {
		acc := zeroAcc(mr, nv)
		a0 := load(arg("w"))
		lda := loadStride(arg("ldw"))
		bp := GP64()
		MOVQ(yp, bp)
		ldy := loadStride(arg("ldy"))
		kk := load(arg("k"))
		step := func(int) {
			bv := loadVecs(nv, func(v int) Mem { return Mem{Base: bp, Disp: 32 * v} })
			for i := 0; i < mr; i++ {
				t := YMM()
				VBROADCASTSS(Mem{Base: a0, Disp: 4 * i}, t)
				for v := 0; v < nv; v++ {
					VFMADD231PS(bv[v], t, acc[i][v])
				}
			}
			ADDQ(lda, a0)
			ADDQ(ldy, bp)
		}
		unrolled(name, name+"_store", kk, 4, step)

		Label(name + "_store")
		x0 := load(arg("x"))
		offp := load(arg("off"))
		for v := 0; v < nv; v++ {
			xv := offsetAddr(x0, xop, v)
			for i := 0; i < mr; i++ {
				m := Mem{Base: xv, Index: loadOffset(offp, i), Scale: 4}
				VADDPS(m, acc[i][v], acc[i][v])
				VMOVUPS(acc[i][v], m)
			}
		}
	})
}

var pairTab Mem

// genMaxPool2Grad writes maxPool2GradAVX(dx, x, dy *float32, pairs, w int,
// relu bool): the backward pass of a 2×2 max-pool with stride 2 over pairs
// row pairs of width w (a multiple of 8), the rows of each pair w apart, and
// w/2 outputs per pair:
//
//	dx[2pw + 2j + a] and dx[(2p+1)w + 2j + a] (a < 2): dy[p·w/2 + j] at the
//	first maximum of the window in the order (0,0), (0,1), (1,0), (1,1), the
//	last when the window holds a NaN, 0 elsewhere;
//
// with relu the gradient is dy only where the window maximum is > 0. The
// window maximum is recomputed from x in both lanes of each pair, so the
// whole pass stays in the layout of x.
func genMaxPool2Grad() {
	// pairTab: the VPERMILPS control that spreads four floats (repeated in
	// both halves) over pairs of lanes, then the mask of the odd lanes.
	pairTab = GLOBL("pairtab", RODATA|NOPTR)
	for i, v := range []uint32{0, 0, 1, 1, 2, 2, 3, 3} {
		DATA(4*i, U32(v))
	}
	for i := 0; i < 8; i++ {
		v := uint32(0)
		if i%2 == 1 {
			v = 0xffffffff
		}
		DATA(32+4*i, U32(v))
	}
	leaf("maxPool2GradAVX", "func(dx, x, dy *float32, pairs, w int, relu bool)", "maxPool2GradAVX routes dy to the maxima of 2×2 windows over pairs row pairs of width w (a multiple of 8) into dx.")
	dx, x, dy, pairs := gp("dx"), gp("x"), gp("dy"), gp("pairs")
	w := loadStride(paramAddr("w"))
	relu := Load(Param("relu"), GP8())
	ctl, odd, zero := YMM(), YMM(), YMM()
	VMOVDQU(pairTab, ctl)
	VMOVDQU(pairTab.Offset(32), odd)
	VXORPS(zero, zero, zero)
	reluVariants("mp2g", "_pair", relu, func(lbl string, doRelu bool) {
		rowPairs(lbl, "mp2g_done", pairs, w, func() {
			x1, dx1 := GP64(), GP64()
			LEAQ(Mem{Base: x, Index: w, Scale: 1}, x1)
			LEAQ(Mem{Base: dx, Index: w, Scale: 1}, dx1)
			i := GP64()
			XORQ(i, i)
			Label(lbl + "_col")
			r0, r1 := YMM(), YMM()
			VMOVUPS(Mem{Base: x, Index: i, Scale: 1}, r0)
			VMOVUPS(Mem{Base: x1, Index: i, Scale: 1}, r1)
			v, vs, m := YMM(), YMM(), YMM()
			nanMax(r0, r1, v)
			VPERMILPS(U8(0xB1), v, vs)
			nanMax(v, vs, m)
			e0, e1, s0, s1 := YMM(), YMM(), YMM(), YMM()
			VCMPPS(U8(0), m, r0, e0) // r0 == m (ordered)
			VCMPPS(U8(0), m, r1, e1)
			VPERMILPS(U8(0xB1), e0, s0)
			VPERMILPS(U8(0xB1), e1, s1)
			any0, k0, k1, t := YMM(), YMM(), YMM(), YMM()
			VORPS(e0, s0, any0)
			// Row 0: even lanes e0; odd lanes e0 unless the even one matched.
			VANDPS(odd, s0, t)
			VANDNPS(e0, t, k0) // e0 &^ (s0 & odd)
			// Row 1, only where row 0 did not match: even lanes e1; odd lanes
			// unless the even one matched (the default, NaN included).
			VANDNPS(e1, odd, k1) // e1 &^ odd
			VANDNPS(odd, s1, t)  // odd &^ s1
			VORPS(t, k1, k1)
			VANDNPS(k1, any0, k1) // k1 &^ any0
			g := YMM()
			VBROADCASTF128(Mem{Base: dy}, g)
			VPERMILPS(ctl, g, g)
			if doRelu {
				pos := YMM()
				VCMPPS(U8(0x11), m, zero, pos) // 0 < m, false for NaN
				VANDPS(pos, g, g)
			}
			VANDPS(g, k0, k0)
			VANDPS(g, k1, k1)
			VMOVUPS(k0, Mem{Base: dx, Index: i, Scale: 1})
			VMOVUPS(k1, Mem{Base: dx1, Index: i, Scale: 1})
			ADDQ(U32(16), dy)
			ADDQ(U32(32), i)
			CMPQ(i, w)
			JNE(LabelRef(lbl + "_col"))
		}, x, dx)
	})
}

// rowPairs writes the loop lbl_pair of a 2×2-pool kernel over pairs pairs
// of rows w bytes wide: body for each pair, after which each pointer of
// rows moves on by two rows; then on to exit.
func rowPairs(lbl, exit string, pairs, w Register, body func(), rows ...Register) {
	countdown(lbl+"_pair", exit, pairs, func() {
		body()
		for _, r := range rows {
			LEAQ(Mem{Base: r, Index: w, Scale: 2}, r)
		}
	})
}

// genMaxPool2 writes maxPool2AVX(y, x *float32, pairs, w int, relu bool):
// the 2×2 max-pool with stride 2 over pairs row pairs of width w (a
// multiple of 8), the rows of each pair w apart, writing the w/2 outputs of
// each pair in order: the instructions of maxToAVX over the two rows, then
// those of pairMaxAVX (relu included), so the results are theirs bit for
// bit, in one pass without the intermediate row.
func genMaxPool2() {
	leaf("maxPool2AVX", "func(y, x *float32, pairs, w int, relu bool)", "maxPool2AVX writes the maxima of 2×2 windows over pairs row pairs of width w (a multiple of 8) to y, relu'd if relu.")
	y, x, pairs := gp("y"), gp("x"), gp("pairs")
	w := loadStride(paramAddr("w"))
	relu := Load(Param("relu"), GP8())
	zero := YMM()
	VXORPS(zero, zero, zero)
	// half pools 8 columns (4 outputs) or 16 (8 outputs) at byte offset i.
	half := func(x1, i GPVirtual, cols int, doRelu bool) {
		va := YMM()
		VMOVUPS(Mem{Base: x, Index: i, Scale: 1}, va)
		t := YMM()
		VMOVUPS(Mem{Base: x1, Index: i, Scale: 1}, t)
		nanMax(va, t, va)
		vb := va
		if cols == 16 {
			vb = YMM()
			VMOVUPS(Mem{Base: x, Index: i, Scale: 1, Disp: 32}, vb)
			t := YMM()
			VMOVUPS(Mem{Base: x1, Index: i, Scale: 1, Disp: 32}, t)
			nanMax(vb, t, vb)
		}
		ev, od := YMM(), YMM()
		VSHUFPS(U8(0x88), vb, va, ev)
		VSHUFPS(U8(0xDD), vb, va, od)
		VPERMPD(U8(0xD8), ev, ev)
		VPERMPD(U8(0xD8), od, od)
		nanMax(ev, od, ev)
		if doRelu {
			VMAXPS(ev, zero, ev)
		}
		if cols == 16 {
			VMOVUPS(ev, Mem{Base: y})
			ADDQ(U32(32), y)
		} else {
			VMOVUPS(ev.AsX(), Mem{Base: y})
			ADDQ(U32(16), y)
		}
	}
	reluVariants("mp2", "_pair", relu, func(lbl string, doRelu bool) {
		rowPairs(lbl, "mp2_done", pairs, w, func() {
			x1 := GP64()
			LEAQ(Mem{Base: x, Index: w, Scale: 1}, x1)
			i := GP64()
			XORQ(i, i)
			Label(lbl + "_col16")
			t := GP64()
			LEAQ(Mem{Base: i, Disp: 64}, t)
			CMPQ(t, w)
			JG(LabelRef(lbl + "_col8"))
			half(x1, i, 16, doRelu)
			MOVQ(t, i)
			JMP(LabelRef(lbl + "_col16"))
			Label(lbl + "_col8")
			CMPQ(i, w)
			JE(LabelRef(lbl + "_next"))
			half(x1, i, 8, doRelu)
			Label(lbl + "_next")
		}, x)
	})
}

// genScale64 writes scale64AVX(dst, src *float32, s float64, n int):
// dst[i] = float32(float64(src[i])·s), the product taken in float64 and
// rounded once to float32 as Go rounds the same expression, n a multiple of
// 8.
func genScale64() {
	leaf("scale64AVX", "func(dst, src *float32, s float64, n int)", "scale64AVX sets dst[i] = float32(float64(src[i])·s) for i < n, n a multiple of 8.")
	dst, src, n := gp("dst"), gp("src"), gp("n")
	sv := YMM()
	VBROADCASTSD(paramAddr("s"), sv)
	strip("scale64_loop", "scale64_done", n, 8, func() {
		for h := 0; h < 2; h++ {
			d := YMM()
			VCVTPS2PD(Mem{Base: src, Disp: 16 * h}, d)
			VMULPD(sv, d, d)
			x := XMM()
			VCVTPD2PSY(d, x)
			VMOVUPS(x, Mem{Base: dst, Disp: 16 * h})
		}
	}, bump{src, 32}, bump{dst, 32})
	finish("scale64_done")
}

// adamConst are the rows of adamAVX's constant block, eight copies of each
// constant; vec.adamAsm fills it.
var adamConst = map[string]int{
	"wd": 0, "b1": 1, "c1": 2, "b2": 3, "c2": 4, "bc2s": 5, "eps": 6, "step": 7,
	"tinyGrad": 8, "tinyMoment": 9, "abs": 10,
}

// genAdam writes adamAVX(w, g, m, v, c *float32, n int): one Adam step over
// the n elements (a multiple of 8) in the order of operations of vec.adamGo,
// with no fused multiply-add, so that both give the same floats:
//
//	d = g + wd·w, 0 if |d| < tinyGrad
//	m = b1·m + c1·d, 0 if |m| < tinyMoment
//	v = b2·v + c2·(d·d), 0 if v < tinyMoment
//	w = w − step·(m / (√v / bc2s + eps))
func genAdam() {
	leaf("adamAVX", "func(w, grad, m, v, c *float32, n int)", "adamAVX takes one Adam step over n elements, n a multiple of 8 (see vec.adamGo).")
	// gr holds the gradient (a parameter named g would clash with the assembler's g).
	w, gr, m, v, c, n := gp("w"), gp("grad"), gp("m"), gp("v"), gp("c"), gp("n")
	k := func(name string) Mem { return Mem{Base: c, Disp: 32 * adamConst[name]} }
	// flush sets the lanes of x whose magnitude (abs) or value is below
	// the constant tiny to +0.
	flush := func(x VecVirtual, tiny string, abs bool) {
		a, mask := x, YMM()
		if abs {
			a = YMM()
			VANDPS(k("abs"), x, a)
		}
		// Intel vcmpps mask, a, [tiny], LT_OQ (0x11): a < tiny, false for NaN.
		VCMPPS(U8(0x11), k(tiny), a, mask)
		VANDNPS(x, mask, x)
	}
	strip("adam_loop", "adam_done", n, 8, func() {
		W, d, t := YMM(), YMM(), YMM()
		VMOVUPS(Mem{Base: w}, W)
		VMULPS(k("wd"), W, t)
		VADDPS(Mem{Base: gr}, t, d)
		flush(d, "tinyGrad", true)
		mi, t2 := YMM(), YMM()
		VMOVUPS(Mem{Base: m}, mi)
		VMULPS(k("b1"), mi, mi)
		VMULPS(k("c1"), d, t2)
		VADDPS(t2, mi, mi)
		flush(mi, "tinyMoment", true)
		VMOVUPS(mi, Mem{Base: m})
		vi, dd := YMM(), YMM()
		VMULPS(d, d, dd)
		VMULPS(k("c2"), dd, dd)
		VMOVUPS(Mem{Base: v}, vi)
		VMULPS(k("b2"), vi, vi)
		VADDPS(dd, vi, vi)
		flush(vi, "tinyMoment", false)
		VMOVUPS(vi, Mem{Base: v})
		den := YMM()
		VSQRTPS(vi, den)
		VDIVPS(k("bc2s"), den, den)
		VADDPS(k("eps"), den, den)
		q := YMM()
		VDIVPS(den, mi, q)
		VMULPS(k("step"), q, q)
		VSUBPS(q, W, W)
		VMOVUPS(W, Mem{Base: w})
	}, bump{w, 32}, bump{gr, 32}, bump{m, 32}, bump{v, 32})
	finish("adam_done")
}
