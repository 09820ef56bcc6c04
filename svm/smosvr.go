package svm

import (
	"context"
	"fmt"
	"math"

	"github.com/nsvm-go/nsvm/kernel"
)

// SMOSVRConfig configures SMOSVR. The zero value is LIBSVM's ε-SVR default
// (svm-train -s 3) apart from the cache size: C = 1, tube ε = 0.1,
// tolerance 1e-3, a 100 MB cache (DefaultCacheMB), shrinking on.
type SMOSVRConfig struct {
	// C is the box constraint C > 0 (default 1; svm-train -c).
	C float64
	// Epsilon is the width ε ≥ 0 of the insensitive tube in target units
	// (default 0.1; svm-train -p). A negative value means exactly 0.
	Epsilon float64
	// Eps is the stopping tolerance on the maximal KKT violation (default
	// 1e-3; svm-train -e).
	Eps float64
	// CacheMB limits the kernel row cache (default DefaultCacheMB; svm-train -m).
	CacheMB int
	// NoShrinking turns the shrinking heuristic off (svm-train -h 0).
	NoShrinking bool
	// Workers is the number of goroutines that compute a kernel row
	// (default 1; rows shorter than 4096 points always use one).
	Workers int
	// MaxIter caps the number of pair updates (default max(10⁷, 200·N)).
	// Reaching it is not an error: Info["max_iter_reached"] is set.
	MaxIter int
}

// Validate reports whether the configuration is usable.
func (c SMOSVRConfig) Validate() error {
	if math.IsNaN(c.Epsilon) || math.IsInf(c.Epsilon, 0) {
		return fmt.Errorf("svm: SMOSVR: epsilon must be finite, got %g", c.Epsilon)
	}
	return c.smo().validate("SMOSVR")
}

func (c SMOSVRConfig) smo() SMOConfig {
	return SMOConfig{C: c.C, Eps: c.Eps, CacheMB: c.CacheMB, NoShrinking: c.NoShrinking, Workers: c.Workers, MaxIter: c.MaxIter}
}

func (c SMOSVRConfig) epsilon() float64 {
	switch {
	case c.Epsilon == 0:
		return 0.1
	case c.Epsilon < 0:
		return 0
	}
	return c.Epsilon
}

// SMOSVR trains an ε-support vector regressor (Vapnik 1995) by SMO on
// LIBSVM's dual (svm-train -s 3; Chang & Lin 2011, §2.3):
//
//	min_{α,α*}  ½(α − α*)ᵀK(α − α*) + ε·Σ_i (α_i + α*_i) + Σ_i z_i·(α*_i − α_i)
//	s.t.        eᵀ(α − α*) = 0,  0 ≤ α_i, α*_i ≤ C,
//
// for targets z_i. It is the solver of SMO on 2l variables: y = (e, −e),
// Q = [K −K; −K K], linear term p = (ε·e − z, ε·e + z), with the same
// second-order working-set selection, shrinking and stopping rule
// (m(α) − M(α) ≤ Eps). Kernel rows of the l points are cached once (LIBSVM's
// SVR_Q) and both variables of a point read the same row. The rows may be
// sparse (p.Sparse), as SMO's; the model's support vectors are then sparse.
//
// The model is the regression function f(x) = Σ_i β_i·K(x_i, x) + b with
// β_i = α_i − α*_i over the points with β_i ≠ 0 (Coef) and b = −ρ, as
// LIBSVM's. Info holds "objective" (the dual objective above, what
// svm-train prints as obj), "rho", "iterations", "nsv" (points with
// β_i ≠ 0), "nbsv" (|β_i| = C), "C" and "epsilon".
func SMOSVR(ctx context.Context, p RegProblem, k kernel.Kernel, cfg SMOSVRConfig, progress ProgressFunc) (*Model, error) {
	if err := checkKernelReg(p, k, "SMOSVR"); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return smoSVR(ctx, p, k, cfg, cfg.smo().withDefaults(2*p.N).countIn(ctx), progress)
}

// smoSVR is SMOSVR on checked inputs with the solver settings scfg.
func smoSVR(ctx context.Context, p RegProblem, k kernel.Kernel, cfg SMOSVRConfig, scfg SMOConfig, progress ProgressFunc) (*Model, error) {
	rc := newRowCache(k, p.rows(), scfg)
	pt := make([]int32, 2*p.N)
	for i := range pt {
		pt[i] = int32(i % p.N)
	}
	s := newSVRSolver(newGatherQ(rc.row, rc.diag, pt, svrSigns(p.N)), p.Y, cfg.epsilon(), nil, scfg)
	tk := newTicker(ctx, progress)
	res, err := s.solve(&tk, scfg.MaxIter)
	if err != nil {
		return nil, err
	}
	beta := svrBeta(res.alpha)
	m := newModel(k.Spec(), p.D, p.Sparse != nil)
	m.Bias = -res.rho
	for i, b := range beta {
		if b != 0 {
			m.addSV(p.vec(i), b)
		}
	}
	m.Info["solver"] = "smo-svr"
	svrInfo(m.Info, res, beta, scfg, cfg.epsilon())
	return m, nil
}

// svrSigns returns y = (e, −e) for 2l variables.
func svrSigns(l int) []int8 {
	y := make([]int8, 2*l)
	for i := range y {
		y[i] = 1
		if i >= l {
			y[i] = -1
		}
	}
	return y
}

// newSVRSolver sets up LIBSVM's ε-SVR dual for targets z over q (2l
// variables, positions i and i + l on point i) from the start beta0 (nil: 0),
// which must satisfy eᵀβ = 0 and |β_i| ≤ C.
func newSVRSolver(q qMatrix, z []float64, eps float64, beta0 []float64, cfg SMOConfig) *smoSolver {
	l := len(z)
	lin := make([]float64, 2*l)
	for i, v := range z {
		lin[i] = eps - v
		lin[i+l] = eps + v
	}
	var a0 []float64
	if beta0 != nil {
		a0 = make([]float64, 2*l)
		for i, b := range beta0 {
			a0[i], a0[i+l] = max(b, 0), max(-b, 0)
		}
	}
	return newSolver(q, 2*l, svrSigns(l), lin, cfg.C, cfg.C, a0, cfg)
}

// svrBeta returns β_i = α_i − α*_i from the 2l dual variables.
func svrBeta(alpha []float64) []float64 {
	l := len(alpha) / 2
	beta := make([]float64, l)
	for i := range beta {
		beta[i] = alpha[i] - alpha[i+l]
	}
	return beta
}

func svrInfo(info map[string]string, r *smoResult, beta []float64, cfg SMOConfig, eps float64) {
	info["C"] = fmtF(cfg.C)
	info["epsilon"] = fmtF(eps)
	var nsv, nbsv int
	for _, b := range beta {
		if b != 0 {
			nsv++
			if math.Abs(b) >= cfg.C {
				nbsv++
			}
		}
	}
	r.solverInfo(info, cfg, nsv, nbsv)
}
