package kernel

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Alignment returns the kernel-target alignment of the n×n kernel matrix k
// with labels y ∈ {−1,+1}ⁿ (Cristianini et al. 2001):
//
//	A = Σᵢⱼ yᵢyⱼKᵢⱼ / (‖K‖_F · ‖yyᵀ‖_F) = Σᵢⱼ yᵢyⱼKᵢⱼ / (n·‖K‖_F),
//
// a value in [−1, 1]. It is 0 when K is zero.
func Alignment(k []float32, y []float32) float64 {
	n := len(y)
	if len(k) != n*n {
		panic("kernel: Alignment: len(k) != len(y)²")
	}
	var num, fro float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := float64(k[i*n+j])
			num += float64(y[i]*y[j]) * v
			fro += v * v
		}
	}
	if fro == 0 {
		return 0
	}
	return num / (float64(n) * math.Sqrt(fro))
}

// VonNeumannEntropy returns the von Neumann entropy of the density matrix
// ρ = K/tr(K), normalised by log n so that it lies in [0, 1]: 0 for a
// rank-one K (every point alike, e.g. K = 11ᵀ) and 1 for K ∝ I (every point
// orthogonal to every other). Eigenvalues below zero from rounding are
// ignored. k must be symmetric n×n with positive trace.
func VonNeumannEntropy(k []float32, n int) float64 {
	if len(k) != n*n {
		panic("kernel: VonNeumannEntropy: len(k) != n²")
	}
	if n < 2 {
		return 0
	}
	data := make([]float64, n*n)
	var tr float64
	for i := range data {
		data[i] = float64(k[i])
	}
	for i := 0; i < n; i++ {
		tr += data[i*n+i]
	}
	if tr <= 0 {
		return math.NaN()
	}
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, data), false) {
		return math.NaN()
	}
	var s float64
	for _, l := range es.Values(nil) {
		p := l / tr
		if p > 0 {
			s -= p * math.Log(p)
		}
	}
	return s / math.Log(float64(n))
}

// FrobDistIdentity returns ‖K − I‖_F for the n×n matrix k.
func FrobDistIdentity(k []float32, n int) float64 {
	return frobDist(k, n, func(i, j int) float64 {
		if i == j {
			return 1
		}
		return 0
	})
}

// FrobDistOnes returns ‖K − 11ᵀ‖_F for the n×n matrix k.
func FrobDistOnes(k []float32, n int) float64 {
	return frobDist(k, n, func(int, int) float64 { return 1 })
}

func frobDist(k []float32, n int, ref func(i, j int) float64) float64 {
	if len(k) != n*n {
		panic("kernel: len(k) != n²")
	}
	var s float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d := float64(k[i*n+j]) - ref(i, j)
			s += d * d
		}
	}
	return math.Sqrt(s)
}

// Gram returns the n×n kernel matrix of the rows of x (n×d, row-major).
func Gram(k Kernel, x []float32, n, d int) []float32 {
	g := make([]float32, n*n)
	k.Cross(g, x, n, nil, x, n, nil, d)
	return g
}
