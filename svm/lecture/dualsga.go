package lecture

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

// DualSGAConfig configures naive dual stochastic gradient ascent.
type DualSGAConfig struct {
	// C is the box constraint (default 1).
	C float64
	// Epochs is the maximum number of passes (default 100).
	Epochs int
	// Tol stops training after a pass in which no point violated its KKT
	// condition by more than Tol (default 1e-3).
	Tol float64
	// BiasScale s ≥ 0 adds a bias as the weight of a constant feature of
	// value s (0: no bias, the lecture's algorithm as stated; see DualSGA).
	BiasScale float64
	// SortByAlpha visits the points of each epoch in decreasing order of
	// α_i (ties in random order), as the lecture recommends; otherwise the
	// order is random.
	SortByAlpha bool
}

// Validate reports whether the configuration is usable.
func (c DualSGAConfig) Validate() error {
	if c.C < 0 || math.IsNaN(c.C) || math.IsInf(c.C, 0) {
		return fmt.Errorf("lecture: DualSGA: C must be > 0, got %g", c.C)
	}
	if c.Epochs < 0 {
		return fmt.Errorf("lecture: DualSGA: epochs must be ≥ 1, got %d", c.Epochs)
	}
	if c.BiasScale < 0 || math.IsNaN(c.BiasScale) || math.IsInf(c.BiasScale, 0) {
		return fmt.Errorf("lecture: DualSGA: bias scale must be ≥ 0, got %g", c.BiasScale)
	}
	if c.Tol < 0 || math.IsNaN(c.Tol) {
		return fmt.Errorf("lecture: DualSGA: tol must be > 0, got %g", c.Tol)
	}
	return nil
}

// DualSGA trains a kernel SVM by the lecture's naive stochastic gradient
// ascent on the dual ("Naive stochastic gradient ascent"):
//
//	max_α  Q(α) = Σ_i α_i − ½·Σ_ij α_i·α_j·y_i·y_j·K(x_i, x_j)
//	s.t.   0 ≤ α_i ≤ C,
//
// visiting the points in turn with α_i ← clip(α_i + η_i·(1 − y_i·Σ_j
// α_j·y_j·K(x_i, x_j)), 0, C) and η_i = 1/K(x_i, x_i), which makes every
// update the exact maximiser of Q along coordinate i.
//
// One α_i at a time cannot keep Σ_i α_i·y_i = 0, so — as the lecture notes —
// this solves the SVM without bias: the model is
// decision(x) = Σ_j α_j·y_j·K(x_j, x) with Bias = 0 (Coef_j = α_j·y_j), and
// its dual optimum lies at or below SMO's f(α) = ½αᵀQα − eᵀα (one
// constraint fewer). The lecture leaves b to "another algorithm"; with
// BiasScale = s > 0 the bias is instead learnt as the weight of a constant
// feature s, i.e. the same ascent runs on the kernel K + s²: it solves
// min f(α) + (s²/2)·(yᵀα)² over the box, the SVM whose primal also
// penalises b²/(2s²), and the model gets Bias = s²·Σ_j α_j·y_j. As s grows
// this approaches SMO's problem (and the ascent slows down). It stops when a whole pass finds no KKT violation
// above Tol (α_i < C with y_i·g(x_i) < 1 − Tol, or α_i > 0 with
// y_i·g(x_i) > 1 + Tol) or after Epochs passes. Only α_i > 0 are stored, so
// a step costs one kernel row over the current support vectors. rng orders
// the passes. Progress is reported after every pass, with the pass's largest
// KKT violation as Gap. Info holds the objective of the problem solved,
// f(α) + (s²/2)·(yᵀα)² (just f(α) without bias), as "objective".
func DualSGA(ctx context.Context, p svm.Problem, k kernel.Kernel, cfg DualSGAConfig, rng *rand.Rand, progress svm.ProgressFunc) (*svm.Model, error) {
	if err := check(p, k, cfg, "DualSGA"); err != nil {
		return nil, err
	}
	cfg.C = cmp.Or(cfg.C, 1)
	cfg.Epochs = cmp.Or(cfg.Epochs, 100)
	cfg.Tol = cmp.Or(cfg.Tol, 1e-3)
	norms := p.SqNorms()
	s2 := cfg.BiasScale * cfg.BiasScale
	kd := make([]float64, p.N)
	for i := range kd {
		kd[i] = k.Eval(row(p, i), row(p, i)) + s2
	}
	var ya float64 // Σ_j α_j·y_j
	e := svm.NewExpansion(p.N, p.D)
	worst := 0.0
	epoch, err := epochs(ctx, "DualSGA", p.N, cfg.Epochs, rng, progress,
		func(order []int) {
			if cfg.SortByAlpha {
				slices.SortStableFunc(order, func(a, b int) int {
					return cmp.Compare(math.Abs(e.Get(b)), math.Abs(e.Get(a)))
				})
			}
			worst = 0
		},
		func(i int) {
			xi := row(p, i)
			yi := float64(p.Y[i])
			a := yi * e.Get(i) // α_i ≥ 0
			g := 1 - yi*(e.Sum(k, xi)+s2*ya)
			if (a < cfg.C && g > worst) || (a > 0 && -g > worst) {
				worst = math.Abs(g)
			}
			var na float64
			if kd[i] > 0 {
				na = min(max(a+g/kd[i], 0), cfg.C)
			} else if g > 0 {
				na = cfg.C // K(x_i, ·) = 0: α_i only adds to Q
			}
			if na != a {
				e.Set(i, xi, norms[i], na*yi)
				ya += (na - a) * yi
			}
		},
		func() (svm.Progress, bool) {
			return svm.Progress{NSV: e.Len(), Gap: worst}, !(worst > cfg.Tol)
		})
	if err != nil {
		return nil, err
	}
	ya = e.CoefSum() // recomputed: no drift
	m := e.Model(k.Spec(), 1, s2*ya)
	obj := svm.DualObjective(k, m) + s2*ya*ya/2
	m.Info["solver"] = "dual-sga"
	m.Info["C"] = fmtF(cfg.C)
	m.Info["tol"] = fmtF(cfg.Tol)
	m.Info["bias_scale"] = fmtF(cfg.BiasScale)
	m.Info["epochs"] = strconv.Itoa(epoch)
	m.Info["max_violation"] = fmtF(worst)
	m.Info["objective"] = fmtF(obj)
	m.Info["nsv"] = strconv.Itoa(m.NSV)
	return m, nil
}
