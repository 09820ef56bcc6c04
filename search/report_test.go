package search

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data/datasets"
)

// TestSelectionReport: what the selection tells a person. Its progress
// counts candidates against the plan (never more done than planned); the
// record gives every candidate's hyper-parameters and per-fold scores and
// marks the incumbent; a better score the incumbent keeps its place
// against is explained, and so is a network not tried.
func TestSelectionReport(t *testing.T) {
	ds := datasets.Ringnorm(300, rand.New(rand.NewPCG(5, 5^0x9e3779b97f4a7c15)))
	var last FitProgress
	bad := 0
	m, err := Fit(context.Background(), ds, &FitConfig{Progress: func(p FitProgress) {
		if p.Stage != "select" {
			return
		}
		if p.Done > p.Total || p.Done != last.Done+1 {
			bad++
		}
		last = p
	}})
	if err != nil {
		t.Fatal(err)
	}
	sel := m.Selection
	if bad > 0 || last.Done != last.Total || last.Done != len(sel.Candidates) {
		t.Fatalf("%d reports counted past the plan; last %d of %d, %d candidates", bad, last.Done, last.Total, len(sel.Candidates))
	}
	incumbents, best := 0, 0
	for i, c := range sel.Candidates {
		if c.Incumbent {
			incumbents++
		}
		if c.Err == "" && c.Score > sel.Candidates[best].Score {
			best = i
		}
		if c.Err == "" && (c.Solver != "smo" || c.Kernel != "rbf" || !(c.C > 0) || !(c.Gamma > 0) || c.Scaling == "" || len(c.Folds) != 5) {
			t.Fatalf("candidate %d: %+v", i, c)
		}
	}
	if incumbents != 1 {
		t.Fatalf("%d incumbents", incumbents)
	}
	joined := strings.Join(sel.Notes, "\n")
	if !strings.Contains(joined, "no network tried: 300 rows") {
		t.Errorf("notes %q do not say why no network was tried", joined)
	}
	w := sel.Candidates[sel.Winner]
	if sel.Candidates[best].Score > w.Score && (!w.Incumbent || !strings.Contains(joined, sel.Candidates[best].Name+" scored") || !strings.Contains(joined, "is kept")) {
		t.Errorf("the better-scored %q lost to %q with notes %q", sel.Candidates[best].Name, w.Name, joined)
	}
	if sel.Candidates[best].Score <= w.Score {
		t.Errorf("this data set no longer shows a better score within noise (best %v, winner %v): pick another seed", sel.Candidates[best].Score, w.Score)
	}
}
