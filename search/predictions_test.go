package search

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/model"
)

// WritePredictions' layouts, row by row against the Prediction they write.
func TestWritePredictions(t *testing.T) {
	ds := threeClasses(150, 4, 1)
	m, err := Fit(context.Background(), ds, &FitConfig{Algorithm: "smo", C: 1, Gamma: 0.25, Probability: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.PredictDataset(ds, true)
	if err != nil {
		t.Fatal(err)
	}
	lines := func(l model.PredictionLayout) [][]string {
		t.Helper()
		var b strings.Builder
		if err := m.WritePredictions(&b, p, l); err != nil {
			t.Fatal(err)
		}
		var out [][]string
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			out = append(out, strings.Fields(line))
		}
		return out
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	near := func(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }
	nc, nh := len(m.Labels()), m.NumHeads()
	for i, f := range lines(model.PredictionLayout{}) {
		if len(f) != 2 || f[0] != m.LabelName(p.Labels[i]) || !near(num(f[1]), p.Scores[i*nc+argmax(p.Scores[i*nc:(i+1)*nc])]) {
			t.Fatalf("row %d: %v", i, f)
		}
	}
	for i, f := range lines(model.PredictionLayout{Decisions: true, Probabilities: true}) {
		if len(f) != 1+nh || !near(num(f[nh]), p.Decisions[i*nh+nh-1]) {
			t.Fatalf("decisions, row %d: %v", i, f)
		}
	}
	for i, f := range lines(model.PredictionLayout{Probabilities: true}) {
		// The label, its score, then every class's probability.
		if len(f) != 2+nc || f[0] != m.LabelName(p.Labels[i]) {
			t.Fatalf("probabilities, row %d: %v", i, f)
		}
		for c := range nc {
			if !near(num(f[2+c]), p.Probabilities[i*nc+c]) {
				t.Fatalf("probabilities, row %d: %v", i, f)
			}
		}
	}
	lb := lines(model.PredictionLayout{LIBSVM: true, Probabilities: true})
	want := "labels"
	for _, c := range m.Labels() {
		want += " " + m.LabelName(c)
	}
	if strings.Join(lb[0], " ") != want || len(lb) != p.Rows+1 {
		t.Fatalf("svm-predict -b 1 layout: first line %v, %d lines", lb[0], len(lb))
	}
	for i, f := range lb[1:] {
		if len(f) != 1+nc || f[0] != m.LabelName(m.Labels()[argmax(p.Probabilities[i*nc:(i+1)*nc])]) || !near(num(f[1+nc-1]), p.Probabilities[i*nc+nc-1]) {
			t.Fatalf("libsvm, row %d: %v", i, f)
		}
	}
	for i, f := range lines(model.PredictionLayout{LIBSVM: true}) {
		if len(f) != 1 || f[0] != m.LabelName(p.Labels[i]) {
			t.Fatalf("libsvm without probabilities, row %d: %v", i, f)
		}
	}
	// A header names the columns.
	hdr := lines(model.PredictionLayout{Probabilities: true, Header: true})
	want2 := []string{"label", "votes"}
	if m.Scheme == model.OneVsRest {
		want2[1] = "score"
	}
	for _, c := range m.Labels() {
		want2 = append(want2, "p("+m.LabelName(c)+")")
	}
	if !slices.Equal(hdr[0], want2) || len(hdr) != p.Rows+1 {
		t.Fatalf("header %v (%d lines), want %v", hdr[0], len(hdr), want2)
	}
	q := p
	q.Probabilities = nil
	if err := m.WritePredictions(new(strings.Builder), q, model.PredictionLayout{Probabilities: true}); err == nil {
		t.Fatal("probabilities written from a prediction without them")
	}
}
