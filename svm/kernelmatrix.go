package svm

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/kernel"
)

// KernelMatrix is the Gram matrix K_ij = K(x_i, x_j) of N points, computed
// once and stored in float32 (N² values, row-major, exactly symmetric, with
// K_ii = K.Eval(x_i, x_i)). Solvers trained on a subset of its points read
// their kernel values from it instead of computing kernel columns (LIBSVM's
// precomputed kernel, svm-train -t 4): the points of every cross-validation
// fold, every one-vs-one pair and every C of a grid share one matrix per
// kernel. It keeps a reference to the points, dense or sparse, which must
// not change while the matrix is in use. A KernelMatrix is safe for
// concurrent use.
//
// A matrix of given kernel values (NewGramMatrix, PrecomputedMatrix) has
// no points: its Kernel is kernel.Precomputed, D is the width of a row of
// kernel values, and the models trained on it have the indicator of point
// i's column in such a row as support vector (see Model.Serials).
type KernelMatrix struct {
	// Kernel is the kernel the matrix holds.
	Kernel kernel.Spec
	// N and D are the number and dimension of the points.
	N, D int
	// cols is the number of points with a column: the matrix holds
	// K(x_i, x_j) for every i and j < cols, row i at k[i·cols:]. It is N
	// but for the grid's matrices whose trailing points are only validated
	// on (newKernelMatrix).
	cols   int
	pts    *rows
	k      []float32
	serial []int32 // precomputed (pts nil): the column of point i in a row of kernel values
}

// MatrixBytes returns the memory a KernelMatrix of n points takes.
func MatrixBytes(n int) int64 { return 4 * int64(n) * int64(n) }

// NewKernelMatrix computes the Gram matrix of the n×d row-major points x:
// the dot products by one matrix product X·Xᵀ (vec.Sgemm, split across
// GOMAXPROCS goroutines), then the kernel of each entry row by row (for
// RBF exp(−γ·max(‖x_i‖² + ‖x_j‖² − 2x_i·x_j, 0)) by the vectorised exp, in
// the arithmetic of kernel.RBF.Row); the upper triangle is mirrored into the
// lower one and the diagonal set to k.Eval(x_i, x_i). It panics if
// len(x) ≠ n·d; it allocates MatrixBytes(n).
func NewKernelMatrix(k kernel.Kernel, x []float32, n, d int) *KernelMatrix {
	if len(x) != n*d || n < 0 || d < 1 {
		panic(fmt.Sprintf("svm: NewKernelMatrix: len(x) = %d for %d×%d points", len(x), n, d))
	}
	return newKernelMatrix(k, newDenseRows(x, n, d), n, nil)
}

// NewSparseKernelMatrix computes the Gram matrix of the sparse rows x of
// width d: row by row, in parallel over GOMAXPROCS goroutines, x_i
// scattered into a dense row and K(x_i, x_j) for j ≥ i by kernel.RowVec
// (a gather at the nonzeros of x_j), mirrored into the lower triangle,
// the diagonal set to kernel.SelfVec. It panics if a column is outside
// [0, d) or the kernel is outside kernel.OnRows; it allocates
// MatrixBytes(n) for n = x.Rows().
func NewSparseKernelMatrix(k kernel.Kernel, x *data.CSR, d int) *KernelMatrix {
	if d < 1 || !kernel.OnRows(k) {
		panic(fmt.Sprintf("svm: NewSparseKernelMatrix: d = %d, kernel %T", d, k))
	}
	for _, j := range x.Idx {
		if j < 0 || int(j) >= d {
			panic(fmt.Sprintf("svm: NewSparseKernelMatrix: column %d outside [0, %d)", j, d))
		}
	}
	v := make([]data.Vec, x.Rows())
	for i := range v {
		v[i] = x.Row(i)
	}
	return newKernelMatrix(k, newVecRows(v, d), len(v), nil)
}

// newKernelMatrix computes the kernel values of the points r against
// their first cols points (cols = r.len() for the Gram matrix; fewer when
// the trailing points are never trained on, so that only their values
// against the others are needed), storing them in buf when it has room.
// The leading cols×cols block is the Gram matrix of those points, exactly
// symmetric with its diagonal from r.self.
func newKernelMatrix(k kernel.Kernel, r *rows, cols int, buf []float32) *KernelMatrix {
	n, d := r.len(), r.d
	size := n * cols
	if cap(buf) < size {
		buf = make([]float32, size)
	}
	m := &KernelMatrix{Kernel: k.Spec(), N: n, D: d, cols: cols, pts: r, k: buf[:size]}
	if n == 0 {
		return m
	}
	r.evals.Add(size, r.cost)
	x, norms := r.x, r.norms
	switch rbf, ok := k.(kernel.RBF); {
	case r.sparse():
		sparseUpper(k, m.k, r, cols)
	case ok:
		vec.Sgemm(false, true, n, cols, d, 1, x, d, x, d, 0, m.k, cols)
		g := float32(rbf.Gamma)
		parallelRowsDo(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				row := m.k[i*cols : (i+1)*cols]
				vec.RBFArg(row, norms[:cols], norms[i], g)
				vec.ExpTo(row, row)
			}
		})
	default:
		k.Cross(m.k, x, n, norms, x, cols, norms, d)
	}
	for i := 0; i < cols; i++ {
		m.k[i*cols+i] = float32(r.self(k, i))
		for j := i + 1; j < cols; j++ {
			m.k[j*cols+i] = m.k[i*cols+j]
		}
	}
	return m
}

// sparseUpper sets dst[i·cols+j] = K(x_i, x_j) over the sparse rows r for
// i ≤ j < cols (the upper triangle of the leading block) and for j < cols
// ≤ i: each column point i one kernel.RowVec over the rows j ≥ i against
// x_i scattered once (the values of the rows j ≥ cols written down column
// i, so that they are the Gram matrix's mirrored values), column points
// handed out in blocks to GOMAXPROCS goroutines (the later rows are
// shorter).
func sparseUpper(k kernel.Kernel, dst []float32, r *rows, cols int) {
	n := r.len()
	const block = 16
	var next atomic.Int64
	work := func() {
		buf := make([]float32, r.d)
		var tmp []float32
		if cols < n {
			tmp = make([]float32, n)
		}
		for {
			lo := int(next.Add(block)) - block
			if lo >= cols {
				return
			}
			for i := lo; i < min(lo+block, cols); i++ {
				b := r.v[i]
				b.Scatter(buf)
				out := dst[i*cols+i : (i+1)*cols]
				if tmp != nil {
					out = tmp[:n-i]
				}
				kernel.RowVec(k, out, r.v[i:], r.norms[i:], b, b.SqNorm(), buf)
				b.Clear(buf)
				if tmp != nil {
					copy(dst[i*cols+i:(i+1)*cols], out)
					for q, v := range out[cols-i:] {
						dst[(cols+q)*cols+i] = v
					}
				}
			}
		}
	}
	w := min(runtime.GOMAXPROCS(0), max(cols/64, 1))
	var wg sync.WaitGroup
	for range w - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// parallelRowsDo runs f over [0, n) in GOMAXPROCS blocks.
func parallelRowsDo(n int, f func(lo, hi int)) {
	splitRows(n, min(runtime.GOMAXPROCS(0), max(n/64, 1)), f)
}

// Row returns K(x_i, x_j) for j = 0 … N−1. It must not be modified.
// (The grid's own matrices hold only the columns of the points it trains
// on: j below their count.)
func (m *KernelMatrix) Row(i int) []float32 { return m.k[i*m.cols : (i+1)*m.cols] }

// At returns K(x_i, x_j).
func (m *KernelMatrix) At(i, j int) float32 { return m.k[i*m.cols+j] }

func (m *KernelMatrix) diag(i int) float64 { return float64(m.k[i*m.cols+i]) }

// point returns x_i, or for given kernel values the indicator of point i's
// column.
func (m *KernelMatrix) point(i int) data.Vec {
	if m.pts == nil {
		return data.Vec{Idx: []int32{m.serial[i]}, Val: []float32{1}}
	}
	return m.pts.vec(i)
}

// newModel returns an empty model for support vectors of the matrix's
// points.
func (m *KernelMatrix) newModel() *Model {
	return newModel(m.Kernel, m.D, m.pts == nil || m.pts.sparse())
}

// checkSigns reports whether y holds n labels −1 or +1 of both classes.
func checkSigns(y []float32, n int, what string) error {
	if len(y) != n {
		return fmt.Errorf("svm: %s: %d labels for %d points", what, len(y), n)
	}
	var neg, pos bool
	for i, v := range y {
		switch v {
		case -1:
			neg = true
		case 1:
			pos = true
		default:
			return fmt.Errorf("svm: %s: label %g of point %d is not −1 or +1", what, v, i)
		}
	}
	if !neg || !pos {
		return fmt.Errorf("svm: %s: both classes must occur", what)
	}
	return nil
}

// checkIndex reports whether idx holds at least two indices of points of m.
func (m *KernelMatrix) checkIndex(idx []int, what string) ([]int32, error) {
	if len(idx) < 2 {
		return nil, fmt.Errorf("svm: %s: need at least 2 points, got %d", what, len(idx))
	}
	pt := make([]int32, len(idx))
	for q, i := range idx {
		if i < 0 || i >= m.cols {
			return nil, fmt.Errorf("svm: %s: point index %d out of range [0, %d)", what, i, m.cols)
		}
		pt[q] = int32(i)
	}
	return pt, nil
}

// checkTargets is checkIndex for a regression on the points idx with the
// targets z: one finite target per point.
func (m *KernelMatrix) checkTargets(idx []int, z []float64, what string) ([]int32, error) {
	pt, err := m.checkIndex(idx, what)
	if err != nil {
		return nil, err
	}
	if len(z) != len(idx) {
		return nil, fmt.Errorf("svm: %s: %d targets for %d points", what, len(z), len(idx))
	}
	for i, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("svm: %s: target %d is %g", what, i, v)
		}
	}
	return pt, nil
}

// SMO trains the C-SVM of the package function SMO on the points idx of
// the matrix (which may repeat) with labels y (±1, len(idx) of them), the
// kernel values read from the matrix. The result is the model SMO would
// give on those points up to the rounding of the kernel values (the matrix
// computes them by one GEMM, SMO by one GEMV per column), with the support
// vectors copied from the matrix's points. cfg.CacheMB and cfg.Workers are
// not used.
func (m *KernelMatrix) SMO(ctx context.Context, idx []int, y []float32, cfg SMOConfig, progress ProgressFunc) (*Model, error) {
	return m.smo(ctx, idx, y, nil, cfg, progress)
}

// smo is SMO with point weights w (nil: all 1; the points of weight 0 are
// left out), the bounds C·w_i·WeightPos or C·w_i·WeightNeg.
func (m *KernelMatrix) smo(ctx context.Context, idx []int, y []float32, w []float64, cfg SMOConfig, progress ProgressFunc) (*Model, error) {
	if w != nil {
		var ki []int
		var ky []float32
		var kw []float64
		for q, wq := range w {
			if wq > 0 {
				ki, ky, kw = append(ki, idx[q]), append(ky, y[q]), append(kw, wq)
			}
		}
		if len(ki) < len(idx) {
			idx, y, w = ki, ky, kw
		}
	}
	pt, err := m.checkIndex(idx, "KernelMatrix.SMO")
	if err != nil {
		return nil, err
	}
	if err := checkSigns(y, len(idx), "KernelMatrix.SMO"); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults(len(idx)).countIn(ctx)
	sg := signs(y)
	cp, cn := cfg.C*cfg.WeightPos, cfg.C*cfg.WeightNeg
	var cw []float64
	if w != nil {
		cw = make([]float64, len(w))
		for q, wq := range w {
			cw[q] = cp * wq
			if sg[q] < 0 {
				cw[q] = cn * wq
			}
		}
	}
	s := newSolverW(newGatherQ(m.Row, m.diag, pt, sg), len(pt), sg, nil, cp, cn, cw, nil, cfg)
	tk := newTicker(ctx, progress)
	res, err := s.solve(&tk, cfg.MaxIter)
	if err != nil {
		return nil, err
	}
	mod := m.newModel()
	mod.Bias = -res.rho
	mod.Info["solver"] = "smo"
	for q, a := range res.alpha {
		if a > 0 {
			mod.addSV(m.point(idx[q]), a*float64(sg[q]))
		}
	}
	res.info(mod.Info, cfg, sg)
	if w != nil {
		mod.Info["point_weights"] = "true"
	}
	return mod, nil
}

// SMOSVR trains the ε-SVR of the package function SMOSVR on the points idx
// of the matrix with targets z (len(idx) of them, finite), the kernel
// values read from the matrix. cfg.CacheMB and cfg.Workers are not used.
func (m *KernelMatrix) SMOSVR(ctx context.Context, idx []int, z []float64, cfg SMOSVRConfig, progress ProgressFunc) (*Model, error) {
	pt, err := m.checkTargets(idx, z, "KernelMatrix.SMOSVR")
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	scfg := cfg.smo().withDefaults(2 * len(idx)).countIn(ctx)
	s := newSVRSolver(m.svrQ(pt), z, cfg.epsilon(), nil, scfg)
	tk := newTicker(ctx, progress)
	res, err := s.solve(&tk, scfg.MaxIter)
	if err != nil {
		return nil, err
	}
	beta := svrBeta(res.alpha)
	mod := m.newModel()
	mod.Bias = -res.rho
	mod.Info["solver"] = "smo-svr"
	for q, b := range beta {
		if b != 0 {
			mod.addSV(m.point(idx[q]), b)
		}
	}
	svrInfo(mod.Info, res, beta, scfg, cfg.epsilon())
	return mod, nil
}

// svrQ returns the ε-SVR Q over the points pt: 2l variables, positions i
// and i + l on point pt[i].
func (m *KernelMatrix) svrQ(pt []int32) *gatherQ {
	l := len(pt)
	p2 := make([]int32, 2*l)
	copy(p2, pt)
	copy(p2[l:], pt)
	return newGatherQ(m.Row, m.diag, p2, svrSigns(l))
}
