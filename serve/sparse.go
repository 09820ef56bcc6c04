package serve

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/nsvm-go/nsvm/data"
)

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

// sparseRow is the form of a sparse instance, for error messages.
const sparseRow = `{"indices": [...], "values": [...]}`

// parseSparse reads sparse V1 instances, the 0-based feature indices,
// increasing, and their values, as SciPy's and TensorFlow's sparse rows have
// them (features not listed are 0),
//
//	[{"indices": [0, 7, 912], "values": [0.5, 1, 0.25]}, …]
//
// into a sparse data set of width d. alloc is called with the bytes the
// data set will take (an upper bound, from the commas and brackets of raw)
// before they are allocated; its error is returned as it is.
func parseSparse(raw []byte, d int, alloc func(int64) error) (*data.Dataset, error) {
	// First pass: the instances must all be objects; count them.
	n := 0
	err := scanArray(raw, func(v []byte) error {
		if v[0] != '{' {
			return fmt.Errorf("instance %d is %s; want a sparse row %s", n, describe(v), sparseRow)
		}
		n++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("no instances")
	}
	// Each stored value follows one index: nonzeros ≤ half the values.
	nnz := maxTensorValues(raw)/2 + 1
	if err := alloc(int64(nnz)*8 + int64(n+1)*8 + int64(n)*8); err != nil {
		return nil, err
	}
	m := &data.CSR{Ptr: make([]int64, 1, n+1), Idx: make([]int32, 0, nnz), Val: make([]float32, 0, nnz)}
	i := 0
	err = scanArray(raw, func(v []byte) error {
		lo := len(m.Idx)
		var seenIdx, seenVal bool
		err := scanObjectFast(v, []string{"indices", "values"}, func(key string, val []byte) error {
			var err error
			switch {
			case key == "indices":
				seenIdx = true
				m.Idx, err = parseIndices(m.Idx, val, d)
			case key == "values":
				seenVal = true
				var shape []int
				m.Val, shape, err = parseTensorTo(m.Val, val, v1Values)
				if err == nil && len(shape) != 1 {
					err = errors.New("values must be a flat array of numbers")
				}
			default:
				return fmt.Errorf("unexpected key %s; want a sparse row %s", quote(key), sparseRow)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("instance %d: %w", i, err)
		}
		if !seenIdx || !seenVal {
			return fmt.Errorf("instance %d: want a sparse row %s (an empty row has empty arrays)", i, sparseRow)
		}
		if len(m.Idx) != len(m.Val) {
			return fmt.Errorf("instance %d: %d indices and %d values", i, len(m.Idx)-lo, len(m.Val)-lo)
		}
		m.Ptr = append(m.Ptr, int64(len(m.Val)))
		i++
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &data.Dataset{Sparse: m, N: n, D: d, Y: make([]float64, n)}, nil
}

// parseIndices appends the increasing indices in [0, d) of the JSON array b
// to dst.
func parseIndices(dst []int32, b []byte, d int) ([]int32, error) {
	first := len(dst)
	err := scanArray(b, func(v []byte) error {
		k := len(dst) - first
		if len(v) > maxNumber {
			return fmt.Errorf("index %d has %d characters; at most %d", k, len(v), maxNumber)
		}
		j, err := strconv.ParseInt(unsafeString(v), 10, 64)
		switch {
		case err != nil:
			return fmt.Errorf("index %d is %s; want an integer", k, describe(v))
		case j < 0 || j >= int64(d):
			return fmt.Errorf("index %d is outside [0, %d)", j, d)
		case k > 0 && int32(j) <= dst[len(dst)-1]:
			return fmt.Errorf("index %d after %d; indices must increase", j, dst[len(dst)-1])
		}
		dst = append(dst, int32(j))
		return nil
	})
	return dst, err
}
