package paper

import (
	"math"

	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/kernel"
)

// rbfGamma returns γ when k is an RBF kernel (plain or normalised, which is
// the same function) and 0 otherwise.
func rbfGamma(k kernel.Kernel) float64 {
	switch k := k.(type) {
	case kernel.RBF:
		return k.Gamma
	case kernel.Normalized:
		if r, ok := k.K.(kernel.RBF); ok {
			return r.Gamma
		}
	}
	return 0
}

// addRowGradB adds Σ_s w[s]·∂K(z_s, b)/∂b to dst, where z holds the rows z_s
// (len(w)×len(b)) and kz[s] = K(z_s, b) has been computed already. For the RBF
// kernel, ∂K(z_s,b)/∂b = 2γ·K(z_s,b)·(z_s − b), so the sum is one transposed
// GEMV: 2γ·(Zᵀu − (Σu)·b) with u_s = w_s·K(z_s,b). Other kernels go through
// GradB one row at a time. tmp must have len(w) elements.
func addRowGradB(dst []float32, k kernel.Kernel, z []float32, kz []float32, w []float64, b []float32, tmp []float32) {
	d := len(b)
	if g := rbfGamma(k); g > 0 {
		var su float64
		for s, ws := range w {
			u := ws * float64(kz[s])
			tmp[s] = float32(u)
			su += u
		}
		vec.Sgemv(true, len(w), d, float32(2*g), z, max(d, 1), tmp[:len(w)], 1, dst)
		vec.Axpy(float32(-2*g*su), b, dst)
		return
	}
	for s, ws := range w {
		if ws != 0 {
			k.GradB(dst, z[s*d:s*d+d], b, ws)
		}
	}
}

// addPointGradsB adds to each row j of dz (m×d) w[j]·∂K(b, z_j)/∂z_j, the
// gradient of Σ_j w_j·K(z_j, b) with respect to the points z_j, given the
// kernel row kz = K(z_j, b). For the RBF kernel, ∂K(b, z_j)/∂z_j =
// 2γ·K·(b − z_j) takes K from kz instead of evaluating it again.
func addPointGradsB(dz []float32, k kernel.Kernel, z, kz []float32, w []float64, b []float32) {
	d := len(b)
	if g := rbfGamma(k); g > 0 {
		for j, wj := range w {
			if wj == 0 {
				continue
			}
			c := float32(wj * 2 * g * float64(kz[j]))
			zj, dj := z[j*d:j*d+d], dz[j*d:j*d+d]
			for f, bf := range b {
				dj[f] += c * (bf - zj[f])
			}
		}
		return
	}
	for j, wj := range w {
		if wj != 0 {
			k.GradB(dz[j*d:j*d+d], b, z[j*d:j*d+d], wj)
		}
	}
}

// addGramGrad adds to dz (k×d) the gradient of a scalar objective O with
// respect to the rows of z (k×d), given kmat = K(z_i, z_j) and
// g = ∂O/∂K_ij (both k×k). Since K_ij depends on z_i and z_j,
//
//	∂O/∂z_i = Σ_j (g_ij + g_ji)·∂K(z_j, z_i)/∂z_i.
//
// For the RBF kernel this is 2γ·[(WZ)_i − (Σ_j W_ij)·z_i] with
// W_ij = (g_ij + g_ji)·K_ij, one GEMM. w must have k·k elements and rs k.
func addGramGrad(dz []float32, k kernel.Kernel, z []float32, n, d int, kmat, g []float64, w []float32, rs []float64) {
	if gm := rbfGamma(k); gm > 0 {
		clear(rs[:n])
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := (g[i*n+j] + g[j*n+i]) * kmat[i*n+j]
				w[i*n+j] = float32(v)
				rs[i] += v
			}
		}
		vec.Sgemm(false, false, n, d, n, float32(2*gm), w, n, z, d, 1, dz, d)
		for i := 0; i < n; i++ {
			vec.Axpy(float32(-2*gm*rs[i]), z[i*d:i*d+d], dz[i*d:i*d+d])
		}
		return
	}
	for i := 0; i < n; i++ {
		zi := z[i*d : i*d+d]
		for j := 0; j < n; j++ {
			if s := g[i*n+j] + g[j*n+i]; s != 0 {
				k.GradB(dz[i*d:i*d+d], z[j*d:j*d+d], zi, s)
			}
		}
	}
}

// gram fills kmat (n×n, float64) with K(z_i, z_j), symmetric by construction.
func gram(kmat []float64, k kernel.Kernel, z []float32, n, d int, tmp []float32) {
	k.Cross(tmp[:n*n], z, n, nil, z, n, nil, d)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := 0.5 * (float64(tmp[i*n+j]) + float64(tmp[j*n+i]))
			kmat[i*n+j], kmat[j*n+i] = v, v
		}
	}
}

// alignment returns A = Σ y_i y_j K_ij / (k·‖K‖_F) on a batch and, if g is
// not nil, sets g to scale·∂A/∂K:
//
//	∂A/∂K_ij = y_i y_j/(k‖K‖_F) − A·K_ij/‖K‖_F².
func alignment(kmat []float64, y []float32, g []float64, scale float64) float64 {
	n := len(y)
	var q, f2 float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := kmat[i*n+j]
			q += float64(y[i]*y[j]) * v
			f2 += v * v
		}
	}
	f := math.Sqrt(f2)
	a := q / (float64(n) * f)
	if g != nil {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				g[i*n+j] += scale * (float64(y[i]*y[j])/(float64(n)*f) - a*kmat[i*n+j]/f2)
			}
		}
	}
	return a
}

// weightedAlignment returns the first fraction of Algorithm 3's objective,
//
//	P = Σ a_ij K_ij / (‖a‖_F·‖K‖_F), a_ij = α_i α_j y_i y_j,
//
// and, if g is not nil, adds scale·∂P/∂K to g:
//
//	∂P/∂K_ij = a_ij/(‖a‖_F‖K‖_F) − P·K_ij/‖K‖_F².
//
// It returns 0 and adds nothing when all α are 0 (the paper's convention).
func weightedAlignment(kmat []float64, y []float32, alpha []float64, g []float64, scale float64) float64 {
	n := len(y)
	var na2 float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := alpha[i] * alpha[j]
			na2 += v * v
		}
	}
	if na2 == 0 {
		return 0
	}
	var p, f2 float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := kmat[i*n+j]
			p += alpha[i] * alpha[j] * float64(y[i]*y[j]) * v
			f2 += v * v
		}
	}
	na, f := math.Sqrt(na2), math.Sqrt(f2)
	val := p / (na * f)
	if g != nil {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				a := alpha[i] * alpha[j] * float64(y[i]*y[j])
				g[i*n+j] += scale * (a/(na*f) - val*kmat[i*n+j]/f2)
			}
		}
	}
	return val
}

// ClassAlignment is the kernel-target alignment of the Gram matrix of the n
// feature vectors z (d values each; the symmetrised K of gram) with the
// class target of y (ClassTarget), computed a block of rows at a time: the
// sums of targetAlignment in the same order, in memory for two blocks
// instead of three n×n matrices.
func ClassAlignment(k kernel.Kernel, z []float32, n, d int, y []int, c int) float64 {
	const block = 64
	off := -1 / float64(c-1)
	rows, cols := make([]float32, block*n), make([]float32, n*block)
	var q, f2, y2 float64
	for lo := 0; lo < n; lo += block {
		b := min(block, n-lo)
		k.Cross(rows[:b*n], z[lo*d:(lo+b)*d], b, nil, z, n, nil, d) // K_ij, i in the block
		k.Cross(cols[:n*b], z, n, nil, z[lo*d:(lo+b)*d], b, nil, d) // K_ji
		for a := range b {
			i := lo + a
			for j := range n {
				v := 0.5 * (float64(rows[a*n+j]) + float64(cols[j*b+a]))
				t := off
				if y[i] == y[j] {
					t = 1
				}
				q += t * v
				f2 += v * v
				y2 += t * t
			}
		}
	}
	if f2 == 0 || y2 == 0 {
		return 0
	}
	return q / (math.Sqrt(f2) * math.Sqrt(y2))
}

// batchGrad is the workspace of a θ-step whose objective O is a closed-form
// function of the kernel matrix K_ij = K(F_θ(x_i), F_θ(x_j)) of a batch of
// k points with n features each: Algorithms 3 and 4 (binary, Part I on any
// target, joint multiclass). The trainer fills kmat (gram), forms ∂O/∂K in
// g, and cotangent turns it into ∂O/∂F_θ(x) in dz for the network's
// Backward.
type batchGrad struct {
	k           kernel.Kernel
	reg         *regularizer // ρ·R(K) of Config.Reg; nil when it is off
	kmat, g, rs []float64    // k×k, k×k, k
	wk, dz      []float32    // k×k, k×n
}

// newBatchGrad returns the workspace for batches of kb points with n
// features under the kernel k and the regulariser reg.
func newBatchGrad(k kernel.Kernel, reg RegConfig, kb, n int) batchGrad {
	return batchGrad{k: k, reg: newRegularizer(reg, kb), kmat: make([]float64, kb*kb), g: make([]float64, kb*kb),
		rs: make([]float64, kb), wk: make([]float32, kb*kb), dz: make([]float32, kb*n)}
}

// gram fills kmat with the kernel matrix of the batch features out (kb×n).
func (s *batchGrad) gram(out []float32, kb, n int) { gram(s.kmat, s.k, out, kb, n, s.wk) }

// cotangent adds ρ·R(K) to the objective obj and ρ·∂R/∂K to g when a
// regulariser is on, then sets dz to ∂O/∂out for the batch features out
// (kb×n) from g = ∂O/∂K. It returns O, or an error naming algorithm alg and
// step t when the regulariser or the gradient is not finite.
func (s *batchGrad) cotangent(out []float32, kb, n, alg, t int, obj float64) (float64, error) {
	if s.reg != nil {
		rv := s.reg.add(s.kmat, s.g)
		if math.IsInf(rv, 0) || math.IsNaN(rv) {
			return 0, s.reg.errNonFinite(alg, t)
		}
		obj += rv
	}
	clear(s.dz)
	addGramGrad(s.dz, s.k, out, kb, n, s.kmat, s.g, s.wk, s.rs)
	if nonFinite(s.dz) {
		return 0, errNonFinite(alg, t, "gradient")
	}
	return obj, nil
}
