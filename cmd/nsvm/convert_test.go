package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

// TestDataConvert: a data set converted through every format (gzip input
// too) comes back with the same features and labels.
func TestDataConvert(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	mustRun(t, "data", "ringnorm", "--n", "500", "--seed", "7", "--format", "csv", "--out", p("a.csv"))
	want, err := data.Open(p("a.csv"), data.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, "data", "convert", p("a.csv"), p("b.npz"))
	mustRun(t, "data", "convert", p("b.npz"), p("c.libsvm"))
	gzipFile(t, p("c.libsvm"), p("c.libsvm.gz"))
	out := mustRun(t, "data", "convert", p("c.libsvm.gz"), p("d.npy"))
	if !strings.Contains(out, "500 rows × 20 features") || !strings.Contains(out, "d_y.npy") {
		t.Errorf("output %q", out)
	}
	mustRun(t, "data", "convert", p("d.npy"), "--labels", p("d_y.npy"), p("e.txt"))
	mustRun(t, "data", "convert", "--format", "libsvm", p("e.txt"), p("f.npy"), "--out-labels", p("labels.npy"))
	mustRun(t, "data", "convert", p("f.npy"), p("g.csv"), "--labels", p("labels.npy"))
	for _, name := range []string{"b.npz", "c.libsvm", "g.csv"} {
		got, err := data.Open(p(name), data.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.N != want.N || got.D != want.D || !slices.Equal(got.X, want.X) || !slices.Equal(got.Y, want.Y) {
			t.Fatalf("%s: %d×%d, want %d×%d, or other values", name, got.N, got.D, want.N, want.D)
		}
		got.Close()
	}
}

// TestDataConvertErrors: bad input leaves no file behind (and an existing
// OUT as it was); mistakes are usage errors.
func TestDataConvertErrors(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	mustRun(t, "data", "ringnorm", "--n", "3000", "--seed", "7", "--out", p("a.libsvm"))
	text, _ := os.ReadFile(p("a.libsvm"))
	lines := strings.Split(string(text), "\n")
	lines[2500] = strings.Replace(lines[2500], ":", ":oops", 1)
	os.WriteFile(p("bad.libsvm"), []byte(strings.Join(lines, "\n")), 0o644)
	os.WriteFile(p("old.npz"), []byte("previous contents"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad line", []string{"bad.libsvm", "new.npz"}, 1, "bad.libsvm:2501:"},
		{"bad line, existing out", []string{"bad.libsvm", "old.npz"}, 1, "bad.libsvm:2501:"},
		{"missing input", []string{"none.csv", "new.csv"}, 1, "no such file"},
		{"unknown out", []string{"a.libsvm", "new.parquet"}, 2, "cannot tell the format"},
		{"one argument", []string{"a.libsvm"}, 2, "want IN and OUT"},
		{"same file", []string{"a.libsvm", "a.libsvm"}, 2, "same file"},
		{"out-labels", []string{"a.libsvm", "new.csv", "--out-labels", "y.npy"}, 2, "for a .npy OUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"data", "convert"}
			for _, a := range tc.args {
				if !strings.HasPrefix(a, "-") && a != "y.npy" {
					a = p(a)
				}
				args = append(args, a)
			}
			_, errs, code := runCLI(t, args...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, %s; want %d and %q", code, errs, tc.code, tc.want)
			}
		})
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"a.libsvm", "bad.libsvm", "old.npz"}) {
		t.Errorf("files left: %v", names)
	}
	if b, _ := os.ReadFile(p("old.npz")); string(b) != "previous contents" {
		t.Errorf("old.npz changed to %q", b)
	}
	// A .npy of X alone needs its labels.
	mustRun(t, "data", "convert", p("a.libsvm"), p("x.npy"))
	if _, errs, code := runCLI(t, "data", "convert", p("x.npy"), p("x.csv")); code != 1 || !strings.Contains(errs, "give the .npy file of the labels") {
		t.Errorf("npy without --labels: exit %d, %s", code, errs)
	}
}

func gzipFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
