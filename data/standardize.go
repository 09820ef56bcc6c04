package data

import (
	"fmt"
	"math"
)

// Standardizer maps each feature j to (x_j − Mean[j]) / Std[j]. Fit it on the
// training data only and apply it to every set the model sees. The zero
// value (no Mean) is the identity.
type Standardizer struct {
	Mean, Std []float64
}

// FitStandardizer computes per-feature means and sample standard deviations
// (divisor n−1) of d in float64. A feature with zero spread (a constant
// column, or a single row) gets Std 1, so it maps to 0.
func FitStandardizer(d *Dataset) Standardizer {
	checkLens(d)
	s := Standardizer{Mean: make([]float64, d.D), Std: make([]float64, d.D)}
	for i := 0; i < d.N; i++ {
		for j, v := range d.Row(i) {
			s.Mean[j] += float64(v)
		}
	}
	for j := range s.Mean {
		if d.N > 0 {
			s.Mean[j] /= float64(d.N)
		}
	}
	for i := 0; i < d.N; i++ {
		for j, v := range d.Row(i) {
			e := float64(v) - s.Mean[j]
			s.Std[j] += e * e
		}
	}
	for j, ss := range s.Std {
		sd := 0.0
		if d.N > 1 {
			sd = math.Sqrt(ss / float64(d.N-1))
		}
		if sd == 0 || math.IsNaN(sd) || math.IsInf(sd, 0) {
			sd = 1
		}
		s.Std[j] = sd
	}
	return s
}

// Apply standardizes every row of d in place. It panics when the
// standardizer was fitted on data of another width.
func (s Standardizer) Apply(d *Dataset) {
	checkLens(d)
	if s.Mean == nil {
		return
	}
	s.check(d.D)
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

func (s Standardizer) check(d int) {
	if len(s.Mean) != d || len(s.Std) != d {
		panic(fmt.Sprintf("data: Standardizer of %d/%d features applied to rows of %d", len(s.Mean), len(s.Std), d))
	}
}
