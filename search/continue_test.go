package search

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/model"
)

// rows returns rows [lo, hi) of ds as a data set (views, labels included).
func rowsOf(ds *data.Dataset, lo, hi int) *data.Dataset {
	return &data.Dataset{X: ds.X[lo*ds.D : hi*ds.D], Y: ds.Y[lo:hi], N: hi - lo, D: ds.D, Columns: ds.Columns, LabelNames: ds.LabelNames}
}

// continueAll continues m over the chunks of n rows of ds.
func continueAll(t *testing.T, m *model.Model, ds *data.Dataset, n int, cfg *ContinueConfig) *model.Model {
	t.Helper()
	for lo := 0; lo+n <= ds.N; lo += n {
		var err error
		if m, err = Continue(t.Context(), m, rowsOf(ds, lo, lo+n), cfg); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// TestContinueKernelSVM: an RBF SVM fitted on 100 Ringnorm rows and
// continued over 31 chunks gains held-out accuracy, its support set within
// the budget; the model records what it has seen.
func TestContinueKernelSVM(t *testing.T) {
	tr := datasets.Ringnorm(6300, rand.New(rand.NewPCG(1, 1)))
	te := datasets.Ringnorm(3000, rand.New(rand.NewPCG(2, 2)))
	m, err := Fit(t.Context(), rowsOf(tr, 0, 100), &FitConfig{Algorithm: "smo", Scaling: ScaleStandardize, Gamma: 0.05, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	before := accuracyOn(t, m, te)
	orig := modelBytes(t, m)
	cfg := &ContinueConfig{Budget: 150}
	c := m
	for lo := 100; lo+200 <= tr.N; lo += 200 {
		if c, err = Continue(t.Context(), c, rowsOf(tr, lo, lo+200), cfg); err != nil {
			t.Fatal(err)
		}
		if c.NumSV() > 150 {
			t.Fatalf("%d support vectors after row %d, over the budget of 150", c.NumSV(), lo+200)
		}
	}
	after := accuracyOn(t, c, te)
	if after < before+0.005 {
		t.Errorf("held-out accuracy %.4f after continuing, %.4f before: want a gain of half a point", after, before)
	}
	if c.Info[InfoSeenRows] != "6300" || c.Info[InfoSeenChunks] != "32" || c.Info[InfoSeenUpdates] != "6200" || c.Info[infoMaintenance] != "merge" {
		t.Errorf("seen %s rows, %s chunks, %s updates, maintenance %s", c.Info[InfoSeenRows], c.Info[InfoSeenChunks], c.Info[InfoSeenUpdates], c.Info[infoMaintenance])
	}
	if !bytes.Equal(orig, modelBytes(t, m)) {
		t.Error("Continue changed the model it was given")
	}
}

// TestContinueDeterministicAndResumable: the same seed gives the same
// model, and a model saved and loaded between two continuations continues
// to the same predictions (as a pickled estimator does).
func TestContinueDeterministicAndResumable(t *testing.T) {
	tr := datasets.Ringnorm(1500, rand.New(rand.NewPCG(3, 3)))
	for _, fc := range []*FitConfig{
		{Algorithm: "smo", Scaling: ScaleStandardize, Gamma: 0.05, C: 1},
		{Algorithm: "nsvm4", Arch: "dense(16),relu,dense(8),relu", Steps: 100, Solver2: "smo", C: 1},
	} {
		t.Run(string(fc.Algorithm), func(t *testing.T) {
			m, err := Fit(t.Context(), rowsOf(tr, 0, 500), fc)
			if err != nil {
				t.Fatal(err)
			}
			cfg := &ContinueConfig{Budget: 100, Seed: 7}
			m1 := continueAll(t, m, rowsOf(tr, 500, 1000), 500, cfg)
			_, loaded := saveLoad(t, m1)
			before := modelBytes(t, m1)
			a := continueAll(t, m1, rowsOf(tr, 1000, 1500), 500, cfg)
			if !bytes.Equal(modelBytes(t, m1), before) {
				t.Error("continuing a model changed it")
			}
			b := continueAll(t, loaded, rowsOf(tr, 1000, 1500), 500, cfg)
			if !bytes.Equal(modelBytes(t, a), modelBytes(t, b)) {
				t.Error("a model saved and loaded between continuations continues differently")
			}
			again := continueAll(t, continueAll(t, m, rowsOf(tr, 500, 1000), 500, cfg), rowsOf(tr, 1000, 1500), 500, cfg)
			if !bytes.Equal(modelBytes(t, a), modelBytes(t, again)) {
				t.Error("two continuations with one seed differ")
			}
			if fc.Algorithm == "nsvm4" && a.Head.Inputs == nil {
				t.Error("a continued NSVM keeps no inputs of its support vectors")
			}
		})
	}
}

// TestContinueDrift: on a stream whose classes swap sides, a model
// continued with a window follows them; one fitted on the old rows does
// not.
func TestContinueDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	draw := func(n int, flip bool) *data.Dataset {
		ds := &data.Dataset{X: make([]float32, 2*n), Y: make([]float64, n), N: n, D: 2}
		for i := range n {
			c := i % 2
			ds.Y[i] = float64(c)
			s := float64(2*c - 1)
			if flip {
				s = -s
			}
			ds.X[2*i] = float32(s*1.5 + rng.NormFloat64())
			ds.X[2*i+1] = float32(rng.NormFloat64())
		}
		return ds
	}
	m, err := Fit(t.Context(), draw(400, false), &FitConfig{Algorithm: "smo", Scaling: ScaleNone, Gamma: 0.5, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	test := draw(2000, true)
	if acc := accuracyOn(t, m, test); acc > 0.2 {
		t.Fatalf("the first model scores %.3f on the drifted rows", acc)
	}
	c := m
	for range 10 {
		if c, err = Continue(t.Context(), c, draw(200, true), &ContinueConfig{Window: 500}); err != nil && !errors.Is(err, ErrChanceLevel) {
			t.Fatal(err)
		}
	}
	if acc := accuracyOn(t, c, test); acc < 0.88 {
		t.Errorf("continued with a window, the model scores %.3f on the drifted rows, want ≥ 0.88", acc)
	}
}

// TestContinueLinearAndRegression: a linear SVM and an ε-SVR continue, and
// keep their held-out scores.
func TestContinueLinearAndRegression(t *testing.T) {
	p := shells(3000, 5, 2, 5)
	ds := &data.Dataset{X: p.X, N: p.N, D: p.D, Y: make([]float64, p.N)}
	for i, k := range p.Y {
		ds.Y[i] = p.Labels[k]
	}
	m, err := Fit(t.Context(), rowsOf(ds, 0, 500), &FitConfig{Algorithm: "linear", C: 1})
	if err != nil {
		t.Fatal(err)
	}
	test := rowsOf(ds, 2000, 3000)
	before := accuracyOn(t, m, test)
	c := continueAll(t, m, rowsOf(ds, 500, 2000), 500, nil)
	if after := accuracyOn(t, c, test); after < before-0.02 || c.Info[InfoContinued] != "linear pegasos" {
		t.Errorf("linear: held-out accuracy %.4f after continuing, %.4f before (%s)", after, before, c.Info[InfoContinued])
	}

	f := datasets.Friedman1(2500, 1, rand.New(rand.NewPCG(6, 6)))
	r, err := Fit(t.Context(), rowsOf(f, 0, 500), &FitConfig{Task: model.Regression, Algorithm: "smo", Gamma: 0.1, C: 1, Epsilon: Set(0.5), Scaling: ScaleNone})
	if err != nil {
		t.Fatal(err)
	}
	rmse := func(m *model.Model) float64 {
		s, err := m.Evaluate(rowsOf(f, 2000, 2500))
		if err != nil {
			t.Fatal(err)
		}
		return s.RMSE
	}
	r0 := rmse(r)
	rc := continueAll(t, r, rowsOf(f, 500, 2000), 500, nil)
	if r1 := rmse(rc); r1 > r0*1.05 || math.IsNaN(r1) {
		t.Errorf("regression: held-out RMSE %.3f after continuing, %.3f before", r1, r0)
	}
}

// TestContinueMismatch: rows of other columns, classes, widths or kinds
// are refused with an error that names what differs.
func TestContinueMismatch(t *testing.T) {
	tr := datasets.Ringnorm(400, rand.New(rand.NewPCG(7, 7)))
	tr.Columns = make([]data.Column, tr.D)
	for j := range tr.Columns {
		tr.Columns[j].Name = "x" + string(rune('a'+j))
	}
	m, err := Fit(t.Context(), tr, &FitConfig{Algorithm: "smo", Gamma: 0.05, C: 1})
	if err != nil {
		t.Fatal(err)
	}
	bad := rowsOf(tr, 0, 100)
	bad.Y = append([]float64{7}, bad.Y[1:]...)
	swapped := rowsOf(tr, 0, 100)
	swapped.Columns = append([]data.Column{{Name: "xb"}, {Name: "xa"}}, tr.Columns[2:]...)
	narrow := &data.Dataset{X: tr.X[:100*5], Y: tr.Y[:100], N: 100, D: 5}
	for _, c := range []struct {
		name string
		ds   *data.Dataset
		want string
	}{
		{"class", bad, "row 1 has label 7, which is not one of the model's classes"},
		{"columns", swapped, `column 1 is "xb" in the data, "xa" in the model`},
		{"width", narrow, "the data has 5 values a row, the model takes 20"},
	} {
		_, err := Continue(t.Context(), m, c.ds, nil)
		if !errors.Is(err, model.ErrBadData) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	one, err := Fit(t.Context(), tr, &FitConfig{SVMType: SVMOneClass})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Continue(t.Context(), one, tr, nil); !errors.Is(err, ErrBadConfig) {
		t.Errorf("a one-class SVM continued: %v", err)
	}
}
