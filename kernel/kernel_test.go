package kernel

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func testKernels() map[string]Kernel {
	return map[string]Kernel{
		"linear":          Linear{},
		"poly":            Poly{Gamma: 0.5, Coef0: 1, Degree: 3},
		"rbf":             RBF{Gamma: 0.7},
		"sigmoid":         Sigmoid{Gamma: 0.1, Coef0: 0.2},
		"normalized-poly": Normalized{K: Poly{Gamma: 0.5, Coef0: 1, Degree: 2}},
		"normalized-lin":  Normalized{K: Linear{}},
		"normalized-rbf":  Normalized{K: RBF{Gamma: 0.3}},
	}
}

func randPoints(rng *rand.Rand, n, d int, scale float64) []float32 {
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * scale)
	}
	return x
}

func TestRowAndCrossMatchEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, m, d = 13, 7, 5
	a := randPoints(rng, n, d, 0.6)
	b := randPoints(rng, m, d, 0.6)
	for name, k := range testKernels() {
		t.Run(name, func(t *testing.T) {
			row := make([]float32, n)
			for j := 0; j < m; j++ {
				bj := b[j*d : j*d+d]
				k.Row(row, a, nil, bj)
				for i := 0; i < n; i++ {
					want := k.Eval(a[i*d:i*d+d], bj)
					if math.Abs(float64(row[i])-want) > 1e-5*(1+math.Abs(want)) {
						t.Fatalf("Row[%d] = %g, Eval = %g", i, row[i], want)
					}
				}
			}
			c := make([]float32, n*m)
			k.Cross(c, a, n, nil, b, m, nil, d)
			for i := 0; i < n; i++ {
				for j := 0; j < m; j++ {
					want := k.Eval(a[i*d:i*d+d], b[j*d:j*d+d])
					if got := float64(c[i*m+j]); math.Abs(got-want) > 1e-5*(1+math.Abs(want)) {
						t.Fatalf("Cross[%d,%d] = %g, Eval = %g", i, j, got, want)
					}
				}
			}
		})
	}
}

func TestSymmetryAndPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 30, 6
	x := randPoints(rng, n, d, 0.5)
	for name, k := range testKernels() {
		if name == "sigmoid" {
			continue // not PSD in general
		}
		t.Run(name, func(t *testing.T) {
			g := Gram(k, x, n, d)
			data := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if math.Abs(float64(g[i*n+j]-g[j*n+i])) > 1e-6*(1+math.Abs(float64(g[i*n+j]))) {
						t.Fatalf("K[%d,%d]=%g != K[%d,%d]=%g", i, j, g[i*n+j], j, i, g[j*n+i])
					}
					data[i*n+j] = float64(g[i*n+j]+g[j*n+i]) / 2
				}
			}
			var es mat.EigenSym
			if !es.Factorize(mat.NewSymDense(n, data), false) {
				t.Fatal("eigendecomposition failed")
			}
			vals := es.Values(nil)
			scale := math.Max(1, vals[len(vals)-1])
			if vals[0] < -1e-6*scale {
				t.Fatalf("smallest eigenvalue %g < 0 (largest %g)", vals[0], vals[len(vals)-1])
			}
		})
	}
}

// TestGradB checks GradB against central finite differences of Eval in float64.
func TestGradB(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const d = 6
	for name, k := range testKernels() {
		t.Run(name, func(t *testing.T) {
			for trial := 0; trial < 5; trial++ {
				a := randPoints(rng, 1, d, 0.5)
				b := randPoints(rng, 1, d, 0.5)
				if trial == 4 {
					copy(b, a) // the diagonal, where RBF's gradient vanishes
				}
				g := make([]float32, d)
				k.GradB(g, a, b, 2.5)
				for i := 0; i < d; i++ {
					const h = 1e-2
					bp := append([]float32(nil), b...)
					bm := append([]float32(nil), b...)
					bp[i] += h
					bm[i] -= h
					hp := float64(bp[i]) - float64(b[i])
					hm := float64(b[i]) - float64(bm[i])
					fd := 2.5 * (k.Eval(a, bp) - k.Eval(a, bm)) / (hp + hm)
					if math.Abs(fd-float64(g[i])) > 2e-3*(1+math.Abs(fd)) {
						t.Fatalf("trial %d: ∂K/∂b[%d] = %g, finite difference %g", trial, i, g[i], fd)
					}
				}
			}
		})
	}
}

func TestNormalizedUnitDiagonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	k := Normalized{K: Poly{Gamma: 1, Coef0: 1, Degree: 3}}
	for i := 0; i < 10; i++ {
		a := randPoints(rng, 1, 4, 2)
		if v := k.Eval(a, a); math.Abs(v-1) > 1e-12 {
			t.Fatalf("K̃(a,a) = %g, want 1", v)
		}
		b := randPoints(rng, 1, 4, 2)
		if v := k.Eval(a, b); math.Abs(v) > 1+1e-12 {
			t.Fatalf("|K̃(a,b)| = %g > 1", v)
		}
	}
}

func TestSpecRoundTrip(t *testing.T) {
	for _, s := range []Spec{
		{Name: "linear"},
		{Name: "poly", Gamma: 0.5, Coef0: 1, Degree: 3},
		{Name: "rbf", Gamma: 2},
		{Name: "sigmoid", Gamma: 0.1, Coef0: 0.5},
		{Name: "poly", Gamma: 1, Coef0: 1, Degree: 2, Normalized: true},
	} {
		k, err := New(s)
		if err != nil {
			t.Fatalf("New(%v): %v", s, err)
		}
		if got := k.Spec(); got != s {
			t.Errorf("Spec() = %+v, want %+v", got, s)
		}
	}
}

// TestSpecValidate: bad specs are refused with one message; γ and coef0
// beyond float32's range (γ = 1e308 made every RBF decision at distance 0
// NaN: float32(γ) = +Inf, and −Inf·0 = NaN) too.
func TestSpecValidate(t *testing.T) {
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{Name: "rbf", Gamma: 0}, "kernel: rbf needs gamma > 0, got 0"},
		{Spec{Name: "rbf", Gamma: -1}, "kernel: rbf needs gamma > 0, got -1"},
		{Spec{Name: "poly", Gamma: 1, Degree: 0}, "kernel: poly needs degree ≥ 1, got 0"},
		{Spec{Name: "rbf", Gamma: math.NaN()}, "kernel: gamma must be finite, got NaN"},
		{Spec{Name: "rbf", Gamma: 1e308}, "kernel: gamma must be at most 3.4e+38 in magnitude, got 1e+308"},
		{Spec{Name: "poly", Gamma: 1, Coef0: -1e39, Degree: 2}, "kernel: coef0 must be at most 3.4e+38 in magnitude, got -1e+39"},
		{Spec{Name: "cubic"}, `kernel: unknown kernel "cubic" (want linear, poly, rbf or sigmoid)`},
		{Spec{Name: Precomputed}, `kernel: "precomputed" names kernel values given with the data (LIBSVM's -t 4), not a kernel to compute`},
		{Spec{Name: "sigmoid", Gamma: 1, Coef0: -1, Normalized: true}, "kernel: normalized sigmoid needs coef0 > 0 so that K(a,a) > 0, got -1"},
	} {
		err := c.s.Validate()
		if err == nil || err.Error() != c.want {
			t.Errorf("Validate(%+v) = %v, want %q", c.s, err, c.want)
		}
	}
}

func TestDiagnostics(t *testing.T) {
	const n = 6
	id := make([]float32, n*n)
	ones := make([]float32, n*n)
	for i := 0; i < n; i++ {
		id[i*n+i] = 1
	}
	for i := range ones {
		ones[i] = 1
	}
	y := []float32{1, -1, 1, 1, -1, -1}
	ideal := make([]float32, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			ideal[i*n+j] = y[i] * y[j]
		}
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	near("entropy(I)", VonNeumannEntropy(id, n), 1)
	near("entropy(11ᵀ)", VonNeumannEntropy(ones, n), 0)
	near("alignment(yyᵀ)", Alignment(ideal, y), 1)
	near("alignment(I)", Alignment(id, y), 1/math.Sqrt(n))
	near("alignment(11ᵀ)", Alignment(ones, y), 0) // balanced labels
	near("‖I−I‖", FrobDistIdentity(id, n), 0)
	near("‖11ᵀ−I‖", FrobDistIdentity(ones, n), math.Sqrt(n*n-n))
	near("‖11ᵀ−11ᵀ‖", FrobDistOnes(ones, n), 0)
	near("‖I−11ᵀ‖", FrobDistOnes(id, n), math.Sqrt(n*n-n))
	// An RBF matrix of distinct points lies strictly between the extremes.
	rng := rand.New(rand.NewPCG(9, 10))
	x := randPoints(rng, n, 3, 1)
	e := VonNeumannEntropy(Gram(RBF{Gamma: 0.5}, x, n, 3), n)
	if !(e > 0 && e < 1) {
		t.Errorf("entropy(RBF) = %g, want in (0,1)", e)
	}
}

func BenchmarkRBFRow(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		rng := rand.New(rand.NewPCG(1, 1))
		const d = 20
		z := randPoints(rng, n, d, 0.3)
		norms := make([]float32, n)
		for i := range norms {
			norms[i] = float32(Linear{}.Eval(z[i*d:i*d+d], z[i*d:i*d+d]))
		}
		q := randPoints(rng, 1, d, 0.3)
		dst := make([]float32, n)
		k := RBF{Gamma: 1}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				k.Row(dst, z, norms, q)
			}
		})
	}
}
