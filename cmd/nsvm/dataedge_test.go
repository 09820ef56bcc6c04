package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// edgeCSV writes a CSV of n rows, two classes told apart by the first of
// three features, with the header hdr ("" for none) and the label column
// at labelAt (-1: none, -2: empty).
func edgeCSV(t *testing.T, path, hdr string, n, labelAt int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	var b strings.Builder
	if hdr != "" {
		b.WriteString(hdr + "\n")
	}
	for i := range n {
		y := i % 2
		f := []string{fmt.Sprintf("%.3f", float64(4*y-2)+rng.NormFloat64()), fmt.Sprintf("%.3f", rng.NormFloat64()), fmt.Sprintf("%.3f", rng.NormFloat64())}
		switch labelAt {
		case -1:
		case -2:
			f = append(f, "")
		default:
			f = append(f[:labelAt], append([]string{fmt.Sprint(y)}, f[labelAt:]...)...)
		}
		b.WriteString(strings.Join(f, ",") + "\n")
	}
	writeFile(t, path, b.String())
}

// TestPredictUnlabelled: predict scores a CSV without the label column,
// or with an empty one, one line of output a row, for a model trained
// on a CSV with a header and for one trained without (its columns then
// unnamed).
func TestPredictUnlabelled(t *testing.T) {
	dir := t.TempDir()
	for _, hdr := range []bool{true, false} {
		h := func(s string) string {
			if hdr {
				return s
			}
			return ""
		}
		train := filepath.Join(dir, fmt.Sprintf("train%v.csv", hdr))
		edgeCSV(t, train, h("a,b,c,label"), 60, 3)
		model := filepath.Join(dir, fmt.Sprintf("m%v.nsvm", hdr))
		mustRun(t, "train", "--data", train, "--model", model, "--algo", "smo", "--quiet")
		for _, tc := range []struct {
			name, hdr string
			label     int
		}{{"no label", "a,b,c", -1}, {"empty label", "a,b,c,label", -2}} {
			test := filepath.Join(dir, "new.csv")
			edgeCSV(t, test, h(tc.hdr), 21, tc.label)
			out := mustRun(t, "predict", "--model", model, "--data", test)
			if n := strings.Count(out, "\n"); n != 21 {
				t.Errorf("header %v, %s: %d lines of predictions for 21 rows", hdr, tc.name, n)
			}
		}
	}
}

// TestPredictColumnsByName: a CSV with the model's columns in another
// order and an extra column reads them by name: the predictions are those
// of the file in the training order.
func TestPredictColumnsByName(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.csv")
	edgeCSV(t, train, "a,b,c,label", 80, 3)
	model := filepath.Join(dir, "m.nsvm")
	mustRun(t, "train", "--data", train, "--model", model, "--algo", "smo", "--quiet")
	same := filepath.Join(dir, "same.csv")
	edgeCSV(t, same, "a,b,c,label", 30, 3)
	want := mustRun(t, "predict", "--model", model, "--data", same)
	// Columns c,label,a,b plus id: the same rows reordered.
	var b strings.Builder
	b.WriteString("c,id,label,a,b\n")
	for i, line := range strings.Split(strings.TrimSpace(readFile(t, same)), "\n")[1:] {
		f := strings.Split(line, ",")
		fmt.Fprintf(&b, "%s,%d,%s,%s,%s\n", f[2], i, f[3], f[0], f[1])
	}
	swapped := filepath.Join(dir, "swapped.csv")
	writeFile(t, swapped, b.String())
	if got := mustRun(t, "predict", "--model", model, "--data", swapped); got != want {
		t.Errorf("reordered columns predict otherwise:\n%s\nwant\n%s", got, want)
	}
	// A feature column left out is an error naming it.
	writeFile(t, swapped, "c,label,a\n1,0,2\n")
	if _, errs, code := runCLI(t, "predict", "--model", model, "--data", swapped); code == 0 || !strings.Contains(errs, `no column named "b"`) {
		t.Errorf("a missing column: exit %d, %s", code, errs)
	}
}

// TestDataFlagsEdges: --dim reads a LIBSVM file whose index dwarfs it,
// which the bound refuses naming --dim; a missing value's error names
// --fill-missing; a byte-order mark is not part of the header.
func TestDataFlagsEdges(t *testing.T) {
	dir := t.TempDir()
	wide := filepath.Join(dir, "wide.libsvm")
	writeFile(t, wide, "1 1:0.5 1073741824:1\n-1 2:1\n")
	out := filepath.Join(dir, "out.csv")
	_, errs, code := runCLI(t, "data", "convert", wide, out)
	if code == 0 || !strings.Contains(errs, "feature index 1073741824") || !strings.Contains(errs, "(--dim 1073741824)") {
		t.Errorf("a wide index: exit %d, %s", code, errs)
	}
	narrow := filepath.Join(dir, "narrow.libsvm")
	writeFile(t, narrow, "1 1:0.5 3:1\n-1 2:1\n")
	mustRun(t, "data", "convert", "--dim", "5", narrow, out)
	if got := readFile(t, out); !strings.HasPrefix(got, "label,x1,x2,x3,x4,x5\n") {
		t.Errorf("--dim 5: %q", got)
	}
	if _, errs, code := runCLI(t, "data", "convert", "--dim", "-1", narrow, out); code == 0 || !strings.Contains(errs, "--dim must be") {
		t.Errorf("--dim -1: exit %d, %s", code, errs)
	}
	missing := filepath.Join(dir, "missing.csv")
	writeFile(t, missing, "age,size,label\n1,2,0\nNA,3,1\n")
	model := filepath.Join(dir, "m.nsvm")
	_, errs, code = runCLI(t, "train", "--data", missing, "--model", model, "--quiet")
	if code == 0 || !strings.Contains(errs, `missing value "NA" in column "age"`) || !strings.Contains(errs, "--fill-missing fills it") || strings.Contains(errs, "FillMissing") {
		t.Errorf("a missing value: exit %d, %s", code, errs)
	}
	bom := filepath.Join(dir, "bom.csv")
	writeFile(t, bom, "\xef\xbb\xbfx,label,z\n1,0,5\n2,1,6\n")
	mustRun(t, "data", "convert", bom, out)
	if got := readFile(t, out); got != "label,x,z\n0,1,5\n1,2,6\n" {
		t.Errorf("a byte-order mark: %q", got)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
