package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/svm"
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
	dec, cls := make([]float64, rows*m.numHeads()), make([]int, rows)
	m.HeadDecisions(dec, x, rows)
	classes := m.Labels()
	for i, l := range labels {
		c := slices.Index(classes, l)
		if c < 0 {
			return errf("calibration point %d has label %g, which is not one of the model's classes %v", i, l, classes)
		}
		cls[i] = c
	}
	return m.Calibrate(dec, cls, nil)
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
	if !m.Calibrated() {
		panic("nsvm: Probabilities: the model has no probability calibration")
	}
	m.probabilitiesFrom(dst, m.classDecisions("Probabilities", dst, x, rows), rows)
}

// Calibrated reports whether m turns decision values into probabilities:
// a Platt slope of its own (Fit's --probability, FitProbability) or the
// sigmoids of a LIBSVM model trained with -b 1.
func (m *Model) Calibrated() bool { return m.Platt != nil || m.Sigmoids != nil }

// sigmoid returns the calibration of head h.
func (m *Model) sigmoid(h int) svm.Platt {
	if m.Sigmoids != nil {
		return m.Sigmoids[h]
	}
	return *m.Platt
}

// minPairProb is LIBSVM's bound on the pairwise probabilities, and on a
// binary model's with LIBSVM's sigmoids.
const minPairProb = 1e-7

// probabilitiesFrom sets dst (rows × classes) to the probabilities of
// Probabilities from the head decisions dec (rows × heads).
func (m *Model) probabilitiesFrom(dst, dec []float64, rows int) {
	nc := len(m.Labels())
	if !m.Multiclass() {
		sg := m.sigmoid(0)
		for i, v := range dec[:rows] {
			p := sg.Prob(v)
			if m.Sigmoids != nil {
				p = math.Min(math.Max(p, minPairProb), 1-minPairProb) // svm_predict_probability's
			}
			dst[2*i], dst[2*i+1] = 1-p, p
		}
		return
	}
	nh := len(m.Heads)
	if m.Scheme == OneVsOne {
		r := make([]float64, nc*nc)
		for i := 0; i < rows; i++ {
			for q := 0; q < nh; q++ {
				a, b := pairOf(q, nc)
				p := math.Min(math.Max(m.sigmoid(q).Prob(dec[i*nh+q]), minPairProb), 1-minPairProb)
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
			row[c] = m.sigmoid(c).Prob(dec[i*nh+c])
			s += row[c]
		}
		for c := range row {
			if s > 0 && !math.IsInf(s, 0) {
				row[c] /= s
			}
		}
	}
}

// Calibrate fits the Platt slope of m on out-of-fold head decisions dec
// (rows × NumHeads(), of points m was not trained on) of rows of class
// indices cls (into Labels()) and sample weights w (nil: 1 each): for a
// binary model the pairs (g, ±1); for one-vs-rest every head's value with
// +1 for the point's class and −1 otherwise; for one-vs-one every pair
// head's value on the points of its two classes (+1 for the first).
// Each point counts with its sample weight.
func (m *Model) Calibrate(dec []float64, cls []int, w []float64) error {
	nh := m.numHeads()
	if len(dec) != len(cls)*nh || w != nil && len(w) != len(cls) {
		return errf("calibrate: %d decision values and %d weights for %d points of %d heads", len(dec), len(w), len(cls), nh)
	}
	var pd []float64
	var py []float32
	var pw []float64
	nc := len(m.Labels())
	for i, c := range cls {
		row := dec[i*nh : (i+1)*nh]
		add := func(v float64, label int) {
			pd = append(pd, v)
			py = append(py, float32(label))
			if w != nil {
				pw = append(pw, w[i])
			}
		}
		switch {
		case !m.Multiclass():
			add(row[0], 2*c-1)
		case m.Scheme == OneVsOne:
			for q, v := range row {
				a, b := pairOf(q, nc)
				if c == a || c == b {
					add(v, 1-2*boolInt(c == b))
				}
			}
		default:
			for h, v := range row {
				add(v, 1-2*boolInt(h != c))
			}
		}
	}
	p, err := svm.FitPlattWeighted(pd, py, pw)
	if err != nil {
		return fmt.Errorf("nsvm: %w", errmsg.Strip(err))
	}
	m.Platt = &p
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// coupleTo sets p (k values) to the class probabilities that best agree
// with the pairwise probabilities r (k×k, r[i·k+j] = P(i | i or j, x)),
// by the second method of Wu, Lin and Weng, "Probability estimates for
// multi-class classification by pairwise coupling" (JMLR 5, 2004), as
// LIBSVM's multiclass_probability: minimise ½·pᵀQp subject to Σp = 1, with
// Q_tt = Σ_{j≠t} r_jt², Q_tj = −r_jt·r_tj, by its fixed-point iteration.
func coupleTo(p, r []float64, k int) {
	q := make([]float64, k*k)
	qp := make([]float64, k)
	for t := 0; t < k; t++ {
		p[t] = 1 / float64(k)
		for j := 0; j < k; j++ {
			if j == t {
				continue
			}
			q[t*k+t] += r[j*k+t] * r[j*k+t]
			q[t*k+j] = -r[j*k+t] * r[t*k+j]
		}
	}
	maxIter := max(100, k)
	const eps = 0.005 / 1 // LIBSVM scales by k below
	for iter := 0; iter < maxIter; iter++ {
		var pqp float64
		for t := 0; t < k; t++ {
			qp[t] = 0
			for j := 0; j < k; j++ {
				qp[t] += q[t*k+j] * p[j]
			}
			pqp += p[t] * qp[t]
		}
		var maxErr float64
		for t := 0; t < k; t++ {
			maxErr = math.Max(maxErr, math.Abs(qp[t]-pqp))
		}
		if maxErr < eps/float64(k) {
			break
		}
		for t := 0; t < k; t++ {
			diff := (-qp[t] + pqp) / q[t*k+t]
			p[t] += diff
			pqp = (pqp + diff*(diff*q[t*k+t]+2*qp[t])) / (1 + diff) / (1 + diff)
			for j := 0; j < k; j++ {
				qp[j] = (qp[j] + diff*q[t*k+j]) / (1 + diff)
				p[j] /= 1 + diff
			}
		}
	}
}

func errf(format string, args ...any) error { return fmt.Errorf("nsvm: "+format, args...) }
