package svm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// LinearDCDPath trains LinearDCD with cfg for each cost C in cs (cfg.C is
// ignored) and calls visit(i, m) with the model m for cs[i]. It trains in
// increasing order of C (equal costs in the order given), each run starting
// from the previous one's solution, as LIBLINEAR's warm starts: with
// r = C_new/C_old, α_i ← r·α_i (for Logistic also C_i − α_i ← r·(C_i − α_i)),
// clipped to the new bound U_i for Hinge, and w recomputed as
// Σ α_i·y_i·x̃_i; the shrinking starts afresh. A model has the same
// stopping rule, and so the same objective to the tolerance, as a cold
// start of LinearDCD with that C, and a path of costs a few times apart
// takes fewer epochs in total than its cold starts.
//
// The runs draw their orders from rng in turn. An error from visit stops
// the path and is returned; so is the context's error, checked every
// epoch. Each model's Info has "warm_start_C", the cost it started from,
// except the first, and no "primal_objective" (see LinearPath.Train).
// LinearPath takes the same path one run at a time.
func LinearDCDPath(ctx context.Context, p Problem, cfg LinearDCDConfig, cs []float64, rng *rand.Rand, visit func(i int, m *Model) error) error {
	cfg.C = 0
	lp, err := newLinearPath(p, cfg, rng, "LinearDCDPath")
	if err != nil {
		return err
	}
	if visit == nil {
		return fmt.Errorf("svm: LinearDCDPath: no visit function")
	}
	for _, c := range cs {
		if err := checkCost(c, "LinearDCDPath"); err != nil {
			return err
		}
	}
	for _, i := range sortedOrder(cs) {
		lp.s = lp.next(cs[i], cfg.Loss)
		m, err := lp.finish(ctx, lp.cfg.MaxEpochs)
		if err != nil {
			return err
		}
		if err := visit(i, m); err != nil {
			return err
		}
	}
	return nil
}

// LinearPath is LinearDCD on one problem along a path of costs and losses
// that its caller chooses one run at a time: each run starts from the
// solution the path is at (as LinearDCDPath's runs do) and may stop at a
// bound of epochs, to be continued by a later run with the same cost and
// loss. It is LIBLINEAR's warm-started search of C with its iterations
// capped, taken apart so that a caller can decide after every run where
// the path goes next. A LinearPath is not safe for concurrent use.
type LinearPath struct {
	p   Problem
	cfg LinearDCDConfig // with its defaults; C and Loss are the current run's
	rng *rand.Rand
	s   *dcd    // nil before the first run
	tk  ticker  // the current run's
	c0  float64 // the cost the current run started from (0: none)
}

// NewLinearPath returns a path of LinearDCD runs on p with the loss,
// weights, tolerance, epoch bound (MaxEpochs, the default of Train's bound)
// and bias of cfg (cfg.C and cfg.Loss are taken from each Train); the runs
// draw their orders from rng in turn.
func NewLinearPath(p Problem, cfg LinearDCDConfig, rng *rand.Rand) (*LinearPath, error) {
	cfg.C = 0
	return newLinearPath(p, cfg, rng, "LinearPath")
}

func newLinearPath(p Problem, cfg LinearDCDConfig, rng *rand.Rand, name string) (*LinearPath, error) {
	cfg, err := checkDCD(p, cfg, rng, name)
	if err != nil {
		return nil, err
	}
	return &LinearPath{p: p, cfg: cfg, rng: rng}, nil
}

// checkCost reports a cost C that is not > 0 and finite.
func checkCost(c float64, name string) error {
	if !(c > 0) || math.IsInf(c, 0) {
		return fmt.Errorf("svm: %s: C must be > 0 and finite, got %g", name, c)
	}
	return nil
}

// Train runs LinearDCD with cost c and loss on the path: a new run, from
// the solution the path is at, unless the current run has this cost and
// loss, which it then continues. A run performs epochs until its stopping
// rule holds (LinearDCD's) or it has had maxEpochs epochs in all (0: the
// path's MaxEpochs); Converged tells which. Moving to a new cost is
// LinearDCDPath's warm start (α scaled by the ratio of the costs); between
// Hinge and SquaredHinge α carries over (clipped to C for Hinge); to or
// from Logistic the run starts afresh. The model's Info has "epochs" (the
// run's so far), "max_iter_reached" while the run has not converged and
// "warm_start_C" (the cost the run started from) except on the path's
// first run; it has LinearDCD's dual "objective" but not its
// "primal_objective", which would cost a pass over the points. The context's error, checked every epoch, stops a run; the
// path is then at the last epoch's solution.
func (lp *LinearPath) Train(ctx context.Context, c float64, loss DCDLoss, maxEpochs int) (*Model, error) {
	if err := checkCost(c, "LinearPath"); err != nil {
		return nil, err
	}
	if loss != SquaredHinge && loss != Hinge && loss != Logistic {
		return nil, fmt.Errorf("svm: LinearPath: unknown loss %v", loss)
	}
	if maxEpochs < 0 {
		return nil, fmt.Errorf("svm: LinearPath: max epochs must be ≥ 0, got %d", maxEpochs)
	}
	if maxEpochs == 0 {
		maxEpochs = lp.cfg.MaxEpochs
	}
	if lp.s == nil || c != lp.cfg.C || loss != lp.cfg.Loss {
		lp.s = lp.next(c, loss)
	}
	return lp.finish(ctx, maxEpochs)
}

// Converged reports whether the current run met its stopping rule.
func (lp *LinearPath) Converged() bool { return lp.s != nil && lp.s.st.converged }

// Epochs returns the epochs of the current run so far.
func (lp *LinearPath) Epochs() int {
	if lp.s == nil {
		return 0
	}
	return lp.s.st.epochs
}

// next starts a run with cost c and loss from the path's solution (the
// first run from LinearDCD's initial point) and returns the solver.
func (lp *LinearPath) next(c float64, loss DCDLoss) *dcd {
	prev := lp.cfg
	lp.cfg.C, lp.cfg.Loss = c, loss
	lp.tk = ticker{}
	s := lp.s
	switch {
	case s == nil:
		lp.c0 = 0
		s = newDCD(lp.p, lp.cfg)
	case (prev.Loss == Logistic) != (loss == Logistic):
		lp.c0 = prev.C
		s.loss = loss
		if s.aux == nil {
			s.aux = make([]float64, lp.p.N)
		}
		s.cost = [2]float64{c * lp.cfg.WeightNeg, c * lp.cfg.WeightPos}
		s.init(nil)
	default:
		lp.c0 = prev.C
		s.loss = loss
		s.warmStart(lp.cfg)
	}
	s.begin()
	return s
}

// finish runs the current run on to maxEpochs epochs or its stopping rule,
// and returns its model.
func (lp *LinearPath) finish(ctx context.Context, maxEpochs int) (*Model, error) {
	s := lp.s
	if lp.tk.ctx == nil {
		lp.tk = newTicker(ctx, nil)
	}
	lp.tk.ctx = ctx
	if err := s.advance(&lp.tk, lp.rng, maxEpochs); err != nil {
		return nil, err
	}
	m := s.model(lp.cfg, s.st.epochs, s.st.gap)
	if lp.c0 > 0 {
		m.Info["warm_start_C"] = fmtF(lp.c0)
	}
	return m, nil
}

// warmStart moves s to the costs of cfg (s.cost holds the previous costs),
// scaling α by the ratio of the costs.
func (s *dcd) warmStart(cfg LinearDCDConfig) {
	cost := [2]float64{cfg.C * cfg.WeightNeg, cfg.C * cfg.WeightPos}
	r := cost[0] / s.cost[0]
	s.cost = cost
	var alpha []float64
	if s.loss == Logistic {
		alpha = make([]float64, 2*len(s.v))
		for k, v := range s.v {
			alpha[2*k], alpha[2*k+1] = r*v.alpha, r*s.aux[k]
		}
	} else {
		alpha = make([]float64, len(s.v))
		for k, v := range s.v {
			alpha[k] = r * v.alpha
		}
	}
	s.init(alpha)
}
