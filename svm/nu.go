package svm

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
)

// NuConfig configures NuSVC, OneClass and NuSVR (and their KernelMatrix
// forms). The zero value is LIBSVM's default for svm-train -s 1, -s 2 and
// -s 4 apart from the cache size: ν = 0.5, C = 1 (NuSVR), tolerance 1e-3,
// a 100 MB cache (DefaultCacheMB), shrinking on.
type NuConfig struct {
	// Nu is ν ∈ (0, 1] (default 0.5; svm-train -n). For NuSVC and OneClass
	// it is an upper bound on the fraction of margin errors (outliers) and
	// a lower bound on the fraction of support vectors; for NuSVR the same
	// for the points outside the ε-tube, whose width the fit chooses.
	Nu float64
	// C is NuSVR's box constraint C > 0 (default 1; svm-train -c). NuSVC
	// and OneClass have none to set (their bounds are 1 in LIBSVM's
	// scaling) and ignore it.
	C float64
	// Eps is the stopping tolerance on the maximal KKT violation, taken
	// per sign of y (default 1e-3; svm-train -e).
	Eps float64
	// CacheMB limits the kernel column cache (default DefaultCacheMB; -m).
	CacheMB int
	// NoShrinking turns the shrinking heuristic off (-h 0).
	NoShrinking bool
	// Workers is the number of goroutines that compute a kernel column
	// (default 1; columns shorter than 4096 rows always use one).
	Workers int
	// MaxIter caps the number of pair updates (default max(10⁷, 100·l)
	// for l variables). Reaching it is not an error:
	// Info["max_iter_reached"] is set.
	MaxIter int
}

// Validate reports whether the configuration is usable.
func (c NuConfig) Validate() error { return c.validate("ν-SVM") }

func (c NuConfig) validate(name string) error {
	if !(c.Nu >= 0 && c.Nu <= 1) {
		return fmt.Errorf("svm: %s: nu must be in (0, 1], got %g", name, c.Nu)
	}
	return c.smo().validate(name)
}

func (c NuConfig) nu() float64 {
	if c.Nu == 0 {
		return 0.5
	}
	return c.Nu
}

func (c NuConfig) smo() SMOConfig {
	return SMOConfig{C: c.C, Eps: c.Eps, CacheMB: c.CacheMB, NoShrinking: c.NoShrinking, Workers: c.Workers, MaxIter: c.MaxIter}
}

// NuSVC trains a ν-support vector classifier (Schölkopf, Smola, Williamson
// & Bartlett, "New support vector algorithms", Neural Computation 12,
// 2000) by SMO on LIBSVM's dual (svm-train -s 1; Chang & Lin 2011, §2.2):
//
//	min_α  ½·αᵀQα   s.t.  0 ≤ α_i ≤ 1,  yᵀα = 0,  eᵀα = ν·l,   Q_ij = y_i·y_j·K(x_i, x_j),
//
// with LIBSVM's Solver_NU: the working pair is chosen among the variables
// of one class (second-order information, as SMO), the stopping rule and
// shrinking look at each class separately, and the two multipliers of the
// equality constraints give thresholds r₁ (class +1) and r₂ (class −1).
// It starts, as svm.cpp, with α_i = 1 for the first ⌊ν·l/2⌋ points of each
// class and the fraction left over on the next one. The kernel columns,
// cache and rows (dense or sparse, p.Sparse) are SMO's.
//
// The model is LIBSVM's: with r = (r₁ + r₂)/2 and ρ = (r₁ − r₂)/2,
// decision(x) = Σ_i (α_i·y_i/r)·K(x_i, x) − ρ/r, the C-SVM decision
// function for C = 1/r. It is infeasible, and NuSVC says so, when
// ν·l/2 exceeds the number of points of the smaller class. Point weights
// are not taken (LIBSVM's ν-SVC has none). Info holds "svm_type"
// ("nu_svc"), "nu", "r", "C" (1/r), "objective" (½αᵀQα/r², what svm-train
// prints as obj), "rho" (ρ/r), "iterations", "nsv" and "nbsv" (α_i = 1,
// that is coefficients ±1/r).
func NuSVC(ctx context.Context, p Problem, k kernel.Kernel, cfg NuConfig, progress ProgressFunc) (*Model, error) {
	if err := checkKernelProblem(p, k, "NuSVC"); err != nil {
		return nil, err
	}
	if err := p.unweighted("NuSVC"); err != nil {
		return nil, err
	}
	if err := cfg.validate("NuSVC"); err != nil {
		return nil, err
	}
	y := signs(p.Y)
	if err := nuFeasible(y, cfg.nu(), "NuSVC"); err != nil {
		return nil, err
	}
	scfg := cfg.smo().withDefaults(p.N).countIn(ctx)
	res, err := nuSVC(ctx, newSVCQRows(k, problemRows(p, nil), y, scfg), y, cfg.nu(), scfg, progress)
	if err != nil {
		return nil, err
	}
	m := newModel(k.Spec(), p.D, p.Sparse != nil)
	nuSVCModel(m, res, y, cfg.nu(), scfg, p.vec)
	return m, nil
}

// nuFeasible reports an infeasible ν for the labels y: ν·l/2 above the
// size of the smaller class (LIBSVM's svm_check_parameter).
func nuFeasible(y []int8, nu float64, what string) error {
	var pos, neg int
	for _, v := range y {
		if v > 0 {
			pos++
		} else {
			neg++
		}
	}
	if nu*float64(pos+neg)/2 > float64(min(pos, neg)) {
		return fmt.Errorf("svm: %s: ν = %g is infeasible: ν·l/2 = %g exceeds the %d points of the smaller class", what, nu, nu*float64(pos+neg)/2, min(pos, neg))
	}
	return nil
}

// nuSVC runs LIBSVM's solve_nu_svc on q (Q_ij = y_i·y_j·K_ij over the
// points in the order of y): the start of svm.cpp and Solver_NU, with
// p = 0 and bounds 1. It reports a solution whose margin r is not
// positive, which has no C-SVM form.
func nuSVC(ctx context.Context, q qMatrix, y []int8, nu float64, cfg SMOConfig, progress ProgressFunc) (*smoResult, error) {
	l := len(y)
	alpha := make([]float64, l)
	sumPos, sumNeg := nu*float64(l)/2, nu*float64(l)/2
	for i, v := range y {
		if v > 0 {
			alpha[i] = min(1, sumPos)
			sumPos -= alpha[i]
		} else {
			alpha[i] = min(1, sumNeg)
			sumNeg -= alpha[i]
		}
	}
	s := newSolver(q, l, y, make([]float64, l), 1, 1, alpha, cfg)
	s.nu = true
	tk := newTicker(ctx, progress)
	res, err := s.solve(&tk, cfg.MaxIter)
	if err != nil {
		return nil, err
	}
	if !(res.r > 0) || math.IsInf(res.r, 0) {
		return nil, fmt.Errorf("svm: NuSVC: the solution's margin r = %g is not positive (are the kernel values all equal?)", res.r)
	}
	return res, nil
}

// nuSVCModel fills m with the ν-SVC solution res (α in the order of y, the
// points given by point) in LIBSVM's scaling: coefficients α_i·y_i/r and
// bias −ρ/r.
func nuSVCModel(m *Model, res *smoResult, y []int8, nu float64, cfg SMOConfig, point func(int) data.Vec) {
	r := res.r
	m.Bias = -res.rho / r
	nbsv := 0
	for i, a := range res.alpha {
		if a > 0 {
			m.addSV(point(i), a*float64(y[i])/r)
			if a >= 1 {
				nbsv++
			}
		}
	}
	m.Info["solver"] = "nu-svc"
	m.Info["svm_type"] = "nu_svc"
	m.Info["nu"] = fmtF(nu)
	m.Info["r"] = fmtF(r)
	m.Info["C"] = fmtF(1 / r)
	m.Info["objective"] = fmtF(res.obj / (r * r))
	m.Info["rho"] = fmtF(res.rho / r)
	m.Info["nbsv"] = strconv.Itoa(nbsv)
	nuInfo(m, res, cfg)
}

// nuInfo records the settings and outcome every ν solver shares.
func nuInfo(m *Model, res *smoResult, cfg SMOConfig) {
	m.Info["eps"] = fmtF(cfg.Eps)
	m.Info["shrinking"] = strconv.FormatBool(!cfg.NoShrinking)
	m.Info["iterations"] = strconv.Itoa(res.iter)
	m.Info["gap"] = fmtF(res.gap)
	m.Info["nsv"] = strconv.Itoa(m.NSV)
	if res.maxIter {
		m.Info["max_iter_reached"] = "true"
	}
}

// OneClass trains a one-class SVM (Schölkopf, Platt, Shawe-Taylor, Smola &
// Williamson, "Estimating the support of a high-dimensional distribution",
// Neural Computation 13, 2001) on every row of p — its labels and weights
// are not read — by SMO on LIBSVM's dual (svm-train -s 2):
//
//	min_α  ½·αᵀKα   s.t.  0 ≤ α_i ≤ 1,  eᵀα = ν·l.
//
// It is SMO's solver with y = e, p = 0 and bounds 1, started as svm.cpp:
// α_i = 1 for the first ⌊ν·l⌋ rows, ν·l − ⌊ν·l⌋ on the next one, 0 after.
// Rows may be dense or sparse (p.Sparse). p.Y may be nil; p.W must be.
//
// The model is decision(x) = Σ_i α_i·K(x_i, x) − ρ, with Neg = −1
// (outlier) and Pos = +1 (inlier): Predict gives +1 where decision ≥ 0,
// LIBSVM where decision > 0, which differ only on the boundary itself.
// About a fraction ν of the training rows fall outside. Info holds
// "svm_type" ("one_class"), "nu", "objective", "rho", "iterations", "nsv"
// and "nbsv" (α_i = 1).
func OneClass(ctx context.Context, p Problem, k kernel.Kernel, cfg NuConfig, progress ProgressFunc) (*Model, error) {
	if k == nil {
		return nil, fmt.Errorf("svm: no kernel")
	}
	if err := validRows(p.X, p.Sparse, p.N, p.D); err != nil {
		return nil, err
	}
	if p.Sparse != nil && !kernel.OnRows(k) {
		return nil, fmt.Errorf("svm: OneClass: the problem's rows are sparse and kernel %T takes dense rows only", k)
	}
	if err := p.unweighted("OneClass"); err != nil {
		return nil, err
	}
	if err := cfg.validate("OneClass"); err != nil {
		return nil, err
	}
	scfg := cfg.smo().withDefaults(p.N).countIn(ctx)
	y := make([]int8, p.N)
	for i := range y {
		y[i] = 1
	}
	res, err := oneClass(ctx, newSVCQRows(k, problemRows(p, nil), y, scfg), p.N, cfg.nu(), scfg, progress)
	if err != nil {
		return nil, err
	}
	m := newModel(k.Spec(), p.D, p.Sparse != nil)
	oneClassModel(m, res, cfg.nu(), scfg, p.vec)
	return m, nil
}

// oneClass runs LIBSVM's solve_one_class on q = K over l points.
func oneClass(ctx context.Context, q qMatrix, l int, nu float64, cfg SMOConfig, progress ProgressFunc) (*smoResult, error) {
	alpha := make([]float64, l)
	n := int(nu * float64(l))
	for i := 0; i < n; i++ {
		alpha[i] = 1
	}
	if n < l {
		alpha[n] = nu*float64(l) - float64(n)
	}
	y := make([]int8, l)
	for i := range y {
		y[i] = 1
	}
	s := newSolver(q, l, y, make([]float64, l), 1, 1, alpha, cfg)
	tk := newTicker(ctx, progress)
	return s.solve(&tk, cfg.MaxIter)
}

func oneClassModel(m *Model, res *smoResult, nu float64, cfg SMOConfig, point func(int) data.Vec) {
	m.Bias = -res.rho
	nbsv := 0
	for i, a := range res.alpha {
		if a > 0 {
			m.addSV(point(i), a)
			if a >= 1 {
				nbsv++
			}
		}
	}
	m.Info["solver"] = "one-class"
	m.Info["svm_type"] = "one_class"
	m.Info["nu"] = fmtF(nu)
	m.Info["objective"] = fmtF(res.obj)
	m.Info["rho"] = fmtF(res.rho)
	m.Info["nbsv"] = strconv.Itoa(nbsv)
	nuInfo(m, res, cfg)
}

// NuSVR trains a ν-support vector regressor (Schölkopf et al. 2000) by SMO
// on LIBSVM's dual (svm-train -s 4):
//
//	min_{α,α*}  ½(α − α*)ᵀK(α − α*) + zᵀ(α* − α)
//	s.t.        eᵀ(α − α*) = 0,  eᵀ(α + α*) = C·ν·l,  0 ≤ α_i, α*_i ≤ C,
//
// for targets z: SMOSVR's 2l variables (y = (e, −e), Q = [K −K; −K K],
// now p = (−z, z)) under Solver_NU, started as svm.cpp with
// α_i = α*_i = min(C, what is left of C·ν·l/2) in order. The width of the
// tube is not set but found: ε = −r. Rows may be dense or sparse
// (p.Sparse).
//
// The model is f(x) = Σ_i (α_i − α*_i)·K(x_i, x) − ρ, as LIBSVM's. Info
// holds "svm_type" ("nu_svr"), "nu", "C", "epsilon" (−r, what svm-train
// prints), "objective", "rho", "iterations", "nsv" and "nbsv".
func NuSVR(ctx context.Context, p RegProblem, k kernel.Kernel, cfg NuConfig, progress ProgressFunc) (*Model, error) {
	if err := checkKernelReg(p, k, "NuSVR"); err != nil {
		return nil, err
	}
	if err := cfg.validate("NuSVR"); err != nil {
		return nil, err
	}
	scfg := cfg.smo().withDefaults(2 * p.N).countIn(ctx)
	rc := newRowCache(k, p.rows(), scfg)
	pt := make([]int32, 2*p.N)
	for i := range pt {
		pt[i] = int32(i % p.N)
	}
	res, err := nuSVR(ctx, newGatherQ(rc.row, rc.diag, pt, svrSigns(p.N)), p.Y, cfg.nu(), scfg, progress)
	if err != nil {
		return nil, err
	}
	m := newModel(k.Spec(), p.D, p.Sparse != nil)
	nuSVRModel(m, res, cfg.nu(), scfg, p.vec)
	return m, nil
}

// nuSVR runs LIBSVM's solve_nu_svr on the SVR Q of the points of z.
func nuSVR(ctx context.Context, q qMatrix, z []float64, nu float64, cfg SMOConfig, progress ProgressFunc) (*smoResult, error) {
	l := len(z)
	alpha := make([]float64, 2*l)
	lin := make([]float64, 2*l)
	sum := cfg.C * nu * float64(l) / 2
	for i, v := range z {
		a := min(sum, cfg.C)
		alpha[i], alpha[i+l] = a, a
		sum -= a
		lin[i], lin[i+l] = -v, v
	}
	s := newSolver(q, 2*l, svrSigns(l), lin, cfg.C, cfg.C, alpha, cfg)
	s.nu = true
	tk := newTicker(ctx, progress)
	return s.solve(&tk, cfg.MaxIter)
}

func nuSVRModel(m *Model, res *smoResult, nu float64, cfg SMOConfig, point func(int) data.Vec) {
	beta := svrBeta(res.alpha)
	m.Bias = -res.rho
	for i, b := range beta {
		if b != 0 {
			m.addSV(point(i), b)
		}
	}
	svrInfo(m.Info, res, beta, cfg, -res.r)
	m.Info["solver"] = "nu-svr"
	m.Info["svm_type"] = "nu_svr"
	m.Info["nu"] = fmtF(nu)
}

// NuSVCOneVsOne fits the ν-SVC heads of the multiclass problem p one
// against one, as svm-train -s 1: head q (in the order of PairClasses)
// separates class a (+1) from class b (−1) by NuSVC on their points,
// class a's first and each class in its order in p (the order of LIBSVM's
// subproblem, on which the start depends). ν must be feasible for every
// pair (ν·(n_a + n_b)/2 ≤ min(n_a, n_b)); it is checked before any head is
// fitted. The heads are fitted one after another; cfg.Workers computes
// kernel columns. Point weights are not taken.
func NuSVCOneVsOne(ctx context.Context, p ClassProblem, k kernel.Kernel, cfg NuConfig, progress ProgressFunc) ([]*Model, error) {
	if k == nil {
		return nil, fmt.Errorf("svm: no kernel")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.W != nil {
		return nil, fmt.Errorf("svm: NuSVCOneVsOne does not take point weights")
	}
	if p.Sparse != nil && !kernel.OnRows(k) {
		return nil, fmt.Errorf("svm: NuSVCOneVsOne: the problem's rows are sparse and kernel %T takes dense rows only", k)
	}
	if err := cfg.validate("NuSVCOneVsOne"); err != nil {
		return nil, err
	}
	count := make([]int, p.C)
	for _, c := range p.Y {
		count[c]++
	}
	nu := cfg.nu()
	pairs := p.C * (p.C - 1) / 2
	for q := 0; q < pairs; q++ {
		a, b := PairClasses(q, p.C)
		if n := count[a] + count[b]; nu*float64(n)/2 > float64(min(count[a], count[b])) {
			return nil, fmt.Errorf("svm: NuSVCOneVsOne: ν = %g is infeasible for classes %d and %d (%d and %d points)", nu, a, b, count[a], count[b])
		}
	}
	heads := make([]*Model, pairs)
	for q := range heads {
		a, b := PairClasses(q, p.C)
		var idx []int
		var y []float32
		for _, c := range []int{a, b} {
			label := float32(1)
			if c == b {
				label = -1
			}
			for i, ci := range p.Y {
				if ci == c {
					idx = append(idx, i)
					y = append(y, label)
				}
			}
		}
		m, err := NuSVC(ctx, p.subProblem(idx, y), k, cfg, progress) // p has no weights
		if err != nil {
			return nil, fmt.Errorf("svm: NuSVCOneVsOne: head (%d, %d): %w", a, b, err)
		}
		heads[q] = m
	}
	return heads, nil
}

// NuSVC trains the ν-SVC of the package function NuSVC on the points idx
// of the matrix (which may repeat) with labels y (±1, len(idx) of them),
// the kernel values read from the matrix. The point order is idx's: for
// LIBSVM's result up to rounding, list class +1 first. cfg.CacheMB and
// cfg.Workers are not used.
func (m *KernelMatrix) NuSVC(ctx context.Context, idx []int, y []float32, cfg NuConfig, progress ProgressFunc) (*Model, error) {
	pt, err := m.checkIndex(idx, "KernelMatrix.NuSVC")
	if err != nil {
		return nil, err
	}
	if err := checkSigns(y, len(idx), "KernelMatrix.NuSVC"); err != nil {
		return nil, err
	}
	if err := cfg.validate("KernelMatrix.NuSVC"); err != nil {
		return nil, err
	}
	sg := signs(y)
	if err := nuFeasible(sg, cfg.nu(), "KernelMatrix.NuSVC"); err != nil {
		return nil, err
	}
	scfg := cfg.smo().withDefaults(len(pt)).countIn(ctx)
	res, err := nuSVC(ctx, newGatherQ(m.Row, m.diag, pt, sg), sg, cfg.nu(), scfg, progress)
	if err != nil {
		return nil, err
	}
	mod := m.newModel()
	nuSVCModel(mod, res, sg, cfg.nu(), scfg, func(q int) data.Vec { return m.point(idx[q]) })
	return mod, nil
}

// OneClass trains the one-class SVM of the package function OneClass on
// the points idx of the matrix, the kernel values read from the matrix.
// cfg.CacheMB and cfg.Workers are not used.
func (m *KernelMatrix) OneClass(ctx context.Context, idx []int, cfg NuConfig, progress ProgressFunc) (*Model, error) {
	pt, err := m.checkIndex(idx, "KernelMatrix.OneClass")
	if err != nil {
		return nil, err
	}
	if err := cfg.validate("KernelMatrix.OneClass"); err != nil {
		return nil, err
	}
	scfg := cfg.smo().withDefaults(len(pt)).countIn(ctx)
	ones := make([]int8, len(pt))
	for i := range ones {
		ones[i] = 1
	}
	res, err := oneClass(ctx, newGatherQ(m.Row, m.diag, pt, ones), len(pt), cfg.nu(), scfg, progress)
	if err != nil {
		return nil, err
	}
	mod := m.newModel()
	oneClassModel(mod, res, cfg.nu(), scfg, func(q int) data.Vec { return m.point(idx[q]) })
	return mod, nil
}

// NuSVR trains the ν-SVR of the package function NuSVR on the points idx
// of the matrix with targets z (len(idx) of them, finite), the kernel
// values read from the matrix. cfg.CacheMB and cfg.Workers are not used.
func (m *KernelMatrix) NuSVR(ctx context.Context, idx []int, z []float64, cfg NuConfig, progress ProgressFunc) (*Model, error) {
	pt, err := m.checkTargets(idx, z, "KernelMatrix.NuSVR")
	if err != nil {
		return nil, err
	}
	if err := cfg.validate("KernelMatrix.NuSVR"); err != nil {
		return nil, err
	}
	scfg := cfg.smo().withDefaults(2 * len(pt)).countIn(ctx)
	res, err := nuSVR(ctx, m.svrQ(pt), z, cfg.nu(), scfg, progress)
	if err != nil {
		return nil, err
	}
	mod := m.newModel()
	nuSVRModel(mod, res, cfg.nu(), scfg, func(q int) data.Vec { return m.point(idx[q]) })
	return mod, nil
}
