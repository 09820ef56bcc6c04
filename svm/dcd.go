package svm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

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
)

func (l DCDLoss) String() string {
	switch l {
	case SquaredHinge:
		return "l2"
	case Hinge:
		return "l1"
	}
	return "DCDLoss(" + strconv.Itoa(int(l)) + ")"
}

// LinearDCDConfig configures LinearDCD. The zero value is LIBLINEAR's
// default solver with a bias feature (liblinear-train -s 1 -B 1): squared
// hinge loss, C = 1, tolerance 0.1, at most 1000 epochs, shrinking on.
type LinearDCDConfig struct {
	// Loss is SquaredHinge (default) or Hinge.
	Loss DCDLoss
	// C is the cost C > 0 (default 1; -c).
	C float64
	// WeightPos and WeightNeg scale C for class +1 and −1 (default 1
	// each; -w1, -w-1).
	WeightPos, WeightNeg float64
	// Eps is the stopping tolerance on the spread of the projected gradient
	// max PG − min PG within an epoch (default 0.1; -e).
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
	// shrinks).
	NoShrinking bool
}

// Validate reports whether the configuration is usable.
func (c LinearDCDConfig) Validate() error { return c.validate("LinearDCD") }

// validate is Validate with the solver's name in the messages.
func (c LinearDCDConfig) validate(name string) error {
	if c.Loss != SquaredHinge && c.Loss != Hinge {
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
	if c.C == 0 {
		c.C = 1
	}
	if c.WeightPos == 0 {
		c.WeightPos = 1
	}
	if c.WeightNeg == 0 {
		c.WeightNeg = 1
	}
	if c.Eps == 0 {
		c.Eps = 0.1
	}
	if c.MaxEpochs == 0 {
		c.MaxEpochs = 1000
	}
	if c.BiasValue == 0 {
		c.BiasValue = 1
	}
	if c.NoBias {
		c.BiasValue = 0
	}
	return c
}

// LinearDCD trains a linear SVM by dual coordinate descent (Hsieh, Chang,
// Lin, Keerthi & Sundararajan, "A dual coordinate descent method for
// large-scale linear SVM", ICML 2008, Algorithm 1 with the shrinking of
// Algorithm 3; LIBLINEAR's solve_l2r_l1l2_svc). With x̃_i = (x_i, B) (B the
// bias feature, regularised like every weight, as LIBLINEAR's -B) it solves
//
//	min_w  ½‖w‖² + Σ_i C_i·ξ(w; x̃_i, y_i),
//
// ξ = max(0, 1 − y_i·wᵀx̃_i) (Hinge) or its square (SquaredHinge), through
// the dual
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
// The model has a linear kernel and one row w (Coef = [1]) with
// Bias = w_B·B, so Decision(x) = wᵀx + w_B·B. Info holds "objective" (the
// dual objective ½αᵀ(Q+D)α − eᵀα at the end, what liblinear-train prints),
// "primal_objective", "epochs", "nsv" (α_i > 0), "C" and "loss".
func LinearDCD(ctx context.Context, p Problem, cfg LinearDCDConfig, rng *rand.Rand, progress ProgressFunc) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := p.needDense("LinearDCD"); err != nil {
		return nil, err
	}
	if err := p.unweighted("LinearDCD"); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("svm: LinearDCD: no random source")
	}
	cfg = cfg.withDefaults()
	s := newDCD(p, cfg)
	tk := newTicker(ctx, progress)
	epochs, gap, err := s.run(&tk, rng)
	if err != nil {
		return nil, err
	}
	w := make([]float32, p.D)
	for j, v := range s.w[:p.D] {
		w[j] = float32(v)
	}
	nsv := 0
	for _, v := range s.v {
		if v.alpha > 0 {
			nsv++
		}
	}
	m := &Model{
		Kernel: kernel.Linear{}.Spec(), SV: w, NSV: 1, D: p.D, Coef: []float64{1},
		Bias: s.w[p.D] * s.bias, Neg: -1, Pos: 1,
		Info: map[string]string{
			"solver":           "linear-dcd",
			"loss":             cfg.Loss.String(),
			"C":                fmtF(cfg.C),
			"eps":              fmtF(cfg.Eps),
			"bias":             fmtF(s.bias),
			"epochs":           strconv.Itoa(epochs),
			"objective":        fmtF(s.dualObjective()),
			"primal_objective": fmtF(s.primalObjective()),
			"gap":              fmtF(gap),
			"nsv":              strconv.Itoa(nsv),
		},
	}
	if cfg.WeightPos != 1 || cfg.WeightNeg != 1 {
		m.Info["weight_pos"] = fmtF(cfg.WeightPos)
		m.Info["weight_neg"] = fmtF(cfg.WeightNeg)
	}
	if epochs >= cfg.MaxEpochs {
		m.Info["max_iter_reached"] = "true"
	}
	return m, nil
}

// dcd is the state of a LinearDCD run. The points stay in the problem; w has
// D + 1 entries, the last the weight of the bias feature (B = bias, 0
// without one).
type dcd struct {
	p          Problem
	bias       float64
	w          []float64
	v          []dcdVar
	diag       [2]float64
	upper      [2]float64
	index      []int32 // the epoch's order; the active set is index[:active]
	sink       float32 // keeps the prefetching loads of epoch alive
	active     int
	eps        float64
	maxEpochs  int
	noShrink   bool
	cost       [2]float64
	squareLoss bool
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
		p: p, bias: cfg.BiasValue,
		w:          make([]float64, p.D+1),
		v:          make([]dcdVar, p.N),
		index:      make([]int32, p.N),
		active:     p.N,
		eps:        cfg.Eps,
		maxEpochs:  cfg.MaxEpochs,
		noShrink:   cfg.NoShrinking,
		cost:       [2]float64{cfg.C * cfg.WeightNeg, cfg.C * cfg.WeightPos},
		squareLoss: cfg.Loss == SquaredHinge,
	}
	if s.squareLoss {
		s.diag = [2]float64{0.5 / s.cost[0], 0.5 / s.cost[1]}
		s.upper = [2]float64{math.Inf(1), math.Inf(1)}
	} else {
		s.upper = s.cost
	}
	b2 := s.bias * s.bias
	for i := 0; i < p.N; i++ {
		v := &s.v[i]
		if p.Y[i] > 0 {
			v.cls = 1
		}
		v.qd = s.diag[v.cls] + sqNorm64(p.row(i)) + b2
		s.index[i] = int32(i)
	}
	return s
}

// run performs epochs until the stopping rule holds; it returns the number
// of epochs and the last epoch's max PG − min PG.
func (s *dcd) run(tk *ticker, rng *rand.Rand) (int, float64, error) {
	pgMaxOld, pgMinOld := math.Inf(1), math.Inf(-1)
	l := s.p.N
	var gap float64
	epoch := 0
	for epoch < s.maxEpochs {
		if err := tk.tick(Progress{Step: epoch, Total: s.maxEpochs, NSV: s.active, Gap: gap}); err != nil {
			return 0, 0, err
		}
		act := s.index[:s.active]
		for i := range act {
			j := i + rng.IntN(len(act)-i)
			act[i], act[j] = act[j], act[i]
		}
		pgMax, pgMin := s.epoch(pgMaxOld, pgMinOld)
		epoch++
		gap = pgMax - pgMin
		if gap <= s.eps {
			if s.active == l {
				break
			}
			s.active = l
			pgMaxOld, pgMinOld = math.Inf(1), math.Inf(-1)
			continue
		}
		pgMaxOld, pgMinOld = pgMax, pgMin
		if pgMaxOld <= 0 {
			pgMaxOld = math.Inf(1)
		}
		if pgMinOld >= 0 {
			pgMinOld = math.Inf(-1)
		}
	}
	if err := tk.tick(Progress{Step: epoch, Total: s.maxEpochs, NSV: s.active, Gap: gap, Objective: s.dualObjective()}); err != nil {
		return 0, 0, err
	}
	return epoch, gap, nil
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
	x := s.p.X
	var sink float32
	for k := 0; k < s.active; k++ {
		// The visits are in random order: load the point and the variable
		// of a later visit now, so that their cache misses overlap with
		// this one's work.
		if k+dcdPrefetch < s.active {
			j := int(s.index[k+dcdPrefetch])
			sink += x[j*d] + x[j*d+d-1] + float32(s.v[j].cls)
		}
		i := s.index[k]
		xi := x[int(i)*d : int(i)*d+d]
		v := &s.v[i]
		c := v.cls
		yi := -1.0
		if c == 1 {
			yi = 1
		}
		g := yi*(vec.DotMixed(w, xi)+wb*b) - 1
		a := v.alpha
		u := s.upper[c]
		g += a * s.diag[c]
		pg := 0.0
		switch {
		case a == 0:
			if g > pgMaxOld {
				s.active--
				s.index[k], s.index[s.active] = s.index[s.active], s.index[k]
				k--
				continue
			}
			if g < 0 {
				pg = g
			}
		case a == u:
			if g < pgMinOld {
				s.active--
				s.index[k], s.index[s.active] = s.index[s.active], s.index[k]
				k--
				continue
			}
			if g > 0 {
				pg = g
			}
		default:
			pg = g
		}
		pgMax = max(pgMax, pg)
		pgMin = min(pgMin, pg)
		if math.Abs(pg) > 1e-12 {
			na := min(max(a-g/v.qd, 0), u)
			v.alpha = na
			step := (na - a) * yi
			for j, xv := range xi {
				w[j] += step * float64(xv)
			}
			wb += step * b
		}
	}
	s.w[d] = wb
	s.sink = sink
	return pgMax, pgMin
}

// dcdPrefetch is how many visits ahead epoch touches a point's data.
const dcdPrefetch = 8

// dualObjective returns ½‖w‖² + ½Σ D_ii·α_i² − Σ α_i (LIBLINEAR's
// "Objective value").
func (s *dcd) dualObjective() float64 {
	var v float64
	for _, x := range s.w {
		v += x * x
	}
	for _, x := range s.v {
		v += x.alpha * (x.alpha*s.diag[x.cls] - 2)
	}
	return v / 2
}

// primalObjective returns ½‖w‖² + Σ C_i·ξ_i.
func (s *dcd) primalObjective() float64 {
	d := s.p.D
	var v float64
	for _, x := range s.w {
		v += x * x
	}
	v /= 2
	for i := 0; i < s.p.N; i++ {
		c := s.v[i].cls
		y := -1.0
		if c == 1 {
			y = 1
		}
		xi := max(0, 1-y*(vec.DotMixed(s.w[:d], s.p.row(i))+s.w[d]*s.bias))
		if s.squareLoss {
			xi *= xi
		}
		v += s.cost[c] * xi
	}
	return v
}
