package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/report"
)

// TestCheckpointDefault: --checkpoint without --checkpoint-every writes a
// checkpoint every T/20 steps, as the help says, and --resume from it ends
// with the model file of the uninterrupted run, byte for byte.
func TestCheckpointDefault(t *testing.T) {
	dir := t.TempDir()
	ring, ck := filepath.Join(dir, "ring.libsvm"), filepath.Join(dir, "ck")
	m1, m2 := filepath.Join(dir, "m1"), filepath.Join(dir, "m2")
	mustRun(t, "data", "ringnorm", "--n", "300", "--seed", "2", "--out", ring)
	mustRun(t, "train", "--algo", "nsvm1", "--data", ring, "--model", m1, "--steps", "400", "--checkpoint", ck, "--quiet")
	if _, err := os.Stat(ck); err != nil {
		t.Fatalf("no checkpoint written: %v", err)
	}
	mustRun(t, "train", "--algo", "nsvm1", "--data", ring, "--model", m2, "--steps", "400", "--resume", ck, "--quiet")
	a, _ := os.ReadFile(m1)
	b, _ := os.ReadFile(m2)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("the resumed run's model (%d bytes) differs from the uninterrupted run's (%d bytes)", len(b), len(a))
	}
}

// TestZeroConfigIsDefault: nsvm.Fit with a nil (zero) FitConfig trains the
// model nsvm train trains with no flag, byte for byte.
func TestZeroConfigIsDefault(t *testing.T) {
	dir := t.TempDir()
	ring, cli := filepath.Join(dir, "ring.csv"), filepath.Join(dir, "cli.nsvm")
	mustRun(t, "data", "ringnorm", "--n", "300", "--seed", "4", "--out", ring)
	mustRun(t, "train", "--data", ring, "--model", cli, "--quiet")
	ds, err := data.Open(ring, data.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := nsvm.Fit(context.Background(), ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(cli)
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("nsvm.Fit(ds, nil) wrote %d bytes (%s) that differ from nsvm train's %d (%s)", b.Len(), m.Info["selected"], len(want), cli)
	}
}

// TestLogAndJSONNames: the --log of a classical SVM's multiclass heads
// says algorithm 0 (a solver on fixed features), not 4; a one-class SVM's
// --json names its support vectors n_sv, as every other model's.
func TestLogAndJSONNames(t *testing.T) {
	dir := t.TempDir()
	three, logPath := filepath.Join(dir, "three.txt"), filepath.Join(dir, "run.jsonl")
	blobs3(t, three, 150, 2)
	mustRun(t, "train", "--algo", "smo", "--C", "1", "--gamma", "0.5", "--data", three, "--model", filepath.Join(dir, "m"), "--quiet", "--log", logPath)
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := report.ReadLog(f, logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Algorithm != 0 {
			t.Fatalf("record %+v: algorithm %d, want 0", r, r.Algorithm)
		}
	}
	js := decodeOne(t, mustRun(t, "train", "--svm-type", "one-class", "--data", three, "--model", filepath.Join(dir, "oc"), "--json"))
	if _, ok := js["n_sv"]; !ok {
		t.Fatalf("one-class --json %v has no n_sv", js)
	}
}

// TestInfo: nsvm info shows a model: its kind, classes, kernel, support
// vectors, training data and selection; --json the same as an object; an
// svm-train model file too; --model M is M; a missing or extra argument is
// a usage error.
func TestInfo(t *testing.T) {
	dir := t.TempDir()
	three, m := filepath.Join(dir, "three.txt"), filepath.Join(dir, "m.nsvm")
	blobs3(t, three, 150, 4)
	mustRun(t, "train", "--data", three, "--model", m, "--quiet")
	out := mustRun(t, "info", m)
	for _, want := range []string{"multiclass classifier (one-vs-one)", "classes:         1, 5, 9", "kernel:          rbf", "support vectors:", "training data:   sha256:", "150 rows", "selection:", "(* the winner, i the incumbent)"} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	if got := mustRun(t, "info", "--model", m); got != out {
		t.Errorf("info --model M differs from info M:\n%s", got)
	}
	js := decodeOne(t, mustRun(t, "info", "--json", m))
	if js["kind"] != "multiclass classifier (one-vs-one)" || js["support_vectors"].(float64) < 3 || js["selection"] == nil {
		t.Errorf("info --json: %v", js)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"info"}, 2, "give one model file"},
		{[]string{"info", m, m}, 2, "give one model file"},
		{[]string{"info", "--model", m, m}, 2, "give one model file"},
		{[]string{"info", filepath.Join(dir, "none")}, 1, "no such file"},
	} {
		if _, errs, code := runCLI(t, c.args...); code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, errs)
		}
	}
}
