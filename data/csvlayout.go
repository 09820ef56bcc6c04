package data

// The layout of a CSV file: whether its first record is a header, which
// column is the label and which the weight, read from its first records.

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/internal/numparse"
)

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
	return 0, fmt.Errorf("no header field named %s for the weights (the header has %s)", Quote(spec), listFields(fields))
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

// shortHeader reports whether a first line, fields, that isPreamble would
// take for a preamble holds names only (two or more) and is followed by
// records of one field more, the first of which holds a number: a header
// that lacks a field of the rows, not a preamble.
func shortHeader(fields []string, recs [][]string) bool {
	return isPreamble(fields, recs) && len(fields) >= 2 && allText(fields) && len(recs[0]) == len(fields)+1 && !allText(recs[0])
}

// shortHeaderErr is the error of a header of nf fields on line, followed
// by rows of one field more (shortHeader).
func shortHeaderErr(name string, line, nf int) error {
	return fmt.Errorf("data: %s:%d: %d fields, but the header (line %d) has %d: a value that holds the separator without quotes (as in Jan 8, 2024: quote it), a column the header does not name (name it), or row names (R's write.csv writes them: give it row.names = FALSE)",
		name, line+1, nf+1, line, nf)
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
