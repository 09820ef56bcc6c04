package model

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/errmsg"
)

// LabelName returns the name of the class label v: LabelNames[v] for a
// model trained on named classes (see data.Dataset.LabelNames), else v in
// its shortest decimal form.
func (m *Model) LabelName(v float64) string {
	if m.LabelNames != nil && v == float64(int(v)) && v >= 0 && int(v) < len(m.LabelNames) {
		return m.LabelNames[int(v)]
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ClassNames returns the names of the model's classes, in the order of
// Labels.
func (m *Model) ClassNames() []string {
	ls := m.Labels()
	names := make([]string, len(ls))
	for i, v := range ls {
		names[i] = m.LabelName(v)
	}
	return names
}

// DataLabels returns the labels of ds as the model's class labels. When
// the model was trained on named classes, a data set with names (its own
// numbering, from its own file) is mapped by name, and numeric labels by
// their decimal form; a name the model does not know is an error, as are
// named labels for a model trained on numbers. Otherwise it returns ds.Y.
func (m *Model) DataLabels(ds *data.Dataset) ([]float64, error) {
	if m.LabelNames == nil && ds.LabelNames == nil {
		return ds.Y[:ds.N], nil
	}
	if m.LabelNames == nil {
		return nil, fmt.Errorf("%w: the data's labels are names (%s), the model's classes are numbers (%s)", ErrBadData, errmsg.List(ds.LabelNames), errmsg.List(m.ClassNames()))
	}
	code := make(map[string]float64, len(m.LabelNames))
	for i, s := range m.LabelNames {
		code[s] = float64(i)
	}
	y := make([]float64, ds.N)
	for i, v := range ds.Y[:ds.N] {
		name := strconv.FormatFloat(v, 'g', -1, 64)
		if ds.LabelNames != nil {
			name = ds.LabelNames[int(v)]
		}
		c, ok := code[name]
		if !ok {
			return nil, fmt.Errorf("%w: row %d has label %q, which is not one of the model's classes (%s)", ErrBadData, i+1, name, errmsg.List(m.ClassNames()))
		}
		y[i] = c
	}
	return y, nil
}

// checkLabelNames validates names read from a model file against its
// class labels.
func (m *Model) checkLabelNames() error {
	if m.LabelNames == nil {
		return nil
	}
	if !slices.IsSorted(m.LabelNames) || len(slices.Compact(slices.Clone(m.LabelNames))) != len(m.LabelNames) {
		return fmt.Errorf("nsvm: label_names are not distinct and increasing")
	}
	if m.Regression() {
		return fmt.Errorf("nsvm: a regressor with label_names")
	}
	for _, v := range m.Labels() {
		if v != float64(int(v)) || v < 0 || int(v) >= len(m.LabelNames) {
			return fmt.Errorf("nsvm: class label %g does not index the %d label_names", v, len(m.LabelNames))
		}
	}
	return nil
}
