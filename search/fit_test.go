package search

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/model"
)

// shellsData is shells as a data set with the labels 10, 20, 30, …
func shellsData(n, d, c int, seed uint64) *data.Dataset {
	p := shells(n, d, c, seed)
	ds := &data.Dataset{X: p.X, N: p.N, D: p.D, Y: make([]float64, p.N)}
	for i, y := range p.Y {
		ds.Y[i] = float64(10 * (y + 1))
	}
	return ds
}

func ringData(n int, seed uint64) *data.Dataset {
	return datasets.Ringnorm(n, rand.New(rand.NewPCG(seed, seed^7)))
}

func accuracyOn(t *testing.T, m *model.Model, ds *data.Dataset) float64 {
	t.Helper()
	s, err := m.Evaluate(ds)
	if err != nil {
		t.Fatal(err)
	}
	return s.Accuracy
}

// TestFitSelects: with no configuration Fit scores the SVM grid and the
// NSVMs on 5 folds, keeps the best, and the model carries its labels, its
// scaler and the selection through a save and load.
func TestFitSelects(t *testing.T) {
	train, test := shellsData(300, 4, 3, 1), shellsData(300, 4, 3, 2)
	orig := slices.Clone(train.X)
	m, err := Fit(context.Background(), train, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(train.X, orig) {
		t.Fatal("Fit modified the data")
	}
	s := m.Selection
	if s == nil || s.Validation != "5-fold" || s.Metric != "accuracy" || len(s.Candidates) < 20 {
		t.Fatalf("selection %+v", s)
	}
	// The winner is the best-scoring candidate, or the incumbent (the RBF
	// SVM with γ = 1/D = 0.25, C = 1 on standardised inputs) when nothing
	// beats it by more than noise.
	w := s.Candidates[s.Winner]
	const incumbent = "smo rbf γ=0.25 C=1 (standardize)"
	for _, c := range s.Candidates {
		if c.Err == "" && c.Score > w.Score && w.Name != incumbent {
			t.Errorf("candidate %s scored %.4f > the winner's %.4f", c.Name, c.Score, w.Score)
		}
	}
	if m.Info["selected"] != w.Name || m.Info["validation_score"] == "" {
		t.Errorf("info %v", m.Info)
	}
	if !slices.Equal(m.Labels(), []float64{10, 20, 30}) {
		t.Errorf("labels %v", m.Labels())
	}
	// The classes overlap: a tuned RBF SVM reaches about 80 % here.
	if acc := accuracyOn(t, m, test); acc < 0.75 {
		t.Errorf("test accuracy %.3f", acc)
	}
	_, back := saveLoad(t, m)
	if back.Selection == nil || back.Selection.Winner != s.Winner || len(back.Selection.Candidates) != len(s.Candidates) {
		t.Fatalf("selection after load: %+v", back.Selection)
	}
	a, b := make([]float64, test.N), make([]float64, test.N)
	m.PredictBatch(a, test.X, test.N)
	back.PredictBatch(b, test.X, test.N)
	if !slices.Equal(a, b) {
		t.Error("predictions differ after save and load")
	}
}

// TestFitDeterministic: the same data, configuration and seed give the same
// model file, whatever the number of workers; another seed another split.
func TestFitDeterministic(t *testing.T) {
	ds := ringData(400, 3)
	file := func(seed uint64, workers int) []byte {
		m, err := Fit(context.Background(), ds, &FitConfig{Seed: seed, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		path, _ := saveLoad(t, m)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := file(1, 1)
	if !bytes.Equal(a, file(1, 2)) {
		t.Error("1 and 2 workers give different models")
	}
	if !bytes.Equal(a, file(1, 1)) {
		t.Error("the same seed gives different models")
	}
}

// TestFitPinned: a configuration that pins every choice trains one model
// without validation; pinning part of it restricts the search.
func TestFitPinned(t *testing.T) {
	ds := ringData(300, 4)
	m, err := Fit(context.Background(), ds, &FitConfig{Algorithm: "smo", C: 2, Gamma: 0.05, Scaling: ScaleStandardize})
	if err != nil {
		t.Fatal(err)
	}
	if m.Selection != nil || m.Algorithm != "smo" || m.Head.Kernel.Gamma != 0.05 || m.Info["C"] != "2" {
		t.Errorf("pinned fit: algorithm %s, γ %g, info %v, selection %v", m.Algorithm, m.Head.Kernel.Gamma, m.Info, m.Selection)
	}
	m, err = Fit(context.Background(), ds, &FitConfig{Algorithm: "smo", C: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Selection.Candidates {
		if c.Name[:3] != "smo" || !bytes.Contains([]byte(c.Name), []byte("C=2 ")) {
			t.Errorf("candidate %q with C pinned to 2", c.Name)
		}
	}
	m, err = Fit(context.Background(), ds, &FitConfig{Algorithm: "nsvm4"})
	if err != nil {
		t.Fatal(err)
	}
	// One candidate: nothing to select; its Part I stops early on a
	// hold-out of the data.
	if m.Algorithm != "nsvm4" || m.Net == nil || m.Selection != nil || m.Info["steps"] == "" {
		t.Errorf("nsvm4: algorithm %s, selection %v, info %v", m.Algorithm, m.Selection, m.Info)
	}
	if acc := accuracyOn(t, m, ringData(500, 5)); acc < 0.9 {
		t.Errorf("nsvm4 test accuracy %.3f", acc)
	}
}

// TestFitErrors: unusable data and configurations are errors that say so.
func TestFitErrors(t *testing.T) {
	ring := ringData(100, 1)
	one := ringData(10, 1)
	for i := range one.Y {
		one.Y[i] = 3
	}
	nan := ringData(10, 1)
	nan.X[7] = float32(math.NaN())
	for _, c := range []struct {
		name string
		ds   *data.Dataset
		cfg  *FitConfig
		want error
	}{
		{"nil data", nil, nil, model.ErrBadData},
		{"one class", one, &FitConfig{Task: model.Classification}, model.ErrBadData},
		{"NaN", nan, nil, model.ErrBadData},
		{"shape", ring, &FitConfig{InShape: []int{1, 4, 4}}, ErrBadConfig},
		{"binary algorithm, regression", ring, &FitConfig{Task: model.Regression, Algorithm: "nsvm1"}, ErrBadConfig},
		{"unknown algorithm", ring, &FitConfig{Algorithm: "svc"}, ErrBadConfig},
		{"negative C", ring, &FitConfig{C: -1}, ErrBadConfig},
		{"arch on vectors", ring, &FitConfig{Arch: "conv(4,3)"}, ErrBadConfig},
		{"batch beyond the data", ring, &FitConfig{Algorithm: "nsvm4", Batch: 1000}, model.ErrBadData},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Fit(context.Background(), c.ds, c.cfg)
			if !errors.Is(err, c.want) {
				t.Errorf("error %v, want %v", err, c.want)
			}
		})
	}
}

// TestFitChanceLevel: a model no better than the majority class is an
// error, not a model: a linear SVM cannot separate two classes that differ
// only in spread (N(0, I) against N(0, 9·I)).
func TestFitChanceLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	ds := &data.Dataset{N: 400, D: 2, X: make([]float32, 800), Y: make([]float64, 400)}
	for i := range ds.Y {
		ds.Y[i] = float64(i % 2)
		for j := 0; j < 2; j++ {
			ds.X[2*i+j] = float32((1 + 2*ds.Y[i]) * rng.NormFloat64())
		}
	}
	m, err := Fit(context.Background(), ds, &FitConfig{Algorithm: "pegasos-linear", C: 1, Scaling: ScaleStandardize})
	if !errors.Is(err, ErrChanceLevel) {
		t.Fatalf("error %v, want ErrChanceLevel", err)
	}
	// The advice fits a classical solver: no learning rate to lower.
	if !strings.Contains(err.Error(), "another kernel, C or γ") || strings.Contains(err.Error(), "learning rate") {
		t.Errorf("advice %q for a classical solver", err)
	}
	// The model comes with the error, for a caller that keeps it warned.
	if m == nil || m.InSize() != 2 {
		t.Fatalf("model %v with the chance-level error, want the trained one", m)
	}
	if chanceMargin(0.5, 400) < 0.549 || chanceMargin(0.9, 100000) != 0.905 {
		t.Errorf("margins %g %g", chanceMargin(0.5, 400), chanceMargin(0.9, 100000))
	}
}

// TestFitChanceLevelHeldOut: a model that fits random labels in training
// (an RBF SVM memorises 400 points of 30 noise features) but is at chance
// on the held-out rows learned nothing: the selection's validation says so.
func TestFitChanceLevelHeldOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	ds := &data.Dataset{N: 400, D: 30, X: make([]float32, 400*30), Y: make([]float64, 400)}
	for i := range ds.Y {
		ds.Y[i] = float64(rng.IntN(2))
		for j := range 30 {
			ds.X[30*i+j] = float32(rng.NormFloat64())
		}
	}
	m, err := Fit(context.Background(), ds, &FitConfig{Algorithm: "smo", Kernel: "rbf", C: 10})
	if !errors.Is(err, ErrChanceLevel) || !strings.Contains(err.Error(), "validation accuracy") {
		t.Fatalf("error %v, want ErrChanceLevel from the validation accuracy", err)
	}
	if m == nil {
		t.Fatal("no model with the chance-level error")
	}
	// The same rows with labels the features carry are learned.
	for i := range ds.Y {
		ds.Y[i] = 0
		if ds.X[30*i]+ds.X[30*i+1] > 0 {
			ds.Y[i] = 1
		}
	}
	if _, err := Fit(context.Background(), ds, &FitConfig{Algorithm: "smo", Kernel: "rbf", C: 10}); err != nil {
		t.Fatalf("labels the features carry: %v", err)
	}
}

// TestFitRegression: real targets make a regressor; its RMSE on fresh data
// is well under the targets' spread.
func TestFitRegression(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	train, test := datasets.Friedman1(300, 1, rng), datasets.Friedman1(300, 1, rng)
	m, err := Fit(context.Background(), train, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Regression() || m.Selection.Metric != "rmse" {
		t.Fatalf("regression %v, metric %s", m.Regression(), m.Selection.Metric)
	}
	s, err := m.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	if s.RMSE > 2.5 || s.R2 < 0.75 {
		t.Errorf("test RMSE %.3f, R² %.3f", s.RMSE, s.R2)
	}
}

// TestFitProbability: probabilities are calibrated on out-of-fold values,
// for binary and one-vs-one models, selected or pinned.
func TestFitProbability(t *testing.T) {
	for _, c := range []struct {
		name string
		ds   *data.Dataset
		cfg  *FitConfig
	}{
		{"binary, selected", ringData(300, 6), &FitConfig{Probability: true}},
		{"ovo, pinned", shellsData(300, 3, 3, 6), &FitConfig{Probability: true, Algorithm: "smo", C: 10, Gamma: 0.3, Scaling: ScaleStandardize}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Fit(context.Background(), c.ds, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if m.Platt == nil || !(m.Platt.A < 0) {
				t.Fatalf("calibration %v", m.Platt)
			}
			nc := len(m.Labels())
			p := make([]float64, c.ds.N*nc)
			m.Probabilities(p, c.ds.X, c.ds.N)
			for i := 0; i < c.ds.N; i++ {
				var s float64
				for _, v := range p[i*nc : (i+1)*nc] {
					s += v
				}
				if math.Abs(s-1) > 1e-6 {
					t.Fatalf("row %d sums to %g", i, s)
				}
			}
		})
	}
}

// TestFitBudget: a budget too small for the search still returns the first
// candidate's model and says the budget was reached.
func TestFitBudget(t *testing.T) {
	m, err := Fit(context.Background(), shellsData(300, 4, 3, 7), &FitConfig{Budget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Selection
	if !s.BudgetReached || s.Candidates[s.Winner].Err != "" {
		t.Fatalf("budget reached %v, winner %+v", s.BudgetReached, s.Candidates[s.Winner])
	}
	scored := 0
	for _, c := range s.Candidates {
		if c.Err == "" {
			scored++
		}
	}
	if scored == len(s.Candidates) {
		t.Error("every candidate was scored within a nanosecond")
	}
}

// TestCrossValidate: K folds, each scored on points its model never saw.
func TestCrossValidate(t *testing.T) {
	ds := shellsData(240, 3, 3, 8)
	r, err := CrossValidate(context.Background(), ds, &FitConfig{Algorithm: "smo", C: 10, Gamma: 0.3}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if r.Folds != 4 || len(r.FoldScores) != 4 || r.Metric != "accuracy" || r.Score < 0.6 || r.Score > 1 {
		t.Fatalf("%+v", r)
	}
	var mean float64
	for _, s := range r.FoldScores {
		mean += s / 4
	}
	if math.Abs(mean-r.Score) > 0.02 { // folds of 60 points each
		t.Errorf("mean of the folds %.4f, overall %.4f", mean, r.Score)
	}
	if _, err := CrossValidate(context.Background(), ds, nil, 1); err == nil {
		t.Error("1 fold accepted")
	}
}

// TestValidationSplits: stratified folds of near-equal size, every point
// validated once; a hold-out split for large data.
func TestValidationSplits(t *testing.T) {
	d, err := prepare(shellsData(103, 2, 3, 9), &FitConfig{})
	if err != nil {
		t.Fatal(err)
	}
	sp, name := d.validationSplits(0, rand.New(rand.NewPCG(1, 1)))
	if name != "5-fold" || len(sp) != 5 {
		t.Fatalf("%s, %d splits", name, len(sp))
	}
	seen := make([]int, d.n)
	for _, s := range sp {
		if len(s.val) < 20 || len(s.val) > 21 || len(s.train)+len(s.val) != d.n {
			t.Errorf("split of %d + %d", len(s.train), len(s.val))
		}
		cnt := d.classCounts(s.val)
		if slices.Max(cnt)-slices.Min(cnt) > 1 {
			t.Errorf("validation classes %v", cnt)
		}
		for _, i := range s.val {
			seen[i]++
		}
	}
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("point %d validated %d times", i, c)
		}
	}
	big, _ := prepare(ringData(12000, 1), &FitConfig{})
	sp, name = big.validationSplits(0, rand.New(rand.NewPCG(1, 1)))
	if name != "hold-out 20 %" || len(sp) != 1 || len(sp[0].val) != 2400 {
		t.Errorf("%s, %d splits", name, len(sp))
	}
}

// TestTaskInference: integral labels with few values are classes; real or
// many-valued labels are targets; class-like labels with one that is not an
// integer are an error, not silently a regression. Where integers could be
// read either way, a note says how they were read and how to read them the
// other way; two classes or real targets need none.
func TestTaskInference(t *testing.T) {
	for _, c := range []struct {
		y    func(i int) float64
		want string
		note string
	}{
		{func(i int) float64 { return float64(i % 3) }, model.Classification, "the labels are taken as 3 classes (integers from 0 to 2, at most one value per 5 rows); --task regression fits them as numbers"},
		{func(i int) float64 { return float64(i%2) * 7 }, model.Classification, ""},
		{func(i int) float64 { return float64(i%3) + 0.5 }, model.Regression, ""},
		{func(i int) float64 { return float64(i) }, model.Regression, "the labels are fitted as numbers (100 distinct integers from 0 to 99 in 100 rows, more than one per 5 rows); --task classification takes them as classes"},
		// Class labels but one: refused, not silently a regression.
		{func(i int) float64 { return float64(i%3) + 0.5*float64(max(0, 1-i)) }, "", ""},
	} {
		ds := ringData(100, 1)
		for i := range ds.Y {
			ds.Y[i] = c.y(i)
		}
		d, err := prepare(ds, &FitConfig{})
		if c.want == "" {
			if !errors.Is(err, model.ErrBadData) || !strings.Contains(err.Error(), "row 1's label 0.5 is not an integer") {
				t.Errorf("one fractional class label: %v", err)
			}
			if _, err := prepare(ds, &FitConfig{Task: model.Regression}); err != nil {
				t.Errorf("asked for regression: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if d.task != c.want {
			t.Errorf("task %s, want %s", d.task, c.want)
		}
		if d.taskNote != c.note {
			t.Errorf("task %s: note %q, want %q", d.task, d.taskNote, c.note)
		}
		if d, err := prepare(ds, &FitConfig{Task: Task(c.want)}); err != nil || d.taskNote != "" {
			t.Errorf("task %s asked for: note %q, %v", c.want, d.taskNote, err)
		}
	}
}

// TestTaskNoteNotSaved: a fit that inferred the task says so in its
// selection's TaskNote, which the model file does not keep: the model
// of the task given (as Python's estimators give it) is the same, byte for
// byte.
func TestTaskNoteNotSaved(t *testing.T) {
	ds := shellsData(150, 3, 3, 2)
	var files [2]bytes.Buffer
	for i, task := range []Task{"", model.Classification} {
		m, err := Fit(context.Background(), ds, &FitConfig{Task: task, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if note := m.Selection.TaskNote; (task == "") != strings.HasPrefix(note, "the labels are taken as 3 classes") {
			t.Errorf("task %q: note %q", task, note)
		}
		if _, err := m.WriteTo(&files[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0].Bytes(), files[1].Bytes()) {
		t.Error("the model files of the task inferred and given differ")
	}
}

// TestTaskNoteInError: data refused as their integral labels were read
// (random classes, one of a single row: nothing learned) say how they were
// read and the --task that reads them the other way, as errors of the same
// kind.
func TestTaskNoteInError(t *testing.T) {
	ds := ringData(25, 1)
	for i := range ds.Y {
		ds.Y[i] = float64(i % 3)
	}
	ds.Y[24] = 7 // a fourth class, of one row
	_, err := Fit(context.Background(), ds, &FitConfig{})
	if !errors.Is(err, model.ErrBadData) && !errors.Is(err, ErrChanceLevel) || !strings.HasSuffix(err.Error(), "; the labels are taken as 4 classes (integers from 0 to 7, at most one value per 5 rows); --task regression fits them as numbers") {
		t.Errorf("error %v", err)
	}
}

// TestFitMulticlassAlg3: pinned to nsvm3 on eight classes, Fit trains the
// joint one-vs-rest Algorithm 3 with the multiclass settings
// (multiclassAlg3Preset), which learn where the paper's binary settings
// collapse the features to a constant.
func TestFitMulticlassAlg3(t *testing.T) {
	train, test := shellsData(800, 6, 8, 3), shellsData(800, 6, 8, 4)
	m, err := Fit(context.Background(), train, &FitConfig{Algorithm: "nsvm3", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.Algorithm != "nsvm3" || m.Scheme != model.OneVsRest || m.Info["balanced"] != "true" {
		t.Fatalf("model %s scheme %s info %v", m.Algorithm, m.Scheme, m.Info)
	}
	if acc := accuracyOn(t, m, test); acc < 0.6 {
		t.Errorf("test accuracy %.3f, want ≥ 0.6 (chance 0.125)", acc)
	}
}

// TestCrossValidateSelected: the selection runs once, every fold trains
// its winner; with nothing left to select it is CrossValidate.
func TestCrossValidateSelected(t *testing.T) {
	ds := shellsData(240, 3, 3, 8)
	ctx := context.Background()
	r, err := CrossValidateSelected(ctx, ds, &FitConfig{Algorithm: "smo"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if r.Folds != 4 || r.Score < 0.6 || r.Selected[0] == "" {
		t.Fatalf("%+v", r)
	}
	for _, s := range r.Selected {
		if s != r.Selected[0] {
			t.Fatalf("the folds trained other configurations: %q", r.Selected)
		}
	}
	pinned := &FitConfig{Algorithm: "smo", C: 10, Gamma: 0.3, Scaling: ScaleStandardize}
	a, err := CrossValidate(ctx, ds, pinned, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := CrossValidateSelected(ctx, ds, pinned, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.FoldScores, b.FoldScores) {
		t.Errorf("pinned: CrossValidate %v, CrossValidateSelected %v", a.FoldScores, b.FoldScores)
	}
}
