package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/model"
)

// TestNamedLabels: Fit on named classes gives a model that carries the
// names through Save and Load, maps a test set numbered differently by
// name, and refuses names it does not know, named regression targets and
// named data for a model trained on numbers.
func TestNamedLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	ds := datasets.Ringnorm(600, rng)
	num := ds.Subset(identity(ds.N)) // the same data with numeric labels 1 and 2 … as generated
	for i, y := range ds.Y {
		ds.Y[i] = y - 1 // 0 = "no", 1 = "yes"
		if y != 1 && y != 2 {
			t.Fatalf("Ringnorm label %v", y)
		}
	}
	ds.LabelNames = []string{"no", "yes"}
	cfg := &FitConfig{Algorithm: "smo", C: 1, Gamma: 0.05, Scaling: ScaleStandardize, Seed: 1}
	m, err := Fit(context.Background(), ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.LabelNames, ds.LabelNames) || !slices.Equal(m.ClassNames(), []string{"no", "yes"}) {
		t.Fatalf("model names %q, class names %q", m.LabelNames, m.ClassNames())
	}
	_, m2 := saveLoad(t, m)
	if !slices.Equal(m2.LabelNames, m.LabelNames) {
		t.Fatalf("loaded names %q", m2.LabelNames)
	}
	ref, err := Fit(context.Background(), num, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Evaluate(num)
	if err != nil {
		t.Fatal(err)
	}

	// The test set's own numbering: "maybe" 0, "no" 1, "yes" 2.
	test := ds.Subset(identity(ds.N))
	test.LabelNames = []string{"maybe", "no", "yes"}
	for i := range test.Y {
		test.Y[i]++
	}
	got, err := m2.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	if got.Errors != want.Errors || !slices.Equal(got.Names, []string{"no", "yes"}) {
		t.Fatalf("named: %d errors, names %q; numeric labels: %d errors", got.Errors, got.Names, want.Errors)
	}
	test.Y[5] = 0 // "maybe"
	if _, err := m2.Evaluate(test); err == nil || !strings.Contains(err.Error(), `row 6 has label "maybe"`) {
		t.Fatalf("unknown name: error %v", err)
	}
	if _, err := ref.Evaluate(ds); err == nil || !errors.Is(err, model.ErrBadData) || !strings.Contains(err.Error(), "names") {
		t.Fatalf("named data, numeric model: error %v", err)
	}
	if _, err := Fit(context.Background(), ds, &FitConfig{Task: model.Regression, Algorithm: "smo"}); err == nil || !strings.Contains(err.Error(), "regression needs numeric targets") {
		t.Fatalf("named regression: error %v", err)
	}
	one := ds.Subset([]int{0, 1})
	one.Y[0], one.Y[1] = 1, 1
	if _, err := Fit(context.Background(), one, cfg); err == nil || !strings.Contains(err.Error(), `only one class ("yes")`) {
		t.Fatalf("one named class: error %v", err)
	}
}

func identity(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = i
	}
	return v
}

// TestModelColumns: a model trained on data with categorical columns
// keeps them through Save and Load, to read new data with.
func TestModelColumns(t *testing.T) {
	text := "size,color,label\n"
	colors := []string{"red", "green", "blue"}
	rng := rand.New(rand.NewPCG(4, 4))
	for i := range 120 {
		text += strconv.FormatFloat(rng.NormFloat64(), 'g', 4, 64) + "," + colors[i%3] + "," + strconv.Itoa(min(i%3, 1)) + "\n"
	}
	ds, err := data.ReadCSV(strings.NewReader(text), "c.csv", data.CSVOptions{LabelCol: data.LabelAuto})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(context.Background(), ds, &FitConfig{Algorithm: "smo", C: 1, Gamma: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, m2 := saveLoad(t, m)
	want := []data.Column{{Name: "size"}, {Name: "color", Categories: []string{"blue", "green", "red"}}}
	if !reflect.DeepEqual(m2.Columns, want) || m2.InSize() != 4 {
		t.Fatalf("columns %v, input size %d", m2.Columns, m2.InSize())
	}
	test, err := data.ReadCSV(strings.NewReader("size,color,label\n0,red,0\n0,blue,1\n"), "t.csv", data.CSVOptions{LabelCol: data.LabelAuto, Columns: m2.Columns})
	if err != nil {
		t.Fatal(err)
	}
	if sc, err := m2.Evaluate(test); err != nil || sc.Errors != 0 {
		t.Fatalf("evaluate: %v, %d errors", err, sc.Errors)
	}
}

// TestManySingletonClasses: when every validation split lacks a class in
// its training part, Fit says why instead of failing inside the search.
func TestManySingletonClasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	ds := datasets.Ringnorm(300, rng)
	for i := range ds.Y {
		ds.Y[i] = float64(i % 150) // 150 classes of 2 rows
		if i >= 200 {
			ds.Y[i] = float64(i - 50) // and 100 of one row
		}
	}
	for i := range 250 {
		ds.LabelNames = append(ds.LabelNames, fmt.Sprintf("c%03d", i)) // names: classes, whatever their number
	}
	_, err := Fit(context.Background(), ds, nil)
	if err == nil || !errors.Is(err, model.ErrBadData) || !strings.Contains(err.Error(), "have a single row") {
		t.Fatalf("error %v", err)
	}
}
