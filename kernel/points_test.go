package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nsvm-go/nsvm/internal/vec"
)

// TestPointsRow checks Points.Row against Kernel.Row on the row-major copy
// for every kernel, through appends, replacements and truncations that
// leave partial panels.
func TestPointsRow(t *testing.T) {
	kernels := []Kernel{
		Linear{}, Poly{Gamma: 0.1, Coef0: 1, Degree: 3}, RBF{Gamma: 0.05}, Sigmoid{Gamma: 0.01, Coef0: -0.5},
		Normalized{K: Poly{Gamma: 0.2, Coef0: 1, Degree: 2}},
	}
	r := rand.New(rand.NewPCG(3, 4))
	rnd := func(d int) []float32 {
		x := make([]float32, d)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return x
	}
	for _, d := range []int{1, 3, 20, 37} {
		p := NewPoints(d)
		check := func(stage string) {
			t.Helper()
			n := p.Len()
			if len(p.X()) != n*d || len(p.Norms()) != n {
				t.Fatalf("d=%d %s: X has %d values, norms %d, for %d points", d, stage, len(p.X()), len(p.Norms()), n)
			}
			b := rnd(d)
			for _, k := range kernels {
				got := make([]float32, n)
				want := make([]float32, n)
				p.Row(k, got, b)
				k.Row(want, p.X(), p.Norms(), b)
				for i := range got {
					if math.Abs(float64(got[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
						t.Fatalf("d=%d %s %v: K(z_%d, b) = %g, Kernel.Row %g", d, stage, k.Spec(), i, got[i], want[i])
					}
				}
			}
		}
		for i := 0; i < 21; i++ {
			x := rnd(d)
			p.Append(x, float32(vec.SqNorm(x)))
			check("append")
		}
		x := rnd(d)
		p.Set(5, x, float32(vec.SqNorm(x)))
		check("set")
		p.Truncate(13)
		check("truncate")
		for i := 0; i < 4; i++ {
			x := rnd(d)
			p.Append(x, float32(vec.SqNorm(x)))
		}
		check("append after truncate")
		p.Reset()
		check("reset")
	}
}

// BenchmarkPointsRow compares the panel row with Kernel.Row on the
// row-major copy: RBF, d = 20, 10⁴ points.
func BenchmarkPointsRow(b *testing.B) {
	const n, d = 10000, 20
	r := rand.New(rand.NewPCG(1, 2))
	p := NewPoints(d)
	x := make([]float32, d)
	for i := 0; i < n; i++ {
		for f := range x {
			x[f] = float32(r.NormFloat64())
		}
		p.Append(x, float32(vec.SqNorm(x)))
	}
	var k Kernel = RBF{Gamma: 0.05}
	dst := make([]float32, n)
	b.Run("panels", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.Row(k, dst, x)
		}
	})
	b.Run("rowmajor", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			k.Row(dst, p.X(), p.Norms(), x)
		}
	})
}
