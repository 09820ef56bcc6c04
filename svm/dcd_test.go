package svm

import (
	"context"
	"math"
	"strconv"
	"testing"
)

func infoFloat(t testing.TB, m *Model, key string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(m.Info[key], 64)
	if err != nil {
		t.Fatalf("Info[%q] = %q: %v", key, m.Info[key], err)
	}
	return v
}

// TestLinearDCDDuality: at a tight tolerance the primal objective of w
// equals minus the dual objective of α (strong duality), for both losses,
// with and without the bias feature, with class weights and with shrinking
// off.
func TestLinearDCDDuality(t *testing.T) {
	p := gaussians(600, 8, 1, newRNG(4))
	for i := 0; i < p.N; i++ {
		p.X[i*p.D+2] += 2 // off the origin: the bias matters
	}
	for _, c := range []struct {
		name string
		cfg  LinearDCDConfig
	}{
		{"l2", LinearDCDConfig{C: 1}},
		{"l2 no bias", LinearDCDConfig{C: 1, NoBias: true}},
		{"l2 B=3 weighted", LinearDCDConfig{C: 0.5, BiasValue: 3, WeightPos: 2, WeightNeg: 0.5}},
		{"l1", LinearDCDConfig{Loss: Hinge, C: 0.1}},
		{"l1 no bias no shrinking", LinearDCDConfig{Loss: Hinge, C: 0.1, NoBias: true, NoShrinking: true}},
		{"l1 weighted", LinearDCDConfig{Loss: Hinge, C: 0.05, WeightPos: 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Eps, cfg.MaxEpochs = 1e-7, 100000
			m, err := LinearDCD(context.Background(), p, cfg, newRNG(1), nil)
			if err != nil {
				t.Fatal(err)
			}
			primal, dual := infoFloat(t, m, "primal_objective"), objective(t, m)
			t.Logf("primal %.10g, dual %.10g, %s epochs", primal, dual, m.Info["epochs"])
			if m.Info["max_iter_reached"] != "" {
				t.Fatal("no convergence")
			}
			if gap := primal + dual; gap < -1e-9*primal || gap > 1e-6*primal {
				t.Errorf("duality gap %.3g (primal %.10g, dual %.10g)", gap, primal, dual)
			}
			if c.cfg.NoBias && m.Bias != 0 {
				t.Errorf("NoBias: bias %g", m.Bias)
			}
		})
	}
}

// TestLinearDCDBiasFeature: the bias of LinearDCD is exactly a constant
// feature: training with BiasValue B equals training without bias on the
// points with B appended (same random order), and the constant feature's
// weight times B is the model's bias.
func TestLinearDCDBiasFeature(t *testing.T) {
	p := gaussians(400, 6, 1, newRNG(12))
	const b = 1.5
	aug := Problem{N: p.N, D: p.D + 1, Y: p.Y}
	for i := 0; i < p.N; i++ {
		aug.X = append(append(aug.X, p.row(i)...), b)
	}
	for _, loss := range []DCDLoss{SquaredHinge, Hinge} {
		m, err := LinearDCD(context.Background(), p, LinearDCDConfig{Loss: loss, C: 0.3, BiasValue: b, Eps: 1e-5}, newRNG(5), nil)
		if err != nil {
			t.Fatal(err)
		}
		ma, err := LinearDCD(context.Background(), aug, LinearDCDConfig{Loss: loss, C: 0.3, NoBias: true, Eps: 1e-5}, newRNG(5), nil)
		if err != nil {
			t.Fatal(err)
		}
		w, wa := m.evalW(), ma.evalW()
		for j := range w {
			if math.Abs(w[j]-wa[j]) > 1e-6 {
				t.Errorf("%v: w_%d = %.9g, augmented %.9g", loss, j, w[j], wa[j])
			}
		}
		if math.Abs(m.Bias-wa[p.D]*b) > 1e-6 {
			t.Errorf("%v: bias %.9g, augmented weight·B %.9g", loss, m.Bias, wa[p.D]*b)
		}
		if d := relDiff(objective(t, m), objective(t, ma)); d > 1e-9 {
			t.Errorf("%v: objective %.12g, augmented %.12g", loss, objective(t, m), objective(t, ma))
		}
	}
}

// TestLinearDCDDeterministic: one seed, one model; another seed reaches the
// same optimum by another path.
func TestLinearDCDDeterministic(t *testing.T) {
	p := gaussians(500, 10, 0.8, newRNG(6))
	cfg := LinearDCDConfig{C: 1, Eps: 1e-6}
	a, _ := LinearDCD(context.Background(), p, cfg, newRNG(7), nil)
	b, _ := LinearDCD(context.Background(), p, cfg, newRNG(7), nil)
	c, _ := LinearDCD(context.Background(), p, cfg, newRNG(8), nil)
	for j := range a.SV {
		if a.SV[j] != b.SV[j] {
			t.Fatalf("same seed: w_%d = %g and %g", j, a.SV[j], b.SV[j])
		}
	}
	if a.Bias != b.Bias || a.Info["epochs"] != b.Info["epochs"] {
		t.Errorf("same seed: bias %g / %g, epochs %s / %s", a.Bias, b.Bias, a.Info["epochs"], b.Info["epochs"])
	}
	if d := relDiff(objective(t, a), objective(t, c)); d > 1e-6 {
		t.Errorf("seeds 7 and 8: objectives %.10g and %.10g", objective(t, a), objective(t, c))
	}
	if acc := accuracy(a, p); acc < 0.75 {
		t.Errorf("training accuracy %.3f", acc)
	}
}

func TestLinearDCDErrors(t *testing.T) {
	p := gaussians(50, 3, 1, newRNG(1))
	ctx := context.Background()
	for _, cfg := range []LinearDCDConfig{{C: -1}, {Eps: math.NaN()}, {MaxEpochs: -1}, {Loss: 7}, {WeightPos: -2}, {BiasValue: math.Inf(1)}} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
		if _, err := LinearDCD(ctx, p, cfg, newRNG(1), nil); err == nil {
			t.Errorf("%+v: LinearDCD accepted it", cfg)
		}
	}
	if _, err := LinearDCD(ctx, p, LinearDCDConfig{}, nil, nil); err == nil {
		t.Error("nil rng accepted")
	}
	zero := p
	zero.W = make([]float32, p.N)
	if _, err := LinearDCD(ctx, zero, LinearDCDConfig{}, newRNG(1), nil); err == nil {
		t.Error("all weights 0 accepted")
	}
	bad := gaussians(50, 3, 1, newRNG(1))
	bad.X[7] = float32(math.NaN())
	if _, err := LinearDCD(ctx, bad, LinearDCDConfig{}, newRNG(1), nil); err == nil {
		t.Error("NaN feature accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := LinearDCD(cctx, p, LinearDCDConfig{}, newRNG(1), nil); err == nil {
		t.Error("cancelled context: no error")
	}
	m, err := LinearDCD(ctx, gaussians(400, 3, 0.2, newRNG(2)), LinearDCDConfig{Loss: Hinge, C: 100, Eps: 1e-9, MaxEpochs: 2}, newRNG(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Info["max_iter_reached"] != "true" || m.Info["epochs"] != "2" {
		t.Errorf("MaxEpochs 2: info %v", m.Info)
	}
	var steps []int
	if _, err := LinearDCD(ctx, p, LinearDCDConfig{}, newRNG(1), func(pr Progress) { steps = append(steps, pr.Step) }); err != nil {
		t.Fatal(err)
	}
	if len(steps) < 2 {
		t.Errorf("progress called %d times", len(steps))
	}
}

// TestLinearDCDSVRDuality: strong duality for both losses, and a linear
// target is recovered.
func TestLinearDCDSVRDuality(t *testing.T) {
	rng := newRNG(3)
	p := RegProblem{N: 500, D: 4, Y: make([]float64, 500)}
	for i := 0; i < p.N; i++ {
		x := []float32{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}
		p.X = append(p.X, x...)
		p.Y[i] = 3 + 2*float64(x[0]) - float64(x[2]) + 0.1*rng.NormFloat64()
	}
	for _, c := range []struct {
		name string
		cfg  LinearDCDSVRConfig
	}{
		{"l2", LinearDCDSVRConfig{C: 1, Epsilon: 0.1}},
		{"l2 ε=0", LinearDCDSVRConfig{C: 0.1, Epsilon: -1}},
		{"l1", LinearDCDSVRConfig{Loss: Hinge, C: 0.1, Epsilon: 0.05}},
		{"l1 no shrinking", LinearDCDSVRConfig{Loss: Hinge, C: 0.1, Epsilon: 0.05, NoShrinking: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Eps, cfg.MaxEpochs = 1e-9, 100000
			m, err := LinearDCDSVR(context.Background(), p, cfg, newRNG(1), nil)
			if err != nil {
				t.Fatal(err)
			}
			primal, dual := infoFloat(t, m, "primal_objective"), objective(t, m)
			t.Logf("primal %.10g, dual %.10g, %s epochs, w %v, b %.4f", primal, dual, m.Info["epochs"], m.SV, m.Bias)
			if gap := primal + dual; gap < -1e-9*primal || gap > 1e-5*primal {
				t.Errorf("duality gap %.3g (primal %.10g, dual %.10g)", gap, primal, dual)
			}
			if math.Abs(float64(m.SV[0])-2) > 0.05 || math.Abs(float64(m.SV[2])+1) > 0.05 || math.Abs(m.Bias-3) > 0.1 {
				t.Errorf("w = %v, b = %g; want about (2, 0, −1, 0) and 3", m.SV, m.Bias)
			}
		})
	}
	if _, err := LinearDCDSVR(context.Background(), p, LinearDCDSVRConfig{Epsilon: math.NaN()}, newRNG(1), nil); err == nil {
		t.Error("NaN epsilon accepted")
	}
	if _, err := LinearDCDSVR(context.Background(), p, LinearDCDSVRConfig{}, nil, nil); err == nil {
		t.Error("nil rng accepted")
	}
	if err := (LinearDCDSVRConfig{Loss: Logistic}).Validate(); err == nil {
		t.Error("LinearDCDSVR accepted the logistic loss")
	}
}

// TestLinearDecisionBatch: DecisionBatch of a linear model, split across
// goroutines for large batches, equals Decision row by row.
func TestLinearDecisionBatch(t *testing.T) {
	p := gaussians(20000, 20, 1, newRNG(2))
	m, err := LinearDCD(context.Background(), subset(p, 0, 500), LinearDCDConfig{}, newRNG(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	dec := make([]float64, p.N)
	m.DecisionBatch(dec, p.X, p.N)
	for i := 0; i < p.N; i++ {
		if want := m.Decision(p.row(i)); dec[i] != want {
			t.Fatalf("row %d: DecisionBatch %.17g, Decision %.17g", i, dec[i], want)
		}
	}
}
