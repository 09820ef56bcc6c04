package data

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// wideText returns LIBSVM text of n rows over d features with about k
// nonzeros a row.
func wideText(n, d, k int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	for i := range n {
		b.WriteString(strconv.Itoa(i % 3))
		j := 0
		for range k {
			j += 1 + rng.IntN(2*d/k)
			if j > d {
				break
			}
			b.WriteString(" " + strconv.Itoa(j) + ":" + strconv.FormatFloat(rng.Float64(), 'g', 4, 32))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestReadLIBSVMSparse: wide, sparse text is kept sparse by every reader
// (sequential, chunked parallel, Open on a file), with the same rows as the
// dense layout gives.
func TestReadLIBSVMSparse(t *testing.T) {
	text := wideText(3000, 20000, 30, 1)
	dense, err := readLIBSVMSeq(bytes.NewReader(text), "w", 0, maxDenseValues, LayoutDense)
	if err != nil {
		t.Fatal(err)
	}
	if dense.IsSparse() || dense.D < sparseMinD {
		t.Fatalf("dense layout: sparse=%v D=%d", dense.IsSparse(), dense.D)
	}
	path := filepath.Join(t.TempDir(), "w.libsvm")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	read := map[string]func(layout string) (*Dataset, error){
		"seq": func(l string) (*Dataset, error) {
			return readLIBSVMSeq(bytes.NewReader(text), "w", 0, maxDenseValues, l)
		},
		"parallel": func(l string) (*Dataset, error) {
			var ds *Dataset
			var err error
			withChunks(4<<10, func() { ds, err = readLIBSVM(bytes.NewReader(text), "w", 0, maxDenseValues, l) })
			return ds, err
		},
		"open": func(l string) (*Dataset, error) { return Open(path, OpenOptions{Layout: l}) },
	}
	for name, f := range read {
		for _, l := range []string{LayoutAuto, LayoutSparse, LayoutDense} {
			ds, err := f(l)
			if err != nil {
				t.Fatalf("%s %q: %v", name, l, err)
			}
			if err := ds.Validate(); err != nil {
				t.Fatalf("%s %q: %v", name, l, err)
			}
			if ds.IsSparse() != (l != LayoutDense) {
				t.Fatalf("%s %q: sparse = %v", name, l, ds.IsSparse())
			}
			if ds.IsSparse() {
				if err := ds.Densify(0); err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(ds, dense) {
				t.Fatalf("%s %q: rows differ from the dense layout's", name, l)
			}
		}
	}
	// Narrow data stay dense under LayoutAuto.
	narrow := wideText(2000, 50, 10, 2)
	ds, err := readLIBSVM(bytes.NewReader(narrow), "n", 0, maxDenseValues, LayoutAuto)
	if err != nil || ds.IsSparse() {
		t.Fatalf("narrow: sparse=%v err=%v", ds != nil && ds.IsSparse(), err)
	}
	if _, err := Open(path, OpenOptions{Layout: "csr"}); err == nil {
		t.Fatal("an unknown layout was accepted")
	}
}

// TestSparseDataset: Vec, Subset, Validate, Densify and the dot products
// on sparse rows agree with the dense ones.
func TestSparseDataset(t *testing.T) {
	x := []float32{0, 1, 0, 2, 3, 0, 0, 0, 0, 0, 4, 5}
	ds := &Dataset{X: x, Y: []float64{0, 1, 0}, N: 3, D: 4, W: []float64{1, 2, 3}}
	sp := ds.Subset([]int{0, 1, 2})
	sp.Sparsify()
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	if sp.NNZ() != 5 {
		t.Fatalf("NNZ = %d, want 5", sp.NNZ())
	}
	for i := range 3 {
		for k := range 3 {
			want := DotVec(ds.Vec(i), ds.Vec(k))
			if got := DotVec(sp.Vec(i), sp.Vec(k)); got != want {
				t.Fatalf("dot(%d,%d) = %v, want %v", i, k, got, want)
			}
			if got := DotVec(sp.Vec(i), ds.Vec(k)); got != want {
				t.Fatalf("mixed dot(%d,%d) = %v, want %v", i, k, got, want)
			}
		}
		if sp.Vec(i).SqNorm() != ds.Vec(i).SqNorm() {
			t.Fatal("norms differ")
		}
	}
	sub := sp.Subset([]int{2, 0})
	if sub.W[0] != 3 || sub.Y[0] != 0 || sub.Vec(0).Idx[0] != 2 {
		t.Fatalf("Subset: %+v %+v", sub.W, sub.Vec(0))
	}
	if err := sub.Densify(0); err != nil || !reflect.DeepEqual(sub.X, []float32{0, 0, 4, 5, 0, 1, 0, 2}) {
		t.Fatalf("Densify: %v %v", sub.X, err)
	}
	if err := sp.Densify(4); !errors.Is(err, ErrSparse) {
		t.Fatalf("Densify beyond its bound: %v", err)
	}
	bad := sp.Subset([]int{0, 1})
	bad.Sparse.Idx[0] = 7
	if err := bad.Validate(); err == nil {
		t.Fatal("a column outside D was accepted")
	}
	bad = sp.Subset([]int{0})
	bad.W = []float64{-1}
	if err := bad.Validate(); err == nil {
		t.Fatal("a negative weight was accepted")
	}
}

// TestSparseWriters: the text writers write sparse rows as they write the
// same rows dense; the writers of dense NumPy arrays refuse them, naming
// the sparse .npz; Save chooses by extension.
func TestSparseWriters(t *testing.T) {
	sp := wideSparse(40, 1500, 7)
	dense := sp.Subset(rowsOf(sp))
	if err := dense.Densify(0); err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(io.Writer, *Dataset) error{
		"csv":    func(w io.Writer, d *Dataset) error { return WriteCSV(w, d, true) },
		"libsvm": WriteLIBSVM,
	} {
		var a, b bytes.Buffer
		if err := write(&a, sp); err != nil {
			t.Fatal(err)
		}
		if err := write(&b, dense); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: sparse rows are written otherwise than dense ones", name)
		}
	}
	for name, write := range map[string]func(io.Writer, *Dataset) error{"WriteNPY": WriteNPY, "WriteNPZ": WriteNPZ} {
		err := write(io.Discard, sp)
		if !errors.Is(err, ErrSparse) || !strings.Contains(err.Error(), "SciPy sparse .npz") {
			t.Errorf("%s of sparse rows: %v", name, err)
		}
	}
	dir := t.TempDir()
	one := sp.Subset([]int{0})
	one.W = nil
	if err := Save(filepath.Join(dir, "x.npy"), one, ""); !errors.Is(err, ErrSparse) {
		t.Errorf("Save .npy of sparse rows: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x_y.npy")); err == nil {
		t.Error("Save left the labels of a .npy it refused")
	}
	for _, ext := range []string{".libsvm", ".npy"} {
		if err := Save(filepath.Join(dir, "w"+ext), dense, ""); err == nil || !strings.Contains(err.Error(), "no place for the sample weights") {
			t.Errorf("Save %s with weights: %v", ext, err)
		}
	}
	// CSV and LIBSVM files read back as the rows written.
	for _, ext := range []string{".csv", ".libsvm"} {
		p := filepath.Join(dir, "s"+ext)
		d := sp
		if ext == ".libsvm" {
			d = sp.Subset([]int{0, 1, 2})
			d.W = nil
		}
		if err := Save(p, d, ""); err != nil {
			t.Fatal(err)
		}
		back, err := Open(p, OpenOptions{Layout: LayoutSparse, Dim: d.D, CSV: CSVOptions{WeightCol: "weight"}})
		if err != nil {
			t.Fatal(err)
		}
		if back.IsSparse() {
			back.Densify(0)
		}
		want := d.Subset(rowsOf(d))
		want.Densify(0)
		if !bitsEqual(back, want) {
			t.Fatalf("%s: read back otherwise", ext)
		}
	}
}

// TestSparseHelpers: Split, StratifiedHoldout and FilterLabels take
// sparse rows as they take dense ones; a Standardizer scales sparse rows
// without centering them.
func TestSparseHelpers(t *testing.T) {
	sp := wideSparse(120, 2000, 8)
	all := rowsOf(sp)
	dense := sp.Subset(all)
	dense.Densify(0)
	same := func(what string, a, b *Dataset) {
		t.Helper()
		if !a.IsSparse() {
			t.Fatalf("%s: the rows were made dense", what)
		}
		c := a.Subset(all[:a.N])
		c.Densify(0)
		if !bitsEqual(c, b) {
			t.Fatalf("%s: sparse and dense rows differ", what)
		}
	}
	tr, te := Split(sp, 30, newRNG(1))
	dtr, dte := Split(dense, 30, newRNG(1))
	same("Split train", tr, dtr)
	same("Split test", te, dte)
	rest, held := StratifiedHoldout(sp, 5, newRNG(2))
	drest, dheld := StratifiedHoldout(dense, 5, newRNG(2))
	same("StratifiedHoldout rest", rest, drest)
	same("StratifiedHoldout held", held, dheld)
	same("FilterLabels", FilterLabels(sp, []float64{0, 2}), FilterLabels(dense, []float64{0, 2}))

	st := FitStandardizer(sp)
	ref := FitStandardizer(dense)
	if st.Centers() || !ref.Centers() {
		t.Fatal("the sparse fit centers, or the dense one does not")
	}
	for j := range st.Std {
		if d := st.Std[j] - ref.Std[j]; d > 1e-12*ref.Std[j] || -d > 1e-12*ref.Std[j] {
			t.Fatalf("Std[%d] = %v, dense %v", j, st.Std[j], ref.Std[j])
		}
	}
	scaled := sp.Subset(all)
	st.Apply(scaled)
	scaledDense := dense.Subset(all)
	st.Apply(scaledDense) // Mean 0: scaling only
	same("Apply", scaled, scaledDense)
	row := sp.Subset([]int{0})
	st.ApplyVec(row.Vec(0))
	if !slices.Equal(row.Sparse.Val, scaled.Sparse.Row(0).Val) {
		t.Fatal("ApplyVec differs from Apply")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "applied to sparse rows") {
			t.Fatalf("a centering Standardizer on sparse rows: %v", r)
		}
	}()
	ref.Apply(sp)
}

// rowsOf returns the indices of d's rows, for Subset to copy them all.
func rowsOf(d *Dataset) []int {
	idx := make([]int, d.N)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// TestVecNonzeros: a row's nonzeros, dense or sparse, with their columns
// in storage order; a stored zero is left out; breaking off stops it.
func TestVecNonzeros(t *testing.T) {
	type nz struct {
		j int
		v float32
	}
	collect := func(v Vec) []nz {
		var out []nz
		for j, x := range v.Nonzeros() {
			out = append(out, nz{j, x})
		}
		return out
	}
	want := []nz{{1, 2}, {4, -1}}
	if got := collect(Dense([]float32{0, 2, 0, 0, -1})); !slices.Equal(got, want) {
		t.Errorf("dense: %v, want %v", got, want)
	}
	if got := collect(Vec{Idx: []int32{1, 3, 4}, Val: []float32{2, 0, -1}}); !slices.Equal(got, want) {
		t.Errorf("sparse: %v, want %v", got, want)
	}
	if got := collect(Vec{Idx: []int32{}, Val: []float32{}}); got != nil {
		t.Errorf("empty: %v", got)
	}
	n := 0
	for range Dense([]float32{1, 1, 1}).Nonzeros() {
		n++
		break
	}
	if n != 1 {
		t.Errorf("break: %d values", n)
	}
}

// TestLayOut: rows given sparse take the layout the LIBSVM reader gives the
// same rows.
func TestLayOut(t *testing.T) {
	for _, c := range []struct {
		name      string
		text      string
		wantDense bool
	}{
		{"narrow", "1 1:0.5 3:0.25\n-1 2:1 13:0.5\n", true},
		{"wide and sparse", "1 1:0.5 3:0.25\n-1 2:1 2000:0.5\n", false},
	} {
		read, err := OpenReader(strings.NewReader(c.text), "t.libsvm", OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if (read.Sparse == nil) != c.wantDense {
			t.Fatalf("%s: the reader's layout is not the case's", c.name)
		}
		given, _ := OpenReader(strings.NewReader(c.text), "t.libsvm", OpenOptions{Layout: LayoutSparse})
		if err := given.LayOut(LayoutAuto); err != nil {
			t.Fatal(err)
		}
		if (given.Sparse == nil) != c.wantDense || given.Sparse == nil && !slices.Equal(given.X, read.X) {
			t.Errorf("%s: LayOut gave other rows than the reader", c.name)
		}
	}
	ds := &Dataset{N: 1, D: 2, X: []float32{1, 2}}
	if err := ds.LayOut("diagonal"); err == nil {
		t.Error("an unknown layout: no error")
	}
}
