package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

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
		// Grow: the points appended after it stay where Grow put them,
		// and rows are still right.
		p.Grow(19)
		x0, pan0 := &p.X()[:cap(p.X())][cap(p.X())-1], &p.pan[:cap(p.pan)][cap(p.pan)-1]
		if cap(p.X()) < (p.Len()+19)*d {
			t.Fatalf("d=%d: Grow(19) leaves room for %d values, want %d", d, cap(p.X()), (p.Len()+19)*d)
		}
		for range 19 {
			x := rnd(d)
			p.Append(x, float32(vec.SqNorm(x)))
		}
		if &p.X()[:cap(p.X())][cap(p.X())-1] != x0 || &p.pan[:cap(p.pan)][cap(p.pan)-1] != pan0 {
			t.Fatalf("d=%d: appending after Grow reallocated", d)
		}
		check("append after grow")
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

// TestPointsRowSum checks RowSum against Row and a float64 sum, serial and
// parallel (bit-identical to each other), across the split threshold.
func TestPointsRowSum(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{10, parMin - 1, parMin, parMin + 13} {
		const d = 20
		p := NewPoints(d)
		x := make([]float32, d)
		c := make([]float64, n)
		for i := 0; i < n; i++ {
			for f := range x {
				x[f] = float32(r.NormFloat64())
			}
			p.Append(x, float32(vec.SqNorm(x)))
			c[i] = float64(i%5) - 2
		}
		for _, k := range []Kernel{RBF{Gamma: 0.05}, Poly{Gamma: 0.1, Coef0: 1, Degree: 2}} {
			row := make([]float32, n)
			p.Row(k, row, x)
			var want, mag float64
			for i, v := range row {
				want += c[i] * float64(v)
				mag += math.Abs(c[i] * float64(v))
			}
			var sums [2]float64
			for pi, par := range []bool{false, true} {
				p.Parallel = par
				dst := make([]float32, n)
				sums[pi] = p.RowSum(k, dst, c, x)
				for i := range dst {
					if dst[i] != row[i] {
						t.Fatalf("n=%d %v parallel=%v: row[%d] = %g, Row gives %g", n, k.Spec(), par, i, dst[i], row[i])
					}
				}
				if math.Abs(sums[pi]-want) > 1e-12*mag {
					t.Fatalf("n=%d %v parallel=%v: sum %g, want %g", n, k.Spec(), par, sums[pi], want)
				}
			}
			if sums[0] != sums[1] {
				t.Fatalf("n=%d %v: serial sum %g, parallel %g", n, k.Spec(), sums[0], sums[1])
			}
		}
		p.Close()
	}
}

// TestRowSumHelper checks the helper goroutine of a Parallel RowSum: rows
// after it has parked (idle for long) still give the serial result, Close
// ends it, and a later row starts a new one.
func TestRowSumHelper(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the helper runs only with GOMAXPROCS ≥ 2")
	}
	p, c, x := normalPoints(9000, 3, 3)
	n := p.Len()
	k := RBF{Gamma: 0.3}
	dst := make([]float32, n)
	want := p.RowSum(k, dst, c, x)
	p.Parallel = true
	var job *rowJob
	for round := 0; round < 3; round++ {
		for i := 0; i < 20; i++ {
			if got := p.RowSum(k, dst, c, x); got != want {
				t.Fatalf("round %d row %d: %g, serial %g", round, i, got, want)
			}
			if job == nil {
				job = p.job
			}
			if p.job == nil || p.job != job {
				t.Fatalf("round %d row %d: the helper was replaced", round, i)
			}
		}
		time.Sleep(20 * time.Millisecond) // long enough for the helper to park
	}
	p.Close()
	select {
	case <-job.exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the helper goroutine did not end after Close")
	}
	if got := p.RowSum(k, dst, c, x); got != want {
		t.Fatalf("after Close: %g, serial %g", got, want)
	}
	if p.job == nil || p.job == job {
		t.Fatal("a row after Close did not start a new helper")
	}
	p.Close()
}

// BenchmarkPointsRowSum times RowSum at 10⁴ points of d = 20 (RBF), serial
// and with the second half on another goroutine.
func BenchmarkPointsRowSum(b *testing.B) {
	p, c, x := normalPoints(10000, 20, 1)
	n := p.Len()
	var k Kernel = RBF{Gamma: 0.05}
	dst := make([]float32, n)
	for _, par := range []bool{false, true} {
		b.Run(fmt.Sprintf("parallel=%v", par), func(b *testing.B) {
			p.Parallel = par
			b.ReportAllocs()
			for b.Loop() {
				p.RowSum(k, dst, c, x)
			}
		})
	}
}

// normalPoints returns n standard-normal points of dimension d, coefficients
// uniform in [−½, ½) and the last point (a query), from seed.
func normalPoints(n, d int, seed uint64) (*Points, []float64, []float32) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	p := NewPoints(d)
	c := make([]float64, n)
	var x []float32
	for i := 0; i < n; i++ {
		x = make([]float32, d)
		for f := range x {
			x[f] = float32(r.NormFloat64())
		}
		p.Append(x, float32(vec.SqNorm(x)))
		c[i] = r.Float64() - 0.5
	}
	return p, c, x
}
