package nsvm

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Validation metrics of Fit's selection (FitConfig.Metric).
const (
	// MetricAccuracy is the (weighted) fraction of rows classified right.
	MetricAccuracy = "accuracy"
	// MetricBalancedAccuracy is the mean over the classes of the fraction
	// of their rows classified right (recall), scikit-learn's
	// balanced_accuracy_score: 1/K for any constant prediction.
	MetricBalancedAccuracy = "balanced_accuracy"
	// MetricF1 is the F1 score of the larger label (two classes) or the
	// unweighted mean of the classes' F1 scores (macro F1).
	MetricF1 = "f1"
	// MetricROCAUC is the area under the ROC curve of the decision values
	// (two classes): the probability that a random row of the larger label
	// ranks above one of the smaller, ties counting half; 0.5 for a
	// constant decision.
	MetricROCAUC = "roc_auc"
	// MetricRMSE is the root mean squared error of a regressor (lower is
	// better), the only metric of regression.
	MetricRMSE = "rmse"
)

// Metrics lists the values FitConfig.Metric accepts besides "".
func Metrics() []string {
	return []string{MetricAccuracy, MetricBalancedAccuracy, MetricF1, MetricROCAUC, MetricRMSE}
}

// evalRows are the validation rows a metric scores: their class indices
// (or targets) and weights (nil: 1 each).
type evalRows struct {
	cls []int
	y   []float64
	w   []float64
	nc  int
}

// weight returns row k's weight.
func (e evalRows) weight(k int) float64 {
	if e.w == nil {
		return 1
	}
	return e.w[k]
}

// score returns the metric of predicted class indices pred (or values,
// regression) and, for roc_auc, the decision values dec (one per row) on
// the rows, oriented so that larger is better (RMSE negated).
func (e evalRows) score(metric string, pred []int, predY []float64, dec []float64) float64 {
	switch metric {
	case MetricRMSE:
		var ss, sw float64
		for k, v := range e.y {
			d := predY[k] - v
			ss += e.weight(k) * d * d
			sw += e.weight(k)
		}
		return -math.Sqrt(ss / sw)
	case MetricAccuracy:
		var ok, sw float64
		for k, c := range e.cls {
			if pred[k] == c {
				ok += e.weight(k)
			}
			sw += e.weight(k)
		}
		return ok / sw
	case MetricBalancedAccuracy:
		ok, tot := make([]float64, e.nc), make([]float64, e.nc)
		for k, c := range e.cls {
			tot[c] += e.weight(k)
			if pred[k] == c {
				ok[c] += e.weight(k)
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
	case MetricF1:
		tp, fp, fn := make([]float64, e.nc), make([]float64, e.nc), make([]float64, e.nc)
		for k, c := range e.cls {
			w := e.weight(k)
			if pred[k] == c {
				tp[c] += w
			} else {
				fn[c] += w
				if pred[k] >= 0 && pred[k] < e.nc {
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
		if e.nc == 2 {
			return f1(1)
		}
		var s float64
		for c := range e.nc {
			s += f1(c)
		}
		return s / float64(e.nc)
	case MetricROCAUC:
		return rocAUC(dec, e.cls, e.w)
	}
	panic("nsvm: unknown metric " + metric)
}

// rocAUC returns the weighted area under the ROC curve of the scores s for
// the rows of class 1 against those of class 0 (ties count half), or NaN
// when a class has no weight.
func rocAUC(s []float64, cls []int, w []float64) float64 {
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

// aucNoise returns the standard error of an AUC of 0.5 on n1 and n0 rows
// (Hanley and McNeil's formula at A = 1/2, the Mann–Whitney statistic's
// null deviation): √((n0+n1+1)/(12·n0·n1)).
func aucNoise(n0, n1 float64) float64 {
	return math.Sqrt((n0 + n1 + 1) / (12 * n0 * n1))
}

// Class weights (FitConfig.ClassWeight).
const (
	// ClassWeightBalanced weighs class c by N/(K·N_c), scikit-learn's
	// class_weight="balanced": every class weighs as much in the loss.
	ClassWeightBalanced = "balanced"
	// ClassWeightNone weighs every class 1, also on imbalanced data.
	ClassWeightNone = "none"
)

// parseClassWeight reads a class-weight specification for the classes
// (labels in increasing order, named by names when not nil): "" or none,
// balanced, or LABEL:W pairs separated by commas (LIBSVM's -wLABEL W;
// classes not listed weigh 1). counts are the (weighted) rows per class.
// It returns nil for equal weights.
func parseClassWeight(spec string, classes []float64, names []string, counts []float64) ([]float64, error) {
	switch spec {
	case "", ClassWeightNone:
		return nil, nil
	case ClassWeightBalanced:
		var n float64
		for _, c := range counts {
			n += c
		}
		w := make([]float64, len(classes))
		for c := range w {
			w[c] = n / (float64(len(classes)) * max(counts[c], 1e-300))
		}
		return w, nil
	}
	w := make([]float64, len(classes))
	for c := range w {
		w[c] = 1
	}
	for _, part := range strings.Split(spec, ",") {
		lab, val, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			return nil, configErr("class weight %q: want LABEL:WEIGHT (or balanced, none)", part)
		}
		v, err := parseFloat(val)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, configErr("class weight %q: the weight must be a finite number > 0", part)
		}
		c := -1
		if names != nil {
			c = slices.Index(names, lab)
		}
		if c < 0 {
			if f, err := parseFloat(lab); err == nil {
				c = slices.Index(classes, f)
				if names != nil && c < 0 {
					c = -1
				}
			}
		}
		if c < 0 {
			return nil, configErr("class weight %q: no class %q in the data", part, lab)
		}
		w[c] = v
	}
	return w, nil
}

// checkClassWeightSyntax checks a class-weight specification without the
// data.
func checkClassWeightSyntax(spec string) error {
	switch spec {
	case "", ClassWeightNone, ClassWeightBalanced:
		return nil
	}
	for _, part := range strings.Split(spec, ",") {
		_, val, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			return configErr("class weight %q: want LABEL:WEIGHT pairs separated by commas, balanced or none", part)
		}
		if v, err := parseFloat(val); err != nil || !(v > 0) || math.IsInf(v, 0) {
			return configErr("class weight %q: the weight must be a finite number > 0", part)
		}
	}
	return nil
}

func parseFloat(s string) (float64, error) {
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}
