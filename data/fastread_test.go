package data

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// withChunks runs f with the parallel readers' chunk size set to n bytes.
func withChunks(n int, f func()) { withValue(&chunkBytes, n, f) }

// sequential reads text with the sequential reader of format (CSV with
// the options opt).
func sequential(t testing.TB, text []byte, format string, opt ...CSVOptions) (*Dataset, error) {
	t.Helper()
	if format == "libsvm" {
		return ReadLIBSVM(bytes.NewReader(text), "f", 0)
	}
	return ReadCSV(bytes.NewReader(text), "f", append(opt, CSVOptions{})[0])
}

func fast(t testing.TB, text []byte, format string, opt ...CSVOptions) (*Dataset, bool) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f."+format)
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return readFast(path, format, OpenOptions{CSV: append(opt, CSVOptions{})[0]})
}

func sameData(a, b *Dataset) bool {
	return a.N == b.N && a.D == b.D && slices.Equal(a.X, b.X) && slices.Equal(a.Y, b.Y) &&
		slices.Equal(a.W, b.W) && (a.W == nil) == (b.W == nil)
}

// TestFastReaders: the parallel readers give the sequential readers' data
// on files of many chunks, with blank and comment lines, CRLF line ends,
// rows narrower than the widest (LIBSVM) and no final newline.
func TestFastReaders(t *testing.T) {
	ds := ringnorm(3000, rand.New(rand.NewPCG(1, 2)))
	var lib, csv bytes.Buffer
	if err := WriteLIBSVM(&lib, ds); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csv, ds, true); err != nil {
		t.Fatal(err)
	}
	libText := strings.Replace(lib.String(), "\n", "\n# a comment\n", 7) // comment lines
	libText = strings.Replace(libText, " 20:", " 21:", 1)                // one wider row, late
	libText = strings.TrimSuffix(libText, "\n")
	csvText := strings.ReplaceAll(csv.String(), "\n", "\r\n")
	for _, tc := range []struct{ format, text string }{{"libsvm", libText}, {"csv", csvText}, {"csv", csv.String()}} {
		want, err := sequential(t, []byte(tc.text), tc.format)
		if err != nil {
			t.Fatal(err)
		}
		for _, cb := range []int{1 << 10, 7777, 1 << 20} {
			withChunks(cb, func() {
				got, ok := fast(t, []byte(tc.text), tc.format)
				if !ok {
					t.Fatalf("%s, chunks of %d: the fast path refused the file", tc.format, cb)
				}
				if !sameData(got, want) {
					t.Fatalf("%s, chunks of %d: %d×%d, want %d×%d, or other values", tc.format, cb, got.N, got.D, want.N, want.D)
				}
			})
		}
	}
}

// TestFastReaderErrors: a bad value in a late chunk is reported with its
// file and line, as the sequential reader reports it.
func TestFastReaderErrors(t *testing.T) {
	ds := ringnorm(2000, rand.New(rand.NewPCG(1, 2)))
	var lib bytes.Buffer
	if err := WriteLIBSVM(&lib, ds); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(lib.String(), "\n")
	lines[1733] = strings.Replace(lines[1733], ":", ":x", 1)
	path := filepath.Join(t.TempDir(), "bad.libsvm")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	withChunks(4096, func() {
		_, err := Open(path, OpenOptions{})
		if err == nil || !strings.Contains(err.Error(), "bad.libsvm:1734:") {
			t.Fatalf("error %v, want one naming bad.libsvm:1734", err)
		}
	})
}

// FuzzFastReaders: whatever the text, the parallel readers either refuse
// it (the sequential reader then reads it) or give the sequential data;
// they never accept what the sequential reader rejects.
func FuzzFastReaders(f *testing.F) {
	f.Add([]byte("1 1:0.5 3:2\n-1 2:1e-3\n\n# c\n1 1:1"), false, false)
	f.Add([]byte("label,a,b\n1,0.5,2\r\n0,1e3, 4\n"), true, false)
	f.Add([]byte("1,2\n3,4,5\n"), true, false)
	f.Add([]byte("x,w,y\n1,0.5,2\n3,2,4\n"), true, true)
	f.Fuzz(func(t *testing.T, text []byte, csv, weights bool) {
		format := "libsvm"
		if csv {
			format = "csv"
		}
		var opt CSVOptions
		if weights {
			opt.WeightCol = "1"
		}
		want, werr := sequential(t, text, format, opt)
		shortError(t, werr)
		withChunks(16, func() {
			got, ok := fast(t, text, format, opt)
			if !ok {
				return
			}
			if werr != nil {
				t.Fatalf("fast path accepted what the sequential reader rejects (%v)", werr)
			}
			if !sameData(got, want) {
				t.Fatalf("fast %d×%d %v %v, sequential %d×%d %v %v", got.N, got.D, got.X, got.Y, want.N, want.D, want.X, want.Y)
			}
		})
	})
}
