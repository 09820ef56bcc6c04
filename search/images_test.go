package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
)

// splitInPlace gives the parts holdout gives, without copying the rest, and
// leaves s holding every row once, x and idx together.
func TestSplitInPlace(t *testing.T) {
	ds := threeClasses(300, 4, 1)
	d, err := prepare(ds, &FitConfig{})
	if err != nil {
		t.Fatal(err)
	}
	all := d.all()
	a := d.subProblem(ScaleStandardize, all)
	b := d.subProblem(ScaleStandardize, all)
	r1, h1 := a.holdout(0.2, rand.New(rand.NewPCG(7, 7)))
	r2, h2 := b.splitInPlace(0.2, rand.New(rand.NewPCG(7, 7)))
	for _, c := range [][2]subProblem{{r1, r2}, {h1, h2}} {
		if c[0].n != c[1].n || !slices.Equal(c[0].idx, c[1].idx) || !slices.Equal(c[0].x, c[1].x) {
			t.Fatalf("splitInPlace's part differs from holdout's: %d rows %v…, want %d rows %v…", c[1].n, c[1].idx[:3], c[0].n, c[0].idx[:3])
		}
	}
	if &r2.x[0] != &b.x[0] || &h2.x[0] != &b.x[r2.n*d.d] {
		t.Fatal("the parts are not views of s")
	}
	// Every row of s still holds its own values.
	ref := d.subProblem(ScaleStandardize, all)
	for k, i := range b.idx {
		if !slices.Equal(b.x[k*d.d:(k+1)*d.d], ref.x[i*d.d:(i+1)*d.d]) {
			t.Fatalf("row %d (data row %d) was scrambled", k, i)
		}
	}
	if s := slices.Sorted(slices.Values(b.idx)); !slices.Equal(s, all) {
		t.Fatal("s lost or repeated rows")
	}
	if !slices.Equal(all, seq(d.n)) {
		t.Fatal("the caller's row indices were reordered")
	}
}

// strokes returns n 8×8 grey images of three classes (a horizontal, a
// vertical and a diagonal stroke at a random place, with noise).
func strokes(n int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 99))
	ds := &data.Dataset{X: make([]float32, n*64), Y: make([]float64, n), N: n, D: 64, Shape: []int{1, 8, 8}}
	for i := range n {
		c := i % 3
		ds.Y[i] = float64(c)
		img := ds.X[i*64 : (i+1)*64]
		for j := range img {
			img[j] = float32(0.3 * rng.Float64())
		}
		p := 1 + rng.IntN(6)
		for k := 1; k < 7; k++ {
			switch c {
			case 0:
				img[p*8+k] += 1
			case 1:
				img[k*8+p] += 1
			default:
				img[k*8+k] += 1
			}
		}
	}
	return ds
}

// fitCNN fits Algorithm 4 with the CNN of 8×8 images and seed 3 on ds, as
// c says otherwise.
func fitCNN(t *testing.T, ds *data.Dataset, c FitConfig) *model.Model {
	t.Helper()
	c.Algorithm, c.Arch, c.Seed = "nsvm4", cnnArch([]int{1, 8, 8}), 3
	m, err := Fit(context.Background(), ds, &c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// An image recipe races its Part I variants: every arm scored, the winner
// one of them and recorded in the model; the fit is deterministic, and
// pinning the objective and augmentation leaves one arm. (900 rows are too
// few for the race to pay: the test lifts raceShare, and then checks that
// with its default the race does not run.)
func TestImageRace(t *testing.T) {
	defer func(s float64) { raceShare = s }(raceShare)
	raceShare = math.Inf(1)
	ds, test := strokes(900, 1), strokes(300, 2)
	arch := cnnArch([]int{1, 8, 8})
	fit := func(c FitConfig) *model.Model { t.Helper(); return fitCNN(t, ds, c) }
	m := fit(FitConfig{})
	race := m.Info["part1_race"]
	obj, aug := m.Info["part1_objective"], m.Info["augment"]
	for _, a := range imageArms(&FitConfig{}) {
		if !strings.Contains(race, " "+a.String()+"=") {
			t.Fatalf("race %q lacks arm %s", race, a)
		}
	}
	if !strings.Contains(race, " "+obj+"/"+aug+"=") {
		t.Fatalf("winner %s/%s is not an arm of %q", obj, aug, race)
	}
	s, err := m.Evaluate(test)
	if err != nil {
		t.Fatal(err)
	}
	if s.Accuracy < 0.9 {
		t.Fatalf("test accuracy %.3f", s.Accuracy)
	}
	t.Logf("race %s → %s/%s, test accuracy %.3f", race, obj, aug, s.Accuracy)
	// The network's batchnorm statistics travel with the model file.
	if !strings.Contains(arch, "batchnorm") {
		t.Fatalf("image network %s has no batchnorm", arch)
	}
	_, l := saveLoad(t, m)
	for i := range test.N {
		x := test.X[i*test.D : (i+1)*test.D]
		if a, b := m.Predict(x), l.Predict(x); a != b {
			t.Fatalf("row %d: the loaded model predicts %g, the trained one %g", i, b, a)
		}
	}
	m2 := fit(FitConfig{})
	if m2.Info["part1_race"] != m.Info["part1_race"] || !slices.Equal(m2.Net.Params()[0].W, m.Net.Params()[0].W) {
		t.Fatal("two fits with one seed differ")
	}
	// On one hold-out split the CNN is kept as the search trained it.
	// (Algorithm 4 with the network unpinned: the CNN and an MLP compete.)
	var kept FitProgress
	h, err := Fit(context.Background(), ds, &FitConfig{Algorithm: "nsvm4", Seed: 3, Folds: 1, Progress: func(p FitProgress) {
		if p.Stage == "keep" {
			kept = p
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h.Info["selected"], "nsvm4 conv(") {
		t.Fatalf("selected %s, not the CNN", h.Info["selected"])
	}
	if kept.Done == 0 || h.Info["trained_rows"] != strconv.Itoa(kept.Done) || kept.Done >= ds.N {
		t.Fatalf("one hold-out: kept on %d rows (trained_rows %q) of %d", kept.Done, h.Info["trained_rows"], ds.N)
	}
	p := fit(FitConfig{Objective: paper.ObjectiveAlign, Augment: "none"})
	if p.Info["part1_race"] != "" || p.Info["part1_objective"] != paper.ObjectiveAlign || p.Info["augment"] != "none" {
		t.Fatalf("pinned: race %q, objective %q, augment %q", p.Info["part1_race"], p.Info["part1_objective"], p.Info["augment"])
	}
	// With the default share, 900 rows run no race: the incumbent arm
	// trains, and the model says why.
	raceShare = 0.5
	var raced float64
	c := FitConfig{Progress: func(p FitProgress) {
		if p.Candidate != "" {
			raced += p.RaceSeconds
		}
	}}
	n := fit(c)
	inc := imageArms(&FitConfig{})[0]
	if r := n.Info["part1_race"]; !strings.HasPrefix(r, "not run: 4 arms × ") || !strings.HasSuffix(r, inc.String()+", the incumbent") ||
		n.Info["part1_objective"] != inc.objective || n.Info["augment"] != inc.augment || raced != 0 {
		t.Fatalf("small data: race %q (%.2fs), objective %q, augment %q", r, raced, n.Info["part1_objective"], n.Info["augment"])
	}
}

// The race runs only where it costs at most raceShare of Part I's work.
func TestRaceAffordable(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want bool
	}{{1600, false}, {3200, false}, {8000, false}, {12000, true}, {48000, true}} {
		// As autoNSVM and racePart1 count a CNN's steps on n fit rows.
		T := min(20000, max(500, imageEpochs*tc.n/64))
		proxy := min(tc.n, max(raceMinRows, int(raceRows*float64(tc.n))))
		steps := min(T, max(100, raceEpochs*proxy/64))
		if got := raceAffordable(4, steps, 64, T, 64); got != tc.want {
			t.Errorf("%d rows: race affordable %v, want %v (%d × %d steps against %d)", tc.n, got, tc.want, 4, steps, T)
		}
	}
}

// The monitor ends Part I after its patience runs out, except on a schedule
// that anneals the rate (cosine, one-cycle): there it runs to the end and
// goes back to the latest good parameters only if the last ones score below
// the noise band.
func TestMonitorAnnealing(t *testing.T) {
	rising := []float64{0.90, 0.95, 0.93, 0.92, 0.92, 0.93, 0.92, 0.96, 0.97}
	falling := []float64{0.90, 0.95, 0.93, 0.92, 0.92, 0.93, 0.92, 0.96, 0.90}
	for _, tc := range []struct {
		schedule string
		scores   []float64
		stop     int // the check that ends Part I
		steps    int // notes.steps: the step of the parameters kept
	}{
		{"invt", rising, 5, 1},
		{"onecycle", rising, 8, 8},
		{"cosine", rising, 8, 8},
		{"onecycle", falling, 8, 7},
	} {
		scores := tc.scores
		t.Run(tc.schedule, func(t *testing.T) {
			net, err := nn.New("dense(2)", []int{3}, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			d := &fitData{task: model.Classification}
			r := &recipe{}
			r.preset.Alg4.T = len(scores) - 1
			r.preset.Alg4.Opt.Schedule = tc.schedule
			var notes fitNotes
			mo := &monitor{ctx: context.Background(), r: r, net: net, ts: subProblem{d: d, n: 2000}, vs: subProblem{d: d, n: 2000},
				notes: &notes, best: math.Inf(-1), patience: 4}
			stop := -1
			for i, sc := range scores {
				net.Params()[0].W[0] = float32(i) // which step's parameters are kept
				if mo.update(i, sc) {
					stop = i
					break
				}
			}
			if stop != tc.stop || notes.steps != tc.steps || net.Params()[0].W[0] != float32(tc.steps) {
				t.Fatalf("stopped at check %d keeping step %d (parameters of step %g), want %d and %d", stop, notes.steps, net.Params()[0].W[0], tc.stop, tc.steps)
			}
		})
	}
}

// On an annealing schedule the monitor scores only the checks of the last
// quarter, and takes the score of a check right before the end again at
// the end; on any other schedule it scores every check.
func TestMonitorPlan(t *testing.T) {
	for _, tc := range []struct {
		schedule string
		T        int
		scored   []int // the steps scored (check calls at multiples of T/16, and T)
		reused   bool  // the check at T takes the latest score again
	}{
		{"onecycle", 625, []int{507, 546, 585, 624}, true},
		{"cosine", 640, []int{520, 560, 600, 640}, false},
		{"onecycle", 18750, []int{15223, 16394, 17565, 18736}, true},
		{"invt", 625, nil, false},
	} {
		t.Run(tc.schedule+strconv.Itoa(tc.T), func(t *testing.T) {
			r := &recipe{}
			r.preset.Alg4.T = tc.T
			r.preset.Alg4.Opt.Schedule = tc.schedule
			mo := &monitor{r: r}
			every := max(1, tc.T/monitorChecks)
			var scored []int
			reused, calls := false, 0
			for s := 1; s <= tc.T; s++ {
				if s%every != 0 && s != tc.T {
					continue
				}
				calls++
				switch mo.plan(s) {
				case checkScore:
					scored = append(scored, s)
					mo.lastT = s
				case checkReuse:
					if s != tc.T {
						t.Fatalf("check at %d of %d takes the latest score again", s, tc.T)
					}
					reused = true
				}
			}
			want := tc.scored
			if want == nil { // every check
				for s := every; s <= tc.T; s += every {
					want = append(want, s)
				}
				if tc.T%every != 0 {
					want = append(want, tc.T)
				}
			}
			if !slices.Equal(scored, want) || reused != tc.reused {
				t.Fatalf("%d checks: scored %v, reused at the end %v; want %v and %v", calls, scored, reused, want, tc.reused)
			}
		})
	}
}

// A network that cannot reach the best complete candidate's score, even
// gaining at its recent pace to the end, stops as pruned; one that can, or
// one on an annealing schedule, or one with no bar, trains on.
func TestMonitorHopeless(t *testing.T) {
	flat := []float64{0.88, 0.90, 0.905, 0.906, 0.907}
	for _, tc := range []struct {
		name     string
		schedule string
		task     string
		scores   []float64
		bar      float64 // 0: none
		stop     int     // the check that ends Part I as hopeless, −1: none
	}{
		{"far below", "invt", model.Classification, flat, 0.99, 2},
		{"within reach", "invt", model.Classification, flat, 0.93, -1},
		{"within noise", "invt", model.Classification, flat, 0.915, -1},
		{"no bar", "invt", model.Classification, flat, 0, -1},
		{"one-cycle", "onecycle", model.Classification, flat, 0.99, -1},
		{"regression", "invt", model.Regression, []float64{-3, -2.9, -2.85, -2.84}, -1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net, err := nn.New("dense(2)", []int{3}, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			d := &fitData{task: tc.task, metric: MetricAccuracy}
			if tc.task == model.Regression {
				d.metric = MetricRMSE
			}
			r := &recipe{}
			r.preset.Alg4.T = 160 // a check every 10 steps
			r.preset.Alg4.Opt.Schedule = tc.schedule
			var notes fitNotes
			mo := &monitor{ctx: context.Background(), r: r, net: net, ts: subProblem{d: d, n: 2000}, vs: subProblem{d: d, n: 2000},
				notes: &notes, best: math.Inf(-1), patience: 100}
			if tc.bar != 0 {
				mo.bar = &bar{Score: tc.bar, Name: "the best"}
			}
			stop := -1
			for i, sc := range tc.scores {
				if mo.update(10*(i+1), sc) {
					stop = i
					break
				}
			}
			if stop != tc.stop || (stop >= 0) != (notes.pruned != "") {
				t.Fatalf("stopped at check %d (pruned %q), want %d", stop, notes.pruned, tc.stop)
			}
			if stop >= 0 && !strings.Contains(notes.pruned, "short of the best's ") {
				t.Errorf("pruned: %q", notes.pruned)
			}
			t.Logf("%s", notes.pruned)
		})
	}
}

// A network's recipe reads its rows from the caller's data, scaled a batch
// at a time, instead of a scaled copy of them: the race, Part I, the
// monitor, the head's choice and its inputs come out bit for bit as they
// do from a copy, and the parts of the rows stay views without rows.
func TestLazyRows(t *testing.T) {
	defer func(s float64, b int) { raceShare, lazyBlock = s, b }(raceShare, lazyBlock)
	raceShare, lazyBlock = math.Inf(1), 7 // the race runs; features in blocks of 7 rows
	ds := strokes(600, 4)
	c := &FitConfig{KeepInputs: true, Steps: 0}
	d, err := prepare(ds, c)
	if err != nil {
		t.Fatal(err)
	}
	train := d.all()[50:]
	for _, scaling := range []string{ScaleGlobal, ScaleStandardize} {
		r, err := autoNSVM(d, c, model.OneVsOne, cnnArch(d.shape), true)
		if err != nil {
			t.Fatal(err)
		}
		r.scaling = scaling
		cp, lz := d.subProblem(scaling, train), d.lazySubProblem(scaling, train)
		ref := d.rows(train) // the rows copied, then scaled all at once
		lz.sc.apply(ref, d.d)
		if lz.x != nil || lz.src == nil || cp.src != nil || !slices.Equal(lz.dense().x, ref) || !slices.Equal(cp.x, ref) {
			t.Fatalf("%s: the lazy rows are not the copy's", scaling)
		}
		r1, h1 := cp.splitInPlace(0.2, rand.New(rand.NewPCG(7, 7)))
		r2, h2 := lz.splitInPlace(0.2, rand.New(rand.NewPCG(7, 7)))
		if !slices.Equal(r1.idx, r2.idx) || !slices.Equal(h1.idx, h2.idx) || !slices.Equal(cp.idx, lz.idx) ||
			!slices.Equal(r2.dense().x, r1.x) || !slices.Equal(h2.dense().x, h1.x) || r2.x != nil || h2.part(seq(3)).x != nil {
			t.Fatalf("%s: lazy splitInPlace differs from the copy's", scaling)
		}
		var ms [2]*model.Model
		for k, sp := range []subProblem{d.subProblem(scaling, train), d.lazySubProblem(scaling, train)} {
			tr, err := r.fitNSVM(context.Background(), sp, 5, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			tr.m.Net.Trim()
			ms[k] = tr.m
			if tr.notes.race == "" || strings.HasPrefix(tr.notes.race, "not run") {
				t.Fatalf("%s: the race did not run: %q", scaling, tr.notes.race)
			}
		}
		if !slices.Equal(modelBytes(t, ms[0]), modelBytes(t, ms[1])) {
			t.Fatalf("%s: the model from lazy rows differs from the model from a copy", scaling)
		}
		if hs := ms[1].Heads; len(hs) == 0 || hs[0].Inputs == nil {
			t.Fatalf("%s: the lazy model kept no inputs", scaling)
		}
	}
}

// An image model averages its features over the one-pixel shifts when Part
// I trained on shifted images and the held-out score says so (the scores
// are recorded and the choice follows them), or as TestAugment pins it;
// not after Part I without shifts, nor on data that are not images.
func TestTestShift(t *testing.T) {
	ds := strokes(900, 1)
	fit := func(c FitConfig) *model.Model { t.Helper(); return fitCNN(t, ds, c) }
	// Noisy strokes, where the held-out scores differ: the choice
	// follows them.
	for _, noise := range []float64{0.6, 0.9} {
		nds := strokes(900, 1)
		rng := rand.New(rand.NewPCG(5, 5))
		for i := range nds.X {
			nds.X[i] += float32(noise * rng.NormFloat64())
		}
		m := fitCNN(t, nds, FitConfig{})
		var rows int
		var none, shift float64
		if _, err := fmt.Sscanf(m.Info["test_shift_race"], "%d rows: none=%g shift=%g", &rows, &none, &shift); err != nil || rows < 1 || none == shift {
			t.Fatalf("noise %g: test_shift_race %q: %v", noise, m.Info["test_shift_race"], err)
		}
		t.Logf("noise %g: test_shift_race %s → TestShift %d", noise, m.Info["test_shift_race"], m.TestShift)
		if want := map[bool]int{true: 1, false: 0}[shift > none]; m.TestShift != want || m.Info["augment"] != "shift" {
			t.Fatalf("scores none=%g shift=%g after augment %q: TestShift %d, want %d", none, shift, m.Info["augment"], m.TestShift, want)
		}
	}
	for _, c := range []struct {
		cfg  FitConfig
		want int
	}{
		{FitConfig{TestAugment: "shift"}, 1},
		{FitConfig{TestAugment: "none"}, 0},
		{FitConfig{Augment: "none"}, 0},
		{FitConfig{Augment: "flip"}, 0},
	} {
		p := fit(c.cfg)
		if p.TestShift != c.want || p.Info["test_shift_race"] != "" {
			t.Errorf("%+v: TestShift %d (want %d), test_shift_race %q", c.cfg, p.TestShift, c.want, p.Info["test_shift_race"])
		}
	}
	var ce *ConfigError
	if _, err := Fit(context.Background(), threeClasses(200, 4, 1), &FitConfig{TestAugment: "shift"}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "images") {
		t.Errorf("test-time shifts on rows that are not images: %v", err)
	}
	tiny := &data.Dataset{X: make([]float32, 40*4), Y: make([]float64, 40), N: 40, D: 4, Shape: []int{1, 2, 2}}
	for i := range tiny.N {
		tiny.Y[i] = float64(i % 2)
		tiny.X[i*4+i%4] = 1
	}
	if _, err := Fit(context.Background(), tiny, &FitConfig{TestAugment: "shift"}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "2 pixels") {
		t.Errorf("test-time shifts on 2×2 images: %v", err)
	}
}

// A shifted training image's uncovered pixels are black as the rows are
// scaled (the scaled value of 0), not the scaled zero (the mean pixel):
// the image moved as given, as the test-time shifts move it.
func TestShiftBorder(t *testing.T) {
	ds := strokes(60, 1)
	d, err := prepare(ds, &FitConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{ScaleGlobal, ScaleStandardize} {
		s := d.subProblem(mode, d.all())
		black := s.sc.black(d.d)
		for j, v := range black {
			if want := float32(-s.sc.mean[j] / s.sc.std[j]); v != want || v == 0 {
				t.Fatalf("%s: black pixel %d scaled %g, want %g", mode, j, v, want)
			}
		}
		x := slices.Clone(s.x)
		part1Arm{augment: "shift"}.augmenter(d.shape, black)(x, s.n, rand.New(rand.NewPCG(1, 2)))
		moved := 0
		for r := range s.n {
			img, orig := x[r*64:(r+1)*64], s.x[r*64:(r+1)*64]
			found := false
			for dy := -1; dy <= 1 && !found; dy++ {
				for dx := -1; dx <= 1 && !found; dx++ {
					want := make([]float32, 64)
					nn.ShiftImages(want, orig, 1, 1, 8, 8, dy, dx, black)
					if slices.Equal(img, want) {
						found = true
						if dy != 0 || dx != 0 {
							moved++
						}
					}
				}
			}
			if !found {
				t.Fatalf("%s: image %d is no shift of its original with a black border", mode, r)
			}
		}
		if moved == 0 {
			t.Fatalf("%s: no image moved", mode)
		}
	}
	if (scaler{}).black(64) != nil {
		t.Error("black of no scaling is not nil (zeros)")
	}
}
