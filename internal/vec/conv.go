package vec

import "fmt"

// Convolutions as implicit-im2col products.
//
// A convolution (cross-correlation) of an input x with weights W is the
// product Y = W·cols of the weights with the im2col matrix of x, whose row r
// holds, for every output pixel, the input element that weight r multiplies.
// The functions below never build cols: they describe it by two tables of
// element offsets into x, off (one per row r of cols: for a K×K kernel over
// C channels, r = (c, ky, kx) has off[r] = c·(channel stride) + ky·(row
// width) + kx) and xo (one per vector of ConvVec consecutive output pixels:
// the offset of the input under the first pixel of the vector), so that
// cols[r][pixel l of vector v] = x[xo[v] + off[r] + l], and gather the input
// as they go. Output (and output-gradient) rows hold the vectors one after
// the other: pixel l of vector v of row c is at y[c·ldy + ConvVec·v + l].
//
// The assembly kernels keep tiles of the output in registers and read the
// input and the weights from cache; nothing is packed. The pure-Go versions
// compute the same sums in plain loops.

// ConvVec is the number of output pixels in one vector of the convolution
// functions: an output row whose width is a multiple of ConvVec splits into
// whole vectors.
const ConvVec = 8

// convArgs is the argument block of the convolution kernels; its layout is
// fixed by convOff in asm/gen.go (checked by TestConvArgsLayout).
type convArgs struct {
	w, x, y *float32
	off, xo *int32
	g       *float32
	nt, k   int
	ldw     int
	ldy     int
	ldg     int
}

// span32 returns the smallest and largest values of s (0, 0 when empty).
func span32(s []int32) (lo, hi int64) {
	if len(s) == 0 {
		return 0, 0
	}
	lo, hi = int64(s[0]), int64(s[0])
	for _, v := range s[1:] {
		lo, hi = min(lo, int64(v)), max(hi, int64(v))
	}
	return lo, hi
}

// checkGather panics unless every vector x[xo[v] + off[r]:][:ConvVec] lies
// inside x.
func checkGather(fn string, n int, off, xo []int32) {
	if len(off) == 0 || len(xo) == 0 {
		return
	}
	ol, oh := span32(off)
	vl, vh := span32(xo)
	if ol+vl < 0 || oh+vh+ConvVec > int64(n) {
		panic(fmt.Sprintf("vec: %s: offsets reach [%d, %d) outside an input of %d", fn, ol+vl, oh+vh+ConvVec, n))
	}
}

// checkRows panics unless m rows of length n, ld apart, fit in a slice of
// length l.
func checkRows(fn, what string, m, n, ld, l int) {
	if m < 0 || n < 0 || (m > 1 && ld < n) {
		panic(fmt.Sprintf("vec: %s: bad shape of %s", fn, what))
	}
	if m > 0 && n > 0 && (m-1)*ld+n > l {
		panic(fmt.Sprintf("vec: %s: short %s", fn, what))
	}
}

// ConvForward computes the outputs of m channels for the vectors listed in
// xo:
//
//	y[c·ldy + 8v + l] = bias[c] + Σ_{r<len(off)} w[c·ldw + r] · x[xo[v] + off[r] + l]
//
// for c < m, v < len(xo), l < 8 (ConvVec). The sum runs from the bias, r
// ascending; every output depends only on its own vector's inputs, whatever
// the other vectors.
func ConvForward(m int, w []float32, ldw int, bias, x []float32, off, xo []int32, y []float32, ldy int) {
	k := len(off)
	checkRows("ConvForward", "w", m, k, ldw, len(w))
	checkRows("ConvForward", "y", m, ConvVec*len(xo), ldy, len(y))
	if len(bias) < m {
		panic("vec: ConvForward: short bias")
	}
	checkGather("ConvForward", len(x), off, xo)
	if m == 0 || len(xo) == 0 {
		return
	}
	if k == 0 {
		for c := 0; c < m; c++ {
			fill32(y[c*ldy:c*ldy+ConvVec*len(xo)], bias[c])
		}
		return
	}
	convForward(m, k, w, ldw, bias, x, off, xo, y, ldy)
}

// fill32 sets every element of s to v.
func fill32(s []float32, v float32) {
	for i := range s {
		s[i] = v
	}
}

// convForwardGo is the pure-Go ConvForward for m, k, len(xo) ≥ 1.
func convForwardGo(m, k int, w []float32, ldw int, bias, x []float32, off, xo []int32, y []float32, ldy int) {
	for c := 0; c < m; c++ {
		wc := w[c*ldw : c*ldw+k]
		yc := y[c*ldy : c*ldy+ConvVec*len(xo)]
		for v, o := range xo {
			b := bias[c]
			a0, a1, a2, a3, a4, a5, a6, a7 := b, b, b, b, b, b, b, b
			xv := x[int(o):]
			for r, wr := range wc {
				s := xv[int(off[r]):][:8]
				a0 += wr * s[0]
				a1 += wr * s[1]
				a2 += wr * s[2]
				a3 += wr * s[3]
				a4 += wr * s[4]
				a5 += wr * s[5]
				a6 += wr * s[6]
				a7 += wr * s[7]
			}
			d := yc[ConvVec*v:][:8]
			d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = a0, a1, a2, a3, a4, a5, a6, a7
		}
	}
}

// ConvWeightGrad adds the weight gradient of m output channels over the
// vectors listed in xo:
//
//	g[c·ldg + r] += Σ_v Σ_{l<8} dy[c·ldy + 8v + l] · x[xo[v] + off[r] + l]
//
// for c < m, r < len(off). The sums are taken over blocks of a fixed number
// of vectors (in eight lanes, added across them at the end of each block),
// so the result depends on the vectors' order, never on anything else.
func ConvWeightGrad(m int, dy []float32, ldy int, x []float32, off, xo []int32, g []float32, ldg int) {
	k := len(off)
	checkRows("ConvWeightGrad", "dy", m, ConvVec*len(xo), ldy, len(dy))
	checkRows("ConvWeightGrad", "g", m, k, ldg, len(g))
	checkGather("ConvWeightGrad", len(x), off, xo)
	if m == 0 || k == 0 || len(xo) == 0 {
		return
	}
	convWeightGrad(m, k, dy, ldy, x, off, xo, g, ldg)
}

// convDWChunk is the number of vectors over which ConvWeightGrad sums in
// lanes before adding across them.
const convDWChunk = 128

// convWeightGradGo is the pure-Go ConvWeightGrad for m, k, len(xo) ≥ 1.
func convWeightGradGo(m, k int, dy []float32, ldy int, x []float32, off, xo []int32, g []float32, ldg int) {
	for v0 := 0; v0 < len(xo); v0 += convDWChunk {
		vs := xo[v0:min(len(xo), v0+convDWChunk)]
		for c := 0; c < m; c++ {
			dc := dy[c*ldy+ConvVec*v0:]
			gc := g[c*ldg : c*ldg+k]
			for r, o := range off[:k] {
				var s0, s1, s2, s3, s4, s5, s6, s7 float32
				for v, xv := range vs {
					s := x[int(xv)+int(o):][:8]
					d := dc[ConvVec*v:][:8]
					s0 += d[0] * s[0]
					s1 += d[1] * s[1]
					s2 += d[2] * s[2]
					s3 += d[3] * s[3]
					s4 += d[4] * s[4]
					s5 += d[5] * s[5]
					s6 += d[6] * s[6]
					s7 += d[7] * s[7]
				}
				gc[r] += ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
			}
		}
	}
}

// ConvInputGrad adds the input gradient over the vectors listed in xo:
//
//	dx[xo[v] + off[r] + l] += Σ_{c<m} w[c·ldw + r] · dy[c·ldy + 8v + l]
//
// for r < len(off), v < len(xo), l < 8; m is the number of output channels
// (w is m×len(off) with rows ldw apart). The additions into dx are made in a
// fixed order, and stay correct when the targets of different rows or
// vectors overlap; they are fastest when rows next to each other in off do
// not (for a convolution: order the rows by kernel position, then channel).
func ConvInputGrad(m int, w []float32, ldw int, dy []float32, ldy int, off, xo []int32, dx []float32) {
	k := len(off)
	checkRows("ConvInputGrad", "w", m, k, ldw, len(w))
	checkRows("ConvInputGrad", "dy", m, ConvVec*len(xo), ldy, len(dy))
	checkGather("ConvInputGrad", len(dx), off, xo)
	if m == 0 || k == 0 || len(xo) == 0 {
		return
	}
	convInputGrad(m, k, w, ldw, dy, ldy, off, xo, dx)
}

// convDXChunk is the number of vectors per pass of ConvInputGrad over the
// rows, so that their part of dx stays in L1.
const convDXChunk = 16

// convInputGradGo is the pure-Go ConvInputGrad for m, k, len(xo) ≥ 1.
func convInputGradGo(m, k int, w []float32, ldw int, dy []float32, ldy int, off, xo []int32, dx []float32) {
	for v, xv := range xo {
		for r, o := range off[:k] {
			var s0, s1, s2, s3, s4, s5, s6, s7 float32
			for c := 0; c < m; c++ {
				wr := w[c*ldw+r]
				d := dy[c*ldy+ConvVec*v:][:8]
				s0 += wr * d[0]
				s1 += wr * d[1]
				s2 += wr * d[2]
				s3 += wr * d[3]
				s4 += wr * d[4]
				s5 += wr * d[5]
				s6 += wr * d[6]
				s7 += wr * d[7]
			}
			t := dx[int(xv)+int(o):][:8]
			t[0] += s0
			t[1] += s1
			t[2] += s2
			t[3] += s3
			t[4] += s4
			t[5] += s5
			t[6] += s6
			t[7] += s7
		}
	}
}

// MaxPool2 is a 2×2 max-pool with stride 2 over row pairs: x holds
// len(x)/(2w) pairs of rows of width w (w even), and y gets the w/2 window
// maxima of each pair, in order, followed by the relu of Relu when relu is
// set. The results are those of MaxTo over the two rows followed by
// PairMax, bit for bit.
func MaxPool2(y, x []float32, w int, relu bool) {
	if w < 2 || w%2 != 0 || len(x)%(2*w) != 0 || len(y) != len(x)/4 {
		panic("vec: MaxPool2: bad lengths")
	}
	pairs := len(x) / (2 * w)
	if pairs == 0 {
		return
	}
	if hasAVX2FMA && w%8 == 0 {
		maxPool2AVX(&y[0], &x[0], pairs, w, relu)
		return
	}
	wo := w / 2
	for p := 0; p < pairs; p++ {
		r0, r1 := x[2*p*w:(2*p+1)*w], x[(2*p+1)*w:(2*p+2)*w]
		yp := y[p*wo : (p+1)*wo]
		for j := range yp {
			m := max(max(r0[2*j], r1[2*j]), max(r0[2*j+1], r1[2*j+1]))
			if relu && m < 0 {
				m = 0
			}
			yp[j] = m
		}
	}
}

// MaxPool2Grad is the backward pass of a 2×2 max-pool with stride 2 over row
// pairs: x holds len(x)/(2w) pairs of rows of width w (w even), and dy the
// w/2 output gradients of each pair, in order. It sets every element of dx
// (shaped as x): the gradient of each window goes to its first maximum in
// row-major order (the last element when the window holds a NaN), which is
// where nn's max-pool puts it, and 0 to the others. With relu the pool is
// followed by a relu: the gradient is kept only where the window's maximum
// is > 0.
func MaxPool2Grad(dx, x, dy []float32, w int, relu bool) {
	if w < 2 || w%2 != 0 || len(x)%(2*w) != 0 || len(dx) != len(x) || len(dy) != len(x)/4 {
		panic("vec: MaxPool2Grad: bad lengths")
	}
	pairs := len(x) / (2 * w)
	if pairs == 0 {
		return
	}
	if hasAVX2FMA && w%8 == 0 {
		maxPool2GradAVX(&dx[0], &x[0], &dy[0], pairs, w, relu)
		return
	}
	maxPool2GradGo(dx, x, dy, w, relu)
}

func maxPool2GradGo(dx, x, dy []float32, w int, relu bool) {
	wo := w / 2
	for p := 0; p < len(x)/(2*w); p++ {
		r0, r1 := x[2*p*w:(2*p+1)*w], x[(2*p+1)*w:(2*p+2)*w]
		d0, d1 := dx[2*p*w:(2*p+1)*w], dx[(2*p+1)*w:(2*p+2)*w]
		g := dy[p*wo : (p+1)*wo]
		for j, gj := range g {
			a, b, c, d := r0[2*j], r0[2*j+1], r1[2*j], r1[2*j+1]
			m := max(max(a, b), max(c, d))
			if relu && !(m > 0) {
				gj = 0
			}
			var ga, gb, gc, gd float32
			switch {
			case a == m:
				ga = gj
			case b == m:
				gb = gj
			case c == m:
				gc = gj
			default:
				gd = gj
			}
			d0[2*j], d0[2*j+1], d1[2*j], d1[2*j+1] = ga, gb, gc, gd
		}
	}
}
