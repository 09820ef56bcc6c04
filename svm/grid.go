package svm

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
)

// GridConfig configures GridSMO and GridSMOSVR. The zero value runs the
// solvers with their defaults (ε = 1e-3, shrinking), a kernel matrix of up
// to 1 GiB, warm starts and GOMAXPROCS goroutines.
type GridConfig struct {
	// SMO holds the solver settings of every fit: Eps, MaxIter and
	// NoShrinking (and CacheMB and Workers when no kernel matrix is used).
	// C and the class weights are set by the grid.
	SMO SMOConfig
	// ClassWeights, if not nil, holds a weight w_c > 0 per class of a
	// ClassProblem: the head of classes (a, b) bounds α by C·w_a and C·w_b
	// (LIBSVM's -wi in its one-vs-one scheme).
	ClassWeights []float64
	// Workers is the number of fits run at once (default GOMAXPROCS).
	// Results do not depend on it.
	Workers int
	// MatrixMB bounds the kernel matrix (default 1024 MB). The matrix
	// holds 4·N·T bytes: the values of the N points against the first T,
	// where T is one more than the largest training index of the folds (N
	// without folds), so points that are only validated on cost a row, not
	// a column, when they come last. If it does not fit, or MatrixMB < 0,
	// every fit computes its kernel columns from the data (a copy of its
	// points and an LRU column cache of SMO.CacheMB, as SMO).
	MatrixMB int
	// NoWarmStart starts every fit from α = 0 instead of from the solution
	// of the next smaller C (see GridSMO).
	NoWarmStart bool
	// Score, if not nil, scores GridSMO's fold f instead of the vote
	// accuracy: dec[q][v] is pair head q's decision on the fold's
	// validation point v (Fold.Validation[v]); larger is better.
	Score func(f int, dec [][]float64) float64
	// Buffer, if not nil, is storage for the kernel matrix shared by a
	// sequence of calls: a call uses *Buffer when it has room and leaves
	// the storage it used there, so that a search over many kernels holds
	// one matrix instead of one per call awaiting the collector.
	Buffer *[]float32
}

// Validate reports whether the configuration is usable.
func (c GridConfig) Validate() error {
	if err := c.SMO.validate("grid"); err != nil {
		return err
	}
	for i, w := range c.ClassWeights {
		if !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("svm: grid: class weight %d must be > 0, got %g", i, w)
		}
	}
	if c.Workers < 0 {
		return fmt.Errorf("svm: grid: workers must be ≥ 0, got %d", c.Workers)
	}
	return nil
}

// GridResult holds the validation scores of a grid search.
type GridResult struct {
	// Kernels, Cs and Epsilons (GridSMOSVR only) are the grid's axes.
	Kernels  []kernel.Spec
	Cs       []float64
	Epsilons []float64
	// Metric is "accuracy" (GridSMO: the fraction of validation points
	// whose one-vs-one vote is right; higher is better) or "mse" (GridSMOSVR:
	// the mean squared validation error; lower is better).
	Metric string
	// Score[Index(k, c, e)] is the metric averaged over the folds, and
	// FoldScore[Index(k, c, e)][f] its value on fold f.
	Score     []float64
	FoldScore [][]float64
	// Best is the index of the best score: the highest accuracy or lowest
	// error, ties going to the smaller C, then the earlier kernel, then the
	// larger ε.
	Best int
	// Fits counts the SMO runs, Iterations their pair updates.
	Fits       int
	Iterations int64
	// Matrix reports whether a precomputed kernel matrix served the fits.
	Matrix bool
}

// Index returns the position of the grid point (kernel k, C c, ε e) in
// Score (e = 0 for GridSMO).
func (r *GridResult) Index(k, c, e int) int {
	ne := max(len(r.Epsilons), 1)
	return (k*len(r.Cs)+c)*ne + e
}

// Params returns the grid point of index i.
func (r *GridResult) Params(i int) (k kernel.Spec, c, epsilon float64) {
	ne := max(len(r.Epsilons), 1)
	e := i % ne
	c = r.Cs[i/ne%len(r.Cs)]
	k = r.Kernels[i/ne/len(r.Cs)]
	if len(r.Epsilons) > 0 {
		epsilon = r.Epsilons[e]
	}
	return k, c, epsilon
}

func (r *GridResult) pickBest() {
	better := func(a, b float64) bool {
		if r.Metric == "mse" {
			return a < b
		}
		return a > b
	}
	cOrder := sortedOrder(r.Cs)
	ne := max(len(r.Epsilons), 1)
	eOrder := sortedOrder(r.Epsilons)
	slices.Reverse(eOrder)
	if len(eOrder) == 0 {
		eOrder = []int{0}
	}
	r.Best = -1
	for _, c := range cOrder {
		for k := range r.Kernels {
			for _, e := range eOrder[:ne] {
				i := r.Index(k, c, e)
				if s := r.Score[i]; !math.IsNaN(s) && (r.Best < 0 || better(s, r.Score[r.Best])) {
					r.Best = i
				}
			}
		}
	}
	if r.Best < 0 {
		r.Best = 0
	}
}

// sortedOrder returns the indices of v in increasing order of value (stable).
func sortedOrder(v []float64) []int {
	o := make([]int, len(v))
	for i := range o {
		o[i] = i
	}
	slices.SortStableFunc(o, func(a, b int) int {
		switch {
		case v[a] < v[b]:
			return -1
		case v[a] > v[b]:
			return 1
		}
		return 0
	})
	return o
}

func checkGrid(kernels []kernel.Kernel, cs []float64, what string) error {
	if len(kernels) == 0 || len(cs) == 0 {
		return fmt.Errorf("svm: %s: empty grid (%d kernels, %d values of C)", what, len(kernels), len(cs))
	}
	for _, k := range kernels {
		if k == nil {
			return fmt.Errorf("svm: %s: nil kernel", what)
		}
	}
	return checkCs(cs, what)
}

// checkCs reports a value of C that is not a finite number > 0.
func checkCs(cs []float64, what string) error {
	for _, c := range cs {
		if !(c > 0) || math.IsInf(c, 0) {
			return fmt.Errorf("svm: %s: C must be > 0, got %g", what, c)
		}
	}
	return nil
}

// GridSMO scores every (kernel, C) of a grid by cross-validation of a
// one-vs-one C-SVM on the multiclass problem p, as GridSearchCV(SVC()) does:
// for each fold, each pair of classes a < b (in LIBSVM's order (0,1), (0,2),
// …, (1,2), …) gets an SMO head, class a (+1) against class b (−1), on the
// fold's training points of the two classes; a validation point votes for
// a where the head's decision is ≥ 0 and for b elsewhere, and is predicted
// as the class with most votes, ties going to the smaller class index (the
// one-vs-one prediction of the root package). A pair with no training
// point of one class votes for the other. The score is the accuracy of that
// prediction, averaged over the folds.
//
// The work is shared three ways. Per kernel, one KernelMatrix over all N
// points (if it fits in cfg.MatrixMB) serves every fold, pair and C: each
// fit indexes its points in it, and the validation decisions read it too.
// Per (fold, pair), Q of the pair's points is gathered from the matrix
// once (when l² ≤ 2²⁰) and the values of C run in increasing order, each
// fit starting from the solution of the previous C, which stays feasible as
// the box grows (on the digits grid of bench/README-svm.md this took
// 0.81 million pair updates against 1.24 million from α = 0; the start
// α·C/C_prev, also feasible, took 1.41 million). And the (fold, pair) paths
// run on cfg.Workers goroutines. progress, if not nil, is called (serialised)
// after each (fold, pair) path with Step = paths done and Total = paths.
//
// The points may be sparse rows (p.Sparse): the kernel matrix is then
// computed from them (NewSparseKernelMatrix), or, without one, every
// fit's kernel columns are gathers over views of its rows. Point weights
// p.W bound α_i by C·W_i times the class weight; points of weight 0 do
// not train.
func GridSMO(ctx context.Context, p ClassProblem, kernels []kernel.Kernel, cs []float64, folds []Fold, cfg GridConfig, progress ProgressFunc) (*GridResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkGrid(kernels, cs, "GridSMO"); err != nil {
		return nil, err
	}
	if err := checkGridRun(p, folds, cfg, "GridSMO"); err != nil {
		return nil, err
	}
	if err := checkRowKernels(p, kernels, "GridSMO"); err != nil {
		return nil, err
	}
	g := newGrid(ctx, p.rows(), specs(kernels), cs, folds, cfg, progress)
	g.total = len(kernels) * len(folds) * p.C * (p.C - 1) / 2
	for ki, k := range kernels {
		if err := g.classScores(ki, k, g.matrix(k), p); err != nil {
			return nil, err
		}
	}
	return g.finish(), nil
}

// checkGridRun checks what a grid run of the SMO solver on p takes beside
// its kernels and C values: the folds, the configuration and its class
// weights (one per class of p).
func checkGridRun(p ClassProblem, folds []Fold, cfg GridConfig, name string) error {
	if err := checkFolds(folds, p.N); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.ClassWeights != nil && len(cfg.ClassWeights) != p.C {
		return fmt.Errorf("svm: %s: %d class weights for %d classes", name, len(cfg.ClassWeights), p.C)
	}
	return nil
}

// GridSMO is the package function GridSMO on the points of the matrix:
// every fit and every validation decision reads its kernel values and none
// is computed, which is how given kernel values (NewGramMatrix,
// PrecomputedMatrix) are grid-searched. p holds the classes, class count
// and optional weights of the matrix's N points; its X and Sparse are nil
// (the points are the matrix's) and its D is ignored. The result's one
// kernel is the matrix's.
func (m *KernelMatrix) GridSMO(ctx context.Context, p ClassProblem, cs []float64, folds []Fold, cfg GridConfig, progress ProgressFunc) (*GridResult, error) {
	if p.X != nil || p.Sparse != nil {
		return nil, fmt.Errorf("svm: KernelMatrix.GridSMO: the points are the matrix's; the problem gives only classes and weights")
	}
	if p.N != m.N {
		return nil, fmt.Errorf("svm: KernelMatrix.GridSMO: %d classes for the %d points of the matrix", p.N, m.N)
	}
	if err := p.validLabels(); err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("svm: KernelMatrix.GridSMO: no values of C")
	}
	if err := checkCs(cs, "KernelMatrix.GridSMO"); err != nil {
		return nil, err
	}
	if err := checkGridRun(p, folds, cfg, "KernelMatrix.GridSMO"); err != nil {
		return nil, err
	}
	g := newGrid(ctx, m.pts, []kernel.Spec{m.Kernel}, cs, folds, cfg, progress)
	g.n, g.d, g.res.Matrix = m.N, m.D, true
	g.total = len(folds) * p.C * (p.C - 1) / 2
	if err := g.classScores(0, nil, m, p); err != nil {
		return nil, err
	}
	return g.finish(), nil
}

// specs returns the kernels' specifications.
func specs(kernels []kernel.Kernel) []kernel.Spec {
	s := make([]kernel.Spec, len(kernels))
	for i, k := range kernels {
		s[i] = k.Spec()
	}
	return s
}

// classScores fills the fold scores of kernel ki of the grid (k, read from
// the kernel matrix km when it is not nil): per fold, the one-vs-one heads
// of every pair along the path of C, their validation decisions scored by
// cfg.Score or the vote accuracy.
func (g *grid) classScores(ki int, k kernel.Kernel, km *KernelMatrix, p ClassProblem) error {
	g.res.Metric = "accuracy"
	folds, cs := g.folds, g.cs
	pairs := p.C * (p.C - 1) / 2
	// dec[f][ci][q][v]: decision of pair q at C index ci on validation
	// point v of fold f.
	dec := make([][][][]float64, len(folds))
	for f := range folds {
		dec[f] = make([][][]float64, len(cs))
		for ci := range cs {
			dec[f][ci] = make([][]float64, pairs)
		}
	}
	err := g.run(len(folds)*pairs, func(t int) error {
		f, q := t/pairs, t%pairs
		a, b := PairClasses(q, p.C)
		return g.classPath(k, km, p, folds[f], a, b, func(ci int, d []float64) { dec[f][ci][q] = d })
	})
	if err != nil {
		return err
	}
	for ci := range cs {
		i := g.res.Index(ki, ci, 0)
		for f, fd := range folds {
			if g.cfg.Score != nil {
				g.res.FoldScore[i][f] = g.cfg.Score(f, dec[f][ci])
			} else {
				g.res.FoldScore[i][f] = voteAccuracy(dec[f][ci], fd.Validation, p.Y, p.C)
			}
		}
	}
	return nil
}

// PairClasses returns the classes (a, b), a < b, of one-vs-one head q of
// c classes, in LIBSVM's order (0,1), (0,2), …, (0,c−1), (1,2), …: head q
// separates class a (+1) from class b (−1).
func PairClasses(q, c int) (int, int) {
	for a := 0; a < c; a++ {
		if n := c - 1 - a; q < n {
			return a, a + 1 + q
		} else {
			q -= n
		}
	}
	panic("svm: pair index out of range")
}

// voteAccuracy returns the fraction of the points val whose one-vs-one vote
// over the pair decisions dec[q][v] gives their class y.
func voteAccuracy(dec [][]float64, val []int, y []int, nc int) float64 {
	votes := make([]int, nc)
	ok := 0
	for v, i := range val {
		clear(votes)
		for q, d := range dec {
			a, b := PairClasses(q, nc)
			if d[v] >= 0 {
				votes[a]++
			} else {
				votes[b]++
			}
		}
		best := 0
		for c, n := range votes {
			if n > votes[best] {
				best = c
			}
		}
		if best == y[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(val))
}

// GridSMOSVR scores every (kernel, C, ε) of a grid by cross-validation of
// SMOSVR on the regression problem p: the mean squared error of the
// predictions on each fold's validation points, averaged over the folds.
// The work is shared as in GridSMO: one KernelMatrix per kernel (if it fits
// in cfg.MatrixMB) for every fold, C and ε; per (fold, ε) the values of C
// in increasing order, each fit starting from the previous β (|β_i| ≤ C
// and eᵀβ = 0 still hold); (fold, ε) paths on cfg.Workers goroutines. A negative ε means
// exactly 0 (ε = 0 itself is allowed here). progress is called after each
// (fold, ε) path.
func GridSMOSVR(ctx context.Context, p RegProblem, kernels []kernel.Kernel, cs, epsilons []float64, folds []Fold, cfg GridConfig, progress ProgressFunc) (*GridResult, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := p.needDense("GridSMOSVR"); err != nil {
		return nil, err
	}
	if err := checkGrid(kernels, cs, "GridSMOSVR"); err != nil {
		return nil, err
	}
	if len(epsilons) == 0 {
		return nil, fmt.Errorf("svm: GridSMOSVR: no values of ε")
	}
	for _, e := range epsilons {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return nil, fmt.Errorf("svm: GridSMOSVR: ε must be finite, got %g", e)
		}
	}
	if err := checkFolds(folds, p.N); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.ClassWeights != nil {
		return nil, fmt.Errorf("svm: GridSMOSVR: class weights need classes")
	}
	g := newGrid(ctx, newDenseRows(p.X, p.N, p.D), specs(kernels), cs, folds, cfg, progress)
	g.res.Epsilons = slices.Clone(epsilons)
	g.res.Metric = "mse"
	g.res.Score = make([]float64, len(kernels)*len(cs)*len(epsilons))
	g.res.FoldScore = make([][]float64, len(g.res.Score))
	for i := range g.res.FoldScore {
		g.res.FoldScore[i] = make([]float64, len(folds))
	}
	ne := len(epsilons)
	g.total = len(kernels) * len(folds) * ne
	for ki, k := range kernels {
		km := g.matrix(k)
		err := g.run(len(folds)*ne, func(t int) error {
			f, e := t/ne, t%ne
			eps := max(epsilons[e], 0)
			return g.regPath(k, km, p, folds[f], eps, func(ci int, mse float64) {
				g.res.FoldScore[g.res.Index(ki, ci, e)][f] = mse
			})
		})
		if err != nil {
			return nil, err
		}
	}
	return g.finish(), nil
}

// checkRowKernels reports a kernel outside kernel.OnRows given with sparse
// rows.
func checkRowKernels(p ClassProblem, kernels []kernel.Kernel, what string) error {
	if p.Sparse == nil {
		return nil
	}
	for _, k := range kernels {
		if !kernel.OnRows(k) {
			return fmt.Errorf("svm: %s: the problem's rows are sparse and kernel %T takes dense rows only", what, k)
		}
	}
	return nil
}

// grid is the shared state of a grid search.
type grid struct {
	ctx      context.Context
	pts      *rows // every point of the problem
	n, d     int
	cs       []float64
	cOrder   []int
	folds    []Fold
	cfg      GridConfig
	progress ProgressFunc
	res      *GridResult
	mu       sync.Mutex
	done     int
	total    int
	fits     atomic.Int64
	iters    atomic.Int64
	kbuf     []float32
	cols     int // the points with a column in the kernel matrix (newKernelMatrix)
}

// newGrid returns the grid of the points pts (nil for given kernel values:
// the caller sets n and d).
func newGrid(ctx context.Context, pts *rows, kernels []kernel.Spec, cs []float64, folds []Fold, cfg GridConfig, progress ProgressFunc) *grid {
	g := &grid{ctx: ctx, pts: pts, cs: cs, cOrder: sortedOrder(cs), folds: folds, cfg: cfg, progress: progress}
	g.cfg.SMO = g.cfg.SMO.countIn(ctx)
	if pts != nil {
		g.n, g.d = pts.len(), pts.d
		pts.evals = g.cfg.SMO.evals
	}
	n := g.n
	if cfg.Buffer != nil {
		g.kbuf = *cfg.Buffer
	}
	g.res = &GridResult{Cs: slices.Clone(cs), Kernels: slices.Clone(kernels)}
	g.res.Score = make([]float64, len(kernels)*len(cs))
	g.res.FoldScore = make([][]float64, len(g.res.Score))
	for i := range g.res.FoldScore {
		g.res.FoldScore[i] = make([]float64, len(folds))
	}
	if g.cfg.MatrixMB == 0 {
		g.cfg.MatrixMB = 1024
	}
	if g.cfg.Workers == 0 {
		g.cfg.Workers = runtime.GOMAXPROCS(0)
	}
	// Columns only for the points some fold trains on, when they come
	// first: the others are only validated on, against training points.
	g.cols = n
	if folds != nil {
		g.cols = 0
		for _, f := range folds {
			for _, i := range f.Train {
				g.cols = max(g.cols, i+1)
			}
		}
	}
	g.res.Matrix = g.cfg.MatrixMB > 0 && 4*int64(n)*int64(g.cols) <= int64(g.cfg.MatrixMB)<<20
	return g
}

// matrix returns the kernel matrix of all points, or nil if it does not
// fit. Each call reuses the storage of the previous matrix, which must no
// longer be in use.
func (g *grid) matrix(k kernel.Kernel) *KernelMatrix {
	if !g.res.Matrix {
		return nil
	}
	km := newKernelMatrix(k, g.pts, g.cols, g.kbuf)
	g.kbuf = km.k
	if g.cfg.Buffer != nil {
		*g.cfg.Buffer = g.kbuf
	}
	return km
}

// run calls task(0 … n−1) on cfg.Workers goroutines and returns the first
// error (after which no new task starts).
func (g *grid) run(n int, task func(t int) error) error {
	var next atomic.Int64
	var failed atomic.Bool
	errs := make([]error, n)
	work := func() {
		for {
			t := int(next.Add(1)) - 1
			if t >= n || failed.Load() {
				return
			}
			if err := g.ctx.Err(); err != nil {
				errs[t] = fmt.Errorf("svm: grid search stopped: %w", err)
				failed.Store(true)
				return
			}
			if err := task(t); err != nil {
				errs[t] = err
				failed.Store(true)
				return
			}
			if g.progress != nil {
				g.mu.Lock()
				g.done++
				g.progress(Progress{Step: g.done, Total: g.total})
				g.mu.Unlock()
			}
		}
	}
	w := min(g.cfg.Workers, n)
	var wg sync.WaitGroup
	for i := 1; i < w; i++ {
		wg.Go(work)
	}
	work()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (g *grid) finish() *GridResult {
	r := g.res
	for i, fs := range r.FoldScore {
		var s float64
		for _, v := range fs {
			s += v
		}
		r.Score[i] = s / float64(len(fs))
	}
	r.Fits = int(g.fits.Load())
	r.Iterations = g.iters.Load()
	r.pickBest()
	return r
}

// pathQ hands out, for every fit of a path (one C after another), a Q over
// the same variables: variable i on point pt[i] with sign sign[i]. With at
// most denseQValues entries Q is built once — gathered from the kernel
// matrix km, or from the kernel matrix of the path's own points x when
// there is none — and copied for each fit (denseQ); otherwise its columns
// are gathered from the rows of km, or from kernel rows of x cached per
// point, which then serve every C.
type pathQ struct {
	q0   []float32
	row  func(r int) []float32
	diag func(r int) float64
	pt   []int32
	sign []int8
	buf  []float32
}

// newPathQ sets up the Q of a path; pt indexes the rows of km, or, if km is
// nil, the points x. cfg sets the row cache of the last case.
func newPathQ(k kernel.Kernel, km *KernelMatrix, x *rows, pt []int32, sign []int8, cfg SMOConfig) *pathQ {
	n := len(pt)
	pq := &pathQ{pt: pt, sign: sign}
	if x != nil {
		x.evals = cfg.evals
	}
	if n*n <= denseQValues {
		src := km
		if src == nil {
			src = newKernelMatrix(k, x, x.len(), nil)
		}
		pq.q0 = make([]float32, n*n)
		gatherDense(pq.q0, src, pt, sign)
		return pq
	}
	if km != nil {
		pq.row, pq.diag = km.Row, km.diag
	} else {
		rc := newRowCache(k, x, cfg)
		pq.row, pq.diag = rc.row, rc.diag
	}
	return pq
}

// next returns Q for the next fit.
func (pq *pathQ) next() qMatrix {
	if pq.q0 == nil {
		return newGatherQ(pq.row, pq.diag, pq.pt, pq.sign)
	}
	if pq.buf == nil {
		pq.buf = make([]float32, len(pq.q0))
	}
	copy(pq.buf, pq.q0)
	return &denseQ{l: len(pq.pt), q: pq.buf}
}

// csrRows returns a copy of the rows idx of m.
func csrRows(m *data.CSR, idx []int) *data.CSR {
	s := &data.CSR{Ptr: make([]int64, 1, len(idx)+1)}
	for _, i := range idx {
		r := m.Row(i)
		s.Idx = append(s.Idx, r.Idx...)
		s.Val = append(s.Val, r.Val...)
		s.Ptr = append(s.Ptr, int64(len(s.Val)))
	}
	return s
}

// identity returns 0, 1, …, n−1.
func identity(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return v
}

// denseQValues is the largest l² for which a fit on a kernel matrix keeps
// its whole Q (two copies of 4·l² bytes, 8 MiB for l = 1024).
const denseQValues = 1 << 20

// solverConfig returns the SMO settings of a fit with box C on l variables.
func (g *grid) solverConfig(c float64, l int) SMOConfig {
	s := g.cfg.SMO
	s.C, s.WeightPos, s.WeightNeg = c, 1, 1
	return s.withDefaults(l)
}

// classPath fits the head of classes (a, b) on the training points of fold
// fd (those of positive weight) for every C in increasing order and hands
// set(ci, decisions on the validation points) for each.
func (g *grid) classPath(k kernel.Kernel, km *KernelMatrix, p ClassProblem, fd Fold, a, b int, set func(ci int, dec []float64)) error {
	var idx []int32
	var y []int8
	var na, nb int
	for _, i := range fd.Train {
		if p.weight(i) == 0 {
			continue
		}
		switch p.Y[i] {
		case a:
			idx, y = append(idx, int32(i)), append(y, 1)
			na++
		case b:
			idx, y = append(idx, int32(i)), append(y, -1)
			nb++
		}
	}
	nv := len(fd.Validation)
	if na == 0 || nb == 0 {
		// One class has no training point here: every vote goes to the other.
		v := 1.0
		if na == 0 {
			v = -1
		}
		for ci := range g.cs {
			d := make([]float64, nv)
			for j := range d {
				d[j] = v
			}
			set(ci, d)
		}
		return nil
	}
	wa, wb := 1.0, 1.0
	if g.cfg.ClassWeights != nil {
		wa, wb = g.cfg.ClassWeights[a], g.cfg.ClassWeights[b]
	}
	l := len(idx)
	// The bound of variable q is C·bound[q].
	var bound []float64
	if p.W != nil {
		bound = make([]float64, l)
		for q, i := range idx {
			bound[q] = wa * p.weight(int(i))
			if y[q] < 0 {
				bound[q] = wb * p.weight(int(i))
			}
		}
	}
	var sub, val *rows
	var pq *pathQ
	if km == nil {
		sub, val = g.subRows(idx), g.subRows(toInt32(fd.Validation))
		pq = newPathQ(k, nil, sub, identity(l), y, g.solverConfig(1, l))
	} else {
		pq = newPathQ(k, km, nil, idx, y, SMOConfig{})
	}
	// With a kernel matrix, a validation point's decision sums over the
	// support vectors' entries of its row.
	var svRow []int32
	var svCoef []float64
	var alpha []float64
	var cw []float64
	if bound != nil {
		cw = make([]float64, l)
	}
	tk := newTicker(g.ctx, nil)
	for _, ci := range g.cOrder {
		c := g.cs[ci]
		scfg := g.solverConfig(c, l)
		var a0 []float64
		if alpha != nil && !g.cfg.NoWarmStart {
			a0 = alpha
		}
		for q := range cw {
			cw[q] = c * bound[q]
		}
		s := newSolverW(pq.next(), l, y, nil, c*wa, c*wb, cw, a0, scfg)
		res, err := s.solve(&tk, scfg.MaxIter)
		if err != nil {
			return err
		}
		g.fits.Add(1)
		g.iters.Add(int64(res.iter))
		alpha = res.alpha
		d := make([]float64, nv)
		if km != nil {
			svRow, svCoef = svRow[:0], svCoef[:0]
			for q, al := range alpha {
				if al != 0 {
					svRow, svCoef = append(svRow, idx[q]), append(svCoef, al*float64(y[q]))
				}
			}
			for v, i := range fd.Validation {
				row := km.Row(i)
				var sum float64
				for s, r := range svRow {
					sum += svCoef[s] * float64(row[r])
				}
				d[v] = sum - res.rho
			}
		} else {
			m := newModel(k.Spec(), p.D, sub.sparse())
			m.Bias = -res.rho
			for q, al := range alpha {
				if al > 0 {
					m.addSV(sub.vec(q), al*float64(y[q]))
				}
			}
			decideRows(m, val, d)
		}
		set(ci, d)
	}
	return nil
}

// subRows returns the points idx of the grid's problem: a dense copy, or
// views of sparse rows.
func (g *grid) subRows(idx []int32) *rows {
	if g.pts.sparse() {
		v := make([]data.Vec, len(idx))
		for q, i := range idx {
			v[q] = g.pts.v[i]
		}
		r := newVecRows(v, g.d)
		r.evals = g.pts.evals
		return r
	}
	x := make([]float32, 0, len(idx)*g.d)
	for _, i := range idx {
		x = append(x, g.pts.vec(int(i)).Val...)
	}
	r := newDenseRows(x, len(idx), g.d)
	r.evals = g.pts.evals
	return r
}

func toInt32(v []int) []int32 {
	w := make([]int32, len(v))
	for i, x := range v {
		w[i] = int32(x)
	}
	return w
}

// decideRows sets dst[i] to m's decision on point i of r.
func decideRows(m *Model, r *rows, dst []float64) {
	if !r.sparse() {
		m.DecisionBatch(dst, r.x, r.len())
		return
	}
	for i, v := range r.v {
		dst[i] = m.DecisionVec(v)
	}
}

// regPath fits SMOSVR with tube eps on the training points of fold fd for
// every C in increasing order and hands set(ci, validation MSE) for each.
func (g *grid) regPath(k kernel.Kernel, km *KernelMatrix, p RegProblem, fd Fold, eps float64, set func(ci int, mse float64)) error {
	l := len(fd.Train)
	pt := make([]int32, l)
	z := make([]float64, l)
	for q, i := range fd.Train {
		pt[q] = int32(i)
		z[q] = p.Y[i]
	}
	var sub RegProblem
	var val []float32
	var pq *pathQ
	if km == nil {
		sub = RegProblem{X: make([]float32, 0, l*p.D), N: l, D: p.D, Y: z}
		for _, i := range fd.Train {
			sub.X = append(sub.X, p.row(i)...)
		}
		for _, i := range fd.Validation {
			val = append(val, p.row(i)...)
		}
		loc := identity(l)
		pq = newPathQ(k, nil, newDenseRows(sub.X, l, p.D), append(loc, loc...), svrSigns(l), g.solverConfig(1, 2*l))
	} else {
		pq = newPathQ(k, km, nil, append(slices.Clone(pt), pt...), svrSigns(l), SMOConfig{})
	}
	var beta []float64
	tk := newTicker(g.ctx, nil)
	nv := len(fd.Validation)
	d := make([]float64, nv)
	for _, ci := range g.cOrder {
		c := g.cs[ci]
		scfg := g.solverConfig(c, 2*l)
		var b0 []float64
		if beta != nil && !g.cfg.NoWarmStart {
			b0 = beta
		}
		s := newSVRSolver(pq.next(), z, eps, b0, scfg)
		res, err := s.solve(&tk, scfg.MaxIter)
		if err != nil {
			return err
		}
		g.fits.Add(1)
		g.iters.Add(int64(res.iter))
		beta = svrBeta(res.alpha)
		if km != nil {
			for v, i := range fd.Validation {
				row := km.Row(i)
				s := -res.rho
				for q, bq := range beta {
					if bq != 0 {
						s += bq * float64(row[pt[q]])
					}
				}
				d[v] = s
			}
		} else {
			m := &Model{Kernel: k.Spec(), D: p.D, Bias: -res.rho}
			for q, bq := range beta {
				if bq != 0 {
					m.SV = append(m.SV, sub.row(q)...)
					m.Coef = append(m.Coef, bq)
					m.NSV++
				}
			}
			m.DecisionBatch(d, val, nv)
		}
		var se float64
		for v, i := range fd.Validation {
			e := d[v] - p.Y[i]
			se += e * e
		}
		set(ci, se/float64(nv))
	}
	return nil
}

// FitOneVsOne fits the one-vs-one heads of the multiclass problem p with
// kernel k and box C (and cfg's solver settings and class weights): head q
// separates classes (a, b) = (0,1), (0,2), …, (1,2), … — class a (+1) from
// class b (−1) — on their points, as GridSMO validates them. With the
// kernel matrix of all points within cfg.MatrixMB, every head reads it
// (KernelMatrix.SMO); otherwise each runs SMO on a copy of its points. Up to
// cfg.Workers heads are fitted at once.
func FitOneVsOne(ctx context.Context, p ClassProblem, k kernel.Kernel, c float64, cfg GridConfig) ([]*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkGrid([]kernel.Kernel{k}, []float64{c}, "FitOneVsOne"); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.ClassWeights != nil && len(cfg.ClassWeights) != p.C {
		return nil, fmt.Errorf("svm: FitOneVsOne: %d class weights for %d classes", len(cfg.ClassWeights), p.C)
	}
	if err := checkRowKernels(p, []kernel.Kernel{k}, "FitOneVsOne"); err != nil {
		return nil, err
	}
	g := newGrid(ctx, p.rows(), []kernel.Spec{k.Spec()}, []float64{c}, nil, cfg, nil)
	km := g.matrix(k)
	pairs := p.C * (p.C - 1) / 2
	heads := make([]*Model, pairs)
	err := g.run(pairs, func(q int) error {
		a, b := PairClasses(q, p.C)
		idx, y := p.pairPoints(a, b)
		scfg := g.cfg.SMO
		scfg.C, scfg.WeightPos, scfg.WeightNeg = c, 1, 1
		if cfg.ClassWeights != nil {
			scfg.WeightPos, scfg.WeightNeg = cfg.ClassWeights[a], cfg.ClassWeights[b]
		}
		var m *Model
		var err error
		if km != nil {
			var w []float64
			if p.W != nil {
				w = make([]float64, len(idx))
				for q, i := range idx {
					w[q] = p.weight(i)
				}
			}
			m, err = km.smo(ctx, idx, y, w, scfg, nil)
		} else {
			m, err = SMO(ctx, p.subProblem(idx, y), k, scfg, nil)
		}
		if err != nil {
			return fmt.Errorf("svm: FitOneVsOne: head (%d, %d): %w", a, b, err)
		}
		heads[q] = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	return heads, nil
}
