package svm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/nsvm-go/nsvm/kernel"
)

// PegasosConfig configures kernelized Pegasos. The zero value is the
// paper's setting with T = 10·N.
type PegasosConfig struct {
	// Lambda is the regularisation parameter λ > 0 (default 1e-4, the
	// paper's value everywhere).
	Lambda float64
	// T is the number of iterations (default 10·N).
	T int
	// Batch is the mini-batch size k: 0 or 1 runs Algorithm 0 exactly;
	// k > 1 runs the mini-batch variant (see Pegasos).
	Batch int
}

// Validate reports whether the configuration is usable.
func (c PegasosConfig) Validate() error {
	if c.Lambda < 0 || math.IsNaN(c.Lambda) || math.IsInf(c.Lambda, 0) {
		return fmt.Errorf("svm: Pegasos: lambda must be > 0, got %g", c.Lambda)
	}
	if c.T < 0 {
		return fmt.Errorf("svm: Pegasos: T must be ≥ 1, got %d", c.T)
	}
	if c.Batch < 0 {
		return fmt.Errorf("svm: Pegasos: batch must be ≥ 1, got %d", c.Batch)
	}
	return nil
}

func (c PegasosConfig) withDefaults(n int) PegasosConfig {
	if c.Lambda == 0 {
		c.Lambda = 1e-4
	}
	if c.T == 0 {
		c.T = 10 * n
	}
	if c.Batch == 0 {
		c.Batch = 1
	}
	return c
}

// Pegasos trains a kernel SVM without bias by kernelized Pegasos, exactly
// Algorithm 0 of the NSVM paper (§2; Shalev-Shwartz, Singer, Srebro and
// Cotter, "Pegasos: primal estimated sub-gradient solver for SVM", Math.
// Program. 127, 2011, Fig. 3). It is stochastic sub-gradient descent with
// step 1/(λt) on the primal objective
//
//	min_{f ∈ H}  λ/2·‖f‖²_H + 1/m·Σ_i max(0, 1 − y_i·f(x_i)),
//
// carried out on the coefficients of f = 1/(λ(t−1))·Σ_j α_j·y_j·K(x_j, ·):
// α_{i_1} = 1 for a uniformly drawn i_1; for t = 2, …, T draw i_t uniformly
// and, if y_{i_t}/(λ(t−1))·Σ_j α_j·y_j·K(x_j, x_{i_t}) < 1, set
// α_{i_t} += 1. The model is g(x) = 1/(λT)·Σ_j α_j·y_j·K(x_j, x), bias 0:
// Coef_j = α_j·y_j/(λT).
//
// With Batch = k > 1 it runs the mini-batch variant of the same paper
// (§2.3 with the kernel substitution of §4): at step t a set A_t of k
// distinct indices is drawn uniformly, every i ∈ A_t with
// y_i/(λ(t−1)k)·Σ_j α_j·y_j·K(x_j, x_i) < 1 — all judged against the same
// α^{(t)} — gets α_i += 1 (at t = 1 all of A_1 does, as w_1 = 0). This is
// w_{t+1} = (1 − 1/t)·w_t + 1/(λtk)·Σ_{i∈A_t⁺} y_i·φ(x_i) unrolled, whose
// closed form is w_{t+1} = 1/(λtk)·Σ_j α_j·y_j·φ(x_j); so the model after T
// steps has Coef_j = α_j·y_j/(λTk). With k = 1 this is Algorithm 0.
//
// Only points with α_j > 0 are stored (contiguous float32 rows with their
// squared norms; a dense index→slot map); each step costs one kernel.Row
// over them (k rows for mini-batches) and no
// allocation once the support set stops growing. rng draws the indices.
func Pegasos(ctx context.Context, p Problem, k kernel.Kernel, cfg PegasosConfig, rng *rand.Rand, progress ProgressFunc) (*Model, error) {
	if err := checkInputs(p, k); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults(p.N)
	if cfg.Batch > p.N {
		return nil, fmt.Errorf("svm: Pegasos: batch %d exceeds the %d points", cfg.Batch, p.N)
	}
	s := newPegasos(p, k, cfg.Lambda, cfg.Batch)
	tk := newTicker(ctx, progress)
	for t := 1; t <= cfg.T; t++ {
		if t&1023 == 0 {
			if err := tk.tick(Progress{Step: t - 1, Total: cfg.T, NSV: s.e.len()}); err != nil {
				return nil, err
			}
		}
		if cfg.Batch == 1 {
			s.step(t, rng.IntN(p.N))
		} else {
			s.batchStep(t, rng)
		}
	}
	if err := tk.tick(Progress{Step: cfg.T, Total: cfg.T, NSV: s.e.len()}); err != nil {
		return nil, err
	}
	m := s.e.model(k.Spec(), 1/(cfg.Lambda*float64(cfg.T)*float64(cfg.Batch)), 0)
	m.Info["solver"] = "pegasos"
	m.Info["lambda"] = fmtF(cfg.Lambda)
	m.Info["T"] = strconv.Itoa(cfg.T)
	m.Info["batch"] = strconv.Itoa(cfg.Batch)
	m.Info["violations"] = strconv.Itoa(s.violations)
	m.Info["nsv"] = strconv.Itoa(m.NSV)
	return m, nil
}

// pegasos is the state of a kernelized Pegasos run. The expansion's
// coefficients are α_j·y_j (integers).
type pegasos struct {
	p          Problem
	k          kernel.Kernel
	lambda     float64
	batch      int
	norms      []float32 // ‖x_i‖² of every training point
	e          *expansion
	violations int

	// mini-batch workspaces
	perm  []int32
	cross []float32 // k×nsv kernel values
	viol  []int32
}

func newPegasos(p Problem, k kernel.Kernel, lambda float64, batch int) *pegasos {
	s := &pegasos{p: p, k: k, lambda: lambda, batch: batch, norms: sqNorms(p), e: newExpansion(p.N, p.D)}
	if batch > 1 {
		s.perm = make([]int32, p.N)
		for i := range s.perm {
			s.perm[i] = int32(i)
		}
		s.viol = make([]int32, 0, batch)
	}
	return s
}

// step runs iteration t ≥ 1 of Algorithm 0 on point i and reports whether it
// was a margin violation (α_i += 1).
func (s *pegasos) step(t, i int) bool {
	xi := s.p.row(i)
	yi := float64(s.p.Y[i])
	if t > 1 && yi*s.e.sum(s.k, xi) >= s.lambda*float64(t-1) {
		return false
	}
	s.e.add(i, xi, s.norms[i], yi)
	s.violations++
	return true
}

// batchStep runs iteration t ≥ 1 of the mini-batch variant and returns the
// number of violators.
func (s *pegasos) batchStep(t int, rng *rand.Rand) int {
	k, n := s.batch, s.p.N
	for j := 0; j < k; j++ { // partial Fisher–Yates: a uniform k-subset
		r := j + rng.IntN(n-j)
		s.perm[j], s.perm[r] = s.perm[r], s.perm[j]
	}
	a := s.perm[:k]
	s.viol = s.viol[:0]
	nsv := s.e.len()
	if t == 1 || nsv == 0 {
		s.viol = append(s.viol, a...)
	} else {
		if cap(s.cross) < k*nsv {
			s.cross = make([]float32, k*nsv, 2*k*nsv)
		}
		cross := s.cross[:k*nsv]
		// One kernel row per batch point (kernel.Cross would be one GEMM,
		// but it allocates for the dot-product kernels).
		for j, i := range a {
			s.k.Row(cross[j*nsv:(j+1)*nsv], s.e.x, s.e.norms, s.p.row(int(i)))
		}
		thr := s.lambda * float64(t-1) * float64(k)
		coef := s.e.coef[:nsv]
		for j, i := range a {
			row := cross[j*nsv : (j+1)*nsv]
			var g float64
			for q, c := range coef {
				g += c * float64(row[q])
			}
			if float64(s.p.Y[i])*g < thr {
				s.viol = append(s.viol, i)
			}
		}
	}
	for _, i := range s.viol {
		s.e.add(int(i), s.p.row(int(i)), s.norms[i], float64(s.p.Y[i]))
	}
	s.violations += len(s.viol)
	return len(s.viol)
}
