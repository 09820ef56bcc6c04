package main

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

// readTargets returns the labels of a data file.
func readTargets(t *testing.T, path string) []float64 {
	t.Helper()
	ds, err := data.Open(path, data.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds.Y
}

// TestRegressionTrainEvalPredict: both regression trainers learn Friedman
// #1 through the command line; predict prints values in target units that
// agree with eval's RMSE, MAE and R², in text and JSON. The test set is
// CSV as "nsvm data" writes it, with the target in the first column.
func TestRegressionTrainEvalPredict(t *testing.T) {
	dir := t.TempDir()
	tr, te := filepath.Join(dir, "tr.txt"), filepath.Join(dir, "te.csv")
	mustRun(t, "data", "friedman1", "--n", "400", "--seed", "1", "--out", tr)
	mustRun(t, "data", "friedman1", "--n", "200", "--seed", "2", "--format", "csv", "--out", te)
	y := readTargets(t, te)
	for _, c := range []struct {
		algo  string
		extra []string
		minR2 float64
	}{
		{"pegasos", nil, 0.7},
		{"nsvm4", []string{"--steps", "300", "--steps2", "4000"}, 0.7},
		{"nsvm4", []string{"--steps", "300", "--steps2", "4000", "--target", "linear", "--epsilon", "0"}, 0.7},
	} {
		name := c.algo + strings.Join(c.extra, "")
		t.Run(name, func(t *testing.T) {
			model := filepath.Join(t.TempDir(), "m.nsvm")
			args := append([]string{"train", "--task", "regression", "--algo", c.algo, "--data", tr, "--model", model, "--json"}, c.extra...)
			tj := decodeOne(t, mustRun(t, args...))
			hasKeys(t, tj, "train_rmse", "train_r2", "n_sv", "train_seconds", "epsilon")
			if tj["task"] != "regression" || tj["n"] != 400.0 {
				t.Errorf("train output %v", tj)
			}
			ej := decodeOne(t, mustRun(t, "eval", "--model", model, "--data", te, "--json"))
			hasKeys(t, ej, "rmse", "mae", "r2", "n")
			if len(ej) != 4 {
				t.Errorf("eval --json has extra keys: %v", ej)
			}
			if ej["n"] != 200.0 || ej["r2"].(float64) < c.minR2 {
				t.Errorf("eval %v, want R² ≥ %g", ej, c.minR2)
			}
			text := mustRun(t, "eval", "--model", model, "--data", te)
			if !strings.HasPrefix(text, "RMSE ") || strings.Count(text, "\n") != 1 {
				t.Errorf("eval text %q", text)
			}
			out := mustRun(t, "predict", "--model", model, "--data", te)
			sc := bufio.NewScanner(strings.NewReader(out))
			var i int
			var sse, sae, sst, mean float64
			for _, v := range y {
				mean += v / float64(len(y))
			}
			for ; sc.Scan(); i++ {
				v, err := strconv.ParseFloat(sc.Text(), 64)
				if err != nil {
					t.Fatalf("predict line %d: %q", i+1, sc.Text())
				}
				sse += (v - y[i]) * (v - y[i])
				sae += math.Abs(v - y[i])
				sst += (y[i] - mean) * (y[i] - mean)
			}
			if i != len(y) {
				t.Fatalf("predict printed %d lines for %d rows", i, len(y))
			}
			for key, want := range map[string]float64{"rmse": math.Sqrt(sse / 200), "mae": sae / 200, "r2": 1 - sse/sst} {
				if got := ej[key].(float64); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
					t.Errorf("eval %s = %g, from predict's values %g", key, got, want)
				}
			}
			t.Logf("test %v", ej)
			// --out writes the same lines.
			pf := filepath.Join(t.TempDir(), "p.txt")
			mustRun(t, "predict", "--model", model, "--data", te, "--out", pf)
			if b, _ := os.ReadFile(pf); string(b) != out {
				t.Error("predict --out differs from stdout")
			}
		})
	}
}

// TestRegressionDeterministic: the same seed writes the same model bytes.
func TestRegressionDeterministic(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "tr.txt")
	mustRun(t, "data", "friedman1", "--n", "100", "--seed", "3", "--out", tr)
	for _, algo := range []string{"pegasos", "nsvm4"} {
		var files [][]byte
		for i := range 2 {
			model := filepath.Join(dir, algo+strconv.Itoa(i)+".nsvm")
			args := []string{"train", "--task", "regression", "--algo", algo, "--data", tr, "--model", model, "--steps", "2000", "--quiet"}
			if algo == "nsvm4" {
				args = append(args, "--steps2", "500")
			}
			mustRun(t, args...)
			b, err := os.ReadFile(model)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, b)
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%s: same seed, different model files", algo)
		}
	}
}

// TestRegressionBadInput: bad data and flags end with one line on stderr, a
// non-zero exit status and no model file.
func TestRegressionBadInput(t *testing.T) {
	dir := t.TempDir()
	in := func(name, content string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, content)
		return p
	}
	good := filepath.Join(dir, "good.txt")
	mustRun(t, "data", "friedman1", "--n", "30", "--seed", "4", "--out", good)
	nanTarget := in("nan.txt", "1.5 1:0.1 2:0.2\nnan 1:0.3 2:0.4\n2.5 1:0.5 2:0.1\n")
	nanCSV := in("nan.csv", "0.1,0.2,1.5\n0.3,0.4,NaN\n0.5,0.1,2\n")
	one := in("one.txt", "1.5 1:0.1 2:0.2\n")
	constant := in("const.txt", "2 1:0.1 2:0.2\n2 1:0.3 2:0.4\n2 1:0.5 2:0.6\n")
	classes := in("classes.txt", "1 1:0.1 2:0.2\n2 1:0.3 2:0.4\n1 1:0.5 2:0.6\n2 1:0.7 2:0.1\n1 1:0.2 2:0.9\n2 1:0.4 2:0.8\n")
	model := filepath.Join(dir, "r.nsvm")
	mustRun(t, "train", "--task", "regression", "--algo", "pegasos", "--data", good, "--model", model, "--quiet")
	reg := func(data string, extra ...string) []string {
		return append([]string{"train", "--task", "regression", "--data", data, "--model", "{out}/m.nsvm", "--quiet"}, extra...)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"NaN target", reg(nanTarget), 1, "not finite"},
		{"NaN target CSV", reg(nanCSV, "--algo", "pegasos"), 1, "not finite"},
		{"one point", reg(one, "--algo", "pegasos"), 1, "at least 2 points"},
		{"one point nsvm4", reg(one), 1, "at least 2 points"},
		{"constant targets", reg(constant), 1, "nothing to regress"},
		{"classification algorithm", reg(good, "--algo", "nsvm1"), 2, "regression needs algorithm nsvm4, smo or pegasos"},
		{"probability", reg(good, "--probability"), 2, "--probability"},
		{"multiclass", reg(good, "--multiclass", "ovo"), 2, "--multiclass"},
		{"checkpoint", reg(good, "--checkpoint", "{out}/c.ckpt"), 2, "--checkpoint"},
		{"negative epsilon", reg(good, "--epsilon", "-1"), 2, "--epsilon"},
		{"NaN epsilon", reg(good, "--epsilon", "NaN"), 2, "--epsilon"},
		{"unknown target", reg(good, "--target", "cosine"), 2, "--target"},
		{"target with pegasos", reg(good, "--algo", "pegasos", "--target", "linear"), 2, "--target"},
		{"unknown task", []string{"train", "--task", "ranking", "--data", good, "--model", "{out}/m.nsvm"}, 2, "--task"},
		{"epsilon with classification", []string{"train", "--data", good, "--model", "{out}/m.nsvm", "--task", "classification", "--epsilon", "0.5"}, 2, "--task regression"},
		{"epsilon with class labels", []string{"train", "--data", classes, "--model", "{out}/m.nsvm", "--epsilon", "0.5"}, 2, "regression"},
		{"real labels as classes", []string{"train", "--data", good, "--model", "{out}/m.nsvm", "--task", "classification", "--algo", "smo"}, 1, "not an integer"},
		{"bad lambda", reg(good, "--lambda", "0"), 2, "--lambda"},
		{"batch too large", reg(good, "--batch", "100"), 1, "batch"},
		{"predict --probability", []string{"predict", "--model", model, "--data", good, "--probability"}, 2, "regressor"},
		{"friedman1 n", []string{"data", "friedman1", "--n", "1", "--out", "{out}/f.txt"}, 2, "--n"},
		{"friedman1 noise", []string{"data", "friedman1", "--noise", "-1", "--out", "{out}/f.txt"}, 2, "--noise"},
		{"friedman1 format", []string{"data", "friedman1", "--format", "arff", "--out", "{out}/f.txt"}, 2, "--format"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "{out}", out)
			}
			stdout, stderr, code := runCLI(t, args...)
			if code != c.code {
				t.Errorf("exit status %d, want %d", code, c.code)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "nsvm") {
				t.Errorf("stderr is not one line starting with nsvm: %q", stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("message %q does not contain %q", stderr, c.want)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty: %q", stdout)
			}
			if files := listDir(t, out); len(files) != 0 {
				t.Errorf("files left behind: %v", files)
			}
			t.Log(strings.TrimSpace(stderr))
		})
	}
}
