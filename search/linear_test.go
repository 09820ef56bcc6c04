package search

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
)

// scaled returns ds with its sparse values multiplied by f: for the linear
// SVM the same problem with C multiplied by f² (w/f scores as w did).
func scaled(ds *data.Dataset, f float32) *data.Dataset {
	out := *ds
	sp := *ds.Sparse
	sp.Val = make([]float32, len(ds.Sparse.Val))
	for i, v := range ds.Sparse.Val {
		sp.Val[i] = v * f
	}
	out.Sparse = &sp
	return &out
}

// linearScores runs Fit and returns the model and its selection's linear
// candidates by name.
func linearScores(t *testing.T, ds *data.Dataset, cfg *FitConfig) (*model.Model, map[string]model.CandidateScore) {
	t.Helper()
	m, err := Fit(context.Background(), ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]model.CandidateScore{}
	for _, c := range m.Selection.Candidates {
		if strings.HasPrefix(c.Name, "linear") {
			out[c.Name] = c
			t.Logf("%-28s %.4f %s", c.Name, c.Score, c.Err)
		}
	}
	return m, out
}

// TestLinearPathStops: where a larger C cannot win by more than noise, the
// C path climbs no further than the first C above its start (C = 1), which
// it prunes after a bounded run; the default wins.
func TestLinearPathStops(t *testing.T) {
	// Unit-norm bags of words that C = 1 already separates as well as the
	// validation can tell.
	ds := sparseText(3000, 20000, 30, 4, 11)
	m, cs := linearScores(t, ds, &FitConfig{Seed: 1})
	up, ok := cs["linear l2 C=3.16 (none)"]
	if !ok || !strings.HasPrefix(up.Err, "pruned") {
		t.Fatalf("C = 3.16 not scored and pruned: %+v", up)
	}
	for _, c := range []string{"10", "31.6", "100"} {
		if _, ok := cs["linear l2 C="+c+" (none)"]; ok {
			t.Errorf("the path climbed on to C = %s", c)
		}
	}
	if m.Info["selected"] != "linear l2 C=1 (none)" && !strings.Contains(m.Info["selected"], "C=0.") {
		t.Errorf("selected %s", m.Info["selected"])
	}
}

// TestLinearPathClimbs: where the validation score keeps rising with C (the
// rows scaled by 1/10, so that each C acts as C/100 on the unscaled rows),
// the path does not stop: it climbs to a large C, which wins and beats the
// default C = 1 on test rows. Where it keeps rising as C falls (a fifth of
// the training labels drawn at random, 3000 rows of 1000 features: the
// classes overlap), the path goes down to a small C instead, which wins and
// beats C = 1 on test rows; there the climb from C = 1 loses on the first
// of the three folds by more than noise and is not trained on the others.
func TestLinearPathClimbs(t *testing.T) {
	noisy := textLike(3000, 1000, 8, 40, 30, 0.3, 12)
	rng := rand.New(rand.NewPCG(14, 1))
	for i := range noisy.Y {
		if rng.IntN(5) == 0 {
			noisy.Y[i] = float64(rng.IntN(8))
		}
	}
	for _, c := range []struct {
		name        string
		train, test *data.Dataset
		high        bool
	}{
		{"up", scaled(textLike(2000, 20000, 8, 40, 30, 0.3, 12), 0.1), scaled(textLike(2000, 20000, 8, 40, 30, 0.3, 13), 0.1), true},
		{"down", noisy, textLike(2000, 1000, 8, 40, 30, 0.3, 13), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, cs := linearScores(t, c.train, &FitConfig{Seed: 1})
			def, err := Fit(context.Background(), c.train, &FitConfig{Seed: 1, Algorithm: "linear", LinearLoss: "l2", C: 1})
			if err != nil {
				t.Fatal(err)
			}
			won := cs[m.Info["selected"]]
			cw, err := strconv.ParseFloat(m.Info["C"], 64)
			if err != nil {
				t.Fatal(err)
			}
			if c.high && cw < 10 || !c.high && cw > 0.1 {
				t.Errorf("selected %s (C = %g), want C %s", won.Name, cw, map[bool]string{true: "≥ 10", false: "≤ 0.1"}[c.high])
			}
			if a, b := accuracyOn(t, m, c.test), accuracyOn(t, def, c.test); a <= b {
				t.Errorf("test accuracy %.4f at C = %g, %.4f at C = 1", a, cw, b)
			}
			if up := cs["linear l2 C=3.16 (none)"]; !c.high && !strings.Contains(up.Err, "on the first split") {
				t.Errorf("C = 3.16: %q, want pruned on the first split", up.Err)
			}
		})
	}
}

// TestRefineLinear: around the winner, the linear paths score one more C
// only where the parabola through its scores and its neighbours' promises
// a gain of more than noise: not on a flat curve, not on a peak whose
// neighbours lose by little, and at the vertex of a clear peak.
func TestRefineLinear(t *testing.T) {
	ds := sparseText(2000, 500, 10, 2, 3)
	c := FitConfig{Seed: 1, Folds: 1}
	d, err := prepare(ds, &c)
	if err != nil {
		t.Fatal(err)
	}
	cands, err := candidates(d, &c)
	if err != nil {
		t.Fatal(err)
	}
	byC := map[float64]*recipe{}
	for _, r := range cands {
		if r.solver == "linear" && r.loss.String() == "l2" {
			byC[r.c] = r
		}
	}
	for _, tc := range []struct {
		name   string
		errors [3]int // validation errors at C = 0.316, 1, 3.16 (the incumbent)
		want   float64
	}{
		{"flat", [3]int{40, 40, 41}, 0},
		{"shallow peak", [3]int{46, 40, 46}, 0},
		{"peak leaning up", [3]int{90, 40, 41}, 1.74},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSearch(context.Background(), d, &c, time.Now())
			s.makeSplits()
			nv := len(s.splits[0].val)
			for k, cc := range []float64{math.Sqrt(0.1), 1, math.Sqrt(10)} {
				cr := s.add([]*recipe{byC[cc]})[0]
				// The errors on the first rows, the first 40 shared: paired
				// differences as close as the counts allow.
				cr.loss = make([]float32, nv)
				for i := range tc.errors[k] {
					cr.loss[i] = 1
				}
				cr.scores[0] = 1 - float64(tc.errors[k])/float64(nv)
				cr.missing, cr.complete = 0, true
			}
			got := s.refineLinear()
			switch {
			case tc.want == 0 && len(got) > 0:
				t.Errorf("refined at C = %g", got[0].c)
			case tc.want > 0 && (len(got) != 1 || math.Abs(got[0].c-tc.want) > 0.05):
				t.Errorf("refined at %v, want C ≈ %g", got, tc.want)
			}
		})
	}
}

// TestLinearPathZeroWeights: rows of weight 0 take no part; a split whose
// training rows all weigh 0 fails its candidates with an error instead of
// stopping the fit, and scores no row could give refine nothing.
func TestLinearPathZeroWeights(t *testing.T) {
	for _, nonzero := range [][]int{{0}, {0, 1, 5}} {
		ds := textLike(300, 2000, 2, 40, 30, 0.3, 1)
		ds.W = make([]float64, ds.N)
		for _, i := range nonzero {
			ds.W[i] = 1
		}
		m, err := Fit(context.Background(), ds, &FitConfig{Seed: 1, Algorithm: "linear"})
		t.Logf("%d rows of weight 1: %v", len(nonzero), err)
		if err == nil {
			t.Errorf("%d rows of weight 1: no error", len(nonzero))
		}
		if m == nil || m.Selection == nil {
			continue
		}
		for _, c := range m.Selection.Candidates {
			if strings.Contains(c.Name, "NaN") || strings.Contains(c.Name, "Inf") {
				t.Errorf("candidate %s", c.Name)
			}
		}
	}
}

// xorText returns n sparse rows of d features: feature 0 or 1 present or not
// at random, the class their exclusive or, and 20 noise words from the rest
// of the vocabulary. No linear model does better than chance; an RBF SVM
// separates the classes.
func xorText(n, d int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 5))
	m := &data.CSR{Ptr: make([]int64, n+1)}
	y := make([]float64, n)
	for i := range n {
		a, b := rng.IntN(2), rng.IntN(2)
		y[i] = float64(a ^ b)
		var idx []int32
		if a == 1 {
			idx = append(idx, 0)
		}
		if b == 1 {
			idx = append(idx, 1)
		}
		seen := map[int32]bool{}
		for len(seen) < 20 {
			j := int32(2 + rng.IntN(d-2))
			if !seen[j] {
				seen[j] = true
				idx = append(idx, j)
			}
		}
		sortInt32(idx)
		for _, j := range idx {
			v := float32(0.1)
			if j < 2 {
				v = 1
			}
			m.Idx = append(m.Idx, j)
			m.Val = append(m.Val, v)
		}
		m.Ptr[i+1] = int64(len(m.Val))
	}
	return &data.Dataset{Sparse: m, Y: y, N: n, D: d}
}

// textLike returns n rows of d features as bags of k words, L2-normalised,
// of a class among classes drawn at random: half of the words from a
// small common vocabulary (the first common columns, the most frequent
// first), share of them from the class's own slice of the rest of the
// vocabulary (twice the weight), the others from all of it. Two rows share
// mostly common words, which say nothing of the class: on such rows an RBF
// SVM loses to the linear SVM by points (about 64 % against 81 % on 2000
// rows of 8 classes with share 0.3, 3-fold), as on real text.
func textLike(n, d, classes, common, k int, share float64, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 9))
	m := &data.CSR{Ptr: make([]int64, n+1)}
	y := make([]float64, n)
	slice := (d - common) / classes
	for i := range n {
		c := rng.IntN(classes)
		y[i] = float64(c)
		cnt := map[int32]float64{}
		for range k {
			switch u := rng.Float64(); {
			case u < 0.5:
				j := int32(math.Floor(float64(common) * math.Pow(rng.Float64(), 2)))
				cnt[j]++
			case u < 0.5+share:
				cnt[int32(common+c*slice+rng.IntN(slice))] += 2
			default:
				cnt[int32(common+rng.IntN(d-common))] += 2
			}
		}
		appendUnitRow(m, i, cnt)
	}
	return &data.Dataset{Sparse: m, Y: y, N: n, D: d}
}

// appendUnitRow sets row i of m to the row of the values row (by
// column), scaled to unit norm, as TfidfVectorizer's rows are.
func appendUnitRow(m *data.CSR, i int, row map[int32]float64) {
	idx := make([]int32, 0, len(row))
	for j := range row {
		idx = append(idx, j)
	}
	sortInt32(idx)
	var nrm float64
	for _, j := range idx {
		nrm += row[j] * row[j]
	}
	for _, j := range idx {
		m.Idx = append(m.Idx, j)
		m.Val = append(m.Val, float32(row[j]/math.Sqrt(nrm)))
	}
	m.Ptr[i+1] = int64(len(m.Val))
}

// TestKernelProbe: on sparse rows the RBF grid is scored only if a probe on
// samples of the first split says it can catch up with the linear SVM: on
// bags of words it loses by points and is pruned unscored; on an exclusive
// or, which no linear model learns, it is scored and wins.
func TestKernelProbe(t *testing.T) {
	for _, c := range []struct {
		name  string
		ds    *data.Dataset
		grid  bool
		algos string
	}{
		{"bags of words", textLike(2000, 20000, 8, 40, 30, 0.3, 21), false, "linear"},
		{"exclusive or", xorText(2000, 20000, 22), true, "smo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Fit(context.Background(), c.ds, &FitConfig{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			scored, pruned := 0, 0
			for _, cs := range m.Selection.Candidates {
				if !strings.HasPrefix(cs.Name, "smo") {
					continue
				}
				switch {
				case cs.Err == "":
					scored++
				case strings.HasPrefix(cs.Err, "pruned: on "):
					pruned++
				}
			}
			t.Logf("selected %s; grid scored %d, pruned %d", m.Info["selected"], scored, pruned)
			if c.grid && (scored == 0 || pruned > 0) || !c.grid && (scored > 0 || pruned == 0) {
				t.Errorf("grid scored %d, pruned %d", scored, pruned)
			}
			if m.Algorithm != c.algos {
				t.Errorf("selected %s", m.Info["selected"])
			}
		})
	}
}

// TestFitPhases: the phases of a fit's "done" report add up to its wall
// time, the candidates' seconds (their reports, their Selection records) to
// the phases' candidate seconds, and the phases say what ran: on sparse
// text the linear paths, the kernel probe and the final fit; on dense data
// the SMO grid and its refinement.
func TestFitPhases(t *testing.T) {
	for _, c := range []struct {
		name string
		ds   *data.Dataset
		want []string
	}{
		{"sparse", textLike(1600, 20000, 8, 40, 30, 0.3, 31), []string{"prepare", "linear C paths", "kernel probe", "final fit", "check"}},
		{"dense", ringData(300, 3), []string{"prepare", "SMO grid", "refinement", "final fit", "check"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var done *FitProgress
			var reported float64
			n := 0
			cfg := &FitConfig{Seed: 1, Progress: func(p FitProgress) {
				switch p.Stage {
				case "select":
					reported += p.Seconds
					n++
				case "done":
					done = &p
				}
			}}
			m, err := Fit(context.Background(), c.ds, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if done == nil {
				t.Fatal("no done report")
			}
			var names []string
			var total, cand float64
			cands := 0
			for _, p := range done.Phases {
				names = append(names, p.Name)
				total += p.Seconds
				cand += p.CandidateSeconds
				cands += p.Candidates
				if p.CandidateSeconds > p.Seconds+1e-9 {
					t.Errorf("%s: candidates %.4fs of %.4fs", p.Name, p.CandidateSeconds, p.Seconds)
				}
			}
			t.Logf("phases %+v", done.Phases)
			if strings.Join(names, ",") != strings.Join(c.want, ",") {
				t.Errorf("phases %q, want %q", names, c.want)
			}
			if el := done.Elapsed.Seconds(); math.Abs(total-el) > 0.01*el+0.005 {
				t.Errorf("phases add up to %.4fs of %.4fs", total, el)
			}
			var sel float64
			for _, cs := range m.Selection.Candidates {
				sel += cs.Seconds
			}
			if math.Abs(reported-cand) > 1e-6*cand+1e-9 || math.Abs(sel-cand) > 1e-6*cand+1e-9 {
				t.Errorf("candidates' seconds: reported %.6f, selection %.6f, phases %.6f", reported, sel, cand)
			}
			if cands != n || n != len(m.Selection.Candidates) {
				t.Errorf("%d candidates in the phases, %d reports, %d in the selection", cands, n, len(m.Selection.Candidates))
			}
		})
	}
}

// TestLinearBlend: the search tries the mean of the two losses' SVMs only
// when asked (LinearLoss "l2+l1"): then every candidate is one, trained on
// its own C path, and the model's heads have loss "l2+l1" and the l1 run's
// epochs after the l2 run's; by default there is none.
func TestLinearBlend(t *testing.T) {
	ds := sparseText(2000, 20000, 5, 4, 12)
	m, cs := linearScores(t, ds, &FitConfig{Seed: 1, LinearLoss: "l2+l1", Algorithm: "linear"})
	if len(cs) < 2 || m.Info["selected"] == "" {
		t.Fatalf("candidates %v", cs)
	}
	for name, c := range cs {
		if !strings.Contains(name, "l2+l1") || c.Err != "" && !strings.HasPrefix(c.Err, "pruned") {
			t.Errorf("with the blend pinned: %s %s", name, c.Err)
		}
	}
	if h := m.Heads[0].Info; h["loss"] != "l2+l1" || !strings.Contains(h["epochs"], "+") {
		t.Errorf("pinned blend: the final heads' info %v", h)
	}
	_, cs = linearScores(t, ds, &FitConfig{Seed: 1})
	for name := range cs {
		if strings.Contains(name, "l2+l1") {
			t.Errorf("by default: %s", name)
		}
	}
}
