package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	if _, _, code := runCLI(t, "export", "--model", model, "--out", exported, "--format", "onnx"); code != 2 {
		t.Fatalf("an unknown format: exit %d, want 2", code)
	}
}
