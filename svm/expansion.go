package svm

import (
	"github.com/nsvm-go/nsvm/kernel"
)

// expansion is a sparse kernel expansion Σ_j c_j·K(x_j, ·) over the training
// points with c_j ≠ 0. The points are stored in a kernel.Points (row-major and in
// feature-major panels, with their squared norms), so that Σ_j c_j·K(x_j, b)
// is one panel kernel row plus a float64 dot product; a dense index→slot map
// tells in O(1) whether a training point is stored.
type expansion struct {
	d    int
	slot []int32 // training index → slot, −1 if not stored
	idx  []int32 // slot → training index
	pts  *kernel.Points
	coef []float64 // c_j
	row  []float32 // kernel row workspace
}

func newExpansion(n, d int) *expansion {
	e := &expansion{d: d, slot: make([]int32, n), pts: kernel.NewPoints(d)}
	for i := range e.slot {
		e.slot[i] = -1
	}
	return e
}

func (e *expansion) len() int { return len(e.idx) }

// sum returns Σ_j c_j·K(x_j, b).
func (e *expansion) sum(k kernel.Kernel, b []float32) float64 {
	n := len(e.idx)
	if n == 0 {
		return 0
	}
	return e.pts.RowSum(k, e.row[:n], e.coef[:n], b)
}

// add adds delta to c_i, storing point i (features xi, squared norm ni) if
// it is not stored yet.
func (e *expansion) add(i int, xi []float32, ni float32, delta float64) {
	if s := e.slot[i]; s >= 0 {
		e.coef[s] += delta
		return
	}
	e.slot[i] = int32(len(e.idx))
	e.idx = append(e.idx, int32(i))
	e.pts.Append(xi, ni)
	e.coef = append(e.coef, delta)
	if cap(e.row) < len(e.idx) {
		e.row = make([]float32, len(e.idx), 2*cap(e.row)+16)
	}
	e.row = e.row[:len(e.idx)]
}

// set sets c_i = c, storing or removing point i as needed (c = 0 removes).
func (e *expansion) set(i int, xi []float32, ni float32, c float64) {
	s := e.slot[i]
	switch {
	case s >= 0 && c != 0:
		e.coef[s] = c
	case s < 0 && c != 0:
		e.add(i, xi, ni, c)
	case s >= 0:
		e.remove(int(s))
	}
}

// get returns c_i.
func (e *expansion) get(i int) float64 {
	if s := e.slot[i]; s >= 0 {
		return e.coef[s]
	}
	return 0
}

// remove deletes slot s, moving the last slot into its place.
func (e *expansion) remove(s int) {
	last := len(e.idx) - 1
	e.slot[e.idx[s]] = -1
	if s != last {
		e.idx[s] = e.idx[last]
		e.slot[e.idx[s]] = int32(s)
		e.pts.Set(s, e.pts.X()[last*e.d:(last+1)*e.d], e.pts.Norms()[last])
		e.coef[s] = e.coef[last]
	}
	e.idx = e.idx[:last]
	e.pts.Truncate(last)
	e.coef = e.coef[:last]
	e.row = e.row[:last]
}

// model returns the expansion as a model with coefficients scale·c_j, in
// training-index order (so that equal fits give identical models).
func (e *expansion) model(spec kernel.Spec, scale, bias float64) *Model {
	n := len(e.idx)
	m := &Model{Kernel: spec, NSV: n, D: e.d, SV: make([]float32, 0, n*e.d), Coef: make([]float64, 0, n), Bias: bias, Neg: -1, Pos: 1, Info: map[string]string{}}
	for _, s := range e.slot {
		if s < 0 {
			continue
		}
		m.SV = append(m.SV, e.pts.X()[int(s)*e.d:(int(s)+1)*e.d]...)
		m.Coef = append(m.Coef, scale*e.coef[s])
	}
	return m
}

// sqNorms returns ‖x_i‖² for every point of the problem, accumulated in
// float64.
func sqNorms(p Problem) []float32 {
	n := make([]float32, p.N)
	for i := range n {
		n[i] = float32(sqNorm64(p.row(i)))
	}
	return n
}
