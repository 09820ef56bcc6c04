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
	// Bias adds an unregularised bias b to the decision function, learnt by
	// its own sub-gradient step (see Pegasos). False keeps the paper's
	// bias-free Algorithm 0 exactly.
	Bias bool
	// Workers is the number of goroutines per kernel row (default 1):
	// with 2 or more, rows over at least 8192 support vectors compute
	// their two halves concurrently, the second on a helper goroutine that
	// spins between rows (kernel.Points.Parallel). The result is the same
	// for any value. On two idle cores a step at 10⁴ (3·10⁴) support
	// vectors of d = 20 takes 5.5–6.5 (20–24) µs instead of 10.6–10.9
	// (42–45) (AVX-512 machine; bench/README.md); on cores shared with
	// other work the spinning helper makes it slower, hence the default.
	Workers int
}

// Validate reports whether the configuration is usable.
func (c PegasosConfig) Validate() error {
	if err := checkPegasos("Pegasos", c.Lambda, c.T, c.Batch); err != nil {
		return err
	}
	if c.Workers < 0 {
		return fmt.Errorf("svm: Pegasos: workers must be ≥ 0, got %d", c.Workers)
	}
	return nil
}

func (c PegasosConfig) withDefaults(n int) (PegasosConfig, error) {
	var err error
	c.Lambda, c.T, c.Batch, err = pegasosDefaults("Pegasos", c.Lambda, c.T, c.Batch, n)
	return c, err
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
// With Bias, the objective becomes
//
//	min_{f ∈ H, b ∈ ℝ}  λ/2·‖f‖²_H + 1/m·Σ_i max(0, 1 − y_i·(f(x_i) + b)),
//
// with b left out of the regulariser, and b takes its own stochastic
// sub-gradient step. The sub-gradient of the hinge term in b is −y_i on a
// violation and 0 otherwise, so after a violation at step t
//
//	b_{t+1} = b_t + η_t·y_{i_t},   η_t = κ/(λt + 1),   κ = 1/m·Σ_i K(x_i, x_i),
//
// (b_{t+1} = b_t + η_t/k·Σ_{i∈A_t⁺} y_i for mini-batches), b_1 = 0, and the
// margin test reads y_i·(f_t(x_i) + b_t) < 1. This is the second of the
// options the Pegasos paper discusses for a bias (Shalev-Shwartz et al.
// 2011, §6 "Incorporating a bias term": sub-gradient steps on an
// unregularised b; the objective is then no longer strongly convex in b and
// the O(1/(λε)) bound does not cover b). The rate is the Pegasos rate
// 1/(λt) of f with two changes, both chosen on shifted and imbalanced test
// problems against SMO's bias (svm/bias_test.go):
//
//   - the offset t₀ = 1/λ (the form 1/(λ(t+t₀)) of Bottou's SGD schedule,
//     as in scikit-learn's SGDClassifier) caps the step at κ: with the plain
//     1/(λt) the first steps move b by up to 1/λ (10⁴ at the paper's λ), and
//     since b, unlike f, is not shrunk by the regulariser, only violations
//     of the other class undo such a swing, which took longer than T steps
//     at λ = 1e-4 (biases 10–300× SMO's);
//   - κ, the mean of K(x_i, x_i) (1 for RBF and normalised kernels), gives
//     b the stiffness of the features, so that a violation moves f(x_i) and
//     b by comparable amounts also for unnormalised kernels on uncentred
//     data (the scaling of liblinear's bias feature).
//
// For t ≫ 1/λ the step is κ/(λt), the size by which one violation moves f
// (at most 1/(λt)·max K). At a fixed point the violations balance,
// Σ_{i violating} y_i ≈ 0: the stochastic form of the constraint yᵀα = 0
// that a bias adds to the dual C-SVM (C = 1/(λm)). The model's Bias is
// b_{T+1}.
//
// With point weights p.W the loss is the weighted hinge
// 1/m·Σ_i W_i·max(0, 1 − y_i·f(x_i)) (scikit-learn's sample_weight): a
// violation of point i adds W_i to α_i instead of 1, and moves the bias by
// W_i·η_t·y_i; a point of weight 0 never does either.
//
// Only points with α_j > 0 are stored (contiguous float32 rows with their
// squared norms for dense problems, views of the sparse rows otherwise; a
// dense index→slot map); each step costs one kernel row over them (k rows
// for mini-batches: a panel kernel row for dense points, kernel.RowVec for
// sparse ones) and no allocation once the support set stops growing. The
// model's support vectors are sparse when p's rows are. rng draws the
// indices.
func Pegasos(ctx context.Context, p Problem, k kernel.Kernel, cfg PegasosConfig, rng *rand.Rand, progress ProgressFunc) (*Model, error) {
	if err := checkKernelProblem(p, k, "Pegasos"); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg, err := cfg.withDefaults(p.N)
	if err != nil {
		return nil, err
	}
	s := newPegasos(p, k, cfg.Lambda, cfg.Batch)
	if s.e.pts != nil {
		s.e.pts.Parallel = cfg.Workers > 1
		defer s.e.pts.Close()
	}
	s.bias = cfg.Bias
	if s.bias {
		s.kappa = meanSelfKernel(p, k)
	}
	tk := newTicker(ctx, progress)
	err = tk.steps(cfg.T, s.e.Len, func(t int) {
		if cfg.Batch == 1 {
			s.step(t, rng.IntN(p.N))
		} else {
			s.batchStep(t, rng)
		}
	})
	if err != nil {
		return nil, err
	}
	m := s.e.Model(k.Spec(), 1/(cfg.Lambda*float64(cfg.T)*float64(cfg.Batch)), s.b)
	pegasosInfo(m, "pegasos", cfg.Lambda, cfg.T, cfg.Batch)
	m.Info["violations"] = strconv.Itoa(s.violations)
	if cfg.Bias {
		m.Info["bias"] = "true"
	}
	if p.W != nil {
		m.Info["point_weights"] = "true"
	}
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
	e          *Expansion
	violations int
	bias       bool    // learn an unregularised bias
	b          float64 // the bias b_t
	kappa      float64 // bias step scale: mean K(x_i, x_i)

	// mini-batch workspaces
	perm  []int32
	cross []float32 // k×nsv kernel values
	viol  []int32
}

func newPegasos(p Problem, k kernel.Kernel, lambda float64, batch int) *pegasos {
	s := &pegasos{p: p, k: k, lambda: lambda, batch: batch, norms: p.SqNorms(), e: newExpansionFor(p)}
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
// was a margin violation (α_i += W_i).
func (s *pegasos) step(t, i int) bool {
	wi := s.p.weight(i)
	if wi == 0 {
		return false // no loss, no sub-gradient
	}
	xi := s.p.vec(i)
	yi := float64(s.p.Y[i])
	if t > 1 {
		thr := s.lambda * float64(t-1)
		g := s.e.sumVec(s.k, xi, float64(s.norms[i]))
		if s.bias {
			g += thr * s.b // λ(t−1)·(f_t(x) + b_t)
		}
		if yi*g >= thr {
			return false
		}
	}
	s.e.addVec(i, xi, s.norms[i], yi*wi)
	s.violations++
	if s.bias {
		s.b += s.kappa * yi * wi / (s.lambda*float64(t) + 1)
	}
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
	nsv := s.e.Len()
	if t == 1 || nsv == 0 {
		for _, i := range a {
			if s.p.weight(int(i)) > 0 {
				s.viol = append(s.viol, i)
			}
		}
	} else {
		if cap(s.cross) < k*nsv {
			s.cross = make([]float32, k*nsv, 2*k*nsv)
		}
		cross := s.cross[:k*nsv]
		// One kernel row per batch point.
		for j, i := range a {
			s.e.kernelRow(s.k, cross[j*nsv:(j+1)*nsv], s.p.vec(int(i)), float64(s.norms[i]))
		}
		thr := s.lambda * float64(t-1) * float64(k)
		off := 0.0
		if s.bias {
			off = thr * s.b // λ(t−1)k·b_t
		}
		coef := s.e.coef[:nsv]
		for j, i := range a {
			row := cross[j*nsv : (j+1)*nsv]
			g := off
			for q, c := range coef {
				g += c * float64(row[q])
			}
			if float64(s.p.Y[i])*g < thr && s.p.weight(int(i)) > 0 {
				s.viol = append(s.viol, i)
			}
		}
	}
	var sy float64
	for _, i := range s.viol {
		wy := float64(s.p.Y[i]) * s.p.weight(int(i))
		s.e.addVec(int(i), s.p.vec(int(i)), s.norms[i], wy)
		sy += wy
	}
	if s.bias {
		s.b += s.kappa * sy / ((s.lambda*float64(t) + 1) * float64(k))
	}
	s.violations += len(s.viol)
	return len(s.viol)
}

// meanSelfKernel returns the mean of K(x_i, x_i) over the problem's points
// (1 for RBF and normalised kernels).
func meanSelfKernel(p Problem, k kernel.Kernel) float64 {
	var s float64
	for i := 0; i < p.N; i++ {
		x := p.vec(i)
		if x.Idx == nil {
			s += k.Eval(x.Val, x.Val)
		} else {
			s += kernel.SelfVec(k, x, x.SqNorm())
		}
	}
	if s <= 0 {
		return 1
	}
	return s / float64(p.N)
}

// checkPegasos checks the λ, T and batch size of a Pegasos solver's
// configuration (0 takes the default of each): λ finite and ≥ 0, T ≥ 0,
// batch ≥ 0 (PegasosLinear, which has no batch, passes 0).
func checkPegasos(solver string, lambda float64, t, batch int) error {
	if lambda < 0 || math.IsNaN(lambda) || math.IsInf(lambda, 0) {
		return fmt.Errorf("svm: %s: lambda must be > 0, got %g", solver, lambda)
	}
	if t < 0 {
		return fmt.Errorf("svm: %s: T must be ≥ 1, got %d", solver, t)
	}
	if batch < 0 {
		return fmt.Errorf("svm: %s: batch must be ≥ 1, got %d", solver, batch)
	}
	return nil
}
