package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
)

// runCmd runs a command line in this process (the pipelines on prism).
func runCmd(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, out.String() + errOut.String()
}

// writeLIBSVM writes ds to dir/name.
func writeLIBSVM(t *testing.T, dir, name string, ds *data.Dataset, extra string) string {
	t.Helper()
	var b bytes.Buffer
	if err := data.WriteLIBSVM(&b, ds); err != nil {
		t.Fatal(err)
	}
	b.WriteString(extra)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCommands: predict writes its two outputs and counts the rows; train
// writes Fit's model; bad command lines exit 2 and bad inputs 1, each with
// one message.
func TestCommands(t *testing.T) {
	dir := t.TempDir()
	// The commands leave nothing in the temporary directory (Beam's
	// loopback runner leaves a file a pipeline there; see beamio.PrivateTemp).
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	defer func() {
		if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
			t.Errorf("left in the temporary directory: %v %v", left, err)
		}
	}()
	ring := func(n int, seed uint64) *data.Dataset { return datasets.Ringnorm(n, rand.New(rand.NewPCG(seed, seed))) }
	trainPath := writeLIBSVM(t, dir, "train.libsvm", ring(200, 1), "")
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	writeLIBSVM(t, in, "a.libsvm", ring(30, 2), "")
	writeLIBSVM(t, in, "b.libsvm", ring(20, 3), "1 3:oops\n")

	model := filepath.Join(dir, "model.nsvm")
	if code, out := runCmd(t, "train", "--data", trainPath, "--model", model, "--seed", "3", "--folds", "3"); code != 0 {
		t.Fatalf("train: exit %d: %s", code, out)
	}
	ds, err := data.Open(trainPath, data.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := nsvm.Fit(context.Background(), ds, &nsvm.FitConfig{Seed: 3, Folds: 3})
	if err != nil {
		t.Fatal(err)
	}
	wantPath := filepath.Join(dir, "want.nsvm")
	if err := want.Save(wantPath); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(model)
	b, _ := os.ReadFile(wantPath)
	if !bytes.Equal(a, b) {
		t.Error("nsvm-beam train wrote another model than Fit")
	}

	prefix := filepath.Join(dir, "out", "scores")
	os.Mkdir(filepath.Dir(prefix), 0o755)
	code, out := runCmd(t, "predict", "--model", model, "--input", filepath.Join(in, "*.libsvm"), "--output", prefix)
	if code != 0 || !strings.Contains(out, "scored 50 rows") || !strings.Contains(out, "1 bad rows") {
		t.Fatalf("predict: exit %d: %s", code, out)
	}
	preds, _ := os.ReadFile(prefix + ".predictions.tsv")
	bad, _ := os.ReadFile(prefix + ".bad.tsv")
	if n := strings.Count(string(preds), "\n"); n != 50 {
		t.Errorf("%d predictions, want 50", n)
	}
	if !strings.HasPrefix(string(bad), filepath.Join(in, "b.libsvm")+"\t21\t") || strings.Count(string(bad), "\n") != 1 {
		t.Errorf("dead letters %q", bad)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "Commands:"},
		{[]string{"--help"}, 0, "predict  score the rows"},
		{[]string{"fit"}, 2, "unknown command"},
		{[]string{"predict", "--model", model}, 2, "needs --model, --input and --output"},
		{[]string{"predict", "--model", model, "--input", in + "/*", "--output", prefix, "--header", "maybe"}, 2, "--header"},
		{[]string{"predict", "--model", filepath.Join(dir, "none.nsvm"), "--input", in + "/*", "--output", prefix}, 1, "none.nsvm"},
		{[]string{"predict", "--model", model, "--input", filepath.Join(dir, "nothing-*"), "--output", prefix}, 1, "no files match"},
		{[]string{"predict", "--model", model, "--input", in + "/*", "--output", prefix, "--probability"}, 1, "no probability calibration"},
		// A local output's directory is made, as Beam's local file system makes it.
		{[]string{"predict", "--model", model, "--input", in + "/*", "--output", filepath.Join(dir, "no", "dir", "x")}, 0, "predictions: " + filepath.Join(dir, "no", "dir", "x.predictions.tsv")},
		{[]string{"predict", "--model", model, "--input", in + "/*", "--output", filepath.Join(model, "x")}, 1, "cannot write"},
		{[]string{"train", "--data", trainPath}, 2, "needs --data and --model"},
		{[]string{"train", "--data", trainPath, "--model", model, "--folds", "0"}, 2, "--folds"},
		{[]string{"train", "--data", filepath.Join(dir, "none.libsvm"), "--model", model}, 1, "none.libsvm"},
	} {
		code, out := runCmd(t, c.args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%q: exit %d, %q; want exit %d and %q", c.args, code, out, c.code, c.want)
		}
	}
}
