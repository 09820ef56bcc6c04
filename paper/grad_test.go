package paper

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// fdCheck compares the analytic gradient of obj with respect to the weights
// of f (left in f.gW by grad) against central finite differences.
func fdCheck(t *testing.T, f *tanhMap, obj func() float64, grad func()) {
	t.Helper()
	f.ZeroGrad()
	grad()
	g := append([]float32(nil), f.gW...)
	var worst float64
	for i := range f.W {
		const h = 1e-2
		w := f.W[i]
		f.W[i] = w + h
		hp := float64(f.W[i] - w)
		op := obj()
		f.W[i] = w - h
		hm := float64(w - f.W[i])
		om := obj()
		f.W[i] = w
		fd := (op - om) / (hp + hm)
		d := math.Abs(fd-float64(g[i])) / (1e-3 + math.Abs(fd))
		worst = math.Max(worst, d)
		if d > 2e-2 {
			t.Fatalf("∂O/∂W[%d] = %g, finite difference %g", i, g[i], fd)
		}
	}
	t.Logf("worst relative difference %.2e", worst)
}

var gradKernels = map[string]kernel.Kernel{
	"rbf":        kernel.RBF{Gamma: 0.4},
	"poly":       kernel.Poly{Gamma: 0.5, Coef0: 1, Degree: 2},
	"normalized": kernel.Normalized{K: kernel.Poly{Gamma: 0.5, Coef0: 1, Degree: 3}},
}

func feats(f *tanhMap, x []float32, rows int) []float32 {
	z := make([]float32, rows*f.n)
	f.Features(z, x, rows)
	return z
}

// TestAlg1Gradient: O(θ) = −y/(λ(t−1)) Σ_s α_s y_s K(z_s, F_θ(x)) with fixed z_s.
func TestAlg1Gradient(t *testing.T) {
	for name, k := range gradKernels {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 12))
			const d, n, ns = 4, 3, 7
			f := newTanhMap(d, n, rng)
			z := make([]float32, ns*n)
			for i := range z {
				z[i] = float32(rng.NormFloat64() * 0.6)
			}
			w := make([]float64, ns)
			for i := range w {
				w[i] = 3 * rng.NormFloat64()
			}
			x := []float32{0.3, -0.5, 0.8, 0.1}
			obj := func() float64 {
				q := feats(f, x, 1)
				var s float64
				for i := 0; i < ns; i++ {
					s += w[i] * k.Eval(z[i*n:i*n+n], q)
				}
				return s
			}
			fdCheck(t, f, obj, func() {
				q := append([]float32(nil), f.Forward(x, 1, true)...)
				kz := make([]float32, ns)
				k.Row(kz, z, nil, q)
				dz := make([]float32, n)
				addRowGradB(dz, k, z, kz, w, q, make([]float32, ns))
				f.Backward(dz)
			})
		})
	}
}

// TestAlg2Gradient: O(θ) = c Σ_j α_j y_j K(F_θ(x_j), F_θ(x_i)), through all points.
func TestAlg2Gradient(t *testing.T) {
	for name, k := range gradKernels {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(13, 14))
			const d, n, m = 4, 3, 6
			f := newTanhMap(d, n, rng)
			xs := make([]float32, m*d)
			for i := range xs {
				xs[i] = float32(rng.NormFloat64())
			}
			w := make([]float64, m)
			for i := range w {
				w[i] = 2 * rng.NormFloat64()
			}
			xq := xs[2*d : 3*d] // the query is also a support vector
			obj := func() float64 {
				z := feats(f, xs, m)
				q := feats(f, xq, 1)
				var s float64
				for j := 0; j < m; j++ {
					s += w[j] * k.Eval(z[j*n:j*n+n], q)
				}
				return s
			}
			fdCheck(t, f, obj, func() {
				z := feats(f, xs, m)
				q := feats(f, xq, 1)
				kz := make([]float32, m)
				k.Row(kz, z, nil, q)
				dz := make([]float32, (m+1)*n)
				addRowGradB(dz[m*n:], k, z, kz, w, q, make([]float32, m))
				addPointGradsB(dz[:m*n], k, z, kz, w, q)
				batch := append(append([]float32(nil), xs...), xq...)
				f.Forward(batch, m+1, true)
				f.Backward(dz)
			})
		})
	}
}

// TestBatchObjectiveGradients covers Algorithm 3's μ·P − A and Algorithm 4's
// (1 − A)² through addGramGrad.
func TestBatchObjectiveGradients(t *testing.T) {
	for name, k := range gradKernels {
		for _, alg := range []int{3, 4} {
			t.Run(name+"/alg"+string(rune('0'+alg)), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(15, uint64(alg)))
				const d, n, kb = 4, 3, 5
				f := newTanhMap(d, n, rng)
				xb := make([]float32, kb*d)
				for i := range xb {
					xb[i] = float32(rng.NormFloat64())
				}
				yb := []float32{1, -1, 1, 1, -1}
				ab := []float64{0.25, 0, 0.5, 0.25, 0.75}
				const mu = 0.7
				value := func(K []float64, g []float64) float64 {
					if alg == 3 {
						p := weightedAlignment(K, yb, ab, g, mu)
						a := alignment(K, yb, g, -1)
						return mu*p - a
					}
					a := alignment(K, yb, nil, 0)
					l, dl := SquaredAlignLoss(a)
					if g != nil {
						alignment(K, yb, g, dl)
					}
					return l
				}
				gramOf := func(z []float32) []float64 {
					K := make([]float64, kb*kb)
					gram(K, k, z, kb, n, make([]float32, kb*kb))
					return K
				}
				obj := func() float64 { return value(gramOf(feats(f, xb, kb)), nil) }
				fdCheck(t, f, obj, func() {
					z := append([]float32(nil), f.Forward(xb, kb, true)...)
					K := gramOf(z)
					g := make([]float64, kb*kb)
					value(K, g)
					dz := make([]float32, kb*n)
					addGramGrad(dz, k, z, kb, n, K, g, make([]float32, kb*kb), make([]float64, kb))
					f.Backward(dz)
				})
			})
		}
	}
}

func TestWeightedAlignmentAllZero(t *testing.T) {
	K := []float64{1, 0.5, 0.5, 1}
	g := make([]float64, 4)
	if v := weightedAlignment(K, []float32{1, -1}, []float64{0, 0}, g, 1); v != 0 {
		t.Fatalf("P = %g with all α = 0, want 0", v)
	}
	for _, v := range g {
		if v != 0 {
			t.Fatal("gradient must be zero when the first fraction is replaced by 0")
		}
	}
}
