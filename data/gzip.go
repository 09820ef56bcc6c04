package data

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// StreamBytes is the size of a data file's content from which nsvm train
// reads it as a stream (OpenStream) rather than whole (Open): a regular
// file by its size, a compressed one by what it turns out to hold once
// decompressed (see ErrTooLarge).
const StreamBytes = 1 << 30

// ErrTooLarge is wrapped in the error of a reader that holds its input in
// memory when a compressed input decompresses to more than it may hold:
// MemoryBudget of the compressed size, and at least StreamBytes. Such data
// are read as a stream (OpenStream; nsvm train does so by itself).
var ErrTooLarge = errors.New("too large to read whole")

// Uncompressed returns a reader of r's content: the decompressed stream
// when r starts with the gzip magic bytes 0x1f 0x8b (gz is true), r's own
// bytes otherwise. Every member of a gzip file of several (as cat a.gz
// b.gz and pigz write them) is read, as gzip -dc reads them. The readers of
// this package and the MNIST fetcher of package datasets take gzipped input
// through it.
func Uncompressed(r io.Reader) (rd io.Reader, gz bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, true, fmt.Errorf("gzip: %w", err)
		}
		return &gzipReader{zr: zr}, true, nil
	}
	return br, false, nil
}

// gzipReader reads the members of a gzip stream and names what goes wrong
// after the first one: bytes after the last member that do not start
// another (gzip -dc's "trailing garbage") are an error, not ignored.
type gzipReader struct {
	zr    *gzip.Reader
	n     int64 // bytes decompressed
	limit int64 // when > 0, more than limit bytes are ErrTooLarge
	size  int64 // the compressed size (-1: unknown), for the error
	name  string
}

func (g *gzipReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	g.n += int64(n)
	if g.limit > 0 && g.n > g.limit {
		return n, &TooLargeError{Name: g.name, Limit: g.limit, Compressed: g.size}
	}
	if errors.Is(err, gzip.ErrHeader) && g.n > 0 {
		err = fmt.Errorf("gzip: bytes after the last complete member that start no other (%w)", err)
	} else if err != nil && err != io.EOF {
		err = fmt.Errorf("gzip: %w", err)
	}
	return n, err
}

// Close checks the last member's checksum and length.
func (g *gzipReader) Close() error { return g.zr.Close() }

// TooLargeError is the error of reading a compressed input whole when it
// decompresses to more than Limit bytes. It wraps ErrTooLarge.
type TooLargeError struct {
	Name       string // the file, if known
	Limit      int64
	Compressed int64 // the compressed size, -1 if unknown
}

func (e *TooLargeError) Error() string {
	name, of := e.Name, ""
	if name == "" {
		name = "the input"
	}
	if e.Compressed >= 0 {
		of = " of " + byteSize(e.Compressed)
	}
	return fmt.Sprintf("%s decompresses to more than %s, the most read whole from a compressed file%s; read it as a stream (nsvm train does so by itself, or with --stream; in Go, data.OpenStream)",
		name, byteSize(e.Limit), of)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// wholeLimit is the most a reader that holds its input in memory takes out
// of a compressed input of compressed bytes (-1 when unknown): what a
// regular file of that size may take, and at least StreamBytes.
func wholeLimit(compressed int64) int64 { return max(MemoryBudget(compressed), minWholeLimit) }

// minWholeLimit is StreamBytes, a variable for the tests.
var minWholeLimit int64 = StreamBytes

// limitWhole bounds the content of r, returned by Uncompressed for a
// compressed input of compressed bytes, to wholeLimit: a reader that holds
// its input whole then stops with a *TooLargeError instead of filling the
// memory with what a small file expands to.
func limitWhole(r io.Reader, name string, compressed int64) {
	if g, ok := r.(*gzipReader); ok {
		g.name, g.limit, g.size = name, wholeLimit(compressed), compressed
	}
}

// openFile opens the file at path, through gzip if it is compressed: r
// reads its content, gz says whether it was compressed, and the caller
// closes f. The errors name the file. A compressed file's content is
// bounded for a reader that holds it whole (limitWhole) unless stream is
// true.
func openFile(path string) (r io.Reader, f *os.File, gz bool, err error) {
	return openFileFor(path, false)
}

// openFileFor is openFile; stream says whether the content is read as a
// stream in bounded memory, whatever its size.
func openFileFor(path string, stream bool) (r io.Reader, f *os.File, gz bool, err error) {
	f, err = os.Open(path)
	if err != nil {
		return nil, nil, false, fmt.Errorf("data: %w", err)
	}
	if r, gz, err = Uncompressed(f); err != nil {
		f.Close()
		return nil, nil, false, fmt.Errorf("data: %s: %w", path, err)
	}
	if gz && !stream {
		limitWhole(r, path, sizeOf(f))
	}
	return r, f, gz, nil
}
