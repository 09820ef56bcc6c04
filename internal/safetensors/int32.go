package safetensors

import (
	"encoding/binary"
	"slices"
)

// I32 returns an int32 tensor holding v. It panics if shape does not hold
// exactly len(v) values.
func I32(name string, shape []int, v []int32) Tensor {
	checkShape("I32", name, shape, len(v))
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return Tensor{Name: name, DType: "I32", Shape: slices.Clone(shape), Data: b}
}

// Int32s decodes an I32 tensor.
func (t Tensor) Int32s() ([]int32, error) {
	n, err := t.check("I32")
	if err != nil {
		return nil, err
	}
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return v, nil
}
