package nsvmbeam

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
)

// sklearnData is where Debian's scikit-learn keeps its small data sets;
// the tests read them there and skip when they are missing.
const sklearnData = "/usr/lib/python3/dist-packages/sklearn/datasets/data"

// testRunner runs pipelines as the tests' pipelines run (prism).
func testRunner(_ context.Context, p *beam.Pipeline) (beam.PipelineResult, error) {
	return ptest.RunWithMetrics(p)
}

// savedBytes saves m in dir and returns the file's bytes.
func savedBytes(t *testing.T, m *nsvm.Model) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.nsvm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTrainMatchesFit: the selection scored by pipelines on prism gives
// the model file that nsvm.Fit (nsvm train) writes with the same data and
// seed, byte for byte: on breast_cancer (SVM grid, refinement, networks
// raced on the folds), on iris with probabilities (three classes,
// out-of-fold decision values), and on LIBSVM text.
func TestTrainMatchesFit(t *testing.T) {
	dir := t.TempDir()
	ring := datasets.Ringnorm(300, rand.New(rand.NewPCG(4, 4)))
	ringPath := filepath.Join(dir, "ring.libsvm")
	var b bytes.Buffer
	if err := data.WriteLIBSVM(&b, ring); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ringPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opt  TrainOptions
	}{
		{"breast_cancer", TrainOptions{Data: filepath.Join(sklearnData, "breast_cancer.csv"), Seed: 1}},
		{"iris probability", TrainOptions{Data: filepath.Join(sklearnData, "iris.csv"), Seed: 1, Probability: true}},
		{"ringnorm libsvm", TrainOptions{Data: ringPath, Seed: 7, Folds: 3, Work: filepath.Join(dir, "work")}},
	}
	os.Mkdir(filepath.Join(dir, "work"), 0o755)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.opt.Data); err != nil {
				t.Skipf("no %s", c.opt.Data)
			}
			ds, err := data.Open(c.opt.Data, data.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want, err := nsvm.Fit(context.Background(), ds, c.opt.config())
			if err != nil {
				t.Fatal(err)
			}
			var reports int
			got, err := Train(context.Background(), c.opt, testRunner, func(nsvm.FitProgress) { reports++ })
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(savedBytes(t, got), savedBytes(t, want)) {
				t.Errorf("the model differs from Fit's: selected %q, Fit %q", got.Info["selected"], want.Info["selected"])
			}
			if reports < len(want.Selection.Candidates) {
				t.Errorf("%d progress reports for %d candidates", reports, len(want.Selection.Candidates))
			}
		})
	}
	rounds, _ := filepath.Glob(filepath.Join(dir, "work", "round-*.txt"))
	if len(rounds) < 2 {
		t.Errorf("rounds written to the work directory: %q", rounds)
	}
}

// TestTrainErrors: unreadable data and a configuration that cannot work
// are errors before any pipeline runs.
func TestTrainErrors(t *testing.T) {
	for _, c := range []struct {
		opt  TrainOptions
		want string
	}{
		{TrainOptions{}, "no training data"},
		{TrainOptions{Data: filepath.Join(t.TempDir(), "missing.libsvm")}, "no such file"},
		{TrainOptions{Data: "x.libsvm", Folds: -1}, "Folds must be ≥ 0"},
	} {
		_, err := Train(context.Background(), c.opt, testRunner, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opt, err, c.want)
		}
	}
}
