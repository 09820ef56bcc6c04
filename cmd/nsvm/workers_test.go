package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkers: --workers changes how kernel rows and columns are computed,
// never the model; values below 1 are usage errors.
func TestWorkers(t *testing.T) {
	dir := t.TempDir()
	ring := filepath.Join(dir, "ring.txt")
	// 9000 points, so that Pegasos's rows pass the 8192-SV split.
	mustRun(t, "data", "ringnorm", "--n", "9000", "--seed", "4", "--out", ring)
	for _, algo := range []string{"pegasos", "smo"} {
		var files [2][]byte
		for i, w := range []string{"1", "2"} {
			m := filepath.Join(dir, algo+w)
			// γ and C pinned: one fit, no selection.
			args := []string{"train", "--algo", algo, "--data", ring, "--model", m, "--workers", w, "--quiet", "--gamma", "0.05", "--C", "1"}
			if algo == "pegasos" {
				// λ small enough that most points become support vectors.
				args = append(args, "--lambda", "1e-7", "--steps", "12000")
			} else {
				args = append(args, "--scaling", "standardize")
			}
			mustRun(t, args...)
			b, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			files[i] = b
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%s: --workers 2 gives a different model from --workers 1", algo)
		}
	}
	_, errs, code := runCLI(t, "train", "--algo", "pegasos", "--data", ring, "--model", filepath.Join(dir, "x"), "--workers", "0")
	if code != 2 || !strings.Contains(errs, "--workers must be ≥ 1") {
		t.Errorf("--workers 0: exit %d, stderr %q", code, errs)
	}
}
