package safetensors

import (
	"bytes"
	"math"
	"slices"
	"testing"
)

func TestInt32RoundTrip(t *testing.T) {
	v := []int32{0, -1, 7, math.MaxInt32, math.MinInt32}
	var b bytes.Buffer
	if err := Write(&b, nil, []Tensor{I32("i", []int{5}, v)}); err != nil {
		t.Fatal(err)
	}
	f, err := Read(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Tensors["i"].Int32s()
	if err != nil || !slices.Equal(got, v) {
		t.Fatalf("Int32s = %v, %v; want %v", got, err, v)
	}
	if _, err := f.Tensors["i"].Int64s(); err == nil {
		t.Error("Int64s of an I32 tensor: no error")
	}
}
