package data

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Dataset is a set of labelled points. Its rows are dense — X, row-major
// N×D float32 — or, for wide sparse data (LIBSVM text, SciPy sparse
// .npz), compressed sparse rows in Sparse with X nil. Vec(i) reads a row
// either way; Row(i) and X serve dense data sets only.
//
// A Dataset that Open (or OpenNPY, OpenNPZ) read from a little-endian
// float32 .npy array, alone or stored uncompressed in a .npz, has X alias a
// copy-on-write memory mapping of the file instead of a copy: opening it
// costs no reading, pages come from the page cache as they are touched, and
// writes to X (Standardizer.Apply) stay private to the process. Close
// releases the mapping; X must not be used after it. The file must not be
// truncated while it is mapped.
//
// A Dataset whose Y is nil has no labels: rows read to be scored (a CSV
// file without the label column, LIBSVM lines without a label). Validate
// refuses it, as a trainer must; ValidateInputs, Subset, Split,
// Standardizer, Densify, Sparsify, WriteCSV, WriteLIBSVM, WriteNPY (X)
// and Save to .csv or LIBSVM text take it; WriteNPZ, WriteSparseNPZ and
// Save to .npz or .npy return ErrNoLabels; Classes, BinaryLabels,
// StratifiedHoldout and FilterLabels need labels.
type Dataset struct {
	X     []float32
	Y     []float64 // labels as read (class labels are integral values; regression targets allowed); nil: none
	N, D  int
	Shape []int // input shape of one row, e.g. []int{1,28,28} for MNIST; nil means []int{D}

	// Sparse, if not nil, holds the rows instead of X (which is then nil).
	Sparse *CSR

	// W, if not nil, weighs each row in training (N non-negative values,
	// not all zero; nil weighs every row 1): a row of weight w counts as w
	// rows would in the loss, as scikit-learn's sample_weight.
	W []float64

	// LabelNames, if not nil, names the classes of a data set whose labels
	// were read as names (a CSV label column that is not all numbers):
	// Y[i] is then an index into LabelNames, which is in increasing order.
	LabelNames []string

	// Columns, if not nil, describes the feature columns of a CSV file
	// with a header (their names) or with categorical (text) columns,
	// each expanded into one 0/1 feature per category, or columns of
	// dates, each DateWidth numbers: X has Width(Columns) = D features. Read data for a model with
	// CSVOptions.Columns set to the model's.
	Columns []Column

	// LabelColumn is the header's name of the label column of a CSV file
	// ("" without a header, or without labels): CSVOptions.LabelColumn
	// finds it in another file.
	LabelColumn string

	// Kept holds the text of the CSV columns CSVOptions.Keep names, one
	// value a row, carried through unchanged (identifiers to print beside
	// predictions); Subset and the other methods leave it out.
	Kept []KeptColumn

	// Notices are what a reader did that the caller may want to show
	// (columns of the file left out as not the model's, categories
	// grouped); nil when there is nothing to tell. Errors are not
	// notices: a reader returns them.
	Notices []string

	mapping []byte // the memory mapping X aliases, if any
}

// Close releases the memory mapping behind X, if the data set has one (see
// Dataset), and sets X to nil. For any other data set it does nothing. It
// is not safe to call while X or a slice of it is in use.
func (d *Dataset) Close() error {
	if d.mapping == nil {
		return nil
	}
	m := d.mapping
	d.mapping, d.X = nil, nil
	return unmap(m)
}

// Mapped reports whether X aliases a memory mapping of a file.
func (d *Dataset) Mapped() bool { return d.mapping != nil }

// Row returns row i of X as a slice of length and capacity D that aliases X.
// It panics on a sparse data set; Vec reads rows of both kinds.
func (d *Dataset) Row(i int) []float32 {
	if i < 0 || i >= d.N {
		panic(fmt.Sprintf("data: row %d out of range [0, %d)", i, d.N))
	}
	if d.Sparse != nil {
		panic("data: Row on a sparse data set (use Vec)")
	}
	return d.X[i*d.D : (i+1)*d.D : (i+1)*d.D]
}

// Vec returns row i, dense or sparse, aliasing the data set.
func (d *Dataset) Vec(i int) Vec {
	if d.Sparse != nil {
		return d.Sparse.Row(i)
	}
	return Dense(d.Row(i))
}

// IsSparse reports whether the rows are held sparse.
func (d *Dataset) IsSparse() bool { return d.Sparse != nil }

// NNZ returns the number of stored feature values: the nonzeros of a
// sparse data set, N·D for a dense one.
func (d *Dataset) NNZ() int {
	if d.Sparse != nil {
		return d.Sparse.NNZ()
	}
	return d.N * d.D
}

// ErrSparse marks an operation that needs dense rows given a sparse data
// set (wrapped; test with errors.Is).
var ErrSparse = errors.New("data: the rows are sparse")

// Densify makes a sparse data set dense in place, when its N×D values
// number at most maxValues (0: 1<<30, 4 GiB); a dense data set is left as
// it is. Nothing densifies a data set but this call.
func (d *Dataset) Densify(maxValues int) error {
	if d.Sparse == nil {
		return nil
	}
	if maxValues <= 0 {
		maxValues = maxDenseValues
	}
	if d.D > 0 && d.N > maxValues/d.D {
		return fmt.Errorf("%w: %d rows × %d features is more than the %d values dense rows may hold", ErrSparse, d.N, d.D, maxValues)
	}
	d.X = d.Sparse.Dense(d.D)
	d.Sparse = nil
	return nil
}

// LayOut lays out rows given sparse (a SciPy CSR matrix, say) as the
// readers lay out those of LIBSVM text, so that the same data take the same
// path whichever way they come: LayoutAuto ("") keeps them sparse when they
// are wide and sparse (SparseLayout) or would not fit dense in
// MemoryBudget of their own size, and makes them dense otherwise;
// LayoutSparse keeps them; LayoutDense makes them dense (an error beyond
// 1<<30 values). Dense rows are left as they are.
func (d *Dataset) LayOut(layout string) error {
	if err := checkLayout(layout); err != nil || d.Sparse == nil {
		return err
	}
	sparse, err := chooseLayout("the rows", layout, d.N, max(d.D, 1), d.Sparse.NNZ(), maxDenseValues, d.Sparse.Bytes())
	if err != nil || sparse {
		return err
	}
	return d.Densify(0)
}

// Sparsify makes a dense data set sparse in place (zeros left out).
func (d *Dataset) Sparsify() {
	if d.Sparse != nil {
		return
	}
	d.Sparse = ToCSR(d.X, d.N, d.D)
	d.X = nil
}

// Weight returns the weight of row i (1 without weights).
func (d *Dataset) Weight(i int) float64 {
	if d.W == nil {
		return 1
	}
	return d.W[i]
}

// Subset returns a new data set holding copies of the rows idx, in that
// order (indices may repeat). Shape is copied.
func (d *Dataset) Subset(idx []int) *Dataset {
	s := &Dataset{
		Y:     make([]float64, len(idx)),
		N:     len(idx),
		D:     d.D,
		Shape: slices.Clone(d.Shape),

		LabelNames:  slices.Clone(d.LabelNames),
		Columns:     slices.Clone(d.Columns),
		LabelColumn: d.LabelColumn,
	}
	if d.Y == nil {
		s.Y = nil
	}
	if d.Sparse != nil {
		s.Sparse = d.Sparse.subset(idx)
	} else {
		s.X = make([]float32, len(idx)*d.D)
	}
	if d.W != nil {
		s.W = make([]float64, len(idx))
	}
	for k, i := range idx {
		if d.Sparse == nil {
			copy(s.X[k*d.D:(k+1)*d.D], d.Row(i))
		}
		if d.Y != nil {
			s.Y[k] = d.Y[i]
		}
		if d.W != nil {
			s.W[k] = d.W[i]
		}
	}
	return s
}

// ErrNoLabels marks a data set without labels (Y nil) where labels are
// needed, as in training (wrapped; test with errors.Is).
var ErrNoLabels = errors.New("data: the rows have no labels")

// Validate reports the first problem that makes the data set unusable for
// training: no labels (Y nil, ErrNoLabels), or a problem ValidateInputs
// reports. Rows and features are counted from 0 in its messages.
func (d *Dataset) Validate() error {
	if d.Y == nil && d.N > 0 {
		return fmt.Errorf("%w (a label column, or a label first on every LIBSVM line, is needed to train a model or score one)", ErrNoLabels)
	}
	return d.ValidateInputs()
}

// ValidateInputs reports the first problem that makes the data set
// unusable for scoring: no rows, no features, slice lengths that disagree
// with N and D, a Shape whose product is not D, or a NaN or infinite
// feature value or label. A data set without labels (Y nil) passes.
func (d *Dataset) ValidateInputs() error {
	switch {
	case d.N <= 0:
		return fmt.Errorf("data: the data set has no rows")
	case d.D <= 0:
		return fmt.Errorf("data: the data set has no features (D = %d)", d.D)
	case d.Sparse != nil && d.X != nil:
		return fmt.Errorf("data: the data set has both dense rows X and sparse rows")
	case d.Sparse == nil && len(d.X) != d.N*d.D:
		return fmt.Errorf("data: X has %d values, want N×D = %d×%d = %d", len(d.X), d.N, d.D, d.N*d.D)
	case d.Y != nil && len(d.Y) != d.N:
		return fmt.Errorf("data: Y has %d labels, want N = %d", len(d.Y), d.N)
	}
	if d.Shape != nil {
		p := 1
		for _, s := range d.Shape {
			if s <= 0 {
				return fmt.Errorf("data: shape %v has a non-positive dimension", d.Shape)
			}
			p *= s
		}
		if p != d.D {
			return fmt.Errorf("data: shape %v holds %d values per row, want D = %d", d.Shape, p, d.D)
		}
	}
	if d.Columns != nil && Width(d.Columns) != d.D {
		return fmt.Errorf("data: the columns make %d features, want D = %d", Width(d.Columns), d.D)
	}
	if err := d.validateWeights(); err != nil {
		return err
	}
	if d.Sparse != nil {
		if err := d.Sparse.check(d.N, d.D); err != nil {
			return err
		}
	}
	for i := 0; i < d.N; i++ {
		if d.Y == nil {
		} else if y := d.Y[i]; math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("data: row %d: label is %v", i, y)
		} else if d.LabelNames != nil && (y != math.Trunc(y) || y < 0 || int(y) >= len(d.LabelNames)) {
			return fmt.Errorf("data: row %d: label %v is not an index into the %d label names", i, y, len(d.LabelNames))
		}
		if d.Sparse != nil {
			continue
		}
		for j, v := range d.Row(i) {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("data: row %d, feature %d: value is %v", i, j, f)
			}
		}
	}
	return nil
}

// validateWeights checks W: N finite values ≥ 0, not all zero.
func (d *Dataset) validateWeights() error {
	if d.W == nil {
		return nil
	}
	if len(d.W) != d.N {
		return fmt.Errorf("data: %d sample weights for %d rows", len(d.W), d.N)
	}
	sum := 0.0
	for i, w := range d.W {
		if !(w >= 0) || math.IsInf(w, 0) {
			return fmt.Errorf("data: row %d: sample weight %v is not a finite number ≥ 0", i, w)
		}
		sum += w
	}
	if sum == 0 {
		return fmt.Errorf("data: every sample weight is 0")
	}
	return nil
}

// InputShape returns Shape, or []int{D} when Shape is nil.
func (d *Dataset) InputShape() []int {
	if d.Shape == nil {
		return []int{d.D}
	}
	return slices.Clone(d.Shape)
}

// Classes returns the distinct labels in increasing order.
func (d *Dataset) Classes() []float64 {
	c := slices.Clone(d.Y)
	slices.Sort(c)
	return slices.Compact(c)
}

// LabelMap maps two original class labels to -1/+1 and back.
type LabelMap struct{ Neg, Pos float64 }

// Label maps a decision value back to an original label: a decision ≥ 0
// gives Pos, anything else (negative or NaN) gives Neg.
func (m LabelMap) Label(sign float64) float64 {
	if sign >= 0 {
		return m.Pos
	}
	return m.Neg
}

// BinaryLabels maps a two-class data set onto y ∈ {−1, +1}: the smaller
// label becomes −1 and the larger +1 (so {−1, +1} and {0, 1} map the obvious
// way and Ringnorm's {1, 2} maps 1 ↦ −1, 2 ↦ +1). It fails when the labels
// are not integral or when there are not exactly two classes.
func (d *Dataset) BinaryLabels() ([]float32, LabelMap, error) {
	if d.N == 0 || len(d.Y) == 0 {
		return nil, LabelMap{}, fmt.Errorf("data: the data set has no rows")
	}
	cls := d.Classes()
	for _, c := range cls {
		if c != math.Trunc(c) || math.IsInf(c, 0) {
			return nil, LabelMap{}, fmt.Errorf("data: label %v is not an integer; a classifier needs integral class labels", c)
		}
	}
	switch {
	case len(cls) == 1:
		return nil, LabelMap{}, fmt.Errorf("data: only one class (label %v) in the data; a binary classifier needs two", cls[0])
	case len(cls) > 2:
		return nil, LabelMap{}, fmt.Errorf("data: %d classes (labels %s) in the data; a binary classifier needs exactly two, so keep two of them first", len(cls), listLabels(cls, 10))
	}
	m := LabelMap{Neg: cls[0], Pos: cls[1]}
	y := make([]float32, d.N)
	for i, v := range d.Y {
		if v == m.Pos {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return y, m, nil
}

// listLabels formats at most max labels, separated by commas.
func listLabels(c []float64, max int) string {
	var b strings.Builder
	for i, v := range c {
		if i == max {
			fmt.Fprintf(&b, ", … (%d more)", len(c)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, v)
	}
	return b.String()
}

// FilterLabels returns a copy of the rows whose label is one of keep, in
// their original order. Labels are kept as they are.
func FilterLabels(d *Dataset, keep []float64) *Dataset {
	var idx []int
	for i, y := range d.Y[:d.N] {
		if slices.Contains(keep, y) {
			idx = append(idx, i)
		}
	}
	return d.Subset(idx)
}

// KeptColumn is a column of text a reader carried through
// (CSVOptions.Keep): its header name (or its number without a header) and
// its value in every row.
type KeptColumn struct {
	Name   string
	Values []string
}
