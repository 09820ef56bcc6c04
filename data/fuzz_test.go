package data

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fuzzMaxValues bounds the dense size in FuzzReadLIBSVM so that a large
// feature index costs an error, not gigabytes.
const fuzzMaxValues = 1 << 20

func FuzzReadLIBSVM(f *testing.F) {
	f.Add([]byte("+1 1:0.5 3:-2\n-1 2:1e-3 # c\n"), uint8(0))
	f.Add([]byte("3 4:1\n\n0.25\n"), uint8(6))
	f.Add([]byte("1 0:1\n"), uint8(0))
	for _, s := range edgeSeeds {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, dim uint8) {
		d, err := readLIBSVM(bytes.NewReader(in), "fuzz", int(dim), fuzzMaxValues, LayoutDense)
		if err != nil {
			shortError(t, err)
			return
		}
		if err := d.ValidateInputs(); err != nil {
			t.Fatalf("read data does not validate: %v", err)
		}
		if dim != 0 && d.D != int(dim) {
			t.Fatalf("D = %d, want the forced %d", d.D, dim)
		}
		var buf bytes.Buffer
		if err := WriteLIBSVM(&buf, d); err != nil {
			t.Fatal(err)
		}
		back, err := readLIBSVM(&buf, "rt", d.D, fuzzMaxValues, LayoutDense)
		if err != nil {
			t.Fatalf("written data does not read back: %v\n%s", err, buf.Bytes())
		}
		equalData(t, back, d)
	})
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("a,b,Class\n1,2,1\n3, 4 ,2\n"), int8(-1), uint8(0), uint8(0))
	f.Add([]byte("1;2\r\n\"3\";4\r\n"), int8(0), uint8(2), uint8(1))
	f.Add([]byte("1\t2\t3\n4\t5\t6\n"), int8(1), uint8(1), uint8(2))
	for _, s := range edgeSeeds {
		f.Add([]byte(s), int8(0), uint8(0), uint8(0))
	}
	f.Add([]byte("d,x,label\n2024-03-05,1,0\n2024-03-06T10:00:00Z,2,1\nNA,3,0\n"), int8(0), uint8(0), uint8(0))
	f.Add([]byte("d,x,label\n05/03/2024,1,0\n13/03/2024 10:00,2,1\n"), int8(0), uint8(0), uint8(0))
	f.Add([]byte(",x,label\n0,1.5,0\n1,2.5,1\n2,0.5,0\n"), int8(0), uint8(0), uint8(0))
	f.Add([]byte("# a b label\n 1  2\tx \n\"3 3\" 4 \"y\"\"\"\n"), int8(0), uint8(0), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, labelCol int8, header, comma uint8) {
		opt := CSVOptions{
			LabelCol: int(labelCol),
			Header:   HeaderMode(header % 3),
			Comma:    []rune{0, ';', '\t', ' ', '|'}[int(comma)%5],
		}
		d, err := ReadCSV(bytes.NewReader(in), "fuzz.csv", opt)
		if err != nil {
			shortError(t, err)
			return
		}
		if err := d.ValidateInputs(); err != nil {
			t.Fatalf("read data does not validate: %v", err)
		}
		if d.Columns != nil && !slices.ContainsFunc(d.Columns, func(c Column) bool { return c.Categories != nil }) {
			// The same file read with the columns found in it (a model's):
			// the same features. (Categories are left out: a number read as
			// one, "00", is named by its shortest form, "0".)
			opt := opt
			opt.Columns, opt.LabelColumn = d.Columns, d.LabelColumn
			again, err := ReadCSV(bytes.NewReader(in), "fuzz.csv", opt)
			if err == nil && again.N == d.N && d.Sparse == nil && !slices.Equal(again.X, d.X) {
				t.Fatalf("read with its columns %+v: X %v, want %v", d.Columns, again.X, d.X)
			}
		}
		for _, h := range []bool{false, true} {
			if !h && d.LabelNames != nil || d.Y == nil {
				continue // ambiguous without a header (see WriteCSV), or without labels
			}
			var buf bytes.Buffer
			if err := WriteCSV(&buf, d, h); err != nil {
				t.Fatal(err)
			}
			opt := CSVOptions{}
			if !h {
				opt.LabelCol = LabelFirst
			}
			back, err := ReadCSV(&buf, "rt.csv", opt)
			if err != nil {
				t.Fatalf("written data does not read back: %v\n%s", err, buf.Bytes())
			}
			equalData(t, back, d)
		}
	})
}

func FuzzReadIDX(f *testing.F) {
	f.Add([]byte{0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 255, 7, 9},
		[]byte{0, 0, 8, 1, 0, 0, 0, 2, 1, 0})
	f.Add([]byte{0, 0, 8, 3, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 28, 0, 0, 0, 28},
		[]byte{0, 0, 8, 1, 0xff, 0xff, 0xff, 0xff})
	f.Add(gzipBytes([]byte{0, 0, 8, 3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 42}),
		gzipBytes([]byte{0, 0, 8, 1, 0, 0, 0, 1, 3}))
	f.Fuzz(func(t *testing.T, images, labels []byte) {
		pixels, n, rows, cols, errI := ReadIDXImages(bytes.NewReader(images), "img")
		shortError(t, errI)
		if errI == nil {
			if len(pixels) != n*rows*cols {
				t.Fatalf("%d pixels for %d×%d×%d", len(pixels), n, rows, cols)
			}
			var buf bytes.Buffer
			if err := WriteIDXImages(&buf, pixels, n, rows, cols); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), plain(t, images)) {
				t.Fatal("written images differ from the input")
			}
		}
		lab, errL := ReadIDXLabels(bytes.NewReader(labels), "lab")
		shortError(t, errL)
		if errL == nil {
			var buf bytes.Buffer
			if err := WriteIDXLabels(&buf, lab); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), plain(t, labels)) {
				t.Fatal("written labels differ from the input")
			}
		}
		if errI != nil || errL != nil {
			return
		}
		d, err := mnistDataset(pixels, n, rows, cols, lab, nil, "img", "lab")
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("MNIST data does not validate: %v", err)
		}
	})
}

// plain returns b, decompressed if it is gzipped.
func plain(t *testing.T, b []byte) []byte {
	t.Helper()
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// maxErrorBytes bounds the message of a reader's error: a file name, a
// line, and at most a few quoted values of 80 characters.
const maxErrorBytes = 600

// shortError fails when a reader's error message is long (it echoes its
// input).
func shortError(t *testing.T, err error) {
	t.Helper()
	if err != nil && len(err.Error()) > maxErrorBytes {
		t.Fatalf("an error of %d bytes: %.300s…", len(err.Error()), err)
	}
}

// edgeSeeds are the texts of the cases found by probing the readers: a
// byte-order mark, empty lines, number forms strconv takes and a data
// file means as text, rows without labels, an unclosed quote, a width
// from one index, a long value.
var edgeSeeds = []string{
	"\xef\xbb\xbflabel,a,b\n1,2,3\n0,4,5\n",
	"\xef\xbb\xbf1 1:2 2:3\n0 1:4\n",
	"1 1:2\n\n0 1:1\n",
	"a,label\n1,0\n\n2,1\n",
	"1 1:1_000\n0 1:0x1p3\n",
	"1_000,0x1p3,1\n2,3,0\n",
	"inf 1:1\n1 1:nan\n",
	"1:0.5 3:2\n2:1\n",
	"1:0.5\n1 2:1\n",
	"a,b,label\n1,2,\n3,4,\n",
	"a,label\n1,2\n\"3,4\n5,6\n",
	"1 1:1 1073741824:1\n",
	"a,label\n" + strings.Repeat("7", 300) + "x,1\n",
}

// FuzzReadNPZ: whatever the arrays X and y of a .npz, reading it fails
// with a short error or gives rows that validate and write back as they
// are.
func FuzzReadNPZ(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 0, 0, 0, 64}, uint8(2), []byte{0, 0, 0, 0, 0, 0, 240, 63}, uint8(1))
	f.Add([]byte{0, 0, 192, 127}, uint8(1), []byte{0, 0, 0, 0, 0, 0, 0, 0}, uint8(1))
	f.Add([]byte{}, uint8(0), []byte{}, uint8(3))
	path := filepath.Join(f.TempDir(), "f.npz")
	f.Fuzz(func(t *testing.T, x []byte, d uint8, y []byte, n uint8) {
		nx := len(x) / 4
		arrays := map[string][]byte{
			"X": append(npyHeaderBytes("<f4", []int{int(n), int(d)}), x[:nx*4]...),
			"y": append(npyHeaderBytes("<f8", []int{int(n)}), y[:len(y)/8*8]...),
		}
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, k := range []string{"X", "y"} {
			w, _ := zw.Create(k + ".npy")
			w.Write(arrays[k])
		}
		zw.Close()
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := Open(path, OpenOptions{})
		if err != nil {
			shortError(t, err)
			return
		}
		defer ds.Close()
		if err := ds.Validate(); err != nil {
			t.Fatalf("read rows do not validate: %v", err)
		}
		buf.Reset()
		if err := WriteNPZ(&buf, ds); err != nil {
			t.Fatal(err)
		}
		back := writeNPZBack(t, buf.Bytes())
		defer back.Close()
		if !slices.Equal(back.X, ds.X) || !slices.Equal(back.Y, ds.Y) {
			t.Fatal("written rows read back otherwise")
		}
	})
}

func writeNPZBack(t *testing.T, b []byte) *Dataset {
	t.Helper()
	p := filepath.Join(t.TempDir(), "back.npz")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := Open(p, OpenOptions{})
	if err != nil {
		t.Fatalf("written rows do not read back: %v", err)
	}
	return ds
}

// FuzzStream: whatever the text, a stream either fails with a short error
// or gives the rows and labels Open gives (a stream is stricter: quoted
// fields do not stream; labels that are names are numbered as they come).
func FuzzStream(f *testing.F) {
	f.Add([]byte("1 1:0.5 3:2\n-1 2:1e-3\n# c\n1 1:1"), false, false)
	f.Add([]byte("label,a,b\n1,0.5,2\r\n0,1e3, 4\n"), true, false)
	f.Add([]byte("a,b,species\n1,2,setosa\n3,4,virginica\n"), true, false)
	f.Add([]byte("1 1:0.5\n0 2:1\n"), false, true)
	f.Add([]byte("a b label\n1 2 x\n 3\t4  y \r\n"), true, false)
	f.Add([]byte("# a b c\n1 2 3\n4 5 6\n"), true, true)
	for _, s := range edgeSeeds {
		f.Add([]byte(s), strings.Contains(s, ","), false)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text []byte, csv, gz bool) {
		name := "f.libsvm"
		if csv {
			name = "f.csv"
		}
		body := text
		if gz {
			name += ".gz"
			body = gzipBytes(text)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		streamMatchesOpen(t, p, OpenOptions{})
	})
}

// FuzzStreamOptions: FuzzStream on CSV text read with a label column, a
// header mode and a separator given.
func FuzzStreamOptions(f *testing.F) {
	f.Add([]byte("label,a,b\n1,0.5,2\r\n0,1e3, 4\n"), uint8(2), uint8(0))
	f.Add([]byte("1;2\n3;4;5\n"), uint8(1), uint8(5))
	f.Add([]byte(",a,b\n0,1,2\n1,3,4\n"), uint8(1), uint8(1))
	f.Add([]byte("a|b|y\n1|2|x\n3|4|z\n"), uint8(3), uint8(12))
	f.Add([]byte("a,b,label,\n1,2,0,\n3, ,1,\n"), uint8(2), uint8(0))
	f.Add([]byte("1,,2,0\n3,,4,1\n"), uint8(1), uint8(1))
	f.Add([]byte("# a b label\n1  2 x\n\"3\" 4\t\"y z\"\n"), uint8(2), uint8(9))
	for _, s := range edgeSeeds {
		f.Add([]byte(s), uint8(0), uint8(0))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text []byte, opt1, opt2 uint8) {
		p := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(p, text, 0o644); err != nil {
			t.Fatal(err)
		}
		streamMatchesOpen(t, p, OpenOptions{CSV: CSVOptions{
			LabelCol: []int{LabelFirst, LabelLast, LabelAuto, 1}[opt1%4],
			Header:   HeaderMode(opt2 % 3),
			Comma:    []rune{0, ';', '\t', ' ', '|'}[int(opt2/3)%5],
		}})
	})
}

// streamMatchesOpen checks that the stream of the file at p, read with
// opt, either fails with a short error or gives the rows and labels Open
// gives.
func streamMatchesOpen(t *testing.T, p string, opt OpenOptions) {
	withReadChunks(64, func() {
		s, err := OpenStream(p, opt)
		if err != nil {
			shortError(t, err)
			return
		}
		defer s.Close()
		got, err := s.ReadSparse(1 << 20)
		if err != nil {
			shortError(t, err)
			return
		}
		opt.Layout = LayoutSparse
		want, err := Open(p, opt)
		if err != nil {
			if got.N > 0 {
				t.Fatalf("the stream read %d rows of what Open refuses: %v", got.N, err)
			}
			return
		}
		if got.N != want.N || got.D != want.D || (got.Y == nil) != (want.Y == nil) || got.Y == nil != !s.Labelled() {
			t.Fatalf("stream %d×%d (labels %v), Open %d×%d (labels %v)", got.N, got.D, got.Y != nil, want.N, want.D, want.Y != nil)
		}
		if want.LabelNames == nil && !slices.Equal(got.Y, want.Y) {
			t.Fatalf("stream labels %v, Open %v", got.Y, want.Y)
		}
		if !reflect.DeepEqual(got.Columns, want.Columns) || got.LabelColumn != want.LabelColumn {
			t.Fatalf("stream columns %+v (label %q), Open %+v (label %q)", got.Columns, got.LabelColumn, want.Columns, want.LabelColumn)
		}
		want.Sparsify()
		if !reflect.DeepEqual(got.Sparse.Val, want.Sparse.Val) && len(want.Sparse.Val)+len(got.Sparse.Val) > 0 {
			t.Fatalf("stream values %v, Open %v", got.Sparse.Val, want.Sparse.Val)
		}
	})
}
