package data

// The encoding of a CSV table's columns: dates as four numbers, a pandas
// index left out, categories one-hot (dense or sparse), rare ones grouped.

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// dateColumn makes feature column k of ds, whose codes in X index names
// (in which every value but the missing ones is a date of format), a
// column of dates: it sets col and returns the features of each code and
// the notice that says so. A missing date is an error naming its line
// (t.catMissing) unless t.fillMissing, which fills it with the means of
// the features over the other rows (col.DateFill).
func dateColumn(ds *Dataset, k int, names []string, format string, col *Column, t *csvTable, roles *csvRoles) ([][DateWidth]float32, string, error) {
	vals := make([][DateWidth]float32, len(names))
	missing := false
	for i, s := range names {
		if s == "" || isMissing(s) {
			vals[i], missing = nanDate(), true
			continue
		}
		v, _ := dateOf(s, format)
		vals[i] = toFloat32(v)
	}
	if missing {
		if !t.fillMissing {
			a := t.catMissing[k]
			return nil, "", roles.missingDateErr(t.name, a.line, a.col, a.s)
		}
		var sum [DateWidth]float64
		n := 0
		for r := range ds.N {
			v := vals[int(ds.X[r*ds.D+k])]
			if isMissingDate(v) {
				continue
			}
			for j, x := range v {
				sum[j] += float64(x)
			}
			n++
		}
		col.DateFill = make([]float64, DateWidth)
		for j := range sum {
			col.DateFill[j] = float64(float32(sum[j] / float64(n)))
		}
		fillDates(vals, col.DateFill)
	}
	col.Dates = format
	name := fmt.Sprintf("feature column %d", k)
	if roles != nil && roles.names != nil && k < len(roles.names) {
		name = "column " + roles.names[k]
	}
	note := fmt.Sprintf("%s holds dates (%s): %d features (%s)", name, format, DateWidth, strings.Join(DateFeatures[:], ", "))
	return vals, note, nil
}

// pandasIndex reports whether the first field of the rows of ds, whose
// columns cols the header of roles names, is the index pandas'
// DataFrame.to_csv writes: feature column 0, without a name, holding the
// numbers 0, 1, …, N−1 in order.
func pandasIndex(ds *Dataset, cols []Column, roles *csvRoles) bool {
	if !roles.unnamedFirst() {
		return false
	}
	if c := cols[0]; c.Dropped || c.Categories != nil || c.Dates != "" || c.Fill != nil {
		return false
	}
	for r := range ds.N {
		if ds.X[r*ds.D] != float32(r) {
			return false
		}
	}
	return true
}

// unnamedFirst reports whether the first field of the records is the
// first of at least two feature columns and has no name in the header:
// what a pandas index is, before its values tell.
func (r *csvRoles) unnamedFirst() bool {
	return r.d >= 2 && r.header != nil && len(r.feature) > 0 && r.feature[0] == 0 && strings.TrimSpace(r.header[0]) == ""
}

// emptyColumns returns empty (whether each feature column is empty in
// every row) as the readers leave columns out: nil when none is, or when
// every one is (a file of no values is not one of no features).
func emptyColumns(empty []bool) []bool {
	n := 0
	for _, e := range empty {
		if e {
			n++
		}
	}
	if n == 0 || n == len(empty) {
		return nil
	}
	return empty
}

// emptyNotice says that feature column k, empty in every row, was left
// out.
func emptyNotice(roles *csvRoles, k int) string {
	return fmt.Sprintf("%s is empty in every row (a separator at the end of every line?): left out", roles.unnamedOr(k))
}

// indexNotice says that a pandas index was left out.
const indexNotice = "the first column, unnamed and holding 0…N−1, is a pandas index: left out"

// featureName names feature column k in a message: its header name,
// quoted, or its number among the features.
func (r *csvRoles) featureName(k int) string {
	if r != nil && r.names != nil && k < len(r.names) {
		return Quote(r.names[k])
	}
	return fmt.Sprintf("column %d", k)
}

// idName reports whether a column's name says it identifies the rows:
// "id" in any case, or a name ending in "_id", "-id", " id" or, after a
// lower-case letter, "Id" or "ID" (PassengerId, customerID).
func idName(name string) bool {
	n := strings.TrimSpace(name)
	if strings.EqualFold(n, "id") {
		return true
	}
	if len(n) < 3 {
		return false
	}
	low := strings.ToLower(n)
	switch {
	case strings.HasSuffix(low, "_id"), strings.HasSuffix(low, "-id"), strings.HasSuffix(low, " id"):
		return true
	case strings.HasSuffix(n, "Id") || strings.HasSuffix(n, "ID"):
		c := n[len(n)-3]
		return c >= 'a' && c <= 'z'
	}
	return false
}

// distinctIntegers reports whether feature k of ds holds a different
// integer in every one of at least two rows.
func distinctIntegers(ds *Dataset, k int) bool {
	if ds.N < 2 || ds.X == nil {
		return false
	}
	v := make([]float32, ds.N)
	for r := range ds.N {
		x := ds.X[r*ds.D+k]
		if x != float32(math.Trunc(float64(x))) {
			return false
		}
		v[r] = x
	}
	slices.Sort(v)
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1] {
			return false
		}
	}
	return true
}

// unnamedOr names feature column k in a message: by its header name, or
// by its field's number when it has none.
func (r *csvRoles) unnamedOr(k int) string {
	if r.names != nil && k < len(r.names) && r.names[k] != "" {
		return "column " + Quote(r.names[k])
	}
	if j := slices.Index(r.feature, k); j >= 0 {
		return fmt.Sprintf("column %d", j)
	}
	return fmt.Sprintf("feature column %d", k)
}

// expands reports whether the columns change the codes of a row: one is
// categorical, of dates or dropped.
func expands(cols []Column) bool {
	for _, c := range cols {
		if c.Dropped || c.Categories != nil || c.Dates != "" {
			return true
		}
	}
	return false
}

// catColumn is a categorical feature column k of a table being read,
// whose codes index names (in order of first appearance).
type catColumn struct {
	k     int
	names []string
}

// reduceCategories sets the categories of the categorical columns cats of
// ds (codes in X) in cols, sorted, and recodes X to index them. When the
// one-hot features of every category would not fit, with the codes, in
// oneHotBytes(inputBytes), they are kept sparse (sparseOneHot) if they can
// be, or else the columns with the most categories keep their most
// frequent ones (the same number for each, as many as fit) and
// group the others as one category (Column.Other), as scikit-learn's
// OneHotEncoder(max_categories=…): it returns a notice for each.
func reduceCategories(ds *Dataset, cols []Column, cats []catColumn, roles *csvRoles, inputBytes int64) ([]string, error) {
	n := int64(max(ds.N, 1))
	total, most := 0, 0
	counts := make([][]int, len(cats))
	for i, c := range cats {
		counts[i] = make([]int, len(c.names))
		for r := range ds.N {
			counts[i][int(ds.X[r*ds.D+c.k])]++
		}
		total += len(c.names)
		most = max(most, len(c.names))
	}
	// The numeric columns: one feature each (the categorical ones have
	// no categories in cols yet).
	fixed := keptColumns(cols) - len(cats)
	// The features that fit: the one-hot rows beside the codes, in
	// oneHotBytes.
	fit := oneHotBytes(inputBytes)/(4*n) - int64(ds.D) - int64(fixed)
	// Every category, when the dense rows do not fit but sparse ones
	// (sparseOneHot), a value and an index a nonzero, do in the same share.
	nz := int64(keptColumns(cols))
	sparse := int64(total) > fit && SparseLayout(int(n), fixed+total, int(n*nz)) && fixed+total <= MaxWidth(inputBytes) &&
		8*n*(nz+1) <= oneHotBytes(inputBytes)
	keep := most // categories a column keeps, the last being "other" when cut
	if !sparse && int64(total) > fit {
		spent := func(c int) int64 {
			s := int64(0)
			for _, cc := range cats {
				s += int64(min(len(cc.names), c))
			}
			return s
		}
		lo, hi := 2, most // the largest keep with spent(keep) ≤ fit
		if spent(lo) > fit {
			return nil, fmt.Errorf("%d categorical columns cannot be expanded into 0/1 features within %s of memory for %d rows", len(cats), byteSize(MemoryBudget(inputBytes)), n)
		}
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if spent(mid) <= fit {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		keep = lo
	}
	var notes []string
	for i, c := range cats {
		kept := c.names
		other := len(c.names) > keep
		if other {
			order := make([]int, len(c.names))
			for q := range order {
				order[q] = q
			}
			slices.SortStableFunc(order, func(a, b int) int {
				if d := counts[i][b] - counts[i][a]; d != 0 {
					return d
				}
				return strings.Compare(c.names[a], c.names[b])
			})
			kept = make([]string, keep-1)
			grouped := 0
			for q, code := range order {
				if q < keep-1 {
					kept[q] = c.names[code]
				} else {
					grouped += counts[i][code]
				}
			}
			notes = append(notes, fmt.Sprintf("feature %s has %d categories: the %d most frequent are kept, the other %d (%d rows) grouped as one, so that the one-hot features fit in memory",
				roles.featureName(c.k), len(c.names), keep-1, len(c.names)-keep+1, grouped))
		}
		names := slices.Clone(kept)
		slices.Sort(names)
		remap := make([]int, len(c.names))
		for code, s := range c.names {
			q, ok := slices.BinarySearch(names, s)
			if !ok {
				q = -1
			}
			remap[code] = q
		}
		for r := range ds.N {
			p := &ds.X[r*ds.D+c.k]
			*p = float32(remap[int(*p)])
		}
		cols[c.k].Categories, cols[c.k].Other = names, other
	}
	return notes, nil
}

// numberRows counts the rows r < n whose value(r) is a number.
func numberRows(n int, value func(r int) string) int {
	k := 0
	for r := range n {
		if isNumber(value(r)) {
			k++
		}
	}
	return k
}

// commaNumber returns s with its commas read as a number's: one comma and
// no point a decimal comma ("2,5" → "2.5"), else thousands separators
// ("1,234,567.5" → "1234567.5"); s itself without a comma.
func commaNumber(s string) string {
	switch {
	case !strings.Contains(s, ","):
		return s
	case strings.Count(s, ",") == 1 && !strings.Contains(s, "."):
		return strings.Replace(s, ",", ".", 1)
	}
	return strings.ReplaceAll(s, ",", "")
}

// mostlyNumbers reports whether a column of text with k numbers in n rows
// is a column of numbers with stray text in it (a typo, a second header
// line): 90 % numbers or more, in at least 20 rows.
func mostlyNumbers(k, n int) bool { return n >= 20 && 10*k >= 9*n }

// oneHot expands the code columns of x (n rows of d values) into one
// column per category (a code of -1 gives zeros) and the features of the
// dates of columns of dates (dv: see putRow).
func oneHot(x []float32, n, d int, cols []Column, dv [][][DateWidth]float32) ([]float32, int) {
	w := Width(cols)
	out := make([]float32, n*w)
	for r := range n {
		putRow(out[r*w:(r+1)*w], x[r*d:(r+1)*d], cols, dv)
	}
	return out, w
}

// oneHotBytes is the memory for the one-hot rows read from inputBytes of
// text: a sixteenth of MemoryBudget. A trainer holds up to about five
// copies of the rows (the caller's, standardised ones, a split's training
// and validation parts, the solver's) beside 100 MB of kernel values (the
// SMO solvers' default cache, which bounds the search's kernel matrices
// too) in the budget's 200 MB: --algo linear on 35356 rows of 1 MB with a
// 16000-category column grouped into dense rows peaked at 632 MiB with
// half the budget, 290 MiB with a quarter and 139 MiB with an eighth; the
// default search on 40000 rows of 330 KB with a 1000-category column at
// 203 MB with an eighth, over the budget.
func oneHotBytes(inputBytes int64) int64 { return MemoryBudget(inputBytes) / 16 }

// sparseOneHot reports whether n rows of the columns cols, read from
// inputBytes of text, are kept as sparse rows: when their dense features
// and the codes they come from do not fit in oneHotBytes(inputBytes) (as
// reduceCategories counts them) and SparseLayout keeps them sparse,
// counting a nonzero for each column not dropped (a wide one-hot
// expansion: a text column of many categories).
func sparseOneHot(n int, cols []Column, inputBytes int64) bool {
	w := Width(cols)
	return 4*int64(n)*int64(w+len(cols)) > oneHotBytes(inputBytes) && SparseLayout(n, w, n*keptColumns(cols))
}

// keptColumns counts the most nonzero features a row of the columns cols
// has: one a column, none for a dropped one, DateWidth for one of dates.
func keptColumns(cols []Column) int {
	k := 0
	for _, c := range cols {
		switch {
		case c.Dropped:
		case c.Dates != "":
			k += DateWidth
		default:
			k++
		}
	}
	return k
}

// oneHotCSR is oneHot into sparse rows: a numeric column's nonzero value,
// a categorical column's 1 at its category.
func oneHotCSR(x []float32, n, d int, cols []Column, dv [][][DateWidth]float32) (*CSR, int) {
	nz := keptColumns(cols)
	m := &CSR{Ptr: make([]int64, 1, n+1), Idx: make([]int32, 0, n*nz), Val: make([]float32, 0, n*nz)}
	for r := range n {
		eachFeature(x[r*d:(r+1)*d], cols, dv, func(j int, v float32) {
			if v != 0 {
				m.Idx, m.Val = append(m.Idx, int32(j)), append(m.Val, v)
			}
		})
		m.Ptr = append(m.Ptr, int64(len(m.Val)))
	}
	return m, Width(cols)
}

// putRow writes into dst (Width(cols) values) the features of one row
// given as codes, one per column: a numeric column's value, the index of
// a categorical column's category (-1 for none: zeros), or the index of a
// date among those of its column of dates k, whose features are dv[k].
func putRow(dst, src []float32, cols []Column, dv [][][DateWidth]float32) {
	clear(dst)
	eachFeature(src, cols, dv, func(j int, v float32) { dst[j] = v })
}

// eachFeature calls put(j, v) for the features of one row given as codes
// (see putRow) that may be nonzero: each numeric column's value, the 1 of
// a categorical column's category (or of its grouped others), and the
// features of a date.
func eachFeature(src []float32, cols []Column, dv [][][DateWidth]float32, put func(j int, v float32)) {
	o := 0
	for k, c := range cols {
		switch {
		case c.Dropped:
			continue
		case c.Dates != "":
			for i, v := range dv[k][int(src[k])] {
				put(o+i, v)
			}
		case c.Categories == nil:
			put(o, src[k])
		case src[k] >= 0:
			put(o+int(src[k]), 1)
		case c.Other:
			put(o+c.width()-1, 1)
		}
		o += c.width()
	}
}
