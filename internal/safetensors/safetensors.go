package safetensors

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/nsvm-go/nsvm/internal/atomicfile"
)

// MaxHeader is the largest JSON header Read accepts (100 MB, as the
// reference implementation).
const MaxHeader = 100 << 20

// metadataKey is the reserved header key of the string-to-string metadata.
const metadataKey = "__metadata__"

// ChecksumName is the reserved name of the checksum tensor WriteChecksummed
// appends: 32 bytes (U8) at the very end of the file, the SHA-256 of every
// byte before them (header length, header and the other tensors' data).
const ChecksumName = "__sha256__"

// ErrChecksum marks a file whose contents do not match its checksum
// (wrapped by *FormatError; test with errors.Is).
var ErrChecksum = errors.New("checksum mismatch")

// dtypeSize maps each dtype of the format to its element size in bytes.
var dtypeSize = map[string]int{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4,
	"I64": 8, "U64": 8, "F64": 8,
}

// Tensor is one named array: its dtype ("F32", "F64", "I64", …), its shape
// (nil or empty for a scalar) and its raw little-endian bytes.
type Tensor struct {
	Name  string
	DType string
	Shape []int
	Data  []byte
}

// File is the decoded content of a safetensors file.
type File struct {
	Metadata map[string]string
	Tensors  map[string]Tensor // without the checksum tensor
	// Checked reports that the file carried a checksum (ChecksumName) and
	// its contents matched it. A file without one (written by Write, or by
	// another program) reads with Checked false.
	Checked bool
}

// Names returns the tensor names in sorted order.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Tensors))
	for n := range f.Tensors {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// numel returns the number of elements of a shape, or -1 if a dimension is
// negative or the product overflows int64.
func numel(shape []int) int64 {
	n := int64(1)
	for _, s := range shape {
		if s < 0 {
			return -1
		}
		if s != 0 && n > math.MaxInt64/int64(s) {
			return -1
		}
		n *= int64(s)
	}
	return n
}

func checkShape(fn, name string, shape []int, n int) {
	if numel(shape) != int64(n) {
		panic(fmt.Sprintf("safetensors: %s %q: shape %v does not hold %d values", fn, name, shape, n))
	}
}

// F32 returns a float32 tensor holding v. It panics if shape does not hold
// exactly len(v) values.
func F32(name string, shape []int, v []float32) Tensor {
	checkShape("F32", name, shape, len(v))
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return Tensor{Name: name, DType: "F32", Shape: slices.Clone(shape), Data: b}
}

// F64 returns a float64 tensor holding v. It panics if shape does not hold
// exactly len(v) values.
func F64(name string, shape []int, v []float64) Tensor {
	checkShape("F64", name, shape, len(v))
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return Tensor{Name: name, DType: "F64", Shape: slices.Clone(shape), Data: b}
}

// I64 returns an int64 tensor holding v. It panics if shape does not hold
// exactly len(v) values.
func I64(name string, shape []int, v []int64) Tensor {
	checkShape("I64", name, shape, len(v))
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return Tensor{Name: name, DType: "I64", Shape: slices.Clone(shape), Data: b}
}

// check reports whether the tensor's dtype is want and its data holds
// exactly the elements its shape calls for.
func (t Tensor) check(want string) (int, error) {
	if t.DType != want {
		return 0, fmt.Errorf("safetensors: tensor %q has dtype %s, want %s", t.Name, t.DType, want)
	}
	return t.validate()
}

// validate checks the dtype is known and the byte length fits the shape; it
// returns the number of elements.
func (t Tensor) validate() (int, error) {
	size, ok := dtypeSize[t.DType]
	if !ok {
		return 0, fmt.Errorf("safetensors: tensor %q has unknown dtype %q", t.Name, t.DType)
	}
	n := numel(t.Shape)
	if n < 0 || n > math.MaxInt64/int64(size) || n*int64(size) != int64(len(t.Data)) {
		return 0, fmt.Errorf("safetensors: tensor %q: shape %v of %s needs %d bytes, has %d", t.Name, t.Shape, t.DType, n*int64(size), len(t.Data))
	}
	return int(n), nil
}

// Float32s decodes an F32 tensor.
func (t Tensor) Float32s() ([]float32, error) {
	n, err := t.check("F32")
	if err != nil {
		return nil, err
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return v, nil
}

// Float64s decodes an F64 tensor.
func (t Tensor) Float64s() ([]float64, error) {
	n, err := t.check("F64")
	if err != nil {
		return nil, err
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.Data[8*i:]))
	}
	return v, nil
}

// Int64s decodes an I64 tensor.
func (t Tensor) Int64s() ([]int64, error) {
	n, err := t.check("I64")
	if err != nil {
		return nil, err
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(t.Data[8*i:]))
	}
	return v, nil
}

// jsonString appends the JSON encoding of s (no HTML escaping).
func jsonString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // cannot fail for a string
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// order returns the tensors in file order: decreasing element size, then name.
func order(ts []Tensor) []Tensor {
	s := slices.Clone(ts)
	slices.SortStableFunc(s, func(a, b Tensor) int {
		if da, db := dtypeSize[a.DType], dtypeSize[b.DType]; da != db {
			return db - da
		}
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return s
}

// header builds the padded JSON header for tensors in file order.
func header(meta map[string]string, ts []Tensor) ([]byte, error) {
	b := []byte{'{'}
	if len(meta) > 0 {
		keys := make([]string, 0, len(meta))
		for k := range meta {
			if !utf8.ValidString(k) || !utf8.ValidString(meta[k]) {
				return nil, fmt.Errorf("safetensors: metadata %q is not valid UTF-8", k)
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = jsonString(b, metadataKey)
		b = append(b, ':', '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonString(b, k)
			b = append(b, ':')
			b = jsonString(b, meta[k])
		}
		b = append(b, '}')
	}
	var off int64
	for i, t := range ts {
		if len(meta) > 0 || i > 0 {
			b = append(b, ',')
		}
		b = jsonString(b, t.Name)
		b = append(b, `:{"dtype":`...)
		b = jsonString(b, t.DType)
		b = append(b, `,"shape":[`...)
		for j, s := range t.Shape {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(s), 10)
		}
		b = append(b, `],"data_offsets":[`...)
		b = strconv.AppendInt(b, off, 10)
		b = append(b, ',')
		off += int64(len(t.Data))
		b = strconv.AppendInt(b, off, 10)
		b = append(b, ']', '}')
	}
	b = append(b, '}')
	for len(b)%8 != 0 {
		b = append(b, ' ')
	}
	return b, nil
}

func validateAll(ts []Tensor) error {
	seen := make(map[string]bool, len(ts))
	for _, t := range ts {
		if t.Name == "" || t.Name == metadataKey || t.Name == ChecksumName {
			return fmt.Errorf("safetensors: invalid tensor name %q", t.Name)
		}
		if !utf8.ValidString(t.Name) {
			return fmt.Errorf("safetensors: tensor name %q is not valid UTF-8", t.Name)
		}
		if seen[t.Name] {
			return fmt.Errorf("safetensors: duplicate tensor name %q", t.Name)
		}
		seen[t.Name] = true
		if _, err := t.validate(); err != nil {
			return err
		}
	}
	return nil
}

// Write writes meta and the tensors to w in the safetensors layout. The
// output depends only on the set of tensors and metadata entries, not on
// their order.
func Write(w io.Writer, meta map[string]string, ts []Tensor) error {
	return write(w, meta, ts, false)
}

// WriteChecksummed is Write with a checksum: a last tensor ChecksumName
// holding the SHA-256 of every byte before it, which Read verifies. Other
// readers see one more tensor (U8, 32 values).
func WriteChecksummed(w io.Writer, meta map[string]string, ts []Tensor) error {
	return write(w, meta, ts, true)
}

func write(w io.Writer, meta map[string]string, ts []Tensor, sum bool) error {
	if err := validateAll(ts); err != nil {
		return err
	}
	ts = order(ts)
	if sum {
		// Last whatever the order of the others, so that it covers them all.
		ts = append(ts, Tensor{Name: ChecksumName, DType: "U8", Shape: []int{sha256.Size}, Data: make([]byte, sha256.Size)})
	}
	h, err := header(meta, ts)
	if err != nil {
		return err
	}
	hash := sha256.New()
	hw := w
	if sum {
		hw = io.MultiWriter(w, hash)
		ts = ts[:len(ts)-1]
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(h)))
	if _, err := hw.Write(n[:]); err != nil {
		return err
	}
	if _, err := hw.Write(h); err != nil {
		return err
	}
	for _, t := range ts {
		if _, err := hw.Write(t.Data); err != nil {
			return err
		}
	}
	if sum {
		_, err = w.Write(hash.Sum(nil))
	}
	return err
}

// WriteFile writes the file, with a checksum (WriteChecksummed), to path
// through atomicfile: a regular file is replaced only by a complete, synced
// file (a symbolic link is followed and the mode kept), a device or FIFO is
// written in place. Errors name path.
func WriteFile(path string, meta map[string]string, ts []Tensor) error {
	if err := validateAll(ts); err != nil {
		return err
	}
	err := atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := WriteChecksummed(bw, meta, ts); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		var ae *atomicfile.Error
		if errors.As(err, &ae) {
			return fmt.Errorf("safetensors: %w", err)
		}
		return fmt.Errorf("safetensors: writing %s: %w", path, err)
	}
	return nil
}

// entry is one tensor's header record.
type entry struct {
	DType       string   `json:"dtype"`
	Shape       *[]int64 `json:"shape"`
	DataOffsets []int64  `json:"data_offsets"`
}

// FormatError reports a malformed file.
type FormatError struct {
	Path string // the file, if known
	Msg  string
	Err  error // ErrChecksum for a checksum mismatch, else nil
}

func (e *FormatError) Unwrap() error { return e.Err }

func (e *FormatError) Error() string {
	msg := "malformed file: " + e.Msg
	if e.Err != nil {
		msg = e.Msg
	}
	if e.Path != "" {
		return "safetensors: " + e.Path + ": " + msg
	}
	return "safetensors: " + msg
}

func bad(format string, a ...any) error {
	return &FormatError{Msg: fmt.Sprintf(format, a...)}
}

// parseHeader decodes and checks the JSON header against a data section of
// dataLen bytes. It returns the metadata and the tensors without data, in
// offset order, with their offsets.
func parseHeader(h []byte, dataLen int64) (map[string]string, []Tensor, [][2]int64, error) {
	if !utf8.Valid(h) {
		return nil, nil, nil, bad("header is not valid UTF-8")
	}
	if len(h) == 0 || h[0] != '{' {
		return nil, nil, nil, bad("header does not start with '{'")
	}
	dec := json.NewDecoder(bytes.NewReader(h))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return nil, nil, nil, bad("header: %v", err)
	}
	var meta map[string]string
	var ts []Tensor
	var offs [][2]int64
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, nil, bad("header: %v", err)
		}
		name, ok := tok.(string)
		if !ok {
			return nil, nil, nil, bad("header: key is not a string")
		}
		if seen[name] {
			return nil, nil, nil, bad("duplicate key %q", name)
		}
		seen[name] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, nil, bad("header entry %q: %v", name, err)
		}
		if name == "" {
			return nil, nil, nil, bad("empty tensor name")
		}
		if name == metadataKey {
			if err := json.Unmarshal(raw, &meta); err != nil {
				return nil, nil, nil, bad("__metadata__ is not a map of strings: %v", err)
			}
			continue
		}
		var e entry
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, nil, nil, bad("tensor %q: %v", name, err)
		}
		size, ok := dtypeSize[e.DType]
		if !ok {
			return nil, nil, nil, bad("tensor %q: unknown dtype %q", name, e.DType)
		}
		if e.Shape == nil {
			return nil, nil, nil, bad("tensor %q: no shape", name)
		}
		if len(e.DataOffsets) != 2 {
			return nil, nil, nil, bad("tensor %q: data_offsets must have two entries", name)
		}
		shape := make([]int, len(*e.Shape))
		for i, s := range *e.Shape {
			if s < 0 || s > 1<<40 {
				return nil, nil, nil, bad("tensor %q: bad dimension %d", name, s)
			}
			shape[i] = int(s)
		}
		b, end := e.DataOffsets[0], e.DataOffsets[1]
		if b < 0 || end < b || end > dataLen {
			return nil, nil, nil, bad("tensor %q: data_offsets [%d, %d] outside the %d data bytes", name, b, end, dataLen)
		}
		n := numel(shape)
		if n < 0 || n > dataLen || n*int64(size) != end-b {
			return nil, nil, nil, bad("tensor %q: shape %v of %s does not fit %d bytes", name, shape, e.DType, end-b)
		}
		ts = append(ts, Tensor{Name: name, DType: e.DType, Shape: shape})
		offs = append(offs, [2]int64{b, end})
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, nil, bad("header: %v", err)
	}
	if rest := h[dec.InputOffset():]; len(bytes.TrimLeft(rest, " \t\r\n")) != 0 {
		return nil, nil, nil, bad("trailing bytes after the header object")
	}
	// The tensors must tile [0, dataLen) exactly.
	idx := make([]int, len(ts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if offs[a][0] != offs[b][0] {
			if offs[a][0] < offs[b][0] {
				return -1
			}
			return 1
		}
		if offs[a][1] < offs[b][1] {
			return -1
		} else if offs[a][1] > offs[b][1] {
			return 1
		}
		return 0
	})
	var pos int64
	sortedT := make([]Tensor, len(ts))
	sortedO := make([][2]int64, len(ts))
	for k, i := range idx {
		if offs[i][0] != pos {
			return nil, nil, nil, bad("tensor %q starts at %d, want %d (overlap or gap)", ts[i].Name, offs[i][0], pos)
		}
		pos = offs[i][1]
		sortedT[k], sortedO[k] = ts[i], offs[i]
	}
	if pos != dataLen {
		return nil, nil, nil, bad("tensors cover %d of %d data bytes", pos, dataLen)
	}
	return meta, sortedT, sortedO, nil
}

// Read decodes a safetensors file of size bytes from r.
func Read(r io.Reader, size int64) (*File, error) {
	if size < 8 {
		return nil, bad("%d bytes is too short", size)
	}
	var nb [8]byte
	if _, err := io.ReadFull(r, nb[:]); err != nil {
		return nil, fmt.Errorf("safetensors: reading header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(nb[:])
	if n > uint64(size-8) {
		return nil, bad("header length %d exceeds the file (%d bytes)", n, size)
	}
	if n > MaxHeader {
		return nil, bad("header length %d exceeds %d", n, MaxHeader)
	}
	h := make([]byte, n)
	if _, err := io.ReadFull(r, h); err != nil {
		return nil, fmt.Errorf("safetensors: reading header: %w", err)
	}
	dataLen := size - 8 - int64(n)
	meta, ts, offs, err := parseHeader(h, dataLen)
	if err != nil {
		return nil, err
	}
	// Grow the buffer as bytes arrive rather than trusting size up front.
	var buf bytes.Buffer
	buf.Grow(int(min(dataLen, 1<<26)))
	got, err := io.CopyN(&buf, r, dataLen)
	if err != nil {
		if err == io.EOF {
			return nil, bad("data section ends after %d of %d bytes", got, dataLen)
		}
		return nil, fmt.Errorf("safetensors: reading data: %w", err)
	}
	data := buf.Bytes()
	f := &File{Metadata: meta, Tensors: make(map[string]Tensor, len(ts))}
	if f.Metadata == nil {
		f.Metadata = map[string]string{}
	}
	if k := slices.IndexFunc(ts, func(t Tensor) bool { return t.Name == ChecksumName }); k >= 0 {
		t, off := ts[k], offs[k]
		if t.DType != "U8" || !slices.Equal(t.Shape, []int{sha256.Size}) || off[1] != dataLen {
			return nil, bad("%s is not the file's last %d bytes (U8)", ChecksumName, sha256.Size)
		}
		sum := sha256.New()
		sum.Write(nb[:])
		sum.Write(h)
		sum.Write(data[:off[0]])
		if !bytes.Equal(sum.Sum(nil), data[off[0]:]) {
			return nil, &FormatError{Msg: "the file is corrupt: checksum mismatch", Err: ErrChecksum}
		}
		f.Checked = true
		ts, offs = slices.Delete(ts, k, k+1), slices.Delete(offs, k, k+1)
	}
	for i, t := range ts {
		b, e := offs[i][0], offs[i][1]
		t.Data = data[b:e:e]
		f.Tensors[t.Name] = t
	}
	return f, nil
}

// ReadFile reads the safetensors file at path.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	f, err := Read(bufio.NewReaderSize(fh, 1<<20), st.Size())
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.Path = path
			return nil, fe
		}
		return nil, fmt.Errorf("safetensors: %s: %w", path, err)
	}
	return f, nil
}
