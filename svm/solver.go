package svm

import (
	"math"
)

const (
	atLower int8 = iota
	atUpper
	isFree
)

// tau replaces a non-positive curvature a_ij in working-set selection and
// in the pair update (LIBSVM's TAU).
const tau = 1e-12

// smoSolver is LIBSVM's Solver (Chang & Lin 2011, §4; svm.cpp): it minimises
//
//	f(α) = ½·αᵀQα + pᵀα   s.t.  0 ≤ α_i ≤ C_i,  yᵀα = Δ,
//
// over l variables with y_i ∈ {−1, +1}, C_i = Cp for y_i = +1 and Cn for
// y_i = −1, or a bound of its own per variable (point weights, as in
// LIBSVM's instance-weight version), from a feasible start α⁰ (which fixes Δ). The formulations are
// adapters that choose Q (a qMatrix), p, y and the bounds:
//
//	C-SVC   l points, Q_ij = y_i·y_j·K_ij, p = −e, Cp = C·w₊, Cn = C·w₋,
//	        or C_i = C·W_i·w_{y_i} with point weights W
//	ε-SVR   2l variables (α, α*) over l points: y = (e, −e),
//	        Q = [K −K; −K K], p = (ε·e − z, ε·e + z), Cp = Cn = C
//
// The variables are permuted so that the active (unshrunk) ones come first:
// positions 0 … activeSize−1. y, qd, p, alpha, g, gbar and status are in
// that order (q keeps its own data in the same order); active maps a
// position to the original index.
type smoSolver struct {
	tk         *ticker // the running solve's
	q          qMatrix
	svc        *svcQ // q when it is the dense C-SVC Q, called without dispatch
	unitP      bool  // p = −e (C-SVC): swaps leave p alone
	l          int
	y          []int8
	yf         []float64 // y as ±1.0
	set        []uint8   // inUp | inLow: membership of I_up(α), I_low(α)
	qd         []float64 // Q_ii
	p          []float64 // linear term
	alpha      []float64
	g          []float64 // ∇f(α) = Qα + p (exact for active positions)
	gbar       []float64 // Σ_{j at upper bound} C_j·Q_ij
	status     []int8
	active     []int32
	activeSize int
	cp, cn     float64
	cw         []float64 // per-variable bounds C_i, or nil: cp, cn by sign
	eps        float64
	shrinking  bool
	unshrink   bool
	// nu selects LIBSVM's Solver_NU: the working pair is chosen within one
	// sign, and there are two ρ's, one per sign (see solvernu.go).
	nu bool
}

type smoResult struct {
	alpha    []float64 // in the original order
	bound    []float64 // the per-variable bounds in the original order, or nil
	rho, obj float64
	r        float64 // Solver_NU: (r₁ + r₂)/2, the mean of the two ρ's
	gap      float64
	iter     int
	maxIter  bool
}

// newSolver sets up the problem of l variables with signs y, linear term p
// (nil: −e), bounds cp, cn and starting point alpha0 (nil: 0), which must be
// feasible. y, p and alpha0 are copied.
func newSolver(q qMatrix, l int, y []int8, p []float64, cp, cn float64, alpha0 []float64, cfg SMOConfig) *smoSolver {
	return newSolverW(q, l, y, p, cp, cn, nil, alpha0, cfg)
}

// newSolverW is newSolver with a bound of its own for every variable, cw
// (copied), unless cw is nil.
func newSolverW(q qMatrix, l int, y []int8, p []float64, cp, cn float64, cw []float64, alpha0 []float64, cfg SMOConfig) *smoSolver {
	s := &smoSolver{
		q: q, l: l,
		y:          append([]int8(nil), y[:l]...),
		yf:         make([]float64, l),
		set:        make([]uint8, l),
		qd:         make([]float64, l),
		p:          make([]float64, l),
		alpha:      make([]float64, l),
		g:          make([]float64, l),
		gbar:       make([]float64, l),
		status:     make([]int8, l),
		active:     make([]int32, l),
		cp:         cp,
		cn:         cn,
		eps:        cfg.Eps,
		shrinking:  !cfg.NoShrinking,
		activeSize: l,
	}
	s.svc, _ = q.(*svcQ)
	s.unitP = p == nil
	if cw != nil {
		s.cw = append([]float64(nil), cw[:l]...)
	}
	for i := 0; i < l; i++ {
		s.yf[i] = float64(s.y[i])
		s.qd[i] = q.diag(i)
		s.active[i] = int32(i)
		if p != nil {
			s.p[i] = p[i]
		} else {
			s.p[i] = -1
		}
		if alpha0 != nil {
			s.alpha[i] = alpha0[i]
		}
		s.updateStatus(i)
	}
	return s
}

// getQ returns the first n entries of column i of Q.
func (s *smoSolver) getQ(i, n int) []float32 {
	if s.svc != nil {
		return s.svc.getQ(i, n)
	}
	return s.q.getQ(i, n)
}

// cOf returns the upper bound C_i of position i.
func (s *smoSolver) cOf(i int) float64 {
	if s.cw != nil {
		return s.cw[i]
	}
	if s.y[i] > 0 {
		return s.cp
	}
	return s.cn
}

// Bits of smoSolver.set.
const (
	inUp  uint8 = 1 // i ∈ I_up(α):  y_i = +1, α_i < C_i  or  y_i = −1, α_i > 0
	inLow uint8 = 2 // i ∈ I_low(α): y_i = +1, α_i > 0  or  y_i = −1, α_i < C_i
)

func (s *smoSolver) updateStatus(i int) {
	switch {
	case s.alpha[i] >= s.cOf(i):
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

// solve runs the decomposition until m(α) − M(α) ≤ ε or maxIter updates.
func (s *smoSolver) solve(tk *ticker, maxIter int) (*smoResult, error) {
	l := s.l
	s.tk = tk
	defer func() { s.tk = nil }()
	copy(s.g, s.p)
	clear(s.gbar)
	for i := 0; i < l; i++ {
		if s.status[i] == atLower {
			continue
		}
		if tk.stopped() {
			return nil, tk.stop(0)
		}
		q := s.getQ(i, l)
		a := s.alpha[i]
		for j := 0; j < l; j++ {
			s.g[j] += a * float64(q[j])
		}
		if s.status[i] == atUpper {
			c := s.cOf(i)
			for j := 0; j < l; j++ {
				s.gbar[j] += c * float64(q[j])
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
		} else if tk.stopped() {
			return nil, tk.stop(res.iter)
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
	if tk.stopped() {
		// reconstructGradient may have stopped half-way.
		return nil, tk.stop(res.iter)
	}
	if s.nu {
		res.rho, res.r = s.calculateRhoNu()
	} else {
		res.rho = s.calculateRho()
	}
	var v float64
	for i := 0; i < l; i++ {
		v += s.alpha[i] * (s.g[i] + s.p[i])
	}
	res.obj = v / 2
	res.alpha = make([]float64, l)
	for i := 0; i < l; i++ {
		res.alpha[s.active[i]] = s.alpha[i]
	}
	if s.cw != nil {
		res.bound = make([]float64, l)
		for i := 0; i < l; i++ {
			res.bound[s.active[i]] = s.cw[i]
		}
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

// clipSum moves (a, b) along a + b = sum back into a ≤ c (when sum > c)
// or b ≥ 0 (otherwise): LIBSVM's clipping of a same-sign pair for the bound
// c of a, applied for each variable of the pair in turn.
func clipSum(a, b, sum, c float64) (float64, float64) {
	if sum > c {
		if a > c {
			return c, sum - c
		}
	} else if b < 0 {
		return sum, 0
	}
	return a, b
}

// update solves the two-variable subproblem on (i, j) and updates the
// gradient, the status and ḡ (LIBSVM's Solver::Solve loop body).
func (s *smoSolver) update(i, j int) {
	as := s.activeSize
	qi := s.getQ(i, as)
	qj := s.getQ(j, as)
	ci, cj := s.cOf(i), s.cOf(j)
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
		if diff > ci-cj {
			if ai > ci {
				ai = ci
				aj = ci - diff
			}
		} else if aj > cj {
			aj = cj
			ai = cj + diff
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
		ai, aj = clipSum(ai, aj, sum, ci)
		aj, ai = clipSum(aj, ai, sum, cj)
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

// addGbar adds (or, if wasUpper, removes) C_i·Q_i to ḡ.
func (s *smoSolver) addGbar(i int, wasUpper bool) {
	q := s.getQ(i, s.l)
	c := s.cOf(i)
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
// b = m(α) + y_t∇f_t > 0 and a = Q_ii + Q_tt − 2·y_i·y_t·Q_it (τ if ≤ 0).
func (s *smoSolver) selectWorkingSet() (int, int, float64) {
	if s.nu {
		return s.selectWorkingSetNu()
	}
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
	if s.nu {
		s.doShrinkingNu()
		return
	}
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
		s.g[j] = s.gbar[j] + s.p[j]
	}
	nFree := 0
	for j := 0; j < as; j++ {
		if s.status[j] == isFree {
			nFree++
		}
	}
	if nFree*l > 2*as*(l-as) {
		for i := as; i < l; i++ {
			if s.tk != nil && s.tk.stopped() {
				return // solve returns the context's error
			}
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
			if s.tk != nil && s.tk.stopped() {
				return // solve returns the context's error
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
	s.q.swap(i, j)
	s.y[i], s.y[j] = s.y[j], s.y[i]
	s.yf[i], s.yf[j] = s.yf[j], s.yf[i]
	s.set[i], s.set[j] = s.set[j], s.set[i]
	s.qd[i], s.qd[j] = s.qd[j], s.qd[i]
	if !s.unitP {
		s.p[i], s.p[j] = s.p[j], s.p[i]
	}
	s.alpha[i], s.alpha[j] = s.alpha[j], s.alpha[i]
	s.g[i], s.g[j] = s.g[j], s.g[i]
	s.gbar[i], s.gbar[j] = s.gbar[j], s.gbar[i]
	if s.cw != nil {
		s.cw[i], s.cw[j] = s.cw[j], s.cw[i]
	}
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
