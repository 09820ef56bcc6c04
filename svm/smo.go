package svm

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/nsvm-go/nsvm/kernel"
)

// DefaultCacheMB is the kernel cache of the SMO solvers when their CacheMB
// is 0: LIBSVM's default (-m 100).
const DefaultCacheMB = 100

// SMOConfig configures SMO. The zero value is LIBSVM's C-SVC default: C = 1,
// ε = 1e-3, a 100 MB cache (DefaultCacheMB), shrinking on.
type SMOConfig struct {
	// C is the box constraint C > 0 (default 1).
	C float64
	// Eps is the stopping tolerance ε on the maximal KKT violation
	// m(α) − M(α) (default 1e-3, LIBSVM's -e).
	Eps float64
	// CacheMB limits the kernel column cache (default DefaultCacheMB;
	// LIBSVM's -m).
	CacheMB int
	// NoShrinking turns LIBSVM's shrinking heuristic off (-h 0).
	NoShrinking bool
	// Workers is the number of goroutines that compute a kernel column
	// (default 1). Columns shorter than 4096 rows always use one.
	Workers int
	// MaxIter caps the number of pair updates (default max(10⁷, 100·N), as
	// LIBSVM). Reaching it is not an error: Info["max_iter_reached"] is set.
	MaxIter int
	// WeightPos and WeightNeg scale C for the points of class +1 and −1:
	// their bounds are C₊ = C·WeightPos and C₋ = C·WeightNeg (LIBSVM's
	// -w1 and -w-1; default 1 each). Weights inversely proportional to
	// the class sizes balance an unbalanced training set.
	WeightPos, WeightNeg float64

	// cacheValues, if > 0, sets the cache limit in float32 values instead
	// of CacheMB (tests use it to force evictions on small problems).
	cacheValues int
	// evals counts the kernel values the solver computes (countIn).
	evals *kernel.Counter
}

// countIn returns c counting its kernel evaluations into the Counter of
// ctx (kernel.NewContext).
func (c SMOConfig) countIn(ctx context.Context) SMOConfig {
	c.evals = kernel.CounterFrom(ctx)
	return c
}

// Validate reports whether the configuration is usable.
func (c SMOConfig) Validate() error { return c.validate("SMO") }

// validate is Validate with the solver's name in the messages.
func (c SMOConfig) validate(name string) error {
	if c.C < 0 || math.IsNaN(c.C) || math.IsInf(c.C, 0) {
		return fmt.Errorf("svm: %s: C must be > 0, got %g", name, c.C)
	}
	if c.Eps < 0 || math.IsNaN(c.Eps) || math.IsInf(c.Eps, 0) {
		return fmt.Errorf("svm: %s: eps must be > 0, got %g", name, c.Eps)
	}
	if c.CacheMB < 0 {
		return fmt.Errorf("svm: %s: cache size must be ≥ 0 MB, got %d", name, c.CacheMB)
	}
	if c.MaxIter < 0 {
		return fmt.Errorf("svm: %s: max iterations must be ≥ 0, got %d", name, c.MaxIter)
	}
	if c.Workers < 0 {
		return fmt.Errorf("svm: %s: workers must be ≥ 0, got %d", name, c.Workers)
	}
	for _, w := range []float64{c.WeightPos, c.WeightNeg} {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("svm: %s: class weights must be > 0, got %g", name, w)
		}
	}
	return nil
}

func (c SMOConfig) withDefaults(n int) SMOConfig {
	c.C = cmp.Or(c.C, 1)
	c.Eps = cmp.Or(c.Eps, 1e-3)
	c.CacheMB = cmp.Or(c.CacheMB, DefaultCacheMB)
	c.MaxIter = cmp.Or(c.MaxIter, max(10_000_000, 100*n))
	c.Workers = cmp.Or(c.Workers, 1)
	c.WeightPos = cmp.Or(c.WeightPos, 1)
	c.WeightNeg = cmp.Or(c.WeightNeg, 1)
	c.cacheValues = cmp.Or(c.cacheValues, c.CacheMB<<20/4)
	return c
}

// SMO trains a C-SVM with bias by sequential minimal optimisation on the
// dual problem
//
//	min_α  f(α) = ½·αᵀQα − eᵀα
//	s.t.   0 ≤ α_i ≤ C,  yᵀα = 0,      Q_ij = y_i·y_j·K(x_i, x_j),
//
// following LIBSVM's Solver (Chang & Lin, "LIBSVM: a library for support
// vector machines", ACM TIST 2:27, 2011): the working pair is chosen by
// second-order information (Fan, Chen & Lin, "Working set selection using
// second order information for training SVM", JMLR 6, 2005, WSS 2, with
// τ = 1e-12 standing in for a non-positive curvature), the two-variable
// subproblem is solved analytically, shrinking removes bounded variables
// that are unlikely to move (LIBSVM's rules, with un-shrinking once the
// violation falls below 10ε and the full gradient reconstructed before the
// final check), and kernel columns live in an LRU cache of CacheMB
// megabytes. A column is one kernel.Row over dense rows (one GEMV and a
// vector exp for RBF), or one kernel.RowVec over sparse rows (p.Sparse:
// x_i scattered once into a D-long row, then one gather per row at its
// nonzeros), with precomputed norms, stored as float32 like LIBSVM's
// Qfloat; gradients are float64. A sparse problem needs a kernel of
// kernel.OnRows (every kernel of package kernel). It stops when
// m(α) − M(α) ≤ ε, where m(α) = max_{i∈I_up} −y_i∇f(α)_i and
// M(α) = min_{i∈I_low} −y_i∇f(α)_i.
//
// With class weights (WeightPos, WeightNeg) the box is 0 ≤ α_i ≤ C_i with
// C_i = C·WeightPos for y_i = +1 and C·WeightNeg for y_i = −1, as LIBSVM's
// svm-train -wi. Point weights p.W scale each point's bound further:
// C_i = C·W_i·WeightPos or C·W_i·WeightNeg (LIBSVM's instance-weight
// version); points of weight 0 are left out.
//
// The model is decision(x) = Σ_i α_i·y_i·K(x_i, x) + b over the points with
// α_i > 0 (Coef_i = α_i·y_i), with b = −ρ and ρ the average of y_i∇f(α)_i
// over the free support vectors (the middle of the feasible interval if
// there are none), as LIBSVM; its support vectors are sparse (SVSparse)
// when p's rows are. Info holds "objective" = f(α) (what
// svm-train prints as obj), "rho", "iterations", "nsv" and "nbsv".
func SMO(ctx context.Context, p Problem, k kernel.Kernel, cfg SMOConfig, progress ProgressFunc) (*Model, error) {
	if err := checkKernelProblem(p, k, "SMO"); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	idx, err := positive(p, "SMO")
	if err != nil {
		return nil, err
	}
	l := p.N
	if idx != nil {
		l = len(idx)
	}
	cfg = cfg.withDefaults(l).countIn(ctx)
	r := problemRows(p, idx)
	at := func(q int) int {
		if idx == nil {
			return q
		}
		return int(idx[q])
	}
	y := make([]int8, l)
	for q := range y {
		y[q] = 1
		if p.Y[at(q)] < 0 {
			y[q] = -1
		}
	}
	cp, cn := cfg.C*cfg.WeightPos, cfg.C*cfg.WeightNeg
	var cw []float64
	if p.W != nil {
		cw = make([]float64, l)
		for q := range cw {
			cw[q] = cp * p.weight(at(q))
			if y[q] < 0 {
				cw[q] = cn * p.weight(at(q))
			}
		}
	}
	s := newSolverW(newSVCQRows(k, r, y, cfg), l, y, nil, cp, cn, cw, nil, cfg)
	tk := newTicker(ctx, progress)
	res, err := s.solve(&tk, cfg.MaxIter)
	if err != nil {
		return nil, err
	}
	alpha := res.alpha
	if idx != nil {
		alpha = make([]float64, p.N)
		for q, a := range res.alpha {
			alpha[idx[q]] = a
		}
	}
	m := modelFromAlpha(p, k.Spec(), alpha, res.rho)
	m.Info["solver"] = "smo"
	res.info(m.Info, cfg, y)
	if p.W != nil {
		m.Info["point_weights"] = "true"
	}
	return m, nil
}

// signs returns the labels ±1 as int8.
func signs(y []float32) []int8 {
	s := make([]int8, len(y))
	for i, v := range y {
		s[i] = 1
		if v < 0 {
			s[i] = -1
		}
	}
	return s
}

// modelFromAlpha builds the model Σ α_i·y_i·K(x_i, ·) − ρ over α_i > 0,
// with sparse support vectors when p's rows are sparse.
func modelFromAlpha(p Problem, spec kernel.Spec, alpha []float64, rho float64) *Model {
	m := newModel(spec, p.D, p.Sparse != nil)
	m.Bias = -rho
	for i, a := range alpha {
		if a > 0 {
			m.addSV(p.vec(i), a*float64(p.Y[i]))
		}
	}
	return m
}

// info records the fit in a model's Info; each α_i's bound is r.bound[i]
// if set, else C·WeightPos or C·WeightNeg by y (nil: all +1).
func (r *smoResult) info(info map[string]string, cfg SMOConfig, y []int8) {
	info["C"] = fmtF(cfg.C)
	if cfg.WeightPos != 1 || cfg.WeightNeg != 1 {
		info["weight_pos"] = fmtF(cfg.WeightPos)
		info["weight_neg"] = fmtF(cfg.WeightNeg)
	}
	var nsv, nbsv int
	for i, a := range r.alpha {
		if a > 0 {
			nsv++
			c := cfg.C * cfg.WeightPos
			switch {
			case r.bound != nil:
				c = r.bound[i]
			case y != nil && y[i] < 0:
				c = cfg.C * cfg.WeightNeg
			}
			if a >= c {
				nbsv++
			}
		}
	}
	r.solverInfo(info, cfg, nsv, nbsv)
}

// solverInfo records what every fit of the solver reports in a model's
// Info: its tolerance and shrinking, the iterations, the dual objective, ρ,
// the duality gap, the nsv support vectors of which nbsv are at their bound,
// and whether MaxIter ended it.
func (r *smoResult) solverInfo(info map[string]string, cfg SMOConfig, nsv, nbsv int) {
	info["eps"] = fmtF(cfg.Eps)
	info["shrinking"] = strconv.FormatBool(!cfg.NoShrinking)
	info["iterations"] = strconv.Itoa(r.iter)
	info["objective"] = fmtF(r.obj)
	info["rho"] = fmtF(r.rho)
	info["gap"] = fmtF(r.gap)
	info["nsv"] = strconv.Itoa(nsv)
	info["nbsv"] = strconv.Itoa(nbsv)
	if r.maxIter {
		info["max_iter_reached"] = "true"
	}
}
