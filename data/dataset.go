package data

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Dataset is a set of labelled points. X is row-major N×D float32.
//
// A Dataset that Open (or OpenNPY, OpenNPZ) read from a little-endian
// float32 .npy array, alone or stored uncompressed in a .npz, has X alias a
// copy-on-write memory mapping of the file instead of a copy: opening it
// costs no reading, pages come from the page cache as they are touched, and
// writes to X (Standardizer.Apply) stay private to the process. Close
// releases the mapping; X must not be used after it. The file must not be
// truncated while it is mapped.
type Dataset struct {
	X     []float32
	Y     []float64 // labels as read (class labels are integral values; regression targets allowed)
	N, D  int
	Shape []int // input shape of one row, e.g. []int{1,28,28} for MNIST; nil means []int{D}

	// LabelNames, if not nil, names the classes of a data set whose labels
	// were read as names (a CSV label column that is not all numbers):
	// Y[i] is then an index into LabelNames, which is in increasing order.
	LabelNames []string

	// Columns, if not nil, describes the columns of a CSV file with
	// categorical (text) feature columns, each expanded into one 0/1
	// feature per category: X has Width(Columns) = D features. Read data
	// for a model with CSVOptions.Columns set to the model's.
	Columns []Column

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
func (d *Dataset) Row(i int) []float32 {
	if i < 0 || i >= d.N {
		panic(fmt.Sprintf("data: row %d out of range [0, %d)", i, d.N))
	}
	return d.X[i*d.D : (i+1)*d.D : (i+1)*d.D]
}

// Subset returns a new data set holding copies of the rows idx, in that
// order (indices may repeat). Shape is copied.
func (d *Dataset) Subset(idx []int) *Dataset {
	s := &Dataset{
		X:     make([]float32, len(idx)*d.D),
		Y:     make([]float64, len(idx)),
		N:     len(idx),
		D:     d.D,
		Shape: slices.Clone(d.Shape),

		LabelNames: slices.Clone(d.LabelNames),
		Columns:    slices.Clone(d.Columns),
	}
	for k, i := range idx {
		copy(s.X[k*d.D:(k+1)*d.D], d.Row(i))
		s.Y[k] = d.Y[i]
	}
	return s
}

// Validate reports the first problem that makes the data set unusable: no
// rows, no features, slice lengths that disagree with N and D, a Shape whose
// product is not D, or a NaN or infinite feature value or label. Rows and
// features are counted from 0 in its messages.
func (d *Dataset) Validate() error {
	switch {
	case d.N <= 0:
		return fmt.Errorf("data: the data set has no rows")
	case d.D <= 0:
		return fmt.Errorf("data: the data set has no features (D = %d)", d.D)
	case len(d.X) != d.N*d.D:
		return fmt.Errorf("data: X has %d values, want N×D = %d×%d = %d", len(d.X), d.N, d.D, d.N*d.D)
	case len(d.Y) != d.N:
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
	for i := 0; i < d.N; i++ {
		if y := d.Y[i]; math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("data: row %d: label is %v", i, y)
		} else if d.LabelNames != nil && (y != math.Trunc(y) || y < 0 || int(y) >= len(d.LabelNames)) {
			return fmt.Errorf("data: row %d: label %v is not an index into the %d label names", i, y, len(d.LabelNames))
		}
		for j, v := range d.Row(i) {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("data: row %d, feature %d: value is %v", i, j, f)
			}
		}
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
