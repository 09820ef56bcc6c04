package data

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// readSparse reads s to its end in blocks of b rows with ReadSparse.
func readSparse(t *testing.T, s *Stream, b int) *Dataset {
	t.Helper()
	out := &Dataset{D: s.D(), Y: []float64{}, Sparse: &CSR{Ptr: []int64{0}}}
	for {
		ds, err := s.ReadSparse(b)
		if err != nil {
			t.Fatal(err)
		}
		if ds.N == 0 {
			return out
		}
		if err := ds.Validate(); err != nil {
			t.Fatal(err)
		}
		m := out.Sparse
		for i := range ds.N {
			r := ds.Sparse.Row(i)
			m.Idx = append(m.Idx, r.Idx...)
			m.Val = append(m.Val, r.Val...)
			m.Ptr = append(m.Ptr, int64(len(m.Val)))
		}
		out.Y = append(out.Y, ds.Y...)
		out.N += ds.N
	}
}

// TestStreamSparse: a wide, sparse LIBSVM file streams as sparse rows
// (Layout, ReadSparse), plain or compressed, with the rows Open reads,
// in memory far below the dense rows'; other streams read sparse rows too.
func TestStreamSparse(t *testing.T) {
	dir := t.TempDir()
	text := wideText(3000, 200000, 30, 9)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text)
	zw.Close()
	plain, comp := filepath.Join(dir, "w.libsvm"), filepath.Join(dir, "w.libsvm.gz")
	os.WriteFile(plain, text, 0o644)
	os.WriteFile(comp, gz.Bytes(), 0o644)
	want, err := Open(plain, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !want.IsSparse() {
		t.Fatal("Open made the wide file dense")
	}
	for _, tc := range []struct {
		path string
		opt  OpenOptions
	}{
		{plain, OpenOptions{}},
		{comp, OpenOptions{}},
		{comp, OpenOptions{Dim: want.D}}, // no first pass: wide is enough
	} {
		s, err := OpenStream(tc.path, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if s.Layout() != LayoutSparse {
			t.Fatalf("%s %+v: layout %q", filepath.Base(tc.path), tc.opt, s.Layout())
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := readSparse(t, s, 700)
		runtime.ReadMemStats(&after)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the sparse rows differ from Open's", filepath.Base(tc.path))
		}
		// Dense rows would be 2.4 GB.
		if a := after.TotalAlloc - before.TotalAlloc; a > 256<<20 {
			t.Fatalf("%s: %d MB allocated reading sparse rows", filepath.Base(tc.path), a>>20)
		}
		// Next still reads dense rows, after a Rewind.
		if err := s.Rewind(); err != nil {
			t.Fatal(err)
		}
		x, y := make([]float32, 2*s.D()), make([]float64, 2)
		if n, err := s.Next(x, y); n != 2 || err != nil {
			t.Fatalf("Next: %d %v", n, err)
		}
		dense := want.Subset([]int{0, 1})
		dense.Densify(0)
		if !reflect.DeepEqual(x, dense.X) || y[0] != want.Y[0] {
			t.Fatal("Next's dense rows differ")
		}
		s.Close()
	}
	// Narrow LIBSVM, CSV and NumPy streams are dense, and read sparse rows
	// as asked.
	ring := ringnorm(600, newRNG(5))
	for _, name := range []string{"r.libsvm", "r.csv", "r.npz"} {
		p := filepath.Join(dir, name)
		if err := Save(p, ring, ""); err != nil {
			t.Fatal(err)
		}
		for _, layout := range []string{LayoutAuto, LayoutSparse} {
			s, err := OpenStream(p, OpenOptions{Layout: layout})
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]string{"": LayoutDense, "sparse": LayoutSparse}[layout]; s.Layout() != want {
				t.Fatalf("%s %q: layout %q", name, layout, s.Layout())
			}
			got := readSparse(t, s, 250)
			got.Densify(0)
			got.Shape = nil
			if !bitsEqual(got, ring) {
				t.Fatalf("%s: sparse rows differ", name)
			}
			s.Close()
		}
	}
}

// TestStreamSparseErrors: a bad line in a wide file is reported with its
// line, found without dense rows of the file's width.
func TestStreamSparseErrors(t *testing.T) {
	dir := t.TempDir()
	text := wideText(2000, 500000, 20, 10)
	text = append(text, "1 3:1 2:5\n"...)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text)
	zw.Close()
	for name, b := range map[string][]byte{"w.libsvm": text, "w.libsvm.gz": gz.Bytes()} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := OpenStream(p, OpenOptions{})
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), name+":2001: feature index 2 after 3") {
			t.Fatalf("%s: error %v", name, err)
		}
		if a := after.TotalAlloc - before.TotalAlloc; a > 256<<20 {
			t.Fatalf("%s: %d MB allocated finding the error", name, a>>20)
		}
	}
}
