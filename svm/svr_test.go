package svm

import (
	"context"
	"math"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// sine draws n points x ∈ [−3, 3] with targets shift + sin(2x) + N(0, 0.1²).
func sine(n int, shift float64, seed uint64) RegProblem {
	rng := newRNG(seed)
	p := RegProblem{X: make([]float32, n), N: n, D: 1, Y: make([]float64, n)}
	for i := range p.Y {
		x := 6*rng.Float64() - 3
		p.X[i] = float32(x)
		p.Y[i] = shift + math.Sin(2*x) + 0.1*rng.NormFloat64()
	}
	return p
}

// rmse returns the root mean squared error of m on p against the noise-free
// function shift + sin(2x).
func rmse(m *Model, p RegProblem, shift float64) float64 {
	var s float64
	for i := 0; i < p.N; i++ {
		d := m.Decision(p.row(i)) - (shift + math.Sin(2*float64(p.X[i])))
		s += d * d
	}
	return math.Sqrt(s / float64(p.N))
}

// TestPegasosSVR: the ε-insensitive Pegasos fits a noisy sine closely
// (single points and mini-batches, ε = 0 too), and the bias carries a large
// offset of the targets (without it, f has to).
func TestPegasosSVR(t *testing.T) {
	k := kernel.RBF{Gamma: 1}
	for _, c := range []struct {
		name  string
		shift float64
		cfg   SVRConfig
		max   float64
	}{
		{"single", 0, SVRConfig{Lambda: 1e-3, Epsilon: 0.05, T: 20000}, 0.08},
		{"batch8", 0, SVRConfig{Lambda: 1e-3, Epsilon: 0.05, T: 4000, Batch: 8}, 0.08},
		{"shifted", 10, SVRConfig{Lambda: 1e-3, Epsilon: 0.05, T: 20000}, 0.08},
		{"shifted-nobias", 10, SVRConfig{Lambda: 1e-3, Epsilon: 0.05, T: 20000, NoBias: true}, 0.1},
		{"epsilon0", 0, SVRConfig{Lambda: 1e-3, Epsilon: -1, T: 20000}, 0.1},
	} {
		t.Run(c.name, func(t *testing.T) {
			train, test := sine(500, c.shift, 1), sine(500, c.shift, 2)
			m, err := PegasosSVR(context.Background(), train, k, c.cfg, newRNG(3), nil)
			if err != nil {
				t.Fatal(err)
			}
			e := rmse(m, test, c.shift)
			t.Logf("RMSE %.4f, b = %.3f, %d SV, %s steps outside the tube", e, m.Bias, m.NSV, m.Info["outside"])
			if e > c.max {
				t.Errorf("RMSE %.4f > %.2f", e, c.max)
			}
			if c.cfg.NoBias && m.Bias != 0 {
				t.Errorf("without bias: b = %g", m.Bias)
			}
		})
	}
	if _, err := PegasosSVR(context.Background(), RegProblem{X: []float32{1, 2}, N: 2, D: 1, Y: []float64{1, math.NaN()}}, k, SVRConfig{}, newRNG(1), nil); err == nil {
		t.Error("NaN target accepted")
	}
	if err := (SVRConfig{Epsilon: math.NaN()}).Validate(); err == nil {
		t.Error("NaN epsilon accepted")
	}
}
