package serve

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/nsvm-go/nsvm/data"
)

// rawRows parses rows of raw column values (numbers or strings) for a
// model trained on data with categorical columns, encoded as the training
// data were (data.EncodeRow): n rows of the model's input size. raw is a
// JSON array of rows, or of one row's values, or (cols > 0: V2) a flat
// array of n·cols values.
func rawRows(raw []byte, cols []data.Column, n int) ([]float32, int, error) {
	var vals []any
	if err := json.Unmarshal(raw, &vals); err != nil {
		return nil, 0, fmt.Errorf("want an array of rows of %d column values (numbers or strings)", len(cols))
	}
	var rows [][]any
	switch {
	case len(vals) > 0 && isArray(vals[0]):
		for i, v := range vals {
			row, ok := v.([]any)
			if !ok {
				return nil, 0, fmt.Errorf("instance %d is not an array", i)
			}
			rows = append(rows, row)
		}
	case n > 0 && len(vals) == n*len(cols):
		for i := range n {
			rows = append(rows, vals[i*len(cols):(i+1)*len(cols)])
		}
	default:
		rows = [][]any{vals} // one instance given flat
	}
	w := data.Width(cols)
	out := make([]float32, len(rows)*w)
	fields := make([]string, len(cols))
	for i, row := range rows {
		if len(row) != len(cols) {
			return nil, 0, fmt.Errorf("instance %d has %d values; the model's data had %d columns", i, len(row), len(cols))
		}
		for k, v := range row {
			switch v := v.(type) {
			case string:
				fields[k] = v
			case float64:
				fields[k] = strconv.FormatFloat(v, 'g', -1, 64)
			case nil: // missing
				fields[k] = ""
			default:
				return nil, 0, fmt.Errorf("instance %d, column %d: want a number or a string", i, k)
			}
		}
		if err := data.EncodeRow(cols, fields, out[i*w:(i+1)*w]); err != nil {
			return nil, 0, fmt.Errorf("instance %d: %v", i, err)
		}
	}
	return out, len(rows), nil
}

func isArray(v any) bool {
	_, ok := v.([]any)
	return ok
}
