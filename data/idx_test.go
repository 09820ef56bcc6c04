package data

import (
	"bytes"
	"compress/gzip"
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
