package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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

// CSVOptions configure ReadCSV. The zero value reads comma-separated data
// with the label in the first column (as WriteCSV writes it) and detects a
// header row.
type CSVOptions struct {
	LabelCol int        // 0-based label column; -1 = last; LabelAuto
	Header   HeaderMode // HeaderAuto, HeaderYes or HeaderNo
	Comma    rune       // field separator; 0 = ','
}

// LabelAuto as CSVOptions.LabelCol takes the label from the header field
// named "label" (in any case; WriteCSV's header names it so), and from the
// last column when there is no header or no such field (as in the DELVE
// files, whose last column is "Class").
const LabelAuto = -2

// errNoRows is the error of a file without data rows.
var errNoRows = errors.New("no data rows")

func checkCSVOptions(name string, opt CSVOptions) error {
	if opt.LabelCol < LabelAuto {
		return fmt.Errorf("data: %s: label column %d; want a 0-based column, -1 for the last or LabelAuto", name, opt.LabelCol)
	}
	if opt.Header < HeaderAuto || opt.Header > HeaderNo {
		return fmt.Errorf("data: %s: unknown header mode %d", name, int(opt.Header))
	}
	return nil
}

// csvState is where readCSVSeq starts: after line0 lines of the file and,
// when nf > 0, after the first record, which had nf fields and chose the
// label column labelCol.
type csvState struct {
	line0    int
	nf       int
	labelCol int
}

// readCSVSeq is the sequential reader (encoding/csv), the reference for
// the parallel one: it returns the features, the labels and the number of
// fields per record.
//
// Labels that are not all numbers are names: then y holds codes into
// names, in order of first appearance (the labels before the first name
// are named by their shortest number form), and nameLabels sorts them.
func readCSVSeq(r io.Reader, name string, opt CSVOptions, st csvState) (x []float32, y []float64, nf int, names []string, err error) {
	x, y, nf, ln, err := readCSVRecords(r, name, opt, st)
	if ln != nil {
		names = ln.list
	}
	return x, y, nf, names, err
}

func readCSVRecords(r io.Reader, name string, opt CSVOptions, st csvState) (x []float32, y []float64, nf int, ln *labelNames, err error) {
	if err := checkCSVOptions(name, opt); err != nil {
		return nil, nil, 0, nil, err
	}
	br := bufio.NewReaderSize(r, 64<<10)
	cr := csv.NewReader(br)
	if opt.Comma != 0 {
		cr.Comma = opt.Comma
	}
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	nf = -1 // fields per record
	labelCol := 0
	if st.nf > 0 {
		nf, labelCol = st.nf, st.labelCol
		cr.FieldsPerRecord = nf
	}
	for rec := 0; ; rec++ {
		fields, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				if errors.Is(pe.Err, csv.ErrFieldCount) {
					return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: %d fields, but the first row has %d", name, st.line0+pe.Line, len(fields), nf)
				}
				return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: %v", name, st.line0+pe.Line, pe.Err)
			}
			return nil, nil, 0, nil, fmt.Errorf("data: %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		line += st.line0
		if rec == 0 && st.nf == 0 {
			nf = len(fields)
			if nf < 2 {
				return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: %d field; want a label and at least one feature", name, line, nf)
			}
			header := opt.Header == HeaderYes
			if opt.Header == HeaderAuto {
				header = isHeader(fields, opt, func() [][]string { return peekRecords(br, opt) })
			}
			labelCol = opt.LabelCol
			if labelCol == LabelAuto {
				labelCol = -1
				for j, f := range fields {
					if header && strings.EqualFold(strings.TrimSpace(f), "label") {
						labelCol = j
						break
					}
				}
			}
			if labelCol == -1 {
				labelCol = nf - 1
			}
			if labelCol >= nf {
				return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: label column %d, but the rows have %d fields (columns count from 0)", name, line, labelCol, nf)
			}
			if header {
				continue
			}
		}
		for j, f := range fields {
			f = strings.TrimSpace(f)
			if j == labelCol {
				v, err := strconv.ParseFloat(f, 64)
				switch {
				case err != nil && f == "":
					return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: empty label in column %d", name, line, j)
				case err != nil && isMissing(f):
					return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: missing label %q in column %d", name, line, f, j)
				case err != nil:
					// A name: the labels are class names from here on.
					if ln == nil {
						ln = &labelNames{}
						for i, v := range y {
							y[i] = ln.code(numberName(v))
						}
					}
					y = append(y, ln.code(f))
					continue
				case math.IsNaN(v) || math.IsInf(v, 0):
					return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: label %q in column %d is not finite", name, line, f, j)
				}
				if ln != nil {
					v = ln.code(numberName(v))
				}
				y = append(y, v)
				continue
			}
			v, err := strconv.ParseFloat(f, 32)
			switch {
			case err != nil && f == "":
				return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: empty value in column %d", name, line, j)
			case err != nil && isMissing(f):
				return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: missing value %q in column %d (every feature needs a number: fill or drop the rows with missing values)", name, line, f, j)
			case errors.Is(err, strconv.ErrRange):
				return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: value %q in column %d is out of float32 range", name, line, f, j)
			case err != nil:
				return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: value %q in column %d is not a number", name, line, f, j)
			case math.IsNaN(v) || math.IsInf(v, 0):
				return nil, nil, 0, nil, fmt.Errorf("data: %s:%d: value %q in column %d is not finite", name, line, f, j)
			}
			x = append(x, float32(v))
		}
	}
	if len(y) == 0 {
		return nil, nil, 0, nil, fmt.Errorf("data: %s: %w", name, errNoRows)
	}
	return x, y, nf, ln, nil
}

// isHeader decides whether the first record of a CSV file, fields, is a
// header: it is when one of its fields is not a number, unless that field
// is the only one and sits in the label column while the labels of the
// records that follow (next returns those buffered) are not all numbers,
// or no record follows: then the labels are class names.
func isHeader(fields []string, opt CSVOptions, next func() [][]string) bool {
	labelCol := opt.LabelCol // the label column if there is no header
	if labelCol < 0 {
		labelCol = len(fields) - 1
	}
	var text []int
	for j, f := range fields {
		if _, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err != nil {
			text = append(text, j)
		}
	}
	if len(text) != 1 || text[0] != labelCol {
		return len(text) > 0
	}
	recs := next()
	if len(recs) == 0 {
		return false // one row: data, with a class name
	}
	for _, rec := range recs {
		if len(rec) != len(fields) {
			return true
		}
		if _, err := strconv.ParseFloat(strings.TrimSpace(rec[labelCol]), 64); err != nil {
			return false
		}
	}
	return true
}

// peekRecords returns the records of the CSV text buffered in br after
// the first (which has been read), without consuming them: all the
// complete ones, up to 1000.
func peekRecords(br *bufio.Reader, opt CSVOptions) [][]string {
	head, err := br.Peek(br.Size())
	if err == nil { // a full buffer: drop the last line, maybe cut
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i+1]
		}
	}
	cr := csv.NewReader(bytes.NewReader(head))
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
// d has LabelNames) in the first column, preceded by a header row
// "label,x1,…,xD" when header is true. Named labels need the header to
// read back for certain: without it, a first row whose name is the only
// one among numeric labels reads as a header.
// Numbers are written in their shortest exact form (float64 labels, float32
// features), so ReadCSV with the zero CSVOptions gives back the same data.
func WriteCSV(w io.Writer, d *Dataset, header bool) error {
	checkLens(d)
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	if header {
		buf = append(buf, "label"...)
		for j := 1; j <= d.D; j++ {
			buf = append(buf, ",x"...)
			buf = strconv.AppendInt(buf, int64(j), 10)
		}
		buf = append(buf, '\n')
	}
	for i := 0; i < d.N; i++ {
		if d.LabelNames != nil {
			buf = appendCSVField(buf, d.LabelNames[int(d.Y[i])])
		} else {
			buf = strconv.AppendFloat(buf, d.Y[i], 'g', -1, 64)
		}
		for _, v := range d.Row(i) {
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, float64(v), 'g', -1, 32)
		}
		buf = append(buf, '\n')
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

// appendCSVField appends f to buf, quoted as encoding/csv would quote it.
func appendCSVField(buf []byte, f string) []byte {
	if f == "" || !strings.ContainsAny(f, ",\"\r\n") && f[0] != ' ' && f[0] != '\t' {
		return append(buf, f...)
	}
	buf = append(buf, '"')
	buf = append(buf, strings.ReplaceAll(f, `"`, `""`)...)
	return append(buf, '"')
}
