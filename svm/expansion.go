package svm

import (
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/kernel"
)

// Expansion is a sparse kernel expansion f = Σ_j c_j·K(x_j, ·) over the
// training points with c_j ≠ 0: the state of the online kernel solvers,
// Pegasos and PegasosSVR here and the perceptron and dual gradient ascent of
// package svm/lecture. A point is named by its training index i; it is
// stored by its first Add or nonzero Set and removed only by Set(i, …, 0).
// Sum(k, b) is f(b), and Model turns the expansion into a Model. Dense points are stored in a kernel.Points
// (row-major and in feature-major panels, with their squared norms), so
// that Σ_j c_j·K(x_j, b) is one panel kernel row plus a float64 dot
// product; sparse points (Pegasos on sparse rows) are kept as views of the
// training rows with their squared norms, and the kernel row is one
// kernel.RowVec against the query scattered once. A dense index→slot map
// tells in O(1) whether a training point is stored. An Expansion is not
// safe for concurrent use.
type Expansion struct {
	d     int
	slot  []int32 // training index → slot, −1 if not stored
	idx   []int32 // slot → training index
	pts   *kernel.Points
	sv    []data.Vec // sparse points, when pts is nil
	norms []float32  // their squared norms
	coef  []float64  // c_j
	row   []float32  // kernel row workspace
	buf   []float32  // d zeros: a sparse query scattered
}

// NewExpansion returns an empty expansion over n dense training points of
// d features.
func NewExpansion(n, d int) *Expansion {
	e := &Expansion{d: d, slot: make([]int32, n), pts: kernel.NewPoints(d)}
	for i := range e.slot {
		e.slot[i] = -1
	}
	return e
}

// newExpansionFor returns an empty expansion over the points of p, dense
// or sparse as p's rows.
func newExpansionFor(p Problem) *Expansion {
	e := NewExpansion(p.N, p.D)
	if p.Sparse != nil {
		e.pts = nil
	}
	return e
}

// Len returns the number of stored points.
func (e *Expansion) Len() int { return len(e.idx) }

// Sum returns f(b) = Σ_j c_j·K(x_j, b) for a dense b.
func (e *Expansion) Sum(k kernel.Kernel, b []float32) float64 {
	return e.sumVec(k, data.Dense(b), -1)
}

// sumVec returns Σ_j c_j·K(x_j, b) for b of either kind with squared norm
// nb (< 0: computed when needed).
func (e *Expansion) sumVec(k kernel.Kernel, b data.Vec, nb float64) float64 {
	n := len(e.idx)
	if n == 0 {
		return 0
	}
	if e.pts != nil && b.Idx == nil {
		return e.pts.RowSum(k, e.row[:n], e.coef[:n], b.Val)
	}
	e.kernelRow(k, e.row[:n], b, nb)
	return vec.DotMixed(e.coef[:n], e.row[:n])
}

// kernelRow sets dst[s] = K(x_{idx[s]}, b) for every slot s.
func (e *Expansion) kernelRow(k kernel.Kernel, dst []float32, b data.Vec, nb float64) {
	if e.buf == nil && b.Idx != nil {
		e.buf = make([]float32, e.d)
	}
	if e.pts != nil {
		if b.Idx == nil {
			e.pts.Row(k, dst, b.Val)
			return
		}
		b.Scatter(e.buf)
		e.pts.Row(k, dst, e.buf)
		b.Clear(e.buf)
		return
	}
	if nb < 0 {
		nb = b.SqNorm()
	}
	bd := b.Val
	if b.Idx != nil {
		b.Scatter(e.buf)
		bd = e.buf
		defer b.Clear(e.buf)
	}
	kernel.RowVec(k, dst, e.sv, e.norms, b, nb, bd)
}

// Add adds delta to c_i, storing the dense point i (features xi, squared
// norm ni) if it is not stored yet.
func (e *Expansion) Add(i int, xi []float32, ni float32, delta float64) {
	e.addVec(i, data.Dense(xi), ni, delta)
}

// addVec is add for a point of either kind.
func (e *Expansion) addVec(i int, xi data.Vec, ni float32, delta float64) {
	if s := e.slot[i]; s >= 0 {
		e.coef[s] += delta
		return
	}
	e.slot[i] = int32(len(e.idx))
	e.idx = append(e.idx, int32(i))
	if e.pts != nil {
		xd := xi.Val
		if xi.Idx != nil {
			xd = make([]float32, e.d)
			xi.Scatter(xd)
		}
		e.pts.Append(xd, ni)
	} else {
		e.sv = append(e.sv, xi)
		e.norms = append(e.norms, ni)
	}
	e.coef = append(e.coef, delta)
	if cap(e.row) < len(e.idx) {
		e.row = make([]float32, len(e.idx), 2*cap(e.row)+16)
	}
	e.row = e.row[:len(e.idx)]
}

// Set sets c_i = c, storing or removing the dense point i (features xi,
// squared norm ni) as needed (c = 0 removes).
func (e *Expansion) Set(i int, xi []float32, ni float32, c float64) {
	s := e.slot[i]
	switch {
	case s >= 0 && c != 0:
		e.coef[s] = c
	case s < 0 && c != 0:
		e.Add(i, xi, ni, c)
	case s >= 0:
		e.remove(int(s))
	}
}

// Get returns c_i (0 for a point not stored).
func (e *Expansion) Get(i int) float64 {
	if s := e.slot[i]; s >= 0 {
		return e.coef[s]
	}
	return 0
}

// remove deletes slot s, moving the last slot into its place.
func (e *Expansion) remove(s int) {
	last := len(e.idx) - 1
	e.slot[e.idx[s]] = -1
	if s != last {
		e.idx[s] = e.idx[last]
		e.slot[e.idx[s]] = int32(s)
		if e.pts != nil {
			e.pts.Set(s, e.pts.X()[last*e.d:(last+1)*e.d], e.pts.Norms()[last])
		} else {
			e.sv[s], e.norms[s] = e.sv[last], e.norms[last]
		}
		e.coef[s] = e.coef[last]
	}
	e.idx = e.idx[:last]
	if e.pts != nil {
		e.pts.Truncate(last)
	} else {
		e.sv, e.norms = e.sv[:last], e.norms[:last]
	}
	e.coef = e.coef[:last]
	e.row = e.row[:last]
}

// point returns the stored point of slot s.
func (e *Expansion) point(s int) data.Vec {
	if e.pts != nil {
		return data.Dense(e.pts.X()[s*e.d : (s+1)*e.d])
	}
	return e.sv[s]
}

// Model returns the expansion as a model with coefficients scale·c_j and
// the given bias, its support vectors in training-index order (so that
// equal fits give identical models), sparse when the points are sparse.
// Its Info is empty, for the solver to fill.
func (e *Expansion) Model(spec kernel.Spec, scale, bias float64) *Model {
	n := len(e.idx)
	m := newModel(spec, e.d, e.pts == nil)
	m.Bias = bias
	if e.pts != nil {
		m.SV = make([]float32, 0, n*e.d)
	}
	m.Coef = make([]float64, 0, n)
	for _, s := range e.slot {
		if s >= 0 {
			m.addSV(e.point(int(s)), scale*e.coef[s])
		}
	}
	return m
}

// CoefSum returns Σ_j c_j, summed in storage order.
func (e *Expansion) CoefSum() float64 {
	var s float64
	for _, c := range e.coef {
		s += c
	}
	return s
}

// SqNorms returns ‖x_i‖² of every point, accumulated in float64: the
// self-products an RBF kernel row needs.
func (p Problem) SqNorms() []float32 {
	n := make([]float32, p.N)
	for i := range n {
		n[i] = float32(p.vec(i).SqNorm())
	}
	return n
}
