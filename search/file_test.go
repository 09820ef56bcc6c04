package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
)

// TestFitFileOpenFor trains from a CSV file and reads files for the model:
// the same file, one without its label column (predict's rows), a width the
// model does not take, and labels asked of rows that have none.
func TestFitFileOpenFor(t *testing.T) {
	dir := t.TempDir()
	ds := datasets.Ringnorm(600, rand.New(rand.NewPCG(4, 4)))
	var b strings.Builder
	if err := data.WriteCSV(&b, ds, true); err != nil {
		t.Fatal(err)
	}
	train := filepath.Join(dir, "train.csv")
	if err := os.WriteFile(train, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var notices []string
	r, err := FitFile(context.Background(), train, FileOptions{Notice: func(s string) { notices = append(notices, s) }}, &FitConfig{Algorithm: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Rows == nil || r.Rows.N != ds.N || r.Model.InSize() != ds.D {
		t.Fatalf("FitFile: rows %v, model width %d", r.Rows, r.Model.InSize())
	}
	got, err := OpenFor(r.Model, train, data.OpenOptions{}, true)
	if err != nil || got.N != ds.N || got.D != ds.D || got.Y == nil {
		t.Fatalf("OpenFor(train): %v, %v", got, err)
	}
	// The features alone: as many columns as the model takes, no labels.
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	var x strings.Builder
	for _, l := range lines {
		x.WriteString(l[strings.Index(l, ",")+1:] + "\n") // the label is first
	}
	rows := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(rows, []byte(x.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = OpenFor(r.Model, rows, data.OpenOptions{}, false)
	if err != nil || got.Y != nil || got.N != ds.N {
		t.Fatalf("OpenFor(rows without labels): %v, %v", got, err)
	}
	if _, err := OpenFor(r.Model, rows, data.OpenOptions{}, true); !errors.Is(err, data.ErrNoLabels) {
		t.Errorf("labels asked of rows without them: %v, want data.ErrNoLabels", err)
	}
	if _, err := OpenFor(r.Model, train, data.OpenOptions{Dim: ds.D + 1}, true); err == nil || !strings.Contains(err.Error(), "the model takes 20") {
		t.Errorf("a width the model does not take: %v", err)
	}
}

// TestFitFileStreamColumns: a model trained from a stream of a CSV file
// has the file's columns as one trained from the whole file has them (a
// pandas index left out, the label column's name), and reads the same file
// again for predictions.
func TestFitFileStreamColumns(t *testing.T) {
	ds := datasets.Ringnorm(400, rand.New(rand.NewPCG(5, 5)))
	var b strings.Builder
	for j := range ds.D {
		fmt.Fprintf(&b, ",x%d", j+1)
	}
	b.WriteString(",y\n")
	for i := range ds.N {
		fmt.Fprintf(&b, "%d", i)
		for _, v := range ds.X[i*ds.D : (i+1)*ds.D] {
			fmt.Fprintf(&b, ",%g", v)
		}
		fmt.Fprintf(&b, ",%g\n", ds.Y[i])
	}
	path := filepath.Join(t.TempDir(), "index.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := data.OpenOptions{CSV: data.CSVOptions{LabelColumn: "y"}}
	whole, err := FitFile(context.Background(), path, FileOptions{Open: opt, Stream: "off"}, &FitConfig{Algorithm: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	streamed, err := FitFile(context.Background(), path, FileOptions{Open: opt, Stream: "on", Notice: func(s string) { notices = append(notices, s) }}, &FitConfig{Algorithm: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	m := streamed.Model
	if m.InSize() != ds.D || !reflect.DeepEqual(m.Columns, whole.Model.Columns) || m.LabelColumn != "y" || !m.Columns[0].RowIndex {
		t.Fatalf("streamed model: %d inputs, columns %+v, label column %q; the whole file's: %+v", m.InSize(), m.Columns, m.LabelColumn, whole.Model.Columns)
	}
	if !slices.ContainsFunc(notices, func(s string) bool { return strings.Contains(s, "pandas index") }) {
		t.Errorf("notices %q do not tell of the index", notices)
	}
	got, err := OpenFor(m, path, data.OpenOptions{}, true)
	if err != nil || got.N != ds.N || got.D != ds.D {
		t.Fatalf("OpenFor(the same file): %v, %v", got, err)
	}
}

// TestFitFileStreamLabelNames: the rows a streamed fit returns to score its
// model on carry their labels' names, so that a model of named classes
// scores them (the labels name the classes in another order than the
// model's).
func TestFitFileStreamLabelNames(t *testing.T) {
	ds := datasets.Ringnorm(300, rand.New(rand.NewPCG(6, 6)))
	var b strings.Builder
	b.WriteString("a,b,outcome\n")
	for i := range ds.N {
		name := "no"
		if ds.Y[i] == 2 != (i == 0) {
			name = "yes"
		}
		fmt.Fprintf(&b, "%g,%g,%s\n", ds.X[i*ds.D], ds.X[i*ds.D+1], name)
	}
	path := filepath.Join(t.TempDir(), "names.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	whole, err := data.Open(path, data.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := FitFile(context.Background(), path, FileOptions{Stream: "on"}, &FitConfig{Algorithm: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	m := r.Model
	got, err := m.DataLabels(r.Rows)
	if err != nil {
		t.Fatalf("the streamed fit's rows: %v", err)
	}
	want, err := m.DataLabels(whole)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("labels of the streamed rows %v, of the file read whole %v (%v)", got[:5], want[:5], err)
	}
}
