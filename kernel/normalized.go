package kernel

import "math"

// Normalized is K̃(a,b) = K(a,b)/√(K(a,a)·K(b,b)) for an inner kernel K with
// K(a,a) > 0 for all a (paper §4.1.3). Normalizing an RBF kernel changes
// nothing, since K(a,a) = 1 already.
type Normalized struct{ K Kernel }

// Eval returns K̃(a, b).
func (n Normalized) Eval(a, b []float32) float64 {
	return n.K.Eval(a, b) / math.Sqrt(n.K.Eval(a, a)*n.K.Eval(b, b))
}

// Row sets dst[i] = K̃(z_i, b).
func (n Normalized) Row(dst, z, norms, b []float32) {
	n.K.Row(dst, z, norms, b)
	d := len(b)
	kbb := n.K.Eval(b, b)
	for i := range dst {
		zi := z[i*d : i*d+d]
		dst[i] = float32(float64(dst[i]) / math.Sqrt(n.K.Eval(zi, zi)*kbb))
	}
}

// Cross sets dst[i·nb+j] = K̃(a_i, b_j).
func (n Normalized) Cross(dst, a []float32, na int, an []float32, b []float32, nb int, bn []float32, d int) {
	n.K.Cross(dst, a, na, an, b, nb, bn, d)
	db := make([]float64, nb)
	for j := range db {
		bj := b[j*d : j*d+d]
		db[j] = n.K.Eval(bj, bj)
	}
	for i := 0; i < na; i++ {
		ai := a[i*d : i*d+d]
		daa := n.K.Eval(ai, ai)
		for j := 0; j < nb; j++ {
			dst[i*nb+j] = float32(float64(dst[i*nb+j]) / math.Sqrt(daa*db[j]))
		}
	}
}

// GradB adds scale·∂K̃(a,b)/∂b to dst, using
// ∂K̃/∂b = [∂K(a,b)/∂b − K(a,b)/K(b,b)·∂K(b,b)/∂b·½] / √(K(a,a)K(b,b))
// and ∂K(b,b)/∂b = 2·GradB(b, b) for a symmetric kernel.
func (n Normalized) GradB(dst, a, b []float32, scale float64) {
	kaa, kbb, kab := n.K.Eval(a, a), n.K.Eval(b, b), n.K.Eval(a, b)
	s := math.Sqrt(kaa * kbb)
	n.K.GradB(dst, a, b, scale/s)
	n.K.GradB(dst, b, b, -scale*kab/(kbb*s))
}

// Spec returns the inner kernel's spec with Normalized set.
func (n Normalized) Spec() Spec {
	s := n.K.Spec()
	s.Normalized = true
	return s
}
