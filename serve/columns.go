package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/nsvm-go/nsvm/data"
)

// rawRows parses rows of raw column values for a model trained on data
// with categorical columns, encoded as the training data were
// (data.EncodeRow): it returns the rows of the model's input size and
// their number. raw is a JSON array of rows (arrays of one value per
// column), or of one row's values, or (n > 0: a V2 BYTES tensor of shape
// [n, per]) a flat array of n·per values. A row holds a value for every
// column of the model's data, or for every column it uses (the columns it
// left out, identifiers, omitted): per, or the first row's length, tells
// which. A value is a string, a number, or (V1) null (missing). alloc is
// called with the bytes of the encoded rows before they are allocated;
// its error is returned as it is.
func rawRows(raw []byte, cols []data.Column, n, per int, v2 bool, alloc func(int64) error) ([]float32, int, error) {
	used := usedColumns(cols)
	// First pass: count the elements and check they are all rows or all
	// values; the first row's length, when rows are nested.
	count, nested := 0, false
	err := scanArray(raw, func(v []byte) error {
		isRow := v[0] == '['
		if count == 0 {
			nested = isRow
			if nested && per == 0 {
				scanArray(v, func([]byte) error { per++; return nil })
			}
		} else if isRow != nested {
			if nested {
				return fmt.Errorf("instance %d is %s; want an array of %s", count, describe(v), columnsWanted(cols, used))
			}
			return fmt.Errorf("value %d is an array among values", count)
		}
		count++
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("want an array of rows of %s: %w", columnsWanted(cols, used), err)
	}
	if !nested && n == 0 {
		per = count // one instance given flat
	}
	if per != len(cols) && per != len(used) {
		return nil, 0, fmt.Errorf("instance 0 has %d values; want %s", per, columnsWanted(cols, used))
	}
	rows := count
	switch {
	case count == 0:
		return nil, 0, fmt.Errorf("no instances")
	case n > 0 && nested && count != n:
		return nil, 0, fmt.Errorf("%d rows for shape [%d, %d]", count, n, per)
	case n > 0 && !nested && count != n*per:
		return nil, 0, fmt.Errorf("%d values for shape [%d, %d]", count, n, per)
	case n > 0:
		rows = n
	case !nested:
		rows = 1
	}
	pos := used // the column of each value of a row
	if per == len(cols) {
		pos = nil
	}
	w := data.Width(cols)
	if err := alloc(int64(rows) * int64(w) * 4); err != nil {
		return nil, 0, err
	}
	out := make([]float32, rows*w)
	fields := make([]string, len(cols))
	row, k := 0, 0 // the row and the value of the row next
	value := func(v []byte) error {
		if k >= per {
			return nil // counted, reported by the row's check
		}
		f, err := rawField(v, v2)
		if err != nil {
			if v2 {
				return fmt.Errorf("data[%d]: %w", row*per+k, err)
			}
			return fmt.Errorf("instance %d, column %d: %w", row, k, err)
		}
		if pos != nil {
			fields[pos[k]] = f
		} else {
			fields[k] = f
		}
		return nil
	}
	encode := func() error {
		if k != per {
			return fmt.Errorf("instance %d has %d values; want %d, as instance 0", row, k, per)
		}
		if err := data.EncodeRow(cols, fields, out[row*w:(row+1)*w]); err != nil {
			return fmt.Errorf("instance %d: %w", row, err)
		}
		row, k = row+1, 0
		return nil
	}
	if nested {
		err = scanArray(raw, func(r []byte) error {
			err := scanArray(r, func(v []byte) error {
				err := value(v)
				k++
				return err
			})
			if err != nil {
				return err
			}
			return encode()
		})
	} else {
		err = scanArray(raw, func(v []byte) error {
			err := value(v)
			k++
			if err == nil && k == per {
				err = encode()
			}
			return err
		})
	}
	if err != nil {
		return nil, 0, err
	}
	return out, rows, nil
}

// usedColumns lists the columns of cols the model uses (not Dropped).
func usedColumns(cols []data.Column) []int {
	var used []int
	for k, c := range cols {
		if !c.Dropped {
			used = append(used, k)
		}
	}
	return used
}

// columnsWanted words what a raw row holds: a value for each of the
// columns, or of the columns used.
func columnsWanted(cols []data.Column, used []int) string {
	if len(used) == len(cols) {
		return fmt.Sprintf("%d column values", len(cols))
	}
	return fmt.Sprintf("%d column values (or %d, without the %d columns the model leaves out)", len(cols), len(used), len(cols)-len(used))
}

// maxRawValue bounds the JSON text of one raw column value.
const maxRawValue = 64 << 10

// rawField returns a raw column value as the text of a CSV field: a
// string's text, a number as it was written, null as "" (missing; not in
// a V2 tensor, whose missing value is "").
func rawField(v []byte, v2 bool) (string, error) {
	if len(v) > maxRawValue {
		return "", fmt.Errorf("a value of %d bytes; at most %d", len(v), maxRawValue)
	}
	switch c := v[0]; {
	case c == '"':
		if bytes.IndexByte(v, '\\') < 0 {
			return string(v[1 : len(v)-1]), nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", err
		}
		return s, nil
	case c == '-' || c >= '0' && c <= '9':
		// A number, as its text (BYTES tensors take them too: a column
		// of numbers, or of categories that are numbers).
		return string(v), nil
	case c == 'n' && !v2:
		return "", nil
	}
	return "", fmt.Errorf("want a number or a string, got %s", describe(v))
}

// namedInstances reports whether the V1 instances raw are objects keyed by
// the names of the model's columns cols rather than sparse rows: the model
// has named columns and the first instance is an object without an
// "indices" key (or the model has a column of that name).
func namedInstances(raw []byte, cols []data.Column) bool {
	if !sparseInstances(raw) || !slices.ContainsFunc(cols, func(c data.Column) bool { return c.Name != "" }) {
		return false
	}
	if slices.ContainsFunc(cols, func(c data.Column) bool { return c.Name == "indices" }) {
		return true
	}
	named := true
	stop := errors.New("stop")
	scanArray(raw, func(v []byte) error {
		scanObject(v, func(key string, _ []byte) error {
			if key == "indices" {
				named = false
			}
			return nil
		})
		return stop
	})
	return named
}

// columnIndex maps each of cols' names to its position.
func columnIndex(cols []data.Column) map[string]int {
	index := make(map[string]int, len(cols))
	for k, c := range cols {
		index[c.Name] = k
	}
	return index
}

// namedRows parses V1 instances given as objects keyed by column name,
//
//	[{"age": 31, "colour": "red", "income": null}, …]
//
// for a model trained on a CSV file with a header, encoded as the training
// data were (data.EncodeRow). Every column the model uses must be named
// once (null marks a missing value); a key that is not a column is an
// error, not ignored. index is cols by name (columnIndex). alloc is called
// with the bytes of the encoded rows before they are allocated; its error
// is returned as it is.
func namedRows(raw []byte, cols []data.Column, index map[string]int, alloc func(int64) error) ([]float32, int, error) {
	rows := 0
	err := scanArray(raw, func(v []byte) error {
		if v[0] != '{' {
			return fmt.Errorf("instance %d is %s; want an object of column values", rows, describe(v))
		}
		rows++
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if rows == 0 {
		return nil, 0, errors.New("no instances")
	}
	w := data.Width(cols)
	if err := alloc(int64(rows) * int64(w) * 4); err != nil {
		return nil, 0, err
	}
	out := make([]float32, rows*w)
	fields := make([]string, len(cols))
	seen := make([]bool, len(cols))
	row := 0
	err = scanArray(raw, func(v []byte) error {
		clear(seen)
		clear(fields)
		err := scanObject(v, func(key string, val []byte) error {
			k, ok := index[key]
			switch {
			case !ok || key == "":
				return fmt.Errorf("no column is named %s", quote(key))
			}
			seen[k] = true
			f, err := rawField(val, false)
			if err != nil {
				return fmt.Errorf("column %s: %w", quote(key), err)
			}
			fields[k] = f
			return nil
		})
		if err != nil {
			return fmt.Errorf("instance %d: %w", row, err)
		}
		for k, c := range cols {
			if !seen[k] && !c.Dropped {
				return fmt.Errorf("instance %d has no value for column %s (null marks a missing one)", row, quote(c.Name))
			}
		}
		if err := data.EncodeRow(cols, fields, out[row*w:(row+1)*w]); err != nil {
			return fmt.Errorf("instance %d: %w", row, err)
		}
		row++
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, rows, nil
}

// appendColumns appends the description of the model's raw columns as a
// JSON array, in their order: {"name", "type"} with type "number",
// "category" (with its "categories") or "left out" (a column the model
// does not use: rows may omit it), and "fill" where a missing number is
// filled.
func appendColumns(b []byte, cols []data.Column) []byte {
	b = append(b, '[')
	for k, c := range cols {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, c.Name)
		switch {
		case c.Dropped && c.RowIndex:
			b = append(b, `,"type":"left out","row_index":true`...)
		case c.Dropped:
			b = append(b, `,"type":"left out"`...)
		case c.Dates != "":
			b = append(b, `,"type":"dates","format":`...)
			b = appendString(b, c.Dates)
			if c.DateFill != nil {
				b = append(b, `,"fill":[`...)
				for i, v := range c.DateFill {
					if i > 0 {
						b = append(b, ',')
					}
					b = appendFloat(b, v)
				}
				b = append(b, ']')
			}
		case c.Categories != nil:
			b = append(b, `,"type":"category","categories":[`...)
			for i, v := range c.Categories {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendString(b, v)
			}
			b = append(b, ']')
		default:
			b = append(b, `,"type":"number"`...)
			if c.Fill != nil {
				b = append(b, `,"fill":`...)
				b = appendFloat(b, *c.Fill)
			}
		}
		b = append(b, '}')
	}
	return append(b, ']')
}
