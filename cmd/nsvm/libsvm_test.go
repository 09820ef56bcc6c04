package main

import (
	"encoding/json"
	"fmt"
	"math"

	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

// TestLIBSVMOutputs: predict --out-format libsvm prints svm-predict's
// layout (with --probability a "labels" line and a probability per class),
// --decision-values every pair head's value; export writes a model file
// that predict reads back (and, when LIBSVM is installed, svm-predict
// labels as predict does).
func TestLIBSVMOutputs(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train.txt"), filepath.Join(dir, "test.txt")
	blobs3(t, train, 300, 5)
	blobs3(t, test, 90, 6)
	model := filepath.Join(dir, "m.nsvm")
	mustRun(t, "train", "--data", train, "--model", model, "--algo", "smo", "--scaling", "none", "--C", "1", "--gamma", "0.5", "--probability", "--quiet")
	lines := strings.Split(strings.TrimSpace(mustRun(t, "predict", "--model", model, "--data", test, "--probability", "--out-format", "libsvm")), "\n")
	if len(lines) != 91 || lines[0] != "labels 1 5 9" || len(strings.Fields(lines[1])) != 4 {
		t.Fatalf("libsvm layout:\n%s", strings.Join(lines[:3], "\n"))
	}
	dec := strings.Split(strings.TrimSpace(mustRun(t, "predict", "--model", model, "--data", test, "--decision-values")), "\n")
	if len(dec) != 90 || len(strings.Fields(dec[0])) != 4 {
		t.Fatalf("decision values: %q", dec[0])
	}
	plain := mustRun(t, "predict", "--model", model, "--data", test, "--out-format", "libsvm")
	exported := filepath.Join(dir, "m.model")
	mustRun(t, "export", "--model", model, "--out", exported)
	if back := mustRun(t, "predict", "--model", exported, "--data", test, "--out-format", "libsvm"); back != plain {
		t.Fatal("the exported model predicts otherwise")
	}
	if _, err := exec.LookPath("svm-predict"); err == nil {
		out := filepath.Join(dir, "svm.out")
		if b, err := exec.Command("svm-predict", test, exported, out).CombinedOutput(); err != nil {
			t.Fatalf("svm-predict: %v\n%s", err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != plain {
			t.Fatal("svm-predict labels the rows otherwise")
		}
	}
	if _, _, code := runCLI(t, "export", "--model", model, "--out", exported, "--format", "pmml"); code != 2 {
		t.Fatalf("an unknown format: exit %d, want 2", code)
	}
	// ONNX: a protocol buffer whose first field is ModelProto's ir_version;
	// --out - writes the same bytes.
	graph := filepath.Join(dir, "m.onnx")
	mustRun(t, "export", "--format", "onnx", "--model", model, "--out", graph)
	b, err := os.ReadFile(graph)
	if err != nil || len(b) < 100 || b[0] != 0x08 {
		t.Fatalf("export --format onnx wrote %d bytes (%v)", len(b), err)
	}
	if out := mustRun(t, "export", "--format", "onnx", "--onnx-operators", "standard", "--model", model, "--out", "-"); out != string(b) {
		t.Fatal("export --format onnx --out - writes other bytes")
	}
	if _, errs, code := runCLI(t, "export", "--format", "onnx", "--onnx-operators", "gpu", "--model", model, "--out", graph); code != 2 || !strings.Contains(errs, "--onnx-operators") {
		t.Fatalf("unknown --onnx-operators: exit %d, %s", code, errs)
	}
}

// TestPrecomputedKernel: train --kernel precomputed reads LIBSVM's -t 4
// rows (0:serial, then the kernel values against the training points),
// predicts rows of kernel values as svm-train -t 4's model does through
// svm-predict, and a training file that is not n × n is refused.
func TestPrecomputedKernel(t *testing.T) {
	dir := t.TempDir()
	pts := filepath.Join(dir, "pts.txt")
	blobs3(t, pts, 120, 8)
	ds, err := data.Open(pts, data.OpenOptions{Format: "libsvm"})
	if err != nil {
		t.Fatal(err)
	}
	gram := func(path string, lo, hi int) {
		var b strings.Builder
		for i := lo; i < hi; i++ {
			fmt.Fprintf(&b, "%g 0:%d", ds.Y[i], i-lo+1)
			for j := 0; j < 80; j++ {
				var s float64
				for k := range ds.D {
					d := float64(ds.X[i*ds.D+k] - ds.X[j*ds.D+k])
					s += d * d
				}
				fmt.Fprintf(&b, " %d:%.9g", j+1, math.Exp(-0.5*s))
			}
			b.WriteByte('\n')
		}
		writeFile(t, path, b.String())
	}
	train, test := filepath.Join(dir, "k.train"), filepath.Join(dir, "k.test")
	gram(train, 0, 80)
	gram(test, 80, 120)
	model := filepath.Join(dir, "k.nsvm")
	mustRun(t, "train", "--kernel", "precomputed", "--C", "1", "--data", train, "--model", model, "--quiet")
	ours := mustRun(t, "predict", "--model", model, "--data", test, "--out-format", "libsvm")
	if n := len(strings.Fields(ours)); n != 40 {
		t.Fatalf("%d predictions", n)
	}
	if _, err := exec.LookPath("svm-train"); err == nil {
		lm := filepath.Join(dir, "k.model")
		if b, err := exec.Command("svm-train", "-q", "-t", "4", "-c", "1", train, lm).CombinedOutput(); err != nil {
			t.Fatalf("svm-train: %v\n%s", err, b)
		}
		out := filepath.Join(dir, "k.out")
		if b, err := exec.Command("svm-predict", test, lm, out).CombinedOutput(); err != nil {
			t.Fatalf("svm-predict: %v\n%s", err, b)
		}
		want, _ := os.ReadFile(out)
		if string(want) != ours {
			t.Fatalf("svm-predict labels the kernel rows otherwise:\n%s\nours:\n%s", want, ours)
		}
	}
	// Without --C, C is chosen by validation and reported as other
	// selections are.
	var rep struct {
		Selected   string            `json:"selected"`
		Validation string            `json:"validation"`
		Candidates []json.RawMessage `json:"candidates"`
		Info       map[string]string `json:"info"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "train", "--kernel", "precomputed", "--data", train, "--model", model, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Selected, "smo precomputed C=") || rep.Info["selected"] != rep.Selected || rep.Info["C"] == "" ||
		!strings.HasSuffix(rep.Selected, "C="+rep.Info["C"]) || rep.Validation != "5-fold" || len(rep.Candidates) < 5 {
		t.Fatalf("train --kernel precomputed without --C: %+v", rep)
	}
	if out := mustRun(t, "train", "--kernel", "precomputed", "--data", train, "--model", model); !strings.Contains(out, "selected smo precomputed C=") {
		t.Fatalf("the training report does not say which C was chosen:\n%s", out)
	}
	if _, errs, code := runCLI(t, "export", "--format", "onnx", "--model", model, "--out", filepath.Join(dir, "k.onnx")); code != 1 || !strings.Contains(errs, "precomputed") {
		t.Fatalf("export --format onnx of a precomputed kernel: exit %d, %s", code, errs)
	}
	if _, errs, code := runCLI(t, "train", "--kernel", "precomputed", "--data", test, "--model", filepath.Join(dir, "bad.nsvm")); code == 0 || !strings.Contains(errs, "n values in each of its n rows") {
		t.Fatalf("a 40 × 80 training file: exit %d, %s", code, errs)
	}
}
