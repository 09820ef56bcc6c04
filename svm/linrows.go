package svm

import (
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/vec"
)

// linRows reads the points of a problem, dense or sparse, in the inner loops
// of the linear solvers. It is Problem.vec taken apart: parts returns a
// row's two slices, which the compiler keeps in registers, where a
// data.Vec (48 bytes) lives in memory and Problem.vec copies the whole
// Problem (its receiver) on every inlined call; in a loop of visits to
// short rows that costs a fifth of the time.
type linRows struct {
	x  []float32
	d  int
	sp *data.CSR
}

func linRowsOf(p Problem) linRows { return linRows{x: p.X, d: p.D, sp: p.Sparse} }

// parts returns point i as Problem.vec(i) would: its column indices (nil
// for a dense row) and its values.
func (r *linRows) parts(i int) ([]int32, []float32) {
	if r.sp != nil {
		a, b := r.sp.Ptr[i], r.sp.Ptr[i+1]
		return r.sp.Idx[a:b:b], r.sp.Val[a:b:b]
	}
	return nil, r.x[i*r.d : i*r.d+r.d]
}

// touch loads the first and last values of point i, so that the cache
// misses of a visit in random order overlap with an earlier visit's work;
// the caller keeps the sum alive.
func (r *linRows) touch(i int) float32 {
	if sp := r.sp; sp != nil {
		if a, b := sp.Ptr[i], sp.Ptr[i+1]; a < b {
			return sp.Val[a] + sp.Val[b-1] + float32(sp.Idx[a]^sp.Idx[b-1])
		}
		return 0
	}
	return r.x[i*r.d] + r.x[i*r.d+r.d-1]
}

// dotRow returns wᵀx for the row x = (idx, val) of rows.parts (w without a
// bias weight, at least as long as the row's columns).
func dotRow(w []float64, idx []int32, val []float32) float64 {
	if idx == nil {
		return vec.DotMixed(w[:len(val)], val)
	}
	return dotSparse(w, idx, val)
}

// axpyRow adds a·x to w for the row x = (idx, val) of rows.parts.
func axpyRow(w []float64, idx []int32, val []float32, a float64) {
	if idx == nil {
		axpyDense(w, val, a)
		return
	}
	axpySparse(w, idx, val, a)
}

// dotSparse returns Σ_k w[idx[k]]·val[k] in four partial sums, so that the
// scattered loads of w overlap.
func dotSparse(w []float64, idx []int32, val []float32) float64 {
	val = val[:len(idx)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(idx); k += 4 {
		ii, vv := idx[k:k+4:k+4], val[k:k+4:k+4]
		s0 += w[ii[0]] * float64(vv[0])
		s1 += w[ii[1]] * float64(vv[1])
		s2 += w[ii[2]] * float64(vv[2])
		s3 += w[ii[3]] * float64(vv[3])
	}
	for ; k < len(idx); k++ {
		s0 += w[idx[k]] * float64(val[k])
	}
	return (s0 + s1) + (s2 + s3)
}

// axpySparse adds a·val[k] to w[idx[k]].
func axpySparse(w []float64, idx []int32, val []float32, a float64) {
	val = val[:len(idx)]
	for k, j := range idx {
		w[j] += a * float64(val[k])
	}
}

// axpyDense adds a·x to w[:len(x)], four entries a step (the same sums as
// one at a time, with a quarter of the loop's overhead).
func axpyDense(w []float64, x []float32, a float64) {
	w = w[:len(x)]
	j := 0
	for ; j+4 <= len(x); j += 4 {
		ww, xx := w[j:j+4:j+4], x[j:j+4:j+4]
		ww[0] += a * float64(xx[0])
		ww[1] += a * float64(xx[1])
		ww[2] += a * float64(xx[2])
		ww[3] += a * float64(xx[3])
	}
	for ; j < len(x); j++ {
		w[j] += a * float64(x[j])
	}
}
