package libsvm

import (
	"math"

	"github.com/nsvm-go/nsvm/kernel"
)

// kernelValue returns K(x, sv) as svm.cpp's Kernel::k_function computes
// it, in float64 over the nodes: dot products and RBF's squared distance
// summed over the merged indices in increasing order, powers by repeated
// squaring; for a precomputed kernel x's value at the support vector's
// serial (0 if x has none there).
func (m *Model) kernelValue(x, sv Row) float64 {
	ks := m.Kernel
	switch ks.Name {
	case kernel.Precomputed:
		return x.At(int(sv.Value[0]))
	case "rbf":
		return math.Exp(-ks.Gamma * SqDist(x, sv))
	}
	dot := dot64(x, sv)
	switch ks.Name {
	case "poly":
		return powi(ks.Gamma*dot+ks.Coef0, ks.Degree)
	case "sigmoid":
		return math.Tanh(ks.Gamma*dot + ks.Coef0)
	}
	return dot
}

// dot64 returns Σ x_i·y_i over the indices both rows hold.
func dot64(x, y Row) float64 {
	var s float64
	a, b := 0, 0
	for a < len(x.Index) && b < len(y.Index) {
		switch {
		case x.Index[a] == y.Index[b]:
			s += x.Value[a] * y.Value[b]
			a++
			b++
		case x.Index[a] > y.Index[b]:
			b++
		default:
			a++
		}
	}
	return s
}

// SqDist returns ‖x − y‖² in float64, summed over the merged indices as
// svm-predict sums it.
func SqDist(x, y Row) float64 {
	var s float64
	a, b := 0, 0
	for a < len(x.Index) && b < len(y.Index) {
		switch {
		case x.Index[a] == y.Index[b]:
			d := x.Value[a] - y.Value[b]
			s += d * d
			a++
			b++
		case x.Index[a] > y.Index[b]:
			s += y.Value[b] * y.Value[b]
			b++
		default:
			s += x.Value[a] * x.Value[a]
			a++
		}
	}
	for ; a < len(x.Index); a++ {
		s += x.Value[a] * x.Value[a]
	}
	for ; b < len(y.Index); b++ {
		s += y.Value[b] * y.Value[b]
	}
	return s
}

// powi returns x^n by repeated squaring (svm.cpp's powi).
func powi(x float64, n int) float64 {
	r := 1.0
	for t := n; t > 0; t /= 2 {
		if t%2 == 1 {
			r *= x
		}
		x *= x
	}
	return r
}

// PredictValues returns what svm-predict predicts for x (with -b 0) —
// the label for a classifier, +1 or −1 for one_class, the value for a
// regression — and, when dec is not nil, sets dec[p] to the decision value
// of pair p in LIBSVM's order (dec[0] the single decision value of
// one_class and the regressions), by svm.cpp's svm_predict_values: the
// kernel values in float64 and the sums in its order, so that the values
// are svm-predict's. dec needs room for Pairs() values. The model must be
// valid (ReadModel's are; see Validate).
func (m *Model) PredictValues(x Row, dec []float64) float64 {
	kv := make([]float64, len(m.SV))
	for s, sv := range m.SV {
		kv[s] = m.kernelValue(x, sv)
	}
	if !IsClassifier(m.SVMType) {
		var sum float64
		for s, c := range m.SVCoef[0] {
			sum += c * kv[s]
		}
		sum -= m.Rho[0]
		if dec != nil {
			dec[0] = sum
		}
		if m.SVMType == "one_class" {
			if sum > 0 {
				return 1
			}
			return -1
		}
		return sum
	}
	k := m.NrClass
	start := make([]int, k)
	for c := 1; c < k; c++ {
		start[c] = start[c-1] + m.NrSV[c-1]
	}
	vote := make([]int, k)
	p := 0
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			var sum float64
			c1, c2 := m.SVCoef[j-1], m.SVCoef[i]
			for s := start[i]; s < start[i]+m.NrSV[i]; s++ {
				sum += c1[s] * kv[s]
			}
			for s := start[j]; s < start[j]+m.NrSV[j]; s++ {
				sum += c2[s] * kv[s]
			}
			sum -= m.Rho[p]
			if dec != nil {
				dec[p] = sum
			}
			if sum > 0 {
				vote[i]++
			} else {
				vote[j]++
			}
			p++
		}
	}
	return float64(m.Label[VoteOneVsOne(vote)])
}

// Predict returns PredictValues(x, nil).
func (m *Model) Predict(x Row) float64 { return m.PredictValues(x, nil) }

// VoteOneVsOne returns the class with the most votes, a tie going to the
// smallest index (LIBSVM's rule, in LIBSVM's order of the labels).
func VoteOneVsOne(votes []int) int {
	best := 0
	for c, v := range votes {
		if v > votes[best] {
			best = c
		}
	}
	return best
}
