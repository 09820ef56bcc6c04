//go:build amd64 && !noasm

package vec

import "unsafe"

func (ca *convArgs) ptr() *int64 { return (*int64)(unsafe.Pointer(ca)) }

// convDWMaxCols is the widest block of the weight-gradient kernels for mr
// rows (as in asm/gen.go).
var convDWMaxCols = [4]int{0, 8, 6, 4}

// convFwdTile is the number of vectors per tile of the forward kernel for mr
// rows: as many as keep twelve accumulators or fewer.
func convFwdTile(mr int) int {
	return min(3, 12/mr)
}

func convForward(m, k int, w []float32, ldw int, bias, x []float32, off, xo []int32, y []float32, ldy int) {
	if !hasAVX2FMA {
		convForwardGo(m, k, w, ldw, bias, x, off, xo, y, ldy)
		return
	}
	var ca convArgs
	ca.x, ca.off, ca.k, ca.ldw, ca.ldy = &x[0], &off[0], k, ldw, ldy
	nvec := len(xo)
	// Blocks of at most six channels, as even as possible.
	nb := (m + 5) / 6
	for b := 0; b < nb; b++ {
		c0, c1 := b*m/nb, (b+1)*m/nb
		mr := c1 - c0
		ca.w, ca.g = &w[c0*ldw], &bias[c0]
		nv := convFwdTile(mr)
		nt := nvec / nv
		if nt > 0 {
			ca.y, ca.xo, ca.nt = &y[c0*ldy], &xo[0], nt
			convFwdKern(mr, nv, &ca)
		}
		if rem := nvec - nt*nv; rem > 0 {
			ca.y, ca.xo, ca.nt = &y[c0*ldy+ConvVec*nt*nv], &xo[nt*nv], 1
			convFwdKern(mr, rem, &ca)
		}
	}
}

func convWeightGrad(m, k int, dy []float32, ldy int, x []float32, off, xo []int32, g []float32, ldg int) {
	if !hasAVX2FMA {
		convWeightGradGo(m, k, dy, ldy, x, off, xo, g, ldg)
		return
	}
	var ca convArgs
	ca.x, ca.ldy, ca.ldg = &x[0], ldy, ldg
	// Blocks of at most three rows and as many columns as the kernel for
	// them takes, both as even as possible (a block of few columns would
	// leave the kernel waiting on its few sums).
	nb := (m + 2) / 3
	for v0 := 0; v0 < len(xo); v0 += convDWChunk {
		ca.xo, ca.nt = &xo[v0], min(convDWChunk, len(xo)-v0)
		for b := 0; b < nb; b++ {
			c0, c1 := b*m/nb, (b+1)*m/nb
			mr := c1 - c0
			ca.y = &dy[c0*ldy+ConvVec*v0]
			// The wider blocks first: most of them full, so that their
			// sums are stored as vectors.
			kb := (k + convDWMaxCols[mr] - 1) / convDWMaxCols[mr]
			for j, r0 := 0, 0; j < kb; j++ {
				w := k / kb
				if j < k%kb {
					w++
				}
				ca.off, ca.g = &off[r0], &g[c0*ldg+r0]
				convDWKern(mr, w, &ca)
				r0 += w
			}
		}
	}
}

func convInputGrad(m, k int, w []float32, ldw int, dy []float32, ldy int, off, xo []int32, dx []float32) {
	if !hasAVX2FMA {
		convInputGradGo(m, k, w, ldw, dy, ldy, off, xo, dx)
		return
	}
	var ca convArgs
	ca.x, ca.k, ca.ldw, ca.ldy = &dx[0], m, ldw, ldy
	nb := (k + 5) / 6
	for v0 := 0; v0 < len(xo); v0 += convDXChunk {
		nv := min(convDXChunk, len(xo)-v0)
		nt := nv / 2
		for b := 0; b < nb; b++ {
			r0, r1 := b*k/nb, (b+1)*k/nb
			ca.w, ca.off = &w[r0], &off[r0]
			if nt > 0 {
				ca.y, ca.xo, ca.nt = &dy[ConvVec*v0], &xo[v0], nt
				convDXKern(r1-r0, 2, &ca)
			}
			if nv%2 != 0 {
				ca.y, ca.xo, ca.nt = &dy[ConvVec*(v0+nv-1)], &xo[v0+nv-1], 1
				convDXKern(r1-r0, 1, &ca)
			}
		}
	}
}
