package search

import (
	"context"
	"testing"
)

// A fit counts its work: the phases' work adds up to the fit's, the SMO
// grid counts kernel evaluations, the networks multiply-adds of both
// passes, and the same fit counts the same work.
func TestFitWork(t *testing.T) {
	ds := strokes(600, 1)
	fit := func() (FitProgress, []FitProgress) {
		var done FitProgress
		var cands []FitProgress
		_, err := Fit(context.Background(), ds, &FitConfig{Seed: 3, Progress: func(p FitProgress) {
			switch p.Stage {
			case "done":
				done = p
			case "select":
				cands = append(cands, p)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		return done, cands
	}
	done, cands := fit()
	var sum, candSum Work
	phase := map[string]Work{}
	for _, p := range done.Phases {
		sum = sum.Plus(p.Work)
		phase[p.Name] = p.Work
	}
	for _, c := range cands {
		candSum = candSum.Plus(c.Work)
	}
	w := done.Work
	if sum != w {
		t.Fatalf("the phases' work %+v does not add up to the fit's %+v", sum, w)
	}
	if g := phase["SMO grid"]; g.KernelEvals == 0 || g.ConvForward != 0 {
		t.Fatalf("SMO grid: %+v", g)
	}
	if n := phase["networks"]; n.ConvForward == 0 || n.ConvBackward == 0 || n.DenseForward == 0 || n.DenseBackward == 0 || n.KernelEvals == 0 {
		t.Fatalf("networks: %+v", n)
	}
	if candSum.Total() == 0 || candSum.Total() > w.Total() {
		t.Fatalf("candidates %+v of the fit's %+v", candSum, w)
	}
	if again, _ := fit(); again.Work != w {
		t.Fatalf("a second fit counted %+v, the first %+v", again.Work, w)
	}
}
