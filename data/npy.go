package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// NumPy's .npy format (numpy.lib.format): the magic "\x93NUMPY", a major
// and minor version, the length of the header (2 bytes little-endian in
// version 1, 4 bytes in versions 2 and 3), and the header, a Python dict
// literal such as
//
//	{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 20), }
//
// padded with spaces and a newline so that the data starts at a multiple of
// 64 bytes. The data follow in C order.

const npyMagic = "\x93NUMPY"

// ErrNPY is wrapped by every error about a malformed or unsupported .npy or
// .npz file, so that callers can tell it with errors.Is.
var ErrNPY = errors.New("not a supported NumPy array")

// npyHeader is the parsed header of a .npy file.
type npyHeader struct {
	kind     byte // 'f', 'i', 'u' or 'b'; 'S' or 'U' for text (readNPYHeaderText)
	size     int  // bytes per element
	dtype    string
	shape    []int
	dataOff  int64 // bytes before the data
	numElems int
}

func (h *npyHeader) descr() string { return fmt.Sprintf("%c%d", h.kind, h.size) }

// npyErr formats an error about the file name that wraps ErrNPY.
func npyErr(name, format string, args ...any) error {
	return fmt.Errorf("data: %s: %w: "+format, append([]any{name, ErrNPY}, args...)...)
}

// readNPYHeader reads and checks the header of a .npy stream of numbers.
func readNPYHeader(r io.Reader, name string) (*npyHeader, error) {
	h, err := readNPYHeaderText(r, name)
	if err == nil && (h.kind == 'S' || h.kind == 'U') {
		return nil, npyErr(name, "dtype %q; want %s", h.dtype, npyDtypes)
	}
	return h, err
}

// npyDtypes names the dtypes of numbers this package reads.
const npyDtypes = "float32, float64, int8/16/32/64, uint8/16/32/64 or bool"

// readNPYHeaderText is readNPYHeader that takes text arrays too: bytes
// ('S') and Unicode ('U') strings.
func readNPYHeaderText(r io.Reader, name string) (*npyHeader, error) {
	short := func(err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return npyErr(name, "file truncated in the header")
		}
		return fmt.Errorf("data: %s: %w", name, err)
	}
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return nil, short(err)
	}
	if string(pre[:6]) != npyMagic {
		return nil, npyErr(name, "magic %q, want %q (a .npy file)", pre[:6], npyMagic)
	}
	var hlen, off int
	switch pre[6] {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, short(err)
		}
		hlen, off = int(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, short(err)
		}
		hlen, off = int(binary.LittleEndian.Uint32(b[:])), 12
	default:
		return nil, npyErr(name, "format version %d.%d; want 1, 2 or 3", pre[6], pre[7])
	}
	if hlen > 1<<20 {
		return nil, npyErr(name, "header of %d bytes", hlen)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, short(err)
	}
	h, err := parseNPYDict(string(hb))
	if err != nil {
		return nil, npyErr(name, "%v", err)
	}
	h.dataOff = int64(off + hlen)
	return h, nil
}

// parseNPYDict parses the header dict and checks that the array is one
// this package reads: little-endian, C order, a supported dtype.
func parseNPYDict(s string) (*npyHeader, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, fmt.Errorf("header %q is not a dict", s)
	}
	s = s[1 : len(s)-1]
	var descr, fortran, shape string
	var seen [3]bool
	for {
		s = strings.TrimLeft(s, " ,")
		if s == "" {
			break
		}
		if s[0] != '\'' && s[0] != '"' {
			return nil, fmt.Errorf("header key at %q", s)
		}
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			return nil, fmt.Errorf("unterminated key in the header")
		}
		key := s[1 : 1+end]
		s = strings.TrimLeft(s[end+2:], " ")
		if !strings.HasPrefix(s, ":") {
			return nil, fmt.Errorf("no ':' after header key %q", key)
		}
		s = strings.TrimLeft(s[1:], " ")
		var val string
		switch {
		case s == "":
			return nil, fmt.Errorf("no value for header key %q", key)
		case s[0] == '\'' || s[0] == '"':
			e := strings.IndexByte(s[1:], s[0])
			if e < 0 {
				return nil, fmt.Errorf("unterminated value of header key %q", key)
			}
			val, s = s[1:1+e], s[e+2:]
		case s[0] == '(':
			e := strings.IndexByte(s, ')')
			if e < 0 {
				return nil, fmt.Errorf("unterminated shape in the header")
			}
			val, s = s[:e+1], s[e+1:]
		case s[0] == '[' || s[0] == '{':
			return nil, fmt.Errorf("structured dtype; want a plain numeric array")
		default:
			e := strings.IndexByte(s, ',')
			if e < 0 {
				e = len(s)
			}
			val, s = strings.TrimSpace(s[:e]), s[e:]
		}
		switch key {
		case "descr":
			descr, seen[0] = val, true
		case "fortran_order":
			fortran, seen[1] = val, true
		case "shape":
			shape, seen[2] = val, true
		}
	}
	if seen != [3]bool{true, true, true} {
		return nil, fmt.Errorf("header lacks descr, fortran_order or shape")
	}
	h := &npyHeader{}
	switch fortran {
	case "False":
	case "True":
		return nil, fmt.Errorf("a Fortran (column-major) order; save a C-ordered array (numpy.ascontiguousarray)")
	default:
		return nil, fmt.Errorf("fortran_order %q", fortran)
	}
	if len(descr) < 3 {
		return nil, fmt.Errorf("dtype %q", descr)
	}
	h.kind = descr[1]
	n, err := strconv.Atoi(descr[2:])
	if err != nil {
		return nil, fmt.Errorf("dtype %q", descr)
	}
	h.size, h.dtype = n, descr
	switch h.descr() {
	case "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1":
	default:
		switch {
		case h.kind == 'S' && n > 0:
		case h.kind == 'U' && n > 0 && n < math.MaxInt/4:
			h.size = 4 * n // UTF-32 code units
		default:
			return nil, fmt.Errorf("dtype %q; want %s", descr, npyDtypes)
		}
	}
	switch order := descr[0]; {
	case order == '<' || order == '|' || (order == '>' || order == '=') && (h.size == 1 || h.kind == 'S'):
	case order == '>':
		return nil, fmt.Errorf("big-endian dtype %q; save it little-endian (array.astype('<%c%d'))", descr, h.kind, n)
	case order == '=':
		// Native order as written by a little-endian machine.
		if !littleEndian {
			return nil, fmt.Errorf("native-order dtype %q", descr)
		}
	default:
		return nil, fmt.Errorf("dtype %q", descr)
	}
	if len(shape) < 2 || shape[0] != '(' || shape[len(shape)-1] != ')' {
		return nil, fmt.Errorf("shape %q is not a tuple", shape)
	}
	inner := strings.TrimSpace(shape[1 : len(shape)-1])
	h.numElems = 1
	for _, f := range strings.Split(inner, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		f = strings.TrimSuffix(f, "L")
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("shape %s", shape)
		}
		if v > 0 && h.numElems > math.MaxInt/v/8 {
			return nil, fmt.Errorf("shape %s is too large", shape)
		}
		h.shape = append(h.shape, v)
		h.numElems *= v
	}
	if h.size > 8 && h.numElems > math.MaxInt/h.size {
		return nil, fmt.Errorf("shape %s is too large", shape)
	}
	return h, nil
}

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// npyBytes is the size of the data the header describes.
func (h *npyHeader) npyBytes() int64 { return int64(h.numElems) * int64(h.size) }

// decodeTo converts little-endian elements of the header's dtype from src
// into dst (len(dst) elements, len(src) = len(dst)·size).
func decodeTo[T float32 | float64](dst []T, src []byte, kind byte, size int) {
	le := binary.LittleEndian
	switch string([]byte{kind, byte('0' + size)}) {
	case "f4":
		for i := range dst {
			dst[i] = T(math.Float32frombits(le.Uint32(src[4*i:])))
		}
	case "f8":
		for i := range dst {
			dst[i] = T(math.Float64frombits(le.Uint64(src[8*i:])))
		}
	case "i1":
		for i := range dst {
			dst[i] = T(int8(src[i]))
		}
	case "u1":
		for i := range dst {
			dst[i] = T(src[i])
		}
	case "i2":
		for i := range dst {
			dst[i] = T(int16(le.Uint16(src[2*i:])))
		}
	case "u2":
		for i := range dst {
			dst[i] = T(le.Uint16(src[2*i:]))
		}
	case "i4":
		for i := range dst {
			dst[i] = T(int32(le.Uint32(src[4*i:])))
		}
	case "u4":
		for i := range dst {
			dst[i] = T(le.Uint32(src[4*i:]))
		}
	case "u8":
		for i := range dst {
			dst[i] = T(le.Uint64(src[8*i:]))
		}
	case "b1":
		for i := range dst {
			if src[i] != 0 {
				dst[i] = 1
			} else {
				dst[i] = 0
			}
		}
	case "i8":
		for i := range dst {
			dst[i] = T(int64(le.Uint64(src[8*i:])))
		}
	default:
		panic("data: unsupported npy dtype " + string(kind))
	}
}

// readNPYData reads the elements a header describes from r (positioned at
// the data) into a new slice, converting them to T, block by block. When
// present is true the caller has checked that the bytes are there, and the
// slice is allocated once; otherwise it grows with the bytes actually read,
// never to a size a header merely claims.
func readNPYData[T float32 | float64](r io.Reader, h *npyHeader, name string, present bool) ([]T, error) {
	var out []T
	if present {
		out = make([]T, 0, h.numElems)
	}
	buf := make([]byte, (1<<16)*h.size)
	for len(out) < h.numElems {
		k := min(h.numElems-len(out), 1<<16)
		if _, err := io.ReadFull(r, buf[:k*h.size]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, npyErr(name, "file truncated: %d of %d elements present", len(out), h.numElems)
			}
			return nil, fmt.Errorf("data: %s: %w", name, err)
		}
		n := len(out)
		out = slices.Grow(out, k)[:n+k]
		decodeTo(out[n:], buf[:k*h.size], h.kind, h.size)
	}
	return out, nil
}

// ReadNPY reads a .npy array from r as float32 values with its shape; name
// is used in errors. Every supported dtype (float32, float64, int8/16/32/64,
// uint8/16/32/64, bool) is converted to float32.
func ReadNPY(r io.Reader, name string) (x []float32, shape []int, err error) {
	h, err := readNPYHeader(r, name)
	if err != nil {
		return nil, nil, err
	}
	x, err = readNPYData[float32](r, h, name, false)
	return x, h.shape, err
}

// ReadNPYLabels reads a one-dimensional .npy array of labels from r.
func ReadNPYLabels(r io.Reader, name string) ([]float64, error) {
	h, err := readNPYHeader(r, name)
	if err != nil {
		return nil, err
	}
	if len(h.shape) != 1 {
		return nil, npyErr(name, "labels of shape %v; want a one-dimensional array", h.shape)
	}
	return readNPYData[float64](r, h, name, false)
}

// npyDataset checks x (with the shape of its .npy) and y against each
// other and makes a Dataset: the first axis counts rows, the others make a
// row (kept as Shape when there are more than one).
func npyDataset(x []float32, shape []int, y []float64, xname, yname string) (*Dataset, error) {
	if len(shape) < 2 {
		return nil, npyErr(xname, "X of shape %v; want rows × features (two or more dimensions)", shape)
	}
	n, d := shape[0], 1
	for _, s := range shape[1:] {
		d *= s
	}
	if d == 0 {
		return nil, npyErr(xname, "X of shape %v has no features", shape)
	}
	if len(y) != n {
		return nil, fmt.Errorf("data: %s has %d labels for the %d rows of %s", yname, len(y), n, xname)
	}
	if n == 0 {
		return nil, fmt.Errorf("data: %s: no data rows", xname)
	}
	ds := &Dataset{X: x, Y: y, N: n, D: d}
	if len(shape) > 2 {
		ds.Shape = append([]int(nil), shape[1:]...)
	}
	if err := checkFinite(ds, xname, yname, 0); err != nil {
		return nil, err
	}
	return ds, nil
}

// checkFinite reports the first NaN or infinite value of X or Y, whose
// first row is row0 of the file.
func checkFinite(ds *Dataset, xname, yname string, row0 int) error {
	for i, v := range ds.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("data: %s: label %d is %v; labels must be finite", yname, row0+i, v)
		}
	}
	// Exponent bits all ones is NaN or ±Inf.
	for k, v := range ds.X {
		if math.Float32bits(v)&0x7f800000 == 0x7f800000 {
			return fmt.Errorf("data: %s: row %d, feature %d is %v; values must be finite", xname, row0+k/ds.D, k%ds.D, v)
		}
	}
	return nil
}

// WriteNPY writes the features of d as a float32 .npy array of shape
// (N, D), or (N, Shape...) when d has a Shape. It writes dense rows: for
// sparse rows it returns an error wrapping ErrSparse (a SciPy sparse .npz
// holds them: WriteSparseNPZ).
func WriteNPY(w io.Writer, d *Dataset) error {
	if err := denseOnly(d, "WriteNPY writes dense rows"); err != nil {
		return err
	}
	checkLens(d)
	shape := append([]int{d.N}, d.InputShape()...)
	if err := writeNPYHeader(w, "<f4", shape); err != nil {
		return err
	}
	return writeNPYValues(w, d.X)
}

// WriteNPYLabels writes y as a one-dimensional float64 .npy array.
func WriteNPYLabels(w io.Writer, y []float64) error {
	if err := writeNPYHeader(w, "<f8", []int{len(y)}); err != nil {
		return err
	}
	return writeNPYValues(w, y)
}

// npyHeaderBytes is the version 1.0 header (version 2.0 when it does not
// fit in 65535 bytes), padded so that the data start at a multiple of 64.
func npyHeaderBytes(descr string, shape []int) []byte {
	var sb strings.Builder
	fmt.Fprintf(&sb, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr)
	for i, s := range shape {
		if i > 0 {
			sb.WriteString(" ")
		}
		fmt.Fprintf(&sb, "%d,", s)
	}
	if len(shape) > 1 {
		// NumPy writes (3, 4) but (3,) for one dimension.
		str := strings.TrimSuffix(sb.String(), ",")
		sb.Reset()
		sb.WriteString(str)
	}
	sb.WriteString("), }")
	dict := sb.String()
	pre := 10
	if len(dict)+pre+1 > 65535 {
		pre = 12
	}
	pad := 63 - (pre+len(dict))%64 // spaces, then the newline ends at a multiple of 64
	hlen := len(dict) + pad + 1
	b := make([]byte, 0, pre+hlen)
	b = append(b, npyMagic...)
	if pre == 10 {
		b = append(b, 1, 0)
		b = binary.LittleEndian.AppendUint16(b, uint16(hlen))
	} else {
		b = append(b, 2, 0)
		b = binary.LittleEndian.AppendUint32(b, uint32(hlen))
	}
	b = append(b, dict...)
	b = append(b, bytes.Repeat([]byte{' '}, pad)...)
	return append(b, '\n')
}

func writeNPYHeader(w io.Writer, descr string, shape []int) error {
	if _, err := w.Write(npyHeaderBytes(descr, shape)); err != nil {
		return fmt.Errorf("data: writing .npy: %w", err)
	}
	return nil
}

// writeNPYValues writes v little-endian.
func writeNPYValues[T float32 | float64](w io.Writer, v []T) error {
	buf := make([]byte, 0, 1<<16)
	flush := func() error {
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("data: writing .npy: %w", err)
		}
		buf = buf[:0]
		return nil
	}
	switch v := any(v).(type) {
	case []float32:
		for _, x := range v {
			if len(buf)+4 > cap(buf) {
				if err := flush(); err != nil {
					return err
				}
			}
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	case []float64:
		for _, x := range v {
			if len(buf)+8 > cap(buf) {
				if err := flush(); err != nil {
					return err
				}
			}
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		}
	}
	return flush()
}
