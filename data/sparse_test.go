package data

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
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
