package svm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nsvm-go/nsvm/kernel"
)

func objective(t testing.TB, m *Model) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(m.Info["objective"], 64)
	if err != nil {
		t.Fatalf("objective %q: %v", m.Info["objective"], err)
	}
	return v
}

func TestProblemValidate(t *testing.T) {
	ok := Problem{X: []float32{0, 1, 2, 3}, N: 2, D: 2, Y: []float32{1, -1}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	nan := float32(math.NaN())
	cases := []struct {
		name string
		p    Problem
	}{
		{"one point", Problem{X: []float32{0, 1}, N: 1, D: 2, Y: []float32{1}}},
		{"no features", Problem{N: 2, D: 0, Y: []float32{1, -1}}},
		{"short X", Problem{X: []float32{0, 1, 2}, N: 2, D: 2, Y: []float32{1, -1}}},
		{"short Y", Problem{X: []float32{0, 1, 2, 3}, N: 2, D: 2, Y: []float32{1}}},
		{"label 0", Problem{X: []float32{0, 1, 2, 3}, N: 2, D: 2, Y: []float32{1, 0}}},
		{"label 2", Problem{X: []float32{0, 1, 2, 3}, N: 2, D: 2, Y: []float32{2, -1}}},
		{"one class", Problem{X: []float32{0, 1, 2, 3}, N: 2, D: 2, Y: []float32{1, 1}}},
		{"NaN", Problem{X: []float32{0, nan, 2, 3}, N: 2, D: 2, Y: []float32{1, -1}}},
		{"Inf", Problem{X: []float32{0, 1, float32(math.Inf(-1)), 3}, N: 2, D: 2, Y: []float32{1, -1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.p.Validate(); err == nil {
				t.Error("no error")
			}
			if _, err := SMO(context.Background(), c.p, kernel.Linear{}, SMOConfig{}, nil); err == nil {
				t.Error("SMO accepted it")
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	bad := []interface{ Validate() error }{
		SMOConfig{C: -1}, SMOConfig{Workers: -1}, SMOConfig{Eps: math.NaN()}, SMOConfig{CacheMB: -1}, SMOConfig{MaxIter: -1},
		SMOConfig{WeightPos: -1}, SMOConfig{WeightNeg: math.Inf(1)}, SMOSVRConfig{Epsilon: math.NaN()}, SMOSVRConfig{C: -2},
		PegasosConfig{Lambda: -1}, PegasosConfig{T: -1}, PegasosConfig{Batch: -2},
		PegasosLinearConfig{Lambda: math.Inf(1)}, PegasosLinearConfig{T: -1},
		ChunkingConfig{Chunk: -1}, ChunkingConfig{C: -1}, ChunkingConfig{MaxRounds: -1},
	}
	for i, c := range bad {
		if c.Validate() == nil {
			t.Errorf("case %d %#v: no error", i, c)
		}
	}
	good := []interface{ Validate() error }{SMOConfig{}, PegasosConfig{}, PegasosLinearConfig{}, ChunkingConfig{}}
	for _, c := range good {
		if err := c.Validate(); err != nil {
			t.Errorf("zero %T: %v", c, err)
		}
	}
}

func TestChunkingMatchesSMO(t *testing.T) {
	n := 600
	if !testing.Short() {
		n = 1500
	}
	p := ringnorm(n, 20, newRNG(21))
	standardize(p)
	k := kernel.RBF{Gamma: 0.05}
	for _, c := range []float64{1, 10} {
		ref := mustSMO(t, p, k, SMOConfig{C: c})
		m, err := Chunking(context.Background(), p, k, ChunkingConfig{C: c, Chunk: 100}, nil)
		if err != nil {
			t.Fatal(err)
		}
		o, oref := objective(t, m), objective(t, ref)
		t.Logf("C=%g: chunking objective %.6f in %s rounds, SMO %.6f; #SV %d vs %d", c, o, m.Info["rounds"], oref, m.NSV, ref.NSV)
		if relDiff(o, oref) > 1e-3 {
			t.Errorf("C=%g: chunking objective %.6f, SMO %.6f", c, o, oref)
		}
		if d := relDiff(DualObjective(k, m), oref); d > 1e-3 {
			t.Errorf("C=%g: DualObjective of the chunking model %.6f, SMO %.6f", c, DualObjective(k, m), oref)
		}
		if r, _ := strconv.Atoi(m.Info["rounds"]); r < 2 {
			t.Errorf("C=%g: %d rounds: the chunk should not hold everything", c, r)
		}
	}
}

// pegasosRef is Algorithm 0 written out densely: α over all m points, the
// sum over all j with α_j ≠ 0, one kernel Eval per term in float64.
func pegasosRef(p Problem, k kernel.Kernel, lambda float64, T int, rng *rand.Rand) []float64 {
	alpha := make([]float64, p.N)
	alpha[rng.IntN(p.N)] = 1
	for t := 2; t <= T; t++ {
		i := rng.IntN(p.N)
		var s float64
		for j, a := range alpha {
			if a != 0 {
				s += a * float64(p.Y[j]) * k.Eval(p.row(j), p.row(i))
			}
		}
		if float64(p.Y[i])/(lambda*float64(t-1))*s < 1 {
			alpha[i]++
		}
	}
	return alpha
}

func TestPegasosIsAlgorithm0(t *testing.T) {
	p := ringnorm(80, 5, newRNG(2))
	standardize(p)
	k := kernel.RBF{Gamma: 0.2}
	const lambda, T = 0.01, 2000
	ref := pegasosRef(p, k, lambda, T, newRNG(9))
	for _, batch := range []int{0, 1} {
		m, err := Pegasos(context.Background(), p, k, PegasosConfig{Lambda: lambda, T: T, Batch: batch}, newRNG(9), nil)
		if err != nil {
			t.Fatal(err)
		}
		// Coef_j = α_j·y_j/(λT).
		got := make([]float64, p.N)
		next := 0
		for i := 0; i < p.N; i++ {
			if ref[i] == 0 {
				continue
			}
			if next >= m.NSV || !slicesEqual(p.row(i), m.SV[next*p.D:(next+1)*p.D]) {
				t.Fatalf("batch %d: point %d (α=%g) is not the next support vector", batch, i, ref[i])
			}
			got[i] = m.Coef[next] * lambda * T * float64(p.Y[i])
			next++
		}
		if next != m.NSV {
			t.Fatalf("batch %d: %d support vectors, reference %d", batch, m.NSV, next)
		}
		for i := range got {
			if math.Abs(got[i]-ref[i]) > 1e-9 {
				t.Errorf("batch %d: α_%d = %g, reference %g", batch, i, got[i], ref[i])
			}
		}
		if m.Bias != 0 {
			t.Errorf("bias %g", m.Bias)
		}
	}
}

func TestPegasosDeterministic(t *testing.T) {
	p := ringnorm(300, 10, newRNG(4))
	k := kernel.RBF{Gamma: 0.1}
	fit := func(seed uint64, batch int) *Model {
		m, err := Pegasos(context.Background(), p, k, PegasosConfig{T: 3000, Batch: batch}, newRNG(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, batch := range []int{1, 8} {
		a, b, c := fit(1, batch), fit(1, batch), fit(2, batch)
		if !slices.Equal(a.SV, b.SV) || !slices.Equal(a.Coef, b.Coef) {
			t.Errorf("batch %d: same seed, different models", batch)
		}
		if slices.Equal(a.Coef, c.Coef) && slices.Equal(a.SV, c.SV) {
			t.Errorf("batch %d: different seeds, same model", batch)
		}
	}
}

// TestPegasosAccuracy: on two overlapping Gaussians Pegasos with
// λ = 1/(C·N) reaches the test accuracy of SMO with the same C within a
// point, single-sample and mini-batch.
func TestPegasosAccuracy(t *testing.T) {
	rng := newRNG(31)
	n := 1000
	if !testing.Short() {
		n = 3000
	}
	train, test := gaussians(n, 10, 2, rng), gaussians(4000, 10, 2, rng)
	k := kernel.RBF{Gamma: 0.1}
	const c = 1.0
	ref := accuracy(mustSMO(t, train, k, SMOConfig{C: c}), test)
	for _, b := range []int{1, 16} {
		cfg := PegasosConfig{Lambda: 1 / (c * float64(n)), T: 10 * n / b, Batch: b}
		m, err := Pegasos(context.Background(), train, k, cfg, newRNG(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		acc := accuracy(m, test)
		t.Logf("batch %d, T %d: Pegasos %.2f%% (#SV %d), SMO %.2f%%", b, cfg.T, 100*acc, m.NSV, 100*ref)
		if acc < ref-0.01 {
			t.Errorf("batch %d: Pegasos accuracy %.4f, SMO %.4f", b, acc, ref)
		}
	}
}

func TestPegasosStepAllocs(t *testing.T) {
	p := ringnorm(500, 20, newRNG(1))
	s := newPegasos(p, kernel.RBF{Gamma: 0.05}, 1e-4, 1)
	for i := 0; i < 200; i++ {
		s.e.Add(i, p.row(i), s.norms[i], float64(p.Y[i]))
	}
	step := 1000
	allocs := testing.AllocsPerRun(200, func() {
		step++
		s.step(step, step%200) // points already stored: the set cannot grow
	})
	if allocs != 0 {
		t.Errorf("%g allocations per step", allocs)
	}
	sb := newPegasos(p, kernel.RBF{Gamma: 0.05}, 1e-4, 8)
	for i := 0; i < p.N; i++ {
		sb.e.Add(i, p.row(i), sb.norms[i], float64(p.Y[i]))
	}
	rng := newRNG(1)
	sb.batchStep(2, rng)
	allocs = testing.AllocsPerRun(100, func() {
		step++
		sb.batchStep(step, rng)
	})
	if allocs != 0 {
		t.Errorf("%g allocations per mini-batch step", allocs)
	}
}

func TestPegasosLinear(t *testing.T) {
	rng := newRNG(8)
	train, test := blobs(600, 5, 0.5, rng), blobs(600, 5, 0.5, rng)
	for _, c := range []PegasosLinearConfig{
		{Lambda: 1e-3},
		{Lambda: 1e-3, Project: true},
		{Lambda: 1e-3, Bias: true},
	} {
		m, err := PegasosLinear(context.Background(), train, c, newRNG(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		acc := accuracy(m, test)
		obj := objective(t, m)
		if acc < 0.99 {
			t.Errorf("%+v: test accuracy %.3f", c, acc)
		}
		if obj <= 0 || obj > 0.5 {
			t.Errorf("%+v: primal objective %g", c, obj)
		}
		if c.Project {
			if nrm := math.Sqrt(sqNorm64(m.SV) + m.Bias*m.Bias); nrm > 1/math.Sqrt(c.Lambda)*(1+1e-6) {
				t.Errorf("‖w‖ = %g outside the ball", nrm)
			}
		}
		if !c.Bias && m.Bias != 0 {
			t.Errorf("bias %g without Bias", m.Bias)
		}
		if m.Kernel.Name != "linear" || m.NSV != 1 {
			t.Errorf("model %v with %d SVs", m.Kernel, m.NSV)
		}
	}
	// A shifted problem needs the bias.
	sh := blobs(600, 3, 0.5, newRNG(3))
	for i := 0; i < sh.N; i++ {
		sh.X[i*sh.D] += 3
	}
	m0, _ := PegasosLinear(context.Background(), sh, PegasosLinearConfig{Lambda: 1e-3}, newRNG(1), nil)
	m1, _ := PegasosLinear(context.Background(), sh, PegasosLinearConfig{Lambda: 1e-3, Bias: true}, newRNG(1), nil)
	if a0, a1 := accuracy(m0, sh), accuracy(m1, sh); a1 < 0.98 || a1 <= a0 {
		t.Errorf("shifted data: accuracy without bias %.3f, with bias %.3f", a0, a1)
	}
}

func TestSolversCancel(t *testing.T) {
	p := ringnorm(3000, 5, newRNG(1))
	k := kernel.RBF{Gamma: 0.1}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	runs := map[string]func() error{
		"pegasos": func() error {
			_, err := Pegasos(ctx, p, k, PegasosConfig{T: 5000}, newRNG(1), nil)
			return err
		},
		"pegasos-linear": func() error {
			_, err := PegasosLinear(ctx, p, PegasosLinearConfig{T: 5000}, newRNG(1), nil)
			return err
		},
		"chunking": func() error {
			_, err := Chunking(ctx, p, k, ChunkingConfig{Chunk: 50}, nil)
			return err
		},
	}
	for name, run := range runs {
		if err := run(); err == nil {
			t.Errorf("%s: no error with a cancelled context", name)
		}
	}
}

func TestProgress(t *testing.T) {
	p := ringnorm(400, 5, newRNG(1))
	k := kernel.RBF{Gamma: 0.1}
	var last Progress
	calls := 0
	f := func(pr Progress) { last = pr; calls++ }
	if _, err := Pegasos(context.Background(), p, k, PegasosConfig{T: 5000}, newRNG(1), f); err != nil {
		t.Fatal(err)
	}
	if calls < 2 || last.Step != 5000 || last.Total != 5000 || last.NSV == 0 {
		t.Errorf("Pegasos: %d calls, last %+v", calls, last)
	}
	calls = 0
	m, err := SMO(context.Background(), p, k, SMOConfig{}, f)
	if err != nil {
		t.Fatal(err)
	}
	if calls < 2 || last.NSV != m.NSV || last.Gap >= 1e-3 || last.Objective != objective(t, m) {
		t.Errorf("SMO: %d calls, last %+v", calls, last)
	}
}

// TestSMOStopsWithinAStep: SMO polls its context at every step, not only
// at the progress reports of every thousandth, whose steps on many rows
// may take seconds. (A cancellation that falls on a report's step, one in
// a thousand, is tried again.)
func TestSMOStopsWithinAStep(t *testing.T) {
	p := ringnorm(3000, 5, newRNG(2))
	for try := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := SMO(ctx, p, kernel.RBF{Gamma: 2}, SMOConfig{C: 100}, func(pr Progress) {
			if pr.Step == 0 {
				// Cancelled from another goroutine a moment after the
				// first report, while the solver runs on.
				go func() { time.Sleep(time.Duration(10+try) * time.Millisecond); cancel() }()
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("SMO: %v, want a cancelled run", err)
		}
		var steps int
		if _, e := fmt.Sscanf(err.Error(), "svm: stopped after %d steps", &steps); e != nil {
			t.Fatalf("SMO: %v", err)
		}
		if steps%1000 != 0 {
			return
		}
	}
	t.Fatal("SMO stopped only at its progress reports, not at the step its context was cancelled at")
}
