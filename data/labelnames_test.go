package data

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCSVLabelNames: a label column that is not all numbers is read as
// class names (sorted, Y indexing them), through ReadCSV and Open alike;
// a first row whose only text field is the label is data when the next
// row's label is text too, and a header when it is a number.
func TestCSVLabelNames(t *testing.T) {
	tests := []struct {
		name, text string
		n          int
		names      []string
		y          []float64
	}{
		{"iris-like, no header", "5.1,3.5,setosa\n4.9,3.0,setosa\n6.0,2.2,virginica\n", 3, []string{"setosa", "virginica"}, []float64{0, 0, 1}},
		{"header", "a,b,species\n5.1,3.5,setosa\n6.0,2.2,virginica\n4.9,3.0,setosa\n", 3, []string{"setosa", "virginica"}, []float64{0, 1, 0}},
		{"numeric column names", "0,1,target\n1,2,0\n3,4,1\n", 2, nil, []float64{0, 1}},
		{"a name after numbers", "1,2,1\n3,4,1.0\n5,6,x\n", 3, []string{"1", "x"}, []float64{0, 0, 1}},
		{"quoted names", "x,label\n1,\"b, c\"\n2,a\n", 2, []string{"a", "b, c"}, []float64{1, 0}},
		{"a label column by its name", "id,diagnosis,r1\n1,M,3.5\n2,B,1.5\n3,M,2.5\n", 3, []string{"B", "M"}, []float64{1, 0, 1}},
		{"label before class", "Class,x,LABEL\n7,1,0\n8,2,1\n", 2, nil, []float64{0, 1}},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		path := filepath.Join(dir, "t.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := ReadCSV(strings.NewReader(tc.text), "t.csv", CSVOptions{LabelCol: LabelAuto})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, err := Open(path, OpenOptions{CSV: CSVOptions{LabelCol: LabelAuto}})
		if err != nil {
			t.Fatalf("%s: Open: %v", tc.name, err)
		}
		for _, ds := range []*Dataset{a, b} {
			if ds.N != tc.n || !slices.Equal(ds.LabelNames, tc.names) || !slices.Equal(ds.Y, tc.y) {
				t.Errorf("%s: N %d, names %q, Y %v; want %d, %q, %v", tc.name, ds.N, ds.LabelNames, ds.Y, tc.n, tc.names, tc.y)
			}
			if err := ds.Validate(); err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		}
		// WriteCSV writes the names; reading them back gives the same data.
		var buf bytes.Buffer
		if err := WriteCSV(&buf, a, true); err != nil {
			t.Fatal(err)
		}
		c, err := ReadCSV(&buf, "w.csv", CSVOptions{LabelCol: LabelAuto})
		if err != nil {
			t.Fatalf("%s: reading WriteCSV's output: %v", tc.name, err)
		}
		if !bitsEqual(a, c) {
			t.Errorf("%s: WriteCSV and ReadCSV do not round-trip: names %q, Y %v", tc.name, c.LabelNames, c.Y)
		}
		if slices.ContainsFunc(a.Notices, func(s string) bool { return strings.Contains(s, "differ only in case") }) {
			t.Errorf("%s: notices %q", tc.name, a.Notices)
		}
	}
	// Names that differ only in case are classes of their own, with a
	// notice.
	ds, err := ReadCSV(strings.NewReader("x,label\n1,yes\n2,no\n3,Yes\n4,no\n"), "c.csv", CSVOptions{LabelCol: LabelAuto})
	if err != nil || !slices.Equal(ds.LabelNames, []string{"Yes", "no", "yes"}) || !slices.Contains(ds.Notices, `labels "Yes" and "yes" differ only in case: they are two classes (write them alike if they name one)`) {
		t.Errorf("case twins: %v, names %q, notices %q", err, ds.LabelNames, ds.Notices)
	}
}

func TestValidateLabelNames(t *testing.T) {
	ds := &Dataset{X: []float32{1, 2}, Y: []float64{0, 2}, N: 2, D: 1, LabelNames: []string{"a", "b"}}
	if err := ds.Validate(); err == nil || !strings.Contains(err.Error(), "not an index") {
		t.Fatalf("label 2 of 2 names: error %v", err)
	}
	sub := (&Dataset{X: []float32{1, 2}, Y: []float64{0, 1}, N: 2, D: 1, LabelNames: []string{"a", "b"}}).Subset([]int{1})
	if !slices.Equal(sub.LabelNames, []string{"a", "b"}) || sub.Y[0] != 1 {
		t.Fatalf("Subset: names %q, Y %v", sub.LabelNames, sub.Y)
	}
}

// TestCSVCategorical: text feature columns are categorical, expanded
// one-hot in sorted order of their categories (numbers met before the
// first text and missing values are categories too), through ReadCSV and
// Open alike; with CSVOptions.Columns a file is encoded with given
// categories, an unknown one as zeros.
func TestCSVCategorical(t *testing.T) {
	dir := t.TempDir()
	read := func(text string, opt CSVOptions) *Dataset {
		t.Helper()
		path := filepath.Join(dir, "c.csv")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := ReadCSV(strings.NewReader(text), "c.csv", opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Open(path, OpenOptions{CSV: opt})
		if err != nil {
			t.Fatal(err)
		}
		if !bitsEqual(a, b) {
			t.Fatalf("ReadCSV and Open differ on %q", text)
		}
		if err := a.Validate(); err != nil {
			t.Fatal(err)
		}
		return a
	}
	auto := CSVOptions{LabelCol: LabelAuto}
	// As in UCI's adult.data: no header, text columns, class names.
	ds := read("39,State-gov,77516,<=50K\n50,Self-emp,83311,<=50K\n38,Private,215646,>50K\n53,Private,234721,>50K\n", auto)
	wantCols := []Column{{}, {Categories: []string{"Private", "Self-emp", "State-gov"}}, {}}
	if ds.N != 4 || ds.D != 5 || !reflect.DeepEqual(ds.Columns, wantCols) || !slices.Equal(ds.LabelNames, []string{"<=50K", ">50K"}) {
		t.Fatalf("adult-like: %d×%d, columns %v, names %q", ds.N, ds.D, ds.Columns, ds.LabelNames)
	}
	if !slices.Equal(ds.Row(0), []float32{39, 0, 0, 1, 77516}) || !slices.Equal(ds.Row(2), []float32{38, 1, 0, 0, 215646}) {
		t.Fatalf("adult-like rows %v, %v", ds.Row(0), ds.Row(2))
	}
	// With a header; a column of numbers turning to text; a missing value
	// in a text column.
	ds = read("age,color,size,label\n1,?,5,0\n2,red,5,1\n3,blue,a,0\n", auto)
	wantCols = []Column{{Name: "age"}, {Name: "color", Categories: []string{"?", "blue", "red"}}, {Name: "size", Categories: []string{"5", "a"}}}
	if ds.N != 3 || !reflect.DeepEqual(ds.Columns, wantCols) || !slices.Equal(ds.Row(1), []float32{2, 0, 0, 1, 1, 0}) {
		t.Fatalf("header: %d rows, columns %v, row 1 %v", ds.N, ds.Columns, ds.Row(1))
	}
	// The model's columns: an unknown category is zeros.
	opt := CSVOptions{LabelCol: LabelAuto, Columns: wantCols}
	ds = read("age,color,size,label\n7,blue,a,1\n8,green,5,0\n", opt)
	if ds.D != 6 || !slices.Equal(ds.Row(0), []float32{7, 0, 1, 0, 0, 1}) || !slices.Equal(ds.Row(1), []float32{8, 0, 0, 0, 1, 0}) {
		t.Fatalf("with columns: rows %v, %v", ds.Row(0), ds.Row(1))
	}
	// EncodeRow gives the same features as reading with the columns.
	row := make([]float32, ds.D)
	if err := EncodeRow(wantCols, []string{"8", "green", "5"}, row); err != nil || !slices.Equal(row, ds.Row(1)) {
		t.Fatalf("EncodeRow: %v, %v; want %v", err, row, ds.Row(1))
	}
	if err := EncodeRow(wantCols, []string{"x", "red", "5"}, row); err == nil {
		t.Fatal("EncodeRow: text in a column of numbers encoded")
	}
	// A missing value in a column of numbers is an error naming it.
	if _, err := ReadCSV(strings.NewReader("a,b,label\n1,2,0\n3,NA,1\n"), "m.csv", auto); err == nil || !strings.Contains(err.Error(), `m.csv:3: missing value "NA" in column "b"`) {
		t.Fatalf("missing number: error %v", err)
	}
	// A text column with a different value in most rows is left out, and
	// so it is when reading with the columns.
	var b strings.Builder
	b.WriteString("name,x,label\n")
	for i := range 300 {
		fmt.Fprintf(&b, "id%d,%d,%d\n", i, i%7, i%2)
	}
	ds = read(b.String(), auto)
	if ds.D != 1 || !reflect.DeepEqual(ds.Columns, []Column{{Name: "name", Dropped: true, Distinct: 300}, {Name: "x"}}) || ds.Row(5)[0] != 5 {
		t.Fatalf("identifier column: D %d, columns %v", ds.D, ds.Columns)
	}
	ds = read("name,x,label\nnew,3,1\n", CSVOptions{LabelCol: LabelAuto, Columns: ds.Columns})
	if ds.D != 1 || ds.Row(0)[0] != 3 {
		t.Fatalf("identifier column with the columns: D %d, row %v", ds.D, ds.Row(0))
	}
	// Stray text in a column of numbers (or among numeric labels) is an
	// error naming it, not a categorical column of mostly numbers.
	var st strings.Builder
	for i := range 30 {
		v := strconv.Itoa(i)
		if i == 17 {
			v = "1O"
		}
		fmt.Fprintf(&st, "%d,%s,%d\n", i, v, i%2)
	}
	if _, err := ReadCSV(strings.NewReader(st.String()), "s.csv", auto); err == nil || !strings.Contains(err.Error(), `s.csv:18: value "1O" in column 1 is not a number, while 29 of the column's 30 values are`) {
		t.Fatalf("stray text: error %v", err)
	}
	stl := strings.Replace(st.String(), "1O", "17", 1)
	stl = strings.Replace(stl, "\n5,5,1\n", "\n5,5,yes\n", 1)
	if _, err := ReadCSV(strings.NewReader(stl), "s.csv", auto); err == nil || !strings.Contains(err.Error(), `s.csv:6: label "yes" in column 2 is not a number, while 29 of the 30 labels are`) {
		t.Fatalf("stray label: error %v", err)
	}
	// The files of scikit-learn's datasets: a preamble line with the
	// counts and class names; a second header line.
	ds = read("3,2,a,b\n1,2,0\n3,4,1\n5,6,0\n", auto)
	if ds.N != 3 || ds.D != 2 || !slices.Equal(ds.Y, []float64{0, 1, 0}) {
		t.Fatalf("preamble: %d×%d, Y %v", ds.N, ds.D, ds.Y)
	}
	ds = read("3,1,,\n\"A\",\"B\",\"C\"\n1,2,0.5\n3,4,1.5\n5,6,2.5\n", auto)
	if ds.N != 3 || ds.D != 2 || !reflect.DeepEqual(ds.Columns, []Column{{Name: "A"}, {Name: "B"}}) || ds.LabelColumn != "C" || !slices.Equal(ds.Y, []float64{0.5, 1.5, 2.5}) {
		t.Fatalf("two header lines: %d×%d, columns %v, Y %v", ds.N, ds.D, ds.Columns, ds.Y)
	}
	// A title line before the header is a preamble; a header of names
	// followed by rows of one field more is not: an unquoted separator in a
	// value, or R's row names, are an error, read whole or streamed.
	ds = read("Wine data, version 2\nx1,x2,label\n1,2,0\n3,4,1\n", auto)
	if ds.N != 2 || ds.D != 2 || ds.LabelColumn != "label" {
		t.Fatalf("title line: %d×%d, label column %q", ds.N, ds.D, ds.LabelColumn)
	}
	for _, text := range []string{"when,x,label\nJan 8, 2024,1.5,1\nJan 9, 2024,2.5,0\n", "\"a\",\"b\",\"label\"\n\"1\",1.5,2,0\n\"2\",2.5,3,1\n"} {
		const want = "f.csv:2: 4 fields, but the header (line 1) has 3: a value that holds the separator without quotes"
		if _, err := ReadCSV(strings.NewReader(text), "f.csv", auto); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
		path := filepath.Join(t.TempDir(), "f.csv")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if s, err := OpenStream(path, OpenOptions{}); err == nil || !strings.Contains(err.Error(), want) {
			if s != nil {
				s.Close()
			}
			t.Errorf("%q streamed: error %v, want %q", text, err, want)
		}
	}
	// FillMissing: the mean of the column's values, kept in its Fill, which
	// fills new data read with the columns.
	fill := CSVOptions{LabelCol: LabelAuto, FillMissing: true}
	ds = read("a,b,label\n1,2,0\nNA,4,1\n5,,0\n", fill)
	if !slices.Equal(ds.X, []float32{1, 2, 3, 4, 5, 3}) || ds.Columns[0].Fill == nil || *ds.Columns[0].Fill != 3 || *ds.Columns[1].Fill != 3 {
		t.Fatalf("filled: X %v, columns %v", ds.X, ds.Columns)
	}
	ds = read("a,b,label\n?,7,1\n", CSVOptions{LabelCol: LabelAuto, Columns: ds.Columns})
	if !slices.Equal(ds.X, []float32{3, 7}) {
		t.Fatalf("filled with the columns: X %v", ds.X)
	}
	bad := &Dataset{X: []float32{1, 2}, Y: []float64{0, 1}, N: 2, D: 1, Columns: []Column{{Categories: []string{"a", "b"}}}}
	if err := bad.Validate(); err == nil {
		t.Fatal("columns of width 2 for D = 1 validate")
	}
}

// TestFillMissingParallel: a missing value far into a file, read in
// parallel chunks, is filled with the mean over all the rows, as the
// sequential reader fills it.
func TestFillMissingParallel(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,label\n")
	for i := range 3000 {
		if i == 2500 {
			b.WriteString("?,1,0\n")
			continue
		}
		fmt.Fprintf(&b, "%d,%d,%d\n", i%10, i%3, i%2)
	}
	opt := CSVOptions{LabelCol: LabelAuto, FillMissing: true}
	want, err := seqCSV(strings.NewReader(b.String()), "f.csv", opt)
	if err != nil {
		t.Fatal(err)
	}
	withReadChunks(4096, func() {
		got, err := ReadCSV(strings.NewReader(b.String()), "f.csv", opt)
		if err != nil {
			t.Fatal(err)
		}
		if !bitsEqual(got, want) || want.Columns[0].Fill == nil {
			t.Fatalf("parallel fill %v, sequential %v", got.Columns, want.Columns)
		}
	})
	if f := *want.Columns[0].Fill; math.Abs(f-4.5) > 0.01 {
		t.Fatalf("fill %v, want the mean of the other values, about 4.5", f)
	}
}

// TestSeparatorSniffing: Open reads files separated by semicolons (as
// written with a decimal comma, e.g. the UCI wine-quality files, with a
// quoted header) or tabs without being told, and so does OpenStream.
func TestSeparatorSniffing(t *testing.T) {
	dir := t.TempDir()
	var semi, tab strings.Builder
	semi.WriteString("\"fixed acidity\";\"volatile acidity\";\"quality\"\n")
	tab.WriteString("a\tb\tlabel\n")
	for i := range 50 {
		fmt.Fprintf(&semi, "%d.5;0.%d;%d\n", i, i%10, 5+i%2)
		fmt.Fprintf(&tab, "%d.5\t0.%d\t%d\n", i, i%10, 5+i%2)
	}
	for name, text := range map[string]string{"wq.csv": semi.String(), "t.tsv": tab.String(), "t.txt": tab.String()} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := Open(path, OpenOptions{CSV: CSVOptions{LabelCol: LabelAuto}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ds.N != 50 || ds.D != 2 || ds.Row(3)[0] != 3.5 || ds.Y[3] != 6 {
			t.Fatalf("%s: %d×%d, row 3 %v, label %v", name, ds.N, ds.D, ds.Row(3), ds.Y[3])
		}
		s, err := OpenStream(path, OpenOptions{CSV: CSVOptions{LabelCol: LabelAuto}})
		if err != nil {
			t.Fatalf("%s: stream: %v", name, err)
		}
		x, y := make([]float32, 100*s.D()), make([]float64, 100)
		n, err := s.Next(x, y)
		s.Close()
		if (err != nil && err != io.EOF) || n != 50 || x[6] != 3.5 {
			t.Fatalf("%s: stream: %d rows, %v, x %v", name, n, err, x[:8])
		}
	}
}

// TestStreamHeaderVotes: OpenStream decides a header as the readers do,
// from the lines after it: column names that are numbers over a text
// label name make a header, not a row.
func TestStreamHeaderVotes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.csv")
	text := "0,1,target\n"
	for i := range 30 {
		text += fmt.Sprintf("%d,%d,%d\n", i, 2*i, i%2)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStream(path, OpenOptions{CSV: CSVOptions{LabelCol: LabelAuto}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x, y := make([]float32, 64*s.D()), make([]float64, 64)
	n, err := s.Next(x, y)
	if (err != nil && err != io.EOF) || n != 30 || x[2] != 1 || y[1] != 1 {
		t.Fatalf("%d rows, %v, x %v, y %v", n, err, x[:4], y[:2])
	}
}

// TestSave: Save writes each format its extension names, and the data
// read back are the data saved; a .npy writes its labels beside it.
func TestSave(t *testing.T) {
	dir := t.TempDir()
	ds := ringnorm(50, rand.New(rand.NewPCG(1, 1)))
	for _, name := range []string{"a.csv", "a.libsvm", "a.npz", "a.npy"} {
		path := filepath.Join(dir, name)
		if err := Save(path, ds, ""); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		opt := OpenOptions{CSV: CSVOptions{LabelCol: LabelAuto}}
		if name == "a.npy" {
			opt.Labels = NPYLabelsPath(path)
		}
		got, err := Open(path, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.N != ds.N || !slices.Equal(got.X, ds.X) || !slices.Equal(got.Y, ds.Y) {
			t.Fatalf("%s: read back %d×%d, or other values", name, got.N, got.D)
		}
		got.Close()
	}
	if err := Save(filepath.Join(dir, "a.parquet"), ds, ""); err == nil || !strings.Contains(err.Error(), "cannot tell the format") {
		t.Fatalf("unknown extension: error %v", err)
	}
	if err := Save(filepath.Join(dir, "no", "a.csv"), ds, ""); err == nil || !strings.Contains(err.Error(), "cannot write") {
		t.Fatalf("missing directory: error %v", err)
	}
}

// TestCommaNumbers: a column of numbers written with decimal commas (a
// file separated by semicolons, as spreadsheets in many locales write it)
// or with thousands separators is an error that says so, not a column of
// texts left out as an identifier; a column of texts that happen to hold a
// comma stays categorical.
func TestCommaNumbers(t *testing.T) {
	var eu, th, cat strings.Builder
	eu.WriteString("a;b;label\n")
	th.WriteString("a,b,label\n")
	cat.WriteString("a,b,label\n")
	for i := range 30 {
		fmt.Fprintf(&eu, "%d,%d;%d;%d\n", i, i%7, i%5, i%2)
		fmt.Fprintf(&th, "\"%d,%03d\",%d,%d\n", i+1, i*7, i%5, i%2)
		fmt.Fprintf(&cat, "\"%s, %s\",%d,%d\n", []string{"red", "blue"}[i%2], []string{"big", "small", "tiny"}[i%3], i%5, i%2)
	}
	for name, text := range map[string]string{"eu.csv": eu.String(), "th.csv": th.String()} {
		opt := CSVOptions{}
		if name == "eu.csv" {
			opt.Comma = ';'
		}
		_, err := ReadCSV(strings.NewReader(text), name, opt)
		if err == nil || !strings.Contains(err.Error(), name+`:2: value "`) || !strings.Contains(err.Error(), `in column "a" is a number written with a comma`) {
			t.Errorf("%s: error %v, want one naming the comma", name, err)
		}
	}
	ds, err := ReadCSV(strings.NewReader(cat.String()), "cat.csv", CSVOptions{})
	if err != nil || ds.Columns[0].Categories == nil {
		t.Fatalf("texts with commas: %v, columns %+v", err, ds.Columns)
	}
}

// TestEmptyColumn: a column empty in every row (a separator at the end of
// every line, as some exporters write) is left out with a notice, also
// when missing values are filled, and a file read with the columns takes
// it again without a word; a column empty in all rows but one is a column
// of numbers with missing values, as before.
func TestEmptyColumn(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,label,\n")
	for i := range 30 {
		fmt.Fprintf(&b, "%d,%d,%d,\n", i, i%7, i%2)
	}
	for _, fill := range []bool{false, true} {
		ds, err := ReadCSV(strings.NewReader(b.String()), "t.csv", CSVOptions{FillMissing: fill})
		if err != nil {
			t.Fatal(err)
		}
		if ds.D != 2 || len(ds.Columns) != 3 || !ds.Columns[2].Empty || !ds.Columns[2].Dropped || ds.Row(3)[1] != 3 {
			t.Fatalf("fill %v: D %d, columns %+v", fill, ds.D, ds.Columns)
		}
		if !slices.ContainsFunc(ds.Notices, func(s string) bool { return strings.Contains(s, "column 3 is empty in every row") }) {
			t.Errorf("fill %v: notices %q", fill, ds.Notices)
		}
		again, err := ReadCSV(strings.NewReader(b.String()), "t.csv", CSVOptions{Columns: ds.Columns})
		if err != nil || again.D != 2 || len(again.Notices) != 0 {
			t.Fatalf("read with the columns: %v, D %d, notices %q", err, again.D, again.Notices)
		}
	}
	one := strings.Replace(b.String(), "\n5,5,1,\n", "\n5,5,1,8\n", 1)
	if _, err := ReadCSV(strings.NewReader(one), "t.csv", CSVOptions{}); err == nil || !strings.Contains(err.Error(), "empty value in column 3") {
		t.Errorf("a column empty but in one row: %v, want the missing value's error", err)
	}
}

// TestIdentifierNotice: a feature column named as an identifier that holds
// a different integer in every row is kept, with a notice saying what its
// order can leak; names that only end in the letters, and columns of
// repeated or fractional values, are not told of.
func TestIdentifierNotice(t *testing.T) {
	for name, want := range map[string]bool{
		"id": true, "ID": true, "PassengerId": true, "customerID": true, "user_id": true, "row-id": true, "Order Id": true,
		"rapid": false, "Paid": false, "ANDROID": false, "idle": false, "Id2": false, "": false,
	} {
		if got := idName(name); got != want {
			t.Errorf("idName(%q) = %v, want %v", name, got, want)
		}
	}
	text := func(id func(i int) string) string {
		var b strings.Builder
		b.WriteString("PassengerId,a,label\n")
		for i := range 30 {
			fmt.Fprintf(&b, "%s,%d,%d\n", id(i), i%7, i%2)
		}
		return b.String()
	}
	told := func(s string) bool {
		ds, err := ReadCSV(strings.NewReader(s), "t.csv", CSVOptions{})
		if err != nil || ds.D != 2 {
			t.Fatalf("%v, D %d", err, ds.D)
		}
		return slices.ContainsFunc(ds.Notices, func(n string) bool {
			return strings.Contains(n, `"PassengerId" is named as an identifier and holds 30 different integers`)
		})
	}
	if !told(text(func(i int) string { return strconv.Itoa(100 + 3*i) })) {
		t.Error("distinct integers: no notice")
	}
	if told(text(func(i int) string { return strconv.Itoa(i % 10) })) {
		t.Error("repeated integers: a notice")
	}
	if told(text(func(i int) string { return fmt.Sprintf("%d.5", i) })) {
		t.Error("fractions: a notice")
	}
}

// TestOptionalColumns: a file without a header read with columns that had
// a pandas index and an empty column may have them or not, and its fields
// land in the same features either way.
func TestOptionalColumns(t *testing.T) {
	cols := []Column{{Dropped: true, RowIndex: true}, {Name: "a"}, {Name: "b"}, {Dropped: true, Empty: true}}
	for _, text := range []string{"0,1.5,2.5,\n1,3,4,\n", "1.5,2.5\n3,4\n", "1.5,2.5,1\n3,4,0\n"} {
		ds, err := ReadCSV(strings.NewReader(text), "t.csv", CSVOptions{Columns: cols, Header: HeaderNo})
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if ds.D != 2 || ds.N != 2 || !slices.Equal(ds.X, []float32{1.5, 2.5, 3, 4}) {
			t.Errorf("%q: %d×%d %v", text, ds.N, ds.D, ds.X)
		}
		if withLabels := strings.Count(text, ",") == 4; withLabels != (ds.Y != nil) {
			t.Errorf("%q: labels %v", text, ds.Y)
		}
	}
	if _, err := ReadCSV(strings.NewReader("1.5\n3\n"), "t.csv", CSVOptions{Columns: cols, Header: HeaderNo}); err == nil || !strings.Contains(err.Error(), "1 fields, but the model's data had 4 feature columns") {
		t.Errorf("one field: %v", err)
	}
}
