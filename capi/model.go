package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/atomicfile"
	"github.com/nsvm-go/nsvm/model/onnx"
)

// outputs are the caller's buffers for a prediction; a nil one is not
// asked for. labels holds rows values, decisions rows × NumHeads(), scores
// and probabilities rows × len(Labels()), row-major.
type outputs struct {
	labels, decisions, scores, probabilities []float64
}

// predict fills out with the model's predictions of the rows of in, as
// nsvm predict computes them. Models are safe for concurrent use: so is
// predict.
func predict(m *nsvm.Model, in *input, out outputs) error {
	if err := in.check(); err != nil {
		return err
	}
	if m.Regression() && (out.scores != nil || out.probabilities != nil) {
		return badConfig("a regressor has no class scores or probabilities")
	}
	if out.probabilities != nil && !m.Calibrated() {
		return badConfig("the model has no probabilities (train it with probability on)")
	}
	if in.kind != kindCSV && in.cols != m.InSize() {
		return badData("the data have %d features per row, the model takes %d", in.cols, m.InSize())
	}
	if in.rows == 0 {
		return nil
	}
	probs := out.probabilities != nil
	var p nsvm.Prediction
	if in.kind == kindDense {
		x, err := in.dense(true)
		if err != nil {
			return err
		}
		p = m.Predictions(x, in.rows, probs)
	} else {
		ds, err := in.dataset(m.Columns)
		if err != nil {
			return err
		}
		if m.Columns == nil && ds.Columns != nil {
			return badData("the model was trained on numbers; the data's columns hold text")
		}
		if err := ds.Validate(); err != nil {
			return fmt.Errorf("%w: %w", nsvm.ErrBadData, err)
		}
		if p, err = m.PredictDataset(ds, probs); err != nil {
			return fmt.Errorf("%w: %w", nsvm.ErrBadData, err)
		}
	}
	copy(out.labels, p.Labels)
	copy(out.decisions, p.Decisions)
	copy(out.scores, p.Scores)
	copy(out.probabilities, p.Probabilities)
	return nil
}

// outputSizes returns the lengths of the outputs of a prediction of rows
// rows: labels, decisions, and scores or probabilities.
func outputSizes(m *nsvm.Model, rows int) (labels, decisions, classes int) {
	return rows, rows * m.NumHeads(), rows * len(m.Labels())
}

// modelBytes returns the model file of m: what Save writes.
func modelBytes(m *nsvm.Model) ([]byte, error) {
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// readModel reads a model file (nsvm's or svm-train's) from b.
func readModel(b []byte) (*nsvm.Model, error) {
	m, err := nsvm.Read(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", nsvm.ErrBadData, err)
	}
	return m, nil
}

// infoJSON describes a model to a binding: what its estimator's attributes
// and the sizes of its outputs need.
type infoJSON struct {
	Algorithm string `json:"algorithm"`
	// Task is "classification", "regression" or "one-class".
	Task string `json:"task"`
	// Classes are the class labels in increasing order (for named labels,
	// indices into LabelNames); empty for a regressor. A one-class model's
	// are −1 (outlier) and +1 (inlier).
	Classes    []float64 `json:"classes"`
	LabelNames []string  `json:"label_names"`
	// Inputs is the number of values a row holds (after the one-hot
	// encoding of Columns, when the model has them).
	Inputs     int           `json:"n_inputs"`
	Columns    []data.Column `json:"columns"`
	Heads      int           `json:"n_heads"`
	Multiclass string        `json:"multiclass,omitempty"`
	// Bias is the bias of a model with one head (for a one-class SVM,
	// −ρ): its decision values less Bias are the kernel expansion's.
	Bias *float64 `json:"bias,omitempty"`
	// Probability tells whether the model is calibrated.
	Probability bool `json:"probability"`
	Support     int  `json:"n_support"`
	// TestShift is the model's: its features average the images moved
	// by up to TestShift pixels (0: none).
	TestShift int               `json:"test_shift,omitempty"`
	Info      map[string]string `json:"info"`
	Selection *selectionJSON    `json:"selection"`
}

// selectionJSON is nsvm.Selection with its times.
type selectionJSON struct {
	Validation    string          `json:"validation"`
	Metric        string          `json:"metric"`
	Winner        int             `json:"winner"`
	BudgetReached bool            `json:"budget_reached"`
	Seconds       float64         `json:"seconds"`
	Candidates    []candidateJSON `json:"candidates"`
}

type candidateJSON struct {
	Name    string   `json:"name"`
	Score   *float64 `json:"score"`
	Std     *float64 `json:"std"`
	Seconds float64  `json:"seconds"`
	Error   string   `json:"error,omitempty"`
}

// modelInfo returns the description of m as JSON.
func modelInfo(m *nsvm.Model) ([]byte, error) {
	r := infoJSON{Algorithm: m.Algorithm, Task: nsvm.Classification, LabelNames: m.LabelNames, Inputs: m.InSize(),
		Columns: m.Columns, Heads: m.NumHeads(), Probability: m.Calibrated(), Support: m.NumSV(), TestShift: m.TestShift, Info: m.Info}
	switch {
	case m.Regression():
		r.Task = nsvm.Regression
	case m.OneClass():
		r.Task = "one-class"
	}
	if !m.Regression() {
		r.Classes = m.Labels()
	}
	if m.Multiclass() {
		r.Multiclass = m.Scheme
	} else {
		r.Bias = finite(m.Head.Bias)
	}
	if s := m.Selection; s != nil {
		sj := &selectionJSON{Validation: s.Validation, Metric: s.Metric, Winner: s.Winner, BudgetReached: s.BudgetReached,
			Seconds: s.Seconds, Candidates: make([]candidateJSON, len(s.Candidates))}
		for i, c := range s.Candidates {
			sj.Candidates[i] = candidateJSON{Name: c.Name, Seconds: c.Seconds, Error: c.Err}
			if c.Err == "" {
				sj.Candidates[i].Score, sj.Candidates[i].Std = finite(c.Score), finite(c.Std)
			}
		}
		r.Selection = sj
	}
	return json.Marshal(r)
}

// exportONNX writes the model to path as an ONNX graph (package
// model/onnx; operators "" or "standard", or "ml"), through a temporary
// file and a rename.
func exportONNX(m *nsvm.Model, path, operators string) error {
	opt := &onnx.Options{Operators: onnx.Operators(operators)}
	if err := opt.Validate(); err != nil {
		return badConfig("unknown ONNX operators %q (want standard or ml)", operators)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return onnx.Write(w, m, opt) })
}
