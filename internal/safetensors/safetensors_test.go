package safetensors

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/internal/atomicfile/devtest"
)

func encode(t *testing.T, meta map[string]string, ts []Tensor) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, meta, ts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	f32 := []float32{1, -2.5, float32(math.Inf(1)), 3e-38, 0}
	f64 := []float64{math.Pi, math.Copysign(0, -1), 1e300}
	i64 := []int64{math.MinInt64, -1, 0, 42, math.MaxInt64, 7}
	meta := map[string]string{"format": "x/1", "kernel": `{"name":"rbf","gamma":0.5}`, "utf8": "λ → ∞ <&>"}
	ts := []Tensor{
		F32("w", []int{5}, f32),
		F64("coef", []int{3, 1}, f64),
		I64("idx", []int{2, 3}, i64),
		F32("empty", []int{0, 4}, nil),
		F64("scalar", nil, []float64{2}),
	}
	b := encode(t, meta, ts)
	if n := binary.LittleEndian.Uint64(b); n%8 != 0 {
		t.Errorf("header length %d is not a multiple of 8", n)
	}
	f, err := Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Metadata) != len(meta) {
		t.Errorf("metadata %v, want %v", f.Metadata, meta)
	}
	for k, v := range meta {
		if f.Metadata[k] != v {
			t.Errorf("metadata[%q] = %q, want %q", k, f.Metadata[k], v)
		}
	}
	if got := f.Names(); !slices.Equal(got, []string{"coef", "empty", "idx", "scalar", "w"}) {
		t.Errorf("names %v", got)
	}
	g32, err := f.Tensors["w"].Float32s()
	if err != nil || !slices.Equal(g32, f32) {
		t.Errorf("w = %v, %v; want %v", g32, err, f32)
	}
	g64, err := f.Tensors["coef"].Float64s()
	if err != nil || len(g64) != 3 || g64[0] != math.Pi || !math.Signbit(g64[1]) || g64[2] != 1e300 {
		t.Errorf("coef = %v, %v", g64, err)
	}
	gi, err := f.Tensors["idx"].Int64s()
	if err != nil || !slices.Equal(gi, i64) {
		t.Errorf("idx = %v, %v; want %v", gi, err, i64)
	}
	if s := f.Tensors["coef"].Shape; !slices.Equal(s, []int{3, 1}) {
		t.Errorf("coef shape %v", s)
	}
	if e, err := f.Tensors["empty"].Float32s(); err != nil || len(e) != 0 {
		t.Errorf("empty = %v, %v", e, err)
	}
	if s, err := f.Tensors["scalar"].Float64s(); err != nil || len(s) != 1 || s[0] != 2 || len(f.Tensors["scalar"].Shape) != 0 {
		t.Errorf("scalar = %v, %v", s, err)
	}
	if _, err := f.Tensors["w"].Float64s(); err == nil {
		t.Error("Float64s of an F32 tensor: no error")
	}
	// Deterministic and independent of the input order.
	rev := slices.Clone(ts)
	slices.Reverse(rev)
	if b2 := encode(t, meta, rev); !bytes.Equal(b, b2) {
		t.Error("output depends on tensor order")
	}
	// Re-encoding what was read gives the same bytes.
	var back []Tensor
	for _, n := range f.Names() {
		back = append(back, f.Tensors[n])
	}
	if b3 := encode(t, f.Metadata, back); !bytes.Equal(b, b3) {
		t.Error("read → write is not the identity")
	}
}

// TestGolden checks the exact bytes of a tiny file: the I64 tensor comes
// first (larger elements first), then the F32 one; the 137-byte header is
// padded with 7 spaces to 144.
func TestGolden(t *testing.T) {
	b := encode(t, map[string]string{"format": "x"}, []Tensor{
		F32("a", []int{2}, []float32{1, -2}),
		I64("b", nil, []int64{7}),
	})
	hdr := `{"__metadata__":{"format":"x"},"b":{"dtype":"I64","shape":[],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}` + "       "
	want := []byte{144, 0, 0, 0, 0, 0, 0, 0}
	want = append(want, hdr...)
	want = append(want, 7, 0, 0, 0, 0, 0, 0, 0) // int64 7
	want = append(want, 0, 0, 0x80, 0x3f)       // float32 1
	want = append(want, 0, 0, 0, 0xc0)          // float32 −2
	if !bytes.Equal(b, want) {
		t.Errorf("got\n%q\nwant\n%q", b, want)
	}
	// No metadata: no __metadata__ key.
	b = encode(t, nil, []Tensor{F32("a", []int{1}, []float32{0})})
	hdr = `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`
	if got := string(b[8 : 8+len(hdr)]); got != hdr {
		t.Errorf("header %q, want %q", got, hdr)
	}
}

// build assembles a file from a raw header and data section.
func build(hdr string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	b = append(b, hdr...)
	return append(b, data...)
}

func TestReadCorrupt(t *testing.T) {
	good := `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	d8 := make([]byte, 8)
	cases := []struct {
		name string
		file []byte
		size int64 // 0: len(file)
		want string
	}{
		{"short", []byte{1, 2, 3}, 0, "too short"},
		{"header past end", build(good, d8)[:20], 0, "exceeds the file"},
		{"header over cap", binary.LittleEndian.AppendUint64(nil, MaxHeader+1), 1 << 40, "exceeds 104857600"},
		{"huge header length", binary.LittleEndian.AppendUint64(nil, math.MaxUint64), 1 << 40, "exceeds the file"},
		{"not an object", build(`["a"]`, nil), 0, "does not start"},
		{"bad json", build(`{"a":`, nil), 0, "header"},
		{"invalid utf8", build("{\"\xff\":{}}", nil), 0, "UTF-8"},
		{"trailing junk", build(good+`x`, d8), 0, "trailing"},
		{"unknown dtype", build(`{"a":{"dtype":"F128","shape":[2],"data_offsets":[0,8]}}`, d8), 0, "unknown dtype"},
		{"no shape", build(`{"a":{"dtype":"F32","data_offsets":[0,8]}}`, d8), 0, "no shape"},
		{"negative dim", build(`{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, d8), 0, "bad dimension"},
		{"shape mismatch", build(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, d8), 0, "does not fit"},
		{"dtype mismatch", build(`{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}}`, d8), 0, "does not fit"},
		{"overflowing shape", build(`{"a":{"dtype":"F64","shape":[1099511627776,1099511627776],"data_offsets":[0,8]}}`, d8), 0, "does not fit"},
		{"offsets out of range", build(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, d8), 0, "outside"},
		{"reversed offsets", build(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, d8), 0, "outside"},
		{"one offset", build(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[8]}}`, d8), 0, "two entries"},
		{"overlap", build(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, d8), 0, "overlap"},
		{"gap", build(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, d8), 0, "gap"},
		{"uncovered tail", build(good, make([]byte, 12)), 0, "cover 8 of 12"},
		{"duplicate", build(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, d8), 0, "duplicate"},
		{"empty name", build(`{"":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, d8), 0, "empty tensor name"},
		{"metadata not strings", build(`{"__metadata__":{"a":1}}`, nil), 0, "map of strings"},
		{"truncated data", build(good, d8[:4]), 16 + int64(len(good)), "ends after 4 of 8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			size := c.size
			if size == 0 {
				size = int64(len(c.file))
			}
			f, err := Read(bytes.NewReader(c.file), size)
			if err == nil {
				t.Fatalf("no error; got %+v", f)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "safetensors: ") {
				t.Errorf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
	// The valid baseline parses.
	if _, err := Read(bytes.NewReader(build(good, d8)), int64(8+len(good)+8)); err != nil {
		t.Errorf("baseline: %v", err)
	}
}

func TestWriteRejects(t *testing.T) {
	cases := []struct {
		name string
		ts   []Tensor
		meta map[string]string
	}{
		{"duplicate", []Tensor{F32("a", []int{1}, []float32{1}), F32("a", []int{1}, []float32{2})}, nil},
		{"empty name", []Tensor{F32("", []int{1}, []float32{1})}, nil},
		{"reserved name", []Tensor{F32(metadataKey, []int{1}, []float32{1})}, nil},
		{"bad dtype", []Tensor{{Name: "a", DType: "F3", Shape: []int{1}, Data: make([]byte, 4)}}, nil},
		{"short data", []Tensor{{Name: "a", DType: "F32", Shape: []int{2}, Data: make([]byte, 4)}}, nil},
		{"bad utf8 meta", nil, map[string]string{"k": "\xff"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := Write(io.Discard, c.meta, c.ts); err == nil {
				t.Error("no error")
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Error("F32 with a wrong shape did not panic")
		}
	}()
	F32("a", []int{3}, []float32{1})
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.safetensors")
	ts := []Tensor{F64("c", []int{2}, []float64{1, 2})}
	if err := WriteFile(p, map[string]string{"k": "v"}, ts); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := f.Tensors["c"].Float64s(); !slices.Equal(c, []float64{1, 2}) || f.Metadata["k"] != "v" {
		t.Errorf("read back %v %v", c, f.Metadata)
	}
	// A failing write leaves the old file and no temporary behind.
	bad := []Tensor{{Name: "a", DType: "F32", Shape: []int{2}, Data: nil}}
	if err := WriteFile(p, nil, bad); err == nil {
		t.Error("invalid tensor written")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(ents))
	}
	if _, err := ReadFile(p); err != nil {
		t.Errorf("old file damaged: %v", err)
	}
	if err := WriteFile(filepath.Join(dir, "no", "such", "dir"), nil, ts); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	// ReadFile names the file in format errors.
	os.WriteFile(p, []byte("garbage!!"), 0o644)
	_, err = ReadFile(p)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Path != p || !strings.Contains(err.Error(), p) {
		t.Errorf("ReadFile error %v does not name the file", err)
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	Write(&b, map[string]string{"format": "x"}, []Tensor{
		F32("a", []int{2}, []float32{1, -2}),
		I64("b", nil, []int64{7}),
	})
	f.Add(b.Bytes())
	f.Add(build(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, make([]byte, 8)))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		var ts []Tensor
		for _, n := range file.Names() {
			ts = append(ts, file.Tensors[n])
		}
		var w1 bytes.Buffer
		if err := Write(&w1, file.Metadata, ts); err != nil {
			t.Fatalf("re-encoding a valid file: %v", err)
		}
		again, err := Read(bytes.NewReader(w1.Bytes()), int64(w1.Len()))
		if err != nil {
			t.Fatalf("reading a re-encoded file: %v", err)
		}
		ts = ts[:0]
		for _, n := range again.Names() {
			ts = append(ts, again.Tensors[n])
		}
		var w2 bytes.Buffer
		if err := Write(&w2, again.Metadata, ts); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatal("write → read → write is not stable")
		}
	})
}

// TestWriteFileErrors: WriteFile's errors name the target, never a
// temporary file, and a device is written in place (/dev/full: no space).
func TestWriteFileErrors(t *testing.T) {
	ts := []Tensor{F64("c", []int{2}, []float64{1, 2})}
	full := devtest.Full(t)
	if err := WriteFile(full, nil, ts); err == nil || !strings.Contains(err.Error(), "write "+full+": no space left on device") {
		t.Errorf("WriteFile(%s): %v", full, err)
	}
	if !devtest.IsDevice(full) {
		t.Fatalf("%s was replaced", full)
	}
	missing := filepath.Join(t.TempDir(), "no", "m.safetensors")
	err := WriteFile(missing, nil, ts)
	if err == nil || !strings.Contains(err.Error(), missing) || strings.Contains(err.Error(), "/.m.safetensors") {
		t.Errorf("WriteFile into a missing directory: %v, want an error naming %s only", err, missing)
	}
}

// TestChecksum: WriteChecksummed's files read back Checked with the same
// tensors as Write's, and every single flipped bit of such a file is an
// error — or, where it renames the checksum tensor, a file without a
// checksum that holds a tensor the original did not, which callers that
// know their tensors refuse.
func TestChecksum(t *testing.T) {
	meta := map[string]string{"format": "x/1", "k": "v"}
	ts := []Tensor{F32("w", []int{3}, []float32{1, -2, 3}), I64("i", []int{2}, []int64{4, 5}), {Name: "u", DType: "U8", Shape: []int{3}, Data: []byte{1, 2, 3}}}
	var plain, summed bytes.Buffer
	if err := Write(&plain, meta, ts); err != nil {
		t.Fatal(err)
	}
	if err := WriteChecksummed(&summed, meta, ts); err != nil {
		t.Fatal(err)
	}
	b := summed.Bytes()
	f, err := Read(bytes.NewReader(b), int64(len(b)))
	if err != nil || !f.Checked || !slices.Equal(f.Names(), []string{"i", "u", "w"}) {
		t.Fatalf("read %v, checked %v, names %v", err, f != nil && f.Checked, f.Names())
	}
	p, err := Read(bytes.NewReader(plain.Bytes()), int64(plain.Len()))
	if err != nil || p.Checked {
		t.Fatalf("a file without a checksum: %v, checked %v", err, p.Checked)
	}
	if err := WriteChecksummed(io.Discard, nil, []Tensor{F32(ChecksumName, []int{1}, []float32{1})}); err == nil {
		t.Fatal("a tensor named like the checksum was written")
	}
	renamed := 0
	for i := range 8 * len(b) {
		c := bytes.Clone(b)
		c[i/8] ^= 1 << (i % 8)
		f, err := Read(bytes.NewReader(c), int64(len(c)))
		if err == nil {
			if f.Checked || len(f.Tensors) != len(ts)+1 {
				t.Fatalf("bit %d flipped: read without error, checked %v, tensors %v", i, f.Checked, f.Names())
			}
			renamed++
			continue
		}
		if !strings.HasPrefix(err.Error(), "safetensors: ") {
			t.Fatalf("bit %d: error %v", i, err)
		}
	}
	t.Logf("%d bits: all errors but %d that rename the checksum tensor", 8*len(b), renamed)
	// A changed tensor value is ErrChecksum.
	c := bytes.Clone(b)
	c[len(c)-sha256.Size-1] ^= 1
	if _, err := Read(bytes.NewReader(c), int64(len(c))); !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("a flipped data bit: %v", err)
	}
}
