package kernel

import (
	"fmt"
	"math"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/vec"
)

// OnRows reports whether EvalVec and RowVec take k on rows of either kind:
// k is one of the dot-product kernels of this package (Linear, Poly, RBF,
// Sigmoid) or Normalized around one. Each is K = f(a·b, ‖a‖², ‖b‖²), so
// that a sparse row costs its nonzeros only — LIBSVM's model of rows of
// index:value nodes with the kernel computing on them. Other kernels take
// dense rows only.
func OnRows(k Kernel) bool {
	if n, ok := k.(Normalized); ok {
		k = n.K
	}
	_, ok := k.(dotKernel)
	return ok
}

// EvalVec returns K(a, b) for two rows of the same width, each dense or
// sparse, given their squared norms na = ‖a‖² and nb = ‖b‖² (cached by
// the caller; only the kernels that need them read them). The dot product
// is data.DotVec's, in float64. A kernel outside OnRows is evaluated by
// its Eval on two dense rows and panics on a sparse one.
func EvalVec(k Kernel, a, b data.Vec, na, nb float64) float64 {
	switch k := k.(type) {
	case Normalized:
		return EvalVec(k.K, a, b, na, nb) / math.Sqrt(SelfVec(k.K, a, na)*SelfVec(k.K, b, nb))
	case dotKernel:
		return k.f(data.DotVec(a, b), na, nb)
	}
	if a.Idx != nil || b.Idx != nil {
		panic(fmt.Sprintf("kernel: EvalVec: %T takes dense rows only", k))
	}
	return k.Eval(a.Val, b.Val)
}

// SelfVec returns K(a, a) given na = ‖a‖²: f(na, na, na) for a dot-product
// kernel (exactly 1 for RBF), 1 for a normalised one.
func SelfVec(k Kernel, a data.Vec, na float64) float64 {
	switch k := k.(type) {
	case Normalized:
		s := SelfVec(k.K, a, na)
		return s / math.Sqrt(s*s)
	case dotKernel:
		return k.f(na, na, na)
	}
	return EvalVec(k, a, a, na, na)
}

// RowVec sets dst[j] = K(z[j], b) for the rows z[j] (each dense or sparse,
// all of b's width D) with squared norms zn[j] (nil: computed here),
// against the query b with squared norm nb. bd is b as a dense row: b.Val
// itself when b is dense, else b scattered into zeroed scratch of D values
// (b.Scatter(bd), b.Clear(bd) afterwards), so that one scatter serves many
// calls, and goroutines, against the same query. A sparse z[j] then costs
// one gather of bd at its nonzeros; a dense z[j] against a sparse b gathers
// z[j] at b's nonzeros. Dot products are summed in float64; RBF's exponent
// −γ·max(‖z_j‖² + ‖b‖² − 2z_j·b, 0) is rounded to float32 and goes through
// the vector exp of Row, the other kernels' f is taken in float64. It
// panics for a kernel outside OnRows.
func RowVec(k Kernel, dst []float32, z []data.Vec, zn []float32, b data.Vec, nb float64, bd []float32) {
	if len(z) != len(dst) || (zn != nil && len(zn) != len(dst)) {
		panic("kernel: RowVec: length mismatch")
	}
	switch k := k.(type) {
	case Normalized:
		f, ok := k.K.(dotKernel)
		if !ok {
			break
		}
		rowVec(f, dst, z, zn, b, nb, bd)
		sb := f.f(nb, nb, nb)
		for j := range dst {
			nj := norm(z, zn, j)
			dst[j] = float32(float64(dst[j]) / math.Sqrt(f.f(nj, nj, nj)*sb))
		}
		return
	case dotKernel:
		rowVec(k, dst, z, zn, b, nb, bd)
		return
	}
	panic(fmt.Sprintf("kernel: RowVec: %T is not a dot-product kernel", k))
}

func norm(z []data.Vec, zn []float32, j int) float64 {
	if zn != nil {
		return float64(zn[j])
	}
	return float64(float32(z[j].SqNorm()))
}

// rowVec is RowVec for a dot-product kernel.
func rowVec(k dotKernel, dst []float32, z []data.Vec, zn []float32, b data.Vec, nb float64, bd []float32) {
	if zn == nil && k.needsNorms() {
		zn = make([]float32, len(z))
		for j, zj := range z {
			zn[j] = float32(zj.SqNorm())
		}
	}
	if rbf, ok := k.(RBF); ok {
		g := rbf.Gamma
		zn = zn[:len(z)]
		for j, zj := range z {
			dst[j] = float32(-g * max(float64(zn[j])+nb-2*DotRow(zj, b, bd), 0))
		}
		vec.ExpTo(dst, dst)
		return
	}
	for j, zj := range z {
		var nj float64
		if zn != nil {
			nj = float64(zn[j])
		}
		dst[j] = float32(k.f(DotRow(zj, b, bd), nj, nb))
	}
}

// DotRow returns z·b in float64, where bd is b as a dense row (see
// RowVec): a gather of bd at z's nonzeros for a sparse z, of z at b's
// nonzeros for a dense z and a sparse b, a dense dot product otherwise.
func DotRow(z, b data.Vec, bd []float32) float64 {
	switch {
	case z.Idx != nil:
		return gather(z, bd)
	case b.Idx != nil:
		return gather(b, z.Val)
	}
	return vec.Dot64(z.Val, bd[:len(z.Val)])
}

// gather returns Σ_k v.Val[k]·w[v.Idx[k]] for a sparse v, in four float64
// partial sums (the additions of one chain would bound it otherwise).
func gather(v data.Vec, w []float32) float64 {
	idx := v.Idx
	val := v.Val[:len(idx)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		s0 += float64(val[k]) * float64(w[idx[k]])
		s1 += float64(val[k+1]) * float64(w[idx[k+1]])
		s2 += float64(val[k+2]) * float64(w[idx[k+2]])
		s3 += float64(val[k+3]) * float64(w[idx[k+3]])
	}
	for ; k < len(idx); k++ {
		s0 += float64(val[k]) * float64(w[idx[k]])
	}
	return (s0 + s1) + (s2 + s3)
}
