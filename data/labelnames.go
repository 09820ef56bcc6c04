package data

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/internal/numparse"
)

// labelNames interns class labels read as names (CSV label fields that are
// not numbers). Codes are given in order of first appearance; sorted
// renumbers them in increasing order of the names.
type labelNames struct {
	idx  map[string]int
	list []string
}

// code returns the code of name s, giving it the next one if s is new.
func (ln *labelNames) code(s string) float64 {
	if ln.idx == nil {
		ln.idx = map[string]int{}
	}
	k, ok := ln.idx[s]
	if !ok {
		k = len(ln.list)
		ln.idx[s] = k
		ln.list = append(ln.list, s)
	}
	return float64(k)
}

// numberName is the name of a label that was read as a number: its
// shortest form, so that "1" and "1.0" are one class.
func numberName(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// order returns the names in increasing order and, for each code, its
// position among them.
func (ln *labelNames) order() ([]string, []int) { return SortNames(ln.list) }

// SortNames returns distinct names in increasing order and, for each of
// them as given, its position in that order: how labels named in order of
// first appearance are renumbered to index their sorted names.
func SortNames(names []string) ([]string, []int) {
	sorted := slices.Sorted(slices.Values(names))
	pos := make([]int, len(names))
	for i, s := range names {
		pos[i], _ = slices.BinarySearch(sorted, s)
	}
	return sorted, pos
}

// sorted renumbers the codes in y so that they index the names in
// increasing order, and returns those names.
func (ln *labelNames) sorted(y []float64) []string {
	names, remap := ln.order()
	for i, v := range y {
		y[i] = float64(remap[int(v)])
	}
	return names
}

// nameLabels turns the labels y of a data set into codes of names: the
// first prefix labels were read as numbers, the rest are codes into names
// (first-appearance order). It returns the sorted names, y renumbered to
// index them.
func nameLabels(y []float64, prefix int, names []string) []string {
	var ln labelNames
	for i, v := range y {
		if i < prefix {
			y[i] = ln.code(numberName(v))
		} else {
			y[i] = ln.code(names[int(v)])
		}
	}
	return ln.sorted(y)
}

// caseTwins returns the first two names that differ only in case (and
// spaces around them), in order, if any.
func caseTwins(names []string) (a, b string, ok bool) {
	seen := make(map[string]string, len(names))
	for _, n := range names {
		k := strings.ToLower(strings.TrimSpace(n))
		if first, dup := seen[k]; dup {
			return first, n, true
		}
		seen[k] = n
	}
	return "", "", false
}

// EncodeRow writes into dst (Width(cols) values) the features of one row
// of raw column values, as a CSV file read with CSVOptions.Columns = cols
// gives them: a number for a numeric column (a missing one, "" or NA …,
// its Fill if it has one), one-hot for a categorical one (a value not
// among its categories gives zeros, or the grouped category of a column
// with Other), the features of a date for a column of dates (a missing
// one: its DateFill if it has one; a value that is not a date of the
// column's format is an error). Nil cols are the columns of a model
// trained on numbers without a header: one number a field, len(fields) of
// them.
func EncodeRow(cols []Column, fields []string, dst []float32) error {
	if cols == nil {
		cols = make([]Column, len(fields))
	}
	if len(fields) != len(cols) {
		return fmt.Errorf("data: %d values, want one per column (%d)", len(fields), len(cols))
	}
	if len(dst) != Width(cols) {
		return fmt.Errorf("data: EncodeRow: dst holds %d values, the columns make %d", len(dst), Width(cols))
	}
	codes := make([]float32, len(cols))
	var dv [][][DateWidth]float32
	for k, c := range cols {
		f := strings.TrimSpace(fields[k])
		name := func() string {
			if c.Name != "" {
				return Quote(c.Name)
			}
			return fmt.Sprint(k)
		}
		switch {
		case c.Dropped:
		case c.Dates != "":
			dc := dateCodes{format: c.Dates}
			code, ok := dc.code(f)
			switch {
			case !ok:
				return fmt.Errorf("data: column %s: %s is not a date (%s)", name(), Quote(f), c.Dates)
			case isMissingDate(dc.vals[code]) && c.DateFill == nil:
				return fmt.Errorf("data: column %s: missing date %s, and the model has no fill for it", name(), Quote(f))
			case c.DateFill != nil:
				fillDates(dc.vals, c.DateFill)
			}
			if dv == nil {
				dv = make([][][DateWidth]float32, len(cols))
			}
			dv[k] = dc.vals
		case c.Categories == nil:
			v, err := numparse.String32(f)
			if err != nil && err != numparse.ErrNotFinite && c.Fill != nil && (f == "" || isMissing(f)) {
				v, err = float32(*c.Fill), nil
			}
			if err != nil {
				return fmt.Errorf("data: column %s: %s is not a finite number", name(), Quote(f))
			}
			codes[k] = v
		default:
			codes[k] = -1
			if i, ok := slices.BinarySearch(c.Categories, f); ok {
				codes[k] = float32(i)
			}
		}
	}
	putRow(dst, codes, cols, dv)
	return nil
}
