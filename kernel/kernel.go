package kernel

import (
	"fmt"
	"math"
	"strings"

	"github.com/nsvm-go/nsvm/internal/vec"
)

// Kernel is a symmetric positive semidefinite kernel on ℝⁿ.
type Kernel interface {
	// Eval returns K(a, b).
	Eval(a, b []float32) float64
	// Row sets dst[i] = K(z_i, b) for the rows z_i of the row-major
	// len(dst)×len(b) matrix z. norms, if not nil, holds ‖z_i‖²; kernels that
	// need norms compute them when it is nil.
	Row(dst []float32, z []float32, norms []float32, b []float32)
	// Cross sets dst[i·nb+j] = K(a_i, b_j) for the na rows of a and nb rows of
	// b (both row-major with d columns). Norms may be nil.
	Cross(dst []float32, a []float32, na int, anorms []float32, b []float32, nb int, bnorms []float32, d int)
	// GradB adds scale·∂K(a,b)/∂b to dst.
	GradB(dst []float32, a, b []float32, scale float64)
	// Spec returns the kernel's serialisable description.
	Spec() Spec
}

// Precomputed is the name of LIBSVM's precomputed kernel (svm-train -t 4):
// the kernel values come with the data, as rows of K(x, x_j) against the
// training points x_j, instead of being computed from features. It is the
// Spec name of the models package svm trains on such values (see
// svm.NewGramMatrix), but no Kernel implements it: there is no function of
// two feature vectors to evaluate, so Validate and New refuse it.
const Precomputed = "precomputed"

// Spec describes a kernel by name and parameters. The zero value of a
// parameter means "not used by this kernel".
type Spec struct {
	Name       string  `json:"name"` // linear, poly, rbf, sigmoid (or Precomputed)
	Gamma      float64 `json:"gamma,omitempty"`
	Coef0      float64 `json:"coef0,omitempty"`
	Degree     int     `json:"degree,omitempty"`
	Normalized bool    `json:"normalized,omitempty"`
}

// String formats the spec as e.g. "rbf(gamma=1)" or "normalized(poly(gamma=0.5,coef0=1,degree=3))".
func (s Spec) String() string {
	var b string
	switch s.Name {
	case "linear":
		b = "linear"
	case "poly":
		b = fmt.Sprintf("poly(gamma=%g,coef0=%g,degree=%d)", s.Gamma, s.Coef0, s.Degree)
	case "rbf":
		b = fmt.Sprintf("rbf(gamma=%g)", s.Gamma)
	case "sigmoid":
		b = fmt.Sprintf("sigmoid(gamma=%g,coef0=%g)", s.Gamma, s.Coef0)
	default:
		b = s.Name
	}
	if s.Normalized {
		return "normalized(" + b + ")"
	}
	return b
}

// Validate reports whether the spec names a known kernel with valid parameters.
func (s Spec) Validate() error {
	bad := func(what string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("kernel: %s must be finite, got %g", what, v)
		}
		// The kernel rows compute in float32, where a larger value is +Inf
		// (and −Inf·0 = NaN at distance 0).
		if math.Abs(v) > math.MaxFloat32 {
			return fmt.Errorf("kernel: %s must be at most %.3g in magnitude, got %g", what, math.MaxFloat32, v)
		}
		return nil
	}
	for _, c := range []struct {
		n string
		v float64
	}{{"gamma", s.Gamma}, {"coef0", s.Coef0}} {
		if err := bad(c.n, c.v); err != nil {
			return err
		}
	}
	switch strings.ToLower(s.Name) {
	case "linear":
	case "poly", "polynomial":
		if s.Gamma <= 0 {
			return fmt.Errorf("kernel: poly needs gamma > 0, got %g", s.Gamma)
		}
		if s.Degree < 1 {
			return fmt.Errorf("kernel: poly needs degree ≥ 1, got %d", s.Degree)
		}
		if s.Normalized && s.Coef0 < 0 {
			return fmt.Errorf("kernel: normalized poly needs coef0 ≥ 0 so that K(a,a) > 0, got %g", s.Coef0)
		}
	case "rbf", "gaussian":
		if s.Gamma <= 0 {
			return fmt.Errorf("kernel: rbf needs gamma > 0, got %g", s.Gamma)
		}
	case "sigmoid", "tanh":
		if s.Gamma <= 0 {
			return fmt.Errorf("kernel: sigmoid needs gamma > 0, got %g", s.Gamma)
		}
		if s.Normalized && s.Coef0 <= 0 {
			return fmt.Errorf("kernel: normalized sigmoid needs coef0 > 0 so that K(a,a) > 0, got %g", s.Coef0)
		}
	case Precomputed:
		return fmt.Errorf("kernel: %q names kernel values given with the data (LIBSVM's -t 4), not a kernel to compute", s.Name)
	case "":
		return fmt.Errorf("kernel: no kernel name given (want linear, poly, rbf or sigmoid)")
	default:
		return fmt.Errorf("kernel: unknown kernel %q (want linear, poly, rbf or sigmoid)", s.Name)
	}
	return nil
}

// New builds the kernel a spec describes.
func New(s Spec) (Kernel, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var k Kernel
	switch strings.ToLower(s.Name) {
	case "linear":
		k = Linear{}
	case "poly", "polynomial":
		k = Poly{Gamma: s.Gamma, Coef0: s.Coef0, Degree: s.Degree}
	case "rbf", "gaussian":
		k = RBF{Gamma: s.Gamma}
	case "sigmoid", "tanh":
		k = Sigmoid{Gamma: s.Gamma, Coef0: s.Coef0}
	}
	if s.Normalized {
		k = Normalized{K: k}
	}
	return k, nil
}

// MustNew is New for specs known to be valid; it panics on error.
func MustNew(s Spec) Kernel {
	k, err := New(s)
	if err != nil {
		panic(err)
	}
	return k
}

// dotKernel is a kernel that is a function of a·b, ‖a‖² and ‖b‖².
type dotKernel interface {
	Kernel
	// f returns K from dot = a·b, na = ‖a‖², nb = ‖b‖².
	f(dot, na, nb float64) float64
	// needsNorms reports whether f uses na and nb.
	needsNorms() bool
}

func checkRow(dst, z, b []float32) {
	if len(z) != len(dst)*len(b) {
		panic("kernel: Row: len(z) != len(dst)·len(b)")
	}
}

// rowDot sets dst[i] = z_i·b.
func rowDot(dst, z, b []float32) {
	d := len(b)
	vec.Sgemv(false, len(dst), d, 1, z, max(d, 1), b, 0, dst)
}

func rowGeneric(k dotKernel, dst, z, norms, b []float32) {
	checkRow(dst, z, b)
	rowDot(dst, z, b)
	nb := 0.0
	useN := k.needsNorms()
	if useN {
		nb = vec.SqNorm(b)
	}
	d := len(b)
	for i, dot := range dst {
		na := 0.0
		if useN {
			if norms != nil {
				na = float64(norms[i])
			} else {
				na = vec.SqNorm(z[i*d : i*d+d])
			}
		}
		dst[i] = float32(k.f(float64(dot), na, nb))
	}
}

// crossDots sets dst (na×nb) to the dot products a_i·b_j by
// vec.SgemmDots (row i of dst depends on a_i and b only, whatever na) and
// returns the squared norms of the rows of a and b when need is set
// (computing those not given).
func crossDots(dst, a []float32, na int, an []float32, b []float32, nb int, bn []float32, d int, need bool) ([]float32, []float32) {
	if len(dst) < na*nb || len(a) < na*d || len(b) < nb*d {
		panic("kernel: Cross: short slice")
	}
	if na == 0 || nb == 0 {
		return an, bn
	}
	if d == 0 {
		clear(dst[:na*nb])
	} else {
		vec.SgemmDots(na, nb, d, 1, a, d, b, d, 0, dst, nb)
	}
	if need {
		if an == nil {
			an = make([]float32, na)
			vec.SqNormsTo(an, a, na, d)
		}
		if bn == nil {
			bn = make([]float32, nb)
			vec.SqNormsTo(bn, b, nb, d)
		}
	}
	return an, bn
}

func crossGeneric(k dotKernel, dst, a []float32, na int, an []float32, b []float32, nb int, bn []float32, d int) {
	useN := k.needsNorms()
	an, bn = crossDots(dst, a, na, an, b, nb, bn, d, useN)
	for i := 0; i < na; i++ {
		row := dst[i*nb : i*nb+nb]
		ai := 0.0
		if useN {
			ai = float64(an[i])
		}
		for j, dot := range row {
			bj := 0.0
			if useN {
				bj = float64(bn[j])
			}
			row[j] = float32(k.f(float64(dot), ai, bj))
		}
	}
}

// Linear is K(a,b) = a·b.
type Linear struct{}

func (Linear) f(dot, _, _ float64) float64 { return dot }
func (Linear) needsNorms() bool            { return false }

// Eval returns a·b.
func (Linear) Eval(a, b []float32) float64 { return vec.Dot64(a, b) }

// Row sets dst[i] = z_i·b.
func (k Linear) Row(dst, z, norms, b []float32) { checkRow(dst, z, b); rowDot(dst, z, b) }

// Cross sets dst to A·Bᵀ.
func (k Linear) Cross(dst, a []float32, na int, an []float32, b []float32, nb int, bn []float32, d int) {
	crossGeneric(k, dst, a, na, an, b, nb, bn, d)
}

// GradB adds scale·a to dst.
func (Linear) GradB(dst, a, b []float32, scale float64) { vec.Axpy(float32(scale), a, dst) }

// Spec returns {Name: "linear"}.
func (Linear) Spec() Spec { return Spec{Name: "linear"} }

// Poly is K(a,b) = (γ·a·b + coef0)^degree.
type Poly struct {
	Gamma, Coef0 float64
	Degree       int
}

func (k Poly) f(dot, _, _ float64) float64 { return powi(k.Gamma*dot+k.Coef0, k.Degree) }
func (Poly) needsNorms() bool              { return false }

func powi(x float64, n int) float64 {
	r := 1.0
	for n > 0 {
		if n&1 == 1 {
			r *= x
		}
		x *= x
		n >>= 1
	}
	return r
}

// Eval returns (γ·a·b + coef0)^degree.
func (k Poly) Eval(a, b []float32) float64 { return k.f(vec.Dot64(a, b), 0, 0) }

// Row sets dst[i] = K(z_i, b).
func (k Poly) Row(dst, z, norms, b []float32) { rowGeneric(k, dst, z, norms, b) }

// Cross sets dst[i·nb+j] = K(a_i, b_j).
func (k Poly) Cross(dst, a []float32, na int, an []float32, b []float32, nb int, bn []float32, d int) {
	crossGeneric(k, dst, a, na, an, b, nb, bn, d)
}

// GradB adds scale·degree·γ·(γ·a·b+coef0)^(degree−1)·a to dst.
func (k Poly) GradB(dst, a, b []float32, scale float64) {
	u := k.Gamma*vec.Dot64(a, b) + k.Coef0
	vec.Axpy(float32(scale*float64(k.Degree)*k.Gamma*powi(u, k.Degree-1)), a, dst)
}

// Spec returns the poly spec.
func (k Poly) Spec() Spec {
	return Spec{Name: "poly", Gamma: k.Gamma, Coef0: k.Coef0, Degree: k.Degree}
}

// RBF is K(a,b) = exp(−γ‖a−b‖²).
type RBF struct{ Gamma float64 }

func (k RBF) f(dot, na, nb float64) float64 {
	return math.Exp(-k.Gamma * max(na+nb-2*dot, 0))
}
func (RBF) needsNorms() bool { return true }

// Eval returns exp(−γ‖a−b‖²).
func (k RBF) Eval(a, b []float32) float64 { return math.Exp(-k.Gamma * vec.SqDist(a, b)) }

// Row sets dst[i] = exp(−γ‖z_i−b‖²), computing the distances from one GEMV
// (‖z_i‖² + ‖b‖² − 2·z_i·b) and a vectorised exp.
func (k RBF) Row(dst, z, norms, b []float32) {
	checkRow(dst, z, b)
	rowDot(dst, z, b)
	d := len(b)
	nb := float32(vec.SqNorm(b))
	g := float32(k.Gamma)
	if norms != nil {
		vec.RBFArg(dst, norms, nb, g)
		vec.ExpTo(dst, dst)
		return
	}
	for i, dot := range dst {
		na := float32(vec.SqNorm(z[i*d : i*d+d]))
		dst[i] = -g * max(na+nb-2*dot, 0)
	}
	vec.ExpTo(dst, dst)
}

// Cross sets dst[i·nb+j] = exp(−γ‖a_i−b_j‖²): the dot products by
// vec.SgemmDots (row i of dst depends on a_i and b only, whatever na), then
// per row the exponent −γ·max(‖a_i‖² + ‖b_j‖² − 2a_i·b_j, 0) in
// float32 and the vector exp, the arithmetic of Row.
func (k RBF) Cross(dst, a []float32, na int, an []float32, b []float32, nb int, bn []float32, d int) {
	an, bn = crossDots(dst, a, na, an, b, nb, bn, d, true)
	g := float32(k.Gamma)
	for i := 0; i < na; i++ {
		row := dst[i*nb : i*nb+nb]
		ai := an[i]
		for j, dot := range row {
			row[j] = -g * max(ai+bn[j]-2*dot, 0)
		}
		vec.ExpTo(row, row)
	}
}

// GradB adds scale·2γ·K(a,b)·(a−b) to dst.
func (k RBF) GradB(dst, a, b []float32, scale float64) {
	if len(dst) != len(a) || len(a) != len(b) {
		panic("kernel: GradB: length mismatch")
	}
	c := float32(scale * 2 * k.Gamma * k.Eval(a, b))
	for i := range dst {
		dst[i] += c * (a[i] - b[i])
	}
}

// Spec returns the rbf spec.
func (k RBF) Spec() Spec { return Spec{Name: "rbf", Gamma: k.Gamma} }

// Sigmoid is K(a,b) = tanh(γ·a·b + coef0). It is not positive semidefinite
// for all parameters and data; it is offered because LIBSVM offers it.
type Sigmoid struct{ Gamma, Coef0 float64 }

func (k Sigmoid) f(dot, _, _ float64) float64 { return math.Tanh(k.Gamma*dot + k.Coef0) }
func (Sigmoid) needsNorms() bool              { return false }

// Eval returns tanh(γ·a·b + coef0).
func (k Sigmoid) Eval(a, b []float32) float64 { return k.f(vec.Dot64(a, b), 0, 0) }

// Row sets dst[i] = K(z_i, b).
func (k Sigmoid) Row(dst, z, norms, b []float32) { rowGeneric(k, dst, z, norms, b) }

// Cross sets dst[i·nb+j] = K(a_i, b_j).
func (k Sigmoid) Cross(dst, a []float32, na int, an []float32, b []float32, nb int, bn []float32, d int) {
	crossGeneric(k, dst, a, na, an, b, nb, bn, d)
}

// GradB adds scale·γ·(1−K²)·a to dst.
func (k Sigmoid) GradB(dst, a, b []float32, scale float64) {
	t := k.Eval(a, b)
	vec.Axpy(float32(scale*k.Gamma*(1-t*t)), a, dst)
}

// Spec returns the sigmoid spec.
func (k Sigmoid) Spec() Spec { return Spec{Name: "sigmoid", Gamma: k.Gamma, Coef0: k.Coef0} }
