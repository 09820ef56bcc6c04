package search

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

// TestParseClassWeight: balanced, LABEL:W by number and by name, errors.
func TestParseClassWeight(t *testing.T) {
	classes := []float64{-1, 1}
	w, err := parseClassWeight("balanced", classes, nil, []float64{90, 10})
	if err != nil || math.Abs(w[0]-100.0/180) > 1e-12 || math.Abs(w[1]-5) > 1e-12 {
		t.Fatalf("balanced: %v %v", w, err)
	}
	w, err = parseClassWeight("1:5", classes, nil, []float64{90, 10})
	if err != nil || w[0] != 1 || w[1] != 5 {
		t.Fatalf("1:5: %v %v", w, err)
	}
	w, err = parseClassWeight("cat:2, ant:0.5", []float64{0, 1, 2}, []string{"ant", "bee", "cat"}, []float64{1, 1, 1})
	if err != nil || w[0] != 0.5 || w[1] != 1 || w[2] != 2 {
		t.Fatalf("names: %v %v", w, err)
	}
	for _, bad := range []string{"3:2", "1:-1", "1:x", "1", "1:0"} {
		if _, err := parseClassWeight(bad, classes, nil, []float64{1, 1}); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if w, _ := parseClassWeight("none", classes, nil, []float64{1, 1}); w != nil {
		t.Errorf("none: %v", w)
	}
	if err := (&FitConfig{ClassWeight: "1:x"}).Validate(); !errors.Is(err, ErrBadConfig) {
		t.Errorf("Validate: %v", err)
	}
	if err := (&FitConfig{Metric: "auc"}).Validate(); !errors.Is(err, ErrBadConfig) {
		t.Errorf("Validate metric: %v", err)
	}
}

// imbalancedData returns n rows of d features, share of them positive
// (label 1), whose positives are shifted by shift along the first 3
// features: a weak signal under a strong imbalance.
func imbalancedData(n, d int, share, shift float64, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 9))
	ds := &data.Dataset{N: n, D: d, X: make([]float32, n*d), Y: make([]float64, n)}
	for i := range n {
		pos := rng.Float64() < share
		if pos {
			ds.Y[i] = 1
		}
		for j := range d {
			v := rng.NormFloat64()
			if pos && j < 3 {
				v += shift
			}
			ds.X[i*d+j] = float32(v)
		}
	}
	return ds
}

// TestFitImbalanced: on 6 % positives with a weak signal, Fit with no
// configuration weighs the classes, scores ROC AUC, and returns a model
// whose balanced accuracy and AUC on fresh data are well above chance
// (without class weights the SVM predicts the majority everywhere).
func TestFitImbalanced(t *testing.T) {
	train := imbalancedData(1500, 10, 0.06, 1, 1)
	test := imbalancedData(3000, 10, 0.06, 1, 2)
	m, err := Fit(context.Background(), train, &FitConfig{Seed: 1, Budget: 0})
	if err != nil {
		t.Fatal(err)
	}
	if m.Selection == nil || m.Selection.Metric != MetricROCAUC {
		t.Fatalf("selection %+v, want metric roc_auc", m.Selection)
	}
	sc, err := m.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	if sc.BalancedAccuracy < 0.7 || sc.ROCAUC < 0.8 {
		t.Fatalf("test balanced accuracy %.3f, AUC %.3f; want ≥ 0.7 and ≥ 0.8 (%s)", sc.BalancedAccuracy, sc.ROCAUC, m.Info["selected"])
	}
	// Pinned without weights the same SVM learns nothing by accuracy.
	_, err = Fit(context.Background(), train, &FitConfig{Algorithm: "smo", C: 1, Gamma: 0.1, ClassWeight: ClassWeightNone, Metric: MetricAccuracy})
	if !errors.Is(err, ErrChanceLevel) {
		t.Logf("unweighted SMO: %v (not at chance level)", err)
	}
}
