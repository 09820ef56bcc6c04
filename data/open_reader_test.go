package data

import (
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestOpenReaderMatchesOpen reads the same bytes as a file (Open) and as a
// stream (OpenReader): the data sets must be equal, whatever told the
// format (the name, the content, the option) and compressed or not.
func TestOpenReaderMatchesOpen(t *testing.T) {
	dir := t.TempDir()
	ring := ringnorm(300, rand.New(rand.NewPCG(1, 2)))
	var libsvm, csvText bytes.Buffer
	if err := WriteLIBSVM(&libsvm, ring); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csvText, ring, true); err != nil {
		t.Fatal(err)
	}
	named := "color;size;species\nred;1,5;setosa\nblue;2;virginica\nred;3;setosa\ngreen;0,5;virginica\n"
	named = strings.ReplaceAll(named, ",", ".")
	gz := func(b []byte) []byte {
		var out bytes.Buffer
		w := gzip.NewWriter(&out)
		w.Write(b)
		w.Close()
		return out.Bytes()
	}
	cases := []struct {
		file string
		text []byte
		opt  OpenOptions
	}{
		{"a.libsvm", libsvm.Bytes(), OpenOptions{}},
		{"a.libsvm.gz", gz(libsvm.Bytes()), OpenOptions{}},
		{"a.txt", libsvm.Bytes(), OpenOptions{}}, // from the content
		{"a.txt", libsvm.Bytes(), OpenOptions{Format: "libsvm", Dim: 25}},
		{"a.libsvm", libsvm.Bytes(), OpenOptions{Layout: LayoutSparse}},
		{"b.csv", csvText.Bytes(), OpenOptions{}},
		{"b.csv.gz", gz(csvText.Bytes()), OpenOptions{}},
		{"b.data", csvText.Bytes(), OpenOptions{}}, // from the content
		{"c.csv", []byte(named), OpenOptions{}},    // names, categories, semicolons
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.file)
		if err := os.WriteFile(path, c.text, 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := Open(path, c.opt)
		if err != nil {
			t.Fatalf("%s: Open: %v", c.file, err)
		}
		got, err := OpenReader(bytes.NewReader(c.text), path, c.opt)
		if err != nil {
			t.Fatalf("%s: OpenReader: %v", c.file, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %+v: OpenReader read %d×%d (sparse %v), Open %d×%d (sparse %v)", c.file, c.opt,
				got.N, got.D, got.Sparse != nil, want.N, want.D, want.Sparse != nil)
		}
	}
}

// TestOpenReaderErrors: a bad row is named by the source and line, as Open
// names it, and formats that need a file are refused.
func TestOpenReaderErrors(t *testing.T) {
	text := "1 1:0.5\n-1 2:x\n"
	_, err := OpenReader(strings.NewReader(text), "gs://bucket/shard-3.libsvm", OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "gs://bucket/shard-3.libsvm:2") {
		t.Errorf("bad value: error %v, want one naming gs://bucket/shard-3.libsvm:2", err)
	}
	path := filepath.Join(t.TempDir(), "shard-3.libsvm")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ferr := Open(path, OpenOptions{})
	if ferr == nil || strings.ReplaceAll(ferr.Error(), path, "NAME") != strings.ReplaceAll(err.Error(), "gs://bucket/shard-3.libsvm", "NAME") {
		t.Errorf("the stream's error %q differs from the file's %q", err, ferr)
	}
	for _, c := range []struct {
		name string
		opt  OpenOptions
		want string
	}{
		{"x.npy", OpenOptions{}, "from a file"},
		{"x", OpenOptions{Format: "idx"}, "from a file"},
		{"x", OpenOptions{Format: "parquet"}, "unknown format"},
		{"x.csv", OpenOptions{Layout: "diagonal"}, "unknown layout"},
	} {
		if _, err := OpenReader(strings.NewReader("1,2\n3,4\n"), c.name, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: error %v, want %q", c.name, c.opt, err, c.want)
		}
	}
	if _, err := OpenReader(strings.NewReader("\x00\x01\x02 \xff\n"), "blob", OpenOptions{}); err == nil || !strings.Contains(err.Error(), "cannot tell the format") {
		t.Errorf("unknown content: error %v", err)
	}
}

// TestFormatOf: the name decides, else the content.
func TestFormatOf(t *testing.T) {
	for _, c := range []struct {
		name, head, want string
	}{
		{"a.csv.gz", "1 1:2\n", "csv"},
		{"gs://b/part-0001.SVM", "", "libsvm"},
		{"part-0001", "# rows\n1 3:0.5 7:1\n", "libsvm"},
		{"part-0001", "x,y,label\n1,2,0\n", "csv"},
		{"part-0001", "1;2;0\n", "csv"},
		{"part-0001", "\x93NUMPY", "npy"},
		{"part-0001", "hello world\n", ""},
		{"part-0001", "hello world\nhow are you\n", ""},
		{"part-0001", "1 2.5 -3\n", "csv"},           // separated by spaces
		{"part-0001", "a b label\n\n1 2 x\n", "csv"}, // a header, then numbers
		{"part-0001", "1 1:2\n", "libsvm"},
	} {
		if got := FormatOf(c.name, []byte(c.head)); got != c.want {
			t.Errorf("FormatOf(%q, %q) = %q, want %q", c.name, c.head, got, c.want)
		}
	}
}
