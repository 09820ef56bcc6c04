package svm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/nsvm-go/nsvm/kernel"
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
		return fmt.Errorf("svm: Perceptron: epochs must be ≥ 1, got %d", c.Epochs)
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
func Perceptron(ctx context.Context, p Problem, k kernel.Kernel, cfg PerceptronConfig, rng *rand.Rand, progress ProgressFunc) (*Model, error) {
	if err := checkInputs(p, k, cfg, "Perceptron"); err != nil {
		return nil, err
	}
	if cfg.Epochs == 0 {
		cfg.Epochs = 100
	}
	norms := sqNorms(p)
	e := newExpansion(p.N, p.D)
	order := newEpochOrder(p.N, rng)
	tk := newTicker(ctx, progress)
	epoch, mistakes, total := 0, -1, 0
	for epoch < cfg.Epochs && mistakes != 0 {
		mistakes = 0
		for n, i := range order.next() {
			if err := tk.inEpoch(n, epoch+1, "Perceptron"); err != nil {
				return nil, err
			}
			xi := p.row(i)
			yi := float64(p.Y[i])
			if yi*e.sum(k, xi) <= 0 {
				e.add(i, xi, norms[i], yi)
				mistakes++
			}
		}
		total += mistakes
		epoch++
		if err := tk.tick(Progress{Step: epoch, Total: cfg.Epochs, NSV: e.len(), Objective: float64(mistakes)}); err != nil {
			return nil, err
		}
	}
	m := e.model(k.Spec(), 1, 0)
	m.Info["solver"] = "perceptron"
	m.Info["epochs"] = strconv.Itoa(epoch)
	m.Info["mistakes"] = strconv.Itoa(total)
	m.Info["converged"] = strconv.FormatBool(mistakes == 0)
	m.Info["nsv"] = strconv.Itoa(m.NSV)
	return m, nil
}
