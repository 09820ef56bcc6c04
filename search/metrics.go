package search

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/internal/metric"
)

// Validation metrics of Fit's selection (FitConfig.Metric).
const (
	// MetricAccuracy is the (weighted) fraction of rows classified right.
	MetricAccuracy = metric.Accuracy
	// MetricBalancedAccuracy is the mean over the classes of the fraction
	// of their rows classified right (recall), scikit-learn's
	// balanced_accuracy_score: 1/K for any constant prediction.
	MetricBalancedAccuracy = metric.BalancedAccuracy
	// MetricF1 is the F1 score of the larger label (two classes) or the
	// unweighted mean of the classes' F1 scores (macro F1).
	MetricF1 = metric.F1
	// MetricROCAUC is the area under the ROC curve of the decision values
	// (two classes): the probability that a random row of the larger label
	// ranks above one of the smaller, ties counting half; 0.5 for a
	// constant decision.
	MetricROCAUC = metric.ROCAUC
	// MetricRMSE is the root mean squared error of a regressor (lower is
	// better), the only metric of regression.
	MetricRMSE = metric.RMSE
)

// Metrics lists the values FitConfig.Metric accepts besides "".
func Metrics() []string {
	return []string{MetricAccuracy, MetricBalancedAccuracy, MetricF1, MetricROCAUC, MetricRMSE}
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
