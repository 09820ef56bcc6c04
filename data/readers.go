package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// readLIBSVM is ReadLIBSVM with a bound on the dense size: the stream is
// parsed in parallel (see chunked.go), lines off the fast path by
// libsvmLine, so that the data and the errors are readLIBSVMSeq's.
func readLIBSVM(r io.Reader, name string, dim, maxValues int, layout string) (*Dataset, error) {
	if dim < 0 {
		panic(fmt.Sprintf("data: ReadLIBSVM: negative dimension %d", dim))
	}
	lr := newLineReader(r)
	var hint atomic.Int64
	sink := &rowSink{d: dim, maxValues: maxValues}
	defer sink.free()
	// The rows are gathered dense (sink) and sparse (sp) until the layout
	// is clear: dense once narrow, dense rows are seen (sp is dropped),
	// sparse once wide, sparse rows are (the sink is dropped), or once
	// the dense rows outgrow the memory budget.
	var sp *csrBuilder
	if layout != LayoutDense {
		sp = &csrBuilder{}
	}
	if layout == LayoutSparse {
		sink.drop()
	}
	p := startPipeline(lr, func(c *chunk) { parseLIBSVMChunk(c, name, dim, &hint, maxValues) })
	defer p.close()
	maxIdx, maxLine := 0, 0
	var kind rowKind
	kline := 0
	for {
		c, ok := p.next()
		if !ok {
			break
		}
		p.release(c)
		if kind != noRow && c.kind != noRow && c.kind != kind && (c.err == nil || c.kindLine < c.errLine) {
			return nil, fmt.Errorf("data: %s:%d: %v", name, c.kindLine, mixedErr(c.kind, kline))
		}
		if c.err != nil {
			if c.mixed && kind != noRow {
				// The rows before the chunk are of its first row's kind:
				// name the file's first, as the sequential reader does.
				return nil, fmt.Errorf("data: %s:%d: %v", name, c.errLine, mixedErr(unlabelled+labelled-c.kind, kline))
			}
			return nil, c.err
		}
		if kind == noRow {
			kind, kline = c.kind, c.kindLine
		}
		if dim == 0 && c.maxIdx > sink.d {
			sink.widen(c.maxIdx)
		}
		if c.maxIdx > maxIdx {
			maxIdx, maxLine = c.maxIdx, c.maxLine
		}
		if layout == LayoutAuto && !sink.full && 4*int64(sink.n+len(c.y))*int64(max(sink.d, 1)) > MemoryBudget(lr.total) {
			// Dense rows beyond the budget: sparse ones.
			if sp == nil {
				sp = sink.csr()
			}
			sink.drop()
		}
		if sp != nil {
			// Decided before the chunk's rows are placed dense: a first
			// chunk of wide rows would fill gigabytes.
			sp.place(c)
			n, w := len(sp.m.Ptr)-1, max(dim, maxIdx)
			enough := n >= 1000 || int64(n)*int64(w) >= maxBlockValues
			switch {
			case layout == LayoutAuto && !sink.full && enough && w < sparseMinD && sp.m.NNZ() > n*w/2:
				sp = nil
			case layout == LayoutAuto && !sink.full && enough && SparseLayout(n, w, sp.m.NNZ()):
				sink.drop()
			}
		}
		sink.place(c)
		p.recycle(c)
	}
	if p.rerr != nil {
		return nil, p.readError(name)
	}
	p.close() // the buffers go before the rows are copied
	d, err := libsvmWidth(name, sink.n, dim, maxIdx, maxLine, lr.total)
	if err != nil {
		return nil, err
	}
	nnz := 0
	if sp != nil {
		nnz = sp.m.NNZ()
	}
	sparse, err := chooseLayout(name, layout, sink.n, d, nnz, maxValues, lr.total)
	if err != nil {
		return nil, err
	}
	var ds *Dataset
	switch {
	case sparse && sp == nil:
		m := sink.csr()
		ds = &Dataset{Sparse: &m.m, Y: sink.labels(), N: sink.n, D: d}
	case sparse:
		sink.drop()
		ds = &Dataset{Sparse: &sp.m, Y: sink.labels(), N: sink.n, D: d}
	case sink.full:
		// Dropped for sparse rows that turned out dense enough.
		y := sink.labels()
		ds = &Dataset{X: sp.m.Dense(d), Y: y, N: len(y), D: d}
	default:
		ds = sink.dataset(d)
	}
	if kind == unlabelled {
		ds.Y = nil
	}
	return ds, nil
}

// csrBuilder gathers the rows of parsed chunks as CSR rows.
type csrBuilder struct{ m CSR }

// place appends the rows of a parsed chunk (dense or sparse).
func (b *csrBuilder) place(c *chunk) {
	if b.m.Ptr == nil {
		b.m.Ptr = []int64{0}
	}
	start := 0
	for r := range c.y {
		if c.x == nil {
			end := c.rowEnd[r]
			b.m.Idx = append(b.m.Idx, c.idx[start:end]...)
			b.m.Val = append(b.m.Val, c.val[start:end]...)
			b.m.Ptr = append(b.m.Ptr, int64(len(b.m.Val)))
			start = end
		} else {
			b.appendDense(c.x[r*c.w : (r+1)*c.w])
		}
	}
}

// appendDense appends a dense row, its zeros left out.
func (b *csrBuilder) appendDense(x []float32) {
	if b.m.Ptr == nil {
		b.m.Ptr = []int64{0}
	}
	for j, v := range x {
		if v != 0 {
			b.m.Idx = append(b.m.Idx, int32(j))
			b.m.Val = append(b.m.Val, v)
		}
	}
	b.m.Ptr = append(b.m.Ptr, int64(len(b.m.Val)))
}

// maxBlockValues bounds the dense block of a chunk (64 MB).
const maxBlockValues = 1 << 24

// parseLIBSVMChunk parses the lines of c into a dense block as wide as the
// widest row so far (hint: the widest row of the chunks parsed before), or
// into sparse rows when a dense block would hold more than maxBlockValues
// or maxValues values (wide, sparse data). It records the kind of the
// chunk's first row, and stops at a row of another kind.
func parseLIBSVMChunk(c *chunk, name string, dim int, hint *atomic.Int64, maxValues int) {
	w := dim
	if w == 0 {
		w = max(1, int(hint.Load()))
	}
	sparse := false
	alloc := func(w int) bool {
		if c.lines > min(maxValues, maxBlockValues)/w {
			return false
		}
		c.x = c.p.block(c.lines * w)
		c.w = w
		return true
	}
	if !alloc(w) {
		sparse = true
	}
	c.y = c.p.labels(c.lines)
	setSparse := func(j int, v float32) {
		if v != 0 {
			c.idx = append(c.idx, int32(j-1))
			c.val = append(c.val, v)
		}
	}
	fail := func(line int, err error) {
		c.err, c.errLine = fmt.Errorf("data: %s:%d: %v", name, line, err), line
	}
	// row adds a row of the kind k, false at one of another kind.
	row := func(line int, k rowKind, m int) bool {
		switch {
		case c.kind == noRow:
			c.kind, c.kindLine = k, line
		case k != c.kind:
			fail(line, mixedErr(k, c.kindLine))
			c.mixed = true
			return false
		}
		if m > c.maxIdx {
			c.maxIdx, c.maxLine = m, line
		}
		return true
	}
	rest := c.buf
	for k := 0; k < c.lines; {
		line, next := nextLine(rest)
		lineNo := c.line + k + 1
		if sparse {
			lab, kind, m, err := libsvmLine(string(line), dim, setSparse)
			if err != nil {
				fail(lineNo, err)
				return
			}
			if kind != noRow {
				if !row(lineNo, kind, m) {
					return
				}
				c.y = append(c.y, lab)
				c.rowEnd = append(c.rowEnd, len(c.idx))
			}
			rest, k = next, k+1
			continue
		}
		r := len(c.y)
		dst := c.x[r*c.w : (r+1)*c.w]
		lab, kind, m, ok := parseLIBSVMLine(line, dst)
		if !ok || dim > 0 && m > dim {
			clear(dst)
			var err error
			lab, kind, m, err = libsvmLine(string(line), dim, func(j int, v float32) {
				if j <= len(dst) && v != 0 {
					dst[j-1] = v
				}
			})
			if err != nil {
				fail(lineNo, err)
				return
			}
		}
		if kind != noRow && m > c.w {
			// Wider than the block: widen it (or go sparse), then read
			// the line again.
			old, ow := c.x, c.w
			clear(dst)
			if alloc(max(m, ow+ow/2)) {
				for q := range r {
					copy(c.x[q*c.w:q*c.w+ow], old[q*ow:(q+1)*ow])
				}
			} else {
				sparse = true
				c.x = nil
				for q := range r {
					for j, v := range old[q*ow : (q+1)*ow] {
						setSparse(j+1, v)
					}
					c.rowEnd = append(c.rowEnd, len(c.idx))
				}
			}
			continue
		}
		if kind != noRow {
			if !row(lineNo, kind, m) {
				return
			}
			c.y = append(c.y, lab)
		}
		rest, k = next, k+1
	}
	for {
		h := hint.Load()
		if int64(c.maxIdx) <= h || hint.CompareAndSwap(h, int64(c.maxIdx)) {
			break
		}
	}
}

// ReadCSV reads delimited text with one point per record: every field is a
// number, one of them (opt.LabelCol) the label, the others the features in
// column order. Quoted fields are allowed; every record must have the same
// number of fields, and no line is empty. Errors name the file (name), the
// line and the problem. See CSVOptions for the columns of a model, and
// Dataset for rows without labels.
//
// A text column with more categories than half of MemoryBudget of the
// file's size can expand (the 0/1 features of n rows take 4n bytes a
// category) keeps
// its most frequent ones and groups the others as one (Column.Other),
// which Dataset.Notices tells.
//
// The text is parsed in parallel over line-aligned chunks; from the first
// chunk with a quoted field or a line off the fast path on, the sequential
// reader (encoding/csv) reads the rest.
//
// Text kept in the data (label names, column names, categories) must be
// UTF-8: other bytes are an error that says how to convert the file,
// rather than names a model would store and then fail to match.
func ReadCSV(r io.Reader, name string, opt CSVOptions) (*Dataset, error) {
	ds, err := readCSV(r, name, opt)
	if err == nil {
		err = checkText(name, ds)
	}
	if err != nil {
		return nil, err
	}
	return ds, nil
}

func readCSV(r io.Reader, name string, opt CSVOptions) (*Dataset, error) {
	if err := checkCSVOptions(name, opt); err != nil {
		return nil, err
	}
	lr := newLineReader(r)
	var src io.Reader = lr
	spaces := opt.Comma == Spaces
	if spaces {
		src, opt.Comma = newSpaceFields(lr), '\t'
	}
	// Room for a first line of up to 64 KB and the text after it that
	// decides whether it is a header (csvLayoutOf, isHeader).
	br := bufio.NewReaderSize(src, 64<<10+headerWindow)
	lay, ok := csvLayoutOf(br, opt, spaces)
	if !ok {
		t, err := readCSVSeq(br, name, opt, csvState{})
		return tableDataset(t, err, opt.Columns, lr.total)
	}
	roles := lay.roles
	sink := &rowSink{d: roles.d, maxValues: math.MaxInt, weighted: roles.weightCol >= 0}
	defer sink.free()
	// rest and prefix: what the sequential reader read after prefix rows
	// of numbers.
	var rest *csvTable
	var prefix int
	p := startPipeline(br, func(c *chunk) { parseCSVChunk(c, lay) })
	defer p.close()
	for {
		c, ok := p.next()
		if !ok {
			break
		}
		if c.err != nil {
			// The sequential reader reads from the start of this chunk.
			st := csvState{line0: c.line}
			if c.line > 0 {
				st.roles = roles
			}
			st.prior = sink.n // rows of numbers and labels: the fast path's
			t, err := readCSVSeq(p.rest(c), name, opt, st)
			switch {
			case err == nil && sink.n == 0:
				return tableDataset(t, nil, opt.Columns, lr.total)
			case err == nil:
				rest, prefix = t, sink.n
				sink.appendRows(t.x, t.y, t.w)
			case errors.Is(err, errNoRows) && sink.n > 0: // no rows after the chunks read
			default:
				return nil, err
			}
			break
		}
		p.release(c)
		sink.place(c)
		p.recycle(c)
	}
	if p.rerr != nil {
		return nil, p.readError(name)
	}
	if sink.n == 0 {
		return nil, fmt.Errorf("data: %s: %w", name, errNoRows)
	}
	p.close()
	ds := sink.dataset(sink.d)
	if roles.labelCol < 0 {
		ds.Y = nil
	}
	if err := finishTable(ds, prefix, rest, nil, roles, lr.total); err != nil {
		return nil, err
	}
	return ds, nil
}

// tableDataset is the data set of a whole file read by readCSVSeq with
// the given columns (CSVOptions.Columns), from inputBytes of text.
func tableDataset(t *csvTable, err error, cols []Column, inputBytes int64) (*Dataset, error) {
	if err != nil {
		return nil, err
	}
	ds := &Dataset{X: t.x, Y: t.y, W: t.w, N: len(t.y), D: t.d}
	if err := finishTable(ds, 0, t, cols, nil, inputBytes); err != nil {
		return nil, err
	}
	for i, vals := range t.kept {
		j := t.roles.keep[i]
		name := strconv.Itoa(j)
		if t.roles.header != nil {
			name = strings.TrimSpace(t.roles.header[j])
		}
		ds.Kept = append(ds.Kept, KeptColumn{Name: name, Values: vals})
	}
	return ds, nil
}

// csvLayout is what the first line of a CSV file says about the rest.
type csvLayout struct {
	comma  byte
	header bool
	roles  *csvRoles
	names  bool // a label may be a name (streams): NaN, its text in chunk.ynames
	// empty marks the feature columns that must be empty (a stream's
	// columns left out as empty in every row): their value is 0.
	empty []bool
}

// csvLayoutOf decides the layout from the first line of br (peeked, not
// consumed), as the sequential reader would, or reports false when the
// parallel reader must not be used: a separator that is not one plain
// byte, or a first line that is empty, long, quoted or not ASCII. A
// separator of white space is not one (the sequential reader trims it
// from the start of a field) unless spaces says the text is spaceFields'
// tabs, where no field is empty or starts with white space.
func csvLayoutOf(br *bufio.Reader, opt CSVOptions, spaces bool) (csvLayout, bool) {
	lay := csvLayout{comma: ','}
	if opt.Columns != nil || opt.Keep != nil {
		return lay, false
	}
	switch c := opt.Comma; {
	case c == 0:
	case c > 0 && c < 0x80 && c != '"' && c != '\n' && c != '\r' && (!isSpace(byte(c)) || spaces):
		lay.comma = byte(c)
	default:
		return lay, false
	}
	head, _ := br.Peek(64 << 10)
	i := bytes.IndexByte(head, '\n')
	if i < 0 {
		return lay, false
	}
	head, _ = br.Peek(i + 1 + headerWindow) // the first line and the text isHeader sees
	line := bytes.TrimSuffix(head[:i], []byte{'\r'})
	if len(line) == 0 || bytes.IndexByte(line, '"') >= 0 {
		return lay, false
	}
	for _, b := range line {
		if b >= 0x80 {
			return lay, false
		}
	}
	fields := bytes.Split(line, []byte{lay.comma})
	if len(fields) < 2 {
		return lay, false
	}
	lay.header = opt.Header == HeaderYes
	if opt.Header == HeaderAuto {
		for _, f := range fields {
			if _, ok := finite64(trimSpace(f)); !ok && isNumber(string(trimSpace(f))) {
				return lay, false // a number that is not finite: the sequential reader's error
			}
		}
		var plain bool
		if lay.header, plain = layoutAfter(fields, head[i+1:], opt); !plain {
			return lay, false
		}
	}
	var err error
	if lay.roles, err = csvRolesOf(opt, fieldStrings(fields), lay.header); err != nil {
		return lay, false // the sequential reader's error
	}
	return lay, true
}

// parseCSVChunk parses the lines of c into a dense block, or sets c.err
// to errSlowPath at the first line off the fast path.
func parseCSVChunk(c *chunk, lay csvLayout) {
	d := lay.roles.d
	c.x, c.w = c.p.block(c.lines*d), d
	c.y = c.p.labels(c.lines)
	c.wt, c.ynames = c.wt[:0], c.ynames[:0]
	rest := c.buf
	for k := 0; k < c.lines; k++ {
		var line []byte
		line, rest = nextLine(rest)
		if c.line+k == 0 && lay.header {
			continue
		}
		r := len(c.y)
		lab, wt, name, ok := csvFastLine(line, lay, c.x[r*d:(r+1)*d])
		if !ok {
			c.err = errSlowPath
			return
		}
		if name != nil {
			c.ynames = append(c.ynames, string(name))
		}
		c.y = append(c.y, lab)
		if lay.roles.weightCol >= 0 {
			c.wt = append(c.wt, wt)
		}
	}
}

// csvFastLine parses one line (without its newline) on the fast path:
// plain numbers, no quotes, the layout's number of fields. It returns the
// label (0 without one; NaN for a name, given then), the weight (if lay
// has a weight column), or false when the line is off the fast path (an
// empty line among them).
func csvFastLine(line []byte, lay csvLayout, row []float32) (label, weight float64, name []byte, ok bool) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) == 0 || bytes.IndexByte(line, '"') >= 0 {
		return 0, 0, nil, false
	}
	ro := lay.roles
	for j := 0; j < ro.nf; j++ {
		var fld []byte
		if i := bytes.IndexByte(line, lay.comma); i >= 0 {
			fld, line = line[:i], line[i+1:]
		} else if j == ro.nf-1 {
			fld, line = line, nil
		} else {
			return 0, 0, nil, false // too few fields
		}
		fld = trimSpace(fld)
		switch j {
		case ro.labelCol:
			v, ok := finite64(fld)
			switch {
			case ok:
				label = v
			case lay.names && len(fld) > 0 && !isMissing(string(fld)) && !isNumber(string(fld)):
				label, name = math.NaN(), fld
			default:
				return 0, 0, nil, false
			}
			continue
		case ro.weightCol:
			v, ok := finite64(fld)
			if !ok || v < 0 {
				return 0, 0, nil, false
			}
			weight = v
			continue
		}
		k := ro.feature[j]
		if k < 0 {
			continue
		}
		if lay.empty != nil && lay.empty[k] {
			if len(fld) > 0 {
				return 0, 0, nil, false
			}
			row[k] = 0
			continue
		}
		v, ok := finite32(fld)
		if !ok {
			return 0, 0, nil, false
		}
		row[k] = v
	}
	return label, weight, name, line == nil // nil: no more fields
}
