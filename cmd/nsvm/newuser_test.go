package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/report"
	"github.com/nsvm-go/nsvm/search"
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

// TestLIBSVMHabits: svm-train's and svm-predict's options name nsvm's, and
// a bare data file is taken as --data.
func TestLIBSVMHabits(t *testing.T) {
	dir := t.TempDir()
	ring, m := filepath.Join(dir, "ring.libsvm"), filepath.Join(dir, "m.nsvm")
	mustRun(t, "data", "ringnorm", "--n", "200", "--seed", "3", "--out", ring)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--data", ring, "--model", m, "-c", "1"}, "nsvm train: -c is svm-train's; use --C"},
		{[]string{"train", "--data", ring, "--model", m, "-v", "5"}, "nsvm train: -v is svm-train's; use --cv"},
		{[]string{"train", "--data", ring, "--model", m, "-b", "1"}, "nsvm train: -b is svm-train's; use --probability"},
		{[]string{"train", "--data", ring, "--model", m, "-s", "0"}, "nsvm train: -s is svm-train's; use --svm-type"},
		{[]string{"train", "--data", ring, "--model", m, "-w1", "2"}, "nsvm train: -w1 is svm-train's; use --class-weight 1:W"},
		{[]string{"train", "--data", ring, "--model", m, "-h", "0"}, "nsvm train: -h 0 is svm-train's shrinking switch"},
		{[]string{"predict", "--data", ring, "--model", m, "-b", "1"}, "nsvm predict: -b is svm-predict's; use --probability"},
		{[]string{"train", ring, "other", "--model", m}, `nsvm train: unexpected argument "other" (the data file is --data FILE)`},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != 2 || !strings.HasPrefix(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, %q; want exit 2 and one line starting %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
	mustRun(t, "train", ring, "--model", m, "--algo", "smo", "--C", "1", "--quiet")
	if _, err := os.Stat(m); err != nil {
		t.Fatalf("a bare data file: %v", err)
	}
}

// TestLabelColumnFlag: --label-col takes a header name or an index, its
// help shows no sentinel, and a label taken for want of a name is named on
// stderr.
func TestLabelColumnFlag(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "churn.csv")
	var b strings.Builder
	b.WriteString("tenure,churn,age\n")
	for i := range 120 {
		fmt.Fprintf(&b, "%d.5,%d,%d\n", i%11+5*(i%2), i%2, 20+i%37)
	}
	os.WriteFile(csv, []byte(b.String()), 0o644)
	byName, byIndex := filepath.Join(dir, "a.nsvm"), filepath.Join(dir, "b.nsvm")
	mustRun(t, "train", "--data", csv, "--model", byName, "--label-col", "Churn", "--algo", "smo", "--quiet")
	mustRun(t, "train", "--data", csv, "--model", byIndex, "--label-col", "1", "--algo", "smo", "--quiet")
	x, _ := os.ReadFile(byName)
	y, _ := os.ReadFile(byIndex)
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Fatal("--label-col Churn and --label-col 1 trained different models")
	}
	_, errs, code := runCLI(t, "train", "--data", csv, "--model", byName, "--label-col", "churned")
	if code != 1 || !strings.Contains(errs, `no column named "churned" for the label`) {
		t.Errorf("an unknown name: exit %d, %q", code, errs)
	}
	_, errs, _ = runCLI(t, "train", "--data", csv, "--model", byName, "--algo", "smo", "--quiet")
	if !strings.Contains(errs, `nsvm train: the label is the last column, 2 ("age")`) {
		t.Errorf("the last column taken: %q", errs)
	}
	_, help, _ := runCLI(t, "train", "-h")
	if i := strings.Index(help, "-label-col"); i < 0 || strings.Contains(help[i:i+400], "-2") {
		t.Errorf("--label-col's help shows a sentinel: %q", help[i:i+400])
	}
}

// TestPredictKeepAndHeader: --keep carries identifier columns through, and
// a header's line and the rows share one separator (a tab).
func TestPredictKeepAndHeader(t *testing.T) {
	dir := t.TempDir()
	ring, m, ids := filepath.Join(dir, "ring.csv"), filepath.Join(dir, "m.nsvm"), filepath.Join(dir, "ids.csv")
	mustRun(t, "data", "ringnorm", "--n", "200", "--seed", "6", "--out", ring)
	mustRun(t, "train", "--data", ring, "--model", m, "--algo", "smo", "-C", "1", "--quiet")
	lines := strings.Split(strings.TrimSpace(readFile(t, ring)), "\n")
	var b strings.Builder
	b.WriteString("customer id," + lines[0] + "\n")
	for i, l := range lines[1:6] {
		fmt.Fprintf(&b, "C %d,%s\n", i, l)
	}
	os.WriteFile(ids, []byte(b.String()), 0o644)
	out := mustRun(t, "predict", "--model", m, "--data", ids, "--keep", "customer id", "--out-header")
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if len(rows) != 6 || rows[0] != "customer id\tlabel\tdecision" || !strings.HasPrefix(rows[3], "C 2\t") || strings.Count(rows[3], "\t") != 2 {
		t.Fatalf("predict --keep --out-header:\n%s", out)
	}
	plain := strings.Split(strings.TrimSpace(mustRun(t, "predict", "--model", m, "--data", ids)), "\n")
	if got := strings.Join(strings.Split(rows[3], "\t")[1:], " "); got != plain[2] {
		t.Errorf("kept row %q, plain row %q", got, plain[2])
	}
	if _, errs, code := runCLI(t, "predict", "--model", m, "--data", ids, "--keep", "customer"); code != 1 || !strings.Contains(errs, `no column named "customer" to keep`) {
		t.Errorf("an unknown kept column: exit %d, %q", code, errs)
	}
}

// TestCVSaysWhatItRepeats: --cv with choices left open says that each fold
// runs the selection, and --cv-fixed runs it once.
func TestCVSaysWhatItRepeats(t *testing.T) {
	dir := t.TempDir()
	ring := filepath.Join(dir, "ring.libsvm")
	mustRun(t, "data", "ringnorm", "--n", "200", "--seed", "8", "--out", ring)
	_, errs, code := runCLI(t, "train", "--data", ring, "--cv", "3", "--algo", "smo")
	if code != 0 || !strings.Contains(errs, "--cv 3 runs the selection of what the flags leave open in each fold") {
		t.Errorf("--cv 3: exit %d, %q", code, errs)
	}
	out, errs, code := runCLI(t, "train", "--data", ring, "--cv", "3", "--algo", "smo", "--cv-fixed")
	if code != 0 || strings.Contains(errs, "in each fold") || !strings.Contains(out, "3-fold cross-validation accuracy") {
		t.Errorf("--cv-fixed: exit %d, %q, %q", code, out, errs)
	}
	if _, errs, code := runCLI(t, "train", "--data", ring, "--cv-fixed"); code != 2 || !strings.Contains(errs, "--cv-fixed goes with --cv K") {
		t.Errorf("--cv-fixed alone: exit %d, %q", code, errs)
	}
}

// TestTrainFlagsFromParams: every training parameter is a flag of nsvm
// train, and a bad value is one line naming the flag, exit 2.
func TestTrainFlagsFromParams(t *testing.T) {
	var f trainFlags
	fs := (&env{}).newFlags("train", "")
	f.register(fs)
	for _, p := range search.Params {
		if fs.Lookup(p.Flag) == nil {
			t.Errorf("nsvm train has no flag --%s for FitConfig.%s", p.Flag, p.Field)
		}
	}
	dir := t.TempDir()
	ring := filepath.Join(dir, "ring.libsvm")
	mustRun(t, "data", "ringnorm", "--n", "100", "--seed", "3", "--out", ring)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--C", "-1"}, "nsvm train: --C must be a finite number > 0, got -1"},
		{[]string{"--gamma", "-2"}, "nsvm train: --gamma must be a finite number > 0, got -2"},
		{[]string{"--nu", "2", "--svm-type", "nu-svc"}, "nsvm train: --nu must be in (0, 1], got 2"},
		{[]string{"--algo", "nope"}, `nsvm train: unknown --algo "nope"`},
		{[]string{"--epochs", "-3"}, "nsvm train: --epochs must be ≥ 1, got -3"},
		{[]string{"--scaling", "bogus"}, `nsvm train: unknown --scaling "bogus"`},
		{[]string{"--nu", "0.5"}, "nsvm train: --nu applies to the svm types nu-svc, one-class and nu-svr"},
	} {
		_, errs, code := runCLI(t, append([]string{"train", "--data", ring, "--model", filepath.Join(dir, "m")}, c.args...)...)
		if code != 2 || !strings.HasPrefix(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line starting %q", c.args, code, errs, c.want)
		}
	}
}

// continueFiles writes 600 and 400 Ringnorm rows (a, b) and names the
// model files of a fit on a and of its continuation (m, m2).
func continueFiles(t *testing.T) (a, b, m, m2 string) {
	dir := t.TempDir()
	a, b = filepath.Join(dir, "a.libsvm"), filepath.Join(dir, "b.libsvm")
	m, m2 = filepath.Join(dir, "a.nsvm"), filepath.Join(dir, "b.nsvm")
	mustRun(t, "data", "ringnorm", "--n", "600", "--seed", "3", "--out", a)
	mustRun(t, "data", "ringnorm", "--n", "400", "--seed", "4", "--out", b)
	return a, b, m, m2
}

// TestContinueSVBudget: --sv-budget bounds the support set of a continued
// kernel model, and goes with --continue only.
func TestContinueSVBudget(t *testing.T) {
	a, b, m, m2 := continueFiles(t)
	mustRun(t, "train", "--data", a, "--model", m, "--algo", "smo", "--C", "10", "--gamma", "0.05", "--quiet")
	mustRun(t, "train", "--continue", m, "--data", b, "--model", m2, "--sv-budget", "40", "--quiet")
	out := mustRun(t, "info", "--model", m2, "--json")
	var info struct {
		NumSV int `json:"support_vectors"`
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil || info.NumSV == 0 || info.NumSV > 40 {
		t.Fatalf("continued with --sv-budget 40: %d support vectors (%v): %s", info.NumSV, err, out)
	}
	for _, c := range [][]string{
		{"train", "--data", a, "--model", m2, "--sv-budget", "40"},
		{"train", "--continue", m, "--data", b, "--model", m2, "--sv-budget", "0"},
	} {
		if _, errs, code := runCLI(t, c...); code != 2 || !strings.Contains(errs, "--sv-budget") {
			t.Errorf("%s: exit %d, %q", strings.Join(c, " "), code, errs)
		}
	}
}

// TestContinueSaysWhatItDid: nsvm train --continue reports the
// continuation (how, what it kept, the rows seen), not the first fit's
// selection as if it had run again.
func TestContinueSaysWhatItDid(t *testing.T) {
	a, b, m, m2 := continueFiles(t)
	if out := mustRun(t, "train", "--data", a, "--model", m); !strings.Contains(out, "selected ") {
		t.Fatalf("the first fit does not report its selection: %s", out)
	}
	out := mustRun(t, "train", "--continue", m, "--data", b, "--model", m2)
	for _, want := range []string{"continued by budgeted kernel pegasos: smo ", "as the first fit chose it", "1000 rows seen in 2 chunks", "on 400 new points"} {
		if !strings.Contains(out, want) {
			t.Errorf("--continue's report lacks %q: %s", want, out)
		}
	}
	if strings.Contains(out, "selected ") || strings.Contains(out, "after the selection") {
		t.Errorf("--continue reports a selection it did not run: %s", out)
	}
	var js struct {
		Continued  string   `json:"continued"`
		SeenRows   int      `json:"seen_rows"`
		SelectSecs *float64 `json:"selection_seconds"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "train", "--continue", m, "--data", b, "--model", m2, "--json")), &js); err != nil ||
		js.Continued == "" || js.SeenRows != 1000 || js.SelectSecs != nil {
		t.Errorf("--continue --json: %+v (%v)", js, err)
	}
}
