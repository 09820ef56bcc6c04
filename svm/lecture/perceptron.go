package lecture

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

// PerceptronConfig configures the dual perceptron.
type PerceptronConfig struct {
	// Epochs is the maximum number of passes over the data (default 100);
	// training stops early after a pass without mistakes.
	Epochs int
}

// Validate reports whether the configuration is usable.
func (c PerceptronConfig) Validate() error {
	if c.Epochs < 0 {
		return fmt.Errorf("lecture: Perceptron: epochs must be ≥ 1, got %d", c.Epochs)
	}
	return nil
}

// Perceptron trains the dual (kernel) perceptron of the lecture ("Dual form
// of the Perceptron algorithm"; Rosenblatt 1958, Aizerman et al. 1964). It
// minimises no objective: starting from α = 0 it passes over the data in a
// fresh random order each epoch and, for every point with functional margin
// γ_i = y_i·Σ_j α_j·y_j·K(x_j, x_i) ≤ 0, sets α_i += 1. (The lecture tests
// γ_i < 0; with α = 0 every margin is 0, so a mistake has to include 0 for
// the algorithm to start.) It stops after an epoch without mistakes — which
// happens after finitely many updates when the data are separable in the
// feature space (Novikoff 1962) — or after cfg.Epochs epochs.
//
// The model is decision(x) = Σ_j α_j·y_j·K(x_j, x) without bias:
// Coef_j = α_j·y_j. rng shuffles the epochs. Progress is reported after
// every epoch, with the epoch's number of mistakes as Objective.
func Perceptron(ctx context.Context, p svm.Problem, k kernel.Kernel, cfg PerceptronConfig, rng *rand.Rand, progress svm.ProgressFunc) (*svm.Model, error) {
	if err := check(p, k, cfg, "Perceptron"); err != nil {
		return nil, err
	}
	cfg.Epochs = cmp.Or(cfg.Epochs, 100)
	norms := p.SqNorms()
	e := svm.NewExpansion(p.N, p.D)
	mistakes, total := 0, 0
	epoch, err := epochs(ctx, "Perceptron", p.N, cfg.Epochs, rng, progress,
		func([]int) { mistakes = 0 },
		func(i int) {
			xi := row(p, i)
			yi := float64(p.Y[i])
			if yi*e.Sum(k, xi) <= 0 {
				e.Add(i, xi, norms[i], yi)
				mistakes++
			}
		},
		func() (svm.Progress, bool) {
			total += mistakes
			return svm.Progress{NSV: e.Len(), Objective: float64(mistakes)}, mistakes == 0
		})
	if err != nil {
		return nil, err
	}
	m := e.Model(k.Spec(), 1, 0)
	m.Info["solver"] = "perceptron"
	m.Info["epochs"] = strconv.Itoa(epoch)
	m.Info["mistakes"] = strconv.Itoa(total)
	m.Info["converged"] = strconv.FormatBool(mistakes == 0)
	m.Info["nsv"] = strconv.Itoa(m.NSV)
	return m, nil
}
