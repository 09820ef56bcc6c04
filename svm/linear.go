package svm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/nsvm-go/nsvm/kernel"
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
	if c.Lambda < 0 || math.IsNaN(c.Lambda) || math.IsInf(c.Lambda, 0) {
		return fmt.Errorf("svm: PegasosLinear: lambda must be > 0, got %g", c.Lambda)
	}
	if c.T < 0 {
		return fmt.Errorf("svm: PegasosLinear: T must be ≥ 1, got %d", c.T)
	}
	return nil
}

// PegasosLinear trains a linear SVM in the primal by Pegasos
// (Shalev-Shwartz et al. 2011, Fig. 1; the lecture's "optimization procedure
// for the primal form" with the hinge-loss sub-gradient):
//
//	min_{w, b}  λ/2·‖(w, b)‖² + 1/N·Σ_i max(0, 1 − y_i·(w·x_i + b))
//
// (b ≡ 0 unless cfg.Bias). At step t = 1, …, T it draws i uniformly and,
// with η_t = 1/(λt), sets w ← (1 − η_t·λ)·w + η_t·y_i·x_i if
// y_i·(w·x_i + b) < 1 and w ← (1 − η_t·λ)·w otherwise (the same for b), then
// optionally projects (w, b) onto the ball of radius 1/√λ.
//
// The result is a model with a linear kernel and one "support vector" w
// (Coef = [1]), so that Decision(x) = w·x + b. Info holds the final primal
// objective.
func PegasosLinear(ctx context.Context, p Problem, cfg PegasosLinearConfig, rng *rand.Rand, progress ProgressFunc) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := p.needDense("PegasosLinear"); err != nil {
		return nil, err
	}
	if err := p.unweighted("PegasosLinear"); err != nil {
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
	w := make([]float64, p.D)
	var b float64
	var violations int
	bias := 0.0
	if cfg.Bias {
		bias = 1
	}
	tk := newTicker(ctx, progress)
	for t := 1; t <= cfg.T; t++ {
		if t&1023 == 0 {
			if err := tk.tick(Progress{Step: t - 1, Total: cfg.T, NSV: 1}); err != nil {
				return nil, err
			}
		}
		i := rng.IntN(p.N)
		xi := p.row(i)
		yi := float64(p.Y[i])
		margin := b * bias
		for j, v := range xi {
			margin += w[j] * float64(v)
		}
		eta := 1 / (lam * float64(t))
		shrink := 1 - eta*lam
		for j := range w {
			w[j] *= shrink
		}
		b *= shrink
		if yi*margin < 1 {
			violations++
			for j, v := range xi {
				w[j] += eta * yi * float64(v)
			}
			b += eta * yi * bias
		}
		if cfg.Project {
			nrm := b * b
			for _, v := range w {
				nrm += v * v
			}
			if r := 1 / math.Sqrt(lam); nrm > r*r {
				f := r / math.Sqrt(nrm)
				for j := range w {
					w[j] *= f
				}
				b *= f
			}
		}
	}
	// Primal objective of the result.
	obj := b * b
	for _, v := range w {
		obj += v * v
	}
	obj *= lam / 2
	var loss float64
	for i := 0; i < p.N; i++ {
		m := b * bias
		for j, v := range p.row(i) {
			m += w[j] * float64(v)
		}
		loss += max(0, 1-float64(p.Y[i])*m)
	}
	obj += loss / float64(p.N)
	if err := tk.tick(Progress{Step: cfg.T, Total: cfg.T, NSV: 1, Objective: obj}); err != nil {
		return nil, err
	}
	sv := make([]float32, p.D)
	for j, v := range w {
		sv[j] = float32(v)
	}
	m := &Model{
		Kernel: kernel.Linear{}.Spec(), SV: sv, NSV: 1, D: p.D, Coef: []float64{1},
		Bias: b * bias, Neg: -1, Pos: 1,
		Info: map[string]string{
			"solver":     "pegasos-linear",
			"lambda":     fmtF(lam),
			"T":          strconv.Itoa(cfg.T),
			"project":    strconv.FormatBool(cfg.Project),
			"bias":       strconv.FormatBool(cfg.Bias),
			"violations": strconv.Itoa(violations),
			"objective":  fmtF(obj),
		},
	}
	return m, nil
}
