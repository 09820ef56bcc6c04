package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
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
			if len(lines) != 7 || !strings.HasPrefix(lines[1], "balanced accuracy 1.0000, F1 1.0000") ||
				!strings.Contains(lines[3], "1") || !strings.HasPrefix(strings.TrimSpace(lines[6]), "9") {
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

// fakeMNIST writes IDX files of n training and m test 28×28 images of ten
// "digits" (digit d is a bright bar on row 2+2d, plus noise) into dir.
func fakeMNIST(t *testing.T, dir string, n, m int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	for _, set := range []struct {
		prefix string
		n      int
	}{{"train", n}, {"t10k", m}} {
		pix := make([]uint8, set.n*784)
		lab := make([]uint8, set.n)
		for i := range lab {
			d := i % 10
			lab[i] = uint8(d)
			for j := 0; j < 784; j++ {
				pix[i*784+j] = uint8(rng.IntN(40))
			}
			row := 2 + 2*d
			for c := 4; c < 24; c++ {
				pix[i*784+row*28+c] = 200 + uint8(rng.IntN(50))
			}
		}
		var ib, lb bytes.Buffer
		if err := data.WriteIDXImages(&ib, pix, set.n, 28, 28); err != nil {
			t.Fatal(err)
		}
		if err := data.WriteIDXLabels(&lb, lab); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, set.prefix+"-images-idx3-ubyte"), ib.String())
		writeFile(t, filepath.Join(dir, set.prefix+"-labels-idx1-ubyte"), lb.String())
	}
}

// TestReproduceMNIST10: the mnist10 experiment runs end to end (on small
// stand-in IDX files, with scaled-down steps) and reports accuracy, errors,
// times and the 10×10 confusion matrix.
func TestReproduceMNIST10(t *testing.T) {
	dir := t.TempDir()
	fakeMNIST(t, dir, 300, 100)
	res := decodeOne(t, mustRun(t, "reproduce", "mnist10", "--data", dir, "--steps-scale", "0.005", "--json"))
	hasKeys(t, res, "task", "results", "config", "arch")
	r := res["results"].([]any)[0].(map[string]any)
	hasKeys(t, r, "accuracy", "errors", "n_sv", "part1_seconds", "part2_seconds", "confusion")
	if acc := r["accuracy"].(float64); acc < 0.9 || r["n_test"].(float64) != 100 {
		t.Errorf("accuracy %v on %v test images", acc, r["n_test"])
	}
	if c := r["confusion"].([]any); len(c) != 10 {
		t.Errorf("confusion has %d rows", len(c))
	}
	text := mustRun(t, "reproduce", "mnist10", "--data", dir, "--steps-scale", "0.002", "--validate", "--multiclass", "ovo", "--shift", "0", "--quiet")
	if !strings.Contains(text, "validation set") || !strings.Contains(text, "ovo heads") {
		t.Errorf("reproduce printed\n%s", text)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", dir, "--multiclass", "all"}, "scheme"},
		{[]string{"--data", dir, "--steps-scale", "0"}, "--steps-scale"},
		{[]string{"--data", filepath.Join(dir, "none")}, "nsvm data mnist"},
	} {
		_, errs, code := runCLI(t, append([]string{"reproduce", "mnist10"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("reproduce mnist10 %v: exit %d, %q", c.args, code, errs)
		}
	}
}
