package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/search"
	"github.com/nsvm-go/nsvm/svm"
)

// TestFitLinesPhases: the "done" report of a fit writes where its time went
// (a line per phase with its work and memory, the candidates' share of
// each, the total, the work by kind) unless quiet or cross-validating, and
// keeps the phases for the summary's JSON either way.
func TestFitLinesPhases(t *testing.T) {
	phases := []search.Phase{
		{Name: "prepare", Seconds: 0.25},
		{Name: "linear C paths", Seconds: 3, Candidates: 5, CandidateSeconds: 2.5, Work: search.Work{KernelEvals: 1000, KernelMACs: 20000}, RSSMB: 120},
		{Name: "final fit", Seconds: 1.25, Work: search.Work{ConvForward: 3e9, ConvBackward: 6e9, DenseForward: 1e6}, RSSMB: 300},
	}
	for _, c := range []struct {
		name         string
		quiet, folds bool
	}{{"lines", false, false}, {"quiet", true, false}, {"folds", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			r := &FitLines{W: &b, Quiet: c.quiet, Folds: c.folds}
			r.Update(search.FitProgress{Stage: "done", Phases: phases})
			if len(r.Phases) != 3 {
				t.Fatalf("kept %d phases", len(r.Phases))
			}
			out := b.String()
			if c.quiet || c.folds {
				if out != "" {
					t.Errorf("wrote %q", out)
				}
				return
			}
			for _, want := range []string{"where the time went (4.50s, 9G multiply-adds)", "linear C paths", "20k    120 MB  5 candidates 2.50s, the rest 0.50s", "final fit",
				"conv 3G forward, 6G backward; dense 1M forward, 0 backward; kernel 20k (1k evaluations)"} {
				if !strings.Contains(out, want) {
					t.Errorf("no %q in\n%s", want, out)
				}
			}
			if strings.Count(out, "\n") != 5 {
				t.Errorf("%d lines:\n%s", strings.Count(out, "\n"), out)
			}
		})
	}
	js, err := json.Marshal(FitSummary{Phases: phases})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"phases":[{"name":"prepare","seconds":0.25,`) || !strings.Contains(string(js), `"candidate_seconds":2.5`) ||
		!strings.Contains(string(js), `"conv_backward_macs":6000000000`) || !strings.Contains(string(js), `"rss_mb":300`) {
		t.Errorf("JSON %s", js)
	}
}

// TestDescribeContinued: nsvm info says what a continued model has seen
// and whether its network has stopped.
func TestDescribeContinued(t *testing.T) {
	m := &model.Model{Algorithm: "nsvm4", Head: &svm.Model{Kernel: kernel.Spec{Name: "rbf", Gamma: 1}, D: 2, SV: []float32{1, 2}, NSV: 1, Coef: []float64{1}},
		Info: map[string]string{search.InfoSeenChunks: "12", search.InfoSeenRows: "24000", search.InfoSeenUpdates: "30000"}}
	for _, frozen := range []bool{false, true} {
		if frozen {
			m.Info[search.InfoNetworkFrozen] = "90/10000"
		}
		r := DescribeModel(m, "")
		var b strings.Builder
		r.WriteText(&b)
		if r.Seen == nil || r.Seen.Chunks != 12 || r.Seen.Rows != 24000 || r.Seen.NetworkStopped != frozen {
			t.Fatalf("frozen %v: seen %+v", frozen, r.Seen)
		}
		if got := strings.Contains(b.String(), "network:") && strings.Contains(b.String(), "stopped"); got != frozen {
			t.Errorf("frozen %v, the text says otherwise:\n%s", frozen, b.String())
		}
		if strings.Contains(b.String(), search.InfoNetworkFrozen) {
			t.Errorf("the metadata key is listed besides the line:\n%s", b.String())
		}
		// nsvm train --continue's summary says it too.
		var f strings.Builder
		FitSummary{Algo: "nsvm4", Continued: "budgeted kernel pegasos", SeenRows: 24000, SeenChunks: 12, NetworkStopped: frozen}.WriteText(&f)
		if got := strings.Contains(f.String(), "network has stopped"); got != frozen {
			t.Errorf("frozen %v, nsvm train's summary says otherwise:\n%s", frozen, f.String())
		}
	}
}

// TestDescribeTestShift: nsvm info says when a model's features average
// shifted copies of each image, and its JSON gives the shift.
func TestDescribeTestShift(t *testing.T) {
	net, err := nn.New("conv(2,3),flatten", []int{1, 6, 6}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Model{Algorithm: "nsvm4", Net: net, Head: &svm.Model{Kernel: kernel.Spec{Name: "linear"}, D: net.OutSize()}, Info: map[string]string{}}
	for _, s := range []int{0, 1} {
		m.TestShift = s
		r := DescribeModel(m, "")
		var b strings.Builder
		r.WriteText(&b)
		js, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Contains(b.String(), "the mean over 9 copies of each image, moved by up to 1 pixel")
		if text != (s == 1) || strings.Contains(string(js), `"test_shift":1`) != (s == 1) {
			t.Errorf("TestShift %d:\n%s\n%s", s, b.String(), js)
		}
	}
}
