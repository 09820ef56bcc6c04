package svm

import (
	"fmt"
	"sync"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
)

// rows is a set of points as the kernel solvers read them, with their
// squared norms: dense (row-major, so that a kernel row is one kernel.Row,
// a GEMV and a vector exp for RBF) or sparse (row views, so that a kernel
// row is one kernel.RowVec, a gather per row against the query scattered
// once). It is the one place where the solvers meet the kind of their
// rows; the solvers themselves (SMO's working-set selection, shrinking and
// caching, the kernel matrix, Pegasos's steps) are written once.
type rows struct {
	d     int
	x     []float32  // dense: n×d row-major; nil when sparse
	v     []data.Vec // sparse: one view per row; nil when dense
	norms []float32  // ‖x_i‖², accumulated in float64
	// evals, if not nil, counts the kernel values computed against the
	// rows (kernelRow, newKernelMatrix), each costing cost multiply-adds:
	// d for dense rows, the mean number of nonzeros for sparse ones.
	evals *kernel.Counter
	cost  int
}

// newDenseRows returns the n×d row-major points x (not copied).
func newDenseRows(x []float32, n, d int) *rows {
	r := &rows{d: d, x: x[:n*d], norms: make([]float32, n), cost: d}
	for i := range r.norms {
		r.norms[i] = float32(sqNorm64(x[i*d : (i+1)*d]))
	}
	return r
}

// newVecRows returns the sparse rows v of width d (the views are kept).
func newVecRows(v []data.Vec, d int) *rows {
	r := &rows{d: d, v: v, norms: make([]float32, len(v))}
	nnz := 0
	for i, vi := range v {
		r.norms[i] = float32(vi.SqNorm())
		nnz += len(vi.Val)
	}
	r.cost = max(1, nnz/max(1, len(v)))
	return r
}

// pointRows returns the n points of width d held in x (dense, row-major,
// not copied) or sp (sparse, when not nil; views of its rows), with their
// squared norms: what Problem, ClassProblem, RegProblem and a model's
// support vectors hold.
func pointRows(x []float32, sp *data.CSR, n, d int) *rows {
	if sp == nil {
		return newDenseRows(x, n, d)
	}
	v := make([]data.Vec, n)
	for i := range v {
		v[i] = sp.Row(i)
	}
	return newVecRows(v, d)
}

// problemRows returns the points idx of p (every point if idx is nil): a
// copy of dense rows, which a solver may permute, or views of sparse ones.
func problemRows(p Problem, idx []int32) *rows {
	n := p.N
	if idx != nil {
		n = len(idx)
	}
	at := func(q int) int {
		if idx == nil {
			return q
		}
		return int(idx[q])
	}
	if p.Sparse != nil {
		v := make([]data.Vec, n)
		for q := range v {
			v[q] = p.Sparse.Row(at(q))
		}
		return newVecRows(v, p.D)
	}
	x := make([]float32, 0, n*p.D)
	for q := 0; q < n; q++ {
		x = append(x, p.row(at(q))...)
	}
	return newDenseRows(x, n, p.D)
}

func (r *rows) len() int { return len(r.norms) }

func (r *rows) sparse() bool { return r.x == nil }

// vec returns point i.
func (r *rows) vec(i int) data.Vec {
	if r.x == nil {
		return r.v[i]
	}
	return data.Dense(r.x[i*r.d : (i+1)*r.d])
}

// swap exchanges points i and j (tmp: d values of scratch for dense rows).
func (r *rows) swap(i, j int, tmp []float32) {
	if i == j {
		return
	}
	r.norms[i], r.norms[j] = r.norms[j], r.norms[i]
	if r.x == nil {
		r.v[i], r.v[j] = r.v[j], r.v[i]
		return
	}
	d := r.d
	xi, xj := r.x[i*d:(i+1)*d], r.x[j*d:(j+1)*d]
	copy(tmp, xi)
	copy(xi, xj)
	copy(xj, tmp)
}

// self returns K(x_i, x_i): k.Eval on a dense row, kernel.SelfVec from the
// float64 norm on a sparse one.
func (r *rows) self(k kernel.Kernel, i int) float64 {
	if r.x == nil {
		return kernel.SelfVec(k, r.v[i], r.v[i].SqNorm())
	}
	xi := r.x[i*r.d : (i+1)*r.d]
	return k.Eval(xi, xi)
}

// kernelRow sets dst[j−lo] = K(x_j, b) for lo ≤ j < hi, where b has
// squared norm nb and bd is b as a dense row (b.Val, or b scattered into
// zeros; see kernel.RowVec).
func (r *rows) kernelRow(k kernel.Kernel, dst []float32, lo, hi int, b data.Vec, nb float64, bd []float32) {
	r.evals.Add(hi-lo, r.cost)
	if r.x == nil {
		kernel.RowVec(k, dst, r.v[lo:hi], r.norms[lo:hi], b, nb, bd)
		return
	}
	d := r.d
	k.Row(dst, r.x[lo*d:hi*d], r.norms[lo:hi], bd)
}

// column sets col[j] = K(x_j, x_i) for lo ≤ j < hi, split across up to
// workers goroutines from parallelRows rows on; buf is d zeros of scratch
// for the scattered x_i of sparse rows (left zeroed).
func (r *rows) column(k kernel.Kernel, col []float32, lo, hi, i, workers int, buf []float32) {
	b := r.vec(i)
	nb, bd := float64(r.norms[i]), b.Val
	if b.Idx != nil {
		nb, bd = b.SqNorm(), buf
		b.Scatter(buf)
		defer b.Clear(buf)
	}
	if workers < 2 || hi-lo < parallelRows {
		r.kernelRow(k, col[lo:hi], lo, hi, b, nb, bd)
		return
	}
	var wg sync.WaitGroup
	step := (hi - lo + workers - 1) / workers
	for s := lo + step; s < hi; s += step {
		wg.Go(func() { e := min(s+step, hi); r.kernelRow(k, col[s:e], s, e, b, nb, bd) })
	}
	r.kernelRow(k, col[lo:min(lo+step, hi)], lo, min(lo+step, hi), b, nb, bd)
	wg.Wait()
}

// checkKernelProblem validates p and k for a kernel solver that takes rows
// of either kind and point weights: a sparse problem needs a kernel on
// rows (kernel.OnRows).
func checkKernelProblem(p Problem, k kernel.Kernel, solver string) error {
	return checkKernelRows(p.Validate, p.Sparse != nil, k, solver)
}

// checkKernelReg is checkKernelProblem for a regression problem.
func checkKernelReg(p RegProblem, k kernel.Kernel, solver string) error {
	return checkKernelRows(p.Validate, p.Sparse != nil, k, solver)
}

// checkKernelRows reports a missing kernel, a problem that validate
// refuses, or sparse rows given a kernel that takes dense rows only.
func checkKernelRows(validate func() error, sparse bool, k kernel.Kernel, solver string) error {
	if k == nil {
		return fmt.Errorf("svm: no kernel")
	}
	if err := validate(); err != nil {
		return err
	}
	if sparse && !kernel.OnRows(k) {
		return fmt.Errorf("svm: %s: the problem's rows are sparse and kernel %T takes dense rows only", solver, k)
	}
	return nil
}

// positive returns the points of positive weight when some weight is 0
// (nil when every point counts): a point of weight 0 has the box
// [0, 0], so it is left out of the problem, as LIBSVM's weighted version
// does. It reports an error naming solver if a class is left without
// points.
func positive(p Problem, solver string) ([]int32, error) {
	if p.W == nil {
		return nil, nil
	}
	var idx []int32
	var pos, neg bool
	zero := false
	for i, w := range p.W {
		if w > 0 {
			idx = append(idx, int32(i))
			if p.Y[i] > 0 {
				pos = true
			} else {
				neg = true
			}
		} else {
			zero = true
		}
	}
	if !pos || !neg {
		return nil, fmt.Errorf("svm: %s: both classes need a point of positive weight", solver)
	}
	if !zero {
		return nil, nil
	}
	return idx, nil
}
