package svm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
)

// RegProblem is a regression training set on fixed features: N points of D
// features, row-major in X or as sparse rows in Sparse (X nil), with real
// targets Y. SMOSVR and NuSVR take sparse rows; the other regression
// solvers take dense rows and say so. Solvers never modify it.
type RegProblem struct {
	X      []float32
	Sparse *data.CSR
	N, D   int
	Y      []float64
}

// Validate reports whether the sizes agree and every feature and target is
// finite.
func (p RegProblem) Validate() error {
	if err := validRows(p.X, p.Sparse, p.N, p.D); err != nil {
		return err
	}
	if len(p.Y) != p.N {
		return fmt.Errorf("svm: len(Y) = %d, want N = %d", len(p.Y), p.N)
	}
	for i, y := range p.Y {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("svm: target %d is %g", i, y)
		}
	}
	return nil
}

// vec returns point i, dense or sparse.
func (p RegProblem) vec(i int) data.Vec { return pointVec(p.X, p.Sparse, p.D, i) }

// rows returns the points (dense rows not copied; views of sparse ones).
func (p RegProblem) rows() *rows { return pointRows(p.X, p.Sparse, p.N, p.D) }

// needDense reports a sparse problem given to a solver that takes dense
// rows only.
func (p RegProblem) needDense(solver string) error {
	if p.Sparse != nil {
		return fmt.Errorf("svm: %s takes dense rows; the problem's rows are sparse", solver)
	}
	return nil
}

// checkDense validates p, that its rows are dense and cfg, for a solver
// (named in the errors) that takes dense rows only.
func (p RegProblem) checkDense(cfg interface{ Validate() error }, solver string) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if err := p.needDense(solver); err != nil {
		return err
	}
	return cfg.Validate()
}

func (p RegProblem) row(i int) []float32 { return p.X[i*p.D : (i+1)*p.D] }

// SVRConfig configures PegasosSVR. The zero value runs λ = 1e-4, ε = 0.1,
// T = 10·N single-sample steps with a bias.
type SVRConfig struct {
	// Lambda is the regularisation λ > 0 (default 1e-4).
	Lambda float64
	// Epsilon is the width ε ≥ 0 of the insensitive tube, in target units
	// (default 0.1, LIBSVM's; a negative value means exactly 0).
	Epsilon float64
	// T is the number of steps (default 10·N); Batch the mini-batch size k
	// (0 or 1: single points).
	T, Batch int
	// NoBias fixes b = 0 (targets are then fitted by f alone).
	NoBias bool
	// Average returns the average of the iterates (f_{t+1}, b_{t+1}) over
	// the second half of the steps, t = ⌈T/2⌉ … T (suffix averaging), instead
	// of the last one. The last iterate of Pegasos moves by about
	// 1/(λT) per step; the average does not, which matters for small λ
	// (large C = 1/(λm)).
	Average bool
}

// Validate reports whether the configuration is usable.
func (c SVRConfig) Validate() error {
	if err := checkPegasos("SVR", c.Lambda, c.T, c.Batch); err != nil {
		return err
	}
	if math.IsNaN(c.Epsilon) || math.IsInf(c.Epsilon, 0) {
		return fmt.Errorf("svm: SVR: epsilon must be finite, got %g", c.Epsilon)
	}
	return nil
}

func (c SVRConfig) withDefaults(n int) (SVRConfig, error) {
	var err error
	c.Lambda, c.T, c.Batch, err = pegasosDefaults("SVR", c.Lambda, c.T, c.Batch, n)
	switch {
	case c.Epsilon == 0:
		c.Epsilon = 0.1
	case c.Epsilon < 0:
		c.Epsilon = 0
	}
	return c, err
}

// PegasosSVR trains a kernel support vector regressor (ε-SVR, Vapnik 1995)
// by kernel Pegasos on the ε-insensitive loss:
//
//	min_{f ∈ H, b}  λ/2·‖f‖²_H + 1/m·Σ_i max(0, |y_i − f(x_i) − b| − ε).
//
// It is Algorithm 0 with the hinge loss replaced: the sub-gradient of the
// loss of point i in f is −s_i·K(x_i, ·) with s_i = sign(y_i − f(x_i) − b)
// when the residual leaves the tube (|y_i − f(x_i) − b| > ε) and 0
// otherwise, so with η_t = 1/(λt), w_{t+1} = (1 − 1/t)·w_t + s_i/(λt)·φ(x_i),
// i.e. f_{t+1} = 1/(λt)·Σ_j β_j·K(x_j, ·) with β_j the sum of the signs
// s_j of point j's steps outside the tube (β takes the place of α_j·y_j).
// The bias is unregularised and takes the step of PegasosConfig.Bias,
// b ← b + κ·s_i/(λt + 1), starting from the mean target b₁ = ȳ (so that
// f need not carry the offset). Mini-batches (Batch = k > 1) judge k
// distinct points against the same state and scale the steps by 1/k, as in
// Pegasos. The model is Coef_j = β_j/(λTk), Bias = b_{T+1}; its Decision is
// the regression function. This is the primal counterpart of LIBSVM's ε-SVR
// (svm-train -s 3) with C = 1/(λm). With SVRConfig.Average the model is the
// mean of the iterates (f_{t+1}, b_{t+1}) over t = ⌈T/2⌉ … T instead (same
// steps; Coef_j = Σ_s s_s·Σ_{t ≥ max(s, ⌈T/2⌉)} 1/t /(λk|A|) over point j's
// steps s, |A| the number of averaged iterates). Pegasos needs T ≫ 1/λ
// either way: λ far below 1/T (C far above T/m) is not solved.
func PegasosSVR(ctx context.Context, p RegProblem, k kernel.Kernel, cfg SVRConfig, rng *rand.Rand, progress ProgressFunc) (*Model, error) {
	if k == nil {
		return nil, fmt.Errorf("svm: no kernel")
	}
	if err := p.checkDense(cfg, "PegasosSVR"); err != nil {
		return nil, err
	}
	cfg, err := cfg.withDefaults(p.N)
	if err != nil {
		return nil, err
	}
	s := &svr{p: p, k: k, cfg: cfg, e: NewExpansion(p.N, p.D), norms: make([]float32, p.N)}
	if cfg.Average {
		// Averaged over A = {t0, …, T}, the sign of a step s ≤ T adds
		// K(x_i, ·)/(λk|A|)·Σ_{t ∈ A, t ≥ s} 1/t to f̄: hsum[t−t0] holds
		// Σ_{u=t}^{T} 1/u.
		s.t0 = (cfg.T + 1) / 2
		s.hsum = make([]float64, cfg.T-s.t0+1)
		acc := 0.0
		for t := cfg.T; t >= s.t0; t-- {
			acc += 1 / float64(t)
			s.hsum[t-s.t0] = acc
		}
		s.avg = make([]float64, p.N)
	}
	for i := range s.norms {
		s.norms[i] = float32(sqNorm64(p.row(i)))
	}
	if !cfg.NoBias {
		var sum, ks float64
		for i, y := range p.Y {
			sum += y
			ks += k.Eval(p.row(i), p.row(i))
		}
		s.b = sum / float64(p.N)
		s.kappa = 1
		if ks > 0 && !math.IsInf(ks, 0) {
			s.kappa = ks / float64(p.N)
		}
	}
	perm := make([]int, p.N)
	for i := range perm {
		perm[i] = i
	}
	tk := newTicker(ctx, progress)
	err = tk.steps(cfg.T, s.e.Len, func(t int) {
		kb := cfg.Batch
		for j := 0; j < kb; j++ { // a uniform k-subset (k = 1: one uniform index)
			r := j + rng.IntN(p.N-j)
			perm[j], perm[r] = perm[r], perm[j]
		}
		s.step(t, perm[:kb])
	})
	if err != nil {
		return nil, err
	}
	var m *Model
	if cfg.Average {
		m = s.averaged()
	} else {
		m = s.e.Model(k.Spec(), 1/(cfg.Lambda*float64(cfg.T)*float64(cfg.Batch)), s.b)
	}
	pegasosInfo(m, "pegasos-svr", cfg.Lambda, cfg.T, cfg.Batch)
	m.Info["epsilon"] = fmtF(cfg.Epsilon)
	m.Info["outside"] = strconv.Itoa(s.outside)
	if cfg.Average {
		m.Info["average"] = "true"
	}
	return m, nil
}

// svr is the state of a PegasosSVR run; the expansion's coefficients are
// the integer sign sums β_j.
type svr struct {
	p       RegProblem
	k       kernel.Kernel
	cfg     SVRConfig
	e       *Expansion
	norms   []float32
	b       float64
	kappa   float64
	outside int
	signs   []float64
	// Suffix averaging (SVRConfig.Average): the first averaged step t0,
	// the tail sums of 1/t, and per point the weighted sign sums and the
	// sum of the averaged biases.
	t0   int
	hsum []float64
	avg  []float64
	bsum float64
}

// averaged returns the average of the iterates after steps t0 … T, with the
// support vectors in training-index order.
func (s *svr) averaged() *Model {
	cfg, d := s.cfg, s.p.D
	na := float64(cfg.T - s.t0 + 1)
	scale := 1 / (cfg.Lambda * float64(cfg.Batch) * na)
	m := &Model{Kernel: s.k.Spec(), D: d, Bias: s.bsum / na, Neg: -1, Pos: 1, Info: map[string]string{}}
	for i, c := range s.avg {
		if c != 0 {
			m.SV = append(m.SV, s.p.row(i)...)
			m.Coef = append(m.Coef, scale*c)
			m.NSV++
		}
	}
	return m
}

// step runs step t ≥ 1 on the points idx (all judged against the state
// before the step).
func (s *svr) step(t int, idx []int) {
	lam, k := s.cfg.Lambda, float64(len(idx))
	s.signs = s.signs[:0]
	for _, i := range idx {
		f := s.b
		if t > 1 {
			f += s.e.Sum(s.k, s.p.row(i)) / (lam * float64(t-1) * k)
		}
		r := s.p.Y[i] - f
		switch {
		case r > s.cfg.Epsilon:
			s.signs = append(s.signs, 1)
		case r < -s.cfg.Epsilon:
			s.signs = append(s.signs, -1)
		default:
			s.signs = append(s.signs, 0)
		}
	}
	var sum, w float64
	if s.avg != nil {
		w = s.hsum[max(t, s.t0)-s.t0]
	}
	for j, i := range idx {
		if sg := s.signs[j]; sg != 0 {
			s.e.Set(i, s.p.row(i), s.norms[i], s.e.Get(i)+sg)
			sum += sg
			s.outside++
			if s.avg != nil {
				s.avg[i] += w * sg
			}
		}
	}
	if !s.cfg.NoBias {
		s.b += s.kappa * sum / ((lam*float64(t) + 1) * k)
	}
	if s.avg != nil && t >= s.t0 {
		s.bsum += s.b
	}
}
