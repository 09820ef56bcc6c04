package data

import (
	"fmt"
	"iter"
	"math"
)

// CSR holds the N rows of an N×D matrix in compressed sparse row form, as
// LIBSVM keeps its rows of index:value nodes and SciPy its csr_matrix: the
// nonzeros of row i are Val[Ptr[i]:Ptr[i+1]] at the 0-based columns
// Idx[Ptr[i]:Ptr[i+1]], in strictly increasing order. Ptr has N+1 entries,
// Ptr[0] = 0.
type CSR struct {
	Ptr []int64
	Idx []int32
	Val []float32
}

// Rows returns the number of rows.
func (m *CSR) Rows() int { return len(m.Ptr) - 1 }

// NNZ returns the number of stored values.
func (m *CSR) NNZ() int { return len(m.Val) }

// Row returns row i as a sparse vector aliasing m.
func (m *CSR) Row(i int) Vec {
	a, b := m.Ptr[i], m.Ptr[i+1]
	return Vec{Idx: m.Idx[a:b:b], Val: m.Val[a:b:b]}
}

// Bytes returns the memory the matrix holds.
func (m *CSR) Bytes() int64 { return 8*int64(len(m.Ptr)) + 8*int64(len(m.Val)) }

// check reports the first inconsistency of m as an N×D matrix: lengths,
// pointers, column indices out of range or not increasing, non-finite
// values.
func (m *CSR) check(n, d int) error {
	if len(m.Ptr) != n+1 {
		return fmt.Errorf("data: the sparse rows have %d row pointers, want N+1 = %d", len(m.Ptr), n+1)
	}
	if len(m.Idx) != len(m.Val) {
		return fmt.Errorf("data: the sparse rows have %d indices and %d values", len(m.Idx), len(m.Val))
	}
	if m.Ptr[0] != 0 || m.Ptr[n] != int64(len(m.Val)) {
		return fmt.Errorf("data: the sparse row pointers span [%d, %d], want [0, %d]", m.Ptr[0], m.Ptr[n], len(m.Val))
	}
	for i := range n {
		a, b := m.Ptr[i], m.Ptr[i+1]
		if b < a {
			return fmt.Errorf("data: row %d: sparse row pointers decrease (%d to %d)", i, a, b)
		}
		prev := int32(-1)
		for k := a; k < b; k++ {
			j := m.Idx[k]
			if j <= prev || int(j) >= d {
				if j <= prev {
					return fmt.Errorf("data: row %d: sparse column %d after %d, columns must increase", i, j, prev)
				}
				return fmt.Errorf("data: row %d: sparse column %d is outside [0, %d)", i, j, d)
			}
			prev = j
			if f := float64(m.Val[k]); math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("data: row %d, feature %d: value is %v", i, j, f)
			}
		}
	}
	return nil
}

// Vec is one row of a data set: dense (Idx == nil: Val holds every
// feature) or sparse (the nonzeros Val at the increasing 0-based columns
// Idx). It is the one row type the solvers and kernels take, so that they
// are not written twice, for dense and for sparse rows.
type Vec struct {
	Idx []int32
	Val []float32
}

// Dense returns a dense row as a Vec.
func Dense(x []float32) Vec { return Vec{Val: x} }

// Sparse reports whether v is sparse.
func (v Vec) Sparse() bool { return v.Idx != nil }

// Nonzeros yields the column and value of each nonzero of v, in the order
// v stores them (increasing columns for a dense row).
func (v Vec) Nonzeros() iter.Seq2[int, float32] {
	return func(yield func(int, float32) bool) {
		for k, x := range v.Val {
			if x == 0 {
				continue
			}
			j := k
			if v.Idx != nil {
				j = int(v.Idx[k])
			}
			if !yield(j, x) {
				return
			}
		}
	}
}

// Dot returns v·w for a dense w at least as long as v's columns, summed in
// float64.
func (v Vec) Dot(w []float32) float64 {
	var s float64
	if v.Idx == nil {
		w = w[:len(v.Val)]
		for j, x := range v.Val {
			s += float64(x) * float64(w[j])
		}
		return s
	}
	for k, j := range v.Idx {
		s += float64(v.Val[k]) * float64(w[j])
	}
	return s
}

// Dot64 returns v·w for a dense float64 w.
func (v Vec) Dot64(w []float64) float64 {
	var s float64
	if v.Idx == nil {
		w = w[:len(v.Val)]
		for j, x := range v.Val {
			s += float64(x) * w[j]
		}
		return s
	}
	for k, j := range v.Idx {
		s += float64(v.Val[k]) * w[j]
	}
	return s
}

// AddTo adds a·v to the dense w.
func (v Vec) AddTo(w []float64, a float64) {
	if v.Idx == nil {
		w = w[:len(v.Val)]
		for j, x := range v.Val {
			w[j] += a * float64(x)
		}
		return
	}
	for k, j := range v.Idx {
		w[j] += a * float64(v.Val[k])
	}
}

// SqNorm returns ‖v‖².
func (v Vec) SqNorm() float64 {
	var s float64
	for _, x := range v.Val {
		s += float64(x) * float64(x)
	}
	return s
}

// Scatter writes v into the dense row dst (len ≥ v's columns), which must
// be zero where v is sparse; Gather's inverse.
func (v Vec) Scatter(dst []float32) {
	if v.Idx == nil {
		copy(dst, v.Val)
		return
	}
	for k, j := range v.Idx {
		dst[j] = v.Val[k]
	}
}

// Clear zeroes in dst what Scatter wrote there.
func (v Vec) Clear(dst []float32) {
	if v.Idx == nil {
		clear(dst[:len(v.Val)])
		return
	}
	for _, j := range v.Idx {
		dst[j] = 0
	}
}

// DotVec returns a·b for two rows of the same width, sparse or dense: a
// merge of the nonzeros for two sparse rows, a gather for one.
func DotVec(a, b Vec) float64 {
	switch {
	case a.Idx == nil:
		return b.Dot(a.Val)
	case b.Idx == nil:
		return a.Dot(b.Val)
	}
	var s float64
	i, j := 0, 0
	for i < len(a.Idx) && j < len(b.Idx) {
		switch ai, bj := a.Idx[i], b.Idx[j]; {
		case ai == bj:
			s += float64(a.Val[i]) * float64(b.Val[j])
			i++
			j++
		case ai < bj:
			i++
		default:
			j++
		}
	}
	return s
}

// Layouts of a data set's rows (OpenOptions.Layout).
const (
	// LayoutAuto keeps LIBSVM and sparse NumPy data sparse when they are
	// wide and sparse (SparseLayout), dense otherwise.
	LayoutAuto = ""
	// LayoutDense reads every file into dense rows.
	LayoutDense = "dense"
	// LayoutSparse reads LIBSVM and sparse NumPy files into sparse rows.
	LayoutSparse = "sparse"
)

// sparseMinD is the width from which SparseLayout keeps sparse rows.
const sparseMinD = 1024

// SparseLayout reports whether n rows of d features with nnz nonzeros are
// kept sparse by LayoutAuto: at least 1024 features of which at most a
// tenth are nonzero on average. Narrower or denser data are faster dense,
// and their dense form is at most a few times the sparse one.
func SparseLayout(n, d, nnz int) bool {
	return d >= sparseMinD && int64(nnz)*10 <= int64(n)*int64(d)
}

// ToCSR returns the dense n×d row-major x as CSR rows (zeros left out).
func ToCSR(x []float32, n, d int) *CSR {
	m := &CSR{Ptr: make([]int64, n+1)}
	for i := range n {
		for j, v := range x[i*d : (i+1)*d] {
			if v != 0 {
				m.Idx = append(m.Idx, int32(j))
				m.Val = append(m.Val, v)
			}
		}
		m.Ptr[i+1] = int64(len(m.Val))
	}
	return m
}

// Dense returns the rows of m as a dense n×d row-major matrix.
func (m *CSR) Dense(d int) []float32 {
	n := m.Rows()
	x := make([]float32, n*d)
	for i := range n {
		m.Row(i).Scatter(x[i*d : (i+1)*d])
	}
	return x
}

// subset returns the rows idx of m, in that order.
func (m *CSR) subset(idx []int) *CSR {
	nnz := int64(0)
	for _, i := range idx {
		nnz += m.Ptr[i+1] - m.Ptr[i]
	}
	s := &CSR{Ptr: make([]int64, len(idx)+1), Idx: make([]int32, 0, nnz), Val: make([]float32, 0, nnz)}
	for k, i := range idx {
		r := m.Row(i)
		s.Idx = append(s.Idx, r.Idx...)
		s.Val = append(s.Val, r.Val...)
		s.Ptr[k+1] = int64(len(s.Val))
	}
	return s
}
