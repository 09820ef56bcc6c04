package svm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// ringnorm draws n points of Breiman's Ringnorm in d dimensions: class +1
// from N(0, 4·I), class −1 from N(a·1, I) with a = 2/√d, in equal numbers
// (alternating).
func ringnorm(n, d int, rng *rand.Rand) Problem {
	p := Problem{X: make([]float32, n*d), N: n, D: d, Y: make([]float32, n)}
	a := 2 / math.Sqrt(float64(d))
	for i := 0; i < n; i++ {
		x := p.X[i*d : (i+1)*d]
		if i%2 == 0 {
			p.Y[i] = 1
			for j := range x {
				x[j] = float32(2 * rng.NormFloat64())
			}
		} else {
			p.Y[i] = -1
			for j := range x {
				x[j] = float32(a + rng.NormFloat64())
			}
		}
	}
	return p
}

// standardize scales the columns of train to mean 0, variance 1 and applies
// the same map to the others.
func standardize(train Problem, others ...Problem) {
	d := train.D
	mean := make([]float64, d)
	sd := make([]float64, d)
	for i := 0; i < train.N; i++ {
		for j, v := range train.row(i) {
			mean[j] += float64(v)
		}
	}
	for j := range mean {
		mean[j] /= float64(train.N)
	}
	for i := 0; i < train.N; i++ {
		for j, v := range train.row(i) {
			sd[j] += (float64(v) - mean[j]) * (float64(v) - mean[j])
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / float64(train.N))
	}
	for _, p := range append([]Problem{train}, others...) {
		for i := 0; i < p.N; i++ {
			x := p.row(i)
			for j := range x {
				x[j] = float32((float64(x[j]) - mean[j]) / sd[j])
			}
		}
	}
}

// blobs draws n linearly separable points in d dimensions: class ±1 around
// ±sep·e_1 with unit noise clipped so the classes never overlap.
func blobs(n, d int, sep float64, rng *rand.Rand) Problem {
	p := Problem{X: make([]float32, n*d), N: n, D: d, Y: make([]float32, n)}
	for i := 0; i < n; i++ {
		y := float32(1)
		if i%2 == 1 {
			y = -1
		}
		p.Y[i] = y
		x := p.row(i)
		for j := range x {
			x[j] = float32(rng.NormFloat64())
		}
		x[0] = y * float32(sep+math.Abs(rng.NormFloat64()))
	}
	return p
}

// gaussians draws n points in d dimensions from N(±sep·e_1, I), classes
// ±1 alternating: overlapping a little, symmetric (so the best bias is
// about 0).
func gaussians(n, d int, sep float64, rng *rand.Rand) Problem {
	p := Problem{X: make([]float32, n*d), N: n, D: d, Y: make([]float32, n)}
	for i := 0; i < n; i++ {
		y := float32(1)
		if i%2 == 1 {
			y = -1
		}
		p.Y[i] = y
		x := p.row(i)
		for j := range x {
			x[j] = float32(rng.NormFloat64())
		}
		x[0] += y * float32(sep)
	}
	return p
}

func accuracy(m *Model, p Problem) float64 {
	dec := make([]float64, p.N)
	m.DecisionBatch(dec, p.X, p.N)
	ok := 0
	for i, v := range dec {
		if (v >= 0) == (p.Y[i] > 0) {
			ok++
		}
	}
	return float64(ok) / float64(p.N)
}

func mustSMO(t testing.TB, p Problem, k kernel.Kernel, cfg SMOConfig) *Model {
	t.Helper()
	m, err := SMO(context.Background(), p, k, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// refDual minimises ½αᵀQα − eᵀα over {0 ≤ α ≤ C, yᵀα = 0} by accelerated
// projected gradient (FISTA with adaptive restart) with a float64 kernel matrix; the projection
// solves Σ_i y_i·clip(z_i − ν·y_i, 0, C) = 0 for ν by bisection. It returns
// α and the objective.
func refDual(p Problem, k kernel.Kernel, c float64, iters int) ([]float64, float64) {
	n := p.N
	q := make([]float64, n*n)
	var trace float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			q[i*n+j] = float64(p.Y[i]*p.Y[j]) * k.Eval(p.row(i), p.row(j))
		}
		trace += q[i*n+i]
	}
	// Lipschitz constant: largest eigenvalue by power iteration.
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	w := make([]float64, n)
	lmax := trace
	for it := 0; it < 200; it++ {
		var nrm float64
		for i := 0; i < n; i++ {
			var s float64
			for j := 0; j < n; j++ {
				s += q[i*n+j] * v[j]
			}
			w[i] = s
			nrm += s * s
		}
		nrm = math.Sqrt(nrm)
		if nrm == 0 {
			break
		}
		lmax = nrm
		for i := range v {
			v[i] = w[i] / nrm
		}
	}
	lmax *= 1.01
	project := func(z []float64) {
		h := func(nu float64) float64 {
			var s float64
			for i, zi := range z {
				s += float64(p.Y[i]) * math.Min(math.Max(zi-nu*float64(p.Y[i]), 0), c)
			}
			return s
		}
		lo, hi := -1.0, 1.0
		for h(lo) < 0 {
			lo *= 2
		}
		for h(hi) > 0 {
			hi *= 2
		}
		for it := 0; it < 60; it++ {
			mid := (lo + hi) / 2
			if h(mid) > 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		nu := (lo + hi) / 2
		for i := range z {
			z[i] = math.Min(math.Max(z[i]-nu*float64(p.Y[i]), 0), c)
		}
	}
	alpha := make([]float64, n)
	prev := make([]float64, n)
	yk := make([]float64, n)
	grad := make([]float64, n)
	tk := 1.0
	for it := 0; it < iters; it++ {
		for i := 0; i < n; i++ {
			s := -1.0
			for j := 0; j < n; j++ {
				s += q[i*n+j] * yk[j]
			}
			grad[i] = s
		}
		copy(prev, alpha)
		for i := range alpha {
			alpha[i] = yk[i] - grad[i]/lmax
		}
		project(alpha)
		// Gradient-based adaptive restart (O'Donoghue & Candès 2015).
		var dir float64
		for i := range alpha {
			dir += (yk[i] - alpha[i]) * (alpha[i] - prev[i])
		}
		if dir > 0 {
			tk = 1
		}
		tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
		for i := range yk {
			yk[i] = alpha[i] + (tk-1)/tn*(alpha[i]-prev[i])
		}
		tk = tn
	}
	var obj float64
	for i := 0; i < n; i++ {
		var s float64
		for j := 0; j < n; j++ {
			s += q[i*n+j] * alpha[j]
		}
		obj += alpha[i]*s/2 - alpha[i]
	}
	return alpha, obj
}

// alphaOf recovers α over the training points from a model whose support
// vectors are training rows (coefficients α_i·y_i).
func alphaOf(m *Model, p Problem) []float64 {
	a := make([]float64, p.N)
	next := 0
	for i := 0; i < p.N && next < m.NSV; i++ {
		if slicesEqual(p.row(i), m.SV[next*m.D:(next+1)*m.D]) {
			a[i] = math.Abs(m.Coef[next])
			next++
		}
	}
	return a
}

func slicesEqual(a, b []float32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-12) }
