package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// blobs3 writes n points of three well-separated 2-D classes labelled 1, 5
// and 9 as LIBSVM text.
func blobs3(t *testing.T, path string, n int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	centres := [][2]float64{{0, 0}, {4, 0}, {0, 4}}
	for i := range n {
		c := i % 3
		fmt.Fprintf(&b, "%d 1:%.4f 2:%.4f\n", 1+4*c, centres[c][0]+rng.NormFloat64()*0.5, centres[c][1]+rng.NormFloat64()*0.5)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMulticlassTrainEvalPredict: train takes three classes with nsvm4 and
// with classical solvers (one-vs-rest and one-vs-one), predict prints the
// class labels and eval a 3×3 confusion matrix, as text and JSON.
func TestMulticlassTrainEvalPredict(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train.txt"), filepath.Join(dir, "test.txt")
	blobs3(t, train, 300, 1)
	blobs3(t, test, 150, 2)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"nsvm4", []string{"--algo", "nsvm4", "--arch", "dense(8),relu", "--steps", "200", "--steps2", "3000", "--batch", "16"}},
		{"nsvm4-ovo", []string{"--algo", "nsvm4", "--arch", "dense(8),relu", "--steps", "200", "--steps2", "3000", "--batch", "16", "--multiclass", "ovo"}},
		{"smo", []string{"--algo", "smo"}},
		{"pegasos-ovo", []string{"--algo", "pegasos", "--multiclass", "ovo", "--bias"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := filepath.Join(dir, c.name+".nsvm")
			out := mustRun(t, append([]string{"train", "--data", train, "--model", model, "--quiet"}, c.args...)...)
			if !strings.Contains(out, "trained "+c.args[1]) {
				t.Fatalf("train printed %q", out)
			}
			js := decodeOne(t, mustRun(t, "eval", "--model", model, "--data", test, "--json"))
			if acc := js["accuracy"].(float64); acc < 0.95 {
				t.Errorf("test accuracy %.3f", acc)
			}
			conf := js["confusion"].([]any)
			if len(conf) != 3 || len(conf[0].([]any)) != 3 || fmt.Sprint(js["labels"]) != "[1 5 9]" {
				t.Fatalf("labels %v, confusion %v", js["labels"], conf)
			}
			text := mustRun(t, "eval", "--model", model, "--data", test)
			lines := strings.Split(strings.TrimSpace(text), "\n")
			if len(lines) != 6 || !strings.Contains(lines[2], "1") || !strings.HasPrefix(strings.TrimSpace(lines[5]), "9") {
				t.Fatalf("eval printed\n%s", text)
			}
			pred := strings.Split(strings.TrimSpace(mustRun(t, "predict", "--model", model, "--data", test)), "\n")
			if len(pred) != 150 {
				t.Fatalf("%d prediction lines", len(pred))
			}
			for _, l := range pred {
				f := strings.Fields(l)
				if len(f) != 2 || (f[0] != "1" && f[0] != "5" && f[0] != "9") {
					t.Fatalf("prediction line %q", l)
				}
			}
		})
	}
	_, errs, code := runCLI(t, "train", "--data", train, "--model", filepath.Join(dir, "x.nsvm"), "--multiclass", "all")
	if code != 2 || !strings.Contains(errs, "--multiclass") {
		t.Errorf("bad --multiclass: exit %d, %q", code, errs)
	}
}
