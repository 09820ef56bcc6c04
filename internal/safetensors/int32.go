package safetensors

import "encoding/binary"

// I32 returns an int32 tensor holding v. It panics if shape does not hold
// exactly len(v) values.
func I32(name string, shape []int, v []int32) Tensor {
	return newTensor("I32", name, shape, v, func(b []byte, x int32) { binary.LittleEndian.PutUint32(b, uint32(x)) })
}

// Int32s decodes an I32 tensor.
func (t Tensor) Int32s() ([]int32, error) {
	return values(t, "I32", func(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) })
}
