package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

func mustNew(t testing.TB, spec string, shape []int, seed uint64) *Net {
	t.Helper()
	n, err := New(spec, shape, newRand(seed))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// uniform returns n values uniform in [lo, hi).
func uniform(rng *rand.Rand, n int, lo, hi float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return v
}

// dotC returns Σ c_i·out_i in float64.
func dotC(c, out []float32) float64 {
	var s float64
	for i, v := range out {
		s += float64(c[i]) * float64(v)
	}
	return s
}

// gradCheck compares an analytic gradient with a numeric one: element i
// passes when |num−ana| ≤ rtol·|ana| + atol·rms(ana). It returns the number of
// failing elements and a description of the worst one.
func gradCheck(ana, num []float64, rtol, atol float64) (bad int, worst string) {
	var ss float64
	for _, v := range ana {
		ss += v * v
	}
	rms := math.Max(math.Sqrt(ss/float64(max(1, len(ana)))), 1e-6)
	worstR := 0.0
	for i := range ana {
		d := math.Abs(num[i] - ana[i])
		tol := rtol*math.Abs(ana[i]) + atol*rms
		if d > tol {
			bad++
		}
		if r := d / tol; r > worstR {
			worstR = r
			worst = fmt.Sprintf("element %d: analytic %.6g numeric %.6g (%.2f× tolerance)", i, ana[i], num[i], r)
		}
	}
	return bad, worst
}
