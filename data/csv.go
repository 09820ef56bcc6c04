package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/internal/numparse"
)

// HeaderMode says whether the first row of a CSV file is a header.
type HeaderMode int

const (
	// HeaderAuto treats the first row as a header when one of its fields is
	// not a number.
	HeaderAuto HeaderMode = iota
	// HeaderYes always skips the first row.
	HeaderYes
	// HeaderNo reads the first row as data.
	HeaderNo
)

// String returns "auto", "yes" or "no".
func (h HeaderMode) String() string {
	switch h {
	case HeaderAuto:
		return "auto"
	case HeaderYes:
		return "yes"
	case HeaderNo:
		return "no"
	}
	return fmt.Sprintf("HeaderMode(%d)", int(h))
}

// CSVOptions configure ReadCSV. The zero value reads comma-separated data,
// detects a header row and takes the label from the column nsvm train
// takes it from (LabelAuto): the header field named label, class, target,
// …, else the last column.
type CSVOptions struct {
	// LabelCol is the label column: LabelAuto (0, the zero value),
	// LabelFirst (column 0, as WriteCSV writes it), LabelLast (-1), or a
	// 0-based column number ≥ 1.
	LabelCol int
	Header   HeaderMode // HeaderAuto, HeaderYes or HeaderNo
	Comma    rune       // field separator; 0 = ','

	// WeightCol, if not "", is the column of sample weights, read into
	// Dataset.W and left out of the features: a header field's name (in
	// any case, such as "weight" or "sample_weight"; the file needs a
	// header) or a 0-based column number ("3"). "" and "-1" read no
	// weights. A weight must be a finite number ≥ 0 (Dataset.Validate
	// refuses them all 0). Streams do not read weights.
	WeightCol string

	// Columns, if not nil, are the feature columns the data must have, as
	// a model records them (Dataset.Columns of its training data): the
	// categorical ones are encoded with their categories, a value not
	// among them as all zeros. Nil reads the columns as they come: a
	// column with text in it is categorical.
	Columns []Column

	// LabelColumn, if not "", is the header's name of the label column
	// (in any case; Dataset.LabelColumn of the data a model was trained
	// on, or nsvm's --label-col NAME). With LabelAuto the field of that
	// name is the label: without Columns a file must have it; with named
	// Columns a file without it has no labels.
	LabelColumn string

	// Keep names columns whose text is carried through unchanged, one value
	// a row, into Dataset.Kept (identifiers to print beside predictions):
	// header names (in any case) or 0-based column numbers as text. A kept
	// column is read as well as whatever else it is (a feature, say).
	Keep []string

	// FillMissing replaces a missing value (empty, NA, ?, …) in a column of
	// numbers by the mean of the column's other values, recorded as the
	// column's Fill in Dataset.Columns, instead of returning an error.
	FillMissing bool
}

// Column describes one feature column of a CSV file (see
// Dataset.Columns): a column of numbers (the zero value but for its Name),
// of categories, of dates, or one left out. The zero values of the fields
// added over time are what files written before them meant, so that every
// model's columns read back.
type Column struct {
	// Name is the column's name in the header of the file, if it had one:
	// a file read with these columns (CSVOptions.Columns) finds them by
	// name in its header, in any order.
	Name string `json:"name,omitempty"`
	// Categories, sorted, of a column that holds text, which becomes one
	// 0/1 feature per category (one-hot); nil for a column of numbers.
	Categories []string `json:"categories,omitempty"`
	// Other marks a categorical column whose rarer values were grouped as
	// one category (too many to expand: see ReadCSV): one more feature,
	// after those of Categories, stands for every value not among them.
	Other bool `json:"other,omitempty"`
	// Dropped marks a text column left out: one with a different value in
	// most rows (more than half of them, and more than 100 values), an
	// identifier or free text rather than categories. Distinct counts its
	// values.
	Dropped  bool `json:"dropped,omitempty"`
	Distinct int  `json:"distinct,omitempty"`
	// Fill, if not nil, replaces a missing value in a column of numbers:
	// the mean of the column's values in the data read with
	// CSVOptions.FillMissing.
	Fill *float64 `json:"fill,omitempty"`
	// Dates, if not "", marks a column of dates or timestamps and names
	// their format ("YYYY-MM-DD", "DD/MM/YYYY", …; a time of day may
	// follow): its values become the DateWidth features DateFeatures
	// names, not categories.
	Dates string `json:"dates,omitempty"`
	// DateFill, if not nil, replaces the features of a missing date: the
	// means of the column's DateWidth features in the data read with
	// CSVOptions.FillMissing.
	DateFill []float64 `json:"date_fill,omitempty"`
	// RowIndex marks a dropped first column without a name that held
	// 0, 1, …, N−1: the index pandas' DataFrame.to_csv writes. A file read
	// with these columns may have it or not.
	RowIndex bool `json:"row_index,omitempty"`
}

// width is the number of features of the column.
func (c Column) width() int {
	switch {
	case c.Dropped:
		return 0
	case c.Dates != "":
		return DateWidth
	case c.Categories == nil:
		return 1
	case c.Other:
		return len(c.Categories) + 1
	}
	return len(c.Categories)
}

// identifierLike reports whether a text column with distinct values in n
// rows is left out (see Column.Dropped).
func identifierLike(distinct, n int) bool { return distinct > 100 && 2*distinct > n }

// Width returns the number of features the columns make.
func Width(cols []Column) int {
	w := 0
	for _, c := range cols {
		w += c.width()
	}
	return w
}

// Label columns (CSVOptions.LabelCol), besides a column number ≥ 1.
const (
	// LabelAuto, the zero value, takes the label from the header field
	// named "label" (in any case; WriteCSV's header names it so), else
	// "class", "target", "outcome", "species", "diagnosis" or "survived"
	// (in that order), and from the last column when there is no header
	// or no such field (the last but one when the last holds the weights,
	// CSVOptions.WeightCol). nsvm's --label-col defaults to it.
	LabelAuto = 0
	// LabelLast takes the label from the last column.
	LabelLast = -1
	// LabelFirst takes the label from the first column, column 0.
	LabelFirst = -3
)

// errNoRows is the error of a file without data rows.
var errNoRows = errors.New("no data rows")

func checkCSVOptions(name string, opt CSVOptions) error {
	if !validLabelCol(opt.LabelCol) {
		return fmt.Errorf("data: %s: label column %d; want a 0-based column ≥ 1, LabelAuto (0), LabelLast (-1) or LabelFirst (-3)", name, opt.LabelCol)
	}
	if opt.Header < HeaderAuto || opt.Header > HeaderNo {
		return fmt.Errorf("data: %s: unknown header mode %d", name, int(opt.Header))
	}
	return nil
}

// csvState is where readCSVSeq starts: after line0 lines of the file and,
// when roles is not nil, after the first record and its header, whose
// roles it holds.
type csvState struct {
	line0 int
	roles *csvRoles
}

// csvRoles says what each field of a record is: the label, the weight,
// one of the feature columns, or a field left out.
type csvRoles struct {
	nf        int
	labelCol  int   // -1: the rows have no label
	weightCol int   // -1: no weights
	feature   []int // per field, its feature column, or -1
	d         int   // feature columns
	header    []string
	// the header's names: of the feature columns (in their order) and of
	// the label column; nil and "" without a header.
	names     []string
	labelName string
	notices   []string
	keep      []int // the fields of CSVOptions.Keep, in its order
}

// name returns field j's header name, quoted, or its number.
func (r *csvRoles) name(j int) string {
	if r != nil && r.header != nil && j < len(r.header) {
		return "column " + Quote(strings.TrimSpace(r.header[j]))
	}
	return fmt.Sprintf("column %d", j)
}

// csvRolesOf decides the roles of the fields of a CSV file's records from
// its first record, fields, its header when header is true. Without
// opt.Columns: the label and weight columns as csvColumns decides them,
// the other fields the features in order. With opt.Columns named and a
// header: each column is the header field of its name (a dropped column
// may be missing), the label the field opt.LabelCol or opt.LabelColumn
// names, or else one named as LabelAuto looks for among the others, or
// none; the other fields are left out (a notice). With opt.Columns
// otherwise, by position: records of as many feature fields as columns
// have no label, one more field is the label. Its errors are about that
// record, to be prefixed with the file and line.
func csvRolesOf(opt CSVOptions, fields []string, header bool) (*csvRoles, error) {
	nf := len(fields)
	r := &csvRoles{nf: nf, labelCol: -1, weightCol: -1, feature: make([]int, nf)}
	if header {
		r.header = slices.Clone(fields)
	}
	cols := opt.Columns
	named := false
	for _, c := range cols {
		named = named || c.Name != ""
	}
	var err error
	if r.keep, err = keptFields(opt.Keep, fields, header); err != nil {
		return nil, err
	}
	switch {
	case cols != nil && named && header:
		if r.weightCol, err = weightColumn(opt.WeightCol, fields, true); err != nil {
			return nil, err
		}
		for j := range r.feature {
			r.feature[j] = -1
		}
		for k, c := range cols {
			j := headerField(fields, c.Name, r.feature, r.weightCol)
			if j < 0 {
				if c.Dropped {
					continue
				}
				return nil, fmt.Errorf("no column named %s, the model's feature column %d (the header has %s)", Quote(c.Name), k, listFields(fields))
			}
			r.feature[j] = k
		}
		free := func(j int) bool { return j >= 0 && j < nf && r.feature[j] < 0 && j != r.weightCol }
		switch c := opt.LabelCol; {
		case c == LabelFirst, c == LabelLast, c > 0:
			j := map[bool]int{true: 0, false: c}[c == LabelFirst]
			if c == LabelLast {
				j = nf - 1
			}
			if !free(j) {
				return nil, fmt.Errorf("label column %d is not a field of the file left by the model's feature columns and the weights", j)
			}
			r.labelCol = j
		case opt.LabelColumn != "":
			r.labelCol = headerField(fields, opt.LabelColumn, r.feature, r.weightCol)
		default:
			for _, name := range labelHeaders {
				if j := headerField(fields, name, r.feature, r.weightCol); j >= 0 {
					r.labelCol = j
					break
				}
			}
		}
		// The model's data had a pandas index: a file's unnamed first
		// column is one too, left out without a word.
		index := slices.ContainsFunc(cols, func(c Column) bool { return c.RowIndex }) && strings.TrimSpace(fields[0]) == ""
		var extra []string
		for j := range fields {
			if free(j) && j != r.labelCol && !slices.Contains(r.keep, j) && !(index && j == 0) {
				extra = append(extra, fields[j])
			}
		}
		if extra != nil {
			r.notices = append(r.notices, fmt.Sprintf("%d column(s) of the file are not among the model's and are ignored: %s", len(extra), listFields(extra)))
		}
	case cols != nil:
		if r.weightCol, err = weightColumn(opt.WeightCol, fields, header); err != nil {
			return nil, err
		}
		f := nf
		if r.weightCol >= 0 {
			f--
		}
		switch {
		case f == len(cols) && opt.LabelCol == LabelAuto:
		case f == len(cols)+1:
			if r.labelCol, r.weightCol, err = csvColumns(opt, fields, header); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%d fields, but the model's data had %d feature columns (and a label)", nf, len(cols))
		}
		r.inOrder()
	default:
		if r.labelCol, r.weightCol, err = csvColumns(opt, fields, header); err != nil {
			return nil, err
		}
		r.inOrder()
		if opt.LabelCol == LabelAuto && opt.LabelColumn == "" && (!header || labelColByName(opt, fields) < 0) {
			// Nothing named the label: say which column was taken.
			name := ""
			if header {
				name = " (" + Quote(fields[r.labelCol]) + ")"
			}
			r.notices = append(r.notices, fmt.Sprintf("the label is the last column, %d%s: no column is named %s; --label-col NAME or INDEX takes another",
				r.labelCol, name, strings.Join(labelHeaders, ", ")))
		}
	}
	r.d = 0
	for _, k := range r.feature {
		r.d = max(r.d, k+1)
	}
	if cols != nil {
		r.d = len(cols)
	}
	if header {
		r.names = make([]string, r.d)
		for j, k := range r.feature {
			if k >= 0 {
				r.names[k] = strings.TrimSpace(fields[j])
			}
		}
		if r.labelCol >= 0 {
			r.labelName = strings.TrimSpace(fields[r.labelCol])
		}
	}
	return r, nil
}

// keptFields finds the fields that spec (CSVOptions.Keep) names in a file
// whose first record is fields, its header when header is true.
func keptFields(spec []string, fields []string, header bool) ([]int, error) {
	var keep []int
	none := make([]int, len(fields))
	for j := range none {
		none[j] = -1
	}
	for _, name := range spec {
		j := -1
		if header {
			j = headerField(fields, name, none, -1)
		}
		if i, err := strconv.Atoi(strings.TrimSpace(name)); j < 0 && err == nil && i >= 0 && i < len(fields) {
			j = i
		}
		if j < 0 {
			if !header {
				return nil, fmt.Errorf("no column %s to keep: the file has no header naming its columns, and %d fields", Quote(name), len(fields))
			}
			return nil, fmt.Errorf("no column named %s to keep (the header has %s)", Quote(name), listFields(fields))
		}
		keep = append(keep, j)
	}
	return keep, nil
}

// inOrder makes the fields other than the label and the weight the
// features, in order.
func (r *csvRoles) inOrder() {
	k := 0
	for j := range r.feature {
		if j == r.labelCol || j == r.weightCol {
			r.feature[j] = -1
			continue
		}
		r.feature[j] = k
		k++
	}
}

// headerField returns the header field named name (after trimming
// blanks; in any case if no field has it exactly) among those not taken
// (taken[j] ≥ 0, or the weight column), or -1.
func headerField(fields []string, name string, taken []int, weightCol int) int {
	name = strings.TrimSpace(name)
	if name == "" {
		return -1
	}
	fold := -1
	for j, f := range fields {
		if taken[j] >= 0 || j == weightCol {
			continue
		}
		f = strings.TrimSpace(f)
		if f == name {
			return j
		}
		if fold < 0 && strings.EqualFold(f, name) {
			fold = j
		}
	}
	return fold
}

// listFields quotes at most 10 fields for a message.
func listFields(fields []string) string {
	var b strings.Builder
	for i, f := range fields {
		if i == 10 {
			fmt.Fprintf(&b, ", … (%d more)", len(fields)-10)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Quote(strings.TrimSpace(f)))
	}
	return b.String()
}

// csvTable is what the sequential reader read: the features (codes in
// categorical columns), the labels (codes if labels is not nil) and the
// roles of the fields.
type csvTable struct {
	x      []float32
	y      []float64     // zeros when the rows have no labels
	w      []float64     // the weights, if the file has a weight column
	d      int           // features per record
	labels *labelNames   // the label names, in order of first appearance; nil: numbers
	cats   []*labelNames // per feature column, its categories if it holds text; nil: all numbers
	fill   []bool        // per feature column, whether missing values (NaN in x) are to be filled; nil: none
	dates  []*dateCodes  // per feature column of the given columns (CSVOptions.Columns), its dates if it holds them
	roles  *csvRoles
	kept   [][]string // per CSVOptions.Keep, its text a row
	// unlabelled: the rows have no label (no label column, or an empty
	// one); emptyLabel: the first line with an empty label
	unlabelled bool
	emptyLabel int
	// fillMissing: CSVOptions.FillMissing, for the dates found at the end
	fillMissing bool
	// where the first text of a categorical column (catText) and the
	// first label name (labelText) were met.
	name      string
	catText   []textAt
	labelText textAt
	// catMissing: per categorical column, its first missing value (line
	// 0: none), an error if the column turns out to hold dates.
	catMissing []textAt
}

// textAt is a text value and where it was read.
type textAt struct {
	line, col int
	s         string
}

// missingVal is a missing value met in a column that holds numbers so far.
type missingVal struct {
	row, line, col, fi int
	s                  string
}

// readCSVSeq is the sequential reader (encoding/csv), the reference for
// the parallel one.
//
// Labels that are not all numbers are names: then y holds codes into
// t.labels, in order of first appearance (the labels before the first name
// are named by their shortest number form); finishTable sorts them. A
// feature column with text in it is categorical in the same way (t.cats);
// a missing value (empty, NA, ?, …) is then one more category, while in a
// column of numbers it is an error. With opt.Columns, the columns are
// those: the categories of a categorical column give its codes (-1 for a
// value not among them) and a numeric column must hold numbers. A label
// column empty in every row is no label; empty in some, an error.
func readCSVSeq(r io.Reader, name string, opt CSVOptions, st csvState) (*csvTable, error) {
	if err := checkCSVOptions(name, opt); err != nil {
		return nil, err
	}
	lc := &lineCounter{r: r}
	br := bufio.NewReaderSize(lc, 64<<10)
	cr := csv.NewReader(br)
	if opt.Comma != 0 {
		cr.Comma = opt.Comma
	}
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	cr.FieldsPerRecord = -1
	q := &csvSeq{t: &csvTable{name: name, fillMissing: opt.FillMissing}, opt: opt, roles: st.roles, nf: -1,
		schema: columnCodes(opt.Columns), top: st.roles == nil}
	for k, c := range opt.Columns {
		if c.Dates != "" {
			if q.t.dates == nil {
				q.t.dates = make([]*dateCodes, len(opt.Columns))
			}
			q.t.dates[k] = &dateCodes{format: c.Dates}
		}
	}
	if q.roles != nil {
		q.nf = q.roles.nf
	}
	end := st.line0 // the last line of the record before
	for {
		fields, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvReadErr(name, st.line0, err)
		}
		line, _ := cr.FieldPos(0)
		line += st.line0
		if line > end+1 {
			return nil, fmt.Errorf("data: %s:%d: %v", name, end+1, errBlankLine)
		}
		last, _ := cr.FieldPos(len(fields) - 1)
		end = st.line0 + last + strings.Count(fields[len(fields)-1], "\n")
		if q.nf >= 0 && len(fields) != q.nf {
			return nil, fmt.Errorf("data: %s:%d: %d fields, but the first row has %d", name, line, len(fields), q.nf)
		}
		if q.top {
			skip, err := q.head(fields, line, br)
			if err != nil {
				return nil, err
			}
			if skip {
				continue
			}
		}
		if err := q.row(fields, line); err != nil {
			return nil, err
		}
	}
	if st.line0+lc.lines() > end {
		return nil, fmt.Errorf("data: %s:%d: %v", name, end+1, errBlankLine)
	}
	return q.finish()
}

// csvSeq is readCSVSeq's state between records.
type csvSeq struct {
	t      *csvTable // its name is the file's, for messages
	opt    CSVOptions
	roles  *csvRoles
	schema []map[string]int // opt.Columns' codes
	nf     int              // fields per record; -1: not known yet

	top      bool // before the first data row of the file
	hdrs     int  // header lines seen
	preamble bool // a preamble line seen

	missing    []missingVal
	rows       int
	emptyLabel int // the first line with an empty label
	labelled   int // rows with a label
}

// columnCodes returns, per column of cols, the codes of its categories
// (for a categorical or dropped column; nil for a numeric one); nil
// without cols.
func columnCodes(cols []Column) []map[string]int {
	if cols == nil {
		return nil
	}
	schema := make([]map[string]int, len(cols))
	for i, c := range cols {
		if c.Categories != nil || c.Dropped {
			schema[i] = make(map[string]int, len(c.Categories))
			for k, s := range c.Categories {
				schema[i][s] = k
			}
		}
	}
	return schema
}

// csvReadErr is the error for encoding/csv's err, at the file's lines
// after line0.
func csvReadErr(name string, line0 int, err error) error {
	var pe *csv.ParseError
	switch {
	case errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrQuote) && pe.StartLine != pe.Line:
		return fmt.Errorf("data: %s:%d: a quoted field opened on this line is not closed (the quote runs to line %d)", name, line0+pe.StartLine, line0+pe.Line)
	case errors.As(err, &pe):
		return fmt.Errorf("data: %s:%d: %v", name, line0+pe.Line, pe.Err)
	case lineOf(err) > 0:
		return fmt.Errorf("data: %s:%d: %w", name, lineOf(err), err)
	}
	return fmt.Errorf("data: %s: %w", name, err)
}

// head reads the lines before the data: a preamble (a line whose number
// of fields the others do not share, as "150,4,setosa,…" in
// scikit-learn's files), a header, a second header line. It reports
// whether fields was one of them, setting the roles of the fields from
// the header.
func (q *csvSeq) head(fields []string, line int, br *bufio.Reader) (bool, error) {
	opt := q.opt
	auto := opt.Header == HeaderAuto
	var recs [][]string
	if auto {
		recs = peekRecords(br, opt)
	}
	next := func() [][]string { return recs }
	var err error
	switch {
	case q.hdrs == 0 && !q.preamble && auto && !namesColumns(fields, opt.Columns) && isPreamble(fields, recs):
		q.preamble = true
		return true, nil
	case q.hdrs == 1:
		q.top = false
		if auto && allText(fields) && isHeader(fields, opt, next) {
			if opt.LabelCol == LabelAuto && opt.Columns == nil {
				if j := labelColByName(opt, fields); j >= 0 && j != q.roles.weightCol {
					if q.roles, err = csvRolesOf(opt, fields, true); err != nil {
						return false, fmt.Errorf("data: %s:%d: %v", q.t.name, line, err)
					}
				}
			}
			return true, nil
		}
	default:
		q.top = false
		q.nf = len(fields)
		header := opt.Header == HeaderYes
		if auto && q.nf >= 2 {
			header = isHeader(fields, opt, next) || namesColumns(fields, opt.Columns)
		}
		if q.roles, err = csvRolesOf(opt, fields, header); err != nil {
			return false, fmt.Errorf("data: %s:%d: %v", q.t.name, line, err)
		}
		if header {
			q.hdrs, q.top = 1, true
			return true, nil
		}
	}
	return false, nil
}

// row appends the data row of fields, on line, to the table.
func (q *csvSeq) row(fields []string, line int) error {
	t, roles := q.t, q.roles
	for i, j := range roles.keep {
		if t.kept == nil {
			t.kept = make([][]string, len(roles.keep))
		}
		t.kept[i] = append(t.kept[i], strings.TrimSpace(fields[j]))
	}
	d := roles.d
	base := len(t.x)
	t.x = slices.Grow(t.x, d)[:base+d]
	clear(t.x[base:])
	if roles.labelCol < 0 {
		t.y = append(t.y, 0)
	}
	for j, f := range fields {
		f = strings.TrimSpace(f)
		var err error
		switch {
		case j == roles.weightCol:
			var v float64
			if v, err = parseWeight(f); err != nil {
				return fmt.Errorf("data: %s:%d: %v in %s", q.t.name, line, err, roles.name(j))
			}
			t.w = append(t.w, v)
		case j == roles.labelCol:
			err = q.label(f, line, j)
		case roles.feature[j] >= 0:
			err = q.feature(f, line, j, roles.feature[j], base)
		}
		if err != nil {
			return err
		}
	}
	q.rows++
	return nil
}

// label appends the label f, field j on line, to the table's labels.
// Labels that are not all numbers are names: the first name turns the
// labels read so far into names (their shortest number form).
func (q *csvSeq) label(f string, line, j int) error {
	t := q.t
	v, err := numparse.String64(f)
	switch {
	case f == "":
		if q.emptyLabel == 0 {
			q.emptyLabel = line
		}
		t.y = append(t.y, 0)
		return nil
	case errors.Is(err, numparse.ErrNotFinite), errors.Is(err, numparse.ErrRange):
		return fmt.Errorf("data: %s:%d: label %s in %s is not finite", q.t.name, line, Quote(f), q.roles.name(j))
	case err != nil && isMissing(f):
		return fmt.Errorf("data: %s:%d: missing label %s in %s", q.t.name, line, Quote(f), q.roles.name(j))
	case err != nil:
		// A name: the labels are class names from here on.
		q.labelled++
		if t.labels == nil {
			t.labelText = textAt{line, j, f}
			t.labels = &labelNames{}
			for i, v := range t.y {
				t.y[i] = t.labels.code(numberName(v))
			}
		}
		t.y = append(t.y, t.labels.code(f))
		return nil
	}
	q.labelled++
	if t.labels != nil {
		v = t.labels.code(numberName(v))
	}
	t.y = append(t.y, v)
	return nil
}

// feature sets feature column k of the row at base from f, field j on
// line: a category's code with the model's columns, or in a column that
// holds text; else a number. Text in a column of numbers makes it
// categorical, its numbers so far categories too; a missing value waits
// for the column's kind (an error in a column of numbers).
func (q *csvSeq) feature(f string, line, j, k, base int) error {
	t, roles, opt := q.t, q.roles, q.opt
	d := roles.d
	p := &t.x[base+k]
	if t.dates != nil && t.dates[k] != nil {
		dc := t.dates[k]
		code, ok := dc.code(f)
		switch {
		case !ok:
			return fmt.Errorf("data: %s:%d: value %s in %s is not a date (the model's column %d holds dates, %s)", q.t.name, line, Quote(f), roles.name(j), k, dc.format)
		case isMissingDate(dc.vals[code]) && opt.Columns[k].DateFill == nil:
			return roles.missingDateErr(q.t.name, line, j, f)
		}
		*p = float32(code)
		return nil
	}
	if q.schema != nil && q.schema[k] != nil {
		code, ok := q.schema[k][f]
		if !ok {
			code = -1
		}
		*p = float32(code)
		return nil
	}
	if t.cats != nil && t.cats[k] != nil {
		if t.catMissing[k].line == 0 && (f == "" || isMissing(f)) {
			t.catMissing[k] = textAt{line, j, f}
		}
		*p = float32(t.cats[k].code(f))
		return nil
	}
	v, err := numparse.String32(f)
	switch {
	case errors.Is(err, numparse.ErrNotFinite):
		return fmt.Errorf("data: %s:%d: value %s in %s is not finite", q.t.name, line, Quote(f), roles.name(j))
	case err != nil && (f == "" || isMissing(f)) && q.schema != nil && opt.Columns[k].Fill != nil:
		*p = float32(*opt.Columns[k].Fill)
		return nil
	case err != nil && (f == "" || isMissing(f)) && q.schema == nil:
		// An error unless the column turns out to be categorical.
		q.missing = append(q.missing, missingVal{row: q.rows, line: line, col: j, fi: k, s: f})
		return nil
	case err != nil && (f == "" || isMissing(f)):
		return roles.missingErr(q.t.name, line, j, f)
	case errors.Is(err, numparse.ErrRange):
		return fmt.Errorf("data: %s:%d: value %s in %s is out of float32 range", q.t.name, line, Quote(f), roles.name(j))
	case err != nil && q.schema == nil:
		// Text: the column is categorical, its numbers so far
		// categories too.
		if t.cats == nil {
			t.cats = make([]*labelNames, d)
			t.catText = make([]textAt, d)
			t.catMissing = make([]textAt, d)
		}
		t.catText[k] = textAt{line, j, f}
		c := &labelNames{}
		t.cats[k] = c
		for r := range q.rows {
			x := &t.x[r*d+k]
			*x = float32(c.code(strconv.FormatFloat(float64(*x), 'g', -1, 32)))
		}
		q.missing = slices.DeleteFunc(q.missing, func(m missingVal) bool {
			if m.fi == k {
				t.x[m.row*d+k] = float32(c.code(m.s))
				if t.catMissing[k].line == 0 {
					t.catMissing[k] = textAt{m.line, m.col, m.s}
				}
			}
			return m.fi == k
		})
		*p = float32(c.code(f))
		return nil
	case err != nil:
		return fmt.Errorf("data: %s:%d: value %s in %s is not a number (the model's column %d holds numbers)", q.t.name, line, Quote(f), roles.name(j), k)
	}
	*p = v
	return nil
}

// finish checks the table after its last record: rows, labels in every
// row or in none, missing values filled or an error.
func (q *csvSeq) finish() (*csvTable, error) {
	t, roles := q.t, q.roles
	if q.rows == 0 {
		return nil, fmt.Errorf("data: %s: %w", q.t.name, errNoRows)
	}
	switch {
	case roles.labelCol < 0 || q.labelled == 0:
		t.unlabelled, t.labels, t.emptyLabel = true, nil, q.emptyLabel
		clear(t.y)
	case q.emptyLabel > 0:
		return nil, fmt.Errorf("data: %s:%d: empty label in %s (a label column is full, or empty in every row)", q.t.name, q.emptyLabel, roles.name(roles.labelCol))
	}
	missing := q.missing
	if len(missing) > 0 && q.opt.FillMissing {
		d := roles.d
		t.fill = make([]bool, d)
		for _, m := range missing {
			t.x[m.row*d+m.fi] = float32(math.NaN())
			t.fill[m.fi] = true
		}
		missing = nil
	}
	if len(missing) > 0 {
		m := missing[0]
		return nil, roles.missingErr(q.t.name, m.line, m.col, m.s)
	}
	t.d = roles.d
	t.roles = roles
	return t, nil
}

// namesColumns reports whether a first record names every feature column
// of cols (that is not dropped): a header.
func namesColumns(fields []string, cols []Column) bool {
	if cols == nil {
		return false
	}
	taken := make([]int, len(fields))
	for j := range taken {
		taken[j] = -1
	}
	named := false
	for k, c := range cols {
		j := headerField(fields, c.Name, taken, -1)
		switch {
		case j >= 0:
			taken[j], named = k, true
		case !c.Dropped:
			return false
		}
	}
	return named
}

// MissingValueError is the error of a missing value (empty, NA, ?, …) in
// a column of numbers or of dates, which a CSV reader cannot read as one
// (CSVOptions.FillMissing fills it with the column's mean, or the means of
// a date's features, instead).
type MissingValueError struct {
	File   string
	Line   int
	Column string // the header's name of the column, or "" without a header
	Index  int    // the field's number in the record, from 0
	Value  string // as read ("" when empty)
	Dates  bool   // the column holds dates (Column.Dates)
}

func (e *MissingValueError) Error() string {
	col := fmt.Sprintf("column %d", e.Index)
	if e.Column != "" {
		col = "column " + Quote(e.Column)
	}
	what := "missing value " + Quote(e.Value)
	if e.Value == "" {
		what = "empty value"
	}
	kind := "numbers"
	if e.Dates {
		kind = "dates"
	}
	return fmt.Sprintf("data: %s:%d: %s in %s, a column of %s", e.File, e.Line, what, col, kind)
}

// missingErr is the *MissingValueError of field j.
func (r *csvRoles) missingErr(name string, line, j int, f string) error {
	e := &MissingValueError{File: name, Line: line, Index: j, Value: f}
	if r != nil && r.header != nil && j < len(r.header) {
		e.Column = strings.TrimSpace(r.header[j])
	}
	return e
}

// missingDateErr is the *MissingValueError of field j, in a column of
// dates.
func (r *csvRoles) missingDateErr(name string, line, j int, f string) error {
	e := r.missingErr(name, line, j, f).(*MissingValueError)
	e.Dates = true
	return e
}

// finishTable completes ds, whose rows from prefix on come from t (the
// rows before were read as numbers, by the fast path, with roles): label
// names sorted, categorical columns (t's, or cols) expanded one-hot, in
// sorted order of their categories, within MemoryBudget(inputBytes)
// (reduceCategories), the header's names recorded, no labels when the
// rows have none.
func finishTable(ds *Dataset, prefix int, t *csvTable, cols []Column, roles *csvRoles, inputBytes int64) error {
	if t != nil {
		roles = t.roles
	}
	if t != nil && t.unlabelled {
		ds.Y = nil
	}
	if t != nil && t.labels != nil {
		ds.LabelNames = nameLabels(ds.Y, prefix, t.labels.list)
		if n := numberRows(ds.N, func(r int) string { return ds.LabelNames[int(ds.Y[r])] }); mostlyNumbers(n, ds.N) {
			a := t.labelText
			return fmt.Errorf("data: %s:%d: label %s in %s is not a number, while %d of the %d labels are", t.name, a.line, Quote(a.s), roles.name(a.col), n, ds.N)
		}
	}
	given := cols != nil
	var dv [][][DateWidth]float32 // per column of dates, the features of its codes
	if given && t != nil && t.dates != nil {
		dv = make([][][DateWidth]float32, len(cols))
		for k, dc := range t.dates {
			if dc == nil {
				continue
			}
			if cols[k].DateFill != nil {
				fillDates(dc.vals, cols[k].DateFill)
			}
			dv[k] = dc.vals
		}
	}
	if cols == nil && t != nil && (t.cats != nil || t.fill != nil) {
		cols = make([]Column, ds.D)
		for k, f := range t.fill {
			if !f {
				continue
			}
			var sum float64
			var n int
			for r := range ds.N {
				if v := ds.X[r*ds.D+k]; v == v {
					sum += float64(v)
					n++
				}
			}
			if n == 0 {
				return fmt.Errorf("data: %s: feature %s has no values to fill its missing ones with", t.name, roles.featureName(k))
			}
			mean := float64(float32(sum / float64(n)))
			for r := range ds.N {
				if p := &ds.X[r*ds.D+k]; *p != *p {
					*p = float32(mean)
				}
			}
			cols[k].Fill = &mean
		}
		var cats []catColumn
		for k, c := range t.cats {
			if c == nil {
				continue
			}
			var ln labelNames
			for r := range ds.N {
				p := &ds.X[r*ds.D+k]
				if r < prefix {
					*p = float32(ln.code(strconv.FormatFloat(float64(*p), 'g', -1, 32)))
				} else {
					*p = float32(ln.code(c.list[int(*p)]))
				}
			}
			if n := numberRows(ds.N, func(r int) string { return ln.list[int(ds.X[r*ds.D+k])] }); mostlyNumbers(n, ds.N) {
				a := t.catText[k]
				return fmt.Errorf("data: %s:%d: value %s in %s is not a number, while %d of the column's %d values are", t.name, a.line, Quote(a.s), roles.name(a.col), n, ds.N)
			}
			if format := detectDates(ln.list); format != "" {
				vals, note, err := dateColumn(ds, k, ln.list, format, &cols[k], t, roles)
				if err != nil {
					return err
				}
				if dv == nil {
					dv = make([][][DateWidth]float32, ds.D)
				}
				dv[k] = vals
				ds.Notices = append(ds.Notices, note)
				continue
			}
			if identifierLike(len(ln.list), ds.N) {
				cols[k] = Column{Dropped: true, Distinct: len(ln.list)}
				continue
			}
			cats = append(cats, catColumn{k: k, names: ln.list})
		}
		notes, err := reduceCategories(ds, cols, cats, roles, inputBytes)
		if err != nil {
			return fmt.Errorf("data: %s: %w", t.name, err)
		}
		ds.Notices = append(ds.Notices, notes...)
	}
	if cols == nil && roles != nil && roles.names != nil {
		cols = make([]Column, ds.D)
	}
	if cols != nil && !given && roles != nil && roles.names != nil {
		for k := range cols {
			cols[k].Name = roles.names[k]
		}
		if pandasIndex(ds, cols, roles) {
			cols[0] = Column{Dropped: true, RowIndex: true}
			ds.Notices = append(ds.Notices, "the first column, unnamed and holding 0…N−1, is a pandas index: left out")
		}
	}
	if cols != nil {
		switch {
		case !expands(cols):
		case sparseOneHot(ds.N, cols, inputBytes):
			ds.Sparse, ds.D = oneHotCSR(ds.X, ds.N, ds.D, cols, dv)
			ds.X = nil
		default:
			ds.X, ds.D = oneHot(ds.X, ds.N, ds.D, cols, dv)
		}
		ds.Columns = cols
	}
	if roles != nil {
		if ds.Y != nil {
			ds.LabelColumn = roles.labelName
		}
		ds.Notices = append(ds.Notices, roles.notices...)
	}
	return nil
}

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
	if len(cols) < 2 || roles.header == nil || len(roles.feature) == 0 || roles.feature[0] != 0 || strings.TrimSpace(roles.header[0]) != "" {
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

// featureName names feature column k in a message: its header name,
// quoted, or its number among the features.
func (r *csvRoles) featureName(k int) string {
	if r != nil && r.names != nil && k < len(r.names) {
		return Quote(r.names[k])
	}
	return fmt.Sprintf("column %d", k)
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

// isHeader decides whether the first record of a CSV file, fields, is a
// header, from the records that follow (next returns those buffered). A
// text field over a column of numbers votes for a header; a text field
// whose value recurs in its column (a class name, a category) votes for
// data. Without votes, a record of text only is a header, one with
// numbers is data.
func isHeader(fields []string, opt CSVOptions, next func() [][]string) bool {
	var text []int
	for j, f := range fields {
		if !isNumber(strings.TrimSpace(f)) {
			text = append(text, j)
		}
	}
	if len(text) == 0 {
		return false
	}
	recs := next()
	header, data := 0, 0
	for _, j := range text {
		head := strings.TrimSpace(fields[j])
		n, num, same := 0, 0, 0
		for _, rec := range recs {
			if len(rec) != len(fields) {
				continue
			}
			v := strings.TrimSpace(rec[j])
			n++
			if isNumber(v) {
				num++
			}
			if v == head {
				same++
			}
		}
		switch {
		case n == 0:
		case same > 0:
			data++
		case 10*num >= 9*n:
			header++
		}
	}
	if header != data {
		return header > data
	}
	return len(text) == len(fields)
}

// labelHeaders are the header names LabelAuto takes the label column
// from, in order of preference.
var labelHeaders = []string{"label", "class", "target", "outcome", "species", "diagnosis", "survived"}

// autoLabelCol returns the column LabelAuto takes the label from, given
// a header: the first field named as one of labelHeaders (in their
// order, in any case), else -1 (the last column).
func autoLabelCol(fields []string) int {
	for _, name := range labelHeaders {
		for j, f := range fields {
			if strings.EqualFold(strings.TrimSpace(f), name) {
				return j
			}
		}
	}
	return -1
}

// labelColByName returns the field named as the label column: the one
// opt.LabelColumn names (in any case), or else as LabelAuto looks for;
// -1 if none.
func labelColByName(opt CSVOptions, fields []string) int {
	if opt.LabelColumn == "" {
		return autoLabelCol(fields)
	}
	for j, f := range fields {
		if strings.EqualFold(strings.TrimSpace(f), strings.TrimSpace(opt.LabelColumn)) {
			return j
		}
	}
	return -1
}

// validLabelCol reports whether c is a CSVOptions.LabelCol.
func validLabelCol(c int) bool { return c >= LabelLast || c == LabelFirst }

// csvColumns decides the label and weight columns (0-based; -1: no
// weights) of a CSV file whose first record is fields, its header when
// header is true. Its errors are about that record, to be prefixed with
// the file and line.
func csvColumns(opt CSVOptions, fields []string, header bool) (labelCol, weightCol int, err error) {
	nf := len(fields)
	if nf < 2 {
		return 0, 0, fmt.Errorf("%d field; want a label and at least one feature", nf)
	}
	if weightCol, err = weightColumn(opt.WeightCol, fields, header); err != nil {
		return 0, 0, err
	}
	switch c := opt.LabelCol; {
	case c == LabelFirst:
		labelCol = 0
	case c == LabelLast:
		labelCol = nf - 1
	case c > 0:
		labelCol = c
	case opt.LabelColumn != "":
		if labelCol = labelColByName(opt, fields); !header || labelCol < 0 || labelCol == weightCol {
			if !header {
				return 0, 0, fmt.Errorf("the label column is named %s, but the file has no header row naming its columns; give its 0-based index", Quote(opt.LabelColumn))
			}
			return 0, 0, fmt.Errorf("no column named %s for the label (the header has %s)", Quote(opt.LabelColumn), listFields(fields))
		}
	default:
		labelCol = -1
		if header {
			if j := autoLabelCol(fields); j != weightCol {
				labelCol = j
			}
		}
		if labelCol < 0 {
			labelCol = nf - 1
			if labelCol == weightCol {
				labelCol--
			}
		}
	}
	switch {
	case weightCol >= 0 && nf < 3:
		return 0, 0, fmt.Errorf("%d fields; want a label, a weight and at least one feature", nf)
	case labelCol >= nf:
		return 0, 0, fmt.Errorf("label column %d, but the rows have %d fields (columns count from 0)", labelCol, nf)
	case labelCol == weightCol:
		return 0, 0, fmt.Errorf("column %d is both the label and the weight column", labelCol)
	}
	return labelCol, weightCol, nil
}

// weightColumn finds the column CSVOptions.WeightCol names (see there) in
// a file whose first record is fields: -1 for none.
func weightColumn(spec string, fields []string, header bool) (int, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == "-1" {
		return -1, nil
	}
	if k, err := strconv.Atoi(spec); err == nil {
		switch {
		case k < 0:
			return 0, fmt.Errorf("weight column %d; want a 0-based column, a header field's name, or -1 for none", k)
		case k >= len(fields):
			return 0, fmt.Errorf("weight column %d, but the rows have %d fields (columns count from 0)", k, len(fields))
		}
		return k, nil
	}
	if !header {
		return 0, fmt.Errorf("weight column %q names a header field, but the first row is not a header", spec)
	}
	for j, f := range fields {
		if strings.EqualFold(strings.TrimSpace(f), spec) {
			return j, nil
		}
	}
	names := fields
	if len(names) > 10 {
		names = names[:10]
	}
	more := ""
	if len(fields) > 10 {
		more = fmt.Sprintf(", … (%d more)", len(fields)-10)
	}
	return 0, fmt.Errorf("no header field named %q for the weights (the header has %q%s)", spec, names, more)
}

// parseWeight parses the field of a weight column: a finite number ≥ 0.
func parseWeight(f string) (float64, error) {
	v, err := numparse.String64(f)
	switch {
	case errors.Is(err, numparse.ErrNotFinite), errors.Is(err, numparse.ErrRange):
		return 0, fmt.Errorf("weight %s is not a finite number ≥ 0", Quote(f))
	case err != nil && f == "":
		return 0, fmt.Errorf("empty weight")
	case err != nil && isMissing(f):
		return 0, fmt.Errorf("missing weight %s", Quote(f))
	case err != nil:
		return 0, fmt.Errorf("weight %s is not a number", Quote(f))
	case v < 0:
		return 0, fmt.Errorf("weight %s is not a finite number ≥ 0", Quote(f))
	}
	return v, nil
}

// fieldStrings returns fields as strings.
func fieldStrings(fields [][]byte) []string {
	strs := make([]string, len(fields))
	for j, f := range fields {
		strs[j] = string(f)
	}
	return strs
}

// isPreamble reports whether a first line, fields, is a preamble: it has
// text, and the records after it (recs) all have one other number of
// fields.
func isPreamble(fields []string, recs [][]string) bool {
	if len(recs) == 0 || len(recs[0]) == len(fields) || len(recs[0]) < 2 {
		return false
	}
	text := false
	for _, f := range fields {
		text = text || !isNumber(strings.TrimSpace(f))
	}
	if !text {
		return false
	}
	for _, r := range recs {
		if len(r) != len(recs[0]) {
			return false
		}
	}
	return true
}

// allText reports whether no field is a number.
func allText(fields []string) bool {
	for _, f := range fields {
		if isNumber(strings.TrimSpace(f)) {
			return false
		}
	}
	return true
}

// headerWindow is how much text after the first line isHeader looks at.
const headerWindow = 64 << 10

// peekRecords returns the records of the CSV text buffered in br after
// the first (which has been read), without consuming them (see
// windowRecords). br's buffer holds at least headerWindow bytes.
func peekRecords(br *bufio.Reader, opt CSVOptions) [][]string {
	head, _ := br.Peek(headerWindow)
	return windowRecords(head, opt)
}

// windowRecords parses the records in the first headerWindow bytes of
// after, the text after a CSV file's first line, up to 1000 of them; a
// line cut by the window's end is left out.
func windowRecords(after []byte, opt CSVOptions) [][]string {
	if len(after) >= headerWindow {
		after = after[:headerWindow]
		if i := bytes.LastIndexByte(after, '\n'); i >= 0 {
			after = after[:i+1]
		}
	}
	cr := csv.NewReader(bytes.NewReader(after))
	if opt.Comma != 0 {
		cr.Comma = opt.Comma
	}
	cr.TrimLeadingSpace = true
	cr.FieldsPerRecord = -1
	var recs [][]string
	for len(recs) < 1000 {
		rec, err := cr.Read()
		if err != nil {
			break
		}
		recs = append(recs, rec)
	}
	return recs
}

// layoutAfter decides HeaderAuto as the sequential reader does, from the
// first line's fields and the text after the line: whether the line is a
// header, and whether the fast readers can take the lines after it
// (plain: the second line is neither of another number of fields, after a
// preamble, nor of text only, a second header line; the sequential reader
// sorts those out).
func layoutAfter(fields [][]byte, after []byte, opt CSVOptions) (header, plain bool) {
	recs := windowRecords(after, opt)
	header = isHeader(fieldStrings(fields), opt, func() [][]string { return recs })
	plain = len(recs) == 0 || len(recs[0]) == len(fields) && !allText(recs[0])
	return header, plain
}

// isMissing reports whether a field is one of the usual marks of a missing
// value.
func isMissing(f string) bool {
	switch strings.ToLower(f) {
	case "na", "n/a", "nan", "null", "none", "?", "-":
		return true
	}
	return false
}

// WriteCSV writes d as comma-separated text with the label (its name, if
// d has LabelNames; none if Y is nil) in the first column, then the
// sample weight if d has weights (W), then the features, preceded by a
// header row "label,x1,…,xD" ("label,weight,x1,…,xD") when header is
// true: the features are named by Columns when it names each of them
// (columns of numbers), else x1 … xD. Named
// labels need the header to read back for certain: without it, a first
// row whose name is the only one among numeric labels reads as a header.
// Numbers are written in their shortest exact form (float64 labels and
// weights, float32 features), so ReadCSV gives back the same data: with
// the zero CSVOptions when there is a header (LabelAuto finds its "label"),
// with LabelCol LabelFirst when there is none, and with WeightCol "weight"
// (or "1") for the weights. Sparse rows are written one at a time, zeros
// included, without making the data set dense.
func WriteCSV(w io.Writer, d *Dataset, header bool) error {
	checkLens(d)
	if d.W != nil && len(d.W) != d.N {
		panic(fmt.Sprintf("data: inconsistent data set: N=%d, len(W)=%d", d.N, len(d.W)))
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	if header {
		if d.Y != nil {
			buf = append(buf, "label,"...)
		}
		if d.W != nil {
			buf = append(buf, "weight,"...)
		}
		names := featureNames(d)
		for j := 1; j <= d.D; j++ {
			if names != nil {
				buf = appendCSVField(buf, names[j-1])
			} else {
				buf = append(buf, 'x')
				buf = strconv.AppendInt(buf, int64(j), 10)
			}
			buf = append(buf, ',')
		}
		buf = endLine(buf)
	}
	var row []float32 // a sparse row, scattered
	if d.Sparse != nil {
		row = make([]float32, d.D)
	}
	for i := 0; i < d.N; i++ {
		switch {
		case d.Y == nil:
		case d.LabelNames != nil:
			buf = appendCSVField(buf, d.LabelNames[int(d.Y[i])])
			buf = append(buf, ',')
		default:
			buf = strconv.AppendFloat(buf, d.Y[i], 'g', -1, 64)
			buf = append(buf, ',')
		}
		if d.W != nil {
			buf = strconv.AppendFloat(buf, d.W[i], 'g', -1, 64)
			buf = append(buf, ',')
		}
		x := row
		v := d.Vec(i)
		if v.Sparse() {
			v.Scatter(row)
		} else {
			x = v.Val
		}
		for _, v := range x {
			buf = strconv.AppendFloat(buf, float64(v), 'g', -1, 32)
			buf = append(buf, ',')
		}
		if v.Sparse() {
			v.Clear(row)
		}
		buf = endLine(buf)
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("data: writing CSV: %w", err)
		}
		buf = buf[:0]
	}
	if _, err := bw.Write(buf); err != nil {
		return fmt.Errorf("data: writing CSV: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("data: writing CSV: %w", err)
	}
	return nil
}

// endLine ends a line of fields each followed by a comma.
func endLine(buf []byte) []byte {
	if n := len(buf); n > 0 && buf[n-1] == ',' {
		buf[n-1] = '\n'
		return buf
	}
	return append(buf, '\n')
}

// featureNames returns the names of the D features of d as its Columns
// give them (columns of numbers with distinct names, none a number, a
// mark of a missing value or a label column's name that LabelAuto would
// take: a header that reads back as one), or nil.
func featureNames(d *Dataset) []string {
	if len(d.Columns) != d.D || expands(d.Columns) {
		return nil
	}
	names := make([]string, d.D)
	seen := map[string]bool{}
	for k, c := range d.Columns {
		n := strings.TrimSpace(c.Name)
		if n == "" || isNumber(n) || isMissing(n) || seen[strings.ToLower(n)] || autoLabelCol([]string{n}) >= 0 || strings.EqualFold(n, "weight") {
			return nil
		}
		seen[strings.ToLower(n)] = true
		names[k] = c.Name
	}
	return names
}

// appendCSVField appends f to buf, quoted as encoding/csv would quote it.
func appendCSVField(buf []byte, f string) []byte {
	if f == "" || !strings.ContainsAny(f, ",\"\r\n") && f[0] != ' ' && f[0] != '\t' {
		return append(buf, f...)
	}
	buf = append(buf, '"')
	buf = append(buf, strings.ReplaceAll(f, `"`, `""`)...)
	return append(buf, '"')
}
