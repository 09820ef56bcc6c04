package svm

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

func TestNuConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  NuConfig
		want string
	}{
		{NuConfig{Nu: 1.5}, "nu must be in (0, 1], got 1.5"},
		{NuConfig{Nu: -0.1}, "nu must be in (0, 1], got -0.1"},
		{NuConfig{Nu: math.NaN()}, "nu must be in (0, 1], got NaN"},
		{NuConfig{C: -1}, "C must be > 0"},
		{NuConfig{Eps: math.Inf(1)}, "eps must be > 0"},
	} {
		if err := c.cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	if err := (NuConfig{}).Validate(); err != nil {
		t.Errorf("zero value: %v", err)
	}
	if err := (NuConfig{Nu: 1}).Validate(); err != nil {
		t.Errorf("ν = 1: %v", err)
	}
}

func TestNuErrors(t *testing.T) {
	ctx := context.Background()
	p := gaussians(40, 3, 1, newRNG(1))
	k := kernel.RBF{Gamma: 0.5}
	// 10 positives of 40 points: ν·l/2 = 0.6·20 > 10.
	unbalanced := p
	unbalanced.Y = append([]float32(nil), p.Y...)
	n := 0
	for i := range unbalanced.Y {
		if unbalanced.Y[i] > 0 {
			if n++; n > 10 {
				unbalanced.Y[i] = -1
			}
		}
	}
	if _, err := NuSVC(ctx, unbalanced, k, NuConfig{Nu: 0.6}, nil); err == nil || !strings.Contains(err.Error(), "infeasible") {
		t.Errorf("infeasible ν: %v", err)
	}
	if _, err := NuSVC(ctx, unbalanced, k, NuConfig{Nu: 0.4}, nil); err != nil {
		t.Errorf("ν = 0.4 with 10 of 40: %v", err)
	}
	w := p
	w.W = make([]float32, p.N)
	for _, fit := range []func() error{
		func() error { _, err := NuSVC(ctx, w, k, NuConfig{}, nil); return err },
		func() error { _, err := OneClass(ctx, w, k, NuConfig{}, nil); return err },
	} {
		if err := fit(); err == nil || !strings.Contains(err.Error(), "weights") {
			t.Errorf("weights: %v", err)
		}
	}
	if _, err := NuSVC(ctx, p, nil, NuConfig{}, nil); err == nil {
		t.Error("no kernel: no error")
	}
	if _, err := OneClass(ctx, Problem{X: []float32{1}, N: 1, D: 1}, k, NuConfig{}, nil); err == nil {
		t.Error("one row: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := NuSVC(cctx, p, k, NuConfig{}, nil); err == nil {
		t.Error("cancelled context: no error")
	}
	cp := ClassProblem{X: p.X, N: p.N, D: p.D, Y: make([]int, p.N), C: 3}
	for i := range cp.Y {
		cp.Y[i] = min(i/3, 2)
	}
	if _, err := NuSVCOneVsOne(ctx, cp, k, NuConfig{Nu: 0.5}, nil); err == nil || !strings.Contains(err.Error(), "infeasible for classes 0 and 2") {
		t.Errorf("infeasible pair: %v", err)
	}
}

// coefSums returns Σ Coef and Σ |Coef|.
func coefSums(m *Model) (sum, abs float64) {
	for _, c := range m.Coef {
		sum += c
		abs += math.Abs(c)
	}
	return sum, abs
}

// TestNuConstraints checks the constraints of the three ν duals on their
// models: ν-SVC's Σ α_i y_i = 0 and Σ α_i = ν·l with α_i ≤ 1 (coefficients
// α_i·y_i/r), one-class's Σ α_i = ν·l, ν-SVR's Σ β_i = 0 and
// Σ |β_i| ≤ C·ν·l; and the ν-properties on the training points: at most
// a fraction ν of margin errors (outliers, points outside the tube), at
// least ν of support vectors. The free support vectors lie on the margin
// only to within the tolerance (times C = 1/r for ν-SVC), so margin errors
// are counted from 10⁻³ beyond it.
func TestNuConstraints(t *testing.T) {
	ctx := context.Background()
	p := ringnorm(300, 5, newRNG(3))
	k := kernel.RBF{Gamma: 0.2}
	for _, nu := range []float64{0.1, 0.35, 0.8} {
		l := float64(p.N)
		m, err := NuSVC(ctx, p, k, NuConfig{Nu: nu, Eps: 1e-6}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := strconv.ParseFloat(m.Info["r"], 64)
		sum, abs := coefSums(m)
		if math.Abs(sum*r) > 1e-9*l || math.Abs(abs*r-nu*l) > 1e-9*l {
			t.Errorf("ν-SVC ν=%g: Σα_i·y_i = %g, Σα_i = %g (want 0, %g)", nu, sum*r, abs*r, nu*l)
		}
		for _, c := range m.Coef {
			if math.Abs(c)*r > 1+1e-12 {
				t.Fatalf("ν-SVC ν=%g: α = %g > 1", nu, math.Abs(c)*r)
			}
		}
		errs := 0
		for i := 0; i < p.N; i++ {
			if float64(p.Y[i])*m.Decision(p.row(i)) < 1-1e-3 {
				errs++
			}
		}
		t.Logf("ν-SVC ν=%g: C = %s, %d SVs, %d margin errors of %d", nu, m.Info["C"], m.NSV, errs, p.N)
		if float64(errs) > nu*l+1 || float64(m.NSV) < nu*l-1 {
			t.Errorf("ν-SVC ν=%g: %d margin errors and %d SVs of %d points", nu, errs, m.NSV, p.N)
		}

		o, err := OneClass(ctx, p, k, NuConfig{Nu: nu, Eps: 1e-6}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, abs := coefSums(o); math.Abs(abs-nu*l) > 1e-9*l {
			t.Errorf("one-class ν=%g: Σα_i = %g, want %g", nu, abs, nu*l)
		}
		out := 0
		for i := 0; i < p.N; i++ {
			if o.Decision(p.row(i)) < -1e-3 {
				out++
			}
		}
		t.Logf("one-class ν=%g: %d SVs, %d outliers of %d", nu, o.NSV, out, p.N)
		if float64(out) > nu*l+1 || float64(o.NSV) < nu*l-1 {
			t.Errorf("one-class ν=%g: %d outliers and %d SVs of %d points", nu, out, o.NSV, p.N)
		}

		reg := RegProblem{X: p.X, N: p.N, D: p.D, Y: make([]float64, p.N)}
		rng := newRNG(4)
		for i := range reg.Y {
			reg.Y[i] = math.Sin(float64(p.X[i*p.D])) + 0.3*rng.NormFloat64()
		}
		const c = 3
		s, err := NuSVR(ctx, reg, k, NuConfig{Nu: nu, C: c, Eps: 1e-6}, nil)
		if err != nil {
			t.Fatal(err)
		}
		sum, abs = coefSums(s)
		eps, _ := strconv.ParseFloat(s.Info["epsilon"], 64)
		outside := 0
		for i := 0; i < p.N; i++ {
			if math.Abs(s.Decision(p.row(i))-reg.Y[i]) > eps+1e-3 {
				outside++
			}
		}
		t.Logf("ν-SVR ν=%g: ε = %.4g, %d SVs, %d outside the tube", nu, eps, s.NSV, outside)
		if math.Abs(sum) > 1e-9*l || abs > c*nu*l*(1+1e-12) {
			t.Errorf("ν-SVR ν=%g: Σβ = %g, Σ|β| = %g > Cνl = %g", nu, sum, abs, c*nu*l)
		}
		if float64(outside) > nu*l+1 || float64(s.NSV) < nu*l-1 {
			t.Errorf("ν-SVR ν=%g: %d outside the tube and %d SVs of %d points", nu, outside, s.NSV, p.N)
		}
	}
}

// TestNuSVCEqualsSMO: the ν-SVC solution is the C-SVC solution for
// C = 1/r — SMO at that C gives the same decision function.
func TestNuSVCEqualsSMO(t *testing.T) {
	p := ringnorm(400, 8, newRNG(7))
	k := kernel.RBF{Gamma: 0.1}
	m, err := NuSVC(context.Background(), p, k, NuConfig{Nu: 0.4, Eps: 1e-7}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := strconv.ParseFloat(m.Info["C"], 64)
	s := mustSMO(t, p, k, SMOConfig{C: c, Eps: 1e-7})
	var maxDiff float64
	for i := 0; i < p.N; i++ {
		maxDiff = max(maxDiff, math.Abs(m.Decision(p.row(i))-s.Decision(p.row(i))))
	}
	t.Logf("C = %g: max |Δ decision| %.2g", c, maxDiff)
	if maxDiff > 1e-4 {
		t.Errorf("ν-SVC and C-SVC at C = 1/r differ by up to %g", maxDiff)
	}
}

// TestNuShrinkingAndMatrix: shrinking, a tiny cache (evictions) and the
// KernelMatrix forms give the same models as the plain runs.
func TestNuShrinkingAndMatrix(t *testing.T) {
	ctx := context.Background()
	p := ringnorm(300, 6, newRNG(9))
	k := kernel.RBF{Gamma: 0.15}
	reg := RegProblem{X: p.X, N: p.N, D: p.D, Y: make([]float64, p.N)}
	for i := range reg.Y {
		reg.Y[i] = float64(p.X[i*p.D]) * float64(p.Y[i])
	}
	km := NewKernelMatrix(k, p.X, p.N, p.D)
	idx := seq(0, p.N)
	cfg := NuConfig{Nu: 0.3, C: 2, Eps: 1e-7}
	type fits struct {
		name string
		fit  func(NuConfig) (*Model, error)
		mat  func() (*Model, error)
	}
	for _, f := range []fits{
		{"nu-svc", func(c NuConfig) (*Model, error) { return NuSVC(ctx, p, k, c, nil) },
			func() (*Model, error) { return km.NuSVC(ctx, idx, p.Y, cfg, nil) }},
		{"one-class", func(c NuConfig) (*Model, error) { return OneClass(ctx, p, k, c, nil) },
			func() (*Model, error) { return km.OneClass(ctx, idx, cfg, nil) }},
		{"nu-svr", func(c NuConfig) (*Model, error) { return NuSVR(ctx, reg, k, c, nil) },
			func() (*Model, error) { return km.NuSVR(ctx, idx, reg.Y, cfg, nil) }},
	} {
		base, err := f.fit(cfg)
		if err != nil {
			t.Fatal(err)
		}
		noShrink := cfg
		noShrink.NoShrinking = true
		others := map[string]func() (*Model, error){
			"no shrinking": func() (*Model, error) { return f.fit(noShrink) },
			"matrix":       f.mat,
			"small cache": func() (*Model, error) {
				c := cfg.smo().withDefaults(2 * p.N)
				c.cacheValues = 5 * p.N
				switch f.name {
				case "nu-svc":
					y := signs(p.Y)
					res, err := nuSVC(ctx, newSVCQRows(k, problemRows(p, nil), y, c), y, cfg.nu(), c, nil)
					if err != nil {
						return nil, err
					}
					m := newModel(k.Spec(), p.D, false)
					nuSVCModel(m, res, y, cfg.nu(), c, p.vec)
					return m, nil
				case "one-class":
					y := make([]int8, p.N)
					for i := range y {
						y[i] = 1
					}
					res, err := oneClass(ctx, newSVCQRows(k, problemRows(p, nil), y, c), p.N, cfg.nu(), c, nil)
					if err != nil {
						return nil, err
					}
					m := newModel(k.Spec(), p.D, false)
					oneClassModel(m, res, cfg.nu(), c, p.vec)
					return m, nil
				}
				rc := newRowCache(k, reg.rows(), c)
				pt := make([]int32, 2*p.N)
				for i := range pt {
					pt[i] = int32(i % p.N)
				}
				res, err := nuSVR(ctx, newGatherQ(rc.row, rc.diag, pt, svrSigns(p.N)), reg.Y, cfg.nu(), c, nil)
				if err != nil {
					return nil, err
				}
				m := newModel(k.Spec(), p.D, false)
				nuSVRModel(m, res, cfg.nu(), c, reg.vec)
				return m, nil
			},
		}
		for name, fit := range others {
			m, err := fit()
			if err != nil {
				t.Fatal(err)
			}
			var maxDiff float64
			for i := 0; i < p.N; i++ {
				maxDiff = max(maxDiff, math.Abs(m.Decision(p.row(i))-base.Decision(p.row(i))))
			}
			if maxDiff > 1e-4 {
				t.Errorf("%s, %s: decisions differ by up to %g", f.name, name, maxDiff)
			}
			if m.Info["svm_type"] != base.Info["svm_type"] {
				t.Errorf("%s, %s: svm_type %q, want %q", f.name, name, m.Info["svm_type"], base.Info["svm_type"])
			}
		}
	}
}
