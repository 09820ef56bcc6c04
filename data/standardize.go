package data

import (
	"fmt"
	"math"
)

// Standardizer maps each feature j to (x_j − Mean[j]) / Std[j]. Fit it on the
// training data only and apply it to every set the model sees. The zero
// value (no Mean) is the identity.
//
// Sparse rows are scaled without centering, as scikit-learn's
// StandardScaler(with_mean=False) scales them: centering would make every
// zero nonzero. FitStandardizer on a sparse data set gives Mean all 0 and
// Std the features' standard deviations, so that Apply divides the stored
// values by them and zeros stay zeros; a Standardizer with a nonzero Mean
// (fitted on dense rows) is not applied to sparse rows (Apply and ApplyVec
// panic: densify them, or fit on sparse rows).
type Standardizer struct {
	Mean, Std []float64
}

// FitStandardizer computes per-feature means and sample standard deviations
// (divisor n−1) of d in float64. A feature with zero spread (a constant
// column, or a single row) gets Std 1, so it maps to 0. On sparse rows it
// reads the nonzeros only and leaves Mean 0 (see Standardizer).
func FitStandardizer(d *Dataset) Standardizer {
	checkLens(d)
	if d.Sparse != nil {
		return fitSparse(d, Standardizer{Mean: make([]float64, d.D), Std: make([]float64, d.D)})
	}
	return FitStandardizerRows(d.X, d.D, nil)
}

// FitStandardizerRows is FitStandardizer on the dense rows rows of x (row-
// major, D values a row), in their order, or on all of x's rows when rows
// is nil: a sample of the data without copying it. It panics when a row
// lies outside x.
func FitStandardizerRows(x []float32, D int, rows []int) Standardizer {
	s := Standardizer{Mean: make([]float64, D), Std: make([]float64, D)}
	n := len(rows)
	row := func(k int) []float32 {
		i := k
		if rows != nil {
			i = rows[k]
		}
		return x[i*D : (i+1)*D]
	}
	if rows == nil && D > 0 {
		n = len(x) / D
	}
	for k := range n {
		for j, v := range row(k) {
			s.Mean[j] += float64(v)
		}
	}
	for j := range s.Mean {
		if n > 0 {
			s.Mean[j] /= float64(n)
		}
	}
	for k := range n {
		for j, v := range row(k) {
			e := float64(v) - s.Mean[j]
			s.Std[j] += e * e
		}
	}
	s.finish(n)
	return s
}

// fitSparse fits s on sparse rows: the deviations from the mean of the
// nonzeros, and of the zeros, counted.
func fitSparse(d *Dataset, s Standardizer) Standardizer {
	m := d.Sparse
	mean := s.Mean
	count := make([]int, d.D)
	for k, j := range m.Idx {
		mean[j] += float64(m.Val[k])
		count[j]++
	}
	for j := range mean {
		mean[j] /= float64(max(d.N, 1))
	}
	for k, j := range m.Idx {
		e := float64(m.Val[k]) - mean[j]
		s.Std[j] += e * e
	}
	for j, mu := range mean {
		s.Std[j] += float64(d.N-count[j]) * mu * mu // the zeros
	}
	s.finish(d.N)
	clear(s.Mean)
	return s
}

// finish turns the sums of squared deviations in Std into standard
// deviations.
func (s Standardizer) finish(n int) {
	for j, ss := range s.Std {
		sd := 0.0
		if n > 1 {
			sd = math.Sqrt(ss / float64(n-1))
		}
		if sd == 0 || math.IsNaN(sd) || math.IsInf(sd, 0) {
			sd = 1
		}
		s.Std[j] = sd
	}
}

// Apply standardizes every row of d in place. It panics when the
// standardizer was fitted on data of another width, or has a nonzero Mean
// and d sparse rows (see Standardizer).
func (s Standardizer) Apply(d *Dataset) {
	checkLens(d)
	if s.Mean == nil {
		return
	}
	s.check(d.D)
	if d.Sparse != nil {
		s.checkSparse()
		m := d.Sparse
		for k, j := range m.Idx {
			m.Val[k] = float32(float64(m.Val[k]) / s.Std[j])
		}
		return
	}
	for i := 0; i < d.N; i++ {
		s.ApplyRow(d.Row(i))
	}
}

// ApplyRow standardizes one row in place.
func (s Standardizer) ApplyRow(x []float32) {
	if s.Mean == nil {
		return
	}
	s.check(len(x))
	for j, v := range x {
		x[j] = float32((float64(v) - s.Mean[j]) / s.Std[j])
	}
}

// ApplyVec standardizes one row, dense or sparse, in place: a dense row as
// ApplyRow does, a sparse one (of the standardizer's width) as Apply does.
func (s Standardizer) ApplyVec(v Vec) {
	if s.Mean == nil {
		return
	}
	if !v.Sparse() {
		s.ApplyRow(v.Val)
		return
	}
	s.checkSparse()
	for k, j := range v.Idx {
		v.Val[k] = float32(float64(v.Val[k]) / s.Std[j])
	}
}

// Centers reports whether s subtracts a nonzero mean from some feature,
// which sparse rows cannot take (see Standardizer).
func (s Standardizer) Centers() bool {
	for _, m := range s.Mean {
		if m != 0 {
			return true
		}
	}
	return false
}

func (s Standardizer) check(d int) {
	if len(s.Mean) != d || len(s.Std) != d {
		panic(fmt.Sprintf("data: Standardizer of %d/%d features applied to rows of %d", len(s.Mean), len(s.Std), d))
	}
}

func (s Standardizer) checkSparse() {
	if s.Centers() {
		panic("data: a Standardizer that centers (fitted on dense rows) applied to sparse rows, which centering would make dense; fit it on the sparse rows (it then scales without centering) or densify them")
	}
}
