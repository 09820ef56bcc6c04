package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func writeTemp(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWidthBomb: a 40 KB LIBSVM file with one index 2³⁰ is refused by
// every reader (naming the line, the index and the way to read it) before
// anything of that width is allocated; with the width given it reads as
// sparse rows. A SciPy sparse matrix of shape (600, 2³¹−1) likewise.
func TestWidthBomb(t *testing.T) {
	var b strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&b, "%d 1:0.5 3:1\n", i%2)
	}
	b.WriteString("1 2:1 1073741824:1\n")
	text := []byte(b.String())
	for name, body := range map[string][]byte{"w.libsvm": text, "w.libsvm.gz": gzipBytes(text)} {
		p := writeTemp(t, name, body)
		var err error
		a := allocated(func() { _, err = Open(p, OpenOptions{}) })
		var we *WidthError
		if !errors.As(err, &we) || we.Width != 1<<30 || !strings.Contains(err.Error(), name+":4001: feature index 1073741824 makes 1073741824 features") {
			t.Fatalf("%s: error %v", name, err)
		}
		if a > 64<<20 {
			t.Errorf("%s: %d MB allocated to refuse it", name, a>>20)
		}
		_, err = OpenStream(p, OpenOptions{})
		if !errors.As(err, &we) {
			t.Errorf("%s: stream error %v", name, err)
		}
		ds, err := Open(p, OpenOptions{Dim: 1 << 30})
		if err != nil || !ds.IsSparse() || ds.D != 1<<30 {
			t.Fatalf("%s with the width given: %v", name, err)
		}
	}
	if _, err := readLIBSVMSeq(bytes.NewReader(text), "w", 0, maxDenseValues, LayoutAuto); !errors.As(err, new(*WidthError)) {
		t.Errorf("sequential reader: %v", err)
	}
	// The SciPy matrix.
	ds := &Dataset{N: 600, D: 1<<31 - 1, Y: make([]float64, 600), Sparse: &CSR{Ptr: make([]int64, 601)}}
	ds.Sparse.Idx, ds.Sparse.Val, ds.Sparse.Ptr[600] = []int32{5}, []float32{1}, 1
	for i := 1; i < 600; i++ {
		ds.Sparse.Ptr[i] = 1
	}
	var npz bytes.Buffer
	if err := WriteSparseNPZ(&npz, ds); err != nil {
		t.Fatal(err)
	}
	p := writeTemp(t, "s.npz", npz.Bytes())
	_, err := Open(p, OpenOptions{})
	if !errors.As(err, new(*WidthError)) || !strings.Contains(err.Error(), "the shape (600, 2147483647)") {
		t.Fatalf("sparse .npz: error %v", err)
	}
	if back, err := Open(p, OpenOptions{Dim: 1<<31 - 1}); err != nil || !back.IsSparse() {
		t.Fatalf("sparse .npz with the width given: %v", err)
	}
}

// TestDenseBudget: narrow rows that are nearly all zeros (a width that
// dwarfs the nonzeros) are kept sparse rather than dense beyond
// MemoryBudget of the text.
func TestDenseBudget(t *testing.T) {
	text := []byte(strings.Repeat("1 1:1\n", 1000) + "2 1000:1\n")
	ds, err := readLIBSVM(bytes.NewReader(text), "n", 0, maxDenseValues, LayoutAuto)
	if err != nil || ds.IsSparse() {
		t.Fatalf("1001 rows of 1000: %v, sparse %v (dense is within the budget)", err, ds.IsSparse())
	}
	if !chooseSparse(t, 1<<20, 1000) || chooseSparse(t, 1000, 1000) {
		t.Error("the budget: 2²⁰ rows of 1000 features from 6 MB are sparse, 1000 rows dense")
	}
}

// chooseSparse reports the layout chosen for n near-empty rows of d
// features read from 6 bytes a row.
func chooseSparse(t *testing.T, n, d int) bool {
	sparse, err := chooseLayout("n", LayoutAuto, n, d, n, maxDenseValues, 6*int64(n))
	if err != nil {
		t.Fatal(err)
	}
	return sparse
}

// TestLongLine: a line over the bound, in a gzip file of a few hundred
// bytes, is an error naming it and quoting 80 characters of it, from every
// reader, without holding the line.
func TestLongLine(t *testing.T) {
	withValue(&maxLineBytes, 1<<20, func() {
		text := "1 1:1\n2 1:" + strings.Repeat("9", 8<<20) + "\n1 2:1\n"
		csvText := "a,label\n1,2\n" + strings.Repeat("x", 8<<20) + ",1\n"
		for name, body := range map[string]string{"l.libsvm.gz": text, "l.csv.gz": csvText, "l.libsvm": text, "l.csv": csvText} {
			b := []byte(body)
			if strings.HasSuffix(name, ".gz") {
				b = gzipBytes(b)
			}
			p := writeTemp(t, name, b)
			var err error
			a := allocated(func() { _, err = Open(p, OpenOptions{}) })
			line := map[bool]string{true: ":3:", false: ":2:"}[strings.Contains(name, "csv")]
			if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), name+line+" a line of more than 1048576 bytes") || len(err.Error()) > 400 {
				t.Errorf("%s: error %.500v", name, err)
			}
			if a > 40<<20 && strings.HasSuffix(name, ".gz") {
				t.Errorf("%s: %d MB allocated", name, a>>20)
			}
			s, err := OpenStream(p, OpenOptions{})
			if err == nil {
				_, err = s.ReadRows(10)
				s.Close()
			}
			if !errors.Is(err, ErrLineTooLong) || len(err.Error()) > 400 {
				t.Errorf("%s: stream error %.500v", name, err)
			}
		}
	})
}

// cityCSV is n rows of a CSV file x,city,label whose city column cycles
// through distinct values c0, c1, …, a third of the rows taking one of the
// frequent c0 … c6.
func cityCSV(n, distinct int) []byte {
	var b strings.Builder
	b.WriteString("x,city,label\n")
	for i := range n {
		c := i % distinct
		if i%3 == 0 {
			c = i % 7
		}
		fmt.Fprintf(&b, "%d,c%d,%d\n", i%10, c, i%2)
	}
	return []byte(b.String())
}

// TestCategoryBomb: a text column nearly half distinct (18 000 categories
// in 40 000 rows, under 1 MB) keeps every category as sparse one-hot rows,
// within the memory budget and without a notice; the model's columns read
// an unseen value as no category, into the same layout.
func TestCategoryBomb(t *testing.T) {
	text := cityCSV(40000, 18000)
	var ds *Dataset
	var err error
	a := allocated(func() { ds, err = ReadCSV(bytes.NewReader(text), "c.csv", CSVOptions{}) })
	if err != nil {
		t.Fatal(err)
	}
	city := ds.Columns[1]
	if ds.Sparse == nil || ds.X != nil || city.Other || len(city.Categories) != 12003 || ds.D != 12004 || ds.Sparse.NNZ() > 2*ds.N {
		t.Fatalf("%d×%d, sparse %v, city: %d categories, other %v", ds.N, ds.D, ds.Sparse != nil, len(city.Categories), city.Other)
	}
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	// Row 4: x = 4, city c4.
	want := make([]float32, ds.D)
	want[0] = 4
	k, _ := slices.BinarySearch(city.Categories, "c4")
	want[1+k] = 1
	got := make([]float32, ds.D)
	ds.Vec(4).Scatter(got)
	if !slices.Equal(got, want) {
		t.Errorf("row 4: features %v at %v", ds.Vec(4).Val, ds.Vec(4).Idx)
	}
	if len(ds.Notices) != 0 {
		t.Errorf("notices %q", ds.Notices)
	}
	if lim := uint64(MemoryBudget(int64(len(text)))); a > lim {
		t.Errorf("%d MB allocated, more than the budget %d MB", a>>20, lim>>20)
	}
	row := make([]float32, ds.D)
	if err := EncodeRow(ds.Columns, []string{"3", "nowhere"}, row); err != nil || row[0] != 3 || slices.Max(row[1:]) != 0 {
		t.Errorf("an unseen city: %v, %v", err, row[:3])
	}
	// A row read with the columns: dense (one row fits), the same features.
	again, err := ReadCSV(bytes.NewReader([]byte("x,city,label\n3,nowhere,1\n")), "n.csv", CSVOptions{Columns: ds.Columns})
	if err != nil || again.Sparse != nil || !slices.Equal(again.Row(0), row) {
		t.Errorf("read with the columns: %v", err)
	}
	// The first 3000 rows, every category dense within the budget: dense.
	lines := bytes.SplitAfter(text, []byte("\n"))
	head := bytes.Join(lines[:3001], nil)
	small, err := ReadCSV(bytes.NewReader(head), "h.csv", CSVOptions{})
	if err != nil || small.Sparse != nil || small.Columns[1].Other {
		t.Fatalf("3000 rows: sparse %v, %v", small != nil && small.Sparse != nil, err)
	}
	// The whole file read with the columns: sparse again.
	again, err = ReadCSV(bytes.NewReader(text), "c.csv", CSVOptions{Columns: ds.Columns})
	if err != nil || again.Sparse == nil {
		t.Fatalf("read with the columns: %v", err)
	}
	for _, i := range []int{0, 4, 39999} {
		a, b := make([]float32, ds.D), make([]float32, ds.D)
		ds.Vec(i).Scatter(a)
		again.Vec(i).Scatter(b)
		if !slices.Equal(a, b) {
			t.Errorf("row %d read with the columns: %v at %v, want %v at %v", i, again.Vec(i).Val, again.Vec(i).Idx, ds.Vec(i).Val, ds.Vec(i).Idx)
		}
	}
}

// TestCategoryGroups: one-hot features too dense to keep sparse (under
// 1024 of them) and too many rows for every category in an eighth of the
// memory budget keep their most frequent categories, the others grouped,
// with a notice; the model's columns encode an unseen value as the
// grouped category.
func TestCategoryGroups(t *testing.T) {
	text := cityCSV(40000, 1000)
	ds, err := ReadCSV(bytes.NewReader(text), "c.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	city := ds.Columns[1]
	if ds.Sparse != nil || !city.Other || len(city.Categories) < 7 || int64(ds.N)*int64(ds.D)*4 > MemoryBudget(int64(len(text)))/8 {
		t.Fatalf("%d×%d, sparse %v, city: %d categories, other %v", ds.N, ds.D, ds.Sparse != nil, len(city.Categories), city.Other)
	}
	for k := range 7 {
		if _, ok := slices.BinarySearch(city.Categories, fmt.Sprintf("c%d", k)); !ok {
			t.Errorf("the frequent category c%d was grouped", k)
		}
	}
	if len(ds.Notices) != 1 || !strings.Contains(ds.Notices[0], `feature "city" has `) {
		t.Errorf("notices %q", ds.Notices)
	}
	row := make([]float32, ds.D)
	if err := EncodeRow(ds.Columns, []string{"3", "nowhere"}, row); err != nil || row[len(row)-1] != 1 || row[0] != 3 {
		t.Errorf("an unseen city: %v, grouped feature %v", err, row[len(row)-1])
	}
	again, err := ReadCSV(bytes.NewReader([]byte("x,city,label\n3,nowhere,1\n")), "n.csv", CSVOptions{Columns: ds.Columns})
	if err != nil || !slices.Equal(again.Row(0), row) {
		t.Errorf("read with the columns: %v", err)
	}
}

// TestBOM: a byte-order mark before a header is not part of its first
// name, in every reader.
func TestBOM(t *testing.T) {
	csvText := []byte("\xef\xbb\xbflabel,a,b\n1,2,3\n0,4,5\n")
	libText := []byte("\xef\xbb\xbf1 1:2 2:3\n0 1:4 2:5\n")
	for name, b := range map[string][]byte{"b.csv": csvText, "b.csv.gz": gzipBytes(csvText), "b.libsvm": libText, "b.libsvm.gz": gzipBytes(libText)} {
		p := writeTemp(t, name, b)
		ds, err := Open(p, OpenOptions{})
		if err != nil || !slices.Equal(ds.Y, []float64{1, 0}) || !slices.Equal(ds.X, []float32{2, 3, 4, 5}) {
			t.Errorf("%s: %v %v %v", name, err, ds.Y, ds.X)
			continue
		}
		s, err := OpenStream(p, OpenOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := s.ReadRows(5)
		s.Close()
		if err != nil || !slices.Equal(got.Y, []float64{1, 0}) || !slices.Equal(got.X, []float32{2, 3, 4, 5}) {
			t.Errorf("%s stream: %v %v %v", name, err, got.Y, got.X)
		}
	}
	if ds, err := readLIBSVMSeq(bytes.NewReader(libText), "b", 0, maxDenseValues, LayoutAuto); err != nil || ds.N != 2 {
		t.Errorf("sequential LIBSVM: %v", err)
	}
}

// TestUnlabelled: rows without labels read with Y nil: a CSV with the
// model's columns and no label column (by name, or by their number
// without a header), an empty label column, LIBSVM lines of features, a
// stream of each; Validate refuses them for training.
func TestUnlabelled(t *testing.T) {
	cols := []Column{{Name: "a"}, {Name: "b"}}
	for name, tc := range map[string]struct {
		text string
		opt  CSVOptions
	}{
		"by name":      {"b,a\n2,1\n4,3\n", CSVOptions{Columns: cols}},
		"by number":    {"1,2\n3,4\n", CSVOptions{Columns: []Column{{}, {}}}},
		"empty labels": {"a,b,label\n1,2,\n3,4,\n", CSVOptions{}},
	} {
		ds, err := ReadCSV(strings.NewReader(tc.text), "u.csv", tc.opt)
		if err != nil || ds.Y != nil || !slices.Equal(ds.X, []float32{1, 2, 3, 4}) {
			t.Errorf("%s: %v, Y %v, X %v", name, err, ds.Y, ds.X)
			continue
		}
		if err := ds.Validate(); !errors.Is(err, ErrNoLabels) || ds.ValidateInputs() != nil {
			t.Errorf("%s: Validate %v, ValidateInputs %v", name, err, ds.ValidateInputs())
		}
		p := writeTemp(t, "u.csv", []byte(tc.text))
		opt := OpenOptions{CSV: tc.opt}
		s, err := OpenStream(p, opt)
		if name == "empty labels" {
			continue // a stream cannot know the column is empty to the end
		}
		if err != nil || s.Labelled() {
			t.Fatalf("%s: stream %v, labelled %v", name, err, s != nil && s.Labelled())
		}
		got, err := s.ReadRows(5)
		s.Close()
		if err != nil || got.Y != nil || !slices.Equal(got.X, []float32{1, 2, 3, 4}) {
			t.Errorf("%s: stream %v, %v", name, err, got.X)
		}
	}
	lib := "1:1 2:2\n# c\n2:4 1:3\n"
	if _, err := ReadLIBSVM(strings.NewReader(lib), "u", 0); err == nil {
		t.Error("decreasing indices read")
	}
	lib = "1:1 2:2\n# c\n1:3 2:4\n"
	for _, text := range []string{lib, lib + "1 1:1\n"} {
		ds, err := ReadLIBSVM(strings.NewReader(text), "u", 0)
		if text == lib && (err != nil || ds.Y != nil || !slices.Equal(ds.X, []float32{1, 2, 3, 4})) {
			t.Errorf("LIBSVM without labels: %v", err)
		}
		if text != lib && (err == nil || !strings.Contains(err.Error(), "u:4: the line starts with a label, but line 1 has no label")) {
			t.Errorf("mixed: %v", err)
		}
	}
	p := writeTemp(t, "u.libsvm", []byte(lib))
	s, err := OpenStream(p, OpenOptions{})
	if err != nil || s.Labelled() {
		t.Fatalf("LIBSVM stream: %v", err)
	}
	x, y := make([]float32, 4), make([]float64, 2)
	if n, err := s.Next(x, y); n != 2 || err != nil || !math.IsNaN(y[0]) {
		t.Errorf("Next: %d %v %v", n, err, y)
	}
	s.Close()
	var out bytes.Buffer
	WriteLIBSVM(&out, &Dataset{X: []float32{1, 0, 0, 0}, N: 2, D: 2})
	if out.String() != "1:1\n1:0\n" {
		t.Errorf("WriteLIBSVM without labels: %q", out.String())
	}
}

// TestStreamLabelNames: a stream of a CSV file whose labels are names
// numbers them in order of first appearance; a name after numeric labels
// is an error naming its line.
func TestStreamLabelNames(t *testing.T) {
	p := writeTemp(t, "n.csv", []byte("a,b,species\n1,2,setosa\n3,4,virginica\n5,6,setosa\n7,8,2\n"))
	s, err := OpenStream(p, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := s.ReadRows(10)
	if err != nil || !slices.Equal(ds.Y, []float64{0, 1, 0, 2}) || !slices.Equal(s.LabelNames(), []string{"setosa", "virginica", "2"}) {
		t.Fatalf("%v: Y %v, names %q", err, ds.Y, s.LabelNames())
	}
	s.Rewind()
	if again, _ := s.ReadRows(10); !slices.Equal(again.Y, ds.Y) {
		t.Errorf("after Rewind: %v", again.Y)
	}
	s.Close()
	p = writeTemp(t, "m.csv", []byte("a,b,label\n1,2,0\n3,4,setosa\n"))
	s, err = OpenStream(p, OpenOptions{})
	if err == nil {
		_, err = s.ReadRows(10)
		s.Close()
	}
	if err == nil || !strings.Contains(err.Error(), `m.csv:3: label "setosa" is a class name, while the labels before it are numbers`) {
		t.Errorf("a name after numbers: %v", err)
	}
}

// TestColumnsByName: read with a model's named columns, a header in
// another order, with an extra column and the weights, gives the
// training order, a notice for the extra column, the weights; a dropped
// column is matched by name and ignored; an all-numeric CSV records its
// names, and EncodeRow encodes for it and for nil columns.
func TestColumnsByName(t *testing.T) {
	train, err := ReadCSV(strings.NewReader("id,a,b,w,label\nx1,1,2,1,0\nx2,3,4,2,1\n"), "t.csv", CSVOptions{WeightCol: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Column{{Name: "id", Categories: []string{"x1", "x2"}}, {Name: "a"}, {Name: "b"}}; !reflect.DeepEqual(train.Columns, want) || train.LabelColumn != "label" {
		t.Fatalf("columns %+v, label %q", train.Columns, train.LabelColumn)
	}
	cols := train.Columns[1:] // the numeric ones, a model of a and b
	ds, err := ReadCSV(strings.NewReader("b,extra,label,w,a\n2,9,1,0.5,1\n4,9,0,2,3\n"), "n.csv", CSVOptions{Columns: cols, WeightCol: "w"})
	if err != nil || !slices.Equal(ds.X, []float32{1, 2, 3, 4}) || !slices.Equal(ds.Y, []float64{1, 0}) || !slices.Equal(ds.W, []float64{0.5, 2}) {
		t.Fatalf("reordered: %v, X %v Y %v W %v", err, ds.X, ds.Y, ds.W)
	}
	if len(ds.Notices) != 1 || !strings.Contains(ds.Notices[0], `"extra"`) {
		t.Errorf("notices %q", ds.Notices)
	}
	// The model's label column by its name.
	ds, err = ReadCSV(strings.NewReader("y,b,a\n1,2,1\n"), "y.csv", CSVOptions{Columns: cols, LabelColumn: "y"})
	if err != nil || !slices.Equal(ds.Y, []float64{1}) || ds.LabelColumn != "y" {
		t.Errorf("label by name: %v %v", err, ds.Y)
	}
	// A dropped column by name, left out of the file or not.
	dropped := []Column{{Name: "id", Dropped: true}, {Name: "a"}}
	for _, text := range []string{"a,label\n5,1\n", "label,a,id\n1,5,zz\n"} {
		ds, err := ReadCSV(strings.NewReader(text), "d.csv", CSVOptions{Columns: dropped})
		if err != nil || !slices.Equal(ds.X, []float32{5}) {
			t.Errorf("%q: %v", text, err)
		}
	}
	// EncodeRow for an all-numeric model, named or not.
	row := make([]float32, 2)
	if err := EncodeRow(cols, []string{"1", "2"}, row); err != nil || !slices.Equal(row, []float32{1, 2}) {
		t.Errorf("EncodeRow, named columns: %v %v", err, row)
	}
	if err := EncodeRow(nil, []string{"3", "4"}, row); err != nil || !slices.Equal(row, []float32{3, 4}) {
		t.Errorf("EncodeRow, nil columns: %v %v", err, row)
	}
	if err := EncodeRow(nil, []string{"3", "0x1p3"}, row); err == nil {
		t.Error("EncodeRow took 0x1p3")
	}
}

// TestMissingValueError: a typed error with the line, the column's name
// and the value, naming no Go field or flag.
func TestMissingValueError(t *testing.T) {
	_, err := ReadCSV(strings.NewReader("age,label\n1,0\nNA,1\n"), "m.csv", CSVOptions{})
	var me *MissingValueError
	if !errors.As(err, &me) || me.Line != 3 || me.Column != "age" || me.Value != "NA" || strings.Contains(err.Error(), "FillMissing") || strings.Contains(err.Error(), "--") {
		t.Fatalf("error %v (%+v)", err, me)
	}
	_, err = ReadCSV(io.MultiReader(strings.NewReader("1,0\n,1\n")), "m.csv", CSVOptions{})
	if !errors.As(err, &me) || me.Column != "" || me.Index != 0 || !strings.Contains(err.Error(), "empty value in column 0") {
		t.Fatalf("without a header: %v", err)
	}
}

// TestSaveSparseCSV: sparse rows go to CSV with every zero written, unless
// that text would dwarf the rows (MemoryBudget of their size): then an
// error naming the sparse formats, and no file.
func TestSaveSparseCSV(t *testing.T) {
	dir := t.TempDir()
	sparse := func(n, d int) *Dataset {
		m := &CSR{Ptr: make([]int64, 1, n+1)}
		y := make([]float64, n)
		for i := range n {
			m.Idx, m.Val = append(m.Idx, int32(i*7919%d)), append(m.Val, 1)
			m.Ptr = append(m.Ptr, int64(len(m.Val)))
			y[i] = float64(i % 2)
		}
		return &Dataset{Sparse: m, N: n, D: d, Y: y}
	}
	small := filepath.Join(dir, "small.csv")
	if err := Save(small, sparse(10, 2000), ""); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(mustOpen(t, small), small, CSVOptions{})
	if err != nil || back.N != 10 || back.D != 2000 {
		t.Fatalf("read back: %v", err)
	}
	big := filepath.Join(dir, "big.csv")
	err = Save(big, sparse(100000, 1000000), "")
	if err == nil || !strings.Contains(err.Error(), "LIBSVM text or .npz") || len(err.Error()) > 300 {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(big); !os.IsNotExist(err) {
		t.Errorf("%s: %v", big, err)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
