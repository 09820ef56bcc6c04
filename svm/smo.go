package svm

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/nsvm-go/nsvm/kernel"
)

// SMOConfig configures SMO. The zero value is LIBSVM's C-SVC default apart
// from the cache size: C = 1, ε = 1e-3, a 200 MB cache, shrinking on.
type SMOConfig struct {
	// C is the box constraint C > 0 (default 1).
	C float64
	// Eps is the stopping tolerance ε on the maximal KKT violation
	// m(α) − M(α) (default 1e-3, LIBSVM's -e).
	Eps float64
	// CacheMB limits the kernel column cache (default 200 MB; LIBSVM's -m).
	CacheMB int
	// NoShrinking turns LIBSVM's shrinking heuristic off (-h 0).
	NoShrinking bool
	// Workers is the number of goroutines that compute a kernel column
	// (default 1). Columns shorter than 4096 rows always use one.
	Workers int
	// MaxIter caps the number of pair updates (default max(10⁷, 100·N), as
	// LIBSVM). Reaching it is not an error: Info["max_iter_reached"] is set.
	MaxIter int

	// cacheValues, if > 0, sets the cache limit in float32 values instead
	// of CacheMB (tests use it to force evictions on small problems).
	cacheValues int
}

// Validate reports whether the configuration is usable.
func (c SMOConfig) Validate() error {
	if c.C < 0 || math.IsNaN(c.C) || math.IsInf(c.C, 0) {
		return fmt.Errorf("svm: SMO: C must be > 0, got %g", c.C)
	}
	if c.Eps < 0 || math.IsNaN(c.Eps) || math.IsInf(c.Eps, 0) {
		return fmt.Errorf("svm: SMO: eps must be > 0, got %g", c.Eps)
	}
	if c.CacheMB < 0 {
		return fmt.Errorf("svm: SMO: cache size must be ≥ 0 MB, got %d", c.CacheMB)
	}
	if c.MaxIter < 0 {
		return fmt.Errorf("svm: SMO: max iterations must be ≥ 0, got %d", c.MaxIter)
	}
	if c.Workers < 0 {
		return fmt.Errorf("svm: SMO: workers must be ≥ 0, got %d", c.Workers)
	}
	return nil
}

func (c SMOConfig) withDefaults(n int) SMOConfig {
	if c.C == 0 {
		c.C = 1
	}
	if c.Eps == 0 {
		c.Eps = 1e-3
	}
	if c.CacheMB == 0 {
		c.CacheMB = 200
	}
	if c.MaxIter == 0 {
		c.MaxIter = max(10_000_000, 100*n)
	}
	if c.Workers == 0 {
		c.Workers = 1
	}
	if c.cacheValues == 0 {
		c.cacheValues = c.CacheMB << 20 / 4
	}
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
// megabytes. A column is one kernel.Row over the dense data (one GEMV and
// a vector exp for RBF) with precomputed norms, stored as float32 like
// LIBSVM's Qfloat; gradients are float64. It stops when
// m(α) − M(α) ≤ ε, where m(α) = max_{i∈I_up} −y_i∇f(α)_i and
// M(α) = min_{i∈I_low} −y_i∇f(α)_i.
//
// The model is decision(x) = Σ_i α_i·y_i·K(x_i, x) + b over the points with
// α_i > 0 (Coef_i = α_i·y_i), with b = −ρ and ρ the average of y_i∇f(α)_i
// over the free support vectors (the middle of the feasible interval if
// there are none), as LIBSVM. Info holds "objective" = f(α) (what
// svm-train prints as obj), "rho", "iterations", "nsv" and "nbsv".
func SMO(ctx context.Context, p Problem, k kernel.Kernel, cfg SMOConfig, progress ProgressFunc) (*Model, error) {
	if err := checkInputs(p, k); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults(p.N)
	s := newSMOSolver(k, p.X, p.N, p.D, p.Y, nil, cfg)
	tk := newTicker(ctx, progress)
	res, err := s.solve(&tk, cfg.MaxIter)
	if err != nil {
		return nil, err
	}
	m := modelFromAlpha(p, k.Spec(), res.alpha, res.rho)
	m.Info["solver"] = "smo"
	res.info(m.Info, cfg)
	return m, nil
}

// modelFromAlpha builds the model Σ α_i·y_i·K(x_i, ·) − ρ over α_i > 0.
func modelFromAlpha(p Problem, spec kernel.Spec, alpha []float64, rho float64) *Model {
	m := &Model{Kernel: spec, D: p.D, Bias: -rho, Neg: -1, Pos: 1, Info: map[string]string{}}
	for i, a := range alpha {
		if a > 0 {
			m.SV = append(m.SV, p.row(i)...)
			m.Coef = append(m.Coef, a*float64(p.Y[i]))
			m.NSV++
		}
	}
	return m
}

func (r *smoResult) info(info map[string]string, cfg SMOConfig) {
	info["C"] = fmtF(cfg.C)
	info["eps"] = fmtF(cfg.Eps)
	info["shrinking"] = strconv.FormatBool(!cfg.NoShrinking)
	info["iterations"] = strconv.Itoa(r.iter)
	info["objective"] = fmtF(r.obj)
	info["rho"] = fmtF(r.rho)
	info["gap"] = fmtF(r.gap)
	var nsv, nbsv int
	for _, a := range r.alpha {
		if a > 0 {
			nsv++
			if a >= cfg.C {
				nbsv++
			}
		}
	}
	info["nsv"] = strconv.Itoa(nsv)
	info["nbsv"] = strconv.Itoa(nbsv)
	if r.maxIter {
		info["max_iter_reached"] = "true"
	}
}

const (
	atLower int8 = iota
	atUpper
	isFree
)

// tau replaces a non-positive curvature a_ij in working-set selection and
// in the pair update (LIBSVM's TAU).
const tau = 1e-12

// smoSolver is LIBSVM's Solver specialised to C-SVC (p = −e, C_i = C). The
// variables are permuted so that the active (unshrunk) ones come first:
// positions 0 … activeSize−1. x, xn, y, qd, alpha, g, gbar and status are in
// that order; active maps a position to the original index.
type smoSolver struct {
	k          kernel.Kernel
	l, d       int
	x          []float32 // l×d, permuted copy
	xn         []float32 // ‖x_i‖²
	y          []int8
	yf         []float64 // y as ±1.0
	set        []uint8   // inUp | inLow: membership of I_up(α), I_low(α)
	qd         []float64 // Q_ii
	alpha      []float64
	g          []float64 // ∇f(α) = Qα − e (exact for active positions)
	gbar       []float64 // Σ_{j at upper bound} C·Q_ij
	status     []int8
	active     []int32
	activeSize int
	c, eps     float64
	shrinking  bool
	unshrink   bool
	workers    int
	cache      *colCache
	tmp        []float32
}

type smoResult struct {
	alpha    []float64 // in the original order
	rho, obj float64
	gap      float64
	iter     int
	maxIter  bool
}

// newSMOSolver sets up the problem on the l×d points x (copied) with labels
// y and starting point alpha0 (nil: 0), which must be feasible.
func newSMOSolver(k kernel.Kernel, x []float32, l, d int, y []float32, alpha0 []float64, cfg SMOConfig) *smoSolver {
	s := &smoSolver{
		k: k, l: l, d: d,
		x:      append([]float32(nil), x[:l*d]...),
		xn:     make([]float32, l),
		y:      make([]int8, l),
		yf:     make([]float64, l),
		set:    make([]uint8, l),
		qd:     make([]float64, l),
		alpha:  make([]float64, l),
		g:      make([]float64, l),
		gbar:   make([]float64, l),
		status: make([]int8, l),
		active: make([]int32, l),
		c:      cfg.C, eps: cfg.Eps,
		shrinking:  !cfg.NoShrinking,
		workers:    max(cfg.Workers, 1),
		activeSize: l,
		cache:      newColCache(l, cfg.cacheValues),
		tmp:        make([]float32, d),
	}
	for i := 0; i < l; i++ {
		xi := s.x[i*d : (i+1)*d]
		s.xn[i] = float32(sqNorm64(xi))
		s.y[i] = int8(y[i])
		s.yf[i] = float64(y[i])
		s.qd[i] = k.Eval(xi, xi)
		s.active[i] = int32(i)
		if alpha0 != nil {
			s.alpha[i] = alpha0[i]
		}
		s.updateStatus(i)
	}
	return s
}

// Bits of smoSolver.set.
const (
	inUp  uint8 = 1 // i ∈ I_up(α):  y_i = +1, α_i < C  or  y_i = −1, α_i > 0
	inLow uint8 = 2 // i ∈ I_low(α): y_i = +1, α_i > 0  or  y_i = −1, α_i < C
)

func (s *smoSolver) updateStatus(i int) {
	switch {
	case s.alpha[i] >= s.c:
		s.status[i] = atUpper
		s.set[i] = inLow
		if s.y[i] < 0 {
			s.set[i] = inUp
		}
	case s.alpha[i] <= 0:
		s.status[i] = atLower
		s.set[i] = inUp
		if s.y[i] < 0 {
			s.set[i] = inLow
		}
	default:
		s.status[i] = isFree
		s.set[i] = inUp | inLow
	}
}

// parallelRows is the shortest column split across workers.
const parallelRows = 4096

// getQ returns the first n entries of column i of Q.
func (s *smoSolver) getQ(i, n int) []float32 {
	col, start := s.cache.get(i, n)
	if start >= n {
		return col
	}
	if s.workers < 2 || n-start < parallelRows {
		s.fillQ(col, i, start, n)
		return col
	}
	var wg sync.WaitGroup
	step := (n - start + s.workers - 1) / s.workers
	for lo := start + step; lo < n; lo += step {
		wg.Go(func() { s.fillQ(col, i, lo, min(lo+step, n)) })
	}
	s.fillQ(col, i, start, min(start+step, n))
	wg.Wait()
	return col
}

// fillQ sets col[j] = Q_ij = y_i·y_j·K(x_i, x_j) for lo ≤ j < hi.
func (s *smoSolver) fillQ(col []float32, i, lo, hi int) {
	d := s.d
	c := col[lo:hi]
	s.k.Row(c, s.x[lo*d:hi*d], s.xn[lo:hi], s.x[i*d:(i+1)*d])
	yi := s.y[i]
	for j, yj := range s.y[lo:hi] {
		if yj != yi {
			c[j] = -c[j]
		}
	}
}

// solve runs the decomposition until m(α) − M(α) ≤ ε or maxIter updates.
func (s *smoSolver) solve(tk *ticker, maxIter int) (*smoResult, error) {
	l := s.l
	for i := range s.g {
		s.g[i] = -1
		s.gbar[i] = 0
	}
	for i := 0; i < l; i++ {
		if s.status[i] == atLower {
			continue
		}
		q := s.getQ(i, l)
		a := s.alpha[i]
		for j := 0; j < l; j++ {
			s.g[j] += a * float64(q[j])
		}
		if s.status[i] == atUpper {
			for j := 0; j < l; j++ {
				s.gbar[j] += s.c * float64(q[j])
			}
		}
	}
	res := &smoResult{}
	counter := min(l, 1000) + 1
	for res.iter < maxIter {
		if res.iter%1000 == 0 {
			if err := tk.tick(Progress{Step: res.iter, NSV: s.countSV(), Gap: res.gap}); err != nil {
				return nil, err
			}
		}
		counter--
		if counter == 0 {
			counter = min(l, 1000)
			if s.shrinking {
				s.doShrinking()
			}
		}
		i, j, gap := s.selectWorkingSet()
		res.gap = gap
		if j < 0 {
			s.reconstructGradient()
			s.activeSize = l
			i, j, gap = s.selectWorkingSet()
			res.gap = gap
			if j < 0 {
				break
			}
			counter = 1 // shrink at the next iteration
		}
		res.iter++
		s.update(i, j)
	}
	if res.iter >= maxIter {
		res.maxIter = true
		s.reconstructGradient()
		s.activeSize = l
		_, _, res.gap = s.selectWorkingSet()
	}
	res.rho = s.calculateRho()
	var v float64
	for i := 0; i < l; i++ {
		v += s.alpha[i] * (s.g[i] - 1)
	}
	res.obj = v / 2
	res.alpha = make([]float64, l)
	for i := 0; i < l; i++ {
		res.alpha[s.active[i]] = s.alpha[i]
	}
	if err := tk.tick(Progress{Step: res.iter, NSV: s.countSV(), Objective: res.obj, Gap: res.gap}); err != nil {
		return nil, err
	}
	return res, nil
}

func (s *smoSolver) countSV() int {
	n := 0
	for _, st := range s.status {
		if st != atLower {
			n++
		}
	}
	return n
}

// update solves the two-variable subproblem on (i, j) and updates the
// gradient, the status and ḡ (LIBSVM's Solver::Solve loop body).
func (s *smoSolver) update(i, j int) {
	as := s.activeSize
	qi := s.getQ(i, as)
	qj := s.getQ(j, as)
	c := s.c
	ai, aj := s.alpha[i], s.alpha[j]
	oldI, oldJ := ai, aj
	if s.y[i] != s.y[j] {
		quad := s.qd[i] + s.qd[j] + 2*float64(qi[j])
		if quad <= 0 {
			quad = tau
		}
		delta := (-s.g[i] - s.g[j]) / quad
		diff := ai - aj
		ai += delta
		aj += delta
		if diff > 0 {
			if aj < 0 {
				aj = 0
				ai = diff
			}
		} else if ai < 0 {
			ai = 0
			aj = -diff
		}
		if diff > 0 { // diff > C_i − C_j with C_i = C_j
			if ai > c {
				ai = c
				aj = c - diff
			}
		} else if aj > c {
			aj = c
			ai = c + diff
		}
	} else {
		quad := s.qd[i] + s.qd[j] - 2*float64(qi[j])
		if quad <= 0 {
			quad = tau
		}
		delta := (s.g[i] - s.g[j]) / quad
		sum := ai + aj
		ai -= delta
		aj += delta
		if sum > c {
			if ai > c {
				ai = c
				aj = sum - c
			}
		} else if aj < 0 {
			aj = 0
			ai = sum
		}
		if sum > c {
			if aj > c {
				aj = c
				ai = sum - c
			}
		} else if ai < 0 {
			ai = 0
			aj = sum
		}
	}
	s.alpha[i], s.alpha[j] = ai, aj
	dai, daj := ai-oldI, aj-oldJ
	g := s.g[:as]
	qi, qj = qi[:len(g)], qj[:len(g)]
	for k := range g {
		g[k] += float64(qi[k])*dai + float64(qj[k])*daj
	}
	ui, uj := s.status[i] == atUpper, s.status[j] == atUpper
	s.updateStatus(i)
	s.updateStatus(j)
	if ui != (s.status[i] == atUpper) {
		s.addGbar(i, ui)
	}
	if uj != (s.status[j] == atUpper) {
		s.addGbar(j, uj)
	}
}

// addGbar adds (or, if wasUpper, removes) C·Q_i to ḡ.
func (s *smoSolver) addGbar(i int, wasUpper bool) {
	q := s.getQ(i, s.l)
	c := s.c
	if wasUpper {
		c = -c
	}
	gb := s.gbar[:s.l]
	q = q[:len(gb)]
	for k := range gb {
		gb[k] += c * float64(q[k])
	}
}

// selectWorkingSet returns the pair (i, j) of WSS 2 and the violation
// m(α) − M(α) over the active set; j < 0 when the violation is below ε.
//
// i maximises −y_t∇f_t over I_up; j minimises −b²/a over t ∈ I_low with
// b = m(α) + y_t∇f_t > 0 and a = Q_ii + Q_tt − 2·y_i·y_t·Q_it (τ if ≤ 0),
// where y_i·y_t·Q_it = K_it.
func (s *smoSolver) selectWorkingSet() (int, int, float64) {
	as := s.activeSize
	gmax, gmax2 := math.Inf(-1), math.Inf(-1)
	gmaxIdx, gminIdx := -1, -1
	yf, g, set := s.yf[:as], s.g[:as], s.set[:as]
	g = g[:len(yf)]
	set = set[:len(yf)]
	for t, y := range yf {
		if set[t]&inUp != 0 {
			if v := -y * g[t]; v >= gmax {
				gmax = v
				gmaxIdx = t
			}
		}
	}
	i := gmaxIdx
	if i < 0 {
		for t, y := range yf {
			if set[t]&inLow != 0 {
				gmax2 = max(gmax2, y*g[t])
			}
		}
		return -1, -1, gmax + gmax2
	}
	qi := s.getQ(i, as)[:len(yf)]
	qd := s.qd[:len(yf)]
	qdi := s.qd[i]
	yi2 := 2 * s.yf[i]
	objDiffMin := math.Inf(1)
	for t, y := range yf {
		if set[t]&inLow == 0 {
			continue
		}
		v := y * g[t]
		if v >= gmax2 {
			gmax2 = v
		}
		if gd := gmax + v; gd > 0 {
			quad := qdi + qd[t] - yi2*y*float64(qi[t])
			if quad <= 0 {
				quad = tau
			}
			if od := -gd * gd / quad; od <= objDiffMin {
				gminIdx = t
				objDiffMin = od
			}
		}
	}
	gap := gmax + gmax2
	if gap < s.eps || gminIdx < 0 {
		return -1, -1, gap
	}
	return i, gminIdx, gap
}

func (s *smoSolver) beShrunk(i int, gmax1, gmax2 float64) bool {
	switch s.status[i] {
	case atUpper:
		if s.y[i] == 1 {
			return -s.g[i] > gmax1
		}
		return -s.g[i] > gmax2
	case atLower:
		if s.y[i] == 1 {
			return s.g[i] > gmax2
		}
		return s.g[i] > gmax1
	}
	return false
}

// doShrinking moves the variables that LIBSVM's rules deem settled to the
// end of the active set; the first time the violation falls below 10ε it
// reconstructs the gradient and unshrinks everything.
func (s *smoSolver) doShrinking() {
	gmax1, gmax2 := math.Inf(-1), math.Inf(-1)
	for i := 0; i < s.activeSize; i++ {
		g := s.g[i]
		if s.y[i] == 1 {
			if s.status[i] != atUpper {
				gmax1 = max(gmax1, -g)
			}
			if s.status[i] != atLower {
				gmax2 = max(gmax2, g)
			}
		} else {
			if s.status[i] != atUpper {
				gmax2 = max(gmax2, -g)
			}
			if s.status[i] != atLower {
				gmax1 = max(gmax1, g)
			}
		}
	}
	if !s.unshrink && gmax1+gmax2 <= s.eps*10 {
		s.unshrink = true
		s.reconstructGradient()
		s.activeSize = s.l
	}
	for i := 0; i < s.activeSize; i++ {
		if s.beShrunk(i, gmax1, gmax2) {
			s.activeSize--
			for s.activeSize > i {
				if !s.beShrunk(s.activeSize, gmax1, gmax2) {
					s.swapIndex(i, s.activeSize)
					break
				}
				s.activeSize--
			}
		}
	}
}

// reconstructGradient recomputes ∇f for the inactive variables from ḡ and
// the free variables.
func (s *smoSolver) reconstructGradient() {
	l, as := s.l, s.activeSize
	if as == l {
		return
	}
	for j := as; j < l; j++ {
		s.g[j] = s.gbar[j] - 1
	}
	nFree := 0
	for j := 0; j < as; j++ {
		if s.status[j] == isFree {
			nFree++
		}
	}
	if nFree*l > 2*as*(l-as) {
		for i := as; i < l; i++ {
			q := s.getQ(i, as)
			var sum float64
			for j := 0; j < as; j++ {
				if s.status[j] == isFree {
					sum += s.alpha[j] * float64(q[j])
				}
			}
			s.g[i] += sum
		}
	} else {
		for i := 0; i < as; i++ {
			if s.status[i] != isFree {
				continue
			}
			q := s.getQ(i, l)
			a := s.alpha[i]
			for j := as; j < l; j++ {
				s.g[j] += a * float64(q[j])
			}
		}
	}
}

// swapIndex exchanges positions i and j everywhere.
func (s *smoSolver) swapIndex(i, j int) {
	s.cache.swap(i, j)
	d := s.d
	xi, xj := s.x[i*d:(i+1)*d], s.x[j*d:(j+1)*d]
	copy(s.tmp, xi)
	copy(xi, xj)
	copy(xj, s.tmp)
	s.xn[i], s.xn[j] = s.xn[j], s.xn[i]
	s.y[i], s.y[j] = s.y[j], s.y[i]
	s.yf[i], s.yf[j] = s.yf[j], s.yf[i]
	s.set[i], s.set[j] = s.set[j], s.set[i]
	s.qd[i], s.qd[j] = s.qd[j], s.qd[i]
	s.alpha[i], s.alpha[j] = s.alpha[j], s.alpha[i]
	s.g[i], s.g[j] = s.g[j], s.g[i]
	s.gbar[i], s.gbar[j] = s.gbar[j], s.gbar[i]
	s.status[i], s.status[j] = s.status[j], s.status[i]
	s.active[i], s.active[j] = s.active[j], s.active[i]
}

// calculateRho returns ρ: the mean of y_i∇f_i over free variables, or the
// middle of [max lower, min upper] when there are none.
func (s *smoSolver) calculateRho() float64 {
	ub, lb := math.Inf(1), math.Inf(-1)
	var sumFree float64
	nFree := 0
	for i := 0; i < s.activeSize; i++ {
		yg := float64(s.y[i]) * s.g[i]
		switch s.status[i] {
		case atUpper:
			if s.y[i] == -1 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		case atLower:
			if s.y[i] == 1 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		default:
			nFree++
			sumFree += yg
		}
	}
	if nFree > 0 {
		return sumFree / float64(nFree)
	}
	return (ub + lb) / 2
}

// mM returns m(α) and M(α) over all variables from the final gradient
// (only valid after solve).
func (s *smoSolver) mM() (m, bigM float64) {
	m, bigM = math.Inf(-1), math.Inf(1)
	for i := 0; i < s.l; i++ {
		v := -float64(s.y[i]) * s.g[i]
		up := (s.y[i] == 1 && s.status[i] != atUpper) || (s.y[i] == -1 && s.status[i] != atLower)
		low := (s.y[i] == 1 && s.status[i] != atLower) || (s.y[i] == -1 && s.status[i] != atUpper)
		if up {
			m = max(m, v)
		}
		if low {
			bigM = min(bigM, v)
		}
	}
	return m, bigM
}
