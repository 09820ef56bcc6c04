package data

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The files in testdata/sparse were written by SciPy 1.10 and NumPy 1.24
// (testdata/sparse/make.py) from the matrix sparseX, labels sparseY and
// weights sparseW.
var (
	sparseX = []float32{
		0, 1.5, 0, 0, -2, 0, 0,
		0, 0, 0, 0, 0, 0, 0,
		3, 0, 0, 0.25, 0, 0, 1,
		0, 0, -0.125, 0, 0, 0, 0,
		0, 4, 0, 0, 0, 5, 0,
	}
	sparseY  = []float64{1, 0, 1, 2, 0}
	sparseW  = []float64{1, 0.5, 2, 1, 0}
	sparseTD = filepath.Join("testdata", "sparse")
)

// sparseData is the data set of the files in testdata/sparse, with rows
// kept sparse.
func sparseData() *Dataset {
	ds := &Dataset{X: slices.Clone(sparseX), Y: slices.Clone(sparseY), N: 5, D: 7}
	ds.Sparsify()
	return ds
}

// TestSparseNPZSciPy: every file SciPy writes (csr, csc and coo; float32
// and float64 values; int32 and int64 indices; compressed and stored;
// unsorted and repeated column indices) reads as the matrix, sparse or
// dense as asked, with its labels from the archive or a .npy.
func TestSparseNPZSciPy(t *testing.T) {
	labels := filepath.Join(sparseTD, "y.npy")
	for _, tc := range []struct {
		file    string
		labels  string // a .npy of y, for the files without it
		weights bool
	}{
		{"csr.npz", labels, false},
		{"csr_stored.npz", labels, false},
		{"csc.npz", labels, false},
		{"coo.npz", labels, false},
		{"csr_i8_y.npz", "", false},
		{"csr_unsorted_w.npz", "", true},
	} {
		path := filepath.Join(sparseTD, tc.file)
		for _, layout := range []string{LayoutAuto, LayoutSparse, LayoutDense} {
			ds, err := Open(path, OpenOptions{Labels: tc.labels, Layout: layout})
			if err != nil {
				t.Fatalf("%s %q: %v", tc.file, layout, err)
			}
			if err := ds.Validate(); err != nil {
				t.Fatalf("%s %q: %v", tc.file, layout, err)
			}
			// Seven features are narrow: dense unless asked.
			if ds.IsSparse() != (layout == LayoutSparse) {
				t.Fatalf("%s %q: sparse = %v", tc.file, layout, ds.IsSparse())
			}
			if ds.IsSparse() {
				if ds.Sparse.NNZ() != 8 {
					t.Fatalf("%s: %d stored values, want 8", tc.file, ds.Sparse.NNZ())
				}
				ds.Densify(0)
			}
			if ds.N != 5 || ds.D != 7 || !slices.Equal(ds.X, sparseX) || !slices.Equal(ds.Y, sparseY) {
				t.Fatalf("%s %q: %d×%d %v %v", tc.file, layout, ds.N, ds.D, ds.X, ds.Y)
			}
			if tc.weights != (ds.W != nil) || tc.weights && !slices.Equal(ds.W, sparseW) {
				t.Fatalf("%s: weights %v", tc.file, ds.W)
			}
		}
		if tc.labels == "" {
			ds, err := OpenNPZ(path)
			if err != nil || ds.N != 5 {
				t.Fatalf("OpenNPZ %s: %v", tc.file, err)
			}
		} else if _, err := OpenNPZ(path); err == nil || !strings.Contains(err.Error(), "holds the features only; add its labels") {
			t.Fatalf("OpenNPZ %s without labels: %v", tc.file, err)
		}
	}
}

func TestSparseNPZErrors(t *testing.T) {
	for _, tc := range []struct {
		file string
		opt  OpenOptions
		want string
	}{
		{"bad_index.npz", OpenOptions{}, "indices.npy: not a supported NumPy array: indices[2] = 7 is outside [0, 6]"},
		{"bad_indptr.npz", OpenOptions{}, "indptr has 5 pointers for 5 rows (csr) or columns (csc); want 6"},
		{"bad_data.npz", OpenOptions{}, "8 indices for 7 values"},
		{"bad_format.npz", OpenOptions{}, `SciPy sparse format "dia"; want csr, csc or coo`},
		{"bad_y.npz", OpenOptions{}, "y.npy has 4 labels for the 5 rows"},
		{"nan.npz", OpenOptions{}, "row 0, feature 1: value is NaN"},
		{"no_indptr.npz", OpenOptions{}, "needs an array indptr, which the archive lacks"},
		{"csr_i8_y.npz", OpenOptions{Labels: filepath.Join(sparseTD, "y.npy")}, "holds its labels y; a labels file"},
		{"csr.npz", OpenOptions{Labels: filepath.Join(npyTD, "y_i8.npy")}, "has 2 labels for the 5 rows"},
		{"csr.npz", OpenOptions{Labels: filepath.Join(sparseTD, "absent.npy")}, "no such file"},
	} {
		_, err := Open(filepath.Join(sparseTD, tc.file), tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.file, err, tc.want)
		}
	}
	// Arrays of the wrong kind, written here.
	dir := t.TempDir()
	write := func(name string, arrays map[string][]byte) string {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, k := range slices.Sorted(maps.Keys(arrays)) {
			w, _ := zw.Create(k + ".npy")
			w.Write(arrays[k])
		}
		zw.Close()
		p := filepath.Join(dir, name)
		os.WriteFile(p, buf.Bytes(), 0o644)
		return p
	}
	npy := func(descr string, shape []int, body ...byte) []byte {
		return append(npyHeaderBytes(descr, shape), body...)
	}
	i32 := func(v ...int32) []byte {
		var buf bytes.Buffer
		for _, x := range v {
			buf.Write([]byte{byte(x), byte(x >> 8), byte(x >> 16), byte(x >> 24)})
		}
		return buf.Bytes()
	}
	good := map[string][]byte{
		"format":  npy("|S3", nil, 'c', 's', 'r'),
		"shape":   npy("<i4", []int{2}, i32(1, 2)...),
		"indices": npy("<i4", []int{1}, i32(1)...),
		"indptr":  npy("<i4", []int{2}, i32(0, 1)...),
		"data":    npy("<f4", []int{1}, 0, 0, 0x80, 0x3f),
		"y":       npy("<i4", []int{1}, i32(1)...),
	}
	with := func(k string, v []byte) map[string][]byte {
		m := maps.Clone(good)
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	ds, err := Open(write("good.npz", good), OpenOptions{})
	if err != nil || ds.N != 1 || ds.D != 2 || !slices.Equal(ds.X, []float32{0, 1}) {
		t.Fatalf("good: %v %v", ds, err)
	}
	if ds, err := Open(write("unicode.npz", with("format", npy("<U3", nil, 'c', 0, 0, 0, 's', 0, 0, 0, 'r', 0, 0, 0))), OpenOptions{}); err != nil || ds.N != 1 {
		t.Fatalf("a Unicode format: %v", err)
	}
	for _, tc := range []struct {
		name    string
		arrays  map[string][]byte
		want    string
		notNPYs bool
	}{
		{"float indices", with("indices", npy("<f4", []int{1}, 0, 0, 0x80, 0x3f)), `indices of dtype "<f4"; want integers`, false},
		{"3-d shape", with("shape", npy("<i4", []int{3}, i32(1, 2, 3)...)), "has 3 dimensions; want (rows, columns)", false},
		{"no rows", with("shape", npy("<i4", []int{2}, i32(0, 2)...)), "no data rows", true},
		{"negative shape", with("shape", npy("<i4", []int{2}, i32(-1, 2)...)), "shape[0] = -1 is outside", false},
		{"format of numbers", with("format", npy("<i4", nil, i32(1)...)), "the format is <i4 of shape []; want a scalar of text", false},
		{"2-d data", with("data", npy("<f4", []int{1, 1}, 0, 0, 0x80, 0x3f)), "values of shape [1 1]; want a one-dimensional array", false},
		{"truncated", with("indices", npy("<i4", []int{2}, i32(1)...)), "truncated", false},
		{"decreasing indptr", with("indptr", npy("<i4", []int{2}, i32(1, 0)...)), "indptr spans [1, 0]", false},
		{"weights", with("w", npy("<f8", []int{2}, make([]byte, 16)...)), "has 2 weights for 1 rows", true},
		{"negative weight", with("w", npy("<f4", []int{1}, 0, 0, 0x80, 0xbf)), "weight 0 is -1", true},
		{"neither", with("format", nil), "a .npz needs arrays X and y (X.npy and y.npy), or a SciPy sparse matrix", false},
	} {
		_, err := Open(write(tc.name+".npz", tc.arrays), OpenOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
			continue
		}
		if !tc.notNPYs && !errors.Is(err, ErrNPY) {
			t.Errorf("%s: %v does not wrap ErrNPY", tc.name, err)
		}
	}
	// A sparse .npz does not stream.
	if _, err := OpenStream(filepath.Join(sparseTD, "csr_i8_y.npz"), OpenOptions{}); err == nil || !strings.Contains(err.Error(), "does not stream") {
		t.Errorf("stream: %v", err)
	}
}

// npzEntryBytes returns the arrays of a .npz by name.
func npzEntryBytes(t *testing.T, b []byte) (map[string][]byte, []string) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	var names []string
	for _, e := range zr.File {
		rc, err := e.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name], err = io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name)
	}
	return out, names
}

// TestSparseNPZGolden: WriteSparseNPZ writes the arrays NumPy writes for
// SciPy's csr matrix of the same rows, byte for byte, in the same order.
func TestSparseNPZGolden(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join(sparseTD, "golden.npz"))
	if err != nil {
		t.Fatal(err)
	}
	want, wantNames := npzEntryBytes(t, golden)
	for _, ds := range []*Dataset{sparseData(), {X: sparseX, Y: sparseY, N: 5, D: 7}} {
		var buf bytes.Buffer
		if err := WriteSparseNPZ(&buf, ds); err != nil {
			t.Fatal(err)
		}
		got, names := npzEntryBytes(t, buf.Bytes())
		if !slices.Equal(names, wantNames) {
			t.Fatalf("arrays %v, want %v", names, wantNames)
		}
		for k, b := range want {
			if !bytes.Equal(got[k], b) {
				t.Errorf("sparse=%v: %s differs from NumPy's:\n%q\n%q", ds.IsSparse(), k, got[k], b)
			}
		}
	}
}

// wideSparse returns a wide, sparse data set (SparseLayout) with weights.
func wideSparse(n, d int, seed uint64) *Dataset {
	ds, _ := readLIBSVMSeq(bytes.NewReader(wideText(n, d, 20, seed)), "w", d, maxDenseValues, LayoutSparse)
	rng := rand.New(rand.NewPCG(seed, 3))
	ds.W = make([]float64, ds.N)
	for i := range ds.W {
		ds.W[i] = rng.Float64() * 3
	}
	return ds
}

// TestSparseNPZRoundTrip: Save writes sparse rows (and dense ones through
// WriteSparseNPZ) that Open reads back as they were, sparse when wide.
func TestSparseNPZRoundTrip(t *testing.T) {
	dir := t.TempDir()
	ds := wideSparse(300, 5000, 4)
	path := filepath.Join(dir, "wide.npz")
	if err := Save(path, ds, ""); err != nil {
		t.Fatal(err)
	}
	back, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !back.IsSparse() || !reflect.DeepEqual(back, ds) {
		t.Fatalf("read back sparse=%v, %d×%d, or other values", back.IsSparse(), back.N, back.D)
	}
	// Dense rows written sparse, read back dense.
	dense := ringnorm(50, newRNG(2))
	var buf bytes.Buffer
	if err := WriteSparseNPZ(&buf, dense); err != nil {
		t.Fatal(err)
	}
	p2 := filepath.Join(dir, "ring.npz")
	os.WriteFile(p2, buf.Bytes(), 0o644)
	back, err = OpenNPZ(p2)
	if err != nil || back.IsSparse() || !bitsEqual(back, dense) {
		t.Fatalf("dense rows: %v", err)
	}
	// A dense data set's weights round trip through WriteNPZ as well.
	dense.W = slices.Repeat([]float64{0.5, 2}, 25)
	p3 := filepath.Join(dir, "ringw.npz")
	if err := Save(p3, dense, ""); err != nil {
		t.Fatal(err)
	}
	back, err = Open(p3, OpenOptions{})
	if err != nil || !back.Mapped() || !bitsEqual(back, dense) {
		t.Fatalf("dense weights: %v", err)
	}
	back.Close()
}

// TestSparseNPZWithSciPy: scipy.sparse.load_npz reads what Save writes
// (a canonical float32 csr matrix), and what SciPy saves of it, as csr and
// as csc, reads back the same. Skipped without Python and SciPy.
func TestSparseNPZWithSciPy(t *testing.T) {
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import scipy.sparse").Run(); err != nil {
		t.Skipf("no SciPy: %v", err)
	}
	dir := t.TempDir()
	ds := wideSparse(200, 3000, 5)
	path := filepath.Join(dir, "go.npz")
	if err := Save(path, ds, ""); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, numpy as np, scipy.sparse as sp
m = sp.load_npz(sys.argv[1])
z = np.load(sys.argv[1])
assert m.format == "csr" and m.dtype == np.float32 and m.indices.dtype == np.int32, (m.format, m.dtype, m.indices.dtype)
assert m.has_canonical_format
assert m.shape == (int(sys.argv[4]), int(sys.argv[5])), m.shape
assert m.nnz == int(sys.argv[6]), m.nnz
a = {k: z[k] for k in ("y", "w")}
np.savez_compressed(sys.argv[2], **a, **{k: v for k, v in np.load(sys.argv[1]).items() if k not in a})
c = sp.csc_matrix(m)
np.savez(sys.argv[3], y=z["y"], w=z["w"], indices=c.indices.astype(np.int64), indptr=c.indptr.astype(np.int64), format=b"csc", shape=c.shape, data=c.data.astype(np.float64))
`
	csr, csc := filepath.Join(dir, "csr.npz"), filepath.Join(dir, "csc.npz")
	out, err := exec.Command(python, "-c", script, path, csr, csc,
		strconv.Itoa(ds.N), strconv.Itoa(ds.D), strconv.Itoa(ds.Sparse.NNZ())).CombinedOutput()
	if err != nil {
		t.Fatalf("SciPy: %v\n%s", err, out)
	}
	for _, p := range []string{csr, csc} {
		back, err := Open(p, OpenOptions{Layout: LayoutSparse})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, ds) {
			t.Fatalf("%s: the rows differ from those written", filepath.Base(p))
		}
	}
}

// FuzzSparseNPZ: whatever the arrays of a SciPy sparse .npz (format,
// shape, indices and pointers, values, labels), reading it either fails
// or gives rows that validate and that WriteSparseNPZ writes back as they
// are.
func FuzzSparseNPZ(f *testing.F) {
	i32 := func(v ...int32) []byte {
		var b []byte
		for _, x := range v {
			b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
		return b
	}
	f.Add(uint8(0), int32(2), int32(3), i32(2, 0, 1), i32(0, 1, 3), i32(0x3f800000, 0x40000000, 0x40400000))
	f.Add(uint8(1), int32(2), int32(3), i32(1, 0, 1), i32(0, 1, 2, 3), i32(0x3f800000, 0x40000000, 0x40400000))
	f.Add(uint8(2), int32(2), int32(3), i32(1, 0, 1), i32(2, 2, 0), i32(0x3f800000, 0x40000000, 0x40400000))
	f.Add(uint8(0), int32(3), int32(2), i32(1, 1), i32(0, 2, 2, 2), i32(0x7fc00000, 1))
	dir := f.TempDir()
	path := filepath.Join(dir, "f.npz")
	f.Fuzz(func(t *testing.T, format uint8, n, d int32, a, b, data []byte) {
		if n < 0 || n > 1000 {
			return // the labels say how many rows there are
		}
		arrays := map[string][]byte{
			"format": append(npyHeaderBytes("|S3", nil), []string{"csr", "csc", "coo"}[format%3]...),
			"shape":  append(npyHeaderBytes("<i4", []int{2}), i32(n, d)...),
			"data":   append(npyHeaderBytes("<f4", []int{len(data) / 4}), data[:len(data)/4*4]...),
			"y":      append(npyHeaderBytes("<f8", []int{int(n)}), make([]byte, 8*n)...),
		}
		ka, kb := "indices", "indptr"
		if format%3 == 2 {
			ka, kb = "row", "col"
		}
		arrays[ka] = append(npyHeaderBytes("<i4", []int{len(a) / 4}), a[:len(a)/4*4]...)
		arrays[kb] = append(npyHeaderBytes("<i4", []int{len(b) / 4}), b[:len(b)/4*4]...)
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, k := range slices.Sorted(maps.Keys(arrays)) {
			w, _ := zw.Create(k + ".npy")
			w.Write(arrays[k])
		}
		zw.Close()
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := Open(path, OpenOptions{Layout: LayoutSparse})
		if err != nil {
			shortError(t, err)
			return
		}
		if err := ds.Validate(); err != nil {
			t.Fatalf("read rows do not validate: %v", err)
		}
		buf.Reset()
		if err := WriteSparseNPZ(&buf, ds); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := Open(path, OpenOptions{Layout: LayoutSparse})
		if err != nil {
			t.Fatalf("written rows do not read back: %v", err)
		}
		if !reflect.DeepEqual(back, ds) {
			t.Fatal("written rows read back otherwise")
		}
	})
}
