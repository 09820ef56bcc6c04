package data

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gzipMembers compresses each part as a gzip member of its own, one after
// the other, as cat a.gz b.gz and pigz write them.
func gzipMembers(t *testing.T, parts ...[]byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&out)
		if _, err := zw.Write(p); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// TestGzipMembers reads every member of a gzip file of several, in every
// reader: whole, as a stream, from a reader, and IDX.
func TestGzipMembers(t *testing.T) {
	ds := ringnorm(3000, rand.New(rand.NewPCG(5, 6)))
	var lib, csv bytes.Buffer
	if err := WriteLIBSVM(&lib, ds); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csv, ds, true); err != nil {
		t.Fatal(err)
	}
	thirds := func(b []byte, header bool) [][]byte {
		lines := strings.SplitAfter(string(b), "\n")
		var head string
		if header {
			head, lines = lines[0], lines[1:]
		}
		n := len(lines) / 3
		return [][]byte{[]byte(head + strings.Join(lines[:n], "")), []byte(strings.Join(lines[n:2*n], "")), []byte(strings.Join(lines[2*n:], ""))}
	}
	dir := t.TempDir()
	for name, parts := range map[string][][]byte{"m.libsvm.gz": thirds(lib.Bytes(), false), "m.csv.gz": thirds(csv.Bytes(), true)} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, gzipMembers(t, parts...), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Open(path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.N != ds.N || !slices.Equal(got.Y, ds.Y) {
			t.Fatalf("%s: Open read %d rows of %d", name, got.N, ds.N)
		}
		f, _ := os.Open(path)
		fromReader, err := OpenReader(f, name, OpenOptions{})
		f.Close()
		if err != nil || fromReader.N != ds.N {
			t.Fatalf("%s: OpenReader: %v, %d rows of %d", name, err, fromReader.N, ds.N)
		}
		s, err := OpenStream(path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		streamed := readAll(t, s, 1000)
		s.Close()
		if streamed.N != ds.N || !slices.Equal(streamed.X, got.X) {
			t.Fatalf("%s: the stream read %d rows of %d", name, streamed.N, ds.N)
		}
	}

	pixels := make([]uint8, 3*4*5)
	for i := range pixels {
		pixels[i] = uint8(i)
	}
	var idx bytes.Buffer
	if err := WriteIDXImages(&idx, pixels, 3, 4, 5); err != nil {
		t.Fatal(err)
	}
	b := idx.Bytes()
	got, n, _, _, err := ReadIDXImages(bytes.NewReader(gzipMembers(t, b[:30], b[30:])), "two.gz")
	if err != nil || n != 3 || !bytes.Equal(got, pixels) {
		t.Fatalf("IDX in two members: %v, %d images", err, n)
	}
}

// TestGzipTrailingBytes: bytes after the last member that start no other
// are an error naming them, not ignored.
func TestGzipTrailingBytes(t *testing.T) {
	z := append(gzipMembers(t, []byte("1 1:0.5\n-1 1:0.25\n")), "garbage after it"...)
	_, err := OpenReader(bytes.NewReader(z), "t.libsvm.gz", OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "bytes after the last complete member") {
		t.Fatalf("trailing bytes: %v", err)
	}
}

// TestGzipTooLarge: a small compressed file that expands past what is read
// whole stops with a *TooLargeError, within the bound, and streams.
func TestGzipTooLarge(t *testing.T) {
	defer func(v int64) { minWholeLimit = v }(minWholeLimit)
	minWholeLimit = 1 << 20
	// 300 MiB of text, a few hundred KB compressed.
	block := bytes.Repeat([]byte("1 1:0.5 2:0.25 3:0.125\n-1 1:0.25 2:0.5 3:0.75\n"), 1<<14)
	var zb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zb, gzip.BestSpeed)
	text := 0
	for text < 300<<20 {
		zw.Write(block)
		text += len(block)
	}
	zw.Close()
	z := zb.Bytes()
	path := filepath.Join(t.TempDir(), "bomb.libsvm.gz")
	if err := os.WriteFile(path, z, 0o644); err != nil {
		t.Fatal(err)
	}
	limit := wholeLimit(int64(len(z)))
	if limit >= int64(text) {
		t.Fatalf("the test needs text beyond the bound %d", limit)
	}
	_, err := Open(path, OpenOptions{})
	var tl *TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || tl.Limit != limit {
		t.Fatalf("Open: %v, want a *TooLargeError at %d bytes", err, limit)
	}
	if msg := err.Error(); !strings.Contains(msg, "bomb.libsvm.gz decompresses to more than") || strings.Contains(msg, ".gz:") {
		t.Fatalf("message %q", msg)
	}
	s, err := OpenStream(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	blk, err := s.ReadRows(5000)
	if err != nil || blk.N != 5000 {
		t.Fatalf("the stream: %v", err)
	}
}

// TestNPZDeclaredTooLarge: a compressed .npz entry whose array passes what
// is read whole from a file of its size is refused before its data are
// read or allocated, naming the way out.
func TestNPZDeclaredTooLarge(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, descr string, shape []int, dataBytes uint64, written int) {
		head := npyHeaderBytes(descr, shape)
		var comp bytes.Buffer
		fw, _ := flate.NewWriter(&comp, flate.BestSpeed)
		fw.Write(head)
		fw.Write(make([]byte, written)) // X: a little of its data; the rest is claimed
		fw.Close()
		w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: 0,
			CompressedSize64: uint64(comp.Len()), UncompressedSize64: uint64(len(head)) + dataBytes})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(comp.Bytes())
	}
	add("X.npy", "<f4", []int{1 << 20, 1 << 10}, 4<<30, 1<<20) // 4 GiB of float32
	add("y.npy", "<f8", []int{1 << 20}, 8<<20, 8<<20)
	zw.Close()
	path := filepath.Join(t.TempDir(), "claims.npz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, OpenOptions{})
	var tl *TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "claims.npz:X.npy decompresses to more than") {
		t.Fatalf("Open: %v, want a *TooLargeError", err)
	}
}
