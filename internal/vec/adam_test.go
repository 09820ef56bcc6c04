package vec

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAdamStep checks that AdamStep (the assembly kernel where it runs)
// gives the floats of the pure-Go reference bit for bit, over lengths that
// leave every remainder, on values that reach every branch: subnormal and
// tiny gradients and moments, zeros of both signs, large values; and that
// no moment it leaves is subnormal.
func TestAdamStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	val := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1:
			return float32(math.Copysign(0, -1))
		case 2:
			return float32(rng.NormFloat64() * 1e-38) // subnormal or near it
		case 3:
			return float32(rng.NormFloat64() * 1e-16)
		case 4:
			return float32(rng.NormFloat64() * 1e-31)
		case 5:
			return float32(rng.NormFloat64() * 1e3)
		default:
			return float32(rng.NormFloat64() * 1e-2)
		}
	}
	c := &AdamConsts{WeightDecay: 1e-4, B1: 0.9, C1: 0.1, B2: 0.999, C2: 0.001, BC2S: 0.3, Eps: 1e-8, Step: 2e-3, TinyGrad: 1e-15, TinyMoment: 1e-30}
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 100, 1003} {
		for rep := range 20 {
			w, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range n {
				w[i], g[i], m[i] = val(), val(), val()
				v[i] = float32(math.Abs(float64(val())))
			}
			w2, m2, v2 := slices.Clone(w), slices.Clone(m), slices.Clone(v)
			for range 3 {
				AdamStep(w, g, m, v, c)
				adamGo(w2, g, m2, v2, c)
			}
			for i := range n {
				if math.Float32bits(w[i]) != math.Float32bits(w2[i]) || math.Float32bits(m[i]) != math.Float32bits(m2[i]) || math.Float32bits(v[i]) != math.Float32bits(v2[i]) {
					t.Fatalf("n=%d rep %d, element %d: w m v = %g %g %g, the reference %g %g %g", n, rep, i, w[i], m[i], v[i], w2[i], m2[i], v2[i])
				}
				for _, x := range []float32{m[i], v[i]} {
					if x != 0 && math.Abs(float64(x)) < 0x1p-126 {
						t.Fatalf("n=%d, element %d: a subnormal moment %g", n, i, x)
					}
				}
			}
		}
	}
}

func BenchmarkAdamStep(b *testing.B) {
	const n = 1 << 18
	w, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		w[i], g[i] = float32(rng.NormFloat64()*0.05), float32(rng.NormFloat64()*1e-3)
	}
	c := &AdamConsts{WeightDecay: 1e-4, B1: 0.9, C1: 0.1, B2: 0.999, C2: 0.001, BC2S: 0.3, Eps: 1e-8, Step: 2e-3, TinyGrad: 1e-15, TinyMoment: 1e-30}
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			AdamStep(w, g, m, v, c)
		}
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			adamGo(w, g, m, v, c)
		}
	})
}
