package data

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16Bytes encodes s as UTF-16, little- or big-endian, with or without
// a byte-order mark.
func utf16Bytes(s string, big, mark bool) []byte {
	u := utf16.Encode([]rune(s))
	if mark {
		u = append([]uint16{0xfeff}, u...)
	}
	b := make([]byte, 0, 2*len(u))
	for _, c := range u {
		if big {
			b = append(b, byte(c>>8), byte(c))
		} else {
			b = append(b, byte(c), byte(c>>8))
		}
	}
	return b
}

// TestTextEncodings: text in UTF-16 or UTF-32 is one error naming the
// encoding, in every reader, never rows of garbage.
func TestTextEncodings(t *testing.T) {
	text := "a,b,label\n0.5,0.25,1\n0.125,0.75,0\n"
	utf32le := func(s string) []byte {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
		}
		return b
	}
	cases := map[string][]byte{
		"UTF-16 (little-endian, with a byte-order mark)": utf16Bytes(text, false, true),
		"UTF-16 (big-endian, with a byte-order mark)":    utf16Bytes(text, true, true),
		"UTF-16 (little-endian)":                         utf16Bytes(text, false, false)[:len(utf16Bytes(text, false, false))-1], // without its final NUL
		"UTF-16 (big-endian)":                            utf16Bytes(text, true, false),
		"UTF-32 (little-endian)":                         utf32le(text),
	}
	dir := t.TempDir()
	for enc, b := range cases {
		for _, name := range []string{"t.csv", "t.libsvm"} {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			check := func(how string, err error) {
				t.Helper()
				if !errors.Is(err, ErrEncoding) || !strings.Contains(err.Error(), "the text is "+enc+", not UTF-8") {
					t.Errorf("%s, %s, %s: %v", enc, name, how, err)
				}
			}
			_, err := Open(path, OpenOptions{})
			check("Open", err)
			_, err = OpenReader(bytes.NewReader(b), name, OpenOptions{})
			check("OpenReader", err)
			_, err = OpenStream(path, OpenOptions{})
			check("OpenStream", err)
		}
	}
}

// TestNotUTF8Text: a label, a column name or a category in bytes that are
// not UTF-8 (Windows-1252's é) is an error that names it and says how to
// convert the file, in every reader, whole (fast and sequential paths) or
// streamed; the same text in UTF-8 reads, its names as written.
func TestNotUTF8Text(t *testing.T) {
	dir := t.TempDir()
	for what, text := range map[string]string{
		`label "caf\xe9"`:                  "a,b,label\n1,2,caf\xe9\n3,4,tea\n5,6,caf\xe9\n",
		`column name "temp\xe9rature"`:     "temp\xe9rature,b,label\n1,2,0\n3,4,1\n",
		`value in "city" "Montr\xe9al"`:    "city,t,label\nMontr\xe9al,1,0\nParis,2,1\nMontr\xe9al,3,0\n",
		`label "caf\xe9" (quoted, spaces)`: "a b label\n1 2 \"caf\xe9\"\n3 4 tea\n",
	} {
		want := strings.TrimSuffix(what, " (quoted, spaces)")
		check := func(how string, err error) {
			t.Helper()
			if !errors.Is(err, ErrEncoding) || !strings.Contains(err.Error(), want+" is not UTF-8") || !strings.Contains(err.Error(), "iconv") {
				t.Errorf("%s, %s: %v", what, how, err)
			}
		}
		p := filepath.Join(dir, "t.csv")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(p, OpenOptions{})
		check("Open", err)
		_, err = OpenReader(strings.NewReader(text), "t.csv", OpenOptions{})
		check("OpenReader", err)
		if strings.Contains(what, "city") {
			continue // streams read no categories
		}
		s, err := OpenStream(p, OpenOptions{})
		if err == nil {
			_, err = s.ReadRows(10)
			s.Close()
		}
		check("stream", err)
	}
	text := "city,température,label\nMontréal,1,café\nParis,2,tea\nMontréal,3,café\nParis,4,tea\n"
	ds, err := ReadCSV(strings.NewReader(text), "u.csv", CSVOptions{})
	if err != nil || !slices.Equal(ds.LabelNames, []string{"café", "tea"}) || ds.Columns[0].Categories[0] != "Montréal" || ds.Columns[1].Name != "température" {
		t.Errorf("UTF-8: %v, %+v", err, ds)
	}
}

// TestCROnlyLines: lines ended by '\r' alone read as lines, in every
// reader, as the same text with '\n' does.
func TestCROnlyLines(t *testing.T) {
	ds := ringnorm(400, rand.New(rand.NewPCG(7, 8)))
	var lib, csv bytes.Buffer
	if err := WriteLIBSVM(&lib, ds); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csv, ds, true); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range map[string][]byte{"cr.libsvm": lib.Bytes(), "cr.csv": csv.Bytes()} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, bytes.ReplaceAll(text, []byte("\n"), []byte("\r")), 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := OpenReader(bytes.NewReader(text), name, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Open(path, OpenOptions{})
		if err != nil || got.N != want.N || got.D != want.D || !slices.Equal(got.X, want.X) || !slices.Equal(got.Y, want.Y) {
			t.Fatalf("%s: Open: %v", name, err)
		}
		s, err := OpenStream(path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		streamed := readAll(t, s, 100)
		s.Close()
		if streamed.N != want.N || !slices.Equal(streamed.X, want.X) {
			t.Fatalf("%s: the stream read %d rows of %d", name, streamed.N, want.N)
		}
	}
	// A row off the fast path names its line, counted by the '\r's.
	bad := "1 1:0.5\r-1 1:0.25\r1 1:x\r"
	_, err := OpenReader(strings.NewReader(bad), "bad.libsvm", OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "bad.libsvm:3:") {
		t.Fatalf("a bad value on line 3: %v", err)
	}
}

// TestLabelColumnByName: the label column named in any case; a name not in
// the header, or a file without one, is an error; the last column taken for
// want of a name is named in a notice.
func TestLabelColumnByName(t *testing.T) {
	text := "tenure,Churn,plan,age\n1.5,1,a,30\n2.5,0,b,40\n3.5,1,a,50\n"
	for _, fast := range []bool{true, false} {
		open := func(text string, opt CSVOptions) (*Dataset, error) {
			if fast {
				path := filepath.Join(t.TempDir(), "t.csv")
				os.WriteFile(path, []byte(text), 0o644)
				return Open(path, OpenOptions{CSV: opt})
			}
			return OpenReader(strings.NewReader(text), "t.csv", OpenOptions{CSV: opt})
		}
		ds, err := open(text, CSVOptions{LabelColumn: "churn"})
		if err != nil || !slices.Equal(ds.Y, []float64{1, 0, 1}) || ds.D != 4 || len(ds.Notices) != 0 {
			t.Fatalf("fast %v: by name: %v, %+v", fast, err, ds)
		}
		if _, err := open(text, CSVOptions{LabelColumn: "churned"}); err == nil || !strings.Contains(err.Error(), `no column named "churned" for the label`) {
			t.Errorf("fast %v: an unknown name: %v", fast, err)
		}
		if _, err := open(strings.SplitN(text, "\n", 2)[1], CSVOptions{LabelColumn: "churn", Header: HeaderNo}); err == nil || !strings.Contains(err.Error(), "no header row") {
			t.Errorf("fast %v: a name without a header: %v", fast, err)
		}
		ds, err = open(text, CSVOptions{})
		if err != nil || len(ds.Notices) != 1 || !strings.Contains(ds.Notices[0], `the label is the last column, 3 ("age")`) {
			t.Errorf("fast %v: the last column taken: %v, %q", fast, err, ds.Notices)
		}
		ds, err = open(strings.Replace(text, "Churn", "class", 1), CSVOptions{})
		if err != nil || len(ds.Notices) != 0 || !slices.Equal(ds.Y, []float64{1, 0, 1}) {
			t.Errorf("fast %v: a column named class: %v, %q", fast, err, ds.Notices)
		}
	}
}

// TestKeepColumns: kept columns' text is carried through, by name or
// index, whether or not they are features, and the file is read as
// without them.
func TestKeepColumns(t *testing.T) {
	text := "id,x,label\nA 1,0.5,1\nB 2,0.25,0\n\"C, 3\",0.75,1\n"
	path := filepath.Join(t.TempDir(), "k.csv")
	os.WriteFile(path, []byte(text), 0o644)
	ds, err := Open(path, OpenOptions{CSV: CSVOptions{Keep: []string{"ID", "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Kept) != 2 || ds.Kept[0].Name != "id" || !slices.Equal(ds.Kept[0].Values, []string{"A 1", "B 2", "C, 3"}) ||
		ds.Kept[1].Name != "x" || !slices.Equal(ds.Kept[1].Values, []string{"0.5", "0.25", "0.75"}) {
		t.Fatalf("kept %+v", ds.Kept)
	}
	plain, err := Open(path, OpenOptions{})
	if err != nil || !slices.Equal(plain.X, ds.X) || !slices.Equal(plain.Y, ds.Y) || plain.Kept != nil {
		t.Fatalf("the rows with kept columns differ from the rows without: %v", err)
	}
	if _, err := Open(path, OpenOptions{CSV: CSVOptions{Keep: []string{"customer"}}}); err == nil || !strings.Contains(err.Error(), `no column named "customer" to keep`) {
		t.Errorf("an unknown column: %v", err)
	}
}
