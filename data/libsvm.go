package data

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/internal/numparse"
)

// maxDenseValues bounds N×D for data read from sparse text, where a single
// large feature index would otherwise make the dense matrix arbitrarily
// large. 1<<30 float32 values are 4 GiB.
const maxDenseValues = 1 << 30

// ReadLIBSVM reads LIBSVM text: one point per line as
//
//	label index:value index:value ...
//
// with 1-based, strictly increasing feature indices; omitted features are 0.
// Text after '#' is a comment, a line of only a comment is skipped, an
// empty line is an error (svm-train refuses it; skipping it would shift the
// rows after it). Labels may be any finite number ("+1", "-1", "3", "0.5")
// in the syntax of internal/numparse (no "1_000", "0x1p3" or "inf"). Lines
// may start with a feature instead ("1:0.5 3:2"), rows without labels (Y
// nil), all lines alike. With dim > 0 the data set has exactly dim
// features and an index beyond dim is an error; with dim == 0 the width
// is the largest index present, at most MaxWidth of the text's size (else
// a *WidthError). Lines are at most MaxLineBytes long, a leading byte-order
// mark is dropped. Errors name the file (name), the line and the problem,
// and quote at most 80 characters of a value.
//
// Wide, sparse data (SparseLayout) are kept as sparse rows (Dataset.Sparse);
// ReadLIBSVMLayout chooses the layout.
func ReadLIBSVM(r io.Reader, name string, dim int) (*Dataset, error) {
	return readLIBSVM(r, name, dim, maxDenseValues, LayoutAuto)
}

// ReadLIBSVMLayout is ReadLIBSVM with the rows' layout given: LayoutAuto,
// LayoutDense or LayoutSparse.
func ReadLIBSVMLayout(r io.Reader, name string, dim int, layout string) (*Dataset, error) {
	if err := checkLayout(layout); err != nil {
		return nil, err
	}
	return readLIBSVM(r, name, dim, maxDenseValues, layout)
}

// checkLayout reports an unknown layout.
func checkLayout(layout string) error {
	switch layout {
	case LayoutAuto, LayoutDense, LayoutSparse:
		return nil
	}
	return fmt.Errorf("data: unknown layout %q (want dense or sparse)", layout)
}

// readLIBSVMSeq is the sequential reader, the reference for the parallel
// one (readLIBSVM): line by line, sparse, then dense.
func readLIBSVMSeq(r io.Reader, name string, dim, maxValues int, layout string) (*Dataset, error) {
	if dim < 0 {
		panic(fmt.Sprintf("data: ReadLIBSVM: negative dimension %d", dim))
	}
	lr := newLineReader(r)
	br := bufio.NewReaderSize(lr, 64<<10)
	var (
		y       []float64
		idx     []int32
		val     []float32
		rowEnd  []int
		maxIdx  int
		maxLine int
		kind    rowKind
		kline   int
		size    int64
	)
	set := func(j int, v float32) {
		if v != 0 {
			idx = append(idx, int32(j-1))
			val = append(val, v)
		}
	}
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadString('\n')
		size += int64(len(line))
		if rerr != nil && rerr != io.EOF {
			return nil, readErr(name, lineNo, rerr)
		}
		if line == "" && rerr == io.EOF {
			break
		}
		lab, k, m, err := libsvmLine(line, dim, set)
		if err != nil {
			return nil, fmt.Errorf("data: %s:%d: %v", name, lineNo, err)
		}
		switch {
		case k == noRow:
		case kind == noRow:
			kind, kline = k, lineNo
		case k != kind:
			return nil, fmt.Errorf("data: %s:%d: %v", name, lineNo, mixedErr(k, kline))
		}
		if k != noRow {
			y = append(y, lab)
			rowEnd = append(rowEnd, len(idx))
			if m > maxIdx {
				maxIdx, maxLine = m, lineNo
			}
		}
		if rerr == io.EOF {
			break
		}
	}
	n := len(y)
	d, err := libsvmWidth(name, n, dim, maxIdx, maxLine, size)
	if err != nil {
		return nil, err
	}
	if kind == unlabelled {
		y = nil
	}
	sparse, err := chooseLayout(name, layout, n, d, len(val), maxValues, size)
	if err != nil {
		return nil, err
	}
	if sparse {
		m := &CSR{Ptr: make([]int64, n+1), Idx: idx, Val: val}
		for i, end := range rowEnd {
			m.Ptr[i+1] = int64(end)
		}
		return &Dataset{Sparse: m, Y: y, N: n, D: d}, nil
	}
	x := make([]float32, n*d)
	start := 0
	for i, end := range rowEnd {
		row := x[i*d : (i+1)*d]
		for k := start; k < end; k++ {
			row[idx[k]] = val[k]
		}
		start = end
	}
	return &Dataset{X: x, Y: y, N: n, D: d}, nil
}

// chooseLayout decides whether n rows of width d with nnz nonzeros, read
// from inputBytes of text, are kept sparse: as layout asks, LayoutAuto as
// SparseLayout says or when their dense form would exceed maxValues or
// MemoryBudget(inputBytes) (a width that dwarfs the nonzeros). LayoutDense
// holds at most maxValues values (an error beyond).
func chooseLayout(name, layout string, n, d, nnz, maxValues int, inputBytes int64) (bool, error) {
	switch {
	case layout == LayoutSparse:
		return true, nil
	case layout == LayoutAuto:
		return n > maxValues/d || 4*int64(n)*int64(d) > MemoryBudget(inputBytes) || SparseLayout(n, d, nnz), nil
	case n > maxValues/d:
		return false, fmt.Errorf("data: %s: %d rows × %d features is more than the %d values a dense data set may hold (sparse rows would hold them: read with the sparse layout)", name, n, d, maxValues)
	}
	return false, nil
}

// libsvmWidth checks that data were read and returns their width: dim,
// or else the largest index maxIdx (met on line maxLine), within
// MaxWidth(inputBytes).
func libsvmWidth(name string, n, dim, maxIdx, maxLine int, inputBytes int64) (int, error) {
	if n == 0 {
		return 0, fmt.Errorf("data: %s: no data rows", name)
	}
	if dim > 0 {
		return dim, nil
	}
	if maxIdx == 0 {
		return 0, &WidthError{Name: name, What: fmt.Sprintf("no feature index in %d rows", n)}
	}
	return maxIdx, checkWidth(name, maxLine, maxIdx, inputBytes, fmt.Sprintf("feature index %d", maxIdx))
}

// rowKind is what a line of LIBSVM text holds.
type rowKind int8

const (
	noRow      rowKind = iota // a comment
	labelled                  // a label and features
	unlabelled                // features alone ("1:0.5 3:2"), to be scored
)

// has says what a line of the kind holds, in a message.
func (k rowKind) has() string {
	if k == unlabelled {
		return "has no label"
	}
	return "starts with a label"
}

// mixedErr is the error of a line of another kind than the first row's.
func mixedErr(k rowKind, firstLine int) error {
	if firstLine == 0 {
		return fmt.Errorf("the line %s, unlike the rows before it: the lines have a label each, or none does", k.has())
	}
	return fmt.Errorf("the line %s, but line %d %s: the lines have a label each, or none does", k.has(), firstLine, (3 - k).has())
}

// errBlankLine is the error of a line of blanks: svm-train refuses it,
// and skipping it would shift every row after it (predictions no longer
// line up with the lines).
var errBlankLine = errors.New("an empty line; every line holds a row, or a '#' comment")

// libsvmLine parses one line of LIBSVM text (with or without its newline):
// the reference for every reader. It calls set with every feature (1-based
// index j, value v, zeros included) and returns the label (0 for a line
// without one), the kind of the line, the largest index, or the problem
// (to be prefixed with the file and line).
func libsvmLine(line string, dim int, set func(j int, v float32)) (label float64, kind rowKind, maxIdx int, err error) {
	comment := false
	if k := strings.IndexByte(line, '#'); k >= 0 {
		line, comment = line[:k], true
	}
	fail := func(format string, args ...any) (float64, rowKind, int, error) {
		return 0, noRow, 0, fmt.Errorf(format, args...)
	}
	prev := 0
	for rest := line; ; {
		tok := ""
		tok, rest = nextField(rest)
		if tok == "" {
			break
		}
		if kind == noRow && !strings.Contains(tok, ":") {
			kind = labelled
			lab, err := numparse.String64(tok)
			switch {
			case errors.Is(err, numparse.ErrNotFinite), errors.Is(err, numparse.ErrRange):
				return fail("label %s is not finite", Quote(tok))
			case err != nil:
				return fail("label %s is not a number", Quote(tok))
			}
			label = lab
			continue
		}
		if kind == noRow {
			kind = unlabelled
		}
		c := strings.IndexByte(tok, ':')
		if c < 0 {
			return fail("%s is not index:value", Quote(tok))
		}
		is, vs := tok[:c], tok[c+1:]
		j, ok := parseIndex(is)
		switch {
		case !ok:
			return fail("feature index %s is not a number of digits", Quote(is))
		case j == 0:
			return fail("feature index 0, indices are 1-based (a file of 0-based indices, as XGBoost or scikit-learn's zero_based=True write, needs 1 added to each)")
		case j <= prev:
			return fail("feature index %d after %d, indices must increase", j, prev)
		case dim > 0 && j > dim:
			return fail("feature index %d exceeds the dimension %d", j, dim)
		case j > math.MaxInt32:
			return fail("feature index %s is too large (at most %d)", Quote(is), math.MaxInt32)
		}
		prev = j
		v, err := numparse.String32(vs)
		switch {
		case errors.Is(err, numparse.ErrRange):
			return fail("value %s of feature %d is out of float32 range", Quote(vs), j)
		case errors.Is(err, numparse.ErrNotFinite):
			return fail("value %s of feature %d is not finite", Quote(vs), j)
		case err != nil:
			return fail("value %s of feature %d is not a number", Quote(vs), j)
		}
		set(j, v)
	}
	if kind == noRow && !comment {
		return fail("%v", errBlankLine)
	}
	return label, kind, prev, nil
}

// parseIndex parses a feature index of plain digits; false when it is not
// one, or beyond 2⁶².
func parseIndex(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	j := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if j > 1<<62/10 {
			j = math.MaxInt32 + 1 // too large, but a number
			continue
		}
		j = 10*j + int(c-'0')
	}
	return j, true
}

// nextField splits off the first field of s separated by blanks (space, tab,
// carriage return, newline, vertical tab, form feed).
func nextField(s string) (field, rest string) {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isBlank(s[j]) {
		j++
	}
	return s[i:j], s[j:]
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// WriteLIBSVM writes d as LIBSVM text, omitting zero features. Labels are
// written in their shortest exact float64 form and feature values in their
// shortest exact float32 form, so ReadLIBSVM with dim = d.D gives back the
// same X and Y. Rows without labels (Y nil) are lines of features alone
// ("1:0" for a row of zeros). Sparse rows are written as they are; sample weights (W)
// are not written, LIBSVM text having no place for them (Save refuses
// them).
func WriteLIBSVM(w io.Writer, d *Dataset) error {
	checkLens(d)
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for i := 0; i < d.N; i++ {
		buf = buf[:0]
		if d.Y != nil {
			buf = strconv.AppendFloat(buf, d.Y[i], 'g', -1, 64)
		}
		for j, v := range d.Vec(i).Nonzeros() {
			if len(buf) > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendInt(buf, int64(j+1), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, float64(v), 'g', -1, 32)
		}
		if len(buf) == 0 {
			buf = append(buf, "1:0"...) // a row of zeros without a label
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("data: writing LIBSVM: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("data: writing LIBSVM: %w", err)
	}
	return nil
}

// checkLens panics when the slices of d disagree with N and D.
func checkLens(d *Dataset) {
	if d.Sparse != nil {
		if d.Sparse.Rows() != d.N || d.Y != nil && len(d.Y) != d.N {
			panic(fmt.Sprintf("data: inconsistent data set: N=%d, %d sparse rows, len(Y)=%d", d.N, d.Sparse.Rows(), len(d.Y)))
		}
		return
	}
	if d.N < 0 || d.D < 0 || len(d.X) != d.N*d.D || d.Y != nil && len(d.Y) != d.N {
		panic(fmt.Sprintf("data: inconsistent data set: N=%d D=%d len(X)=%d len(Y)=%d", d.N, d.D, len(d.X), len(d.Y)))
	}
}
