package svm

import (
	"context"
	"math"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// shifted draws n points along the diagonal of the positive quadrant: class
// −1 around (3, 3), class +1 around (5, 5), with noise of standard deviation
// 0.3. Every line through the origin leaves both clusters on the same side
// (up to the noise), so a linear SVM without bias stays near 50 %, while a
// bias separates them.
func shifted(n int, seed uint64) Problem {
	rng := newRNG(seed)
	p := Problem{X: make([]float32, 2*n), N: n, D: 2, Y: make([]float32, n)}
	for i := 0; i < n; i++ {
		c, y := 3.0, float32(-1)
		if i%2 == 0 {
			c, y = 5, 1
		}
		p.Y[i] = y
		p.X[2*i] = float32(c + 0.3*rng.NormFloat64())
		p.X[2*i+1] = float32(c + 0.3*rng.NormFloat64())
	}
	return p
}

func accuracyOn(m *Model, p Problem) float64 {
	ok := 0
	for i := 0; i < p.N; i++ {
		if m.Predict(p.row(i)) == float64(p.Y[i]) {
			ok++
		}
	}
	return float64(ok) / float64(p.N)
}

// imbalanced draws n points in 2-D, one in five of class +1 around (1, 0)
// (standard deviation 0.5), the rest of class −1 around (−0.5, 0) (standard
// deviation 1): an RBF SVM without bias has to spend coefficients on
// pulling the decision below 0 where the majority class lives.
func imbalanced(n int, seed uint64) Problem {
	rng := newRNG(seed)
	p := Problem{X: make([]float32, 2*n), N: n, D: 2, Y: make([]float32, n)}
	for i := 0; i < n; i++ {
		if i%5 == 0 {
			p.Y[i] = 1
			p.X[2*i] = float32(1 + 0.5*rng.NormFloat64())
			p.X[2*i+1] = float32(0.5 * rng.NormFloat64())
		} else {
			p.Y[i] = -1
			p.X[2*i] = float32(-0.5 + rng.NormFloat64())
			p.X[2*i+1] = float32(rng.NormFloat64())
		}
	}
	return p
}

// TestPegasosBias: on shifted data the bias is what makes a linear kernel
// work (single-sample and mini-batch steps), and the bias learnt agrees
// with SMO's on the same problem (C = 1/(λN)), on the shifted data and on
// an imbalanced RBF problem.
func TestPegasosBias(t *testing.T) {
	cases := []struct {
		name        string
		train, test Problem
		k           kernel.Kernel
		lambda      float64
		batch, T    int
		minAcc      float64 // with bias
		maxAccPlain float64 // without bias
		relTol      float64 // |b − b_SMO| ≤ relTol·|b_SMO|
	}{
		{"shifted-linear", shifted(400, 1), shifted(400, 2), kernel.Linear{}, 1e-2, 1, 60000, 0.99, 0.75, 0.25},
		{"shifted-linear-batch8", shifted(400, 1), shifted(400, 2), kernel.Linear{}, 1e-2, 8, 30000, 0.99, 0.75, 0.1},
		{"imbalanced-rbf-batch8", imbalanced(1000, 1), imbalanced(2000, 2), kernel.RBF{Gamma: 1}, 1e-3, 8, 5000, 0.87, 1, 0.15},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ref, err := SMO(context.Background(), c.train, c.k, SMOConfig{C: 1 / (c.lambda * float64(c.train.N))}, nil)
			if err != nil {
				t.Fatal(err)
			}
			cfg := PegasosConfig{Lambda: c.lambda, T: c.T, Batch: c.batch}
			plain, err := Pegasos(context.Background(), c.train, c.k, cfg, newRNG(3), nil)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Bias = true
			biased, err := Pegasos(context.Background(), c.train, c.k, cfg, newRNG(3), nil)
			if err != nil {
				t.Fatal(err)
			}
			accPlain, accBias := accuracyOn(plain, c.test), accuracyOn(biased, c.test)
			t.Logf("no bias %.4f, bias %.4f (b = %.3f; SMO: b = %.3f, accuracy %.4f)", accPlain, accBias, biased.Bias, ref.Bias, accuracyOn(ref, c.test))
			if plain.Bias != 0 || plain.Info["bias"] != "" || biased.Info["bias"] != "true" {
				t.Errorf("Bias %g and Info %q without bias, Info %q with", plain.Bias, plain.Info["bias"], biased.Info["bias"])
			}
			if accPlain > c.maxAccPlain {
				t.Errorf("no bias: accuracy %.4f, want ≤ %.2f", accPlain, c.maxAccPlain)
			}
			if accBias < c.minAcc {
				t.Errorf("bias: accuracy %.4f, want ≥ %.2f", accBias, c.minAcc)
			}
			if math.Abs(biased.Bias-ref.Bias) > c.relTol*math.Abs(ref.Bias) {
				t.Errorf("bias %.4f, SMO's %.4f (tolerance %.0f%%)", biased.Bias, ref.Bias, 100*c.relTol)
			}
		})
	}
}

// TestPegasosBiasOffUnchanged: Bias = false gives exactly the bias-free
// model (same coefficients), so the paper's Algorithm 0 is untouched.
func TestPegasosBiasOffUnchanged(t *testing.T) {
	p := ringnorm(200, 5, newRNG(4))
	k := kernel.RBF{Gamma: 0.1}
	a, err := Pegasos(context.Background(), p, k, PegasosConfig{T: 1000}, newRNG(5), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Pegasos(context.Background(), p, k, PegasosConfig{T: 1000, Bias: true}, newRNG(5), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Bias != 0 || b.Bias == 0 {
		t.Errorf("biases %g (off) and %g (on)", a.Bias, b.Bias)
	}
}
