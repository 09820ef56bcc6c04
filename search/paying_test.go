package search

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/model"
)

// TestNetworkFrozen checks the rule on histories whose answer is clear: the
// errors still falling, level, and rising again after a stop.
func TestNetworkFrozen(t *testing.T) {
	chunks := func(errs ...int) []chunkErrs {
		cs := make([]chunkErrs, len(errs))
		for i, e := range errs {
			cs[i] = chunkErrs{e, 2000}
		}
		return cs
	}
	for _, tc := range []struct {
		name   string
		hist   []chunkErrs
		was    bool
		ref    chunkErrs
		frozen bool
		kept   int
	}{
		{"too-few-chunks", chunks(40, 40, 40, 40, 40, 40, 40, 40, 40), false, chunkErrs{}, false, 9},
		{"falling", chunks(60, 58, 55, 57, 52, 40, 42, 38, 41, 39), false, chunkErrs{}, false, 10},
		{"level", chunks(40, 38, 42, 41, 39, 40, 41, 37, 42, 40), false, chunkErrs{}, true, 10},
		{"rising", chunks(30, 30, 30, 30, 30, 40, 45, 41, 44, 42), false, chunkErrs{}, true, 10},
		{"no-errors", chunks(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), false, chunkErrs{}, true, 10},
		{"trimmed", chunks(90, 90, 90, 60, 58, 55, 57, 52, 40, 42, 38, 41, 39), false, chunkErrs{}, false, 10},
		{"frozen-stays", chunks(40, 38, 42, 41, 39, 40, 41, 37, 42, 44), true, chunkErrs{200, 10000}, true, 10},
		{"frozen-drift", chunks(40, 38, 42, 41, 39, 80, 90, 85, 95, 100), true, chunkErrs{200, 10000}, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frozen, hist, ref := networkFrozen(tc.hist, tc.was, tc.ref)
			if frozen != tc.frozen || len(hist) != tc.kept {
				t.Fatalf("frozen %v keeping %d chunks, want %v keeping %d", frozen, len(hist), tc.frozen, tc.kept)
			}
			if frozen && ref.rows == 0 || !frozen && ref.rows != 0 {
				t.Fatalf("frozen %v with the reference window %v", frozen, ref)
			}
		})
	}
	if got := parseChunkErrs(formatChunkErrs(chunks(3, 0, 7))); len(got) != 3 || got[2] != (chunkErrs{7, 2000}) {
		t.Fatalf("the history does not survive its text: %v", got)
	}
	for _, bad := range []string{"3", "3/x", "-1/5", "6/5", "1/2,,x"} {
		if got := parseChunkErrs(bad); got != nil {
			t.Errorf("parseChunkErrs(%q) = %v, want none", bad, got)
		}
	}
}

// TestContinueStopsTheNetwork: an NSVM continued over chunks of one
// distribution records its errors on each new chunk, and once they level
// off its network stops taking steps (its parameters stay as they are)
// while its head goes on learning; when the classes then swap sides, the
// network learns again. A model with a window never stops.
func TestContinueStopsTheNetwork(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	tr := datasets.Ringnorm(400, rng)
	m, err := Fit(t.Context(), tr, &FitConfig{Algorithm: "nsvm4", Arch: "dense(16),relu,dense(8),relu", Steps: 100, Solver2: "smo", C: 1, KeepInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	netSteps := func(m *model.Model) int {
		v, _ := strconv.Atoi(m.Info[infoNetSteps])
		return v
	}
	flip := func(ds *data.Dataset) *data.Dataset {
		for i := range ds.Y {
			ds.Y[i] = 3 - ds.Y[i] // Ringnorm's classes are 1 and 2
		}
		return ds
	}
	cfg := &ContinueConfig{Budget: 200, Seed: 3}
	frozenAt := -1
	c := m
	for k := range 40 {
		before := netSteps(c)
		if c, err = Continue(t.Context(), c, datasets.Ringnorm(300, rng), cfg); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Info[InfoNetworkFrozen]; ok {
			if netSteps(c) != before {
				t.Fatalf("chunk %d: the network took steps while frozen", k)
			}
			frozenAt = k
			break
		}
		if netSteps(c) == before {
			t.Fatalf("chunk %d: the network took no steps and is not frozen", k)
		}
	}
	if frozenAt < 2*payWindow-1 {
		t.Fatalf("the network stopped at chunk %d, want it stopped and not before chunk %d", frozenAt, 2*payWindow-1)
	}
	// Frozen, the network's features do not move, and the head still learns.
	still := c
	c, err = Continue(t.Context(), still, datasets.Ringnorm(300, rng), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range c.Net.Params() {
		if q := still.Net.Params()[i]; !slices.Equal(p.W, q.W) {
			t.Fatal("a frozen network's parameters changed")
		}
	}
	if c.Info[InfoSeenUpdates] == still.Info[InfoSeenUpdates] {
		t.Fatal("the head took no steps")
	}
	// The classes swap sides: the errors rise and the network learns again.
	resumed := false
	for range 2 * payWindow {
		before := netSteps(c)
		if c, err = Continue(t.Context(), c, flip(datasets.Ringnorm(300, rng)), cfg); err != nil && !errors.Is(err, ErrChanceLevel) {
			t.Fatal(err)
		}
		if netSteps(c) > before {
			resumed = true
			break
		}
	}
	if !resumed {
		t.Fatal("the network did not learn again after the classes swapped sides")
	}
	// With a window, every chunk steps the network.
	w := m
	for k := range 2*payWindow + 2 {
		before := netSteps(w)
		if w, err = Continue(t.Context(), w, datasets.Ringnorm(300, rng), &ContinueConfig{Budget: 200, Seed: 3, Window: 2000}); err != nil {
			t.Fatal(err)
		}
		if netSteps(w) == before || w.Info[InfoNetworkFrozen] != "" {
			t.Fatalf("chunk %d with a window: the network took no steps", k)
		}
	}
}

// TestContinueKeepsTheChosenRate: the first continuation of an NSVM
// chooses its learning rate among the first fit's and a tenth and a
// hundredth of it, keeps the winning copy of the network, trained on four
// fifths of its rows, and takes its steps on the held-out fifth with it
// (two passes of batches: more steps than one pass over all the rows when
// the batches do not divide them); the next continuation keeps the rate
// and takes one pass.
func TestContinueKeepsTheChosenRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	m, err := Fit(t.Context(), datasets.Ringnorm(400, rng), &FitConfig{Algorithm: "nsvm4", Arch: "dense(16),relu,dense(8),relu", Steps: 100, Solver2: "smo", C: 1, KeepInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	batch := infoInt(m, "batch", 0)
	const n = 330 // a fifth of 66 rows
	if batch < 2 || (n-n/5)%batch == 0 || (n/5)%batch == 0 {
		t.Fatalf("batch %d: the test needs batches that divide neither part", batch)
	}
	ceil := func(a int) int { return (a + batch - 1) / batch }
	cfg := &ContinueConfig{Budget: 200, Seed: 3}
	c1, err := Continue(t.Context(), m, datasets.Ringnorm(n, rng), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := infoInt(c1, infoNetSteps, 0), ceil(n-n/5)+ceil(n/5); got != want {
		t.Fatalf("the first continuation took %d network steps, want %d (four fifths, then the held-out fifth)", got, want)
	}
	lr0, lr := infoFloat(m, "lr"), infoFloat(c1, infoContinueLR)
	if !slices.ContainsFunc(lrCandidates, func(f float64) bool { return math.Abs(lr-lr0*f) <= 1e-12*lr0 }) {
		t.Fatalf("continue_lr %g is not a candidate fraction of the first fit's %g", lr, lr0)
	}
	c2, err := Continue(t.Context(), c1, datasets.Ringnorm(n, rng), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := infoInt(c2, infoNetSteps, 0)-infoInt(c1, infoNetSteps, 0), ceil(n); got != want {
		t.Fatalf("the second continuation took %d network steps, want %d (one pass)", got, want)
	}
	if infoFloat(c2, infoContinueLR) != lr {
		t.Fatalf("the second continuation's rate %s is not the first's %g", c2.Info[infoContinueLR], lr)
	}
}
