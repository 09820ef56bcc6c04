package vec

// PanelWidth is the number of points in one panel of PanelDots: one
// 16-lane float32 vector (a 64-byte cache line), two 8-lane ones.
const PanelWidth = 16

// PanelDots sets dst[16q+l] = Σ_f pan[16dq+16f+l]·b[f] for every panel
// q < np and lane l < 16: the dot products of b (length d) with np·16 points
// stored feature-major in panels of PanelWidth = 16, panel q holding feature
// f of its points at pan[16dq+16f : 16dq+16f+16]. For short vectors (d of
// 10–30, the usual feature dimension of a kernel row) this layout turns the
// d-long dot products of a row-major GEMV, which fill vectors badly, into d
// broadcast multiply-adds over full vectors. Each sum runs in float32 over f
// in order, so the result does not depend on the implementation beyond the
// fused multiply-add rounding. dst must hold np·16 values.
func PanelDots(dst, pan, b []float32, np, d int) {
	if d < 0 || np < 0 || len(b) < d || len(pan) < np*PanelWidth*d || len(dst) < np*PanelWidth {
		panic("vec: PanelDots: short slice")
	}
	if np == 0 {
		return
	}
	if d == 0 {
		clear(dst[:np*PanelWidth])
		return
	}
	panelDots(dst, pan, b, np, d)
}

// panelDotsGo is the reference for PanelDots.
func panelDotsGo(dst, pan, b []float32, np, d int) {
	b = b[:d]
	for q := 0; q < np; q++ {
		p := pan[q*PanelWidth*d : (q+1)*PanelWidth*d]
		var acc [PanelWidth]float32
		for f, bf := range b {
			v := p[f*PanelWidth : f*PanelWidth+PanelWidth]
			for l := range acc {
				acc[l] += v[l] * bf
			}
		}
		copy(dst[q*PanelWidth:], acc[:])
	}
}

// PanelRBF sets dst[i] = exp(−g·max(norms[i] + nb − 2·z_i·b, 0)) for
// i < np·16, z_i·b the dot products of PanelDots: the RBF kernel row
// exp(−g‖z_i − b‖²) over np panels, given norms[i] = ‖z_i‖² and nb = ‖b‖².
// It is PanelDots, RBFArg and ExpTo in turn, with identical results, run as
// one pass where the machine allows it (AVX-512).
func PanelRBF(dst, pan, b, norms []float32, nb, g float32, np, d int) {
	panelRBFChecked(dst, pan, b, norms, nil, nb, g, np, d)
}

// PanelRBFSum is PanelRBF followed by DotMixed(c[:np·16], dst[:np·16]),
// whose result it returns bit for bit; the sum is taken in the same pass
// where the machine allows it.
func PanelRBFSum(dst, pan, b, norms []float32, c []float64, nb, g float32, np, d int) float64 {
	if len(c) < np*PanelWidth {
		panic("vec: PanelRBFSum: short c")
	}
	return panelRBFChecked(dst, pan, b, norms, c, nb, g, np, d)
}

func panelRBFChecked(dst, pan, b, norms []float32, c []float64, nb, g float32, np, d int) float64 {
	n := np * PanelWidth
	if d < 0 || np < 0 || len(b) < d || len(pan) < n*d || len(dst) < n || len(norms) < n {
		panic("vec: PanelRBF: short slice")
	}
	if n == 0 {
		return 0
	}
	if d > 0 {
		if s, ok := panelRBF(dst, pan, b, norms, c, nb, g, np, d); ok {
			return s
		}
	}
	PanelDots(dst, pan, b, np, d)
	RBFArg(dst[:n], norms, nb, g)
	ExpTo(dst[:n], dst[:n])
	if c == nil {
		return 0
	}
	return DotMixed(c[:n], dst[:n])
}

// RBFArg sets dst[i] = −g·max(norms[i] + nb − 2·dst[i], 0): turns the dot
// products z_i·b in dst into the exponents of the RBF kernel row
// exp(−g‖z_i − b‖²), given norms[i] = ‖z_i‖² and nb = ‖b‖². A NaN stays NaN.
func RBFArg(dst, norms []float32, nb, g float32) {
	if len(norms) < len(dst) {
		panic("vec: RBFArg: short norms")
	}
	rbfArg(dst, norms, nb, g)
}

// rbfArgGo is the reference for RBFArg.
func rbfArgGo(dst, norms []float32, nb, g float32) {
	norms = norms[:len(dst)]
	for i, dot := range dst {
		dst[i] = -g * max(norms[i]+nb-2*dot, 0)
	}
}

// DotMixed returns Σ c[i]·x[i] accumulated in float64: the kernel expansion
// Σ_j c_j·K(z_j, b) from float64 coefficients and a float32 kernel row.
// The additions run in several partial sums (four lanes by four vectors in
// the assembly), so results may differ from a sequential loop in the last
// bits.
func DotMixed(c []float64, x []float32) float64 {
	sameLen("DotMixed", len(c), len(x))
	return dotMixed(c, x)
}

// dotMixedGo is the reference for DotMixed: four partial sums.
func dotMixedGo(c []float64, x []float32) float64 {
	x = x[:len(c)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(c); i += 4 {
		s0 += c[i] * float64(x[i])
		s1 += c[i+1] * float64(x[i+1])
		s2 += c[i+2] * float64(x[i+2])
		s3 += c[i+3] * float64(x[i+3])
	}
	for ; i < len(c); i++ {
		s0 += c[i] * float64(x[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// MaxTo sets dst[i] = max(a[i], b[i]) with Go's NaN-propagating max (the
// sign of a zero result may differ from Go's when comparing −0 with +0).
func MaxTo(dst, a, b []float32) {
	if len(a) != len(dst) || len(b) != len(dst) {
		panic("vec: length mismatch in MaxTo")
	}
	n := asmLen(len(dst))
	if n > 0 {
		maxToAVX(&dst[0], &a[0], &b[0], n)
	}
	for i := n; i < len(dst); i++ {
		dst[i] = max(a[i], b[i])
	}
}

// PairMax sets dst[i] = max(src[2i], src[2i+1]) (NaN-propagating), followed,
// if relu, by the relu of nn (negative values become +0; NaN and −0 stay):
// the horizontal half of a 2×2 max-pool over rows already reduced by MaxTo.
func PairMax(dst, src []float32, relu bool) {
	if len(src) != 2*len(dst) {
		panic("vec: PairMax: len(src) != 2·len(dst)")
	}
	n := asmLen(len(dst))
	if n > 0 {
		pairMaxAVX(&dst[0], &src[0], n, relu)
	}
	for i := n; i < len(dst); i++ {
		m := max(src[2*i], src[2*i+1])
		if relu && m < 0 {
			m = 0
		}
		dst[i] = m
	}
}

// Relu sets dst[i] = max(src[i], 0) as nn's relu: negative values become
// +0, NaN and −0 stay. dst and src may be the same slice.
func Relu(dst, src []float32) {
	sameLen("Relu", len(src), len(dst))
	n := asmLen(len(dst))
	if n > 0 {
		reluAVX(&dst[0], &src[0], n)
	}
	for i := n; i < len(dst); i++ {
		if v := src[i]; v < 0 {
			dst[i] = 0
		} else {
			dst[i] = v
		}
	}
}

// ReluGrad sets dst[i] = g[i] where y[i] > 0 and +0 elsewhere (y NaN
// included): the backward pass of a relu with output y. dst may be g.
func ReluGrad(dst, g, y []float32) {
	if len(g) != len(dst) || len(y) != len(dst) {
		panic("vec: length mismatch in ReluGrad")
	}
	n := asmLen(len(dst))
	if n > 0 {
		reluGradAVX(&dst[0], &g[0], &y[0], n)
	}
	for i := n; i < len(dst); i++ {
		if y[i] > 0 {
			dst[i] = g[i]
		} else {
			dst[i] = 0
		}
	}
}

// ScaleF64 sets dst[i] = float32(float64(src[i])·s): each product taken in
// float64 and rounded once to float32, as Go evaluates that expression (so
// that a constant row stays constant where a product with a rounded float32
// factor would not). dst and src may be the same slice.
func ScaleF64(dst, src []float32, s float64) {
	sameLen("ScaleF64", len(src), len(dst))
	n := asmLen(len(dst))
	if n > 0 {
		scale64AVX(&dst[0], &src[0], s, n)
	}
	for i := n; i < len(dst); i++ {
		dst[i] = float32(float64(src[i]) * s)
	}
}
