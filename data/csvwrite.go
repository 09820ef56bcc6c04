package data

// WriteCSV: a data set as CSV text that ReadCSV reads back.

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

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
