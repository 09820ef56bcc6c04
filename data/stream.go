package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/nsvm-go/nsvm/internal/errmsg"
)

// Stream reads a LIBSVM, CSV, .npy or .npz file in blocks of rows without
// holding the file in memory (see OpenStream). It is not safe for
// concurrent use.
type Stream struct {
	npy *npyStream // for .npy and .npz

	path   string
	format string
	opt    OpenOptions
	d      int
	rows   int
	nnz    int64 // the values of a LIBSVM file, counted with its rows
	// CSV layout
	comma   byte
	roles   *csvRoles
	header  bool
	headerL string // the header line
	// index: the first field is a pandas index (see streamIndex), left
	// out of the rows; indexNext is the number the next row must hold.
	index     bool
	indexNext int64
	// empty marks the feature columns empty in every row (see
	// streamEmpty), left out of the rows as the index is; nil: none.
	empty []bool
	// rows without labels (y NaN); kind of the rows of a LIBSVM file
	unlabelled bool
	kind       rowKind
	// label names in order of first appearance (CSV labels that are
	// names); names: the first label was a name
	names   labelNames
	byName  bool
	nLabels int // labels seen, to tell the first

	f    *os.File
	rc   io.Closer // the gzip reader, if any
	br   *bufio.Reader
	lr   *lineReader // under br
	line int         // the line of an error
	// spaces: the fields are separated by runs of spaces (Spaces), read
	// through spaceFields as tab-separated text
	spaces bool

	p   *pipeline // parsing ahead, from the first Next
	cur *chunk    // the chunk rows are taken from
	pos int       // rows of cur taken
}

// OpenStream opens a data file for reading in row blocks without
// materialising it: LIBSVM or CSV text (gzip-compressed or not), a .npy of X
// with opt.Labels the .npy of y, or a .npz holding X and y (stored or
// deflated). The format and options are those of Open; IDX files do not
// stream. NumPy arrays are read block by block and converted as Open
// converts them (Rows is known); a NaN or infinite value is an error naming
// its row. The width of LIBSVM rows is opt.Dim or, when 0, the largest
// index in the file, found by a first pass parsed in parallel, which also
// counts the rows (for a compressed file it decompresses the stream once
// more). Rows are parsed on the strict fast path of the
// parallel readers (plain numbers, no quoted CSV fields); a row off it is
// an error naming the file and line, worded as the sequential readers word
// it. A SciPy sparse .npz and a CSV weight column (CSVOptions.WeightCol) do
// not stream. A CSV file's unnamed first column whose values in the first
// megabyte are 0, 1, 2, … is a pandas index, left out as Open leaves it out
// (Columns, Notices); a later row that breaks the numbering is an error
// naming its line, since Open, which sees every row, would keep the column.
// So is a feature column empty in every row of the first megabyte (a
// separator at the end of every line), unless every one is: a later row
// with a value there is an error naming its line.
func OpenStream(path string, opt OpenOptions) (*Stream, error) {
	format := opt.Format
	if format == "" {
		var err error
		if format, err = guessFormat(path); err != nil {
			return nil, err
		}
	}
	if format == "npy" || format == "npz" {
		ns, err := openNPYStream(path, format, opt)
		if err != nil {
			return nil, err
		}
		return &Stream{npy: ns, path: path, format: format, opt: opt, d: ns.d, rows: ns.n}, nil
	}
	if format != "libsvm" && format != "csv" {
		return nil, fmt.Errorf("data: %s: streaming reads LIBSVM, CSV, .npy and .npz files, not %s", path, format)
	}
	s := &Stream{path: path, format: format, opt: opt, rows: -1}
	if err := s.open(); err != nil {
		return nil, err
	}
	var err error
	if format == "libsvm" {
		err = s.layoutLIBSVM()
	} else {
		err = s.layoutCSV()
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Stream) open() error {
	r, f, gz, err := openFileFor(s.path, true)
	if err != nil {
		return err
	}
	s.f, s.rc, s.line = f, nil, 0
	if gz {
		if c, ok := r.(io.Closer); ok {
			s.rc = c
		}
	}
	s.lr = newLineReader(r)
	if s.lr.begin(); s.lr.err != nil {
		s.Close()
		return fmt.Errorf("data: %s: %w", s.path, s.lr.err)
	}
	s.br = bufio.NewReaderSize(s.text(), 1<<20)
	return nil
}

// text is the text the stream reads: its lines, through spaceFields when
// its fields are separated by spaces.
func (s *Stream) text() io.Reader {
	if s.spaces {
		return newSpaceFields(s.lr)
	}
	return s.lr
}

// plain reports whether the file's bytes are its lines, for the passes
// that read a regular file in parallel: not compressed, not in lines
// ended by '\r' alone.
func (s *Stream) plain() bool { return s.rc == nil && !s.lr.crOnly }

func (s *Stream) layoutLIBSVM() error {
	s.d = s.opt.Dim
	st, err := s.f.Stat()
	if s.plain() && err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		spans, _, err := splitLines(s.f, st.Size())
		if err != nil {
			return fmt.Errorf("data: %s: %w", s.path, err)
		}
		if len(spans) > 0 {
			head := make([]byte, 3)
			if n, _ := s.f.ReadAt(head, 0); n == 3 && hasBOM(head) {
				spans[0].off += 3
			}
		}
		width := make([]int, len(spans))
		rows := make([]int, len(spans))
		nnz := make([]int64, len(spans))
		kinds := make([]rowKind, len(spans))
		idx := make(map[int64]int, len(spans))
		for i, sp := range spans {
			idx[sp.off] = i
		}
		err = parseSpans(s.f, spans, func(sp span, b []byte) error {
			if longSpan([]span{sp}) {
				return errSlowPath
			}
			i := idx[sp.off]
			rest := b
			for range sp.lines {
				var line []byte
				line, rest = nextLine(rest)
				_, kind, m, ok := parseLIBSVMLine(line, nil)
				if !ok || kind != noRow && kinds[i] != noRow && kind != kinds[i] {
					return errSlowPath
				}
				width[i] = max(width[i], m)
				if kind != noRow {
					kinds[i] = kind
					rows[i]++
					nnz[i] += libsvmValues(line)
				}
			}
			return nil
		})
		for _, k := range kinds {
			switch {
			case k == noRow:
			case s.kind == noRow:
				s.kind = k
			case k != s.kind:
				err = errSlowPath
			}
		}
		if errors.Is(err, errSlowPath) {
			// Name the line: read it as Next would.
			return s.findError()
		}
		if err != nil {
			return fmt.Errorf("data: %s: %w", s.path, err)
		}
		s.rows = 0
		w := 0
		for i := range spans {
			s.rows += rows[i]
			s.nnz += nnz[i]
			w = max(w, width[i])
		}
		if s.rows == 0 {
			return fmt.Errorf("data: %s: no data rows", s.path)
		}
		if s.d == 0 {
			s.d = w
			if err := checkWidth(s.path, 0, w, st.Size(), fmt.Sprintf("feature index %d", w)); err != nil {
				return err
			}
		} else if w > s.d {
			return s.findError()
		}
	} else if s.d == 0 {
		// A compressed file: one pass over the decompressed stream, its
		// chunks parsed in parallel, finds the width and counts the rows.
		p := startPipeline(s.br, func(c *chunk) {
			rest := c.buf
			for range c.lines {
				var line []byte
				line, rest = nextLine(rest)
				_, kind, m, ok := parseLIBSVMLine(line, nil)
				if !ok || kind != noRow && c.kind != noRow && kind != c.kind {
					c.err = errSlowPath
					return
				}
				c.maxIdx = max(c.maxIdx, m)
				if kind != noRow {
					c.kind = kind
					c.w++ // rows
					c.nnz += libsvmValues(line)
				}
			}
		})
		rows, slow := 0, false
		for {
			c, ok := p.next()
			if !ok {
				break
			}
			p.release(c)
			if c.err != nil {
				slow = true
				break
			}
			if c.kind != noRow && s.kind != noRow && c.kind != s.kind {
				slow = true
				break
			}
			if s.kind == noRow {
				s.kind = c.kind
			}
			s.d = max(s.d, c.maxIdx)
			rows += c.w
			s.nnz += c.nnz
		}
		p.close()
		if slow || p.rerr != nil {
			return s.findError()
		}
		if rows == 0 {
			return fmt.Errorf("data: %s: no data rows", s.path)
		}
		if err := checkWidth(s.path, 0, s.d, s.bytes(), fmt.Sprintf("feature index %d", s.d)); err != nil {
			return err
		}
		s.rows = rows
		if err := s.Rewind(); err != nil {
			return err
		}
	}
	if s.d == 0 {
		return &WidthError{Name: s.path, What: "no feature index in the rows"}
	}
	if s.kind == noRow {
		s.kind = s.peekKind()
	}
	s.unlabelled = s.kind == unlabelled
	return nil
}

// peekKind returns the kind of the first row of LIBSVM text, from the
// start of the stream (noRow if it is not there).
func (s *Stream) peekKind() rowKind {
	head, _ := s.br.Peek(1 << 20)
	for rest := head; len(rest) > 0; {
		var line []byte
		line, rest = nextLine(rest)
		if _, kind, _, ok := parseLIBSVMLine(line, nil); ok && kind != noRow {
			return kind
		}
	}
	return noRow
}

// bytes returns the size of the stream's file, or the bytes its reader
// has read (a compressed file).
func (s *Stream) bytes() int64 {
	if st, err := s.f.Stat(); err == nil && s.rc == nil {
		return st.Size()
	}
	return s.lr.total
}

// findError reads the file from the start, as Next would, to the first
// row off the fast path, and returns its error. It reads sparse rows, in
// memory bounded by their nonzeros whatever the width.
func (s *Stream) findError() error {
	if err := s.Rewind(); err != nil {
		return err
	}
	for { // with s.d 0 (unknown), rows of any width
		ds, err := s.ReadSparse(256)
		if err != nil {
			return err
		}
		if ds.N == 0 {
			return &WidthError{Name: s.path, What: "a row is wider than the rows before it (the width is known from a first pass over the file)"}
		}
	}
}

// libsvmValues counts the index:value pairs of a LIBSVM line.
func libsvmValues(line []byte) int64 {
	if k := bytes.IndexByte(line, '#'); k >= 0 {
		line = line[:k]
	}
	return int64(bytes.Count(line, []byte{':'}))
}

func (s *Stream) layoutCSV() error {
	s.comma = ','
	c := s.opt.CSV.Comma
	if c == 0 {
		c = sniffComma(s.path)
		s.opt.CSV.Comma = c
	}
	if c == Spaces {
		// Read as the tab-separated text spaceFields makes of it.
		s.spaces, c, s.opt.CSV.Comma = true, '\t', '\t'
		s.br.Reset(s.text())
	}
	if c != ',' {
		if c >= 0x80 || c == '"' {
			return fmt.Errorf("data: %s: streaming needs a one-byte separator, not %q", s.path, c)
		}
		s.comma = byte(c)
	}
	if err := checkCSVOptions(s.path, s.opt.CSV); err != nil {
		return err
	}
	for k, c := range s.opt.CSV.Columns {
		if c.Categories != nil {
			return fmt.Errorf("data: %s: the model's feature column %d (%s) holds categories; streaming reads columns of numbers (read the file whole)", s.path, k, Quote(c.Name))
		}
		if c.Dates != "" {
			return fmt.Errorf("data: %s: the model's feature column %d (%s) holds dates; streaming reads columns of numbers (read the file whole)", s.path, k, Quote(c.Name))
		}
	}
	head, _ := s.br.Peek(1 << 20)
	line, after := nextLine(head)
	line = bytes.TrimSuffix(line, []byte{'\r'})
	// The layout as the readers decide it: the fields of the first line,
	// a header or not from the lines that follow.
	if len(line) == 0 {
		return fmt.Errorf("data: %s:1: %v", s.path, errBlankLine)
	}
	cr := csv.NewReader(bytes.NewReader(line))
	cr.Comma, cr.TrimLeadingSpace, cr.LazyQuotes = rune(s.comma), true, false
	strs, err := cr.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("data: %s:1: %v", s.path, err)
	}
	fields := make([][]byte, len(strs))
	for j, f := range strs {
		fields[j] = []byte(f)
	}
	hdr := s.opt.CSV.Header == HeaderYes
	if s.opt.CSV.Header == HeaderAuto && len(fields) >= 2 {
		named := namesColumns(strs, s.opt.CSV.Columns)
		hdr, _ = layoutAfter(fields, after, s.opt.CSV)
		hdr = hdr || named
		if !named && shortHeader(strs, windowRecords(after, s.opt.CSV)) {
			return shortHeaderErr(s.path, 1, len(strs))
		}
	}
	s.header = hdr
	roles, err := csvRolesOf(s.opt.CSV, strs, hdr)
	if err != nil {
		return fmt.Errorf("data: %s:1: %v", s.path, err)
	}
	if roles.weightCol >= 0 {
		return fmt.Errorf("data: %s: streaming does not read a weight column (%s); read the file whole (Open) to have its weights", s.path, roles.name(roles.weightCol))
	}
	if hdr {
		s.headerL = string(line)
		for _, f := range strs {
			if !utf8.ValidString(f) {
				return textError(s.path+":1", "column name", strings.TrimSpace(f))
			}
		}
	}
	s.roles, s.d, s.unlabelled = roles, roles.d, roles.labelCol < 0
	if s.opt.CSV.Columns != nil {
		return nil
	}
	eof := len(head) < 1<<20
	rows := after
	if !hdr {
		rows = head
	}
	s.empty = streamEmpty(rows, eof, s.comma, roles)
	left := roles.d // the feature columns that stay
	for _, e := range s.empty {
		if e {
			left--
		}
	}
	s.index = roles.unnamedFirst() && (s.empty == nil || !s.empty[0]) && left > 1 && streamIndex(after, eof, s.comma)
	s.d = left
	if s.index {
		s.d--
	}
	return nil
}

// dropped reports whether feature column k is left out of the rows: the
// pandas index or an empty column.
func (s *Stream) dropped(k int) bool {
	return k == 0 && s.index || s.empty != nil && s.empty[k]
}

// streamEmpty returns, by feature column, whether the field is empty in
// every complete row of text (the lines a stream peeked at, the last one
// complete only at the end of the file), as Open leaves out a column empty
// in every row (a separator at the end of every line makes one), unless
// every feature column is: nil when none is, or when a row is not plain
// (quoted fields, another number of fields), whose reading then decides.
// The stream checks the rows after the peek as they come (csvFastLine).
func streamEmpty(text []byte, eof bool, comma byte, roles *csvRoles) []bool {
	lines, _ := peekedLines(text, eof)
	if len(lines) == 0 {
		return nil
	}
	empty := make([]bool, roles.d)
	for k := range empty {
		empty[k] = true
	}
	for _, line := range lines {
		if bytes.IndexByte(line, '"') >= 0 || bytes.Count(line, []byte{comma})+1 != roles.nf {
			return nil
		}
		for j, fld := range bytes.Split(line, []byte{comma}) {
			if k := roles.feature[j]; k >= 0 && len(trimSpace(fld)) > 0 {
				empty[k] = false
			}
		}
	}
	return emptyColumns(empty)
}

// peekedLines returns the complete lines of text (a stream's first look at
// its rows, the last line complete only at the end of the file, eof),
// without their line ends, and whether a partial last line was left out.
func peekedLines(text []byte, eof bool) (lines [][]byte, partial bool) {
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 && !eof {
			return lines, true
		}
		line := text
		if i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		lines = append(lines, bytes.TrimSuffix(line, []byte{'\r'}))
	}
	return lines, false
}

// streamIndex reports whether the first fields of the rows in text (the
// lines after the header that a stream peeked at; the last one complete
// only at the end of the file) hold 0, 1, 2, … as Open's pandasIndex asks
// of every row: the stream then leaves the field out, as Open does, and
// checks the rows after the peek as they come (Stream.dropColumns).
func streamIndex(text []byte, eof bool, comma byte) bool {
	lines, partial := peekedLines(text, eof)
	for r, line := range lines {
		if j := bytes.IndexByte(line, comma); j >= 0 {
			line = line[:j]
		}
		if v, ok := finite32(trimSpace(line)); !ok || v != float32(r) {
			return false
		}
	}
	return len(lines) > 0 || !partial // a partial line alone tells nothing
}

// dropColumns checks that the rows of a parsed chunk hold their numbers in
// the stream's first field when it is a pandas index, and leaves the
// dropped columns (that index, the empty columns) out of them.
func (s *Stream) dropColumns(c *chunk) error {
	w, keep := c.w, s.d
	for r := range c.y {
		row := c.x[r*w : (r+1)*w]
		if s.index {
			if v := row[0]; v != float32(s.indexNext) {
				line := s.rowLine(c, r)
				return fmt.Errorf("data: %s:%d: the first column, unnamed, held the row numbers 0…%d before this row (a pandas index, left out of the features) but holds %g here: read the file whole (not as a stream) to have it as a feature, or name it in the header",
					s.path, line, s.indexNext-1, v)
			}
			s.indexNext++
		}
		// In place: row r's values move to no later place.
		q := r * keep
		for k, v := range row {
			if !s.dropped(k) {
				c.x[q] = v
				q++
			}
		}
	}
	c.w = keep
	return nil
}

// Columns returns the feature columns of a CSV file with a header or
// columns left out: their names, a pandas index (Column.RowIndex) and
// empty columns (Column.Empty) left out, as Open gives them; nil
// otherwise.
func (s *Stream) Columns() []Column {
	if s.roles == nil || s.roles.names == nil && !s.index && s.empty == nil {
		return nil
	}
	cols := make([]Column, s.roles.d)
	for k, name := range s.roles.names {
		cols[k].Name = name
	}
	for k, e := range s.empty {
		if e {
			cols[k].Dropped, cols[k].Empty = true, true
		}
	}
	if s.index {
		cols[0] = Column{Dropped: true, RowIndex: true}
	}
	return cols
}

// LabelColumn returns the header's name of the label column of a CSV
// file ("" without a header or labels), as Dataset.LabelColumn.
func (s *Stream) LabelColumn() string {
	if s.roles == nil {
		return ""
	}
	return s.roles.labelName
}

// Notices are what reading the file decided that its user should know,
// as Dataset.Notices and in its order: empty columns and a pandas index
// left out, the label column taken.
func (s *Stream) Notices() []string {
	if s.roles == nil {
		return nil
	}
	var notes []string // in Open's order
	for k, e := range s.empty {
		if e {
			notes = append(notes, emptyNotice(s.roles, k))
		}
	}
	if s.index {
		notes = append(notes, indexNotice)
	}
	return append(notes, s.roles.notices...)
}

// Labelled reports whether the rows have labels: false for LIBSVM lines
// without one, a CSV file without the label column of the model's
// columns (CSVOptions.Columns), whose Next gives NaN labels and whose
// ReadRows and ReadSparse data sets have Y nil.
func (s *Stream) Labelled() bool { return !s.unlabelled }

// LabelNames returns the names of the classes of a CSV file whose labels
// are names, in order of first appearance so far: Next gives the label
// of a row as the index of its name. The first label of the file decides:
// when it is a number, the labels are numbers, and a name later on is an
// error; when it is a name, every label is a name (a number by its
// text). Nil for numeric labels.
func (s *Stream) LabelNames() []string {
	if !s.byName {
		return nil
	}
	return slices.Clone(s.names.list)
}

// D returns the width of a row.
func (s *Stream) D() int { return s.d }

// Shape returns the input shape of a row, as Dataset.InputShape: the
// dimensions after the first of a NumPy X, else [D].
func (s *Stream) Shape() []int {
	if s.npy != nil && s.npy.shape != nil {
		return append([]int(nil), s.npy.shape...)
	}
	return []int{s.d}
}

// Rows returns the number of rows when known (NumPy arrays; LIBSVM files,
// whose rows the width scan counts, unless a compressed one was opened
// with opt.Dim), else −1 (CSV).
func (s *Stream) Rows() int { return s.rows }

// ReadRows reads up to n rows from where the stream is into a new data
// set of dense rows (n·D values), fewer if the stream ends first, whose
// labels, when they are names, are codes into its LabelNames (the
// stream's so far). Wide, sparse rows read with ReadSparse (see Layout).
func (s *Stream) ReadRows(n int) (*Dataset, error) {
	d := s.D()
	ds := &Dataset{X: make([]float32, n*d), Y: make([]float64, n), D: d, Shape: s.Shape(), Columns: s.Columns(), LabelColumn: s.LabelColumn()}
	for ds.N < n {
		k, err := s.Next(ds.X[ds.N*d:], ds.Y[ds.N:])
		ds.N += k
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	ds.X, ds.Y = ds.X[:ds.N*d], ds.Y[:ds.N]
	if s.unlabelled {
		ds.Y = nil
	}
	ds.LabelNames = s.LabelNames()
	return ds, nil
}

// Next fills up to len(y) rows into x (len(y)·D() values) and y and
// returns how many it filled; at the end of the file it returns 0 and
// io.EOF. Text is parsed ahead in parallel over line-aligned chunks of the
// file (see ReadLIBSVM), so that memory is bounded by the block and a few
// chunks. Rows are dense, D values each; ReadSparse reads wide, sparse
// rows without them.
func (s *Stream) Next(x []float32, y []float64) (int, error) {
	if len(x) < len(y)*s.d {
		panic(fmt.Sprintf("data: Stream.Next: len(x) = %d, want len(y)·D() = %d", len(x), len(y)*s.d))
	}
	if s.npy != nil {
		return s.npy.next(x, y)
	}
	d := s.d
	n := 0
	for n < len(y) {
		c, err := s.chunk()
		if err == io.EOF {
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
		k := min(len(y)-n, len(c.y)-s.pos)
		copy(y[n:n+k], c.y[s.pos:s.pos+k])
		if c.x != nil {
			copy(x[n*d:(n+k)*d], c.x[s.pos*d:(s.pos+k)*d])
		} else {
			for r := range k {
				row := x[(n+r)*d : (n+r+1)*d]
				clear(row)
				idx, val := c.sparseRow(s.pos + r)
				for q, j := range idx {
					row[j] = val[q]
				}
			}
		}
		n += k
		s.pos += k
	}
	return n, nil
}

// ReadSparse reads up to n rows from where the stream is into a new data
// set of sparse rows (Dataset.Sparse), fewer if the stream ends first (none
// at its end). Its memory is in proportion to the rows' nonzeros, never to
// n·D: the way to read a wide, sparse LIBSVM file (Layout) in blocks.
// Dense formats (CSV, NumPy) are read in blocks of dense rows and their
// zeros left out. Labels that are names are as ReadRows gives them.
func (s *Stream) ReadSparse(n int) (*Dataset, error) {
	ds := &Dataset{D: s.d, Y: []float64{}, Sparse: &CSR{Ptr: []int64{0}}, Columns: s.Columns(), LabelColumn: s.LabelColumn()}
	if s.npy != nil && s.npy.shape != nil {
		ds.Shape = s.Shape()
	}
	m := ds.Sparse
	appendDense := func(x []float32) {
		for j, v := range x {
			if v != 0 {
				m.Idx = append(m.Idx, int32(j))
				m.Val = append(m.Val, v)
			}
		}
		m.Ptr = append(m.Ptr, int64(len(m.Val)))
	}
	if s.npy != nil {
		d := s.d
		block := max(1, min(n, (4<<20)/d))
		x, y := make([]float32, block*d), make([]float64, block)
		for ds.N < n {
			k, err := s.npy.next(x, y[:min(block, n-ds.N)])
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			for r := range k {
				appendDense(x[r*d : (r+1)*d])
			}
			ds.Y = append(ds.Y, y[:k]...)
			ds.N += k
		}
		return ds, nil
	}
	for ds.N < n {
		c, err := s.chunk()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		k := min(n-ds.N, len(c.y)-s.pos)
		for r := s.pos; r < s.pos+k; r++ {
			if c.x != nil {
				appendDense(c.x[r*c.w : (r+1)*c.w])
				continue
			}
			idx, val := c.sparseRow(r)
			m.Idx = append(m.Idx, idx...)
			m.Val = append(m.Val, val...)
			m.Ptr = append(m.Ptr, int64(len(m.Val)))
		}
		ds.Y = append(ds.Y, c.y[s.pos:s.pos+k]...)
		ds.N += k
		s.pos += k
	}
	if s.unlabelled {
		ds.Y = nil
	}
	ds.LabelNames = s.LabelNames()
	return ds, nil
}

// Layout returns the layout the stream's rows are best read in:
// LayoutSparse (ReadSparse) when it was opened with OpenOptions.Layout
// LayoutSparse, or with LayoutAuto over LIBSVM text that the first pass
// found wide and sparse (SparseLayout; wide alone when that pass did not
// run: a compressed file opened with Dim); LayoutDense (Next, ReadRows)
// otherwise.
func (s *Stream) Layout() string {
	switch {
	case s.opt.Layout == LayoutSparse:
		return LayoutSparse
	case s.opt.Layout == LayoutDense || s.format != "libsvm":
		return LayoutDense
	case s.rows < 0 && s.d >= sparseMinD, s.rows >= 0 && SparseLayout(s.rows, s.d, int(min(s.nnz, math.MaxInt))):
		return LayoutSparse
	}
	return LayoutDense
}

// chunk returns the chunk to take rows from, at s.pos, with rows left,
// starting the parsing ahead on the first call; io.EOF at the end.
func (s *Stream) chunk() (*chunk, error) {
	if s.br == nil {
		return nil, fmt.Errorf("data: %s: stream closed", s.path)
	}
	if s.p == nil {
		d, name := s.d, s.path
		lay := s.csvLayout()
		var hint atomic.Int64
		if s.format == "libsvm" {
			s.p = startPipeline(s.br, func(c *chunk) { parseLIBSVMChunk(c, name, d, &hint, maxDenseValues) })
		} else {
			s.p = startPipeline(s.br, func(c *chunk) { parseCSVChunk(c, lay) })
		}
	}
	for {
		c := s.cur
		if c != nil && s.pos < len(c.y) {
			return c, nil
		}
		if c != nil {
			s.p.recycle(c)
			s.cur = nil
		}
		c, ok := s.p.next()
		if !ok {
			if s.p.rerr != nil {
				return nil, s.p.readError(s.path)
			}
			return nil, io.EOF
		}
		if s.format == "libsvm" && s.kind == noRow {
			s.kind = c.kind
			s.unlabelled = s.kind == unlabelled
		}
		if s.format == "libsvm" && c.kind != noRow && c.kind != s.kind && (c.err == nil || c.kindLine < c.errLine) {
			s.p.release(c)
			return nil, fmt.Errorf("data: %s:%d: %v", s.path, c.kindLine, mixedErr(c.kind, 0))
		}
		if c.err != nil {
			err := c.err
			if errors.Is(err, errSlowPath) {
				err = s.csvChunkError(c)
			}
			s.p.release(c)
			return nil, err
		}
		if err := s.labels(c); err != nil {
			s.p.release(c)
			return nil, err
		}
		if s.index || s.empty != nil {
			if err := s.dropColumns(c); err != nil {
				s.p.release(c)
				return nil, err
			}
		}
		s.p.release(c)
		s.cur, s.pos = c, 0
	}
}

// labels sets the labels of the rows of a parsed chunk: NaN without
// labels, the codes of names (see LabelNames).
func (s *Stream) labels(c *chunk) error {
	q := 0 // the next of c.ynames
	for r, v := range c.y {
		switch {
		case s.unlabelled:
			c.y[r] = math.NaN()
			continue
		case s.format == "libsvm":
			continue
		}
		name := ""
		if v != v {
			name, q = c.ynames[q], q+1
		}
		if s.nLabels == 0 {
			s.byName = name != ""
		}
		s.nLabels++
		switch {
		case s.byName && name == "":
			c.y[r] = s.names.code(numberName(v))
		case s.byName:
			if !utf8.ValidString(name) {
				return textError(fmt.Sprintf("%s:%d", s.path, s.rowLine(c, r)), "label", name)
			}
			c.y[r] = s.names.code(name)
		case name != "":
			line := s.rowLine(c, r)
			return fmt.Errorf("data: %s:%d: label %s is a class name, while the labels before it are numbers (a stream's first label tells which)", s.path, line, Quote(name))
		}
	}
	return nil
}

// rowLine returns the line (from 1) of row r of a parsed chunk: the
// header, if any, is in the first chunk's lines but not among its rows.
func (s *Stream) rowLine(c *chunk, r int) int {
	line := c.line + r + 1
	if c.line == 0 && s.header {
		line++
	}
	return line
}

// sparseRow returns the nonzeros of row r of a chunk parsed into sparse
// rows.
func (c *chunk) sparseRow(r int) (idx []int32, val []float32) {
	start := 0
	if r > 0 {
		start = c.rowEnd[r-1]
	}
	return c.idx[start:c.rowEnd[r]], c.val[start:c.rowEnd[r]]
}

// csvLayout is the layout the stream's CSV lines are parsed in.
func (s *Stream) csvLayout() csvLayout {
	return csvLayout{comma: s.comma, roles: s.roles, header: s.header, names: true, empty: s.empty}
}

// csvChunkError finds the first line of c off the fast path and returns
// its error.
func (s *Stream) csvChunkError(c *chunk) error {
	lay := s.csvLayout()
	row := make([]float32, s.roles.d)
	rest := c.buf
	for k := range c.lines {
		var line []byte
		line, rest = nextLine(rest)
		if c.line+k == 0 && s.header {
			continue
		}
		if _, _, _, ok := csvFastLine(line, lay, row); !ok {
			s.line = c.line + k + 1
			if err := s.emptyHeld(line); err != nil {
				return err
			}
			return s.lineError(line)
		}
	}
	return fmt.Errorf("data: %s:%d: the chunk cannot be streamed", s.path, c.line+1)
}

// emptyHeld returns the error of a line (the stream's s.line) that holds
// a value in a column the stream left out as empty in every row before it
// (Open, which sees every row, would keep the column), or nil.
func (s *Stream) emptyHeld(line []byte) error {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if s.empty == nil || bytes.IndexByte(line, '"') >= 0 {
		return nil
	}
	fields := bytes.Split(line, []byte{s.comma})
	if len(fields) != s.roles.nf {
		return nil
	}
	for j, f := range fields {
		if k := s.roles.feature[j]; k >= 0 && s.empty[k] && len(trimSpace(f)) > 0 {
			return fmt.Errorf("data: %s:%d: %s was empty in every row before this one (left out of the features, as a separator at the end of every line makes) but holds %s here: read the file whole (not as a stream), which fills the rows it is empty in with FillMissing (--fill-missing)",
				s.path, s.line, s.roles.unnamedOr(k), Quote(string(trimSpace(f))))
		}
	}
	return nil
}

// lineError words the error of a line off the fast path as the sequential
// reader words it, with the line's number in the file.
func (s *Stream) lineError(line []byte) error {
	text := append(append([]byte{}, line...), '\n')
	var err error
	if s.format == "libsvm" {
		_, err = ReadLIBSVM(bytes.NewReader(text), s.path, s.opt.Dim)
	} else {
		// The header, then the line, so that the layout is the file's.
		opt := s.opt.CSV
		opt.Header = HeaderNo
		hdr := ""
		if s.header {
			hdr, opt.Header = s.headerL+"\n", HeaderYes
		}
		if s.roles.labelCol >= 0 && opt.LabelCol == LabelAuto {
			opt.LabelCol = s.roles.labelCol
			if opt.LabelCol == 0 {
				opt.LabelCol = LabelFirst
			}
		}
		if opt.Columns == nil {
			if err := s.notNumbers(hdr+string(text), opt); err != nil {
				return err
			}
			opt.Columns = s.Columns() // numbers: a text is an error
			if !distinctNames(opt.Columns) {
				for k := range opt.Columns {
					opt.Columns[k].Name = "" // by position
				}
			}
		}
		if opt.Columns == nil {
			opt.Columns = make([]Column, s.d)
		}
		_, err = ReadCSV(strings.NewReader(hdr+string(text)), s.path, opt)
	}
	if err == nil {
		return fmt.Errorf("data: %s:%d: the line cannot be streamed (quoted fields); convert the file or read it whole", s.path, s.line)
	}
	var me *MissingValueError
	if errors.As(err, &me) {
		e := *me
		e.File, e.Line = s.path, s.line
		return fmt.Errorf("%v: a stream reads every row's numbers; read the file whole (not as a stream) to fill missing values with FillMissing (--fill-missing)", &e)
	}
	msg := err.Error()
	for _, p := range []string{s.path + ":1: ", s.path + ":2: ", s.path + ": "} {
		if i := strings.Index(msg, p); i >= 0 {
			return errmsg.Reword(fmt.Sprintf("data: %s:%d: %s", s.path, s.line, msg[i+len(p):]), err)
		}
	}
	return errmsg.Reword(fmt.Sprintf("data: %s:%d: %s", s.path, s.line, strings.TrimPrefix(msg, "data: ")), err)
}

// distinctNames reports whether the columns but a pandas index have
// names, each its own: then they find their fields by name.
func distinctNames(cols []Column) bool {
	seen := map[string]bool{}
	for _, c := range cols {
		if c.RowIndex {
			continue
		}
		if c.Name == "" || seen[c.Name] {
			return false
		}
		seen[c.Name] = true
	}
	return true
}

// notNumbers returns the error of a training stream's line (after the
// header, in text) that Open would read with a column of dates or texts
// (categories), which a stream does not encode; nil otherwise.
func (s *Stream) notNumbers(text string, opt CSVOptions) error {
	ds, err := ReadCSV(strings.NewReader(text), s.path, opt)
	if err != nil {
		return nil
	}
	for k, c := range ds.Columns {
		name := fmt.Sprintf("column %d", k)
		if c.Name != "" {
			name = "column " + Quote(c.Name)
		}
		const whole = "a stream reads columns of numbers; read the file whole (not as a stream) to have columns of texts or dates as features"
		switch {
		case c.Empty:
			return fmt.Errorf("data: %s:%d: %s has no value: a stream reads every row's numbers; read the file whole (not as a stream), which leaves out a column empty in every row and fills missing values with FillMissing (--fill-missing)", s.path, s.line, s.roles.unnamedOr(k))
		case c.Dates != "":
			return fmt.Errorf("data: %s:%d: %s holds dates (%s): %s", s.path, s.line, name, c.Dates, whole)
		case c.Categories != nil:
			return fmt.Errorf("data: %s:%d: value %s in %s is not a number: %s", s.path, s.line, Quote(c.Categories[0]), name, whole)
		}
	}
	return nil
}

// stopParsing stops the parsing ahead, which reads the file.
func (s *Stream) stopParsing() {
	if s.p != nil {
		s.p.close()
		s.p, s.cur = nil, nil
	}
}

// Rewind goes back to the first row.
func (s *Stream) Rewind() error {
	if s.npy != nil {
		return s.npy.rewind()
	}
	s.stopParsing()
	s.indexNext = 0
	if s.rc == nil && s.f != nil {
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("data: %s: %w", s.path, err)
		}
		s.lr = newLineReader(s.f)
		s.lr.begin()
		s.br.Reset(s.text())
		s.line = 0
		return nil
	}
	s.Close()
	return s.open()
}

// Close releases the file.
func (s *Stream) Close() error {
	if s.npy != nil {
		return s.npy.close()
	}
	s.stopParsing()
	var err error
	if s.rc != nil {
		s.rc.Close()
		s.rc = nil
	}
	if s.f != nil {
		err = s.f.Close()
		s.f = nil
	}
	s.br = nil
	return err
}
