package data

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
)

// Fingerprint identifies the contents of a data set: "sha256:" and the
// first 16 hexadecimal digits of the SHA-256 of its size, rows (dense
// float32 values, or a sparse row's indices and values), labels and
// weights. Two data sets with the same rows in the same order, the same
// labels and weights have the same fingerprint, whatever file they came
// from; any changed value changes it. A model records the fingerprint of
// its training data, a checkpoint that of the data it resumes on.
func Fingerprint(ds *Dataset) string {
	h := sha256.New()
	var buf []byte
	flush := func() {
		h.Write(buf)
		buf = buf[:0]
	}
	u64 := func(v uint64) { buf = binary.LittleEndian.AppendUint64(buf, v) }
	buf = append(buf, "nsvm-data/1"...)
	u64(uint64(ds.N))
	u64(uint64(ds.D))
	f32s := func(v []float32) {
		for _, x := range v {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
			if len(buf) >= 1<<16 {
				flush()
			}
		}
	}
	if ds.Sparse != nil {
		for i := range ds.N {
			r := ds.Sparse.Row(i)
			u64(uint64(len(r.Idx)))
			for _, j := range r.Idx {
				buf = binary.LittleEndian.AppendUint32(buf, uint32(j))
			}
			f32s(r.Val)
		}
	} else {
		f32s(ds.X)
	}
	for _, v := range [][]float64{ds.Y, ds.W} {
		u64(uint64(len(v)))
		for _, x := range v {
			u64(math.Float64bits(x))
			if len(buf) >= 1<<16 {
				flush()
			}
		}
	}
	flush()
	return "sha256:" + hex.EncodeToString(h.Sum(nil)[:8])
}
