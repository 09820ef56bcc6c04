package libsvm

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/numparse"
)

// Row is one row of LIBSVM's index:value nodes as svm-train and
// svm-predict hold it: indices as written, strictly increasing (features
// from 1; index 0 holds the serial of a row of precomputed kernel values),
// values in float64. It is what Model predicts on, so that its
// decision values are svm-predict's, and what PrecomputedMatrix reads.
type Row struct {
	Index []int32
	Value []float64
}

// RowOf returns x (0-based columns) with LIBSVM's indices, column + 1,
// its zeros left out.
func RowOf(x data.Vec) Row {
	var r Row
	for j, v := range x.Nonzeros() {
		r.Index = append(r.Index, int32(j+1))
		r.Value = append(r.Value, float64(v))
	}
	return r
}

// Vec returns the row as a sparse data.Vec of 0-based columns (index − 1)
// and float32 values; a node of index 0 (a serial) is left out.
func (r Row) Vec() data.Vec {
	var v data.Vec
	for k, i := range r.Index {
		if i < 1 {
			continue
		}
		v.Idx = append(v.Idx, i-1)
		v.Val = append(v.Val, float32(r.Value[k]))
	}
	if v.Idx == nil {
		v.Idx, v.Val = []int32{}, []float32{}
	}
	return v
}

// Find returns the position of the node of index i in the row, or −1.
func (r Row) Find(i int32) int { return searchIndex(r.Index, i) }

// At returns the value at index i, 0 if the row has no node there.
func (r Row) At(i int) float64 {
	if i < 0 || i > math.MaxInt32 {
		return 0
	}
	if k := searchIndex(r.Index, int32(i)); k >= 0 {
		return r.Value[k]
	}
	return 0
}

// Check reports a row whose indices are negative or not increasing, or
// whose values are not finite.
func (r Row) Check() error {
	if len(r.Index) != len(r.Value) {
		return fmt.Errorf("%d indices and %d values", len(r.Index), len(r.Value))
	}
	prev := int32(-1)
	for k, i := range r.Index {
		if i <= prev {
			return fmt.Errorf("index %d after %d: indices must increase from 0", i, prev)
		}
		if v := r.Value[k]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("value %g at index %d", v, i)
		}
		prev = i
	}
	return nil
}

// MaxIndex returns the row's largest index (−1 when empty).
func (r Row) MaxIndex() int {
	if len(r.Index) == 0 {
		return -1
	}
	return int(r.Index[len(r.Index)-1])
}

// parseNodes parses fields "index:value" into r, appending; its errors
// leave naming the line to the caller.
func parseNodes(r *Row, fields []string) error {
	for _, f := range fields {
		is, vs, ok := strings.Cut(f, ":")
		if !ok {
			return fmt.Errorf("%s is not index:value", data.Quote(f))
		}
		i, err := strconv.ParseInt(is, 10, 32)
		if err != nil || i < 0 {
			return fmt.Errorf("bad index %s", data.Quote(is))
		}
		v, err := numparse.String64(vs)
		if err != nil {
			return fmt.Errorf("bad value %s at index %d", data.Quote(vs), i)
		}
		if n := len(r.Index); n > 0 && int32(i) <= r.Index[n-1] {
			return fmt.Errorf("index %d after %d: indices must increase", i, r.Index[n-1])
		}
		r.Index = append(r.Index, int32(i))
		r.Value = append(r.Value, v)
	}
	return nil
}

// ReadRows reads LIBSVM's data format, one point per line,
//
//	label index:value index:value …
//
// as svm-train and svm-predict read it: values in float64, indices from 0
// (0 is a precomputed kernel row's "0:serial"), strictly increasing. Every
// line must hold a point (svm-predict rejects blank lines too). Unlike
// data.ReadLIBSVM it keeps what Model and PrecomputedMatrix need
// exactly; errors name the line.
func ReadRows(r io.Reader) (labels []float64, rows []Row, err error) {
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		s, rerr := br.ReadString('\n')
		if rerr != nil && rerr != io.EOF {
			return nil, nil, fmt.Errorf("svm: line %d: %w", line, rerr)
		}
		if rerr == io.EOF && s == "" {
			return labels, rows, nil
		}
		fields := strings.Fields(s)
		if len(fields) == 0 {
			return nil, nil, fmt.Errorf("svm: line %d: no label", line)
		}
		y, err := strconv.ParseFloat(fields[0], 64)
		if err != nil || math.IsNaN(y) || math.IsInf(y, 0) {
			return nil, nil, fmt.Errorf("svm: line %d: bad label %q", line, fields[0])
		}
		var row Row
		if err := parseNodes(&row, fields[1:]); err != nil {
			return nil, nil, fmt.Errorf("svm: line %d: %v", line, err)
		}
		labels = append(labels, y)
		rows = append(rows, row)
		if rerr == io.EOF {
			return labels, rows, nil
		}
	}
}

// searchIndex returns the position of index i in the increasing indices
// idx, or −1: position i itself in a complete row, else by bisection.
func searchIndex(idx []int32, i int32) int {
	if int(i) < len(idx) && idx[i] == i {
		return int(i)
	}
	lo, hi := 0, len(idx)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if idx[mid] < i {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(idx) && idx[lo] == i {
		return lo
	}
	return -1
}
