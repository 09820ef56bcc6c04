package svm

import (
	"context"
	"math"
	"strconv"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// checkSVRKKT checks the optimality conditions of the ε-SVR dual at a
// model from SMOSVR, with r_i = y_i − f(x_i): β_i = 0 ⇒ |r_i| ≤ ε,
// 0 < β_i < C ⇒ r_i = ε, −C < β_i < 0 ⇒ r_i = −ε, β_i = C ⇒ r_i ≥ ε,
// β_i = −C ⇒ r_i ≤ −ε, each within tol; and Σ β_i = 0, |β_i| ≤ C.
func checkSVRKKT(t *testing.T, m *Model, p RegProblem, c, eps, tol float64) {
	t.Helper()
	beta := make([]float64, p.N)
	next := 0
	for i := 0; i < p.N && next < m.NSV; i++ {
		if slicesEqual(p.row(i), m.SV[next*m.D:(next+1)*m.D]) {
			beta[i] = m.Coef[next]
			next++
		}
	}
	if next != m.NSV {
		t.Fatalf("only %d of %d support vectors are training points in order", next, m.NSV)
	}
	var sum float64
	bad := 0
	for i, b := range beta {
		sum += b
		if math.Abs(b) > c*(1+1e-12) {
			t.Fatalf("|β_%d| = %g > C = %g", i, math.Abs(b), c)
		}
		r := p.Y[i] - m.Decision(p.row(i))
		var ok bool
		switch {
		case b == 0:
			ok = math.Abs(r) <= eps+tol
		case b >= c:
			ok = r >= eps-tol
		case b <= -c:
			ok = r <= -eps+tol
		case b > 0:
			ok = math.Abs(r-eps) <= tol
		default:
			ok = math.Abs(r+eps) <= tol
		}
		if !ok {
			bad++
			if bad <= 5 {
				t.Errorf("point %d: β = %g, residual %g violates the KKT conditions (ε = %g, C = %g)", i, b, r, eps, c)
			}
		}
	}
	if math.Abs(sum) > 1e-9*c*float64(p.N) {
		t.Errorf("Σβ = %g", sum)
	}
}

// TestSMOSVRKKT: the solution satisfies the optimality conditions on
// several kernels and parameters, with and without shrinking, and with a
// cache of two rows (constant evictions).
func TestSMOSVRKKT(t *testing.T) {
	for _, c := range []struct {
		name string
		k    kernel.Kernel
		cfg  SMOSVRConfig
	}{
		{"rbf", kernel.RBF{Gamma: 1}, SMOSVRConfig{C: 1, Epsilon: 0.1, Eps: 1e-6}},
		{"rbf C=100", kernel.RBF{Gamma: 1}, SMOSVRConfig{C: 100, Epsilon: 0.05, Eps: 1e-6}},
		{"rbf ε=0", kernel.RBF{Gamma: 2}, SMOSVRConfig{C: 10, Epsilon: -1, Eps: 1e-6}},
		{"rbf no shrinking", kernel.RBF{Gamma: 1}, SMOSVRConfig{C: 3, Epsilon: 0.1, Eps: 1e-6, NoShrinking: true}},
		{"linear", kernel.Linear{}, SMOSVRConfig{C: 0.5, Epsilon: 0.2, Eps: 1e-6}},
		{"poly", kernel.Poly{Gamma: 0.5, Coef0: 1, Degree: 3}, SMOSVRConfig{C: 1, Epsilon: 0.1, Eps: 1e-6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := sine(300, 2, 1)
			m, err := SMOSVR(context.Background(), p, c.k, c.cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkSVRKKT(t, m, p, c.cfg.C, c.cfg.epsilon(), 1e-4)
		})
	}
}

// TestSMOSVRCacheAndShrinking: a cache of two rows and shrinking off give
// the solution of the default run.
func TestSMOSVRCacheAndShrinking(t *testing.T) {
	p := sine(400, 0, 3)
	k := kernel.RBF{Gamma: 1}
	cfg := SMOSVRConfig{C: 10, Epsilon: 0.05, Eps: 1e-7}
	ref, err := SMOSVR(context.Background(), p, k, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	refObj := objective(t, ref)
	for _, v := range []struct {
		name  string
		cfg   SMOSVRConfig
		cache int
	}{
		{"no shrinking", SMOSVRConfig{C: 10, Epsilon: 0.05, Eps: 1e-7, NoShrinking: true}, 0},
		{"tiny cache", cfg, 1},
	} {
		t.Run(v.name, func(t *testing.T) {
			scfg := v.cfg.smo().withDefaults(2 * p.N)
			if v.cache > 0 {
				scfg.cacheValues = v.cache
			}
			m, err := smoSVR(context.Background(), p, k, v.cfg, scfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := relDiff(objective(t, m), refObj); d > 1e-9 {
				t.Errorf("objective %.12g, default run %.12g", objective(t, m), refObj)
			}
			for i := 0; i < p.N; i += 7 {
				x := p.row(i)
				if d := math.Abs(m.Decision(x) - ref.Decision(x)); d > 1e-4 {
					t.Fatalf("point %d: prediction %g, default run %g", i, m.Decision(x), ref.Decision(x))
				}
			}
		})
	}
}

// TestSMOSVRFit: ε-SVR fits the noisy sine (noise sd 0.1) to the noise
// level, carries an offset in the bias, and ε = 0 keeps every point a
// support vector.
func TestSMOSVRFit(t *testing.T) {
	for _, c := range []struct {
		name    string
		shift   float64
		cfg     SMOSVRConfig
		maxRMSE float64
	}{
		{"default", 0, SMOSVRConfig{}, 0.04},
		{"C=100", 0, SMOSVRConfig{C: 100, Epsilon: 0.1}, 0.04},
		{"shift 10", 10, SMOSVRConfig{C: 10, Epsilon: 0.1}, 0.04},
	} {
		t.Run(c.name, func(t *testing.T) {
			train, test := sine(500, c.shift, 1), sine(500, c.shift, 2)
			m, err := SMOSVR(context.Background(), train, kernel.RBF{Gamma: 1}, c.cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			e := rmse(m, test, c.shift)
			t.Logf("RMSE %.4f, b = %.3f, %d SV, %s iterations", e, m.Bias, m.NSV, m.Info["iterations"])
			if e > c.maxRMSE {
				t.Errorf("RMSE %.4f > %g", e, c.maxRMSE)
			}
			if c.shift != 0 && math.Abs(m.Bias-c.shift) > 1 {
				t.Errorf("bias %g, want about %g", m.Bias, c.shift)
			}
			if nsv, _ := strconv.Atoi(m.Info["nsv"]); nsv != m.NSV {
				t.Errorf("Info nsv %d, model NSV %d", nsv, m.NSV)
			}
		})
	}
	p := sine(200, 0, 5)
	m, err := SMOSVR(context.Background(), p, kernel.RBF{Gamma: 1}, SMOSVRConfig{Epsilon: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.NSV < p.N-2 {
		t.Errorf("ε = 0: %d support vectors of %d points", m.NSV, p.N)
	}
}

func TestSMOSVRErrors(t *testing.T) {
	p := sine(50, 0, 1)
	ctx := context.Background()
	for _, cfg := range []SMOSVRConfig{{C: -1}, {Epsilon: math.NaN()}, {Eps: math.Inf(1)}, {CacheMB: -1}, {Workers: -1}, {MaxIter: -3}} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
		if _, err := SMOSVR(ctx, p, kernel.RBF{Gamma: 1}, cfg, nil); err == nil {
			t.Errorf("%+v: SMOSVR accepted it", cfg)
		}
	}
	bad := sine(50, 0, 1)
	bad.Y[3] = math.NaN()
	if _, err := SMOSVR(ctx, bad, kernel.RBF{Gamma: 1}, SMOSVRConfig{}, nil); err == nil {
		t.Error("NaN target accepted")
	}
	if _, err := SMOSVR(ctx, p, nil, SMOSVRConfig{}, nil); err == nil {
		t.Error("nil kernel accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := SMOSVR(cctx, p, kernel.RBF{Gamma: 1}, SMOSVRConfig{}, nil); err == nil {
		t.Error("cancelled context: no error")
	}
	m, err := SMOSVR(ctx, p, kernel.RBF{Gamma: 1}, SMOSVRConfig{MaxIter: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Info["max_iter_reached"] != "true" || m.Info["iterations"] != "3" {
		t.Errorf("MaxIter 3: info %v", m.Info)
	}
}
