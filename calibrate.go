package nsvm

import (
	"fmt"
	"math"

	"github.com/nsvm-go/nsvm/svm"
)

// numHeads returns the number of binary heads (1 for a binary model).
func (m *Model) numHeads() int {
	if m.Multiclass() {
		return len(m.Heads)
	}
	return 1
}

// calibrate fits the Platt slope of m on out-of-fold decision values: for a
// binary model the pairs (g, ±1); for one-vs-rest every head's value with
// +1 for the point's class and −1 otherwise; for one-vs-one every pair
// head's value on the points of its two classes (+1 for the first).
// Each point counts with its sample weight.
func (m *Model) calibrate(o *outOfFold) error {
	nh := m.numHeads()
	if len(o.dec) != len(o.cls)*nh {
		return errf("calibrate: %d decision values for %d points of %d heads", len(o.dec), len(o.cls), nh)
	}
	var dec []float64
	var y []float32
	var w []float64
	nc := len(m.Labels())
	for i, c := range o.cls {
		row := o.dec[i*nh : (i+1)*nh]
		add := func(v float64, label int) {
			dec = append(dec, v)
			y = append(y, float32(label))
			if o.w != nil {
				w = append(w, o.w[i])
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
	p, err := svm.FitPlattWeighted(dec, y, w)
	if err != nil {
		return fmt.Errorf("nsvm: %w", strip(err))
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
