package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// withValue runs f with *p set to v, and restores it.
func withValue[T any](p *T, v T, f func()) {
	old := *p
	*p = v
	defer func() { *p = old }()
	f()
}

// withReadChunks runs f with the stream readers' chunk size set to n bytes.
func withReadChunks(n int, f func()) { withValue(&readChunkBytes, n, f) }

// withSegments runs f with the row sink's segments of n bytes.
func withSegments(n int, f func()) { withValue(&segBytes, n, f) }

// bitsEqual reports whether a and b hold the same data, bit for bit.
func bitsEqual(a, b *Dataset) bool {
	if a.N != b.N || a.D != b.D || len(a.X) != len(b.X) || len(a.Y) != len(b.Y) {
		return false
	}
	for i := range a.X {
		if math.Float32bits(a.X[i]) != math.Float32bits(b.X[i]) {
			return false
		}
	}
	for i := range a.Y {
		if math.Float64bits(a.Y[i]) != math.Float64bits(b.Y[i]) {
			return false
		}
	}
	return slices.Equal(a.LabelNames, b.LabelNames) && (a.LabelNames == nil) == (b.LabelNames == nil) &&
		reflect.DeepEqual(encoding(a.Columns), encoding(b.Columns)) && slices.Equal(a.W, b.W) && (a.W == nil) == (b.W == nil) &&
		(a.Y == nil) == (b.Y == nil)
}

// encoding returns the columns without their names, nil for columns of
// numbers: what the columns do to the values, whatever the header says.
func encoding(cols []Column) []Column {
	out := slices.Clone(cols)
	plain := true
	for k := range out {
		out[k].Name = ""
		plain = plain && reflect.DeepEqual(out[k], Column{})
	}
	if plain {
		return nil
	}
	return out
}

// seqCSV is the sequential CSV reader as a Dataset.
func seqCSV(r io.Reader, name string, opt CSVOptions) (*Dataset, error) {
	lr := newLineReader(r)
	var src io.Reader = lr
	if opt.Comma == Spaces {
		// The text as ReadCSV reads it (spaceFields), then the sequential
		// reader.
		src, opt.Comma = newSpaceFields(lr), '\t'
	}
	t, err := readCSVSeq(src, name, opt, csvState{})
	return tableDataset(t, err, opt.Columns, lr.total)
}

// sameResult fails unless the parallel and the sequential reader gave the
// same data bit for bit, or the same error.
func sameResult(t *testing.T, what string, got, want *Dataset, gerr, werr error) {
	t.Helper()
	shortError(t, gerr)
	switch {
	case (gerr == nil) != (werr == nil):
		t.Fatalf("%s: parallel error %v, sequential %v", what, gerr, werr)
	case gerr != nil && gerr.Error() != werr.Error():
		t.Fatalf("%s: parallel error\n%v\nsequential\n%v", what, gerr, werr)
	case gerr == nil && !bitsEqual(got, want):
		t.Fatalf("%s: parallel %d×%d, sequential %d×%d, or other values", what, got.N, got.D, want.N, want.D)
	}
}

// texts are LIBSVM and CSV texts with what the fast path leaves to the
// reference: comments, blank lines, CRLF, a late wider row, -0, quoted
// fields late and early, an unusual number form, no final newline.
func texts(t *testing.T) map[string]string {
	ds := ringnorm(3000, rand.New(rand.NewPCG(1, 2)))
	var lib, csv bytes.Buffer
	if err := WriteLIBSVM(&lib, ds); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csv, ds, true); err != nil {
		t.Fatal(err)
	}
	l := strings.Replace(lib.String(), "\n", "\n# a comment\n", 7)
	l = strings.Replace(l, " 20:", " 21:", 1)
	l = "1 1:-0 2:.25 3:1e-50 4:-1e-50\n" + l
	l = strings.Replace(l, "\n", " 40:1\n", 1)
	lines := strings.Split(lib.String(), "\n")
	lines[2700] += " 1000:0.5" // wider, late
	c := strings.ReplaceAll(csv.String(), "\n", "\r\n")

	cl := strings.Split(csv.String(), "\n")
	cl[2500] = strings.Replace(cl[2500], ",", `,"`, 1)
	cl[2500] = strings.Replace(cl[2500], ",", "\"\n,", 2) // a quoted field over two lines
	// Class names: in every row (with a header, and without one, the label
	// last), and only from a late row on (the labels before are numbers).
	named := strings.NewReplacer("\n1,", "\nneg,", "\n2,", "\npos,", "\n-1,", "\nneg,").Replace(csv.String())
	var last []string
	for _, ln := range strings.Split(strings.TrimSuffix(named, "\n"), "\n")[1:] {
		f := strings.SplitN(ln, ",", 2)
		last = append(last, f[1]+","+f[0])
	}
	// A column of numbers turns categorical late (a third of the rows are
	// text, so it is no stray text); so do the labels.
	latecat := strings.Split(csv.String(), "\n")
	late := strings.Split(csv.String(), "\n")
	for i := 2000; i < 3000; i++ {
		f2 := strings.Split(latecat[i], ",")
		f2[3] = []string{"red", "blue"}[i%2]
		latecat[i] = strings.Join(f2, ",")
		late[i] = []string{"other", "else"}[i%2] + late[i][strings.IndexByte(late[i], ','):]
	}
	return map[string]string{
		"names.csv":      named,
		"nameslast.csv":  strings.Join(last, "\n") + "\n",
		"latename.csv":   strings.Join(late, "\n"),
		"latecat.csv":    strings.Join(latecat, "\n"),
		"a.libsvm":       strings.TrimSuffix(l, "\n"),
		"wide.libsvm":    strings.Join(lines, "\n"),
		"a.csv":          c,
		"b.csv":          csv.String(),
		"quoted.csv":     strings.Join(cl, "\n"),
		"q0.csv":         `"label",x` + "\n1,2\n3,4\n",
		"headerless.csv": strings.SplitN(csv.String(), "\n", 2)[1],
	}
}

func readSeq(name, text string) (*Dataset, error) {
	if strings.HasSuffix(name, ".libsvm") {
		return readLIBSVMSeq(strings.NewReader(text), name, 0, maxDenseValues, LayoutDense)
	}
	return seqCSV(strings.NewReader(text), name, CSVOptions{LabelCol: LabelAuto})
}

func readPar(name string, r io.Reader) (*Dataset, error) {
	if strings.HasSuffix(name, ".libsvm") {
		return ReadLIBSVM(r, name, 0)
	}
	return ReadCSV(r, name, CSVOptions{LabelCol: LabelAuto})
}

// TestParallelReaders: ReadLIBSVM and ReadCSV on a stream give the
// sequential reader's data bit for bit, whatever the chunk size, and so
// does Open on a gzipped file.
func TestParallelReaders(t *testing.T) {
	dir := t.TempDir()
	for name, text := range texts(t) {
		want, werr := readSeq(name, text)
		if werr != nil && name != "quoted.csv" {
			t.Fatalf("%s: %v", name, werr)
		}
		for _, cb := range []int{16, 1000, 7777, 1 << 20} {
			withSegments(max(256, cb/4), func() {
				withReadChunks(cb, func() {
					// Of unknown size, and of known size (the allocation estimated).
					got, err := readPar(name, iotest.HalfReader(strings.NewReader(text)))
					sameResult(t, fmt.Sprintf("%s, chunks of %d", name, cb), got, want, err, werr)
					got, err = readPar(name, strings.NewReader(text))
					sameResult(t, fmt.Sprintf("%s, chunks of %d, sized", name, cb), got, want, err, werr)
				})
			})
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(text))
		zw.Close()
		path := filepath.Join(dir, name+".gz")
		os.WriteFile(path, gz.Bytes(), 0o644)
		withReadChunks(4096, func() {
			got, err := Open(path, OpenOptions{CSV: CSVOptions{LabelCol: LabelAuto}})
			if werr != nil {
				werr = errors.New(strings.Replace(werr.Error(), name, path, 1))
			}
			sameResult(t, name+".gz", got, want, err, werr)
		})
	}
}

// TestParallelReaderErrors: an error in a late chunk of a gzipped file
// names its file and line, as the sequential reader does; so does one in
// a quoted CSV field after the parallel chunks.
func TestParallelReaderErrors(t *testing.T) {
	dir := t.TempDir()
	ds := ringnorm(3000, rand.New(rand.NewPCG(1, 2)))
	var lib, csv bytes.Buffer
	WriteLIBSVM(&lib, ds)
	WriteCSV(&csv, ds, true)
	ll := strings.Split(lib.String(), "\n")
	ll[2733] = strings.Replace(ll[2733], ":", ":x", 1)
	cl := strings.Split(csv.String(), "\n")
	cl[2800] = strings.Replace(cl[2800], ",", `,"1.5",`, 1)
	c2900 := strings.Split(cl[2900], ",")
	c2900[1] = "?" // a missing value in a column of numbers
	cl[2900] = strings.Join(c2900, ",")
	ql := strings.Split(csv.String(), "\n")
	ql[2900] = cl[2900]
	f := strings.Split(ql[2800], ",")
	f[1] = `"` + f[1] + `"` // a quoted field
	ql[2800] = strings.Join(f, ",")
	for _, tc := range []struct{ name, text, want string }{
		{"bad.libsvm.gz", strings.Join(ll, "\n"), `bad.libsvm.gz:2734: value "x`},
		{"bad.csv.gz", strings.Join(cl, "\n"), `bad.csv.gz:2801: 22 fields, but the first row has 21`},
		{"bad2.csv.gz", strings.Join(ql, "\n"), `bad2.csv.gz:2901: missing value "?" in column "x1"`},
	} {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(tc.text))
		zw.Close()
		path := filepath.Join(dir, tc.name)
		os.WriteFile(path, gz.Bytes(), 0o644)
		withReadChunks(4096, func() {
			_, err := Open(path, OpenOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
	// A read error after some lines.
	text := strings.Join(ll[:100], "\n") + "\n"
	r := io.MultiReader(strings.NewReader(text), iotest.ErrReader(errors.New("disk on fire")))
	withReadChunks(512, func() {
		_, err := ReadLIBSVM(r, "f", 0)
		_, werr := readLIBSVMSeq(io.MultiReader(strings.NewReader(text), iotest.ErrReader(errors.New("disk on fire"))), "f", 0, maxDenseValues, LayoutDense)
		if err == nil || werr == nil || err.Error() != werr.Error() {
			t.Fatalf("read error: %v, sequential %v", err, werr)
		}
	})
}

// FuzzParallelReaders: on any text, the parallel readers with tiny chunks
// give the sequential readers' data bit for bit, or their error word for
// word.
func FuzzParallelReaders(f *testing.F) {
	f.Add([]byte("1 1:0.5 3:2\n-1 2:1e-3\n\n# c\n1 1:1"), false, uint8(0), uint8(0))
	f.Add([]byte("1 1:-0 2:0x1p3\n2 5:1\n3 1:1 1:2\n"), false, uint8(3), uint8(0))
	f.Add([]byte("label,a,b\n1,0.5,2\r\n0,1e3, 4\n"), true, uint8(0), uint8(0))
	f.Add([]byte("1,2\n3,4,5\n\"6\",7\n"), true, uint8(1), uint8(2))
	f.Add([]byte("a;b\n1;\"2\n\"\n3;4"), true, uint8(2), uint8(1))
	f.Add([]byte("x,w,y\n1,0.5,2\n3,2,4\n5,,6\n"), true, uint8(12), uint8(0))
	for _, s := range edgeSeeds {
		f.Add([]byte(s), false, uint8(0), uint8(0))
		f.Add([]byte(s), true, uint8(2), uint8(0))
	}
	f.Fuzz(func(t *testing.T, text []byte, csv bool, opt1, opt2 uint8) {
		withReadChunks(16, func() {
			withSegments(64, func() { // segments of a row or a few
				if !csv {
					dim := int(opt1 % 8)
					want, werr := readLIBSVMSeq(bytes.NewReader(text), "f", dim, fuzzMaxValues, LayoutDense)
					got, err := readLIBSVM(bytes.NewReader(text), "f", dim, fuzzMaxValues, LayoutDense)
					sameResult(t, "libsvm", got, want, err, werr)
					return
				}
				opt := CSVOptions{
					LabelCol:  []int{LabelFirst, LabelLast, LabelAuto, 1}[opt1%4],
					Header:    HeaderMode(opt2 % 3),
					Comma:     []rune{0, ';', '\t', ' ', '|'}[int(opt2/3)%5],
					WeightCol: []string{"", "", "1", "w"}[opt1/4%4],
				}
				want, werr := seqCSV(bytes.NewReader(text), "f", opt)
				got, err := ReadCSV(bytes.NewReader(text), "f", opt)
				sameResult(t, "csv", got, want, err, werr)
			})
		})
	})
}

// TestSequentialReference: the parallel readers' results on the testdata
// files equal the sequential ones (the reference kept for the tests).
func TestSequentialReference(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		for _, csv := range []bool{false, true} {
			var want, got *Dataset
			var werr, gerr error
			if csv {
				want, werr = seqCSV(bytes.NewReader(b), p, CSVOptions{})
				got, gerr = ReadCSV(bytes.NewReader(b), p, CSVOptions{})
			} else {
				want, werr = readLIBSVMSeq(bytes.NewReader(b), p, 0, maxDenseValues, LayoutDense)
				got, gerr = ReadLIBSVM(bytes.NewReader(b), p, 0)
			}
			sameResult(t, p, got, want, gerr, werr)
		}
	}
}
