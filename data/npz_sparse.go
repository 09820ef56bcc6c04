package data

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// SciPy's sparse .npz, as scipy.sparse.save_npz writes it (numpy.savez or
// numpy.savez_compressed of a few arrays): format, a scalar of bytes
// (b'csr', b'csc', b'coo', …); shape, (rows, columns); data, the stored
// values; and indices and indptr (csr, csc) or row and col (coo). A csr
// matrix's row i holds data[indptr[i]:indptr[i+1]] at the columns
// indices[indptr[i]:indptr[i+1]] (csc: the same by columns), which SciPy
// need not keep sorted, nor free of duplicates (summed). scipy.sparse.
// load_npz ignores other arrays, so that the labels y and weights w ride
// along in the same archive.

// readSparseNPZ reads the SciPy sparse matrix in the arrays arr of the
// .npz at path (open as f), with its labels: the archive's array y, or
// else the .npy opt.Labels names.
func readSparseNPZ(f *os.File, arr map[string]*zip.File, path string, opt OpenOptions) (*Dataset, error) {
	z := npzFile{f: f, arr: arr, path: path}
	yf := npzArray(arr, "y", "Y")
	switch {
	case yf == nil && opt.Labels == "":
		return nil, fmt.Errorf("data: %s: a SciPy sparse matrix (scipy.sparse.save_npz) holds the features only; add its labels to the archive as an array y (numpy.savez(path, y=y, **arrays), or data.Save), or give a .npy of them (OpenOptions.Labels, nsvm's --labels)", path)
	case yf != nil && opt.Labels != "":
		return nil, fmt.Errorf("data: %s holds its labels y; a labels file (%s) is for a .npy of X or a SciPy sparse matrix saved without them", path, opt.Labels)
	}
	format, n, d, err := z.shape()
	if err != nil {
		return nil, err
	}
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	width := d
	switch {
	case opt.Dim > 0 && opt.Dim < d:
		return nil, fmt.Errorf("data: %s: the matrix has %d columns, more than the %d features asked for", path, d, opt.Dim)
	case opt.Dim > 0:
		width = opt.Dim
	default:
		if err := checkWidth(path, 0, d, size, fmt.Sprintf("the shape (%d, %d)", n, d)); err != nil {
			return nil, err
		}
	}
	// The labels, which are there, before allocating for the rows the
	// shape claims.
	ya, yc, err := npzLabels(f, yf, path, opt.Labels)
	if err != nil {
		return nil, err
	}
	y, err := ya.labels()
	yc.Close()
	if err != nil {
		return nil, err
	}
	if len(y) != n {
		return nil, fmt.Errorf("data: %s has %d labels for the %d rows of %s", ya.name, len(y), n, path)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("data: %s: label %d is %v; labels must be finite", ya.name, i, v)
		}
	}
	ds := &Dataset{Y: y, N: n, D: d}
	if ds.W, err = npzWeights(f, arr["w"], path, n); err != nil {
		return nil, err
	}
	m, err := z.matrix(format, n, d)
	if err != nil {
		return nil, err
	}
	ds.D = width
	sparse, err := chooseLayout(path, opt.Layout, n, width, m.NNZ(), maxDenseValues, max(size, m.Bytes()))
	if err != nil {
		return nil, err
	}
	if sparse {
		ds.Sparse = m
		return ds, nil
	}
	ds.X = m.Dense(width)
	return ds, nil
}

// npzFile is an open .npz archive and its arrays.
type npzFile struct {
	f    *os.File
	arr  map[string]*zip.File
	path string
}

// open opens the array name, which must be there.
func (z npzFile) open(name string, text bool) (*npyArray, io.Closer, error) {
	e := z.arr[name]
	if e == nil {
		return nil, nil, npyErr(z.path, "a SciPy sparse matrix needs an array %s, which the archive lacks", name)
	}
	return openNPZArray(z.f, e, z.path, text)
}

// shape reads the matrix's format and shape.
func (z npzFile) shape() (format string, n, d int, err error) {
	if format, err = z.format(); err != nil {
		return "", 0, 0, err
	}
	if format != "csr" && format != "csc" && format != "coo" {
		return "", 0, 0, npyErr(z.path, "SciPy sparse format %q; want csr, csc or coo (save the matrix's .tocsr())", format)
	}
	shape, err := npzInts[int64](z, "shape", 0, math.MaxInt64)
	if err != nil {
		return "", 0, 0, err
	}
	if len(shape) != 2 {
		return "", 0, 0, npyErr(z.path, "the matrix's shape %v has %d dimensions; want (rows, columns)", shape, len(shape))
	}
	n, d = int(shape[0]), int(shape[1])
	switch {
	case n == 0:
		return "", 0, 0, fmt.Errorf("data: %s: no data rows", z.path)
	case d == 0:
		return "", 0, 0, npyErr(z.path, "the matrix of shape (%d, 0) has no features", n)
	case n > math.MaxInt32 || d > math.MaxInt32:
		return "", 0, 0, npyErr(z.path, "the matrix of shape (%d, %d) is too large (at most 2³¹−1 rows and columns)", n, d)
	}
	return format, n, d, nil
}

// matrix reads the sparse matrix of the format and shape n×d as CSR rows,
// checked: in range, columns increasing within a row (sorted, duplicates
// summed), finite.
func (z npzFile) matrix(format string, n, d int) (*CSR, error) {
	data, err := z.values()
	if err != nil {
		return nil, err
	}
	var m *CSR
	nnz := int64(len(data))
	switch format {
	case "csr", "csc":
		outer, inner := n, d
		if format == "csc" {
			outer, inner = d, n
		}
		idx, err := npzInts[int32](z, "indices", 0, int64(inner)-1)
		if err != nil {
			return nil, err
		}
		if len(idx) != len(data) {
			return nil, npyErr(z.path, "%d indices for %d values; want one index a value", len(idx), len(data))
		}
		ptr, err := npzInts[int64](z, "indptr", 0, nnz)
		if err != nil {
			return nil, err
		}
		if err := z.checkPtr(ptr, outer, len(data)); err != nil {
			return nil, err
		}
		if format == "csr" {
			m = &CSR{Ptr: ptr, Idx: idx, Val: data}
		} else {
			m = transpose(ptr, idx, data, n)
		}
	case "coo":
		row, err := npzInts[int32](z, "row", 0, int64(n)-1)
		if err != nil {
			return nil, err
		}
		col, err := npzInts[int32](z, "col", 0, int64(d)-1)
		if err != nil {
			return nil, err
		}
		if len(row) != len(data) || len(col) != len(data) {
			return nil, npyErr(z.path, "%d rows, %d columns and %d values in a coo matrix; want one of each a value", len(row), len(col), len(data))
		}
		m = cooToCSR(row, col, data, n)
	default:
		panic("data: sparse format " + format)
	}
	m.canonical()
	if err := m.check(n, d); err != nil {
		return nil, fmt.Errorf("data: %s: %s", z.path, strings.TrimPrefix(err.Error(), "data: "))
	}
	return m, nil
}

// format reads the format array, a scalar of bytes or text.
func (z npzFile) format() (string, error) {
	a, c, err := z.open("format", true)
	if err != nil {
		return "", err
	}
	defer c.Close()
	h := a.h
	if (h.kind != 'S' && h.kind != 'U') || h.numElems != 1 {
		return "", npyErr(a.name, "the format is %s of shape %v; want a scalar of text such as b'csr'", h.dtype, h.shape)
	}
	b := make([]byte, h.size)
	if _, err := io.ReadFull(a.stream(), b); err != nil {
		return "", npyErr(a.name, "file truncated")
	}
	if h.kind == 'S' {
		return strings.TrimRight(string(b), "\x00"), nil
	}
	var s []byte
	for i := 0; i+4 <= len(b); i += 4 {
		if r := rune(binary.LittleEndian.Uint32(b[i:])); r != 0 {
			s = utf8.AppendRune(s, r)
		}
	}
	return string(s), nil
}

// values reads the data array, converted to float32.
func (z npzFile) values() ([]float32, error) {
	a, c, err := z.open("data", false)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if len(a.h.shape) != 1 {
		return nil, npyErr(a.name, "values of shape %v; want a one-dimensional array", a.h.shape)
	}
	return readNPYData[float32](a.stream(), a.h, a.name, a.f != nil)
}

// npzInts reads the one-dimensional integer array name of z, every
// element in [lo, hi] (within T's range).
func npzInts[T int32 | int64](z npzFile, name string, lo, hi int64) ([]T, error) {
	a, c, err := z.open(name, false)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	h := a.h
	switch {
	case h.kind != 'i' && h.kind != 'u':
		return nil, npyErr(a.name, "%s of dtype %q; want integers", name, h.dtype)
	case len(h.shape) != 1:
		return nil, npyErr(a.name, "%s of shape %v; want a one-dimensional array", name, h.shape)
	}
	var out []T
	if a.f != nil {
		out = make([]T, 0, h.numElems)
	}
	r := a.stream()
	const block = 1 << 16
	buf := make([]byte, block*h.size)
	for len(out) < h.numElems {
		k := min(h.numElems-len(out), block)
		if _, err := io.ReadFull(r, buf[:k*h.size]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, npyErr(a.name, "file truncated: %d of %d elements present", len(out), h.numElems)
			}
			return nil, fmt.Errorf("data: %s: %w", a.name, err)
		}
		base := len(out)
		out = slices.Grow(out, k)[:base+k]
		for i := range k {
			v, ok := decodeInt(buf[i*h.size:], h.kind, h.size)
			if !ok || v < lo || v > hi {
				return nil, npyErr(a.name, "%s[%d] = %s is outside [%d, %d]", name, base+i, intText(buf[i*h.size:], h.kind, h.size), lo, hi)
			}
			out[base+i] = T(v)
		}
	}
	return out, nil
}

// decodeInt decodes one little-endian integer of the dtype kind and size;
// false when it does not fit in an int64.
func decodeInt(b []byte, kind byte, size int) (int64, bool) {
	le := binary.LittleEndian
	switch size {
	case 1:
		if kind == 'i' {
			return int64(int8(b[0])), true
		}
		return int64(b[0]), true
	case 2:
		if kind == 'i' {
			return int64(int16(le.Uint16(b))), true
		}
		return int64(le.Uint16(b)), true
	case 4:
		if kind == 'i' {
			return int64(int32(le.Uint32(b))), true
		}
		return int64(le.Uint32(b)), true
	}
	u := le.Uint64(b)
	if kind == 'u' && u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// intText formats an integer decodeInt may not hold.
func intText(b []byte, kind byte, size int) string {
	if v, ok := decodeInt(b, kind, size); ok {
		return fmt.Sprint(v)
	}
	return fmt.Sprint(binary.LittleEndian.Uint64(b))
}

// checkPtr checks the pointers of a compressed matrix of outer rows (or
// columns) over nval values.
func (z npzFile) checkPtr(ptr []int64, outer, nval int) error {
	switch {
	case len(ptr) != outer+1:
		return npyErr(z.path, "indptr has %d pointers for %d rows (csr) or columns (csc); want %d", len(ptr), outer, outer+1)
	case ptr[0] != 0 || ptr[outer] != int64(nval):
		return npyErr(z.path, "indptr spans [%d, %d]; want [0, %d], the number of values", ptr[0], ptr[outer], nval)
	}
	for i := range outer {
		if ptr[i+1] < ptr[i] {
			return npyErr(z.path, "indptr decreases at %d (%d to %d)", i, ptr[i], ptr[i+1])
		}
	}
	return nil
}

// csrFor returns CSR rows of n rows with room for one value at each entry
// of rows (the row of each value, in [0, n)), their Ptr set and Idx and
// Val to fill, and next, the position in Idx and Val of each row's next
// value: its Ptr, to be advanced as the caller places the row's values.
func csrFor(rows []int32, n int) (m *CSR, next []int64) {
	m = &CSR{Ptr: make([]int64, n+1), Idx: make([]int32, len(rows)), Val: make([]float32, len(rows))}
	for _, r := range rows {
		m.Ptr[r+1]++
	}
	for i := range n {
		m.Ptr[i+1] += m.Ptr[i]
	}
	return m, slices.Clone(m.Ptr[:n])
}

// transpose returns the n rows of the compressed columns (ptr, idx, val)
// as CSR rows, columns increasing (repeats kept).
func transpose(ptr []int64, idx []int32, val []float32, n int) *CSR {
	m, next := csrFor(idx, n)
	for c := range len(ptr) - 1 {
		for k := ptr[c]; k < ptr[c+1]; k++ {
			r := idx[k]
			p := next[r]
			m.Idx[p], m.Val[p] = int32(c), val[k]
			next[r]++
		}
	}
	return m
}

// cooToCSR returns the n rows of the coordinates (row, col, val) as CSR
// rows, in the order given within a row.
func cooToCSR(row, col []int32, val []float32, n int) *CSR {
	m, next := csrFor(row, n)
	for k, r := range row {
		p := next[r]
		m.Idx[p], m.Val[p] = col[k], val[k]
		next[r]++
	}
	return m
}

// canonical sorts the columns of every row of m and sums repeated ones,
// as SciPy's sum_duplicates does, in place.
func (m *CSR) canonical() {
	out, a := int64(0), int64(0)
	for i := range m.Rows() {
		b := m.Ptr[i+1] // the row is [a, b) until compacted to [start, out)
		row := rowSorter{m.Idx[a:b], m.Val[a:b]}
		if !sort.IsSorted(row) {
			sort.Stable(row)
		}
		start := out
		for k := a; k < b; k++ {
			if out > start && m.Idx[out-1] == m.Idx[k] {
				m.Val[out-1] += m.Val[k]
				continue
			}
			m.Idx[out], m.Val[out] = m.Idx[k], m.Val[k]
			out++
		}
		m.Ptr[i+1] = out
		a = b
	}
	m.Idx, m.Val = m.Idx[:out], m.Val[:out]
}

// rowSorter sorts one row's nonzeros by column.
type rowSorter struct {
	idx []int32
	val []float32
}

func (r rowSorter) Len() int           { return len(r.idx) }
func (r rowSorter) Less(i, j int) bool { return r.idx[i] < r.idx[j] }
func (r rowSorter) Swap(i, j int) {
	r.idx[i], r.idx[j] = r.idx[j], r.idx[i]
	r.val[i], r.val[j] = r.val[j], r.val[i]
}

// WriteSparseNPZ writes the rows of d as a SciPy csr matrix in a .npz
// archive, as scipy.sparse.save_npz(file, matrix, compressed=False) writes
// it: the arrays indices (int32), indptr (int32, or int64 beyond 2³¹−1
// values), format (b'csr'), shape (int64) and data (float32), then the
// labels y (float64) and, if d has weights, w (float64), which
// scipy.sparse.load_npz leaves alone and OpenNPZ reads. A sparse data set's
// stored values are written as they are; dense rows (written one at a time,
// the data set is not converted) without their zeros. Like the other
// formats without class names, it keeps Y's numbers.
func WriteSparseNPZ(w io.Writer, d *Dataset) error {
	checkLens(d)
	if d.Y == nil {
		return fmt.Errorf("%w: a .npz holds y", ErrNoLabels)
	}
	if d.W != nil && len(d.W) != d.N {
		panic(fmt.Sprintf("data: inconsistent data set: N=%d, len(W)=%d", d.N, len(d.W)))
	}
	// The nonzeros of row i, stored ones for sparse rows.
	nonzeros := func(i int, f func(j int32, v float32)) {
		r := d.Vec(i)
		if r.Sparse() {
			for k, j := range r.Idx {
				f(j, r.Val[k])
			}
			return
		}
		for j, v := range r.Val {
			if v != 0 {
				f(int32(j), v)
			}
		}
	}
	nnz := int64(0)
	if d.Sparse != nil {
		nnz = int64(d.Sparse.NNZ())
	} else {
		for i := range d.N {
			nonzeros(i, func(int32, float32) { nnz++ })
		}
	}
	ptrType := "<i4"
	if nnz > math.MaxInt32 {
		ptrType = "<i8"
	}
	type entry struct {
		name, descr string
		shape       []int
		body        func(*npyWriter)
	}
	entries := []entry{
		{"indices", "<i4", []int{int(nnz)}, func(b *npyWriter) {
			for i := range d.N {
				nonzeros(i, func(j int32, _ float32) { b.u32(uint32(j)) })
			}
		}},
		{"indptr", ptrType, []int{d.N + 1}, func(b *npyWriter) {
			p := int64(0)
			for i := 0; ; i++ {
				if ptrType == "<i4" {
					b.u32(uint32(p))
				} else {
					b.u64(uint64(p))
				}
				if i == d.N {
					break
				}
				nonzeros(i, func(int32, float32) { p++ })
			}
		}},
		{"format", "|S3", []int{}, func(b *npyWriter) { b.bytes([]byte("csr")) }},
		{"shape", "<i8", []int{2}, func(b *npyWriter) { b.u64(uint64(d.N)); b.u64(uint64(d.D)) }},
		{"data", "<f4", []int{int(nnz)}, func(b *npyWriter) {
			for i := range d.N {
				nonzeros(i, func(_ int32, v float32) { b.u32(math.Float32bits(v)) })
			}
		}},
		{"y", "<f8", []int{d.N}, func(b *npyWriter) {
			for _, v := range d.Y {
				b.u64(math.Float64bits(v))
			}
		}},
	}
	if d.W != nil {
		entries = append(entries, entry{"w", "<f8", []int{d.N}, func(b *npyWriter) {
			for _, v := range d.W {
				b.u64(math.Float64bits(v))
			}
		}})
	}
	zw := zip.NewWriter(w)
	for _, e := range entries {
		fh := &zip.FileHeader{Name: e.name + ".npy", Method: zip.Store}
		fh.SetMode(0o644)
		ew, err := zw.CreateHeader(fh)
		if err != nil {
			return fmt.Errorf("data: writing .npz: %w", err)
		}
		b := &npyWriter{w: bufio.NewWriterSize(ew, 64<<10)}
		b.bytes(npyHeaderBytes(e.descr, e.shape))
		e.body(b)
		if err := b.flush(); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("data: writing .npz: %w", err)
	}
	return nil
}

// npyWriter writes little-endian values, keeping the first error.
type npyWriter struct {
	w   *bufio.Writer
	err error
	b   [8]byte
}

func (b *npyWriter) bytes(p []byte) {
	if b.err == nil {
		_, b.err = b.w.Write(p)
	}
}

func (b *npyWriter) u32(v uint32) {
	binary.LittleEndian.PutUint32(b.b[:], v)
	b.bytes(b.b[:4])
}

func (b *npyWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(b.b[:], v)
	b.bytes(b.b[:8])
}

func (b *npyWriter) flush() error {
	if b.err == nil {
		b.err = b.w.Flush()
	}
	if b.err != nil {
		return fmt.Errorf("data: writing .npz: %w", b.err)
	}
	return nil
}
