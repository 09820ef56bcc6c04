package data

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLIBSVM(t *testing.T) {
	in := "# a comment line\n" +
		"+1 1:0.5 3:-2 # trailing comment\n" +
		"# another\n" +
		"-1\t2:1e-3  4:7\r\n" +
		"3\n" +
		"0.25 4:1"
	d, err := ReadLIBSVM(strings.NewReader(in), "t.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := &Dataset{
		X: []float32{0.5, 0, -2, 0, 0, 1e-3, 0, 7, 0, 0, 0, 0, 0, 0, 0, 1},
		Y: []float64{1, -1, 3, 0.25}, N: 4, D: 4,
	}
	equalData(t, d, want)
	d6, err := ReadLIBSVM(strings.NewReader(in), "t.txt", 6)
	if err != nil {
		t.Fatal(err)
	}
	if d6.D != 6 || d6.X[6+1] != 1e-3 || d6.X[6+5] != 0 {
		t.Fatalf("dim 6: D=%d row 1 = %v", d6.D, d6.Row(1))
	}
}

func TestReadLIBSVMErrors(t *testing.T) {
	tests := []struct {
		name, in string
		dim      int
		want     string
	}{
		{"index 0", "1 1:2\n# c\n-1 0:1\n", 0, "data: t.txt:3: feature index 0, indices are 1-based"},
		{"blank line", "1 1:2\n\n-1 1:1\n", 0, "data: t.txt:2: an empty line"},
		{"blank last line", "1 1:2\n-1 1:1\n \n", 0, "data: t.txt:3: an empty line"},
		{"mixed", "1 1:2\n2:1\n", 0, "data: t.txt:2: the line has no label, but line 1 starts with a label"},
		{"underscore", "1 1:1_000\n", 0, `t.txt:1: value "1_000" of feature 1 is not a number`},
		{"hex", "0x1p3 1:1\n", 0, `t.txt:1: label "0x1p3" is not a number`},
		{"long value", "1 1:" + strings.Repeat("9", 300) + "x\n", 0, `is not a number`},
		{"negative index", "1 -2:1\n", 0, `t.txt:1: feature index "-2" is not a number of digits`},
		{"non-increasing", "1 3:1 2:1\n", 0, "t.txt:1: feature index 2 after 3, indices must increase"},
		{"duplicate", "1 3:1 3:1\n", 0, "t.txt:1: feature index 3 after 3, indices must increase"},
		{"bad float", "1 1:abc\n", 0, `t.txt:1: value "abc" of feature 1 is not a number`},
		{"NaN value", "1 1:1\n1 2:nan\n", 0, `t.txt:2: value "nan" of feature 2 is not finite`},
		{"Inf value", "1 2:-Inf\n", 0, `t.txt:1: value "-Inf" of feature 2 is not finite`},
		{"float32 overflow", "1 2:1e39\n", 0, `t.txt:1: value "1e39" of feature 2 is out of float32 range`},
		{"garbage", "hello world\n", 0, `t.txt:1: label "hello" is not a number`},
		{"NaN label", "NaN 1:1\n", 0, `t.txt:1: label "NaN" is not finite`},
		{"no colon", "1 1:1 5\n", 0, `t.txt:1: "5" is not index:value`},
		{"bad index", "1 x:1\n", 0, `t.txt:1: feature index "x" is not a number of digits`},
		{"huge index", "1 99999999999999999999:1\n", 0, `t.txt:1: feature index "99999999999999999999" is too large`},
		{"beyond dim", "1 1:1\n1 5:1\n", 4, "t.txt:2: feature index 5 exceeds the dimension 4"},
		{"empty", "# nothing\n", 0, "data: t.txt: no data rows"},
		{"no features", "1\n-1\n", 0, "no feature index in 2 rows; give the number of features explicitly"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadLIBSVM(strings.NewReader(tc.in), "t.txt", tc.dim)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("too wide", func(t *testing.T) {
		_, err := readLIBSVM(strings.NewReader("1 1:1\n1 2000:1\n"), "t.txt", 0, 1000, LayoutDense)
		if err == nil || !strings.Contains(err.Error(), "2 rows × 2000 features") {
			t.Fatalf("error %v", err)
		}
	})
}

func TestLIBSVMRoundTrip(t *testing.T) {
	d := ringnorm(50, newRNG(5))
	for i := range d.X {
		if i%3 == 0 {
			d.X[i] = 0 // sparse
		}
	}
	d.X[7] = 1e-38 // subnormal-adjacent values survive
	d.X[8] = -3.4e38
	d.Y[0] = -0.125
	var buf bytes.Buffer
	if err := WriteLIBSVM(&buf, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), ":0 ") {
		t.Fatal("zeros were written")
	}
	got, err := ReadLIBSVM(&buf, "rt", d.D)
	if err != nil {
		t.Fatal(err)
	}
	equalData(t, got, d)
}

func TestReadCSV(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opt  CSVOptions
		want *Dataset
	}{
		{"label last, auto header", "a,b,Class\n1,2,1\n3, 4 ,2\n", CSVOptions{LabelCol: -1},
			&Dataset{X: []float32{1, 2, 3, 4}, Y: []float64{1, 2}, N: 2, D: 2}},
		{"label first, no header", "1,2,3\n-1,5,6\n", CSVOptions{LabelCol: LabelFirst},
			&Dataset{X: []float32{2, 3, 5, 6}, Y: []float64{1, -1}, N: 2, D: 2}},
		{"auto label: header field label", "label,x1,x2\n1,2,3\n-1,5,6\n", CSVOptions{LabelCol: LabelAuto},
			&Dataset{X: []float32{2, 3, 5, 6}, Y: []float64{1, -1}, N: 2, D: 2}},
		{"auto label: LABEL in the middle", "x1,LABEL,x2\n2,1,3\n5,-1,6\n", CSVOptions{LabelCol: LabelAuto},
			&Dataset{X: []float32{2, 3, 5, 6}, Y: []float64{1, -1}, N: 2, D: 2}},
		{"auto label: DELVE header", "a,b,Class\n1,2,1\n3,4,2\n", CSVOptions{LabelCol: LabelAuto},
			&Dataset{X: []float32{1, 2, 3, 4}, Y: []float64{1, 2}, N: 2, D: 2}},
		{"auto label: no header", "1,2,3\n4,5,6\n", CSVOptions{LabelCol: LabelAuto},
			&Dataset{X: []float32{1, 2, 4, 5}, Y: []float64{3, 6}, N: 2, D: 2}},
		{"zero value: header field class", "x1,Class,x2\n2,1,3\n5,-1,6\n", CSVOptions{},
			&Dataset{X: []float32{2, 3, 5, 6}, Y: []float64{1, -1}, N: 2, D: 2}},
		{"zero value: last column", "a,b,c\n1,2,3\n4,5,6\n", CSVOptions{},
			&Dataset{X: []float32{1, 2, 4, 5}, Y: []float64{3, 6}, N: 2, D: 2}},
		{"label middle", "1,9,2\n3,8,4\n", CSVOptions{LabelCol: 1},
			&Dataset{X: []float32{1, 2, 3, 4}, Y: []float64{9, 8}, N: 2, D: 2}},
		{"forced header", "1,2\n3,4\n", CSVOptions{Header: HeaderYes, LabelCol: LabelFirst},
			&Dataset{X: []float32{4}, Y: []float64{3}, N: 1, D: 1}},
		{"semicolons, quotes, CRLF", "\"1\";2\r\n3;4\r\n", CSVOptions{Comma: ';', Header: HeaderNo, LabelCol: LabelFirst},
			&Dataset{X: []float32{2, 4}, Y: []float64{1, 3}, N: 2, D: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(tc.in), "t.csv", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			equalData(t, d, tc.want)
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name, in string
		opt      CSVOptions
		want     string
	}{
		{"missing label", "x,y\n1,2\n3,NA\n", CSVOptions{LabelCol: -1}, `data: t.csv:3: missing label "NA" in column "y"`},
		{"missing value", "x,y\n1,2\n?,1\n", CSVOptions{LabelCol: -1}, `data: t.csv:3: missing value "?" in column "x", a column of numbers`},
		{"bad float", "1,2\n3,4x\n", CSVOptions{LabelCol: LabelFirst, Columns: []Column{{}}}, `t.csv:2: value "4x" in column 1 is not a number (the model's column 0 holds numbers)`},
		{"wrong columns", "1,2,3,4\n3,4,5,6\n", CSVOptions{Columns: []Column{{}, {}}}, `t.csv:1: 4 fields, but the model's data had 2 feature columns (and a label)`},
		{"missing named column", "b,a\n1,2\n", CSVOptions{Columns: []Column{{Name: "a"}, {Name: "c"}}}, `t.csv:1: no column named "c", the model's feature column 1`},
		{"some labels empty", "x,y\n1,2\n3,\n", CSVOptions{}, `t.csv:3: empty label in column "y" (a label column is full, or empty in every row)`},
		{"blank line", "x,y\n1,2\n\n3,4\n", CSVOptions{}, `t.csv:3: an empty line`},
		{"blank last line", "x,y\n1,2\n3,4\n\n", CSVOptions{}, `t.csv:4: an empty line`},
		{"underscore", "x,y\n1_000,2\n", CSVOptions{Columns: []Column{{}}}, `t.csv:2: value "1_000" in column "x" is not a number`},
		{"unclosed quote", "x,y\n1,2\n\"3,4\n5,6\n7,8\n", CSVOptions{}, `t.csv:3: a quoted field opened on this line is not closed (the quote runs to line 5)`},
		{"long value", "x,y\n1,2\n" + strings.Repeat("z", 500) + ",3\n", CSVOptions{Columns: []Column{{}}}, `… (500 bytes) in column "x" is not a number`},
		{"missing among numbers", "x,y\n1,2\n,3\n", CSVOptions{LabelCol: -1}, `t.csv:3: empty value in column "x", a column of numbers`},
		{"NaN value", "1,NaN\n", CSVOptions{LabelCol: LabelFirst}, `t.csv:1: value "NaN" in column 1 is not finite`},
		{"NaN label", "nan,1\n", CSVOptions{Header: HeaderNo, LabelCol: LabelFirst}, `t.csv:1: label "nan" in column 0 is not finite`},
		{"missing label", "1,2\n,3\n", CSVOptions{LabelCol: LabelFirst}, "t.csv:2: empty label in column 0"},
		{"empty value", "1,2,3\n1,,3\n", CSVOptions{}, "t.csv:2: empty value in column 1"},
		{"ragged", "1,2,3\n1,2\n", CSVOptions{}, "t.csv:2: 2 fields, but the first row has 3"},
		{"label column", "1,2\n", CSVOptions{LabelCol: 2}, "label column 2, but the rows have 2 fields"},
		{"one column", "1\n2\n", CSVOptions{}, "want a label and at least one feature"},
		{"header only", "a,b\n", CSVOptions{}, "t.csv: no data rows"},
		{"forced no header", "a,b\n1,2\n", CSVOptions{Header: HeaderNo, LabelCol: LabelFirst, Columns: []Column{{}}}, `t.csv:1: value "b" in column 1 is not a number`},
		{"garbage", "1,2\n\"oops\n", CSVOptions{}, "t.csv:2: extraneous or missing \" in quoted-field"},
		{"no such label column constant", "1,2\n", CSVOptions{LabelCol: -2}, "label column -2; want a 0-based column ≥ 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.in), "t.csv", tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCSVRoundTrip(t *testing.T) {
	d := ringnorm(40, newRNG(6))
	d.Y[3] = 0.1
	d.X[5] = 1e-30
	for _, header := range []bool{false, true} {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, d, header); err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(buf.String(), "\n"); header != strings.HasPrefix(first, "label,x1,x2,") {
			t.Fatalf("header=%v, first line %q", header, first)
		}
		// The header names the label column; without it, it is the first.
		opt := CSVOptions{}
		if !header {
			opt.LabelCol = LabelFirst
		}
		got, err := ReadCSV(&buf, "rt.csv", opt)
		if err != nil {
			t.Fatal(err)
		}
		equalData(t, got, d)
	}
}

// TestRingnormCSV reads the real DELVE Ringnorm file from the shared data
// directory, which the repository must not contain.
func TestRingnormCSV(t *testing.T) {
	p := filepath.Join("..", "..", "shared", "data", "ringnorm.csv")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not present", p)
	}
	d, err := Open(p, OpenOptions{CSV: CSVOptions{LabelCol: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.N != 7400 || d.D != 20 {
		t.Fatalf("size %d×%d, want 7400×20", d.N, d.D)
	}
	count := map[float64]int{}
	for _, y := range d.Y {
		count[y]++
	}
	if count[1] != 3664 || count[2] != 3736 {
		t.Fatalf("class counts %v, want 1:3664 2:3736", count)
	}
	if d.X[0] != 849 || d.X[19] != -3028 {
		t.Fatalf("first row %v", d.Row(0))
	}
	if _, m, err := d.BinaryLabels(); err != nil || m != (LabelMap{1, 2}) {
		t.Fatalf("BinaryLabels: %v %v", m, err)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	d := ringnorm(20, newRNG(9))
	write := func(name string, gz bool, f func(*bytes.Buffer)) string {
		var buf bytes.Buffer
		f(&buf)
		b := buf.Bytes()
		if gz {
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			w.Write(b)
			w.Close()
			b = z.Bytes()
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	libsvm := func(b *bytes.Buffer) { WriteLIBSVM(b, d) }
	csv := func(b *bytes.Buffer) { WriteCSV(b, d, true) }
	tests := []struct {
		path string
		opt  OpenOptions
	}{
		{write("a.libsvm", false, libsvm), OpenOptions{Dim: 20}},
		{write("a.txt", false, libsvm), OpenOptions{Dim: 20}},   // sniffed
		{write("a.txt.gz", true, libsvm), OpenOptions{Dim: 20}}, // gzip, sniffed
		{write("a.dat", false, libsvm), OpenOptions{Format: "libsvm", Dim: 20}},
		{write("a.csv", false, csv), OpenOptions{}},
		{write("b.data", false, csv), OpenOptions{}}, // sniffed
		{write("a.csv.gz", true, csv), OpenOptions{}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			got, err := Open(tc.path, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			equalData(t, got, d)
		})
	}
	t.Run("unknown", func(t *testing.T) {
		p := write("x.bin", false, func(b *bytes.Buffer) { b.WriteString("hello\n") })
		if _, err := Open(p, OpenOptions{}); err == nil || !strings.Contains(err.Error(), "cannot tell the format") {
			t.Fatalf("error %v", err)
		}
		if _, err := Open(p, OpenOptions{Format: "arff"}); err == nil || !strings.Contains(err.Error(), `unknown format "arff"`) {
			t.Fatalf("error %v", err)
		}
	})
}

// TestOtherFormats: a file named as a format the readers do not read
// (a spreadsheet, JSON, Parquet, …) is an error that names the format and
// how to write it as CSV, whether read whole or streamed; read as CSV when
// asked.
func TestOtherFormats(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, what, read string }{
		{"book.xlsx", "a spreadsheet", "pd.read_excel(path)"},
		{"rows.jsonl", "a file of JSON lines", "pd.read_json(path, lines=True)"},
		{"TABLE.PARQUET", "a Parquet file", "pd.read_parquet(path)"},
		{"weka.arff.gz", "an ARFF file", "scipy.io.arff.loadarff(path)"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte("a,label\n1,0\n2,1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path, OpenOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.what+" is not read") || !strings.Contains(err.Error(), tc.read) {
			t.Errorf("%s: %v; want an error naming %s and %s", tc.name, err, tc.what, tc.read)
		}
		if _, err := OpenStream(path, OpenOptions{}); err == nil || !strings.Contains(err.Error(), tc.what+" is not read") {
			t.Errorf("%s, streamed: %v", tc.name, err)
		}
	}
	path := filepath.Join(dir, "book.xlsx")
	if ds, err := Open(path, OpenOptions{Format: "csv"}); err != nil || ds.N != 2 {
		t.Errorf("with Format csv: %v", err)
	}
}

// TestPreambleNotice: a first line of another number of fields than the
// rows after it is left out as a preamble (scikit-learn's bundled files
// start with one), with a notice that names it, so that a header of one
// name too many does not vanish without a word.
func TestPreambleNotice(t *testing.T) {
	for text, line := range map[string]string{
		"x,sl,sw,label\n5.1,3.5,0\n4.9,3,1\n":     `line 1, "x,sl,sw,label", has 4 fields and the rows after it 3: it is left out`,
		"150;4;setosa;versicolor\n1;2;0\n3;4;1\n": `line 1, "150;4;setosa;versicolor", has 4 fields and the rows after it 3: it is left out`,
	} {
		ds, err := ReadCSV(strings.NewReader(text), "p.csv", CSVOptions{Comma: rune(text[strings.IndexAny(text, ",;")])})
		if err != nil || ds.N != 2 || ds.D != 2 || len(ds.Notices) == 0 || !strings.HasPrefix(ds.Notices[0], line) {
			t.Errorf("%q: %v, %d×%d, notices %q", text, err, ds.N, ds.D, ds.Notices)
		}
	}
	ds, err := ReadCSV(strings.NewReader("a,b,label\n1,2,0\n3,4,1\n"), "h.csv", CSVOptions{})
	if err != nil || len(ds.Notices) != 0 {
		t.Errorf("a header: %v, notices %q", err, ds.Notices)
	}
}
