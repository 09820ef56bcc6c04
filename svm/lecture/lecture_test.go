package lecture

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// ringnorm returns n standardised Ringnorm points with labels ±1.
func ringnorm(n int, rng *rand.Rand) svm.Problem {
	ds := datasets.Ringnorm(n, rng)
	p := svm.Problem{X: ds.X, N: n, D: ds.D, Y: make([]float32, n)}
	for i, y := range ds.Y {
		p.Y[i] = float32(3 - 2*y) // 1 → +1, 2 → −1
	}
	for j := 0; j < p.D; j++ {
		var s, s2 float64
		for i := 0; i < n; i++ {
			v := float64(p.X[i*p.D+j])
			s += v
			s2 += v * v
		}
		mean := s / float64(n)
		sd := math.Sqrt(s2/float64(n) - mean*mean)
		for i := 0; i < n; i++ {
			p.X[i*p.D+j] = float32((float64(p.X[i*p.D+j]) - mean) / sd)
		}
	}
	return p
}

// separable returns n points in [−1, 1]², labelled by a line (linear) or
// by a circle (ring): inside radius 0.5 one class, outside 0.7 the other;
// points in the margin between are drawn again.
func separable(n int, ring bool, rng *rand.Rand) svm.Problem {
	p := svm.Problem{X: make([]float32, 0, 2*n), N: n, D: 2, Y: make([]float32, n)}
	for i := 0; i < n; {
		a, b := 2*rng.Float64()-1, 2*rng.Float64()-1
		m := a + 0.5*b - 0.1 // signed distance (×1.1) to the line
		if ring {
			m = math.Hypot(a, b) - 0.6
		}
		if math.Abs(m) < 0.1 {
			continue
		}
		p.X = append(p.X, float32(a), float32(b))
		p.Y[i] = 1
		if m < 0 {
			p.Y[i] = -1
		}
		i++
	}
	return p
}

func decision(m *svm.Model, p svm.Problem) []float64 {
	dec := make([]float64, p.N)
	m.DecisionBatch(dec, p.X, p.N)
	return dec
}

func accuracy(m *svm.Model, p svm.Problem) float64 {
	ok := 0
	for i, v := range decision(m, p) {
		if (v >= 0) == (p.Y[i] > 0) {
			ok++
		}
	}
	return float64(ok) / float64(p.N)
}

func TestPerceptronSeparates(t *testing.T) {
	rng := newRNG(12)
	for _, c := range []struct {
		name string
		p    svm.Problem
		k    kernel.Kernel
	}{
		{"linear", separable(400, false, rng), kernel.Linear{}},
		{"rbf ring", separable(400, true, rng), kernel.RBF{Gamma: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var epochs []int
			m, err := Perceptron(context.Background(), c.p, c.k, PerceptronConfig{Epochs: 500}, newRNG(1), func(pr svm.Progress) {
				epochs = append(epochs, pr.Step)
			})
			if err != nil {
				t.Fatal(err)
			}
			if m.Info["converged"] != "true" {
				t.Fatalf("not converged: %v", m.Info)
			}
			if got := strconv.Itoa(len(epochs)); got != m.Info["epochs"] || epochs[len(epochs)-1] != len(epochs) {
				t.Errorf("progress after epochs %v, Info epochs %s", epochs, m.Info["epochs"])
			}
			for i, v := range decision(m, c.p) {
				if float64(c.p.Y[i])*v <= 0 {
					t.Fatalf("point %d has margin %g ≤ 0 after convergence", i, float64(c.p.Y[i])*v)
				}
			}
		})
	}
}

func TestDualSGA(t *testing.T) {
	p := ringnorm(400, newRNG(41))
	k := kernel.RBF{Gamma: 0.05}
	smo, err := svm.SMO(context.Background(), p, k, svm.SMOConfig{C: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := svm.DualObjective(k, smo) // f(α) = ½αᵀQα − eᵀα
	cases := []struct {
		name   string
		cfg    DualSGAConfig
		within float64 // relative distance to SMO's objective; 0: only ≤
	}{
		// Without bias the problem lacks yᵀα = 0: its minimum lies below.
		{"no bias", DualSGAConfig{C: 1}, 0},
		{"no bias, sorted", DualSGAConfig{C: 1, SortByAlpha: true, Epochs: 1000}, 0},
		// A bias feature of scale s adds (s²/2)(yᵀα)² and approaches SMO.
		{"bias 3", DualSGAConfig{C: 1, BiasScale: 3, Epochs: 1000}, 0.01},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := DualSGA(context.Background(), p, k, c.cfg, newRNG(1), nil)
			if err != nil {
				t.Fatal(err)
			}
			o, err := strconv.ParseFloat(m.Info["objective"], 64)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("objective %.6f after %s epochs (violation %s), bias %.3f; SMO %.6f, bias %.3f", o, m.Info["epochs"], m.Info["max_violation"], m.Bias, ref, smo.Bias)
			if o > ref+1e-3*math.Abs(ref) {
				t.Errorf("objective %.6f above SMO's %.6f", o, ref)
			}
			if c.within > 0 && math.Abs(o-ref) > c.within*math.Abs(ref) {
				t.Errorf("objective %.6f not within %g of SMO's %.6f", o, c.within, ref)
			}
			if v, _ := strconv.ParseFloat(m.Info["max_violation"], 64); v > 2e-3 {
				t.Errorf("stopped with violation %g", v)
			}
			if c.cfg.BiasScale == 0 && m.Bias != 0 {
				t.Errorf("bias %g without a bias feature", m.Bias)
			}
			for _, v := range m.Coef {
				if math.Abs(v) > 1+1e-12 || v == 0 {
					t.Fatalf("coefficient %g outside (0, C]", v)
				}
			}
			if acc, accSMO := accuracy(m, p), accuracy(smo, p); c.within > 0 && acc < accSMO-0.01 {
				t.Errorf("training accuracy %.4f, SMO %.4f", acc, accSMO)
			}
		})
	}
}

// TestLinearDCDMatchesDualSGA: without bias feature the hinge-loss problem
// of svm.LinearDCD is the bias-free SVM dual that DualSGA solves with a
// linear kernel (an independent implementation); with the feature,
// DualSGA's BiasScale regularises it the same way. The weights agree.
func TestLinearDCDMatchesDualSGA(t *testing.T) {
	p := ringnorm(300, newRNG(9))
	p.D = 5 // the first five features: a problem that is not separable
	x := make([]float32, 0, p.N*p.D)
	for i := 0; i < p.N; i++ {
		x = append(x, p.X[i*20:i*20+5]...)
		x[i*5] += 1
	}
	p.X = x
	for _, bias := range []float64{0, 1, 2} {
		t.Run("B="+strconv.FormatFloat(bias, 'g', -1, 64), func(t *testing.T) {
			m, err := svm.LinearDCD(context.Background(), p, svm.LinearDCDConfig{Loss: svm.Hinge, C: 0.5, Eps: 1e-8, MaxEpochs: 100000, NoBias: bias == 0, BiasValue: bias}, newRNG(2), nil)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := DualSGA(context.Background(), p, kernel.Linear{}, DualSGAConfig{C: 0.5, Epochs: 100000, Tol: 1e-9, BiasScale: bias}, newRNG(3), nil)
			if err != nil {
				t.Fatal(err)
			}
			rw := make([]float64, p.D) // w = Σ_j Coef_j·SV_j
			for j, c := range ref.Coef {
				for f, v := range ref.SV[j*p.D : (j+1)*p.D] {
					rw[f] += c * float64(v)
				}
			}
			for f, w := range m.SV {
				if math.Abs(float64(w)-rw[f]) > 1e-5 {
					t.Errorf("w_%d = %.8g, DualSGA %.8g", f, w, rw[f])
				}
			}
			if math.Abs(m.Bias-ref.Bias) > 1e-5 {
				t.Errorf("bias %.8g, DualSGA %.8g", m.Bias, ref.Bias)
			}
		})
	}
}

// TestRejects: bad inputs are one error naming the solver, never a model.
func TestRejects(t *testing.T) {
	p := separable(50, false, newRNG(1))
	sparse := p
	sparse.X, sparse.Sparse = nil, data.ToCSR(p.X, p.N, p.D)
	weighted := p
	weighted.W = make([]float32, p.N) // any weights: the solvers take none
	weighted.W[0] = 1
	k := kernel.RBF{Gamma: 1}
	ctx := context.Background()
	for _, c := range []struct {
		name string
		p    svm.Problem
		k    kernel.Kernel
		want string
	}{
		{"no kernel", p, nil, "no kernel"},
		{"sparse", sparse, k, "takes dense rows"},
		{"weighted", weighted, k, "takes no point weights"},
		{"one class", svm.Problem{X: p.X[:4], N: 2, D: 2, Y: []float32{1, 1}}, k, "svm:"},
	} {
		_, err1 := Perceptron(ctx, c.p, c.k, PerceptronConfig{}, newRNG(1), nil)
		_, err2 := DualSGA(ctx, c.p, c.k, DualSGAConfig{}, newRNG(1), nil)
		for _, err := range []error{err1, err2} {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.want)
			}
		}
	}
	for i, cfg := range []interface{ Validate() error }{
		PerceptronConfig{Epochs: -1}, DualSGAConfig{C: -1}, DualSGAConfig{Epochs: -1}, DualSGAConfig{Tol: -1},
		DualSGAConfig{BiasScale: math.NaN()}, DualSGAConfig{C: math.Inf(1)},
	} {
		if cfg.Validate() == nil {
			t.Errorf("case %d %#v: no error", i, cfg)
		}
	}
	for _, cfg := range []interface{ Validate() error }{PerceptronConfig{}, DualSGAConfig{}} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("zero %T: %v", cfg, err)
		}
	}
}

// TestCancel: a cancelled context stops both solvers, inside the first epoch
// on a large problem, with the context's error in the chain.
func TestCancel(t *testing.T) {
	p := ringnorm(3000, newRNG(1))
	k := kernel.RBF{Gamma: 0.1}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err1 := Perceptron(ctx, p, k, PerceptronConfig{}, newRNG(1), nil)
	_, err2 := DualSGA(ctx, p, k, DualSGAConfig{}, newRNG(1), nil)
	for _, err := range []error{err1, err2} {
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "in epoch 1") {
			t.Errorf("error %v, want context.Canceled in epoch 1", err)
		}
	}
}
