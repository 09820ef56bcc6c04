package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestNamedClassesCLI: a CSV whose label column holds names (no header, as
// in the UCI files) trains; eval reads a test file with a header and its
// own order of the names; predict prints names; an unknown name is one
// clear error; data convert to LIBSVM says how the names were numbered.
func TestNamedClassesCLI(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	names := []string{"setosa", "versicolor", "virginica"}
	row := func(c int) string {
		return fmt.Sprintf("%.3f,%.3f,%s", float64(c)+0.3*rng.NormFloat64(), float64(-c)+0.3*rng.NormFloat64(), names[c])
	}
	var train, test strings.Builder
	for i := range 150 {
		fmt.Fprintln(&train, row(i%3))
	}
	test.WriteString("a,b,species\n")
	for i := range 30 {
		fmt.Fprintln(&test, row(2-i%3)) // virginica first
	}
	trainPath, testPath := filepath.Join(dir, "iris.data"), filepath.Join(dir, "test.csv")
	writeFile(t, trainPath, train.String())
	writeFile(t, testPath, test.String())
	model := filepath.Join(dir, "m.nsvm")
	mustRun(t, "train", "--data", trainPath, "--format", "csv", "--model", model, "--quiet")

	out := mustRun(t, "eval", "--model", model, "--data", testPath)
	if !strings.Contains(out, "accuracy 100.0000%") || !strings.Contains(out, "versicolor") {
		t.Errorf("eval:\n%s", out)
	}
	out = mustRun(t, "predict", "--model", model, "--data", testPath)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 30 || !strings.HasPrefix(lines[0], "virginica ") || !strings.HasPrefix(lines[1], "versicolor ") {
		t.Errorf("predict:\n%s", out)
	}

	bad := filepath.Join(dir, "bad.csv")
	writeFile(t, bad, "a,b,species\n1,2,setosa\n1,2,rose\n")
	_, stderr, code := runCLI(t, "eval", "--model", model, "--data", bad)
	if code != 1 || !strings.Contains(stderr, `row 2 has label "rose", which is not one of the model's classes (setosa, versicolor, virginica)`) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("unknown name: exit %d, stderr %q", code, stderr)
	}

	out = mustRun(t, "data", "convert", trainPath, filepath.Join(dir, "iris.libsvm"), "--format", "csv")
	if !strings.Contains(out, "0 = setosa, 1 = versicolor, 2 = virginica") {
		t.Errorf("convert: %q", out)
	}
}

// TestCategoricalCLI: text feature columns train (one-hot), and eval and
// predict read a test file with the model's columns, a category the
// training data lacked as zeros.
func TestCategoricalCLI(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	colors := []string{"red", "green", "blue"}
	var train, test strings.Builder
	train.WriteString("size,color,label\n")
	test.WriteString("size,color,label\n")
	for i := range 300 {
		c := i % 3
		fmt.Fprintf(&train, "%.3f,%s,%d\n", rng.NormFloat64(), colors[c], min(c, 1))
	}
	fmt.Fprintf(&test, "0.1,blue,1\n0.2,red,0\n0.3,green,1\n0.4,purple,0\n")
	trainPath, testPath := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv")
	writeFile(t, trainPath, train.String())
	writeFile(t, testPath, test.String())
	model := filepath.Join(dir, "m.nsvm")
	mustRun(t, "train", "--data", trainPath, "--model", model, "--quiet")
	out := mustRun(t, "predict", "--model", model, "--data", testPath)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "1 ") || !strings.HasPrefix(lines[1], "0 ") || !strings.HasPrefix(lines[2], "1 ") {
		t.Errorf("predict (blue, red, green should be 1, 0, 1):\n%s", out)
	}
	// Text in the model's column of numbers is an error.
	bad := filepath.Join(dir, "bad.csv")
	writeFile(t, bad, "size,color,label\n0.1,red,1\nbig,red,0\n")
	if _, stderr, code := runCLI(t, "eval", "--model", model, "--data", bad); code != 1 || !strings.Contains(stderr, `bad.csv:3: value "big" in column "size" is not a number (the model's column 0 holds numbers)`) {
		t.Errorf("text in a column of numbers: exit %d, %q", code, stderr)
	}
}

// TestFillMissingCLI: without --fill-missing a missing number is one clear
// error; with it the model trains and fills new data's gaps with the
// training means.
func TestFillMissingCLI(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 5))
	var train strings.Builder
	train.WriteString("x,y,label\n")
	for i := range 200 {
		c := i % 2
		x := fmt.Sprintf("%.3f", float64(2*c)+0.3*rng.NormFloat64())
		if i%17 == 0 {
			x = "NA"
		}
		fmt.Fprintf(&train, "%s,%.3f,%d\n", x, rng.NormFloat64(), c)
	}
	trainPath := filepath.Join(dir, "train.csv")
	writeFile(t, trainPath, train.String())
	model := filepath.Join(dir, "m.nsvm")
	if _, stderr, code := runCLI(t, "train", "--data", trainPath, "--model", model, "--quiet"); code != 1 || !strings.Contains(stderr, `train.csv:2: missing value "NA" in column "x"`) || !strings.Contains(stderr, "--fill-missing") {
		t.Fatalf("missing without --fill-missing: exit %d, %q", code, stderr)
	}
	mustRun(t, "train", "--data", trainPath, "--model", model, "--quiet", "--fill-missing")
	testPath := filepath.Join(dir, "test.csv")
	writeFile(t, testPath, "x,y,label\n2.1,0,1\n-0.1,0,0\n?,0,1\n")
	out := mustRun(t, "predict", "--model", model, "--data", testPath)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], "1 ") || !strings.HasPrefix(lines[1], "0 ") {
		t.Fatalf("predict:\n%s", out)
	}
}
