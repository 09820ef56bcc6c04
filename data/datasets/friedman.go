package datasets

import (
	"math"
	"math/rand/v2"

	"github.com/nsvm-go/nsvm/data"
)

// Friedman1Dim is the number of features of Friedman #1 data.
const Friedman1Dim = 10

// Friedman1 draws n points of Friedman's first regression problem
// (Friedman 1991, "Multivariate adaptive regression splines", Ann. Statist.
// 19(1); also sklearn.datasets.make_friedman1): x ~ U[0,1]¹⁰ and
//
//	y = 10·sin(π·x₁·x₂) + 20·(x₃ − 0.5)² + 10·x₄ + 5·x₅ + noise·N(0, 1).
//
// Features x₆ … x₁₀ do not enter y. The noise-free target has mean ≈ 14.41
// and standard deviation ≈ 4.88, so noise = 1 leaves an irreducible RMSE of
// 1. It panics when n < 0 or noise < 0.
func Friedman1(n int, noise float64, rng *rand.Rand) *data.Dataset {
	if n < 0 || !(noise >= 0) {
		panic("data: Friedman1: negative n or noise")
	}
	const d = Friedman1Dim
	ds := &data.Dataset{X: make([]float32, n*d), Y: make([]float64, n), N: n, D: d}
	var x [d]float64
	for i := range n {
		for j := range x {
			v := float32(rng.Float64())
			ds.X[i*d+j] = v
			x[j] = float64(v) // the target is a function of the stored values
		}
		ds.Y[i] = Friedman1Mean(x[:]) + noise*rng.NormFloat64()
	}
	return ds
}

// Friedman1Mean returns the noise-free Friedman #1 target of x (at least
// five values; the rest are ignored).
func Friedman1Mean(x []float64) float64 {
	_ = x[4]
	return 10*math.Sin(math.Pi*x[0]*x[1]) + 20*(x[2]-0.5)*(x[2]-0.5) + 10*x[3] + 5*x[4]
}
