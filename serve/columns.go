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
// [n, columns]) a flat array of n·columns values. A value is a string, or
// (V1, when stringsOnly is false) a number or null (missing). alloc is
// called with the bytes of the encoded rows before they are allocated; its
// error is returned as it is.
func rawRows(raw []byte, cols []data.Column, n int, stringsOnly bool, alloc func(int64) error) ([]float32, int, error) {
	// First pass: count the elements and check they are all rows or all
	// values.
	count, nested := 0, false
	err := scanArray(raw, func(v []byte) error {
		isRow := v[0] == '['
		if count == 0 {
			nested = isRow
		} else if isRow != nested {
			if nested {
				return fmt.Errorf("instance %d is %s; want an array of %d column values", count, describe(v), len(cols))
			}
			return fmt.Errorf("value %d is an array among values", count)
		}
		count++
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("want an array of rows of %d column values: %w", len(cols), err)
	}
	rows := count
	switch {
	case count == 0:
		return nil, 0, fmt.Errorf("no instances")
	case n > 0 && nested && count != n:
		return nil, 0, fmt.Errorf("%d rows for shape [%d, %d]", count, n, len(cols))
	case n > 0 && !nested && count != n*len(cols):
		return nil, 0, fmt.Errorf("%d values for shape [%d, %d]", count, n, len(cols))
	case n > 0:
		rows = n
	case !nested && count != len(cols):
		return nil, 0, fmt.Errorf("instance 0 has %d values; the model's data had %d columns", count, len(cols))
	case !nested:
		rows = 1 // one instance given flat
	}
	w := data.Width(cols)
	if err := alloc(int64(rows) * int64(w) * 4); err != nil {
		return nil, 0, err
	}
	out := make([]float32, rows*w)
	fields := make([]string, len(cols))
	row, k := 0, 0 // the row and the column of the next value
	value := func(v []byte) error {
		if k >= len(cols) {
			return nil // counted, reported by the row's check
		}
		f, err := rawField(v, stringsOnly)
		if err != nil {
			if stringsOnly {
				return fmt.Errorf("data[%d]: %w", row*len(cols)+k, err)
			}
			return fmt.Errorf("instance %d, column %d: %w", row, k, err)
		}
		fields[k] = f
		return nil
	}
	encode := func() error {
		if k != len(cols) {
			return fmt.Errorf("instance %d has %d values; the model's data had %d columns", row, k, len(cols))
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
			if err == nil && k == len(cols) {
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

// maxRawValue bounds the JSON text of one raw column value.
const maxRawValue = 64 << 10

// rawField returns a raw column value as the text of a CSV field: a
// string's text, a number as it was written, null as "" (missing).
func rawField(v []byte, stringsOnly bool) (string, error) {
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
	case stringsOnly:
		return "", fmt.Errorf("%s is not a string (BYTES)", describe(v))
	case c == '-' || c >= '0' && c <= '9':
		return string(v), nil
	case c == 'n':
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
