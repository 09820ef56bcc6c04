package svm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
)

// groupHeads returns nh heads of the given kernel whose support vectors
// are drawn from a pool of 40 points of width d (about a quarter of them
// zeros), so that heads share some: dense rows, or sparse ones when sparse
// is set.
func groupHeads(spec kernel.Spec, nh, d int, sparse bool, rng *rand.Rand) []*Model {
	pool := make([]float32, 40*d)
	for i := range pool {
		if rng.IntN(4) > 0 {
			pool[i] = float32(rng.NormFloat64())
		}
	}
	heads := make([]*Model, nh)
	for h := range heads {
		m := newModel(spec, d, sparse)
		for range 5 + rng.IntN(20) {
			p := rng.IntN(40)
			m.addSV(data.Dense(pool[p*d:(p+1)*d]), rng.NormFloat64())
		}
		m.Bias = rng.NormFloat64()
		heads[h] = m
	}
	return heads
}

// TestGroupDecisions compares a Group's decisions with each head's own
// DecisionBatch and DecisionCSR bit for bit: dense and sparse support
// vectors, dense and sparse queries, every kernel that is not linear, and
// batches below, at and above the block size and the parallel threshold.
func TestGroupDecisions(t *testing.T) {
	rng := newRNG(1)
	const d = 13
	specs := []kernel.Spec{{Name: "rbf", Gamma: 0.3}, {Name: "poly", Gamma: 0.5, Coef0: 1, Degree: 3}, {Name: "sigmoid", Gamma: 0.05, Coef0: -0.2}}
	for _, spec := range specs {
		for _, sparse := range []bool{false, true} {
			heads := groupHeads(spec, 6, d, sparse, rng)
			g := NewGroup(heads)
			if g == nil {
				t.Fatalf("%s sparse=%v: no group for heads that share support vectors", spec.Name, sparse)
			}
			if g.Distinct() >= g.Total() || g.Distinct() > 40 {
				t.Fatalf("%s: %d distinct of %d support vectors from a pool of 40", spec.Name, g.Distinct(), g.Total())
			}
			for _, n := range []int{1, 63, 64, 65, 2000} {
				x := make([]float32, n*d)
				for i := range x {
					if rng.IntN(3) > 0 {
						x[i] = float32(rng.NormFloat64())
					}
				}
				csr := data.ToCSR(x, n, d)
				want := make([]float64, n*len(heads))
				col := make([]float64, n)
				for h, m := range heads {
					m.DecisionBatch(col, x, n)
					for i, v := range col {
						want[i*len(heads)+h] = v
					}
				}
				got := make([]float64, n*len(heads))
				g.Decisions(got, x, n)
				sameBits(t, spec.Name+" dense queries", got, want)
				clear(got)
				g.DecisionsCSR(got, csr)
				sameBits(t, spec.Name+" sparse queries", got, want)
			}
		}
	}
}

func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: decision %d = %v, the head's own %v", what, i, got[i], want[i])
		}
	}
}

// TestNewGroupDeclines checks the heads NewGroup leaves to themselves.
func TestNewGroupDeclines(t *testing.T) {
	rng := newRNG(2)
	rbf := kernel.Spec{Name: "rbf", Gamma: 0.3}
	heads := groupHeads(rbf, 3, 5, false, rng)
	if NewGroup(heads[:1]) != nil {
		t.Error("a group of one head")
	}
	if NewGroup(groupHeads(kernel.Spec{Name: "linear"}, 3, 5, false, rng)) != nil {
		t.Error("a group of linear heads")
	}
	other := groupHeads(kernel.Spec{Name: "rbf", Gamma: 0.5}, 1, 5, false, rng)
	if NewGroup(append(heads[:2:2], other...)) != nil {
		t.Error("a group of heads with different kernels")
	}
	mixed := groupHeads(rbf, 1, 5, true, rng)
	if NewGroup(append(heads[:2:2], mixed...)) != nil {
		t.Error("a group of dense and sparse heads")
	}
	// Two heads on points of their own.
	a, b := newModel(rbf, 2, false), newModel(rbf, 2, false)
	a.addSV(data.Dense([]float32{1, 2}), 1)
	b.addSV(data.Dense([]float32{1, -2}), 1)
	if NewGroup([]*Model{a, b}) != nil {
		t.Error("a group of heads that share no support vector")
	}
	b.addSV(data.Dense([]float32{1, 2}), -1)
	if g := NewGroup([]*Model{a, b}); g == nil || g.Distinct() != 2 || g.Total() != 3 {
		t.Errorf("heads sharing one point: group %v", g)
	}
}

// TestDistinctSupport counts a point once whether a head stores it dense
// or sparse, and tells apart points that differ in one value or its
// column.
func TestDistinctSupport(t *testing.T) {
	rbf := kernel.Spec{Name: "rbf", Gamma: 1}
	a, b := newModel(rbf, 3, false), newModel(rbf, 3, true)
	a.addSV(data.Dense([]float32{0, 2, 0}), 1)
	a.addSV(data.Dense([]float32{2, 0, 0}), 1)
	b.addSV(data.Dense([]float32{0, 2, 0}), 1) // stored sparse: the same point as a's first
	b.addSV(data.Dense([]float32{0, 2, 1e-30}), 1)
	if got := DistinctSupport([]*Model{a, b}); got != 3 {
		t.Errorf("DistinctSupport = %d, want 3", got)
	}
}

// TestGroupCounts checks that a group counts one kernel value a distinct
// support vector and query into the first head's counter.
func TestGroupCounts(t *testing.T) {
	heads := groupHeads(kernel.Spec{Name: "rbf", Gamma: 0.3}, 4, 7, false, newRNG(3))
	var c kernel.Counter
	heads[0].CountEvals(&c)
	g := NewGroup(heads)
	x := make([]float32, 10*7)
	g.Decisions(make([]float64, 10*4), x, 10)
	if got, want := c.Evals(), int64(10*g.Distinct()); got != want {
		t.Errorf("%d kernel values counted, want %d", got, want)
	}
}

// ovoHeads returns the 45 one-vs-one heads of ten classes of 100 support
// vectors each (d features): each point a support vector of its class's
// nine heads, as in a trained one-vs-one model.
func ovoHeads(d int, rng *rand.Rand) []*Model {
	const k, per = 10, 100
	pool := make([]float32, k*per*d)
	for i := range pool {
		pool[i] = float32(rng.NormFloat64())
	}
	var heads []*Model
	for q := range k * (k - 1) / 2 {
		i, j := PairClasses(q, k)
		m := newModel(kernel.Spec{Name: "rbf", Gamma: 1 / float64(d)}, d, false)
		for _, c := range []int{i, j} {
			for p := range per {
				m.addSV(data.Dense(pool[(c*per+p)*d:(c*per+p+1)*d]), rng.NormFloat64())
			}
		}
		heads = append(heads, m)
	}
	return heads
}

// BenchmarkOvODecisions is the decisions of 45 one-vs-one heads over 1000
// distinct support vectors of 256 features (the MNIST stream's model) on
// 1000 rows: "group" evaluates each support vector once a row, "heads"
// each head on its own (nine times).
func BenchmarkOvODecisions(b *testing.B) {
	const d, n = 256, 1000
	rng := newRNG(4)
	heads := ovoHeads(d, rng)
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	dst := make([]float64, n*len(heads))
	b.Run("group", func(b *testing.B) {
		g := NewGroup(heads)
		for b.Loop() {
			g.Decisions(dst, x, n)
		}
	})
	b.Run("heads", func(b *testing.B) {
		col := make([]float64, n)
		for b.Loop() {
			for _, h := range heads {
				h.DecisionBatch(col, x, n)
			}
		}
	})
}
