package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// readAll reads s in blocks of b rows.
func readAll(t *testing.T, s *Stream, b int) *Dataset {
	t.Helper()
	d := s.D()
	out := &Dataset{D: d}
	x := make([]float32, b*d)
	y := make([]float64, b)
	for {
		n, err := s.Next(x, y)
		out.X = append(out.X, x[:n*d]...)
		out.Y = append(out.Y, y[:n]...)
		out.N += n
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestStream: streaming a file in blocks of any size gives Open's data,
// and Rewind repeats it; compressed files too.
func TestStream(t *testing.T) {
	ds := ringnorm(1500, rand.New(rand.NewPCG(3, 4)))
	dir := t.TempDir()
	var lib, csv bytes.Buffer
	if err := WriteLIBSVM(&lib, ds); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csv, ds, true); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(lib.Bytes())
	zw.Close()
	files := map[string][]byte{"a.libsvm": []byte(strings.Replace(lib.String(), "\n", "\n# c\n", 3)), "b.csv": csv.Bytes(), "c.libsvm.gz": gz.Bytes()}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := Open(path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := OpenStream(path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.D() != want.D {
			t.Fatalf("%s: width %d, want %d", name, s.D(), want.D)
		}
		if r := s.Rows(); r != -1 && r != want.N {
			t.Fatalf("%s: Rows %d, want %d", name, r, want.N)
		}
		for _, b := range []int{1, 7, 4096} {
			if err := s.Rewind(); err != nil {
				t.Fatal(err)
			}
			got := readAll(t, s, b)
			if got.N != want.N || !slices.Equal(got.X, want.X) || !slices.Equal(got.Y, want.Y) {
				t.Fatalf("%s, blocks of %d: %d rows, want %d, or other values", name, b, got.N, want.N)
			}
		}
		s.Close()
	}
}

// TestStreamErrors: a bad row in the middle of a stream is an error with
// its file and line.
func TestStreamErrors(t *testing.T) {
	ds := ringnorm(300, rand.New(rand.NewPCG(3, 4)))
	var csv bytes.Buffer
	if err := WriteCSV(&csv, ds, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(csv.String(), "\n")
	lines[200] = strings.Replace(lines[200], ",", ",abc", 1)
	path := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStream(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x := make([]float32, 64*s.D())
	y := make([]float64, 64)
	for {
		_, err = s.Next(x, y)
		if err != nil {
			break
		}
	}
	if err == io.EOF || !strings.Contains(err.Error(), "bad.csv:201:") || !strings.Contains(err.Error(), "not a number") {
		t.Fatalf("error %v, want one naming bad.csv:201", err)
	}
}

// TestStreamGzipWidth: a gzipped LIBSVM file whose widest row comes late
// streams at its full width, with its rows counted; a bad line in it is an
// error naming the line.
func TestStreamGzipWidth(t *testing.T) {
	ds := ringnorm(5000, rand.New(rand.NewPCG(3, 4)))
	var lib bytes.Buffer
	if err := WriteLIBSVM(&lib, ds); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(lib.String(), "\n")
	lines[4500] += " 30:1.5"
	dir := t.TempDir()
	for _, tc := range []struct{ name, bad string }{{"w.libsvm.gz", ""}, {"bad.libsvm.gz", "1 2:x"}} {
		ls := slices.Clone(lines)
		if tc.bad != "" {
			ls[3000] = tc.bad
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(strings.Join(ls, "\n")))
		zw.Close()
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		withReadChunks(1<<14, func() {
			s, err := OpenStream(path, OpenOptions{})
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), "bad.libsvm.gz:3001:") {
					t.Fatalf("error %v, want one naming bad.libsvm.gz:3001", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			want, err := Open(path, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s.D() != 30 || s.Rows() != 5000 {
				t.Fatalf("D %d Rows %d, want 30 and 5000", s.D(), s.Rows())
			}
			for range 2 {
				got := readAll(t, s, 333)
				if !sameData(got, want) {
					t.Fatalf("%d×%d, want %d×%d, or other values", got.N, got.D, want.N, want.D)
				}
				if err := s.Rewind(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestStreamReadRows: ReadRows gives the next rows as a data set, fewer
// at the end of the stream.
func TestStreamReadRows(t *testing.T) {
	ds := ringnorm(300, rand.New(rand.NewPCG(2, 2)))
	path := filepath.Join(t.TempDir(), "r.libsvm")
	var b bytes.Buffer
	if err := WriteLIBSVM(&b, ds); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStream(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := s.ReadRows(200)
	if err != nil || a.N != 200 || !slices.Equal(a.X, ds.X[:200*ds.D]) || !slices.Equal(a.Y, ds.Y[:200]) {
		t.Fatalf("first 200 rows: %v, %d rows, or other values", err, a.N)
	}
	rest, err := s.ReadRows(200)
	if err != nil || rest.N != 100 || !slices.Equal(rest.Y, ds.Y[200:]) || rest.Validate() != nil {
		t.Fatalf("the rest: %v, %d rows", err, rest.N)
	}
}

// TestStreamPandasIndex: a CSV file whose unnamed first column holds
// 0…N−1 (DataFrame.to_csv's index) streams as Open reads it, the index
// left out with a notice and in the columns; a row past the stream's
// first look that breaks the numbering is an error naming its line (Open,
// seeing every row, keeps such a column as a feature); an unnamed first
// column of other numbers is a feature.
func TestStreamPandasIndex(t *testing.T) {
	const n = 120000 // 1.8 MB: more than the 1 MB a stream looks at first
	var b strings.Builder
	b.WriteString(",a,b,label\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,%d.5,%d,%d\n", i, i%7, i%3, i%2)
	}
	good := b.String()
	dir := t.TempDir()
	write := func(name, text string) string { return writeTestFile(t, dir, name, text) }
	for _, name := range []string{"index.csv", "index.csv.gz"} {
		path := write(name, good)
		want, err := Open(path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want.D != 2 || !want.Columns[0].RowIndex {
			t.Fatalf("%s: Open reads %d features, columns %+v; want the index left out", name, want.D, want.Columns)
		}
		withReadChunks(4096, func() {
			s, err := OpenStream(path, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.D() != 2 || !reflect.DeepEqual(s.Columns(), want.Columns) || s.LabelColumn() != "label" {
				t.Fatalf("%s: stream of %d features, columns %+v, label column %q; want Open's %+v", name, s.D(), s.Columns(), s.LabelColumn(), want.Columns)
			}
			if !slices.Contains(s.Notices(), indexNotice) {
				t.Fatalf("%s: notices %q do not tell of the index", name, s.Notices())
			}
			for _, blk := range []int{1, 777, 4096} {
				if err := s.Rewind(); err != nil {
					t.Fatal(err)
				}
				got := readAll(t, s, blk)
				if got.N != n || !slices.Equal(got.X, want.X) || !slices.Equal(got.Y, want.Y) {
					t.Fatalf("%s, blocks of %d: %d rows, want %d, or other values", name, blk, got.N, want.N)
				}
			}
			if err := s.Rewind(); err != nil {
				t.Fatal(err)
			}
			ds, err := s.ReadRows(n)
			if err != nil || ds.Validate() != nil || !reflect.DeepEqual(ds.Columns, want.Columns) {
				t.Fatalf("%s: ReadRows: %v, columns %+v", name, err, ds.Columns)
			}
		})
	}

	// Row 110000 (line 110002) holds 7: Open keeps the column, the stream
	// that left it out stops there.
	broken := strings.Replace(good, "\n110000,", "\n7,", 1)
	path := write("broken.csv", broken)
	if whole, err := Open(path, OpenOptions{}); err != nil || whole.D != 3 {
		t.Fatalf("Open: %v, %d features; want the column kept", err, whole.D)
	}
	err := streamError(t, path)
	if err == io.EOF || !strings.Contains(err.Error(), "broken.csv:110002:") || !strings.Contains(err.Error(), "pandas index") {
		t.Fatalf("error %v, want one naming broken.csv:110002 and the index", err)
	}

	// Other numbers in an unnamed first column: a feature, as Open has it.
	path = write("ids.csv", ",a,label\n3,1,0\n4,2,1\n5,3,0\n")
	s, err := OpenStream(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.D() != 2 || s.Columns()[0].Dropped || slices.Contains(s.Notices(), indexNotice) {
		t.Fatalf("ids: %d features, columns %+v, notices %q; want the first column a feature", s.D(), s.Columns(), s.Notices())
	}
}

// TestStreamTextColumns: a training stream of a CSV file with a column
// that Open reads as dates or categories stops at its first such line
// with an error naming the column, what it holds and the line.
func TestStreamTextColumns(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ text, want string }{
		{"day,a,label\n2024-01-01,1,0\n2024-01-02,2,1\n", `f.csv:2: column "day" holds dates (YYYY-MM-DD): a stream reads columns of numbers`},
		{"a,color,label\n1,red,0\n2,blue,1\n", `f.csv:2: value "red" in column "color" is not a number: a stream reads columns of numbers`},
		{"a,b,label\n1,2,0\n2,3,1\n3,x,0\n", `f.csv:4: value "x" in column "b" is not a number`},
		{"a,b,label\n1,2,0\n2,,1\n", `f.csv:3: column "b" has no value: a stream reads every row's numbers`},
		{"a,b,label,\n1,2,0,5\n2,3,1,\n", `f.csv:3: column 3 has no value`},
		{"a,b,label\n1,2,0\n2,NA,1\n", `f.csv:3: missing value "NA" in column "b", a column of numbers: a stream reads every row's numbers; read the file whole`},
	} {
		path := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := OpenStream(path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.ReadRows(10)
		s.Close()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestStreamIndexPeek: what a stream's first look at its rows says about a
// pandas index: the complete rows decide, none decide nothing before the
// end of the file.
func TestStreamIndexPeek(t *testing.T) {
	for _, tc := range []struct {
		text string
		eof  bool
		want bool
	}{
		{"0,1\n1,2\n2,", false, true}, // a partial last line is left to the rows after
		{"0,1\n1,2\n7,", true, false}, // at the end of the file it is a row
		{"0,1\r\n1,2\r\n", true, true},
		{"0,1\n2,2\n", true, false},
		{" 0 ,1\n1.0,2\n", true, true},
		{"0,1,2,3", false, false}, // no complete row: no index
		{"a,1\n", true, false},
		{"", true, true}, // no rows, as Open's check of every row
	} {
		if got := streamIndex([]byte(tc.text), tc.eof, ','); got != tc.want {
			t.Errorf("streamIndex(%q, eof %v) = %v, want %v", tc.text, tc.eof, got, tc.want)
		}
	}
}

// streamError reads the stream of the file at path to its end and returns
// the error that ended it (io.EOF at the end).
func streamError(t *testing.T, path string) error {
	t.Helper()
	s, err := OpenStream(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	x, y := make([]float32, 512*s.D()), make([]float64, 512)
	for err == nil {
		_, err = s.Next(x, y)
	}
	return err
}

// writeTestFile writes text to the file name in dir, gzipped when the name
// ends in .gz, and returns its path.
func writeTestFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	body := []byte(text)
	if strings.HasSuffix(name, ".gz") {
		body = gzipBytes(body)
	}
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStreamEmptyColumn: a column empty in every row the stream peeks at (a
// separator at the end of every line, an empty column in the middle) is
// left out as Open leaves it out, with or without a header, beside a
// pandas index, compressed or not; a later row that holds a value there is
// an error naming its line, since Open would keep the column.
func TestStreamEmptyColumn(t *testing.T) {
	const n = 200000 // 1.8 MB and more: past the 1 MB a stream looks at first
	dir := t.TempDir()
	file := func(header, row string) string {
		var b strings.Builder
		b.WriteString(header)
		for i := range n {
			fmt.Fprintf(&b, row, i, i%7, i%3, i%2)
		}
		return b.String()
	}
	write := func(name, text string) string { return writeTestFile(t, dir, name, text) }
	for _, tc := range []struct {
		name, text string
		d          int
		notice     string
	}{
		{"trailing.csv", file("a,b,label,\n", "%[2]d.5,%[3]d,%[4]d,\n"), 2, "column 3 is empty"},
		{"trailing.csv.gz", file("a,b,label,\n", "%[2]d.5,%[3]d,%[4]d,\n"), 2, "column 3 is empty"},
		{"middle.csv", file("a,gap,b,label\n", "%[2]d.5, ,%[3]d,%[4]d\n"), 2, `column "gap" is empty`},
		{"headerless.csv", file("", "%[2]d.5,%[3]d,,%[4]d\n"), 2, "column 2 is empty"},
		{"index.csv", file(",a,b,label,\n", "%[1]d,%[2]d.5,%[3]d,%[4]d,\n"), 2, "column 4 is empty"},
	} {
		path := write(tc.name, tc.text)
		want, err := Open(path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want.D != tc.d {
			t.Fatalf("%s: Open reads %d features, columns %+v", tc.name, want.D, want.Columns)
		}
		withReadChunks(4096, func() {
			s, err := OpenStream(path, OpenOptions{})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			defer s.Close()
			if s.D() != want.D || !reflect.DeepEqual(s.Columns(), want.Columns) || !slices.Equal(s.Notices(), want.Notices) {
				t.Fatalf("%s: stream of %d features, columns %+v, notices %q; want Open's %d, %+v, %q", tc.name, s.D(), s.Columns(), s.Notices(), want.D, want.Columns, want.Notices)
			}
			if !strings.Contains(strings.Join(s.Notices(), "\n"), tc.notice) {
				t.Fatalf("%s: notices %q do not say %q", tc.name, s.Notices(), tc.notice)
			}
			for _, blk := range []int{1, 777, 4096} {
				if err := s.Rewind(); err != nil {
					t.Fatal(err)
				}
				got := readAll(t, s, blk)
				if got.N != n || !slices.Equal(got.X, want.X) || !slices.Equal(got.Y, want.Y) {
					t.Fatalf("%s, blocks of %d: %d rows, want %d, or other values", tc.name, blk, got.N, want.N)
				}
			}
		})
	}

	// Row 190000 (line 190002, past the first megabyte) holds a value in
	// the trailing column: Open keeps it as a column of missing values; the
	// stream stops there.
	text := file("a,b,label,\n", "%[2]d.5,%[3]d,%[4]d,\n")
	at := strings.Index(text, "\n") + 1
	for range 190000 {
		at += strings.Index(text[at:], "\n") + 1
	}
	end := at + strings.Index(text[at:], "\n")
	path := write("broken.csv", text[:end]+"9"+text[end:])
	if whole, err := Open(path, OpenOptions{CSV: CSVOptions{FillMissing: true}}); err != nil || whole.D != 3 {
		t.Fatalf("Open: %v; want the column kept", err)
	}
	err := streamError(t, path)
	if err == io.EOF || !strings.Contains(err.Error(), "broken.csv:190002: column 3 was empty in every row before this one") || !strings.Contains(err.Error(), `holds "9"`) {
		t.Fatalf("error %v, want one naming broken.csv:190002, the column and its value", err)
	}

	// Every feature column empty, or a column empty in some rows only: not
	// left out (Open's errors), as Open has it.
	for _, text := range []string{"a,label\n,1\n,0\n", "a,b,label\n1,,1\n2,3,0\n"} {
		path := write("other.csv", text)
		s, err := OpenStream(path, OpenOptions{})
		if err != nil {
			continue
		}
		if s.D() != 1 && s.D() != 2 || s.empty != nil {
			t.Fatalf("%q: %d features, columns %+v; want none left out", text, s.D(), s.Columns())
		}
		s.Close()
	}
}
