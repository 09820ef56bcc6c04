// Package metric scores predictions: accuracy, balanced accuracy, F1, ROC
// AUC and RMSE, each row with a weight. The model's Evaluate and the
// search's validation share it.
package metric

import (
	"math"
	"sort"
)

// Rows are the validation rows a metric scores: their class indices
// (or targets) and weights (nil: 1 each).
type Rows struct {
	Cls []int     // class indices in 0..NC−1 (classification)
	Y   []float64 // targets (regression)
	W   []float64 // weights; nil: 1 each
	NC  int       // the number of classes
}

// Weight returns row k's weight.
func (e Rows) Weight(k int) float64 {
	if e.W == nil {
		return 1
	}
	return e.W[k]
}

// Score returns the metric of predicted class indices pred (or values,
// regression) and, for roc_auc, the decision values dec (one per row) on
// the rows, oriented so that larger is better (RMSE negated).
func (e Rows) Score(metric string, pred []int, predY []float64, dec []float64) float64 {
	switch metric {
	case RMSE:
		var ss, sw float64
		for k, v := range e.Y {
			d := predY[k] - v
			ss += e.Weight(k) * d * d
			sw += e.Weight(k)
		}
		return -math.Sqrt(ss / sw)
	case Accuracy:
		var ok, sw float64
		for k, c := range e.Cls {
			if pred[k] == c {
				ok += e.Weight(k)
			}
			sw += e.Weight(k)
		}
		return ok / sw
	case BalancedAccuracy:
		ok, tot := make([]float64, e.NC), make([]float64, e.NC)
		for k, c := range e.Cls {
			tot[c] += e.Weight(k)
			if pred[k] == c {
				ok[c] += e.Weight(k)
			}
		}
		var s float64
		var present int
		for c := range tot {
			if tot[c] > 0 {
				s += ok[c] / tot[c]
				present++
			}
		}
		return s / float64(max(present, 1))
	case F1:
		tp, fp, fn := make([]float64, e.NC), make([]float64, e.NC), make([]float64, e.NC)
		for k, c := range e.Cls {
			w := e.Weight(k)
			if pred[k] == c {
				tp[c] += w
			} else {
				fn[c] += w
				if pred[k] >= 0 && pred[k] < e.NC {
					fp[pred[k]] += w
				}
			}
		}
		f1 := func(c int) float64 {
			if d := 2*tp[c] + fp[c] + fn[c]; d > 0 {
				return 2 * tp[c] / d
			}
			return 0
		}
		if e.NC == 2 {
			return f1(1)
		}
		var s float64
		for c := range e.NC {
			s += f1(c)
		}
		return s / float64(e.NC)
	case ROCAUC:
		return AUC(dec, e.Cls, e.W)
	}
	panic("metric: unknown metric " + metric)
}

// AUC returns the weighted area under the ROC curve of the scores s for
// the rows of class 1 against those of class 0 (ties count half), or NaN
// when a class has no weight.
func AUC(s []float64, cls []int, w []float64) float64 {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] < s[idx[b]] })
	wt := func(i int) float64 {
		if w == nil {
			return 1
		}
		return w[i]
	}
	var neg, pos, area float64
	for a := 0; a < len(idx); {
		b := a
		var gNeg, gPos float64
		for ; b < len(idx) && s[idx[b]] == s[idx[a]]; b++ {
			if cls[idx[b]] == 1 {
				gPos += wt(idx[b])
			} else {
				gNeg += wt(idx[b])
			}
		}
		// Positives of this group rank above every negative before it and
		// tie with the group's negatives.
		area += gPos * (neg + gNeg/2)
		neg += gNeg
		pos += gPos
		a = b
	}
	if neg == 0 || pos == 0 {
		return math.NaN()
	}
	return area / (neg * pos)
}

// AUCNoise returns the standard error of an AUC of 0.5 on n1 and n0 rows
// (Hanley and McNeil's formula at A = 1/2, the Mann–Whitney statistic's
// null deviation): √((n0+n1+1)/(12·n0·n1)).
func AUCNoise(n0, n1 float64) float64 {
	return math.Sqrt((n0 + n1 + 1) / (12 * n0 * n1))
}

// Names of the metrics Score computes.
const (
	Accuracy         = "accuracy"
	BalancedAccuracy = "balanced_accuracy"
	F1               = "f1"
	ROCAUC           = "roc_auc"
	RMSE             = "rmse"
)
