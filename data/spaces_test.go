package data

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// TestSpaceFields: runs of spaces and tabs between fields become one tab,
// at the ends of a line nothing; quoted fields are copied whole, escaped
// quotes and all; read a byte at a time, the text is the same.
func TestSpaceFields(t *testing.T) {
	for in, want := range map[string]string{
		"1 2 3\n":                           "1\t2\t3\n",
		"  1 \t 2   3  \r\n4 5 6":           "1\t2\t3\n4\t5\t6",
		"\n \n1 2\n":                        "\n\n1\t2\n",
		`"New York" 2 "a ""b"" c" d` + "\n": `"New York"` + "\t2\t" + `"a ""b"" c"` + "\td\n",
		"5\"3 x\n":                          "5\"3\tx\n", // a quote inside a field opens nothing
		"\"two\nlines\" 1\n":                "\"two\nlines\"\t1\n",
		"1,5 2\n":                           "1,5\t2\n",             // a comma stays in its field
		"\n# a b\n1 2\n# c\n":               "\na\tb\n1\t2\n#\tc\n", // the first line's '#' only
	} {
		for _, small := range []bool{false, true} {
			var src io.Reader = strings.NewReader(in)
			if small {
				src = iotest.OneByteReader(src)
			}
			r := newSpaceFields(src)
			var got []byte
			var err error
			if small {
				p := make([]byte, 1)
				for {
					n, e := r.Read(p)
					got = append(got, p[:n]...)
					if e != nil {
						if e != io.EOF {
							err = e
						}
						break
					}
				}
			} else {
				got, err = io.ReadAll(r)
			}
			if err != nil || string(got) != want {
				t.Errorf("%q (one byte at a time: %v): %q, %v; want %q", in, small, got, err, want)
			}
		}
	}
}

// TestSpaces: a table separated by spaces (as NumPy's savetxt and R's
// write.table write it) reads as the same table separated by commas,
// sniffed or asked for, whole (plain, gzip, from a reader) or streamed;
// quoted fields with spaces are categories as in the comma file; a row
// with a field missing is an error naming its line.
func TestSpaces(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var commas bytes.Buffer
	WriteCSV(&commas, ringnorm(30, newRNG(3)), true)
	want, err := Open(write("c.csv", commas.Bytes()), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Commas to runs of spaces (and tabs but on the first line, where a
	// tab makes the file tab-separated unless Spaces is asked for), with
	// spaces at the ends of some lines and CRLF ends on others.
	spacedBy := func(seps ...string) []byte {
		var b bytes.Buffer
		for i, line := range strings.Split(strings.TrimSuffix(commas.String(), "\n"), "\n") {
			for j, f := range strings.Split(line, ",") {
				if j > 0 {
					sep := seps[(i+j)%len(seps)]
					if i == 0 && len(seps) > 2 {
						sep = strings.ReplaceAll(sep, "\t", " ")
					}
					b.WriteString(sep)
				}
				b.WriteString(f)
			}
			b.WriteString([]string{"  \n", "\r\n", "\n"}[i%3])
		}
		return b.Bytes()
	}
	spaced := spacedBy(" ", "  ", "\t", " \t ")
	tabbed := spacedBy("\t", " \t ")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(spaced)
	zw.Close()
	same := func(what string, got *Dataset, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		equalData(t, got, want)
		if !reflect.DeepEqual(got.Columns, want.Columns) || got.LabelColumn != want.LabelColumn {
			t.Errorf("%s: columns %v label %q, want %v %q", what, got.Columns, got.LabelColumn, want.Columns, want.LabelColumn)
		}
	}
	for _, tc := range []struct {
		name string
		b    []byte
		opt  OpenOptions
	}{
		{"s.txt", spaced, OpenOptions{}}, // format and separator sniffed
		{"s.csv", spaced, OpenOptions{}}, // separator sniffed
		{"s.dat", spaced, OpenOptions{Format: "csv", CSV: CSVOptions{Comma: Spaces}}},
		{"s.txt.gz", z.Bytes(), OpenOptions{}},
		{"t.csv", tabbed, OpenOptions{CSV: CSVOptions{Comma: Spaces}}},
	} {
		p := write(tc.name, tc.b)
		ds, err := Open(p, tc.opt)
		same(tc.name, ds, err)
		ds, err = OpenReader(bytes.NewReader(tc.b), tc.name, tc.opt)
		same(tc.name+" (reader)", ds, err)
		s, err := OpenStream(p, tc.opt)
		if err != nil {
			t.Fatalf("%s: stream: %v", tc.name, err)
		}
		ds, err = s.ReadRows(want.N + 1)
		same(tc.name+" (stream)", ds, err)
		// Rewound, the stream reads the same rows.
		if err := s.Rewind(); err != nil {
			t.Fatal(err)
		}
		ds, err = s.ReadRows(want.N + 1)
		same(tc.name+" (stream, rewound)", ds, err)
		s.Close()
	}

	// Quoted fields with spaces in them are the comma file's categories.
	cat := `city temp label` + "\n" + `"New York" 1.5 a` + "\n" + `Paris   2 b` + "\n" + `"Say ""hi"" x" 3 a` + "\n" + `Paris 4 b` + "\n"
	catC := `city,temp,label` + "\n" + `"New York",1.5,a` + "\n" + `Paris,2,b` + "\n" + `"Say ""hi"" x",3,a` + "\n" + `Paris,4,b` + "\n"
	want, err = ReadCSV(strings.NewReader(catC), "c.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := Open(write("cat.txt", []byte(cat)), OpenOptions{})
	same("categories", ds, err)
	if !reflect.DeepEqual(ds.LabelNames, want.LabelNames) {
		t.Errorf("label names %v, want %v", ds.LabelNames, want.LabelNames)
	}

	// NumPy's savetxt header ("# " first) names the columns, the label
	// among them.
	ds, err = Open(write("np.txt", []byte("# a b label c\n1 2 0 3\n4 5 1 6\n7 8 0 9\n")), OpenOptions{})
	if err != nil || ds.LabelColumn != "label" || len(ds.Columns) != 3 || ds.Columns[2].Name != "c" || ds.Y[1] != 1 || ds.X[5] != 6 {
		t.Errorf("NumPy's header: %v, label %q, columns %v, X %v, Y %v", err, ds.LabelColumn, ds.Columns, ds.X, ds.Y)
	}

	// A row short of a field is an error at its line, whole or streamed.
	bad := write("bad.txt", []byte("a b label\n1 2 x\n3 4 y\n5 x\n6 7 y\n"))
	if _, err := Open(bad, OpenOptions{}); err == nil || !strings.Contains(err.Error(), "bad.txt:4") {
		t.Errorf("short row: %v", err)
	}
	if s, err := OpenStream(bad, OpenOptions{}); err == nil {
		_, err = s.ReadRows(10)
		s.Close()
		if err == nil || !strings.Contains(err.Error(), "bad.txt:4") {
			t.Errorf("short row, streamed: %v", err)
		}
	} else if !strings.Contains(err.Error(), "bad.txt:4") {
		t.Errorf("short row, streamed: %v", err)
	}
}
