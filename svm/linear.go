package svm

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
)

// PegasosLinearConfig configures primal linear Pegasos. The zero value runs
// λ = 1e-4, T = 10·N, no projection, no bias.
type PegasosLinearConfig struct {
	// Lambda is the regularisation parameter λ > 0 (default 1e-4).
	Lambda float64
	// T is the number of iterations (default 10·N).
	T int
	// Project enables the optional projection of w onto the ball of radius
	// 1/√λ after every step (Pegasos paper, Fig. 1), which contains the
	// optimum.
	Project bool
	// Bias adds a bias b, learnt as the weight of a constant feature 1 (so
	// it is regularised like w; Pegasos paper §6).
	Bias bool
}

// Validate reports whether the configuration is usable.
func (c PegasosLinearConfig) Validate() error {
	return checkPegasos("PegasosLinear", c.Lambda, c.T, 0)
}

// PegasosLinear trains a linear SVM in the primal by Pegasos
// (Shalev-Shwartz et al. 2011, Fig. 1; the lecture's "optimization procedure
// for the primal form" with the hinge-loss sub-gradient):
//
//	min_{w, b}  λ/2·‖(w, b)‖² + 1/N·Σ_i W_i·max(0, 1 − y_i·(w·x_i + b))
//
// (b ≡ 0 unless cfg.Bias; W_i the point weights Problem.W, 1 without them,
// as scikit-learn's SGDClassifier weighs its samples). At step t = 1, …, T
// it draws i uniformly and, with η_t = 1/(λt), sets
// w ← (1 − η_t·λ)·w + η_t·W_i·y_i·x_i if y_i·(w·x_i + b) < 1 and
// w ← (1 − η_t·λ)·w otherwise (the same for b), then optionally projects
// (w, b) onto the ball of radius 1/√λ. The rows may be dense or sparse: w is
// kept as a·v, so that a step costs the nonzeros of x_i, not D.
//
// The result is a model with a linear kernel and one "support vector" w
// (Coef = [1]), so that Decision(x) = w·x + b. Info holds the final primal
// objective and the number of steps that moved w by a point ("violations").
func PegasosLinear(ctx context.Context, p Problem, cfg PegasosLinearConfig, rng *rand.Rand, progress ProgressFunc) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Lambda == 0 {
		cfg.Lambda = 1e-4
	}
	if cfg.T == 0 {
		cfg.T = 10 * p.N
	}
	lam := cfg.Lambda
	rows := linRowsOf(p)
	// w = a·v; vn = ‖v‖², kept up to date for the projection.
	v := make([]float64, p.D)
	a, vn := 1.0, 0.0
	var b float64
	var violations int
	bias := 0.0
	if cfg.Bias {
		bias = 1
	}
	radius2 := 1 / lam
	tk := newTicker(ctx, progress)
	for t := 1; t <= cfg.T; t++ {
		if t&1023 == 0 {
			if err := tk.tick(Progress{Step: t - 1, Total: cfg.T, NSV: 1}); err != nil {
				return nil, err
			}
		}
		i := rng.IntN(p.N)
		idx, val := rows.parts(i)
		yi := float64(p.Y[i])
		vx := dotRow(v, idx, val)
		margin := a*vx + b*bias
		eta := 1 / (lam * float64(t))
		if t > 1 { // at t = 1, 1 − η·λ = 0 and w = 0 already
			shrink := 1 - eta*lam
			a *= shrink
			b *= shrink
		}
		if step := eta * yi * p.weight(i); yi*margin < 1 && step != 0 {
			violations++
			c := step / a
			var xx float64
			for _, x := range val {
				xx += float64(x) * float64(x)
			}
			vn = max(vn+2*c*vx+c*c*xx, 0)
			axpyRow(v, idx, val, c)
			b += step * bias
		}
		if a < 1e-9 {
			vn = 0
			for j := range v {
				v[j] *= a
				vn += v[j] * v[j]
			}
			a = 1
		}
		if cfg.Project {
			if nrm := a*a*vn + b*b; nrm > radius2 {
				f := math.Sqrt(radius2 / nrm)
				a *= f
				b *= f
			}
		}
	}
	w := make([]float64, p.D)
	for j := range v {
		w[j] = a * v[j]
	}
	// Primal objective of the result.
	obj := b * b
	for _, x := range w {
		obj += x * x
	}
	obj *= lam / 2
	var loss float64
	for i := 0; i < p.N; i++ {
		idx, val := rows.parts(i)
		m := dotRow(w, idx, val) + b*bias
		loss += p.weight(i) * max(0, 1-float64(p.Y[i])*m)
	}
	obj += loss / float64(p.N)
	if err := tk.tick(Progress{Step: cfg.T, Total: cfg.T, NSV: 1, Objective: obj}); err != nil {
		return nil, err
	}
	m := linearModel(w, b*bias, map[string]string{
		"solver":     "pegasos-linear",
		"lambda":     fmtF(lam),
		"T":          strconv.Itoa(cfg.T),
		"project":    strconv.FormatBool(cfg.Project),
		"bias":       strconv.FormatBool(cfg.Bias),
		"violations": strconv.Itoa(violations),
		"objective":  fmtF(obj),
	})
	if p.W != nil {
		m.Info["weighted"] = "true"
	}
	return m, nil
}
