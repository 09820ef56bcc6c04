package svm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// TestLinearDCDPath: each model of a warm-started path has the objective of
// a cold start with its C (to the tolerance), for each loss, with class and
// point weights, on sparse rows; the models come for the costs given, in
// increasing order of C. (That the path is faster than the cold starts is
// BenchmarkLinearDCDPath's to show.)
func TestLinearDCDPath(t *testing.T) {
	p := sparseLinear(600, 300, 20, 1, newRNG(7))
	p.W = make([]float32, p.N)
	rng := newRNG(8)
	for i := range p.W {
		p.W[i] = float32(rng.IntN(4)) / 2
	}
	cs := []float64{0.5, 0.01, 4, 0.03, 0.1, 0.3, 1, 2}
	for _, loss := range allDCDLosses {
		t.Run(loss.String(), func(t *testing.T) {
			cfg := LinearDCDConfig{Loss: loss, WeightPos: 1.5, Eps: 1e-4, MaxEpochs: 100000}
			var seen []float64
			warmEpochs, coldEpochs := 0, 0
			err := LinearDCDPath(t.Context(), p, cfg, cs, newRNG(1), func(i int, m *Model) error {
				if len(seen) > 0 && cs[i] < seen[len(seen)-1] {
					t.Errorf("C = %g after %g", cs[i], seen[len(seen)-1])
				}
				seen = append(seen, cs[i])
				if got := infoFloat(t, m, "C"); got != cs[i] {
					t.Errorf("model %d: C %g, want %g", i, got, cs[i])
				}
				c := cfg
				c.C = cs[i]
				cold, err := LinearDCD(t.Context(), p, c, newRNG(2), nil)
				if err != nil {
					return err
				}
				we, _ := strconv.Atoi(m.Info["epochs"])
				ce, _ := strconv.Atoi(cold.Info["epochs"])
				warmEpochs += we
				coldEpochs += ce
				ow, oc := objective(t, m), objective(t, cold)
				t.Logf("C = %-5g objective warm %.10g (%d epochs), cold %.10g (%d epochs)", cs[i], ow, we, oc, ce)
				if m.Info["max_iter_reached"] != "" || cold.Info["max_iter_reached"] != "" {
					t.Errorf("C = %g: no convergence", cs[i])
				}
				if d := relDiff(ow, oc); d > 1e-5 {
					t.Errorf("C = %g: objective warm %.10g, cold %.10g", cs[i], ow, oc)
				}
				if err := sameModel(m, cold, 1e-2); err != nil {
					t.Errorf("C = %g: warm and cold: %v", cs[i], err)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) != len(cs) {
				t.Fatalf("%d models for %d costs", len(seen), len(cs))
			}
			t.Logf("epochs: path %d, cold starts %d", warmEpochs, coldEpochs)
		})
	}
}

func TestLinearDCDPathErrors(t *testing.T) {
	p := sparseLinear(100, 300, 10, 0.3, newRNG(1))
	ctx := context.Background()
	nop := func(int, *Model) error { return nil }
	for _, cs := range [][]float64{{1, 0}, {-1}, {math.NaN()}, {math.Inf(1)}} {
		if err := LinearDCDPath(ctx, p, LinearDCDConfig{}, cs, newRNG(1), nop); err == nil {
			t.Errorf("costs %v accepted", cs)
		}
	}
	if err := LinearDCDPath(ctx, p, LinearDCDConfig{}, []float64{1}, nil, nop); err == nil {
		t.Error("nil rng accepted")
	}
	if err := LinearDCDPath(ctx, p, LinearDCDConfig{}, []float64{1}, newRNG(1), nil); err == nil {
		t.Error("nil visit accepted")
	}
	if err := LinearDCDPath(ctx, p, LinearDCDConfig{Loss: 9}, []float64{1}, newRNG(1), nop); err == nil {
		t.Error("unknown loss accepted")
	}
	if err := LinearDCDPath(ctx, p, LinearDCDConfig{}, nil, newRNG(1), nop); err != nil {
		t.Errorf("no costs: %v", err)
	}
	stop := errors.New("stop")
	calls := 0
	err := LinearDCDPath(ctx, p, LinearDCDConfig{}, []float64{1, 2, 3}, newRNG(1), func(int, *Model) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("visit's error: %v after %d calls", err, calls)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := LinearDCDPath(cctx, p, LinearDCDConfig{}, []float64{1}, newRNG(1), nop); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// BenchmarkLinearDCDPath trains the costs 2⁻⁶, 2⁻⁵, …, 2⁴ by LinearDCDPath
// (warm) and by a LinearDCD for each (cold), for each loss, on 5000 dense
// overlapping Gaussian points of 50 features and on 5000 sparse points of
// 2000 features (~30 nonzeros each, a noisy linear rule).
func BenchmarkLinearDCDPath(b *testing.B) {
	var cs []float64
	for e := -6; e <= 4; e++ {
		cs = append(cs, math.Ldexp(1, e))
	}
	for _, set := range []struct {
		name string
		p    Problem
	}{
		{"dense", gaussians(5000, 50, 0.5, newRNG(1))},
		{"sparse", sparseLinear(5000, 2000, 30, 1, newRNG(2))},
	} {
		for _, loss := range allDCDLosses {
			cfg := LinearDCDConfig{Loss: loss}
			for _, warm := range []bool{false, true} {
				name := fmt.Sprintf("%s/%v/cold", set.name, loss)
				if warm {
					name = fmt.Sprintf("%s/%v/warm", set.name, loss)
				}
				b.Run(name, func(b *testing.B) {
					epochs := 0
					count := func(m *Model) {
						e, _ := strconv.Atoi(m.Info["epochs"])
						epochs += e
					}
					for b.Loop() {
						if warm {
							if err := LinearDCDPath(context.Background(), set.p, cfg, cs, newRNG(1), func(_ int, m *Model) error { count(m); return nil }); err != nil {
								b.Fatal(err)
							}
							continue
						}
						for _, c := range cs {
							cfg.C = c
							m, err := LinearDCD(context.Background(), set.p, cfg, newRNG(1), nil)
							if err != nil {
								b.Fatal(err)
							}
							count(m)
						}
					}
					b.ReportMetric(float64(epochs)/float64(b.N), "epochs")
				})
			}
		}
	}
}

// TestLinearPathResume: a run stopped at a bound of epochs and continued
// gives the model of the run that was never stopped, bit for bit; a Train
// on a converged run returns its model again without an epoch more; the
// run that stopped early says so.
func TestLinearPathResume(t *testing.T) {
	p := sparseLinear(500, 300, 20, 1, newRNG(3))
	for _, loss := range allDCDLosses {
		t.Run(loss.String(), func(t *testing.T) {
			cfg := LinearDCDConfig{Eps: 1e-3}
			whole, err := NewLinearPath(p, cfg, newRNG(5))
			if err != nil {
				t.Fatal(err)
			}
			split, _ := NewLinearPath(p, cfg, newRNG(5))
			for _, c := range []float64{0.1, 3} {
				want, err := whole.Train(t.Context(), c, loss, 0)
				if err != nil {
					t.Fatal(err)
				}
				if !whole.Converged() || whole.Epochs() < 3 {
					t.Fatalf("C = %g: %d epochs, converged %v: want a longer converged run", c, whole.Epochs(), whole.Converged())
				}
				short, err := split.Train(t.Context(), c, loss, 2)
				if err != nil {
					t.Fatal(err)
				}
				if split.Converged() || split.Epochs() != 2 || short.Info["max_iter_reached"] != "true" {
					t.Errorf("C = %g: bounded run: %d epochs, converged %v, Info %v", c, split.Epochs(), split.Converged(), short.Info)
				}
				got, err := split.Train(t.Context(), c, loss, 0)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameModel(got, want, 0); err != nil || got.Bias != want.Bias || got.Info["epochs"] != want.Info["epochs"] {
					t.Errorf("C = %g: continued run differs (%v; bias %g, %g; epochs %s, %s)", c, err, got.Bias, want.Bias, got.Info["epochs"], want.Info["epochs"])
				}
				again, err := split.Train(t.Context(), c, loss, 0)
				if err != nil {
					t.Fatal(err)
				}
				if again.Info["epochs"] != want.Info["epochs"] || sameModel(again, want, 0) != nil {
					t.Errorf("C = %g: a converged run moved: %s epochs", c, again.Info["epochs"])
				}
			}
		})
	}
}

// TestLinearPathMatchesDCDPath: the runs of a LinearPath along increasing
// costs are LinearDCDPath's, bit for bit.
func TestLinearPathMatchesDCDPath(t *testing.T) {
	p := sparseLinear(400, 200, 15, 1, newRNG(4))
	cs := []float64{0.03, 0.3, 3}
	var want []*Model
	if err := LinearDCDPath(t.Context(), p, LinearDCDConfig{}, cs, newRNG(9), func(_ int, m *Model) error {
		want = append(want, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	lp, err := NewLinearPath(p, LinearDCDConfig{}, newRNG(9))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		m, err := lp.Train(t.Context(), c, SquaredHinge, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameModel(m, want[i], 0); err != nil || m.Bias != want[i].Bias || m.Info["warm_start_C"] != want[i].Info["warm_start_C"] {
			t.Errorf("C = %g: %v (warm start %q, %q)", c, err, m.Info["warm_start_C"], want[i].Info["warm_start_C"])
		}
	}
}

// TestLinearPathLosses: a path that moves between the losses at one cost
// ends at each loss's own solution (the objective of a cold start, to the
// tolerance), with and without point weights.
func TestLinearPathLosses(t *testing.T) {
	p := sparseLinear(500, 300, 20, 1, newRNG(6))
	for _, weighted := range []bool{false, true} {
		if weighted {
			p.W = make([]float32, p.N)
			for i := range p.W {
				p.W[i] = float32(1 + i%3)
			}
		}
		cfg := LinearDCDConfig{Eps: 1e-5, MaxEpochs: 100000}
		lp, err := NewLinearPath(p, cfg, newRNG(1))
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range []struct {
			c    float64
			loss DCDLoss
		}{{1, SquaredHinge}, {1, Hinge}, {0.3, SquaredHinge}, {0.3, Logistic}, {3, Logistic}, {3, Hinge}} {
			m, err := lp.Train(t.Context(), step.c, step.loss, 0)
			if err != nil {
				t.Fatal(err)
			}
			c := cfg
			c.C, c.Loss = step.c, step.loss
			cold, err := LinearDCD(t.Context(), p, c, newRNG(2), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !lp.Converged() {
				t.Errorf("weighted %v, %v C = %g: no convergence", weighted, step.loss, step.c)
			}
			if ow, oc := objective(t, m), objective(t, cold); relDiff(ow, oc) > 1e-5 {
				t.Errorf("weighted %v, %v C = %g: objective on the path %.10g, cold %.10g", weighted, step.loss, step.c, ow, oc)
			}
		}
	}
}

func TestLinearPathErrors(t *testing.T) {
	p := sparseLinear(100, 300, 10, 0.3, newRNG(1))
	if _, err := NewLinearPath(p, LinearDCDConfig{}, nil); err == nil {
		t.Error("nil rng accepted")
	}
	if _, err := NewLinearPath(p, LinearDCDConfig{Loss: 7}, newRNG(1)); err == nil {
		t.Error("unknown loss accepted")
	}
	lp, err := NewLinearPath(p, LinearDCDConfig{}, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := lp.Train(t.Context(), c, Hinge, 0); err == nil {
			t.Errorf("C = %g accepted", c)
		}
	}
	if _, err := lp.Train(t.Context(), 1, 5, 0); err == nil {
		t.Error("unknown loss accepted by Train")
	}
	if _, err := lp.Train(t.Context(), 1, Hinge, -1); err == nil {
		t.Error("negative epoch bound accepted")
	}
	cctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := lp.Train(cctx, 1, Hinge, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	if lp.Converged() {
		t.Error("a cancelled run converged")
	}
}

// TestMeanLinear: the mean of linear models decides as the mean of their
// decisions, on dense and sparse rows; models that are not linear, or not
// of the same features and classes, are refused.
func TestMeanLinear(t *testing.T) {
	p := sparseLinear(400, 200, 15, 1, newRNG(3))
	lp, err := NewLinearPath(p, LinearDCDConfig{}, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	l2, err := lp.Train(t.Context(), 1, SquaredHinge, 0)
	if err != nil {
		t.Fatal(err)
	}
	l1, err := lp.Train(t.Context(), 1, Hinge, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, err := MeanLinear(l2, l1)
	if err != nil {
		t.Fatal(err)
	}
	if m.Info["loss"] != "l2+l1" || m.Info["epochs"] != l2.Info["epochs"]+"+"+l1.Info["epochs"] {
		t.Errorf("info %v", m.Info)
	}
	differ := false
	for i := range p.N {
		x := p.Sparse.Row(i)
		a, b, got := l2.DecisionVec(x), l1.DecisionVec(x), m.DecisionVec(x)
		if math.Abs(got-(a+b)/2) > 1e-5*max(1, math.Abs(got)) {
			t.Fatalf("row %d: mean model %g, mean of decisions (%g + %g)/2", i, got, a, b)
		}
		differ = differ || math.Abs(a-b) > 1e-3
	}
	if !differ {
		t.Error("the two losses' models decide alike: the test shows nothing")
	}
	if _, err := MeanLinear(); err == nil {
		t.Error("no models: no error")
	}
	other := &Model{Kernel: l1.Kernel, SV: l1.SV[:10], NSV: 1, D: 10, Coef: []float64{1}}
	rbf := &Model{Kernel: kernel.Spec{Name: "rbf", Gamma: 1}, SV: l1.SV, NSV: 1, D: l1.D, Coef: []float64{1}}
	for _, bad := range []*Model{other, rbf} {
		if _, err := MeanLinear(l2, bad); err == nil || !strings.Contains(err.Error(), "MeanLinear: model 1") {
			t.Errorf("%v: error %v", bad.Kernel, err)
		}
	}
}
