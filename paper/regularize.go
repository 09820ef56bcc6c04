package paper

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// RegConfig selects a regulariser of the batch kernel matrix (paper §6),
// added to the θ-objective of Algorithm 3 and of Algorithm 4 Part I as
// ρ·R(K), K the k×k kernel matrix of the current batch. §6 asks that K stay
// away from both extremes of an RBF-type kernel: K → I (every point
// orthogonal to every other, the overfitting regime) and K → 11ᵀ (every
// point alike, the underfitting regime), measured by the von Neumann entropy
// or by the Frobenius distances to I and 11ᵀ. The zero value is off and
// leaves the trainers exactly as without it. Names:
//
//	entropy    S = −Σ λ̃ log λ̃ / log k, λ̃ the eigenvalues of K/tr K (S ∈ [0, 1],
//	           0 for rank one, 1 for K ∝ I):
//	             Target = 0:       R = −log S − log(1 − S)   (a barrier at both ends)
//	             Target s₀ ∈ (0,1): R = (S − s₀)²
//	frob-i     d_I = ‖K − I‖²_F / (k(k−1)), which for a normalised non-negative
//	           kernel (K_ii = 1, K_ij ∈ [0, 1], e.g. RBF) is the mean squared
//	           off-diagonal entry, in [0, 1], 0 exactly at K = I:
//	             Target = 0:       R = −log d_I                (a barrier at I)
//	             Target t ∈ (0,1]:  R = max(0, t − d_I)²        (zero once d_I ≥ t)
//	frob-ones  the same with d_1 = ‖K − 11ᵀ‖²_F / (k(k−1)), 0 exactly at K = 11ᵀ
//	frob       frob-i + frob-ones (the same Target for both)
//
// So every penalty is positive near the extreme it guards against and
// decreases away from it: "frob-i" pushes K away from the identity, never
// towards it. The barriers (Target 0) grow without bound at the extreme and
// fade to a gentle push elsewhere; the targeted forms leave K alone once it
// is far enough (frob-*) or pull S to a chosen level (entropy). For
// reference, a batch whose kernel matrix is the ideal yyᵀ-like block matrix
// of C balanced classes (K_ij = 1 within a class, 0 across) has S =
// log C / log k (0.25 for two classes and k = 16), d_I ≈ 1/C and d_1 ≈ 1 − 1/C.
type RegConfig struct {
	Name   string  `json:",omitempty"` // "" or "none" (off), "entropy", "frob-i", "frob-ones", "frob"
	Rho    float64 `json:",omitempty"` // weight ρ ≥ 0; 0 turns the regulariser off
	Target float64 `json:",omitempty"` // 0 for the barrier forms, else s₀ ∈ (0,1) or t ∈ (0,1]
}

// RegNames lists the regulariser names accepted by RegConfig.Name.
var RegNames = []string{"none", "entropy", "frob-i", "frob-ones", "frob"}

// on reports whether the regulariser changes the objective.
func (c RegConfig) on() bool { return c.Name != "" && c.Name != "none" && c.Rho != 0 }

// Validate reports whether the configuration is usable.
func (c RegConfig) Validate() error {
	if !(c.Rho >= 0) || math.IsInf(c.Rho, 0) {
		return fmt.Errorf("nsvm: regulariser weight must be a finite number ≥ 0, got %g", c.Rho)
	}
	switch c.Name {
	case "", "none":
		if c.Target != 0 {
			return fmt.Errorf("nsvm: regulariser target %g given without a regulariser", c.Target)
		}
	case "entropy":
		if !(c.Target >= 0 && c.Target < 1) {
			return fmt.Errorf("nsvm: entropy regulariser target must be 0 (barrier) or in (0, 1), got %g", c.Target)
		}
	case "frob-i", "frob-ones", "frob":
		if !(c.Target >= 0 && c.Target <= 1) {
			return fmt.Errorf("nsvm: %s regulariser target must be 0 (barrier) or in (0, 1], got %g", c.Name, c.Target)
		}
	default:
		return fmt.Errorf("nsvm: unknown regulariser %q (want none, entropy, frob-i, frob-ones or frob)", c.Name)
	}
	return nil
}

// regularizer evaluates ρ·R(K) and its gradient for batches of size k with
// preallocated workspaces (no allocations per step).
type regularizer struct {
	cfg  RegConfig
	k    int
	a    []float64 // k×k eigenvectors (row-major; columns are the vectors)
	w    []float64 // k eigenvalues
	work []float64
	lg   []float64 // k values log λ̃_i
	vl   []float64 // k×k V·diag(log λ̃)
}

// errNonFinite is the error for an infinite regulariser value: a barrier
// form met the extreme it guards against exactly.
func (r *regularizer) errNonFinite(alg, t int) error {
	return fmt.Errorf("nsvm: algorithm %d: the %s regulariser is not finite at step %d: the batch kernel matrix reached the extreme it guards against (K = I or K = 11ᵀ); use a smaller --reg-weight, a --reg-target, or a kernel width that keeps K away from it", alg, r.cfg.Name, t)
}

// newRegularizer returns nil when cfg is off.
func newRegularizer(cfg RegConfig, k int) *regularizer {
	if !cfg.on() {
		return nil
	}
	r := &regularizer{cfg: cfg, k: k}
	if cfg.Name == "entropy" {
		r.a, r.w, r.lg, r.vl = make([]float64, k*k), make([]float64, k), make([]float64, k), make([]float64, k*k)
		var q [1]float64
		lapack64.Syev(lapack.EVCompute, blas64.Symmetric{N: k, Stride: k, Data: r.a, Uplo: blas.Upper}, r.w, q[:], -1)
		r.work = make([]float64, max(int(q[0]), 3*k))
	}
	return r
}

// add returns ρ·R(K) for the k×k kernel matrix kmat and, if g is not nil,
// adds ρ·∂R/∂K to g (entry-wise, as for the alignment terms). A nil
// regularizer returns 0 and adds nothing.
func (r *regularizer) add(kmat, g []float64) float64 {
	if r == nil {
		return 0
	}
	rho, t := r.cfg.Rho, r.cfg.Target
	switch r.cfg.Name {
	case "entropy":
		return rho * r.entropy(kmat, g, rho)
	case "frob-i":
		return rho * frobPenalty(kmat, r.k, false, t, g, rho)
	case "frob-ones":
		return rho * frobPenalty(kmat, r.k, true, t, g, rho)
	default: // "frob"
		return rho * (frobPenalty(kmat, r.k, false, t, g, rho) + frobPenalty(kmat, r.k, true, t, g, rho))
	}
}

// eigFloor bounds the normalised eigenvalues λ̃ from below inside the
// logarithm of the entropy gradient (∂S/∂λ̃ = −(log λ̃ + 1)/log k is
// unbounded at λ̃ = 0); eigenvalues that small are rounding noise of K.
const eigFloor = 1e-12

// entropy returns R for the "entropy" regulariser and adds scale·∂R/∂K to g.
// With ρ = K/τ, τ = tr K, and K = V diag(λ) Vᵀ, S = −tr(ρ log ρ)/log k and
//
//	dS = −tr((log ρ + I) dρ)/log k,   dρ = dK/τ − K·tr(dK)/τ²,
//
// which, using tr((log ρ + I)ρ) = 1 − S log k, gives
//
//	∂S/∂K = −(V diag(log λ̃) Vᵀ + S·log k·I) / (τ log k).
//
// λ̃ ≤ 0 (rounding) contributes 0 to S and log eigFloor to the gradient.
func (r *regularizer) entropy(kmat, g []float64, scale float64) float64 {
	k := r.k
	s, tr, ok := r.vonNeumann(kmat)
	if !ok {
		return 0
	}
	lk := math.Log(float64(k))
	var val, dR float64
	if st := r.cfg.Target; st > 0 {
		val, dR = (s-st)*(s-st), 2*(s-st)
	} else {
		sc := min(max(s, 1e-300), 1-1e-16) // S is 0 or 1 only for degenerate K
		val, dR = -math.Log(sc)-math.Log1p(-sc), -1/sc+1/(1-sc)
	}
	if g == nil || dR == 0 {
		return val
	}
	// g += c·(V diag(log λ̃) Vᵀ + S log k·I): W = V diag(log λ̃), then one GEMM.
	c := -scale * dR / (tr * lk)
	for i := 0; i < k; i++ {
		for m := 0; m < k; m++ {
			r.vl[i*k+m] = r.a[i*k+m] * r.lg[m]
		}
		g[i*k+i] += c * s * lk
	}
	blas64.Gemm(blas.NoTrans, blas.Trans, c,
		blas64.General{Rows: k, Cols: k, Stride: k, Data: r.vl},
		blas64.General{Rows: k, Cols: k, Stride: k, Data: r.a}, 1,
		blas64.General{Rows: k, Cols: k, Stride: k, Data: g[:k*k]})
	return val
}

// vonNeumann returns the normalised von Neumann entropy S of kmat and its
// trace, leaving the eigenvectors in r.a (columns) and log max(λ̃, eigFloor)
// in r.lg. ok is false when tr K ≤ 0 or the eigensolver fails.
func (r *regularizer) vonNeumann(kmat []float64) (s, tr float64, ok bool) {
	k := r.k
	for i := 0; i < k; i++ {
		tr += kmat[i*k+i]
	}
	if !(tr > 0) {
		return 0, tr, false
	}
	copy(r.a, kmat[:k*k])
	if !lapack64.Syev(lapack.EVCompute, blas64.Symmetric{N: k, Stride: k, Data: r.a, Uplo: blas.Upper}, r.w, r.work, len(r.work)) {
		return 0, tr, false
	}
	for i, l := range r.w {
		p := l / tr
		if p > 0 {
			s -= p * math.Log(p)
		}
		r.lg[i] = math.Log(max(p, eigFloor))
	}
	return s / math.Log(float64(k)), tr, true
}

// frobPenalty returns R for the "frob-i" (ones = false) or "frob-ones"
// (ones = true) regulariser of the k×k matrix kmat with target t and adds
// scale·∂R/∂K to g:
//
//	d = ‖K − B‖²_F/(k(k−1)),  ∂d/∂K_ij = 2(K_ij − B_ij)/(k(k−1)),
//	R = −log d  (t = 0),  R = max(0, t − d)²  (t > 0),
//
// B = I or 11ᵀ. A zero d (K exactly at the extreme) returns +Inf for the
// barrier, which the trainers report as such (regularizer.errNonFinite).
func frobPenalty(kmat []float64, k int, ones bool, t float64, g []float64, scale float64) float64 {
	norm := float64(k * (k - 1))
	var d float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			v := kmat[i*k+j]
			if ones || i == j {
				v--
			}
			d += v * v
		}
	}
	d /= norm
	var val, dR float64
	if t > 0 {
		if d >= t {
			return 0
		}
		val, dR = (t-d)*(t-d), -2*(t-d)
	} else {
		val, dR = -math.Log(d), -1/d
	}
	if g != nil {
		c := scale * dR * 2 / norm
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				v := kmat[i*k+j]
				if ones || i == j {
					v--
				}
				g[i*k+j] += c * v
			}
		}
	}
	return val
}
