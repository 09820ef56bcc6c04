package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
)

// field is one decoded protobuf field: a varint, or bytes (a string, a
// nested message or packed numbers).
type field struct {
	num   int
	wire  int
	v     uint64
	bytes []byte
}

// decode splits a protobuf message into its fields, refusing malformed
// input: the reader a test holds the writer to.
func decode(b []byte) ([]field, error) {
	var fs []field
	for len(b) > 0 {
		k, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, fmt.Errorf("bad key")
		}
		b = b[n:]
		f := field{num: int(k >> 3), wire: int(k & 7)}
		switch f.wire {
		case 0:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, fmt.Errorf("field %d: bad varint", f.num)
			}
			f.v, b = v, b[n:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return nil, fmt.Errorf("field %d: bad length", f.num)
			}
			f.bytes, b = b[n:n+int(l)], b[n+int(l):]
		case 5:
			if len(b) < 4 {
				return nil, fmt.Errorf("field %d: short fixed32", f.num)
			}
			f.v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		default:
			return nil, fmt.Errorf("field %d: wire type %d", f.num, f.wire)
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// msgs returns the nested messages of field num.
func msgs(fs []field, num int) [][]field {
	var out [][]field
	for _, f := range fs {
		if f.num == num && f.wire == 2 {
			m, err := decode(f.bytes)
			if err != nil {
				panic(err)
			}
			out = append(out, m)
		}
	}
	return out
}

func str(fs []field, num int) string {
	for _, f := range fs {
		if f.num == num && f.wire == 2 {
			return string(f.bytes)
		}
	}
	return ""
}

func strs(fs []field, num int) []string {
	var out []string
	for _, f := range fs {
		if f.num == num && f.wire == 2 {
			out = append(out, string(f.bytes))
		}
	}
	return out
}

func num(fs []field, n int) (int64, bool) {
	for _, f := range fs {
		if f.num == n && f.wire == 0 {
			return int64(f.v), true
		}
	}
	return 0, false
}

// packedInts returns the packed repeated integers of field n (or the
// unpacked ones).
func packedInts(fs []field, n int) []int64 {
	var out []int64
	for _, f := range fs {
		switch {
		case f.num == n && f.wire == 0:
			out = append(out, int64(f.v))
		case f.num == n && f.wire == 2:
			b := f.bytes
			for len(b) > 0 {
				v, k := binary.Uvarint(b)
				out = append(out, int64(v))
				b = b[k:]
			}
		}
	}
	return out
}

func packedFloats(fs []field, n int) []float32 {
	var out []float32
	for _, f := range fs {
		if f.num == n && f.wire == 2 {
			for i := 0; i+4 <= len(f.bytes); i += 4 {
				out = append(out, math.Float32frombits(binary.LittleEndian.Uint32(f.bytes[i:])))
			}
		}
	}
	return out
}
