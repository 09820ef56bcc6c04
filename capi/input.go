package main

import (
	"bytes"
	"fmt"
	"math"
	"unsafe"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

// Kinds of input and element types: nsvm.h's NSVM_DENSE … and NSVM_F32 …
// (main.go checks that they agree).
const (
	kindDense = 0
	kindCSR   = 1
	kindCSV   = 2

	typeF32 = 0
	typeF64 = 1
	typeI32 = 2
	typeI64 = 3
)

// maxValues bounds the values (rows × cols, or the nonzeros) of one input:
// 2⁴⁰, far beyond memory, so that sizes cannot overflow.
const maxValues = 1 << 40

// input is one block of rows handed over the C ABI (nsvm_input in nsvm.h):
// dense values in row-major or column-major order, compressed sparse rows,
// or CSV text. The pointers are the caller's memory: read during a call,
// never written, never kept.
type input struct {
	kind, dtype, indexType int
	fortran                bool
	rows, cols             int
	values                 unsafe.Pointer
	indptr, indices        unsafe.Pointer
	nnz                    int
	fillMissing            bool
}

// badData returns an error wrapping nsvm.ErrBadData.
func badData(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{nsvm.ErrBadData}, args...)...)
}

// check reports whether the description of the input is consistent, before
// any of its memory is read.
func (in *input) check() error {
	if in.rows < 0 || in.cols < 0 || in.nnz < 0 {
		return badData("negative sizes (%d rows, %d columns, %d values)", in.rows, in.cols, in.nnz)
	}
	if in.nnz > maxValues || in.cols > 0 && in.rows > maxValues/in.cols {
		return badData("%d rows × %d columns (%d values) is too large", in.rows, in.cols, in.nnz)
	}
	switch in.kind {
	case kindDense:
		if in.dtype != typeF32 && in.dtype != typeF64 {
			return badData("dense values must be float32 or float64 (type %d)", in.dtype)
		}
		if in.rows*in.cols > 0 && in.values == nil {
			return badData("no values for %d rows × %d columns", in.rows, in.cols)
		}
	case kindCSR:
		if in.dtype != typeF32 && in.dtype != typeF64 {
			return badData("sparse values must be float32 or float64 (type %d)", in.dtype)
		}
		if in.indexType != typeI32 && in.indexType != typeI64 {
			return badData("sparse indices must be int32 or int64 (type %d)", in.indexType)
		}
		if in.cols > math.MaxInt32 {
			return badData("%d columns: sparse rows hold at most %d", in.cols, math.MaxInt32)
		}
		if in.indptr == nil || in.nnz > 0 && (in.indices == nil || in.values == nil) {
			return badData("sparse rows without their row pointers, indices or values")
		}
	case kindCSV:
		if in.nnz > 0 && in.values == nil {
			return badData("no CSV text")
		}
	default:
		return badData("unknown kind of input %d (want dense, CSR or CSV)", in.kind)
	}
	return nil
}

// notFinite is the error of a value that is NaN, infinite, or too large
// for float32, the type the library computes features in.
func notFinite(i, j int, v float64) error {
	if v-v == 0 {
		return badData("row %d, feature %d: value %v is too large: features must lie within ±%.3g (float32's range); rescale them", i, j, v, math.MaxFloat32)
	}
	return badData("row %d, feature %d: value is %v; the input must be finite (no NaN or infinity)", i, j, v)
}

// dense returns the rows of a dense input as row-major float32 values,
// checked finite: the caller's memory itself when it already is that and
// view is set, else a copy.
func (in *input) dense(view bool) ([]float32, error) {
	n, d := in.rows, in.cols
	if n*d == 0 {
		return make([]float32, 0), nil
	}
	if in.dtype == typeF32 {
		src := unsafe.Slice((*float32)(in.values), n*d)
		if view && !in.fortran {
			return src, checkFinite(src, n, d)
		}
		x := make([]float32, n*d)
		return x, convert(x, src, n, d, in.fortran)
	}
	x := make([]float32, n*d)
	return x, convert(x, unsafe.Slice((*float64)(in.values), n*d), n, d, in.fortran)
}

// checkFinite reports the first value of the n×d row-major x that is NaN
// or infinite.
func checkFinite(x []float32, n, d int) error {
	for i := range n {
		for j, v := range x[i*d : (i+1)*d] {
			if f := float64(v); f-f != 0 {
				return notFinite(i, j, f)
			}
		}
	}
	return nil
}

// convert sets dst (n×d, row-major) to the values of src, row-major or
// column-major (fortran), as float32; every value must be finite (a
// float64 beyond float32's range is not).
func convert[T float32 | float64](dst []float32, src []T, n, d int, fortran bool) error {
	if !fortran {
		for i := range n {
			out := dst[i*d : (i+1)*d]
			for j, v := range src[i*d : (i+1)*d] {
				f := float32(v)
				if g := float64(f); g-g != 0 {
					return notFinite(i, j, float64(v))
				}
				out[j] = f
			}
		}
		return nil
	}
	for j := range d {
		for i, v := range src[j*n : (j+1)*n] {
			f := float32(v)
			if g := float64(f); g-g != 0 {
				return notFinite(i, j, float64(v))
			}
			dst[i*d+j] = f
		}
	}
	return nil
}

// csr returns a copy of the rows of a CSR input in the library's types. The
// structure (pointers, increasing columns) is checked by
// data.Dataset.Validate; here the column indices' range and the values.
func (in *input) csr() (*data.CSR, error) {
	m := &data.CSR{Ptr: make([]int64, in.rows+1), Idx: make([]int32, in.nnz), Val: make([]float32, in.nnz)}
	if in.indexType == typeI32 {
		for i, v := range unsafe.Slice((*int32)(in.indptr), in.rows+1) {
			m.Ptr[i] = int64(v)
		}
	} else {
		copy(m.Ptr, unsafe.Slice((*int64)(in.indptr), in.rows+1))
	}
	col := func(k int, j int64) error {
		if j < 0 || j >= int64(in.cols) {
			return badData("sparse value %d: column %d is outside [0, %d)", k, j, in.cols)
		}
		m.Idx[k] = int32(j)
		return nil
	}
	if in.nnz > 0 {
		if in.indexType == typeI32 {
			for k, j := range unsafe.Slice((*int32)(in.indices), in.nnz) {
				if err := col(k, int64(j)); err != nil {
					return nil, err
				}
			}
		} else {
			for k, j := range unsafe.Slice((*int64)(in.indices), in.nnz) {
				if err := col(k, j); err != nil {
					return nil, err
				}
			}
		}
		// The row of a value is found only for the error message.
		row := func(k int) int {
			for i := range in.rows {
				if int64(k) < m.Ptr[i+1] {
					return i
				}
			}
			return in.rows
		}
		if in.dtype == typeF32 {
			for k, v := range unsafe.Slice((*float32)(in.values), in.nnz) {
				if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
					return nil, notFinite(row(k), int(m.Idx[k]), f)
				}
				m.Val[k] = v
			}
		} else {
			for k, v := range unsafe.Slice((*float64)(in.values), in.nnz) {
				f := float32(v)
				if math.IsNaN(v) || math.IsInf(float64(f), 0) {
					return nil, notFinite(row(k), int(m.Idx[k]), v)
				}
				m.Val[k] = f
			}
		}
	}
	return m, nil
}

// csvSource names CSV input in error messages.
const csvSource = "data frame"

// csv reads CSV input as nsvm train reads a CSV file whose header names the
// columns and whose last column holds the labels (ignored here): with the
// columns cols of a model, or finding them (cols nil).
func (in *input) csv(cols []data.Column) (*data.Dataset, error) {
	var text []byte
	if in.nnz > 0 {
		text = unsafe.Slice((*byte)(in.values), in.nnz)
	}
	opt := data.OpenOptions{Format: "csv", CSV: data.CSVOptions{LabelCol: data.LabelLast, Header: data.HeaderYes,
		Comma: ',', Columns: cols, FillMissing: in.fillMissing}}
	ds, err := data.OpenReader(bytes.NewReader(text), csvSource, opt)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", nsvm.ErrBadData, err)
	}
	if ds.N != in.rows {
		return nil, badData("the CSV text holds %d rows, want %d", ds.N, in.rows)
	}
	return ds, nil
}

// dataset returns the rows of the input as a data set (labels all 0), its
// values copied or read: the form Fit and PredictDataset take.
func (in *input) dataset(cols []data.Column) (*data.Dataset, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	ds := &data.Dataset{N: in.rows, D: in.cols}
	var err error
	switch in.kind {
	case kindDense:
		ds.X, err = in.dense(false)
	case kindCSR:
		ds.Sparse, err = in.csr()
	case kindCSV:
		return in.csv(cols)
	}
	if err != nil {
		return nil, err
	}
	ds.Y = make([]float64, ds.N)
	if ds.Sparse != nil {
		// Checked as they are (increasing columns), then laid out as nsvm
		// train lays out the same rows read from LIBSVM text.
		if err := ds.Validate(); err != nil {
			return nil, badData("%v", err)
		}
		if err := ds.LayOut(data.LayoutAuto); err != nil {
			return nil, badData("%v", err)
		}
	}
	return ds, nil
}
