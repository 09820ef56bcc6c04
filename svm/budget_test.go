package svm

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
)

// streamBudget runs one pass of budgeted Pegasos over p and returns the
// set, checking the budget after every step.
func streamBudget(t *testing.T, p Problem, spec kernel.Spec, cfg BudgetConfig, seed uint64) *Budgeted {
	t.Helper()
	s, err := NewBudgeted(spec, p.D, 0, []BudgetHead{{LearnBias: true}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0}
	for _, i := range newRNG(seed).Perm(p.N) {
		y[0] = float64(p.Y[i])
		s.Step(p.X[i*p.D:(i+1)*p.D], nil, int32(p.Y[i]), y, 1, -1)
		if s.Len() > s.Budget() {
			t.Fatalf("the set holds %d support vectors, over its budget of %d", s.Len(), s.Budget())
		}
	}
	return s
}

func TestBudgetedLearnsWithinBudget(t *testing.T) {
	rng := newRNG(1)
	train, test := ringnorm(6000, 20, rng), ringnorm(2000, 20, rng)
	standardize(train, test)
	spec := kernel.Spec{Name: "rbf", Gamma: 0.05}
	for _, mt := range []string{BudgetMerge, BudgetRemove} {
		t.Run(mt, func(t *testing.T) {
			s := streamBudget(t, train, spec, BudgetConfig{Budget: 100, Maintenance: mt, Lambda: 1e-3}, 2)
			if s.Len() != 100 {
				t.Errorf("%d support vectors, want the budget 100 reached", s.Len())
			}
			if mt == BudgetMerge && (s.Merged == 0 || s.Removed != 0) || mt == BudgetRemove && (s.Removed == 0 || s.Merged != 0) {
				t.Errorf("merged %d, removed %d", s.Merged, s.Removed)
			}
			if acc := accuracy(s.Model(0), test); acc < 0.95 {
				t.Errorf("test accuracy %.4f, want ≥ 0.95", acc)
			}
		})
	}
}

// TestBudgetedMergeBeatsRemoval: at a small budget, merging keeps more of
// the function than removal (BSGD's finding for RBF kernels).
func TestBudgetedMergeBeatsRemoval(t *testing.T) {
	rng := newRNG(3)
	train, test := ringnorm(4000, 20, rng), ringnorm(4000, 20, rng)
	standardize(train, test)
	spec := kernel.Spec{Name: "rbf", Gamma: 0.05}
	var acc [2]float64
	for i, mt := range []string{BudgetMerge, BudgetRemove} {
		for seed := range uint64(3) {
			acc[i] += accuracy(streamBudget(t, train, spec, BudgetConfig{Budget: 20, Maintenance: mt, Lambda: 1e-3}, seed).Model(0), test) / 3
		}
	}
	if acc[0] <= acc[1] {
		t.Errorf("mean test accuracy: merging %.4f, removal %.4f; want merging above", acc[0], acc[1])
	}
}

func TestBudgetedDeterministic(t *testing.T) {
	p := ringnorm(1000, 5, newRNG(4))
	spec := kernel.Spec{Name: "rbf", Gamma: 0.2}
	a := streamBudget(t, p, spec, BudgetConfig{Budget: 50, Lambda: 1e-3}, 5).Model(0)
	b := streamBudget(t, p, spec, BudgetConfig{Budget: 50, Lambda: 1e-3}, 5).Model(0)
	if !slices.Equal(a.SV, b.SV) || !slices.Equal(a.Coef, b.Coef) || a.Bias != b.Bias {
		t.Error("two runs with one seed differ")
	}
}

// TestBudgetedContinuesPegasos: without a budget to enforce, the steps
// are kernel Pegasos' — a set seeded with Pegasos' model after T steps and
// continued equals Pegasos run for the steps of both.
func TestBudgetedContinuesPegasos(t *testing.T) {
	p := gaussians(300, 3, 1, newRNG(6))
	spec := kernel.Spec{Name: "rbf", Gamma: 0.5}
	k := kernel.MustNew(spec)
	const lam = 1e-2
	// Pegasos draws i_t from its rng; replay the same draws.
	draws := make([]int, 900)
	rng := newRNG(7)
	for t := range draws {
		draws[t] = rng.IntN(p.N)
	}
	full := NewExpansion(p.N, p.D)
	run := func(e *Expansion, s *Budgeted, from, to int) {
		y := []float64{0}
		for t := from; t < to; t++ {
			i := draws[t]
			x := p.X[i*p.D : (i+1)*p.D]
			if s != nil {
				y[0] = float64(p.Y[i])
				s.Step(x, nil, 0, y, 1, -1)
				continue
			}
			if t == 0 || float64(p.Y[i])*e.Sum(k, x) < lam*float64(t) {
				e.Add(i, x, float32(sqNorm64(x)), float64(p.Y[i]))
			}
		}
	}
	run(full, nil, 0, len(draws))
	want := full.Model(spec, 1/(lam*float64(len(draws))), 0)
	half := NewExpansion(p.N, p.D)
	run(half, nil, 0, 400)
	m := half.Model(spec, 1/(lam*400), 0)
	s, err := NewBudgeted(spec, p.D, 0, []BudgetHead{{T: 400}}, BudgetConfig{Budget: 10000, Lambda: lam})
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.NSV {
		s.Add(m.SV[i*p.D:(i+1)*p.D], nil, 0, []float64{m.Coef[i]})
	}
	run(nil, s, 400, len(draws))
	got := s.Model(0)
	for _, x := range [][]float32{p.X[:p.D], p.X[5*p.D : 6*p.D], p.X[77*p.D : 78*p.D]} {
		if g, w := got.Decision(x), want.Decision(x); math.Abs(g-w) > 1e-6*max(1, math.Abs(w)) {
			t.Errorf("decision %g, Pegasos' %g", g, w)
		}
	}
}

func TestBudgetedRegressionAndInputs(t *testing.T) {
	// y = sin(x) on [−3, 3]: an ε-insensitive head fits it within a
	// budget, and the points carry their inputs through removal.
	rng := newRNG(8)
	spec := kernel.Spec{Name: "rbf", Gamma: 1}
	s, err := NewBudgeted(spec, 1, 2, []BudgetHead{{LearnBias: true, Loss: LossEpsInsensitive, Epsilon: 0.05}}, BudgetConfig{Budget: 300, Lambda: 1e-2, Maintenance: BudgetRemove})
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0}
	for range 5000 {
		x := float32(6*rng.Float64() - 3)
		y[0] = math.Sin(float64(x))
		s.Step([]float32{x}, []float32{x, -x}, 0, y, 1, -1)
	}
	m := s.Model(0)
	for i := range m.NSV {
		if m.Inputs[2*i] != m.SV[i] || m.Inputs[2*i+1] != -m.SV[i] {
			t.Fatalf("support vector %g carries the input %v", m.SV[i], m.Inputs[2*i:2*i+2])
		}
	}
	var se float64
	for i := range 100 {
		x := float32(-3 + 6*float64(i)/99)
		d := m.Decision([]float32{x}) - math.Sin(float64(x))
		se += d * d / 100
	}
	if rmse := math.Sqrt(se); rmse > 0.1 {
		t.Errorf("RMSE %.3f, want ≤ 0.1", rmse)
	}
}

func TestLinearStreamWarmStart(t *testing.T) {
	rng := newRNG(9)
	train, test := blobs(4000, 10, 1.5, rng), blobs(2000, 10, 1.5, rng)
	m, err := PegasosLinear(t.Context(), Problem{X: train.X[:200*10], N: 200, D: 10, Y: train.Y[:200]}, PegasosLinearConfig{Lambda: 1e-3, Bias: true}, newRNG(10), nil)
	if err != nil {
		t.Fatal(err)
	}
	before := accuracy(m, test)
	s, err := NewLinearStream([]*Model{m}, []BudgetHead{{T: 200, LearnBias: true}}, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0}
	for i := 200; i < train.N; i++ {
		y[0] = float64(train.Y[i])
		s.Step(data.Dense(train.X[i*10:(i+1)*10]), y, 1)
	}
	if after := accuracy(s.Model(0), test); after < before-0.005 || after < 0.9 {
		t.Errorf("test accuracy %.4f after continuing, %.4f before", after, before)
	}
}

// BenchmarkBudgetedStep times a step of a set at its budget after 10⁴ and
// 10⁵ rows: the time of a step does not grow with the rows seen.
func BenchmarkBudgetedStep(b *testing.B) {
	for _, seen := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("seen=%d", seen), func(b *testing.B) {
			p := ringnorm(seen+1000, 20, newRNG(11))
			s, err := NewBudgeted(kernel.Spec{Name: "rbf", Gamma: 0.05}, p.D, 0, []BudgetHead{{LearnBias: true}}, BudgetConfig{Budget: 500, Lambda: 1e-3})
			if err != nil {
				b.Fatal(err)
			}
			y := []float64{0}
			step := func(i int) {
				y[0] = float64(p.Y[i])
				s.Step(p.X[i*p.D:(i+1)*p.D], nil, int32(p.Y[i]), y, 1, -1)
			}
			for i := range seen {
				step(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for k := range b.N {
				step(seen + k%1000)
			}
		})
	}
}

// BenchmarkBudgetedStepHeads times a step of ten one-vs-rest heads over
// 128 features at a budget of 1000, the shape of an image NSVM's stream.
func BenchmarkBudgetedStepHeads(b *testing.B) {
	const d, heads, budget = 128, 10, 1000
	rng := newRNG(12)
	n := 4 * budget
	x := make([]float32, n*d)
	cls := make([]int32, n)
	for i := range n {
		cls[i] = int32(rng.IntN(heads))
		for j := range d {
			x[i*d+j] = float32(rng.NormFloat64()) + 0.5*float32(int(cls[i])%(j%heads+1))
		}
	}
	hs := make([]BudgetHead, heads)
	for h := range hs {
		hs[h].LearnBias = true
	}
	s, err := NewBudgeted(kernel.Spec{Name: "rbf", Gamma: 1.0 / d}, d, 0, hs, BudgetConfig{Budget: budget, Lambda: 1e-4})
	if err != nil {
		b.Fatal(err)
	}
	y := make([]float64, heads)
	step := func(i int) {
		for h := range y {
			y[h] = -1
		}
		y[cls[i]] = 1
		s.Step(x[i*d:(i+1)*d], nil, cls[i], y, 1, -1)
	}
	for i := range 2 * budget {
		step(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for k := range b.N {
		step(2*budget + k%(2*budget))
	}
}

// TestAddDots: addDots gives each head the sum a loop over the points takes
// head by head, bit for bit, from the value the head starts with, for
// every number of heads and subsets of them (one-vs-one steps sum a few).
func TestAddDots(t *testing.T) {
	rng := newRNG(13)
	for _, H := range []int{1, 2, 3, 8, 9, 10, 17} {
		P := 1 + rng.IntN(300)
		k := make([]float32, P)
		coef := make([]float64, P*H)
		for p := range k {
			k[p] = float32(rng.Float64())
		}
		for i := range coef {
			if rng.IntN(4) > 0 {
				coef[i] = rng.NormFloat64() * 1e3
			}
		}
		for _, heads := range [][]int{rng.Perm(H), rng.Perm(H)[:(H+1)/2]} {
			acc := make([]float64, H)
			want := make([]float64, H)
			for h := range acc {
				acc[h] = rng.NormFloat64()
				want[h] = acc[h]
			}
			for _, h := range heads {
				for p := range P {
					want[h] += coef[p*H+h] * float64(k[p])
				}
			}
			addDots(acc, k, coef, H, heads)
			for h := range H {
				if math.Float64bits(acc[h]) != math.Float64bits(want[h]) {
					t.Fatalf("H=%d heads %v: head %d sums to %v, want %v", H, heads, h, acc[h], want[h])
				}
			}
		}
	}
}

// TestBudgetedDecisions: Decisions, one kernel row a row for all heads,
// gives each head's Model's decision values, with and without averaging,
// for an RBF and a polynomial kernel.
func TestBudgetedDecisions(t *testing.T) {
	p := ringnorm(1200, 6, newRNG(6))
	for _, spec := range []kernel.Spec{{Name: "rbf", Gamma: 0.2}, {Name: "poly", Gamma: 0.1, Coef0: 1, Degree: 2}} {
		for _, average := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/average=%v", spec.Name, average), func(t *testing.T) {
				hs := []BudgetHead{{LearnBias: true}, {LearnBias: true}, {}}
				s, err := NewBudgeted(spec, p.D, 0, hs, BudgetConfig{Budget: 80, Lambda: 1e-3})
				if err != nil {
					t.Fatal(err)
				}
				y := make([]float64, 3)
				for j, i := range newRNG(7).Perm(1000) {
					if average && j == 500 {
						s.StartAverage()
					}
					y[0] = float64(p.Y[i])
					y[1] = -y[0]
					y[2] = math.Copysign(1, float64(p.X[i*p.D]))
					s.Step(p.X[i*p.D:(i+1)*p.D], nil, int32(p.Y[i]), y, 1, -1)
				}
				n := 200
				z := p.X[1000*p.D : (1000+n)*p.D]
				got := make([]float64, n*3)
				s.Decisions(got, z, n)
				col := make([]float64, n)
				for h := range 3 {
					s.Model(h).DecisionBatch(col, z, n)
					for i, want := range col {
						if g := got[i*3+h]; math.Abs(g-want) > 1e-4*(1+math.Abs(want)) {
							t.Fatalf("head %d, row %d: %g, the head's model gives %g", h, i, g, want)
						}
					}
				}
			})
		}
	}
}

// TestBudgetedAverageLazy: the lazily kept mean of the iterates (a step
// costs O(H)) is the mean of the iterates after every step, taken here
// point by point from the coefficients, on a set that never maintains, and
// Decisions agree with Model on one that merges.
func TestBudgetedAverageLazy(t *testing.T) {
	p := ringnorm(1500, 6, newRNG(8))
	hs := []BudgetHead{{LearnBias: true}, {LearnBias: true}, {}}
	s, err := NewBudgeted(kernel.Spec{Name: "rbf", Gamma: 0.2}, p.D, 0, hs, BudgetConfig{Budget: 5000, Lambda: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, 3)
	sum := map[int64][]float64{} // by key, the sum of the point's iterates
	var bias [3]float64
	steps := 0
	keys := map[int]int64{} // the key of each row's point, if it is one
	order := newRNG(9).Perm(1500)
	order = append(order, order[:600]...) // rows stepped on again, by their keys
	for j, i := range order {
		if j == 700 {
			s.StartAverage()
		}
		y[0] = float64(p.Y[i])
		y[1] = -y[0]
		y[2] = math.NaN() // a head without a target in this row
		if j%3 == 0 {
			y[2] = math.Copysign(1, float64(p.X[i*p.D]))
		}
		key, ok := keys[i]
		if !ok {
			key = -1
		}
		if k := s.Step(p.X[i*p.D:(i+1)*p.D], nil, int32(p.Y[i]), y, 1, key); k >= 0 {
			keys[i] = k
		}
		if j < 700 {
			continue
		}
		steps++
		for q, k := range s.key {
			if sum[k] == nil {
				sum[k] = make([]float64, 3)
			}
			for h := range 3 {
				sum[k][h] += s.heads[h].scale * s.coef[q*3+h]
			}
		}
		for h := range 3 {
			bias[h] += s.heads[h].Bias
		}
	}
	if s.Merged+s.Removed != 0 {
		t.Fatalf("the set maintained (%d merges, %d removals)", s.Merged, s.Removed)
	}
	for h := range 3 {
		m := s.Model(h)
		if want := bias[h] / float64(steps); math.Abs(m.Bias-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("head %d: bias %g, the mean of the iterates %g", h, m.Bias, want)
		}
		q := 0
		for p, k := range s.key {
			want := sum[k][h] / float64(steps)
			if want == 0 {
				continue
			}
			if c := m.Coef[q]; math.Abs(c-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("head %d, point %d: coefficient %g, the mean of the iterates %g", h, p, c, want)
			}
			q++
		}
		if q != m.NSV {
			t.Fatalf("head %d: %d support vectors, the iterates' mean has %d", h, m.NSV, q)
		}
	}
}
