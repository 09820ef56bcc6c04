package svm

import (
	"context"
	"math"
	"strings"
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

// TestPegasosSVRAverage: the averaged model is exactly the mean of the
// iterates after steps ⌈T/2⌉ … T (each obtained as the last iterate of a
// run of t steps from the same seed), and for a small λ it fits far better
// than the last iterate.
func TestPegasosSVRAverage(t *testing.T) {
	k := kernel.RBF{Gamma: 1}
	train := sine(60, 2, 1)
	for _, batch := range []int{1, 4} {
		const T = 41
		cfg := SVRConfig{Lambda: 1e-2, Epsilon: 0.05, T: T, Batch: batch, Average: true}
		avg, err := PegasosSVR(context.Background(), train, k, cfg, newRNG(9), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, train.N)
		t0 := (T + 1) / 2
		for steps := t0; steps <= T; steps++ {
			c := cfg
			c.T, c.Average = steps, false
			m, err := PegasosSVR(context.Background(), train, k, c, newRNG(9), nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				want[i] += m.Decision(train.row(i)) / float64(T-t0+1)
			}
		}
		for i, w := range want {
			if got := avg.Decision(train.row(i)); math.Abs(got-w) > 1e-9*(1+math.Abs(w)) {
				t.Fatalf("batch %d, point %d: averaged model %.12g, mean of the iterates %.12g", batch, i, got, w)
			}
		}
		if avg.Info["average"] != "true" {
			t.Errorf("Info = %v", avg.Info)
		}
	}
	train, test := sine(500, 0, 1), sine(500, 0, 2)
	var e [2]float64
	for j, average := range []bool{false, true} {
		m, err := PegasosSVR(context.Background(), train, k, SVRConfig{Lambda: 1e-4, Epsilon: 0.05, T: 20000, Average: average}, newRNG(3), nil)
		if err != nil {
			t.Fatal(err)
		}
		e[j] = rmse(m, test, 0)
	}
	t.Logf("λ = 1e-4: RMSE %.4f last iterate, %.4f averaged", e[0], e[1])
	if e[1] > 0.1 || e[1] > e[0]/2 {
		t.Errorf("averaged RMSE %.4f (last iterate %.4f)", e[1], e[0])
	}
}

// TestPegasosBatchChecks: both kernel Pegasos solvers refuse a negative
// batch in Validate and a batch larger than the training set when they
// run, naming themselves.
func TestPegasosBatchChecks(t *testing.T) {
	ctx, k := context.Background(), kernel.RBF{Gamma: 1}
	x := []float32{0, 1, 2, 3}
	cls := Problem{X: x, N: 4, D: 1, Y: []float32{1, -1, 1, -1}}
	reg := RegProblem{X: x, N: 4, D: 1, Y: []float64{0, 1, 2, 3}}
	for _, c := range []struct {
		name, want string
		err        error
	}{
		{"Pegasos negative", "Pegasos: batch must be ≥ 1", PegasosConfig{Batch: -1}.Validate()},
		{"SVR negative", "SVR: batch must be ≥ 1", SVRConfig{Batch: -1}.Validate()},
		{"Pegasos too large", "svm: Pegasos: batch 5 exceeds the 4 points", func() error {
			_, err := Pegasos(ctx, cls, k, PegasosConfig{Batch: 5}, newRNG(1), nil)
			return err
		}()},
		{"SVR too large", "svm: SVR: batch 5 exceeds the 4 points", func() error {
			_, err := PegasosSVR(ctx, reg, k, SVRConfig{Batch: 5}, newRNG(1), nil)
			return err
		}()},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, c.err, c.want)
		}
	}
	if _, err := Pegasos(ctx, cls, k, PegasosConfig{Batch: 4, T: 3}, newRNG(1), nil); err != nil {
		t.Errorf("batch = N: %v", err)
	}
}
