package main

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFiles checks that the output is deterministic from the seed, that rows
// are L2-normalised with increasing 1-based indices, and that every test
// feature has a column in the training file.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	gen := func(name string, seed string) (train, test []byte) {
		out := filepath.Join(dir, name)
		args := []string{"-vocab", "3000", "-classes", "4", "-groups", "2", "-train", "300", "-test", "100", "-stop", "50", "-topic-words", "100", "-group-words", "200", "-seed", seed, "-out", out}
		if err := run(args, io.Discard); err != nil {
			t.Fatal(err)
		}
		tr, err := os.ReadFile(out + ".train.libsvm")
		if err != nil {
			t.Fatal(err)
		}
		te, err := os.ReadFile(out + ".test.libsvm")
		if err != nil {
			t.Fatal(err)
		}
		return tr, te
	}
	a, at := gen("a", "7")
	b, bt := gen("b", "7")
	if !bytes.Equal(a, b) || !bytes.Equal(at, bt) {
		t.Fatal("the same seed wrote different files")
	}
	if c, _ := gen("c", "8"); bytes.Equal(a, c) {
		t.Fatal("another seed wrote the same file")
	}
	trainCols := map[string]bool{}
	for _, p := range []struct {
		part string
		text []byte
	}{{"train", a}, {"test", at}} {
		part, text := p.part, p.text
		lines := strings.Split(strings.TrimSpace(string(text)), "\n")
		if want := map[string]int{"train": 300, "test": 100}[part]; len(lines) != want {
			t.Fatalf("%s: %d rows, want %d", part, len(lines), want)
		}
		labels := map[string]bool{}
		for i, line := range lines {
			f := strings.Fields(line)
			labels[f[0]] = true
			ss, prev := 0.0, 0
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, ":")
				j, err := strconv.Atoi(k)
				if err != nil || j <= prev || j > 3000 {
					t.Fatalf("%s row %d: index %q after %d", part, i+1, k, prev)
				}
				prev = j
				x, err := strconv.ParseFloat(v, 64)
				if err != nil || x <= 0 {
					t.Fatalf("%s row %d: value %q", part, i+1, v)
				}
				ss += x * x
				if part == "train" {
					trainCols[k] = true
				} else if !trainCols[k] {
					t.Fatalf("test row %d: feature %s never seen in training", i+1, k)
				}
			}
			if math.Abs(ss-1) > 1e-4 {
				t.Fatalf("%s row %d: squared norm %v", part, i+1, ss)
			}
		}
		if len(labels) != 4 {
			t.Fatalf("%s: labels %v, want 4 classes", part, labels)
		}
	}
}
