package data

import (
	"archive/zip"
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deflatedNPZ writes d as numpy.savez_compressed would: X.npy and y.npy
// deflated.
func deflatedNPZ(t *testing.T, path string, d *Dataset) {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"X.npy", func(b *bytes.Buffer) error { return WriteNPY(b, d) }},
		{"y.npy", func(b *bytes.Buffer) error { return WriteNPYLabels(b, d.Y) }},
	} {
		var a bytes.Buffer
		if err := e.write(&a); err != nil {
			t.Fatal(err)
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(a.Bytes())
	}
	zw.Close()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStreamNPY: streaming .npy pairs and .npz archives (stored and
// deflated) in blocks of any size gives Open's data; Rewind repeats it;
// images keep their shape.
func TestStreamNPY(t *testing.T) {
	dir := t.TempDir()
	ring := ringnorm(1500, rand.New(rand.NewPCG(3, 4)))
	img := &Dataset{N: 50, D: 12, Shape: []int{1, 3, 4}, Y: make([]float64, 50), X: make([]float32, 600)}
	for i := range img.X {
		img.X[i] = float32(i % 256)
	}
	for _, ds := range []*Dataset{ring, img} {
		p := func(name string) string { return filepath.Join(dir, name) }
		writeFile(t, p("s.npz"), func(b *bytes.Buffer) error { return WriteNPZ(b, ds) })
		deflatedNPZ(t, p("d.npz"), ds)
		writeFile(t, p("X.npy"), func(b *bytes.Buffer) error { return WriteNPY(b, ds) })
		writeFile(t, p("y.npy"), func(b *bytes.Buffer) error { return WriteNPYLabels(b, ds.Y) })
		for _, name := range []string{"s.npz", "d.npz", "X.npy"} {
			opt := OpenOptions{}
			if name == "X.npy" {
				opt.Labels = p("y.npy")
			}
			s, err := OpenStream(p(name), opt)
			if err != nil {
				t.Fatal(err)
			}
			if s.D() != ds.D || s.Rows() != ds.N || !slices.Equal(s.Shape(), ds.InputShape()) {
				t.Fatalf("%s: D %d Rows %d Shape %v, want %d %d %v", name, s.D(), s.Rows(), s.Shape(), ds.D, ds.N, ds.InputShape())
			}
			for _, b := range []int{1, 7, 4096} {
				if err := s.Rewind(); err != nil {
					t.Fatal(err)
				}
				got := readAll(t, s, b)
				if !sameData(got, ds) {
					t.Fatalf("%s, blocks of %d: %d rows, want %d, or other values", name, b, got.N, ds.N)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestStreamNPYErrors: a NaN in the middle of X is an error naming its
// row; a lone .npy needs its labels.
func TestStreamNPYErrors(t *testing.T) {
	dir := t.TempDir()
	ds := ringnorm(300, rand.New(rand.NewPCG(3, 4)))
	ds.X[211*ds.D+4] = float32(math.Inf(-1))
	path := filepath.Join(dir, "bad.npz")
	writeFile(t, path, func(b *bytes.Buffer) error { return WriteNPZ(b, ds) })
	s, err := OpenStream(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x := make([]float32, 64*s.D())
	y := make([]float64, 64)
	for err == nil {
		_, err = s.Next(x, y)
	}
	if !strings.Contains(err.Error(), "bad.npz:X.npy: row 211, feature 4 is -Inf") {
		t.Fatalf("error %v, want one naming row 211", err)
	}
	if _, err := OpenStream(filepath.Join(npyTD, "x_f4.npy"), OpenOptions{}); err == nil || !strings.Contains(err.Error(), "labels") {
		t.Fatalf("lone .npy: %v", err)
	}
}
