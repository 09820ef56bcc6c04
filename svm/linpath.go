package svm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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
// except the first.
func LinearDCDPath(ctx context.Context, p Problem, cfg LinearDCDConfig, cs []float64, rng *rand.Rand, visit func(i int, m *Model) error) error {
	cfg.C = 0
	cfg, err := checkDCD(p, cfg, rng, "LinearDCDPath")
	if err != nil {
		return err
	}
	if visit == nil {
		return fmt.Errorf("svm: LinearDCDPath: no visit function")
	}
	for _, c := range cs {
		if !(c > 0) || math.IsInf(c, 0) {
			return fmt.Errorf("svm: LinearDCDPath: C must be > 0 and finite, got %g", c)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case cs[a] < cs[b]:
			return -1
		case cs[a] > cs[b]:
			return 1
		}
		return 0
	})
	var s *dcd
	tk := newTicker(ctx, nil)
	for k, i := range order {
		c := cfg
		c.C = cs[i]
		if k == 0 {
			s = newDCD(p, c)
		} else {
			s.warmStart(c)
		}
		epochs, gap, err := s.run(&tk, rng)
		if err != nil {
			return err
		}
		m := s.model(c, epochs, gap)
		if k > 0 {
			m.Info["warm_start_C"] = fmtF(cs[order[k-1]])
		}
		if err := visit(i, m); err != nil {
			return err
		}
	}
	return nil
}

// warmStart moves s to the costs of cfg (cfg.C for the previous C),
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
