package nsvm

import (
	"fmt"
	"math"
	"slices"
)

// FitProbability calibrates m's decision values into probabilities with
// Platt scaling (svm.FitPlatt, offset fixed at 0) on the labelled rows of x,
// which must not be points m was trained on (a held-out split): fitted on
// training points, whose margins the SVM has pushed beyond ±1, the sigmoid
// comes out overconfident. labels holds the original class labels (m's
// Labels()). For a binary model the pairs are (g(x_i), ±1); for a
// one-vs-rest multiclass model every head contributes (f_c(x_i), +1 if x_i
// is of class c, else −1) to one shared slope; for a one-vs-one model every
// pair head (i, j) contributes its value on the points of classes i and j
// (+1 for i).
func (m *Model) FitProbability(x []float32, labels []float64, rows int) error {
	if len(labels) != rows || len(x) != rows*m.InSize() {
		panic("nsvm: FitProbability: slice lengths do not match rows")
	}
	cls := m.Labels()
	o := &outOfFold{dec: make([]float64, rows*m.numHeads()), cls: make([]int, rows)}
	m.HeadDecisions(o.dec, x, rows)
	for i, l := range labels {
		c := slices.Index(cls, l)
		if c < 0 {
			return errf("calibration point %d has label %g, which is not one of the model's classes %v", i, l, cls)
		}
		o.cls[i] = c
	}
	return m.calibrate(o)
}

// Probabilities sets dst (rows × len(Labels()), row-major) to the class
// probabilities of the rows of x, using the calibration of FitProbability
// or Fit. For a binary model, P(Pos | x) = 1/(1 + exp(A·g(x))) and P(Neg | x)
// its complement, so P(Pos | x) ≥ 1/2 exactly when Predict says Pos. For a
// one-vs-rest model, p_c = 1/(1 + exp(A·f_c(x))) normalised to sum 1; as
// the slope is shared, the most probable class is the predicted one (up to
// ties). For a one-vs-one model, every pair head gives
// r_ij = 1/(1 + exp(A·f_ij(x))) and the class probabilities are coupled from
// them as LIBSVM does (Wu, Lin and Weng 2004); the most probable class is
// then usually, but not always, the one the vote predicts. It panics if the
// model has no calibration.
func (m *Model) Probabilities(dst []float64, x []float32, rows int) {
	if m.Platt == nil {
		panic("nsvm: Probabilities: the model has no probability calibration")
	}
	nc := len(m.Labels())
	if len(dst) < rows*nc {
		panic(fmt.Sprintf("nsvm: Probabilities: len(dst) = %d, want %d", len(dst), rows*nc))
	}
	dec := make([]float64, rows*m.numHeads())
	m.HeadDecisions(dec, x, rows)
	m.probabilitiesFrom(dst, dec, rows)
}

// probabilitiesFrom sets dst (rows × classes) to the probabilities of
// Probabilities from the head decisions dec (rows × heads).
func (m *Model) probabilitiesFrom(dst, dec []float64, rows int) {
	nc := len(m.Labels())
	if !m.Multiclass() {
		for i, v := range dec[:rows] {
			p := m.Platt.Prob(v)
			dst[2*i], dst[2*i+1] = 1-p, p
		}
		return
	}
	nh := len(m.Heads)
	if m.Scheme == OneVsOne {
		const minP = 1e-7 // LIBSVM's bound on the pairwise probabilities
		r := make([]float64, nc*nc)
		for i := 0; i < rows; i++ {
			for q := 0; q < nh; q++ {
				a, b := pairOf(q, nc)
				p := math.Min(math.Max(m.Platt.Prob(dec[i*nh+q]), minP), 1-minP)
				r[a*nc+b], r[b*nc+a] = p, 1-p
			}
			coupleTo(dst[i*nc:(i+1)*nc], r, nc)
		}
		return
	}
	for i := 0; i < rows; i++ {
		var s float64
		row := dst[i*nc : (i+1)*nc]
		for c := range row {
			row[c] = m.Platt.Prob(dec[i*nh+c])
			s += row[c]
		}
		for c := range row {
			if s > 0 && !math.IsInf(s, 0) {
				row[c] /= s
			}
		}
	}
}
