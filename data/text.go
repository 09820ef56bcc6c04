package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// What every text reader shares: the bounds on what a file may make a
// reader allocate, the byte-order mark, and the quoting of values in
// errors.

// MaxLineBytes bounds a line of text (LIBSVM, CSV, weights, streams): a
// longer line is an error naming it (ErrLineTooLong), found before it is
// held whole. A reader holds a few lines at a time, each in a buffer of up
// to twice its length, so that lines cost at most a few hundred MB of the
// memory a reader may spend beyond the input's size (MemoryBudget); 32 MiB
// is a dense row of some 3 million numbers.
const MaxLineBytes = 32 << 20

// maxLineBytes is MaxLineBytes, smaller in tests.
var maxLineBytes = MaxLineBytes

// ErrLineTooLong marks a line longer than MaxLineBytes (wrapped; test with
// errors.Is).
var ErrLineTooLong = fmt.Errorf("line longer than %d MiB", MaxLineBytes>>20)

// lineTooLong is the error of a long line: its number in the stream
// (1-based) and its first bytes.
type lineTooLong struct {
	line  int
	start []byte
}

func (e *lineTooLong) Error() string {
	q := Quote(string(e.start))
	if i := strings.LastIndex(q, "… ("); i >= 0 {
		q = q[:i+len("…")] // the length of the start kept is not the line's
	}
	return fmt.Sprintf("a line of more than %d bytes (it starts %s)", maxLineBytes, q)
}

func (e *lineTooLong) Is(target error) bool { return target == ErrLineTooLong }

// MemoryBudget is the memory a reader may spend on data read from
// inputBytes bytes: four times the input and 200 MiB. What a file claims
// (a width from a large index or a shape, categories to expand) is checked
// against it before anything is allocated for it.
func MemoryBudget(inputBytes int64) int64 { return 4*max(inputBytes, 0) + 200<<20 }

// bytesPerFeature is what a trainer spends per feature of its input,
// whatever the number of rows: a few float64 vectors (the means and scales
// of standardisation, a linear model's weights, their gradients and
// moments).
const bytesPerFeature = 64

// MaxWidth is the largest number of features a reader infers from sparse
// data of inputBytes bytes (the largest feature index of LIBSVM text, the
// shape of a SciPy sparse matrix, a support vector of a LIBSVM model):
// the number whose per-feature vectors fill MemoryBudget(inputBytes), at
// 64 bytes a feature. A 40 KB file may make some 3.3 million features,
// a 1 GB one 67 million. A wider width that is right is given explicitly
// (OpenOptions.Dim); a width inferred beyond it is a *WidthError.
func MaxWidth(inputBytes int64) int {
	return int(min(MemoryBudget(inputBytes)/bytesPerFeature, 1<<31-1))
}

// WidthError is the error of data whose inferred number of features
// exceeds MaxWidth of their size (a feature index, or a shape, that dwarfs
// the data), or that tell none (Width 0: LIBSVM lines without a feature,
// a stream whose rows outgrow its first ones). Giving the width
// explicitly (OpenOptions.Dim) reads them.
type WidthError struct {
	Name  string // the file or source
	Line  int    // the line of the largest index (text), or 0
	Width int    // the width the data ask for
	Bytes int64  // the size of the data
	What  string // what asks for it: "feature index 1073741824", "the shape (600, 2147483647)"; or why no width is known (Width 0)
}

func (e *WidthError) Error() string {
	at := e.Name
	if e.Line > 0 {
		at = fmt.Sprintf("%s:%d", e.Name, e.Line)
	}
	if e.Width == 0 {
		return fmt.Sprintf("data: %s: %s; give the number of features explicitly", at, e.What)
	}
	return fmt.Sprintf("data: %s: %s makes %d features out of %s of data, more than the %d such data may make (a trainer keeps %d bytes a feature); if that many features are right, give the number of features explicitly",
		at, e.What, e.Width, byteSize(e.Bytes), MaxWidth(e.Bytes), bytesPerFeature)
}

// checkWidth returns a *WidthError when width features inferred from
// inputBytes of data exceed MaxWidth.
func checkWidth(name string, line, width int, inputBytes int64, what string) error {
	if width <= MaxWidth(inputBytes) {
		return nil
	}
	return &WidthError{Name: name, Line: line, Width: width, Bytes: inputBytes, What: what}
}

// byteSize formats a number of bytes for a message.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// quoteChars is how many characters of a value Quote keeps.
const quoteChars = 80

// Quote returns s quoted as strconv.Quote quotes it, for a message: cut to
// its first 80 characters when longer, with "…" and its length after the
// quotes, so that an error never echoes a whole line.
func Quote(s string) string {
	if len(s) <= quoteChars {
		return strconv.Quote(s)
	}
	cut, n := 0, 0
	for cut < len(s) && n < quoteChars-3 {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
		n++
	}
	if cut == len(s) {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// bom is the UTF-8 byte-order mark, which some editors put first in a
// text file: every text reader drops it.
const bom = "\xef\xbb\xbf"

// lineReader reads text without a leading byte-order mark, and fails
// with a *lineTooLong error at a line longer than maxLineBytes, once the
// whole lines before it are read: no reader above it holds more of a line.
// It looks at the first bytes once (sniffText): text in UTF-16 or UTF-32
// is an error naming the encoding, and text whose lines end in '\r' alone
// (old Mac files) reads with '\n' in its place.
type lineReader struct {
	r       io.Reader
	max     int
	started bool
	crOnly  bool   // lines end in '\r' alone: read as '\n'
	pend    []byte // the first bytes, held back while looking at them
	eof     error  // the error that ended the first read, if any
	run     int    // bytes of the current line read
	line    int    // the current line, from 1
	start   []byte // the current line's first bytes
	total   int64  // bytes read
	err     error
}

// newLineReader wraps r (not again if it is one).
func newLineReader(r io.Reader) *lineReader {
	if l, ok := r.(*lineReader); ok {
		return l
	}
	return &lineReader{r: r, max: maxLineBytes, line: 1}
}

// sniffBytes is how much of a text lineReader looks at first.
const sniffBytes = 64 << 10

// begin reads the first bytes and looks at them (once).
func (l *lineReader) begin() {
	if l.started {
		return
	}
	l.started = true
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(l.r, head)
	l.pend = head[:n]
	switch err {
	case nil:
	case io.EOF, io.ErrUnexpectedEOF:
		l.eof = io.EOF
	default:
		l.eof = err
	}
	cr, err := sniffText(l.pend)
	if err != nil {
		l.err = err
		return
	}
	l.crOnly = cr
	l.pend = bytes.TrimPrefix(l.pend, []byte(bom))
}

// ErrEncoding is wrapped in the error of text in an encoding the readers
// do not read: they read UTF-8 (and so ASCII).
var ErrEncoding = errors.New("not UTF-8")

// sniffText looks at the first bytes of a text: it returns an error
// wrapping ErrEncoding for UTF-16 and UTF-32 (told by their byte-order
// marks, or by the zero bytes that ASCII characters carry in them), and
// reports whether the lines end in '\r' alone (a '\r' before any '\n').
func sniffText(head []byte) (crOnly bool, err error) {
	enc, iconv := "", ""
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xfe, 0, 0}):
		enc, iconv = "UTF-32 (little-endian, with a byte-order mark)", "UTF-32"
	case bytes.HasPrefix(head, []byte{0, 0, 0xfe, 0xff}):
		enc, iconv = "UTF-32 (big-endian, with a byte-order mark)", "UTF-32"
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		enc, iconv = "UTF-16 (little-endian, with a byte-order mark)", "UTF-16"
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		enc, iconv = "UTF-16 (big-endian, with a byte-order mark)", "UTF-16"
	case len(head) >= 4 && head[0] != 0 && head[1] == 0 && head[2] == 0 && head[3] == 0:
		enc, iconv = "UTF-32 (little-endian)", "UTF-32LE"
	case len(head) >= 4 && head[0] == 0 && head[1] == 0 && head[2] == 0 && head[3] != 0:
		enc, iconv = "UTF-32 (big-endian)", "UTF-32BE"
	case len(head) >= 2 && head[0] != 0 && head[1] == 0:
		enc, iconv = "UTF-16 (little-endian)", "UTF-16LE"
	case len(head) >= 2 && head[0] == 0 && head[1] != 0:
		enc, iconv = "UTF-16 (big-endian)", "UTF-16BE"
	}
	if enc != "" {
		return false, fmt.Errorf("the text is %s, %w: convert it first, e.g. iconv -f %s -t UTF-8 FILE > FILE.utf8", enc, ErrEncoding, iconv)
	}
	cr := bytes.IndexByte(head, '\r')
	nl := bytes.IndexByte(head, '\n')
	return cr >= 0 && (nl < 0 || nl > cr+1), nil
}

func (l *lineReader) Read(p []byte) (int, error) {
	if !l.started {
		l.begin()
	}
	if l.err != nil {
		return 0, l.err
	}
	var n int
	var err error
	switch {
	case len(p) == 0:
		return 0, nil
	case len(l.pend) > 0:
		n = copy(p, l.pend)
		l.pend = l.pend[n:]
	case l.eof != nil:
		return 0, l.eof
	default:
		n, err = l.r.Read(p)
	}
	if l.crOnly {
		for i, c := range p[:n] {
			if c == '\r' {
				p[i] = '\n'
			}
		}
	}
	if k, long := l.scan(p[:n]); long {
		l.err = &lineTooLong{line: l.line, start: bytes.Clone(l.start)}
		l.total += int64(k)
		return k, l.err
	}
	l.total += int64(n)
	return n, err
}

// scan follows the lines of b, the next bytes read, and reports whether
// one of them grows beyond the bound, with the bytes of b before that
// line. It looks at every byte only when b is longer than the bound (the
// lines inside a shorter b are shorter than the bound).
func (l *lineReader) scan(b []byte) (int, bool) {
	first := bytes.IndexByte(b, '\n')
	if first < 0 {
		l.extend(b)
		return len(b), l.run > l.max
	}
	if l.run+first > l.max {
		l.extend(b[:first])
		return 0, true
	}
	last := bytes.LastIndexByte(b, '\n')
	if len(b) > l.max {
		for off := first + 1; off <= last; {
			l.line++
			i := bytes.IndexByte(b[off:], '\n')
			if i > l.max {
				l.run, l.start = 0, l.start[:0]
				l.extend(b[off : off+i])
				return off, true
			}
			off += i + 1
		}
		l.line++
	} else {
		l.line += bytes.Count(b[first:last+1], []byte{'\n'})
	}
	l.run, l.start = 0, l.start[:0]
	l.extend(b[last+1:])
	if l.run > l.max {
		return last + 1, true
	}
	return len(b), false
}

// extend adds b to the current line.
func (l *lineReader) extend(b []byte) {
	if len(l.start) < quoteChars*4 {
		l.start = append(l.start, b[:min(len(b), quoteChars*4-len(l.start))]...)
	}
	l.run += len(b)
}

// lineOf returns the line of a *lineTooLong error in err's chain, or 0.
func lineOf(err error) int {
	var e *lineTooLong
	if errors.As(err, &e) {
		return e.line
	}
	return 0
}

// hasBOM reports whether b starts with the byte-order mark.
func hasBOM(b []byte) bool { return bytes.HasPrefix(b, []byte(bom)) }

// lineCounter counts the lines of what it reads (a last line without a
// newline too).
type lineCounter struct {
	r    io.Reader
	n    int
	last byte
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.n += bytes.Count(p[:n], []byte{'\n'})
		c.last = p[n-1]
	}
	return n, err
}

// lines returns the number of lines read.
func (c *lineCounter) lines() int {
	if c.last != 0 && c.last != '\n' {
		return c.n + 1
	}
	return c.n
}

// NewTextReader returns a reader of r's text as every text reader of
// the package reads it: without a leading byte-order mark, and failing
// (ErrLineTooLong, the line's number in its message) at a line longer
// than MaxLineBytes, after the whole lines before it. Readers of other
// text formats (LIBSVM model files) share it.
func NewTextReader(r io.Reader) io.Reader { return newLineReader(r) }

// checkText returns the error of text kept in ds (label names, column
// names, categories) that is not UTF-8: a model would store it with
// U+FFFD in place of the other bytes, and then match neither the names
// nor the categories of the same file.
func checkText(name string, ds *Dataset) error {
	if !utf8.ValidString(ds.LabelColumn) {
		return textError(name, "the label column's name", ds.LabelColumn)
	}
	for _, s := range ds.LabelNames {
		if !utf8.ValidString(s) {
			return textError(name, "label", s)
		}
	}
	for _, c := range ds.Columns {
		if !utf8.ValidString(c.Name) {
			return textError(name, "column name", c.Name)
		}
		for _, s := range c.Categories {
			if !utf8.ValidString(s) {
				return textError(name, fmt.Sprintf("value in %s", Quote(c.Name)), s)
			}
		}
	}
	return nil
}

// textError is the error of text s, what it is, that is not UTF-8.
func textError(name, what, s string) error {
	return fmt.Errorf("data: %s: %s %s is %w: the readers read UTF-8 text (this may be Windows-1252 or Latin-1); convert the file first, e.g. iconv -f WINDOWS-1252 -t UTF-8 FILE > FILE.utf8", name, what, Quote(s), ErrEncoding)
}
