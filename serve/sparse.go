package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/nsvm-go/nsvm/data"
)

// sparseInstance is one sparse row of a V1 request: the 0-based feature
// indices, increasing, and their values, as SciPy's and TensorFlow's
// sparse rows have them (features not listed are 0).
type sparseInstance struct {
	Indices []int64   `json:"indices"`
	Values  []float64 `json:"values"`
}

// sparseInstances reports whether V1 instances are sparse rows: an array
// whose first element is an object.
func sparseInstances(raw []byte) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '[' {
		return false
	}
	raw = bytes.TrimLeft(raw[1:], " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}

// parseSparse reads sparse V1 instances,
//
//	[{"indices": [0, 7, 912], "values": [0.5, 1, 0.25]}, …]
//
// into a sparse data set of width d.
func parseSparse(raw []byte, d int) (*data.Dataset, error) {
	var in []sparseInstance
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("sparse rows must be objects {\"indices\": [...], \"values\": [...]}: %v", err)
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("no instances")
	}
	m := &data.CSR{Ptr: make([]int64, len(in)+1)}
	for i, r := range in {
		if len(r.Indices) != len(r.Values) {
			return nil, fmt.Errorf("instance %d: %d indices and %d values", i, len(r.Indices), len(r.Values))
		}
		prev := int64(-1)
		for k, j := range r.Indices {
			switch {
			case j < 0 || j >= int64(d):
				return nil, fmt.Errorf("instance %d: index %d is outside [0, %d)", i, j, d)
			case j <= prev:
				return nil, fmt.Errorf("instance %d: index %d after %d; indices must increase", i, j, prev)
			}
			prev = j
			v := r.Values[k]
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxFloat32 {
				return nil, fmt.Errorf("instance %d: value %v of index %d is not a finite float32", i, v, j)
			}
			m.Idx = append(m.Idx, int32(j))
			m.Val = append(m.Val, float32(v))
		}
		m.Ptr[i+1] = int64(len(m.Val))
	}
	return &data.Dataset{Sparse: m, N: len(in), D: d, Y: make([]float64, len(in))}, nil
}
