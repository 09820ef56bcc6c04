package data

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"runtime"
	"sync"

	"github.com/nsvm-go/nsvm/internal/numparse"
)

// The parallel readers parse a regular, uncompressed file in line-aligned
// chunks on GOMAXPROCS goroutines, straight into the rows of one
// allocation: a first pass counts the lines of every chunk (the row each
// chunk starts at), so that the data need not be held twice. They take a
// strict fast path — plain numbers, no quotes, every row as wide as the
// first — and hand the file to the sequential reader (ReadLIBSVM,
// ReadCSV) on anything else, which then gives the same data or the
// canonical error with file and line. Numbers are parsed by numparse,
// whose results equal strconv's.

// chunkBytes is the size of the chunks the parallel readers parse.
var chunkBytes = 2 << 20

// errSlowPath asks for the sequential reader.
var errSlowPath = errors.New("data: not on the fast path")

// span is a line-aligned chunk of a file: bytes [off, end) starting at
// line (0-based) line, holding lines lines.
type span struct {
	off, end int64
	line     int
	lines    int
}

// splitLines cuts f (size bytes) into line-aligned chunks of about
// chunkBytes and counts their lines (a last line without a newline counts).
func splitLines(f *os.File, size int64) ([]span, int, error) {
	buf := make([]byte, 1<<20)
	nl := []byte{'\n'}
	var spans []span
	cur := span{}
	var off int64
	total := 0
	for off < size {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if n == 0 {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		b := buf[:n]
		for len(b) > 0 {
			q := max(0, cur.off+int64(chunkBytes)-off) // bytes before the chunk may end
			if q >= int64(len(b)) {
				cur.lines += bytes.Count(b, nl)
				off += int64(len(b))
				break
			}
			cur.lines += bytes.Count(b[:q], nl)
			j := bytes.IndexByte(b[q:], '\n')
			if j < 0 {
				off += int64(len(b))
				break
			}
			e := q + int64(j) + 1
			cur.lines++
			cur.end = off + e
			spans = append(spans, cur)
			total += cur.lines
			cur = span{off: cur.end, line: total}
			off += e
			b = b[e:]
		}
	}
	if size > cur.off {
		cur.end = size
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return nil, 0, err
		}
		if last[0] != '\n' {
			cur.lines++ // a last line without a newline
		}
		spans = append(spans, cur)
		total += cur.lines
	}
	return spans, total, nil
}

// longSpan reports whether a span may hold a line longer than
// maxLineBytes (see splitLines: a span ends at the first newline after
// chunkBytes, so that one of a longer line is longer than it).
func longSpan(spans []span) bool {
	for _, s := range spans {
		if s.end-s.off > int64(max(maxLineBytes, chunkBytes)) {
			return true
		}
	}
	return false
}

// parseSpans reads the spans of f on GOMAXPROCS goroutines and calls parse
// with each one's bytes; the first error wins.
func parseSpans(f *os.File, spans []span, parse func(s span, b []byte) error) error {
	work := make(chan span)
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), len(spans)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for s := range work {
				mu.Lock()
				failed := first != nil
				mu.Unlock()
				if failed {
					continue
				}
				n := int(s.end - s.off)
				if cap(buf) < n {
					buf = make([]byte, n)
				}
				b := buf[:n]
				_, err := f.ReadAt(b, s.off)
				if err == nil {
					err = parse(s, b)
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, s := range spans {
		work <- s
	}
	close(work)
	wg.Wait()
	return first
}

// nextLine splits off the first line of b (without its newline).
func nextLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// compact drops the rows marked in skip (comment lines, a header) from x
// (rows of d), y and the weights w (if not nil) in place.
func compact(x []float32, y, w []float64, d int, skip []bool) ([]float32, []float64, []float64) {
	k := 0
	for i, s := range skip {
		if s {
			continue
		}
		if k != i {
			copy(x[k*d:(k+1)*d], x[i*d:(i+1)*d])
			y[k] = y[i]
			if w != nil {
				w[k] = w[i]
			}
		}
		k++
	}
	if w != nil {
		w = w[:k]
	}
	return x[:k*d], y[:k], w
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// finite32 parses a feature value on the fast path.
func finite32(b []byte) (float32, bool) {
	v, err := numparse.Float32(b)
	if err != nil || math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return 0, false
	}
	return v, true
}

func finite64(b []byte) (float64, bool) {
	v, err := numparse.Float64(b)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// libsvmIndex parses a 1-based feature index of plain digits.
func libsvmIndex(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	j := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		j = 10*j + int(c-'0')
	}
	return j, j > 0
}

// parseLIBSVMLine parses one line into row (zeroed, len ≥ the largest
// index unless dim is exceeded) and returns the label, the kind of the
// line, the largest index, and false when the line is off the fast path
// (a blank line, whose error libsvmLine gives, among them).
func parseLIBSVMLine(line []byte, row []float32) (label float64, kind rowKind, maxIdx int, ok bool) {
	comment := false
	if k := bytes.IndexByte(line, '#'); k >= 0 {
		line, comment = line[:k], true
	}
	next := func() []byte {
		for len(line) > 0 && (isSpace(line[0])) {
			line = line[1:]
		}
		i := 0
		for i < len(line) && !isSpace(line[i]) {
			i++
		}
		tok := line[:i]
		line = line[i:]
		return tok
	}
	tok := next()
	switch {
	case len(tok) == 0:
		return 0, noRow, 0, comment
	case bytes.IndexByte(tok, ':') >= 0:
		kind = unlabelled
	default:
		kind = labelled
		if label, ok = finite64(tok); !ok {
			return 0, noRow, 0, false
		}
		tok = next()
	}
	prev := 0
	for ; len(tok) > 0; tok = next() {
		c := bytes.IndexByte(tok, ':')
		if c < 0 {
			return 0, noRow, 0, false
		}
		j, ok := libsvmIndex(tok[:c])
		if !ok || j <= prev {
			return 0, noRow, 0, false
		}
		v, ok := finite32(tok[c+1:])
		if !ok {
			return 0, noRow, 0, false
		}
		if j <= len(row) && v != 0 {
			row[j-1] = v // not -0, which the sequential reader leaves out
		}
		prev = j
	}
	return label, kind, prev, true
}

// readLIBSVMFast reads a regular LIBSVM file in parallel (see above); it
// returns errSlowPath when the sequential reader must take over.
//
// It reads dense rows only: data that may be kept sparse (a layout other
// than LayoutDense, at least sparseMinD features) go to the chunked reader.
func readLIBSVMFast(f *os.File, size int64, dim int, layout string) (*Dataset, error) {
	if layout == LayoutSparse || layout == LayoutAuto && dim >= sparseMinD {
		return nil, errSlowPath
	}
	spans, lines, err := splitLines(f, size)
	if err != nil || lines == 0 || longSpan(spans) {
		return nil, errSlowPath
	}
	d := dim
	if d == 0 {
		// The width of the first chunk; a wider row later restarts the
		// read with the width known.
		b := make([]byte, min(spans[0].end-spans[0].off, 1<<20))
		if _, err := f.ReadAt(b, 0); err != nil {
			return nil, errSlowPath
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			b = b[:i+1] // whole lines
		}
		for rest := b; len(rest) > 0; {
			var line []byte
			line, rest = nextLine(rest)
			_, kind, m, ok := parseLIBSVMLine(line, nil)
			if !ok || kind == unlabelled {
				return nil, errSlowPath
			}
			d = max(d, m)
		}
		if d == 0 {
			return nil, errSlowPath
		}
	}
	if lines > maxDenseValues/d || layout == LayoutAuto && d >= sparseMinD || 4*int64(lines)*int64(d) > MemoryBudget(size) {
		return nil, errSlowPath
	}
	x := make([]float32, lines*d)
	y := make([]float64, lines)
	skip := make([]bool, lines)
	var mu sync.Mutex
	wider := 0
	err = parseSpans(f, spans, func(s span, b []byte) error {
		rest := b
		for r := s.line; r < s.line+s.lines; r++ {
			var line []byte
			line, rest = nextLine(rest)
			lab, kind, m, ok := parseLIBSVMLine(line, x[r*d:(r+1)*d])
			switch {
			case !ok || kind == unlabelled:
				return errSlowPath
			case m > d && dim > 0:
				return errSlowPath // the sequential reader names the line
			case m > d:
				mu.Lock()
				wider = max(wider, m)
				mu.Unlock()
			}
			y[r], skip[r] = lab, kind == noRow
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if wider > 0 {
		x, y = nil, nil
		return readLIBSVMFast(f, size, wider, layout)
	}
	x, y, _ = compact(x, y, nil, d, skip)
	if len(y) == 0 {
		return nil, errSlowPath
	}
	return &Dataset{X: x, Y: y, N: len(y), D: d}, nil
}

// readFast tries the parallel reader on path and reports false when the
// sequential reader must read it (not a regular uncompressed file, or off
// the fast path).
func readFast(path, format string, opt OpenOptions) (*Dataset, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < 2 {
		return nil, false
	}
	head := make([]byte, min(st.Size(), sniffBytes))
	if n, err := io.ReadFull(f, head); n < 2 || err != nil || head[0] == 0x1f && head[1] == 0x8b || hasBOM(head) {
		return nil, false // gzip, or a byte-order mark: the stream readers
	}
	if cr, err := sniffText(head); cr || err != nil {
		return nil, false // the stream readers read or refuse them
	}
	var ds *Dataset
	switch format {
	case "libsvm":
		ds, err = readLIBSVMFast(f, st.Size(), opt.Dim, opt.Layout)
	case "csv":
		if ds, err = readCSVFast(f, st.Size(), opt.CSV); err == nil {
			if err := checkText(path, ds); err != nil {
				// The sequential reader says the same (ReadCSV).
				return nil, false
			}
		}
	default:
		return nil, false
	}
	if err != nil {
		return nil, false
	}
	return ds, true
}

// readCSVFast reads a regular CSV file in parallel (see above); it returns
// errSlowPath when the sequential reader must take over.
func readCSVFast(f *os.File, size int64, opt CSVOptions) (*Dataset, error) {
	comma := byte(',')
	switch {
	case opt.Comma == 0:
	case opt.Comma > 0 && opt.Comma < 0x80 && opt.Comma != '"' && opt.Comma != '\n' && opt.Comma != '\r' && opt.Comma != Spaces:
		comma = byte(opt.Comma)
	default:
		return nil, errSlowPath
	}
	if !validLabelCol(opt.LabelCol) || opt.Header < HeaderAuto || opt.Header > HeaderNo || opt.Columns != nil || opt.Keep != nil {
		return nil, errSlowPath
	}
	spans, lines, err := splitLines(f, size)
	if err != nil || lines == 0 || longSpan(spans) {
		return nil, errSlowPath
	}
	// The layout from the first line.
	first := make([]byte, min(size, 1<<20+headerWindow+1))
	if _, err := f.ReadAt(first, 0); err != nil && err != io.EOF {
		return nil, errSlowPath
	}
	line, after := nextLine(first)
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) == 0 || bytes.IndexByte(line, '"') >= 0 {
		return nil, errSlowPath
	}
	fields := bytes.Split(line, []byte{comma})
	nf := len(fields)
	if nf < 2 {
		return nil, errSlowPath
	}
	header := opt.Header == HeaderYes
	if opt.Header == HeaderAuto {
		if len(line) > 1<<20 {
			return nil, errSlowPath
		}
		var plain bool
		if header, plain = layoutAfter(fields, after, opt); !plain {
			return nil, errSlowPath
		}
	}
	roles, err := csvRolesOf(opt, fieldStrings(fields), header)
	if err != nil {
		return nil, errSlowPath // the sequential reader's error
	}
	labelCol, weightCol := roles.labelCol, roles.weightCol
	d := roles.d
	if lines > maxDenseValues/d {
		return nil, errSlowPath
	}
	x := make([]float32, lines*d)
	y := make([]float64, lines)
	var w []float64
	if weightCol >= 0 {
		w = make([]float64, lines)
	}
	skip := make([]bool, lines)
	err = parseSpans(f, spans, func(s span, b []byte) error {
		rest := b
		for r := s.line; r < s.line+s.lines; r++ {
			var line []byte
			line, rest = nextLine(rest)
			line = bytes.TrimSuffix(line, []byte{'\r'})
			if r == 0 && header {
				skip[r] = true
				continue
			}
			if len(line) == 0 || bytes.IndexByte(line, '"') >= 0 {
				return errSlowPath
			}
			row := x[r*d : (r+1)*d]
			k := 0
			for j := 0; j < nf; j++ {
				var fld []byte
				if i := bytes.IndexByte(line, comma); i >= 0 {
					fld, line = line[:i], line[i+1:]
				} else if j == nf-1 {
					fld, line = line, nil
				} else {
					return errSlowPath // too few fields
				}
				fld = trimSpace(fld)
				switch j {
				case labelCol:
					v, ok := finite64(fld)
					if !ok {
						return errSlowPath
					}
					y[r] = v
					continue
				case weightCol:
					v, ok := finite64(fld)
					if !ok || v < 0 {
						return errSlowPath
					}
					w[r] = v
					continue
				}
				v, ok := finite32(fld)
				if !ok {
					return errSlowPath
				}
				row[k] = v
				k++
			}
			if line != nil {
				return errSlowPath // too many fields
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	x, y, w = compact(x, y, w, d, skip)
	if len(y) == 0 {
		return nil, errSlowPath
	}
	ds := &Dataset{X: x, Y: y, W: w, N: len(y), D: d}
	if err := finishTable(ds, 0, nil, nil, roles, size); err != nil {
		return nil, errSlowPath
	}
	return ds, nil
}
