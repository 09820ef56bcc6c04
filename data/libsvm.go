package data

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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
// Text after '#' is a comment; blank lines are skipped. Labels may be any
// finite number ("+1", "-1", "3", "0.5"). With dim > 0 the data set has
// exactly dim features and an index beyond dim is an error; with dim == 0 the
// width is the largest index present. Errors name the file (name), the line
// and the problem.
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

// sparseRows decides the layout of n rows of width d with nnz nonzeros.
func sparseRows(layout string, n, d, nnz int) bool {
	switch layout {
	case LayoutSparse:
		return true
	case LayoutDense:
		return false
	}
	return SparseLayout(n, d, nnz)
}

// readLIBSVMSeq is the sequential reader, the reference for the parallel
// one (readLIBSVM): line by line, sparse, then dense.
func readLIBSVMSeq(r io.Reader, name string, dim, maxValues int, layout string) (*Dataset, error) {
	if dim < 0 {
		panic(fmt.Sprintf("data: ReadLIBSVM: negative dimension %d", dim))
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		y      []float64
		idx    []int32
		val    []float32
		rowEnd []int
		maxIdx int
	)
	set := func(j int, v float32) {
		if v != 0 {
			idx = append(idx, int32(j-1))
			val = append(val, v)
		}
	}
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadString('\n')
		if rerr != nil && rerr != io.EOF {
			return nil, fmt.Errorf("data: %s:%d: %w", name, lineNo, rerr)
		}
		if line == "" && rerr == io.EOF {
			break
		}
		lab, data, m, err := libsvmLine(line, dim, set)
		if err != nil {
			return nil, fmt.Errorf("data: %s:%d: %v", name, lineNo, err)
		}
		if data {
			y = append(y, lab)
			rowEnd = append(rowEnd, len(idx))
			maxIdx = max(maxIdx, m)
		}
		if rerr == io.EOF {
			break
		}
	}
	n := len(y)
	d, err := libsvmWidth(name, n, dim, maxIdx)
	if err != nil {
		return nil, err
	}
	if sparseRows(layout, n, d, len(val)) {
		m := &CSR{Ptr: make([]int64, n+1), Idx: idx, Val: val}
		for i, end := range rowEnd {
			m.Ptr[i+1] = int64(end)
		}
		return &Dataset{Sparse: m, Y: y, N: n, D: d}, nil
	}
	if err := denseFits(name, n, d, maxValues); err != nil {
		return nil, err
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

// denseFits reports n rows of width d that dense rows cannot hold.
func denseFits(name string, n, d, maxValues int) error {
	if n > maxValues/d {
		return fmt.Errorf("data: %s: %d rows × %d features is more than the %d values a dense data set may hold (sparse rows would hold them: read with the sparse layout)", name, n, d, maxValues)
	}
	return nil
}

// libsvmWidth checks that data were read and returns their width.
func libsvmWidth(name string, n, dim, maxIdx int) (int, error) {
	if n == 0 {
		return 0, fmt.Errorf("data: %s: no data rows", name)
	}
	d := dim
	if d == 0 {
		d = maxIdx
	}
	if d == 0 {
		return 0, fmt.Errorf("data: %s: no feature indices in %d rows; give the dimension explicitly", name, n)
	}
	return d, nil
}

// libsvmLine parses one line of LIBSVM text (with or without its newline):
// the reference for every reader. It calls set with every feature (1-based
// index j, value v, zeros included) and returns the label, whether the
// line holds a point (not blank or a comment), the largest index, or the
// problem (to be prefixed with the file and line).
func libsvmLine(line string, dim int, set func(j int, v float32)) (label float64, data bool, maxIdx int, err error) {
	if k := strings.IndexByte(line, '#'); k >= 0 {
		line = line[:k]
	}
	fail := func(format string, args ...any) (float64, bool, int, error) {
		return 0, false, 0, fmt.Errorf(format, args...)
	}
	first := true
	prev := 0
	for rest := line; ; {
		tok := ""
		tok, rest = nextField(rest)
		if tok == "" {
			break
		}
		if first {
			first = false
			lab, err := strconv.ParseFloat(tok, 64)
			if err != nil {
				if strings.Contains(tok, ":") {
					return fail("missing label: the line starts with %q", tok)
				}
				return fail("label %q is not a number", tok)
			}
			if math.IsNaN(lab) || math.IsInf(lab, 0) {
				return fail("label %q is not finite", tok)
			}
			label = lab
			continue
		}
		c := strings.IndexByte(tok, ':')
		if c < 0 {
			return fail("%q is not index:value", tok)
		}
		is, vs := tok[:c], tok[c+1:]
		j, err := strconv.Atoi(is)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return fail("feature index %s is too large", is)
			}
			return fail("feature index %q is not an integer", is)
		}
		switch {
		case j <= 0:
			return fail("feature index %d, indices are 1-based", j)
		case j <= prev:
			return fail("feature index %d after %d, indices must increase", j, prev)
		case dim > 0 && j > dim:
			return fail("feature index %d exceeds the dimension %d", j, dim)
		case j > math.MaxInt32:
			return fail("feature index %d is too large", j)
		}
		prev = j
		v, err := strconv.ParseFloat(vs, 32)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return fail("value %q of feature %d is out of float32 range", vs, j)
			}
			return fail("value %q of feature %d is not a number", vs, j)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fail("value %q of feature %d is not finite", vs, j)
		}
		set(j, float32(v))
	}
	return label, !first, prev, nil
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
// same X and Y. Sparse rows are written as they are; sample weights (W)
// are not written, LIBSVM text having no place for them (Save refuses
// them).
func WriteLIBSVM(w io.Writer, d *Dataset) error {
	checkLens(d)
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for i := 0; i < d.N; i++ {
		buf = strconv.AppendFloat(buf[:0], d.Y[i], 'g', -1, 64)
		r := d.Vec(i)
		for k, v := range r.Val {
			if v == 0 {
				continue
			}
			j := k
			if r.Idx != nil {
				j = int(r.Idx[k])
			}
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, float64(v), 'g', -1, 32)
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
		if d.Sparse.Rows() != d.N || len(d.Y) != d.N {
			panic(fmt.Sprintf("data: inconsistent data set: N=%d, %d sparse rows, len(Y)=%d", d.N, d.Sparse.Rows(), len(d.Y)))
		}
		return
	}
	if d.N < 0 || d.D < 0 || len(d.X) != d.N*d.D || len(d.Y) != d.N {
		panic(fmt.Sprintf("data: inconsistent data set: N=%d D=%d len(X)=%d len(Y)=%d", d.N, d.D, len(d.X), len(d.Y)))
	}
}
