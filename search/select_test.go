package search

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/svm"

	"github.com/nsvm-go/nsvm/data/datasets"
)

// workerExec is an Executor that hands every task, encoded as it travels,
// to worker in parallel goroutines, and counts the tasks by round.
type workerExec struct {
	worker *Search
	mu     sync.Mutex
	rounds []int
}

func (w *workerExec) run(ctx context.Context, tasks [][]byte) ([][]byte, error) {
	w.mu.Lock()
	w.rounds = append(w.rounds, len(tasks))
	w.mu.Unlock()
	out := make([][]byte, len(tasks))
	errs := make([]error, len(tasks))
	var wg sync.WaitGroup
	// Last task first: the order of the tasks must not matter.
	for i := len(tasks) - 1; i >= 0; i-- {
		wg.Go(func() { out[i], errs[i] = w.worker.Score(ctx, slices.Clone(tasks[i])) })
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// TestSearchRunMatchesFit: a search whose tasks are scored by another
// Search (a worker's, made from a copy of the data) gives Fit's model file
// byte for byte, for the SVM grid with its refinement, the networks' race,
// the linear SVM's C paths, the candidates trained one at a time, and the
// decision values of the probability calibration.
func TestSearchRunMatchesFit(t *testing.T) {
	cases := []struct {
		name string
		ds   *data.Dataset
		cfg  FitConfig
	}{
		{"grid+nets", ringData(520, 5), FitConfig{Seed: 3, Folds: 2}},
		{"linear paths", shellsData(240, 5, 3, 4), FitConfig{Seed: 1, Algorithm: "linear"}},
		// Sparse text: the C paths of both losses in one task, then the
		// kernel probe here (it prunes the grid).
		{"sparse text", textLike(1600, 20000, 8, 40, 30, 0.3, 31), FitConfig{Seed: 2}},
		// The paths climb and are refined (rows scaled by 1/10).
		{"sparse climb", scaled(textLike(1200, 20000, 8, 40, 30, 0.3, 32), 0.1), FitConfig{Seed: 2, Algorithm: "linear"}},
		// The mean of the two losses, pinned, on its own C path.
		{"pinned blend", sparseText(1000, 20000, 5, 4, 12), FitConfig{Seed: 1, LinearLoss: "l2+l1"}},
		{"pegasos jobs", ringData(200, 6), FitConfig{Seed: 2, Algorithm: "pegasos"}},
		{"probability", shellsData(200, 4, 2, 7), FitConfig{Seed: 5, Probability: true}},
		{"linear probability", shellsData(200, 4, 3, 8), FitConfig{Seed: 6, Algorithm: "linear", Probability: true}},
		{"regression", datasets.Friedman1(200, 1, rand.New(rand.NewPCG(8, 1))), FitConfig{Seed: 4}},
		// A hold-out of 2100 rows: the grid scores a sample of it, the
		// best are scored again on all of it, paired row by row.
		{"hold-out", ringData(10100, 5), FitConfig{Seed: 3, Folds: 1, Algorithm: "smo", Scaling: ScaleStandardize, Gamma: 0.05}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := Fit(context.Background(), c.ds, &c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			driver, err := NewSearch(c.ds, &c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			copied := *c.ds
			copied.X, copied.Y = slices.Clone(c.ds.X), slices.Clone(c.ds.Y)
			if c.ds.Sparse != nil {
				sp := *c.ds.Sparse
				sp.Ptr, sp.Idx, sp.Val = slices.Clone(sp.Ptr), slices.Clone(sp.Idx), slices.Clone(sp.Val)
				copied.Sparse = &sp
			}
			worker, err := NewSearch(&copied, &c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(driver.Candidates(), worker.Candidates()) || len(driver.Candidates()) < 2 {
				t.Fatalf("candidates %q and %q", driver.Candidates(), worker.Candidates())
			}
			ex := &workerExec{worker: worker}
			got, err := driver.Run(context.Background(), ex.run)
			if err != nil {
				t.Fatal(err)
			}
			if len(ex.rounds) == 0 {
				t.Fatal("no task was handed out")
			}
			if !bytes.Equal(modelBytes(t, got), modelBytes(t, want)) {
				t.Errorf("the model differs from Fit's; selection %+v, Fit's %+v", got.Selection, want.Selection)
			}
			if c.name == "grid+nets" {
				// The MLP stops as hopeless on both sides: the bar
				// travels with the task.
				pruned := 0
				for _, cs := range got.Selection.Candidates {
					if strings.HasPrefix(cs.Err, "pruned: at step ") {
						pruned++
					}
				}
				if pruned == 0 {
					t.Errorf("no network stopped as hopeless: %+v", got.Selection.Candidates[len(got.Selection.Candidates)-1])
				}
			}
			t.Logf("%d candidates, rounds %v", len(want.Selection.Candidates), ex.rounds)
		})
	}
}

// TestSearchRefusals: a task of another search, a task that is not one, a
// failing executor and one that loses results end in one clear error.
func TestSearchRefusals(t *testing.T) {
	ds := ringData(200, 9)
	s1, err := NewSearch(ds, &FitConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := NewSearch(ds, &FitConfig{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var first []byte
	_, err = s1.Run(context.Background(), func(ctx context.Context, tasks [][]byte) ([][]byte, error) {
		first = tasks[0]
		return nil, errors.New("the cluster is down")
	})
	if err == nil || !strings.Contains(err.Error(), "the cluster is down") {
		t.Fatalf("failing executor: error %v", err)
	}
	if _, err := s2.Score(context.Background(), first); err == nil || !strings.Contains(err.Error(), "other data or another configuration") {
		t.Errorf("task of another search: error %v", err)
	}
	if _, err := s1.Score(context.Background(), first); err != nil {
		t.Errorf("task of its own search: %v", err)
	}
	if _, err := s1.Score(context.Background(), []byte("not a task")); err == nil {
		t.Error("garbage scored")
	}
	_, err = s1.Run(context.Background(), func(ctx context.Context, tasks [][]byte) ([][]byte, error) {
		return make([][]byte, len(tasks)-1), nil
	})
	if err == nil || !strings.Contains(err.Error(), "results for") {
		t.Errorf("lost results: error %v", err)
	}
	if _, err := s1.Run(context.Background(), nil); !errors.Is(err, ErrBadConfig) {
		t.Errorf("no executor: error %v", err)
	}
}

// TestSearchWithoutSelection: a pinned configuration and a one-class SVM
// have nothing to hand out; Run trains them here as Fit does.
func TestSearchWithoutSelection(t *testing.T) {
	ds := ringData(150, 4)
	for _, cfg := range []FitConfig{
		{Seed: 1, Algorithm: "smo", C: 1, Gamma: 0.1, Scaling: ScaleStandardize},
		{Seed: 1, SVMType: SVMOneClass},
	} {
		want, err := Fit(context.Background(), ds, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSearch(ds, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Run(context.Background(), func(context.Context, [][]byte) ([][]byte, error) {
			t.Error("a task was handed out")
			return nil, errors.New("no tasks expected")
		})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(modelBytes(t, got), modelBytes(t, want)) {
			t.Errorf("%+v: the model differs from Fit's", cfg)
		}
	}
}

// TestKernelMemory: the fits running at once, one a core, share the
// kernel memory (FitConfig.CacheMB, default svm.DefaultCacheMB); a fit on
// every core has it all; none gets less than 16 MB unless the whole is
// less.
func TestKernelMemory(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, c := range []struct {
		cache, workers, want int
	}{
		{0, 1, svm.DefaultCacheMB / 4}, {0, 2, svm.DefaultCacheMB / 2}, {0, 0, svm.DefaultCacheMB}, {0, 8, svm.DefaultCacheMB},
		{400, 1, 100}, {40, 1, 16}, {8, 1, 8}, {8, 0, 8},
	} {
		cfg := FitConfig{CacheMB: c.cache}
		if got := cfg.cacheMB(c.workers); got != c.want {
			t.Errorf("CacheMB %d, %d workers of 4: %d MB, want %d", c.cache, c.workers, got, c.want)
		}
	}
}

// TestNetRounds: networks on an annealing schedule, which are never
// pruned, train first, so that the others are scored against them; the
// order within each group is kept.
func TestNetRounds(t *testing.T) {
	net := func(name, schedule string) *candResult {
		r := &recipe{name: name}
		r.preset.Alg4.Opt.Schedule = schedule
		return &candResult{r: r}
	}
	names := func(rounds [][]*candResult) string {
		var out []string
		for _, rd := range rounds {
			var ns []string
			for _, cr := range rd {
				ns = append(ns, cr.r.name)
			}
			out = append(out, strings.Join(ns, "+"))
		}
		return strings.Join(out, " ")
	}
	crs := []*candResult{net("mlp", "invt"), net("cnn", "onecycle"), net("mlp2", ""), net("cos", "cosine")}
	for _, tc := range []struct {
		crs  []*candResult
		w    int
		want string
	}{
		{crs, 1, "cnn cos mlp mlp2"},
		{crs, 2, "cnn+cos mlp+mlp2"},
		{crs[:1], 2, "mlp"},
		{crs[1:2], 1, "cnn"},
		{crs[2:], 3, "cos mlp2"},
		{nil, 1, ""},
	} {
		if got := names(netRounds(tc.crs, tc.w)); got != tc.want {
			t.Errorf("netRounds(%d networks, w=%d) = %q, want %q", len(tc.crs), tc.w, got, tc.want)
		}
	}
}
