package vec

import "math"

// AdamConsts are the constants of one Adam step (see AdamStep).
type AdamConsts struct {
	WeightDecay float32 // wd: the L2 term added to the gradient
	B1, C1      float32 // β₁ and 1 − β₁
	B2, C2      float32 // β₂ and 1 − β₂
	BC2S        float32 // √(1 − β₂ᵗ)
	Eps         float32
	Step        float32 // lr / (1 − β₁ᵗ)
	// TinyGrad and TinyMoment: a gradient (with its decay term) of
	// magnitude below TinyGrad counts as 0, and so do moments below
	// TinyMoment, so that no arithmetic meets a subnormal float.
	TinyGrad, TinyMoment float32
}

// AdamStep takes one Adam step over the parameters w with gradients g and
// moments m and v (all of w's length), in float32 with no fused
// multiply-add, element by element:
//
//	d = g + wd·w, 0 if |d| < TinyGrad
//	m = β₁·m + (1−β₁)·d, 0 if |m| < TinyMoment
//	v = β₂·v + (1−β₂)·d², 0 if v < TinyMoment
//	w = w − Step · m / (√v / BC2S + Eps)
//
// The assembly kernel (8 lanes) and the pure-Go loop give the same floats.
func AdamStep(w, g, m, v []float32, c *AdamConsts) {
	n := len(w)
	sameLen("AdamStep", len(g), n)
	sameLen("AdamStep", len(m), n)
	sameLen("AdamStep", len(v), n)
	k := adamAsm(w, g, m, v, c)
	adamGo(w[k:], g[k:], m[k:], v[k:], c)
}

// adamGo is the reference for AdamStep. The explicit conversions keep the
// products rounded on their own (the Go specification lets a compiler fuse
// x·y + z otherwise).
func adamGo(w, g, m, v []float32, c *AdamConsts) {
	g, m, v = g[:len(w)], m[:len(w)], v[:len(w)]
	for i := range w {
		d := g[i] + float32(c.WeightDecay*w[i])
		if d > -c.TinyGrad && d < c.TinyGrad {
			d = 0
		}
		mi := float32(c.B1*m[i]) + float32(c.C1*d)
		if mi > -c.TinyMoment && mi < c.TinyMoment {
			mi = 0
		}
		vi := float32(c.B2*v[i]) + float32(c.C2*float32(d*d))
		if vi < c.TinyMoment {
			vi = 0
		}
		m[i], v[i] = mi, vi
		den := float32(math.Sqrt(float64(vi)))/c.BC2S + c.Eps
		w[i] -= float32(c.Step * (mi / den))
	}
}
