package svm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/kernel"
)

// DCDLoss selects the loss of the dual coordinate descent solvers.
type DCDLoss int

const (
	// SquaredHinge is the L2 loss max(0, 1 − y·wᵀx)² (LIBLINEAR -s 1;
	// for regression max(0, |y − wᵀx| − ε)², -s 12). The default.
	SquaredHinge DCDLoss = iota
	// Hinge is the L1 loss max(0, 1 − y·wᵀx) (LIBLINEAR -s 3; for
	// regression max(0, |y − wᵀx| − ε), -s 13).
	Hinge
	// Logistic is the logistic loss log(1 + exp(−y·wᵀx)) of L2-regularised
	// logistic regression (LIBLINEAR -s 7); classification only.
	Logistic
)

func (l DCDLoss) String() string {
	switch l {
	case SquaredHinge:
		return "l2"
	case Hinge:
		return "l1"
	case Logistic:
		return "lr"
	}
	return "DCDLoss(" + strconv.Itoa(int(l)) + ")"
}

// LinearDCDConfig configures LinearDCD. The zero value is LIBLINEAR's
// default solver with a bias feature (liblinear-train -s 1 -B 1): squared
// hinge loss, C = 1, tolerance 0.1, at most 1000 epochs, shrinking on.
type LinearDCDConfig struct {
	// Loss is SquaredHinge (default), Hinge or Logistic.
	Loss DCDLoss
	// C is the cost C > 0 (default 1; -c).
	C float64
	// WeightPos and WeightNeg scale C for class +1 and −1 (default 1
	// each; -w1, -w-1).
	WeightPos, WeightNeg float64
	// Eps is the stopping tolerance (default 0.1; -e): on the spread of the
	// projected gradient max PG − min PG within an epoch for the hinge
	// losses, on the largest |g'(z)| of the one-variable problems within an
	// epoch for Logistic.
	Eps float64
	// MaxEpochs caps the passes over the data (default 1000, LIBLINEAR's
	// max_iter). Reaching it is not an error: Info["max_iter_reached"] is
	// set.
	MaxEpochs int
	// NoBias leaves out the bias feature (-B −1).
	NoBias bool
	// BiasValue is the value B of the constant feature appended to every
	// point when NoBias is false (default 1; -B B).
	BiasValue float64
	// NoShrinking visits every variable in every epoch (LIBLINEAR always
	// shrinks). Logistic never shrinks.
	NoShrinking bool
}

// Validate reports whether the configuration is usable.
func (c LinearDCDConfig) Validate() error { return c.validate("LinearDCD") }

// validate is Validate with the solver's name in the messages. The
// regression solver (LinearDCDSVR) has no logistic loss.
func (c LinearDCDConfig) validate(name string) error {
	if c.Loss != SquaredHinge && c.Loss != Hinge && (c.Loss != Logistic || name == "LinearDCDSVR") {
		return fmt.Errorf("svm: %s: unknown loss %v", name, c.Loss)
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"C", c.C}, {"eps", c.Eps}, {"class weights", c.WeightPos}, {"class weights", c.WeightNeg}, {"bias value", c.BiasValue}} {
		if v.v < 0 || math.IsNaN(v.v) || math.IsInf(v.v, 0) {
			return fmt.Errorf("svm: %s: %s must be > 0, got %g", name, v.name, v.v)
		}
	}
	if c.MaxEpochs < 0 {
		return fmt.Errorf("svm: %s: max epochs must be ≥ 0, got %d", name, c.MaxEpochs)
	}
	return nil
}

func (c LinearDCDConfig) withDefaults() LinearDCDConfig {
	c.C = cmp.Or(c.C, 1)
	c.WeightPos = cmp.Or(c.WeightPos, 1)
	c.WeightNeg = cmp.Or(c.WeightNeg, 1)
	c.Eps = cmp.Or(c.Eps, 0.1)
	c.MaxEpochs = cmp.Or(c.MaxEpochs, 1000)
	c.BiasValue = cmp.Or(c.BiasValue, 1)
	if c.NoBias {
		c.BiasValue = 0
	}
	return c
}

// LinearDCD trains a linear classifier by dual coordinate descent. With
// x̃_i = (x_i, B) (B the bias feature, regularised like every weight, as
// LIBLINEAR's -B) it solves
//
//	min_w  ½‖w‖² + Σ_i C_i·ξ(w; x̃_i, y_i),   C_i = C·W_i·(WeightPos or WeightNeg),
//
// W_i the point's weight (Problem.W, 1 without weights); a point of weight
// 0 takes no part. The rows may be dense or sparse (Problem.Sparse).
//
// For the hinge losses, ξ = max(0, 1 − y_i·wᵀx̃_i) (Hinge) or its square
// (SquaredHinge), it follows Hsieh, Chang, Lin, Keerthi & Sundararajan, "A
// dual coordinate descent method for large-scale linear SVM", ICML 2008,
// Algorithm 1 with the shrinking of Algorithm 3 (LIBLINEAR's
// solve_l2r_l1l2_svc, per-point costs as in its instance-weights version)
// on the dual
//
//	min_α  ½αᵀ(Q + D)α − eᵀα,  0 ≤ α_i ≤ U_i,   Q_ij = y_i·y_j·x̃_iᵀx̃_j,
//
// with U_i = C_i, D = 0 for Hinge and U_i = ∞, D_ii = 1/(2C_i) for
// SquaredHinge, keeping w = Σ_i α_i·y_i·x̃_i. Each epoch visits the active
// variables in a random order (a Fisher–Yates shuffle drawn from rng, as
// LIBLINEAR's rand() loop) and minimises over α_i exactly:
// G = y_i·wᵀx̃_i − 1 + D_ii·α_i, α_i ← min(max(α_i − G/(Q_ii + D_ii), 0), U_i),
// w ← w + Δα_i·y_i·x̃_i. A variable at a bound whose projected gradient
// lies beyond the previous epoch's extremes is shrunk (removed from the
// active set); the run stops when max PG − min PG ≤ Eps over an epoch on
// the full set (after shrinking, the full set is restored and checked once
// more), or after MaxEpochs epochs.
//
// For Logistic, ξ = log(1 + exp(−y_i·wᵀx̃_i)), it is the dual coordinate
// descent of Yu, Huang & Lin, "Dual coordinate descent methods for logistic
// regression and maximum entropy models", Machine Learning 85, 2011,
// Algorithm 5 (LIBLINEAR's solve_l2r_lr_dual, -s 7), on
//
//	min_α  ½αᵀQα + Σ_i α_i·log α_i + (C_i − α_i)·log(C_i − α_i),  0 < α_i < C_i:
//
// each visit solves the one-variable problem in α_i or in C_i − α_i
// (whichever the gradient points to) by a guarded Newton iteration to the
// inner tolerance (10⁻² at first, divided by 10 whenever an epoch takes few
// Newton steps, down to min(10⁻⁸, Eps)); no shrinking; the run stops when
// every variable's first-step derivative is below Eps in magnitude.
//
// The model has a linear kernel and one row w (Coef = [1]) with
// Bias = w_B·B, so Decision(x) = wᵀx + w_B·B. Info holds "objective" (the
// dual objective at the end, what liblinear-train prints: ½αᵀ(Q+D)α − eᵀα,
// or for Logistic ½‖w‖² + Σ α_i·log α_i + (C_i − α_i)·log(C_i − α_i) −
// C_i·log C_i), "primal_objective", "epochs", "nsv" (α_i > 0 for the hinge
// losses), "C" and "loss".
func LinearDCD(ctx context.Context, p Problem, cfg LinearDCDConfig, rng *rand.Rand, progress ProgressFunc) (*Model, error) {
	cfg, err := checkDCD(p, cfg, rng, "LinearDCD")
	if err != nil {
		return nil, err
	}
	s := newDCD(p, cfg)
	tk := newTicker(ctx, progress)
	epochs, gap, err := s.run(&tk, rng)
	if err != nil {
		return nil, err
	}
	m := s.model(cfg, epochs, gap)
	m.Info["primal_objective"] = fmtF(s.primalObjective())
	return m, nil
}

// checkDCD validates the inputs of LinearDCD and LinearDCDPath (named in
// the errors) and returns the configuration with its defaults.
func checkDCD(p Problem, cfg LinearDCDConfig, rng *rand.Rand, name string) (LinearDCDConfig, error) {
	if err := p.Validate(); err != nil {
		return cfg, err
	}
	if err := cfg.validate(name); err != nil {
		return cfg, err
	}
	if rng == nil {
		return cfg, fmt.Errorf("svm: %s: no random source", name)
	}
	if p.W != nil && !slices.ContainsFunc(p.W, func(w float32) bool { return w > 0 }) {
		return cfg, fmt.Errorf("svm: %s: every point has weight 0", name)
	}
	return cfg.withDefaults(), nil
}

// model returns the trained model after a run of epochs epochs that ended
// at the stopping measure gap (without the primal objective, which costs a
// pass over the points).
func (s *dcd) model(cfg LinearDCDConfig, epochs int, gap float64) *Model {
	p := s.p
	nsv := 0
	for _, v := range s.v {
		if v.alpha > 0 {
			nsv++
		}
	}
	m := linearModel(s.w[:p.D], s.w[p.D]*s.bias, map[string]string{
		"solver":    "linear-dcd",
		"loss":      cfg.Loss.String(),
		"C":         fmtF(cfg.C),
		"eps":       fmtF(cfg.Eps),
		"bias":      fmtF(s.bias),
		"epochs":    strconv.Itoa(epochs),
		"objective": fmtF(s.dualObjective()),
		"gap":       fmtF(gap),
		"nsv":       strconv.Itoa(nsv),
	})
	if cfg.WeightPos != 1 || cfg.WeightNeg != 1 {
		m.Info["weight_pos"] = fmtF(cfg.WeightPos)
		m.Info["weight_neg"] = fmtF(cfg.WeightNeg)
	}
	if p.W != nil {
		m.Info["weighted"] = "true"
	}
	if !s.st.converged {
		m.Info["max_iter_reached"] = "true"
	}
	return m
}

// dcd is the state of a LinearDCD run. The points stay in the problem; w has
// D + 1 entries, the last the weight of the bias feature (B = bias, 0
// without one). The variables in play, those of the points of weight > 0,
// are index[:l]; the others stay at α = 0.
type dcd struct {
	p         Problem
	loss      DCDLoss
	bias      float64
	w         []float64
	v         []dcdVar
	index     []int32 // the epoch's order; the active set is index[:active]
	sink      float32 // keeps the prefetching loads of epoch alive
	l, active int
	eps       float64
	maxEpochs int
	noShrink  bool
	cost      [2]float64 // C times the class weight, by class
	// upper and diag are U_i and D_ii by class for the hinge losses (U = ∞
	// for SquaredHinge, D = 0 for Hinge).
	upper, diag [2]float64
	// aux holds a second number per point where one is needed, nil
	// otherwise: U_i (Hinge) or D_ii (SquaredHinge) of a weighted problem,
	// and for Logistic the complement C_i − α_i, kept apart from α_i as
	// LIBLINEAR keeps it so that it does not lose its digits when α_i is
	// near C_i.
	aux      []float64
	innerEps float64 // Logistic: the tolerance of the Newton iterations
	st       runState
}

// dcdVar is the state of one dual variable, kept together so that a visit
// in random order touches one cache line of it.
type dcdVar struct {
	alpha float64
	qd    float64 // Q_ii + D_ii
	cls   uint8   // 0: y = −1, 1: y = +1
}

func newDCD(p Problem, cfg LinearDCDConfig) *dcd {
	s := &dcd{
		p: p, loss: cfg.Loss, bias: cfg.BiasValue,
		w:         make([]float64, p.D+1),
		v:         make([]dcdVar, p.N),
		index:     make([]int32, 0, p.N),
		eps:       cfg.Eps,
		maxEpochs: cfg.MaxEpochs,
		noShrink:  cfg.NoShrinking,
		cost:      [2]float64{cfg.C * cfg.WeightNeg, cfg.C * cfg.WeightPos},
	}
	for i := 0; i < p.N; i++ {
		v := &s.v[i]
		if p.Y[i] > 0 {
			v.cls = 1
		}
		if p.weight(i) > 0 {
			s.index = append(s.index, int32(i))
		}
	}
	s.l = len(s.index)
	if s.loss == Logistic || p.W != nil {
		s.aux = make([]float64, p.N)
	}
	s.init(nil)
	return s
}

// inPlay reports whether point i has a variable in play (weight > 0).
func (s *dcd) inPlay(i int) bool { return s.p.W == nil || s.p.W[i] > 0 }

// costOf returns C_i, point i's cost.
func (s *dcd) costOf(i int) float64 {
	c := s.cost[s.v[i].cls]
	if s.p.W != nil {
		c *= float64(s.p.W[i])
	}
	return c
}

// init sets the per-point constants from the current costs and α: the
// initial point (LIBLINEAR's: α = 0, for Logistic α_i = min(0.001·C_i,
// 10⁻⁸)) when alpha is nil, else α_i = min(alpha_i, U_i) (for Logistic
// alpha holds α_i and C_i − α_i in pairs); then w = Σ α_i·y_i·x̃_i.
func (s *dcd) init(alpha []float64) {
	if s.loss == SquaredHinge {
		s.upper = [2]float64{math.Inf(1), math.Inf(1)}
		s.diag = [2]float64{0.5 / s.cost[0], 0.5 / s.cost[1]}
	} else {
		s.upper, s.diag = s.cost, [2]float64{}
	}
	b2 := s.bias * s.bias
	clear(s.w)
	d := s.p.D
	for i := range s.v {
		if !s.inPlay(i) {
			continue
		}
		v := &s.v[i]
		c := s.costOf(i)
		x := s.p.vec(i)
		nrm := x.SqNorm() + b2
		v.qd = nrm
		v.alpha = 0
		switch s.loss {
		case SquaredHinge:
			dg := s.diag[v.cls]
			if s.aux != nil {
				dg = 0.5 / c
				s.aux[i] = dg
			}
			v.qd += dg
			if alpha != nil {
				v.alpha = alpha[i]
			}
		case Hinge:
			if s.aux != nil {
				s.aux[i] = c
			}
			if alpha != nil {
				v.alpha = min(alpha[i], c)
			}
		case Logistic:
			if alpha != nil {
				v.alpha, s.aux[i] = alpha[2*i], alpha[2*i+1]
			} else {
				v.alpha = min(0.001*c, 1e-8)
				s.aux[i] = c - v.alpha
			}
		}
		if v.alpha != 0 {
			a := v.alpha
			if v.cls == 0 {
				a = -a
			}
			x.AddTo(s.w[:d], a)
			s.w[d] += a * s.bias
		}
	}
	s.active = s.l
}

// runState is the state of a run between epochs, kept in the solver so
// that a run stopped at a bound of epochs (LinearPath) continues exactly as
// if it had not stopped.
type runState struct {
	epochs             int
	pgMaxOld, pgMinOld float64 // the previous epoch's extremes of the projected gradient
	gap                float64 // the last epoch's stopping measure
	converged          bool
}

// run performs epochs until the stopping rule holds; it returns the number
// of epochs and the last epoch's stopping measure (max PG − min PG, or for
// Logistic the largest |g'|).
func (s *dcd) run(tk *ticker, rng *rand.Rand) (int, float64, error) {
	s.begin()
	if err := s.advance(tk, rng, s.maxEpochs); err != nil {
		return 0, 0, err
	}
	if err := tk.tick(Progress{Step: s.st.epochs, Total: s.maxEpochs, NSV: s.active, Gap: s.st.gap, Objective: s.dualObjective()}); err != nil {
		return 0, 0, err
	}
	return s.st.epochs, s.st.gap, nil
}

// begin starts a run from the current α: every variable active, no
// extremes of an earlier epoch, Logistic's inner tolerance at 10⁻².
func (s *dcd) begin() {
	s.st = runState{pgMaxOld: math.Inf(1), pgMinOld: math.Inf(-1)}
	s.active = s.l
	s.innerEps = 1e-2
}

// advance performs epochs of the current run until the stopping rule holds
// or the run has had maxEpochs epochs.
func (s *dcd) advance(tk *ticker, rng *rand.Rand, maxEpochs int) error {
	l := s.l
	st := &s.st
	for !st.converged && st.epochs < maxEpochs {
		if err := tk.tick(Progress{Step: st.epochs, Total: s.maxEpochs, NSV: s.active, Gap: st.gap}); err != nil {
			return err
		}
		act := s.index[:s.active]
		for i := range act {
			j := i + rng.IntN(len(act)-i)
			act[i], act[j] = act[j], act[i]
		}
		if s.loss == Logistic {
			var newton int
			st.gap, newton = s.epochLR()
			st.epochs++
			if st.gap < s.eps {
				st.converged = true
				break
			}
			if newton <= l/10 {
				s.innerEps = max(min(1e-8, s.eps), 0.1*s.innerEps)
			}
			continue
		}
		pgMax, pgMin := s.epoch(st.pgMaxOld, st.pgMinOld)
		st.epochs++
		st.gap = pgMax - pgMin
		if st.gap <= s.eps {
			if s.active == l {
				st.converged = true
				break
			}
			s.active = l
			st.pgMaxOld, st.pgMinOld = math.Inf(1), math.Inf(-1)
			continue
		}
		st.pgMaxOld, st.pgMinOld = pgMax, pgMin
		if st.pgMaxOld <= 0 {
			st.pgMaxOld = math.Inf(1)
		}
		if st.pgMinOld >= 0 {
			st.pgMinOld = math.Inf(-1)
		}
	}
	return nil
}

// epoch runs one pass over the active variables in the order of
// index[:active], shrinking those at a bound whose projected gradient lies
// beyond (pgMinOld, pgMaxOld); it returns the extremes of the projected
// gradient over the variables it kept. It reads the data only through that
// order (one point per visit, w updated in place), so a pass over blocks of
// points streamed from elsewhere would have the same shape.
func (s *dcd) epoch(pgMaxOld, pgMinOld float64) (pgMax, pgMin float64) {
	if s.noShrink {
		pgMaxOld, pgMinOld = math.Inf(1), math.Inf(-1)
	}
	pgMax, pgMin = math.Inf(-1), math.Inf(1)
	d := s.p.D
	w, wb, b := s.w[:d], s.w[d], s.bias
	rows := linRowsOf(s.p)
	index, vars, active := s.index, s.v, s.active
	signs := [2]float64{-1, 1}
	var sink float32
	for k := 0; k < active; k++ {
		// The visits are in random order: load the point and the variable
		// of a later visit now, so that their cache misses overlap with
		// this one's work.
		if k+dcdPrefetch < active {
			j := int(index[k+dcdPrefetch])
			sink += rows.touch(j) + float32(vars[j].cls)
		}
		i := index[k]
		idx, val := rows.parts(int(i))
		v := &vars[i]
		c := v.cls & 1
		yi := signs[c]
		var dot float64
		if idx == nil {
			dot = vec.DotMixed(w, val)
		} else {
			dot = dotSparse(w, idx, val)
		}
		g := yi*(dot+wb*b) - 1
		a := v.alpha
		u, dg := s.upper[c], s.diag[c]
		if s.aux != nil { // a weighted problem: U_i or D_ii by point
			if s.loss == SquaredHinge {
				dg = s.aux[i]
			} else {
				u = s.aux[i]
			}
		}
		g += a * dg
		pg := 0.0
		switch {
		case a == 0:
			if g > pgMaxOld {
				active--
				index[k], index[active] = index[active], index[k]
				k--
				continue
			}
			if g < 0 {
				pg = g
			}
		case a == u:
			if g < pgMinOld {
				active--
				index[k], index[active] = index[active], index[k]
				k--
				continue
			}
			if g > 0 {
				pg = g
			}
		default:
			pg = g
		}
		// (Comparisons rather than max and min, which would also order
		// ±0 and NaN: one of each is in every epoch's visits.)
		if pg > pgMax {
			pgMax = pg
		}
		if pg < pgMin {
			pgMin = pg
		}
		if math.Abs(pg) > 1e-12 {
			na := min(max(a-g/v.qd, 0), u)
			v.alpha = na
			step := (na - a) * yi
			if idx == nil {
				axpyDense(w, val, step)
			} else {
				axpySparse(w, idx, val, step)
			}
			wb += step * b
		}
	}
	s.active = active
	s.w[d] = wb
	s.sink = sink
	return pgMax, pgMin
}

// dcdPrefetch is how many visits ahead epoch touches a point's data.
const dcdPrefetch = 8

// epochLR runs one pass of the logistic solver over index[:l] (LIBLINEAR's
// solve_l2r_lr_dual): for each variable it picks the one-variable problem
//
//	min_z  g(z) = z·log z + (C − z)·log(C − z) + ½a·(z − z₀)² + σ·b·(z − z₀)
//
// in z = α_i (σ = 1) or z = C_i − α_i (σ = −1), a = x̃_iᵀx̃_i,
// b = y_i·wᵀx̃_i, as the sign of the gradient directs, and takes guarded
// Newton steps (a step that would leave (0, C) shrinks z tenfold instead)
// until |g'(z)| < innerEps. It returns the largest |g'| met at the start of
// a variable's iteration and the number of Newton steps taken.
func (s *dcd) epochLR() (gmax float64, newton int) {
	const maxInner = 100
	d := s.p.D
	w, wb, b := s.w[:d], s.w[d], s.bias
	innerEps := s.innerEps
	rows := linRowsOf(s.p)
	var sink float32
	for k := 0; k < s.l; k++ {
		if k+dcdPrefetch < s.l {
			j := int(s.index[k+dcdPrefetch])
			sink += rows.touch(j) + float32(s.v[j].cls)
		}
		i := int(s.index[k])
		idx, val := rows.parts(i)
		v := &s.v[i]
		yi := -1.0
		if v.cls == 1 {
			yi = 1
		}
		c := s.costOf(i)
		qa, qb := v.qd, yi*(dotRow(w, idx, val)+wb*b)
		sign := 1.0
		z0 := v.alpha
		if 0.5*qa*(s.aux[i]-v.alpha)+qb < 0 {
			sign, z0 = -1, s.aux[i]
		}
		z := z0
		if c-z < 0.5*c {
			z *= 0.1
		}
		gp := qa*(z-z0) + sign*qb + math.Log(z/(c-z))
		gmax = max(gmax, math.Abs(gp))
		inner := 0
		for inner <= maxInner && math.Abs(gp) >= innerEps {
			gpp := qa + c/(c-z)/z
			if t := z - gp/gpp; t <= 0 {
				z *= 0.1
			} else {
				z = t
			}
			gp = qa*(z-z0) + sign*qb + math.Log(z/(c-z))
			inner++
		}
		newton += inner
		if inner > 0 {
			if sign > 0 {
				v.alpha, s.aux[i] = z, c-z
			} else {
				v.alpha, s.aux[i] = c-z, z
			}
			step := sign * (z - z0) * yi
			axpyRow(w, idx, val, step)
			wb += step * b
		}
	}
	s.w[d] = wb
	s.sink = sink
	return gmax, newton
}

// dualObjective returns the dual objective (LIBLINEAR's "Objective value"):
// ½‖w‖² + ½Σ D_ii·α_i² − Σ α_i for the hinge losses, ½‖w‖² +
// Σ α_i·log α_i + (C_i − α_i)·log(C_i − α_i) − C_i·log C_i for Logistic.
func (s *dcd) dualObjective() float64 {
	v := halfSqNorm(s.w)
	for k := range s.v {
		if !s.inPlay(k) {
			continue
		}
		a := s.v[k].alpha
		switch s.loss {
		case SquaredHinge:
			dg := s.diag[s.v[k].cls]
			if s.aux != nil {
				dg = s.aux[k]
			}
			v += a * (a*dg - 2) / 2
		case Hinge:
			v -= a
		case Logistic:
			c, r := s.costOf(k), s.aux[k]
			v += a*math.Log(a) + r*math.Log(r) - c*math.Log(c)
		}
	}
	return v
}

// primalObjective returns ½‖w‖² + Σ C_i·ξ_i.
func (s *dcd) primalObjective() float64 {
	d := s.p.D
	v := halfSqNorm(s.w)
	for i := range s.v {
		if !s.inPlay(i) {
			continue
		}
		y := -1.0
		if s.v[i].cls == 1 {
			y = 1
		}
		x := s.p.vec(i)
		m := y * (dotRow(s.w[:d], x.Idx, x.Val) + s.w[d]*s.bias)
		var xi float64
		switch s.loss {
		case SquaredHinge:
			xi = max(0, 1-m)
			xi *= xi
		case Hinge:
			xi = max(0, 1-m)
		case Logistic:
			xi = logistic(m)
		}
		v += s.costOf(i) * xi
	}
	return v
}

// logistic returns log(1 + exp(−m)) without overflow.
func logistic(m float64) float64 {
	if m >= 0 {
		return math.Log1p(math.Exp(-m))
	}
	return -m + math.Log1p(math.Exp(m))
}

// halfSqNorm returns ½‖w‖², the regulariser of the linear solvers' primal
// and dual objectives.
func halfSqNorm(w []float64) float64 {
	var v float64
	for _, x := range w {
		v += x * x
	}
	return v / 2
}

// linearModel returns the model of a linear solver: the weights w (one
// support vector, stored as float32, with coefficient 1), the bias and the
// solver's Info.
func linearModel(w []float64, bias float64, info map[string]string) *Model {
	sv := make([]float32, len(w))
	for j, v := range w {
		sv[j] = float32(v)
	}
	return &Model{
		Kernel: kernel.Linear{}.Spec(), SV: sv, NSV: 1, D: len(w), Coef: []float64{1},
		Bias: bias, Neg: -1, Pos: 1, Info: info,
	}
}

// MeanLinear returns the linear model whose weights and bias are the means
// of those of ms, linear models of one row each (LinearDCD's, LinearPath's,
// PegasosLinear's) on the same features and classes: its decision is the
// mean of theirs, an ensemble that costs one model's prediction. Its Info
// is the first model's, with "loss" and "epochs" joined by "+" over ms.
func MeanLinear(ms ...*Model) (*Model, error) {
	if len(ms) == 0 {
		return nil, errors.New("svm: MeanLinear: no models")
	}
	d := ms[0].D
	w := make([]float64, d)
	var bias float64
	info := maps.Clone(ms[0].Info)
	if info == nil {
		info = map[string]string{}
	}
	var losses, epochs []string
	for i, m := range ms {
		if m.Kernel.Name != "linear" || m.NSV != 1 || len(m.SV) != m.D || len(m.Coef) != 1 {
			return nil, fmt.Errorf("svm: MeanLinear: model %d is not a linear model of one weight row", i)
		}
		if m.D != d || m.Neg != ms[0].Neg || m.Pos != ms[0].Pos {
			return nil, fmt.Errorf("svm: MeanLinear: model %d has %d features and classes %g/%g, model 0 %d and %g/%g",
				i, m.D, m.Neg, m.Pos, d, ms[0].Neg, ms[0].Pos)
		}
		c := m.Coef[0] / float64(len(ms))
		for j, v := range m.SV {
			w[j] += c * float64(v)
		}
		bias += m.Bias / float64(len(ms))
		losses = append(losses, m.Info["loss"])
		epochs = append(epochs, m.Info["epochs"])
	}
	out := linearModel(w, bias, info)
	out.Neg, out.Pos = ms[0].Neg, ms[0].Pos
	out.Info["loss"], out.Info["epochs"] = strings.Join(losses, "+"), strings.Join(epochs, "+")
	return out, nil
}
