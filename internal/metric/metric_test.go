package metric

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestROCAUC: the sorted, tie-aware AUC equals the brute-force count of
// ordered pairs (ties half), with and without weights.
func TestROCAUC(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		n := 5 + rng.IntN(60)
		s := make([]float64, n)
		cls := make([]int, n)
		w := make([]float64, n)
		for i := range s {
			s[i] = float64(rng.IntN(7)) // many ties
			cls[i] = rng.IntN(2)
			w[i] = 0.5 + rng.Float64()
		}
		cls[0], cls[1] = 0, 1
		for _, weights := range [][]float64{nil, w} {
			wt := func(i int) float64 {
				if weights == nil {
					return 1
				}
				return weights[i]
			}
			var num, den float64
			for i := range s {
				for j := range s {
					if cls[i] != 1 || cls[j] != 0 {
						continue
					}
					ww := wt(i) * wt(j)
					den += ww
					switch {
					case s[i] > s[j]:
						num += ww
					case s[i] == s[j]:
						num += ww / 2
					}
				}
			}
			if got := AUC(s, cls, weights); math.Abs(got-num/den) > 1e-12 {
				t.Fatalf("trial %d: AUC %v, brute force %v", trial, got, num/den)
			}
		}
	}
	if !math.IsNaN(AUC([]float64{1, 2}, []int{1, 1}, nil)) {
		t.Fatal("AUC of one class is not NaN")
	}
}

// TestMetrics: balanced accuracy, F1 and accuracy on a small confusion.
func TestMetrics(t *testing.T) {
	// truth 0 0 0 0 1 1, pred 0 0 0 1 1 0
	e := Rows{Cls: []int{0, 0, 0, 0, 1, 1}, NC: 2}
	pred := []int{0, 0, 0, 1, 1, 0}
	if got := e.Score(Accuracy, pred, nil, nil); math.Abs(got-4.0/6) > 1e-12 {
		t.Errorf("accuracy %v", got)
	}
	if got := e.Score(BalancedAccuracy, pred, nil, nil); math.Abs(got-(0.75+0.5)/2) > 1e-12 {
		t.Errorf("balanced accuracy %v", got)
	}
	// class 1: tp 1, fp 1, fn 1 → F1 = 2/4
	if got := e.Score(F1, pred, nil, nil); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("F1 %v", got)
	}
	e.W = []float64{1, 1, 1, 1, 3, 1}
	if got := e.Score(BalancedAccuracy, pred, nil, nil); math.Abs(got-(0.75+0.75)/2) > 1e-12 {
		t.Errorf("weighted balanced accuracy %v", got)
	}
}
