package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/internal/metric"
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
			return s, fmt.Errorf("%w: the data's labels are names (%s); a regressor needs numeric targets", ErrBadData, errmsg.List(ds.LabelNames))
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
	e := metric.Rows{Cls: make([]int, ds.N), NC: nc}
	pi := make([]int, ds.N)
	for i, y := range truthY {
		e.Cls[i] = slices.Index(s.Labels, y)
		pi[i] = slices.Index(s.Labels, pred[i])
	}
	s.BalancedAccuracy = e.Score(metric.BalancedAccuracy, pi, nil, nil)
	s.F1 = e.Score(metric.F1, pi, nil, nil)
	if nc == 2 {
		if auc := metric.AUC(p.Decisions[:ds.N], e.Cls, nil); !math.IsNaN(auc) {
			s.ROCAUC = auc
		}
	}
	return s, nil
}
