package nsvm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/nsvm-go/nsvm/data"
)

// Scores measures a model on labelled data: accuracy and the confusion
// matrix for a classifier, RMSE, MAE and R² for a regressor.
type Scores struct {
	N int `json:"n"`
	// Classification. Confusion[i][j] counts points of class Labels[i]
	// predicted as Labels[j].
	Accuracy float64 `json:"accuracy"`
	Errors   int     `json:"errors"`
	// BalancedAccuracy is the mean of the classes' recalls, F1 the F1
	// score of the larger label (two classes) or the mean of the classes'
	// (macro F1), and ROCAUC, for two classes, the area under the ROC curve
	// of the decision values (0, left out, when the data hold one class
	// only).
	BalancedAccuracy float64   `json:"balanced_accuracy"`
	F1               float64   `json:"f1"`
	ROCAUC           float64   `json:"roc_auc,omitempty"`
	Labels           []float64 `json:"labels,omitempty"`
	Names            []string  `json:"names,omitempty"` // of Labels, for a model trained on named classes
	Confusion        [][]int   `json:"confusion,omitempty"`
	RMSE             float64   `json:"rmse,omitempty"`
	MAE              float64   `json:"mae,omitempty"`
	R2               float64   `json:"r2,omitempty"`
	// Task is Classification or Regression.
	Task string `json:"-"`
}

// Evaluate predicts the rows of ds and compares with its labels. For a
// classifier every label must be one of the model's classes.
func (m *Model) Evaluate(ds *data.Dataset) (Scores, error) {
	if ds.D != m.InSize() {
		return Scores{}, fmt.Errorf("%w: the model expects %d values per row, the data has %d", ErrBadData, m.InSize(), ds.D)
	}
	p, err := m.PredictDataset(ds, false)
	if err != nil {
		return Scores{}, err
	}
	pred := p.Labels
	s := Scores{N: ds.N}
	if m.Regression() {
		if ds.LabelNames != nil {
			return s, fmt.Errorf("%w: the data's labels are names (%s); a regressor needs numeric targets", ErrBadData, listNames(ds.LabelNames))
		}
		s.Task = Regression
		var mean, ssTot, ssRes, abs float64
		for _, v := range ds.Y {
			mean += v
		}
		mean /= float64(ds.N)
		for i, v := range ds.Y {
			e := pred[i] - v
			ssRes += e * e
			abs += math.Abs(e)
			ssTot += (v - mean) * (v - mean)
		}
		s.RMSE = math.Sqrt(ssRes / float64(ds.N))
		s.MAE = abs / float64(ds.N)
		// R² = 1 − SSE/SST about the mean of ds's targets; when the
		// targets are all equal, 1 for exact predictions and −Inf else.
		switch {
		case ssTot > 0:
			s.R2 = 1 - ssRes/ssTot
		case ssRes == 0:
			s.R2 = 1
		default:
			s.R2 = math.Inf(-1)
		}
		return s, nil
	}
	s.Task = Classification
	truthY, err := m.DataLabels(ds)
	if err != nil {
		return s, err
	}
	s.Labels = slices.Clone(m.Labels())
	if m.LabelNames != nil {
		s.Names = m.ClassNames()
	}
	nc := len(s.Labels)
	s.Confusion = make([][]int, nc)
	for i := range s.Confusion {
		s.Confusion[i] = make([]int, nc)
	}
	for i, y := range truthY {
		truth := slices.Index(s.Labels, y)
		if truth < 0 {
			return s, fmt.Errorf("%w: row %d has label %g, which is not one of the model's classes %v", ErrBadData, i+1, y, s.Labels)
		}
		p := slices.Index(s.Labels, pred[i])
		s.Confusion[truth][p]++
		if p != truth {
			s.Errors++
		}
	}
	s.Accuracy = float64(ds.N-s.Errors) / float64(ds.N)
	e := evalRows{cls: make([]int, ds.N), nc: nc}
	pi := make([]int, ds.N)
	for i, y := range truthY {
		e.cls[i] = slices.Index(s.Labels, y)
		pi[i] = slices.Index(s.Labels, pred[i])
	}
	s.BalancedAccuracy = e.score(MetricBalancedAccuracy, pi, nil, nil)
	s.F1 = e.score(MetricF1, pi, nil, nil)
	if nc == 2 {
		if auc := rocAUC(p.Decisions[:ds.N], e.cls, nil); !math.IsNaN(auc) {
			s.ROCAUC = auc
		}
	}
	return s, nil
}

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	Folds int `json:"folds"`
	// Accuracy (classification) or RMSE (regression) over all held-out
	// points, and per fold.
	Score      float64   `json:"score"`
	Metric     string    `json:"metric"`
	FoldScores []float64 `json:"fold_scores"`
	// Selected names the model each fold's Fit chose ("" when nothing was
	// selected).
	Selected []string `json:"selected"`
	Seconds  float64  `json:"seconds"`
}

// CrossValidate estimates how well Fit(ds, cfg) generalises, as LIBSVM's
// svm-train -v: ds is split into k stratified folds (shuffled folds for
// regression), and for each fold Fit trains on the others — including its
// own model selection on them when cfg leaves it open (nested
// cross-validation) — and predicts the fold. The score is the accuracy
// over all held-out points (RMSE for regression). cfg.Progress receives the
// reports of every fold's Fit.
func CrossValidate(ctx context.Context, ds *data.Dataset, cfg *FitConfig, k int) (*CVResult, error) {
	ctx, c, err := fitArgs(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if c.SVMType == SVMOneClass {
		return nil, configErr("cross-validation scores predictions against labels; a one-class SVM has no classes to score")
	}
	if k < 2 {
		return nil, fmt.Errorf("nsvm: cross-validation needs at least 2 folds, got %d", k)
	}
	d, err := prepare(ds, &c)
	if err != nil {
		return nil, err
	}
	if k > d.n {
		return nil, fmt.Errorf("%w: %d folds for %d rows", ErrBadData, k, d.n)
	}
	c.Task = d.task
	start := time.Now()
	splits, _ := d.validationSplits(k, rand.New(seedPCG(c.Seed^0x6376)))
	if len(splits) < 2 {
		return nil, fmt.Errorf("%w: the data cannot be split into %d folds with every class in every training part", ErrBadData, k)
	}
	r := &CVResult{Folds: len(splits), Metric: "accuracy"}
	if d.task == Regression {
		r.Metric = "rmse"
	}
	var ok int
	var ss float64
	total := 0
	for f, sp := range splits {
		train := &data.Dataset{X: d.rows(sp.train), Y: labelsOf(ds, sp.train), N: len(sp.train), D: d.d, Shape: d.shape, LabelNames: ds.LabelNames}
		test := &data.Dataset{X: d.rows(sp.val), Y: labelsOf(ds, sp.val), N: len(sp.val), D: d.d, Shape: d.shape, LabelNames: ds.LabelNames}
		fc := c
		fc.Seed = c.Seed + uint64(f)
		m, err := Fit(ctx, train, &fc)
		if err != nil {
			return nil, fmt.Errorf("nsvm: cross-validation fold %d: %w", f+1, strip(err))
		}
		s, err := m.Evaluate(test)
		if err != nil {
			return nil, err
		}
		r.Selected = append(r.Selected, m.Info["selected"])
		total += s.N
		if d.task == Regression {
			ss += s.RMSE * s.RMSE * float64(s.N)
			r.FoldScores = append(r.FoldScores, s.RMSE)
		} else {
			ok += s.N - s.Errors
			r.FoldScores = append(r.FoldScores, s.Accuracy)
		}
	}
	if d.task == Regression {
		r.Score = math.Sqrt(ss / float64(total))
	} else {
		r.Score = float64(ok) / float64(total)
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

func labelsOf(ds *data.Dataset, idx []int) []float64 {
	y := make([]float64, len(idx))
	for k, i := range idx {
		y[k] = ds.Y[i]
	}
	return y
}
