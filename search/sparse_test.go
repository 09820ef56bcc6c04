package search

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
)

// sparseText returns n rows of d features with k nonzeros each (bag of
// words of unit norm): class c's rows draw half of their words from
// the c-th slice of the vocabulary, the rest from all of it.
func sparseText(n, d, k, classes int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 3))
	m := &data.CSR{Ptr: make([]int64, n+1)}
	y := make([]float64, n)
	for i := range n {
		c := i % classes
		y[i] = float64(c)
		seen := map[int32]bool{}
		var idx []int32
		for len(idx) < k {
			j := int32(rng.IntN(d))
			if len(idx)%2 == 0 {
				j = int32(c*(d/classes) + rng.IntN(d/classes))
			}
			if !seen[j] {
				seen[j] = true
				idx = append(idx, j)
			}
		}
		sortInt32(idx)
		v := float32(1 / math.Sqrt(float64(k)))
		for _, j := range idx {
			m.Idx = append(m.Idx, j)
			m.Val = append(m.Val, v)
		}
		m.Ptr[i+1] = int64(len(m.Val))
	}
	return &data.Dataset{Sparse: m, Y: y, N: n, D: d}
}

func sortInt32(s []int32) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestFitSparse: Fit trains on sparse rows without making them dense —
// the linear C path selected by default, SMO pinned — and the models
// predict sparse rows as they predict the same rows dense.
func TestFitSparse(t *testing.T) {
	train := sparseText(1200, 5000, 20, 3, 1)
	test := sparseText(600, 5000, 20, 3, 2)
	if err := train.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []*FitConfig{
		{Seed: 1},
		{Algorithm: "smo", C: 1, Gamma: 0.5},
		{Algorithm: "linear", C: 0.5, LinearLoss: "l1", ClassWeight: "0:2"},
		{Algorithm: "nsvm4", Arch: "dense(32),relu,dense(16),relu", Seed: 2},
	} {
		m, err := Fit(context.Background(), train, cfg)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		if train.X != nil {
			t.Fatal("the training data were made dense")
		}
		if cfg.Algorithm == "" && m.Algorithm != "linear" && m.Algorithm != "smo" {
			t.Errorf("selected %s", m.Algorithm)
		}
		sc, err := m.Evaluate(test)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Accuracy < 0.9 {
			t.Errorf("%+v: test accuracy %.3f", cfg, sc.Accuracy)
		}
		dense := test.Subset([]int{0, 1, 2, 3, 4, 5})
		if err := dense.Densify(0); err != nil {
			t.Fatal(err)
		}
		ps, _ := m.PredictDataset(test.Subset([]int{0, 1, 2, 3, 4, 5}), false)
		pd, _ := m.PredictDataset(dense, false)
		tol := 1e-9
		if m.Net != nil {
			tol = 1e-4 // float32 sums over the nonzeros, or over every input
		}
		for i := range pd.Decisions {
			if math.Abs(ps.Decisions[i]-pd.Decisions[i]) > tol*max(1, math.Abs(pd.Decisions[i])) {
				t.Fatalf("%+v: decision %d: sparse %v, dense %v", cfg, i, ps.Decisions[i], pd.Decisions[i])
			}
		}
		path := t.TempDir() + "/m.nsvm"
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := model.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if sb, _ := back.Evaluate(test); sb.Accuracy != sc.Accuracy {
			t.Fatalf("loaded model: accuracy %v, want %v", sb.Accuracy, sc.Accuracy)
		}
	}
	// What takes dense rows says so.
	for _, cfg := range []*FitConfig{{Algorithm: "nsvm1"}, {Scaling: ScaleStandardize}, {Algorithm: "perceptron"}, {Algorithm: "nsvm4", Arch: "relu,dense(8)"}} {
		if _, err := Fit(context.Background(), train, cfg); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%+v: %v, want ErrBadConfig", cfg, err)
		}
	}
}

// TestFitSampleWeights: a sample weight of 2 trains as the row given
// twice (SMO, pinned), and weights change the validation scores.
func TestFitSampleWeights(t *testing.T) {
	ds := ringData(300, 4)
	w := make([]float64, ds.N)
	var twice []int
	for i := range w {
		w[i] = 1
		twice = append(twice, i)
		if i%4 == 0 {
			w[i] = 2
			twice = append(twice, i)
		}
	}
	dup := ds.Subset(twice)
	ds.W = w
	cfg := &FitConfig{Algorithm: "smo", C: 1, Gamma: 0.05, Scaling: ScaleNone, Seed: 1}
	a, err := Fit(context.Background(), ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fit(context.Background(), dup, cfg)
	if err != nil {
		t.Fatal(err)
	}
	test := ringData(200, 5)
	for i := 0; i < test.N; i++ {
		if da, db := a.Decision(test.Row(i)), b.Decision(test.Row(i)); math.Abs(da-db) > 1e-3*max(1, math.Abs(db)) {
			t.Fatalf("row %d: weighted %v, duplicated %v", i, da, db)
		}
	}
	bad := ds.Subset([]int{0, 1, 2})
	bad.W = []float64{1, -1, 1}
	if _, err := Fit(context.Background(), bad, nil); !errors.Is(err, model.ErrBadData) {
		t.Errorf("negative weight: %v", err)
	}
}

// TestFitSparseDeterministic: the warm-started linear C paths run their
// heads concurrently; the same data and seed still give the same model
// file byte for byte, with 1 worker or 2.
func TestFitSparseDeterministic(t *testing.T) {
	ds := sparseText(900, 3000, 15, 4, 7)
	var first []byte
	for _, w := range []int{1, 2, 2} {
		m, err := Fit(context.Background(), ds, &FitConfig{Seed: 3, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		b := modelBytes(t, m)
		if first == nil {
			first = b
		} else if !bytesEqual(first, b) {
			t.Fatalf("workers %d: the model file differs", w)
		}
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }
