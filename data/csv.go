package data

import (
	"bufio"
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
	// Empty marks a dropped column that was empty in every row, as a
	// separator at the end of every line leaves one.
	Empty bool `json:"empty,omitempty"`
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
// roles it holds, and prior rows of numbers, labelled when the roles have
// a label column (so that an empty label after them is an error, as if it
// were read with them).
type csvState struct {
	line0 int
	roles *csvRoles
	prior int
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
		// An unnamed column that was empty in every row: one too.
		empty := slices.ContainsFunc(cols, func(c Column) bool { return c.Empty && c.Name == "" })
		var extra []string
		for j := range fields {
			if free(j) && j != r.labelCol && !slices.Contains(r.keep, j) && !(index && j == 0) && !(empty && strings.TrimSpace(fields[j]) == "") {
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
		// The columns a file may lack: a pandas index and empty columns,
		// left out in training.
		var present []int
		for k, c := range cols {
			if !(c.RowIndex && k == 0) && !c.Empty {
				present = append(present, k)
			}
		}
		lacks := false
		switch {
		case f == len(cols) && opt.LabelCol == LabelAuto:
		case f == len(cols)+1:
			if r.labelCol, r.weightCol, err = csvColumns(opt, fields, header); err != nil {
				return nil, err
			}
		case len(present) < len(cols) && f == len(present) && opt.LabelCol == LabelAuto:
			lacks = true
		case len(present) < len(cols) && f == len(present)+1:
			if r.labelCol, r.weightCol, err = csvColumns(opt, fields, header); err != nil {
				return nil, err
			}
			lacks = true
		default:
			return nil, fmt.Errorf("%d fields, but the model's data had %d feature columns (and a label)", nf, len(cols))
		}
		r.inOrder()
		if lacks {
			for j, k := range r.feature {
				if k >= 0 {
					r.feature[j] = present[k]
				}
			}
		}
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

// listBytes is how much of a message listFields fills before it stops.
const listBytes = 200

// listFields quotes at most 10 fields for a message, fewer once it holds
// listBytes.
func listFields(fields []string) string {
	var b strings.Builder
	for i, f := range fields {
		if i == 10 || b.Len() > listBytes {
			fmt.Fprintf(&b, ", … (%d more)", len(fields)-i)
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
	empty  []bool        // per feature column, whether it is empty in every row (left out); nil: none
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
	// preamble, if not "", is the notice of a first line left out as a
	// preamble.
	preamble string
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
		schema: columnCodes(opt.Columns), top: st.roles == nil, prior: st.prior}
	if st.roles != nil && st.roles.labelCol >= 0 {
		q.labelled = st.prior
	}
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
	prior      int // rows read before it (csvState.prior)
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
	case q.hdrs == 0 && !q.preamble && auto && !namesColumns(fields, opt.Columns) && shortHeader(fields, recs):
		return false, shortHeaderErr(q.t.name, line, len(fields))
	case q.hdrs == 0 && !q.preamble && auto && !namesColumns(fields, opt.Columns) && isPreamble(fields, recs):
		q.preamble = true
		sep := ","
		if opt.Comma != 0 {
			sep = string(opt.Comma)
		}
		q.t.preamble = fmt.Sprintf("line %d, %s, has %d fields and the rows after it %d: it is left out, as the first line of scikit-learn's bundled files is (a header names the rows' fields, no more and no fewer)",
			line, Quote(strings.Join(fields, sep)), len(fields), len(recs[0]))
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
	if len(missing) > 0 && q.prior == 0 {
		// A feature column empty in every row holds nothing: left out.
		n := make([]int, roles.d)
		for _, m := range missing {
			if m.s == "" {
				n[m.fi]++
			}
		}
		empty := make([]bool, roles.d)
		for k := range empty {
			empty[k] = n[k] == q.rows
		}
		if t.empty = emptyColumns(empty); t.empty != nil {
			missing = slices.DeleteFunc(missing, func(m missingVal) bool { return t.empty[m.fi] })
		}
	}
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
		if a, b, ok := caseTwins(ds.LabelNames); ok {
			ds.Notices = append(ds.Notices, fmt.Sprintf("labels %s and %s differ only in case: they are two classes (write them alike if they name one)", Quote(a), Quote(b)))
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
	if cols == nil && t != nil && (t.cats != nil || t.fill != nil || t.empty != nil) {
		cols = make([]Column, ds.D)
		for k, e := range t.empty {
			if e {
				cols[k] = Column{Dropped: true, Empty: true}
				ds.Notices = append(ds.Notices, emptyNotice(roles, k))
			}
		}
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
			value := func(r int) string { return ln.list[int(ds.X[r*ds.D+k])] } // row r's text
			if n := numberRows(ds.N, value); mostlyNumbers(n, ds.N) {
				a := t.catText[k]
				return fmt.Errorf("data: %s:%d: value %s in %s is not a number, while %d of the column's %d values are", t.name, a.line, Quote(a.s), roles.name(a.col), n, ds.N)
			}
			if n := numberRows(ds.N, func(r int) string { return commaNumber(value(r)) }); mostlyNumbers(n, ds.N) {
				a := t.catText[k]
				return fmt.Errorf("data: %s:%d: value %s in %s is a number written with a comma (a decimal comma, or thousands separated), as are most of the column's: the readers take numbers with a decimal point and no separators; convert the column (pandas: read_csv(…, decimal=\",\") or thousands=\",\")",
					t.name, a.line, Quote(a.s), roles.name(a.col))
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
			if format, r := mostlyDates(ln.list, ds.N, value); r >= 0 {
				return fmt.Errorf("data: %s: value %s in %s (row %d) is not a date of the format of the column's other values (%s); write every date of a column in one format",
					t.name, Quote(value(r)), roles.unnamedOr(k), r+1, format)
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
		if Width(cols) > 1 && pandasIndex(ds, cols, roles) { // another feature stays
			cols[0] = Column{Dropped: true, RowIndex: true}
			ds.Notices = append(ds.Notices, indexNotice)
		}
		for k, c := range cols {
			if !c.Dropped && c.Categories == nil && c.Dates == "" && c.Fill == nil && idName(c.Name) && distinctIntegers(ds, k) {
				ds.Notices = append(ds.Notices, fmt.Sprintf("column %s is named as an identifier and holds %d different integers: it is a feature, whose order can tell the labels of rows sorted by them; leave it out of the file if it identifies the rows", Quote(c.Name), ds.N))
			}
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
	if t != nil && t.preamble != "" {
		ds.Notices = append(ds.Notices, t.preamble)
	}
	if roles != nil {
		if ds.Y != nil {
			ds.LabelColumn = roles.labelName
		}
		ds.Notices = append(ds.Notices, roles.notices...)
	}
	return nil
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
