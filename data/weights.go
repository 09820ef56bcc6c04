package data

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
)

// ReadWeights reads the sample weights of n rows (Dataset.W; nsvm's
// --weights) from the file at path: text with one number per line, in the
// rows' order, or a one-dimensional NumPy .npy array (numpy.save of
// scikit-learn's sample_weight). In text, '#' comment lines are skipped,
// an empty line is an error (skipping it would shift the weights after
// it), and a first line that is a name rather than a number (a header
// such as "sample_weight", as pandas writes a column) is left out; either
// may be gzip-compressed. Every weight must be a finite number ≥ 0, not
// every one 0, and there must be exactly n of them (n < 0 takes any
// number). Errors name the file and, in text, the line.
func ReadWeights(path string, n int) ([]float64, error) {
	r, f, _, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(newLineReader(r), 64<<10)
	var w []float64
	if head, _ := br.Peek(len(npyMagic)); string(head) == npyMagic {
		if w, err = ReadNPYLabels(br, path); err != nil {
			return nil, err
		}
		for i, v := range w {
			if !(v >= 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("data: %s: weight %d is %v; weights must be finite numbers ≥ 0", path, i, v)
			}
		}
	} else if w, err = readWeightsText(br, path); err != nil {
		return nil, err
	}
	switch {
	case len(w) == 0:
		return nil, fmt.Errorf("data: %s: no weights", path)
	case n >= 0 && len(w) != n:
		return nil, fmt.Errorf("data: %s: %d weights for %d rows; want one weight a row", path, len(w), n)
	}
	for _, v := range w {
		if v != 0 {
			return w, nil
		}
	}
	return nil, fmt.Errorf("data: %s: every weight is 0", path)
}

// readWeightsText reads weights as text, one a line (see ReadWeights).
func readWeightsText(r *bufio.Reader, path string) ([]float64, error) {
	var w []float64
	first := true
	for line := 1; ; line++ {
		b, rerr := r.ReadBytes('\n')
		if rerr != nil && rerr != io.EOF {
			return nil, fmt.Errorf("data: %s:%d: %w", path, line, rerr)
		}
		if len(b) == 0 && rerr == io.EOF {
			return w, nil
		}
		comment := false
		if k := bytes.IndexByte(b, '#'); k >= 0 {
			b, comment = b[:k], true
		}
		f := strings.FieldsFunc(string(b), func(c rune) bool { return c == ',' || c == ';' || isBlank(byte(c)) && c < 0x80 })
		if len(f) == 0 && !comment {
			return nil, fmt.Errorf("data: %s:%d: %v", path, line, errBlankLine)
		}
		if len(f) > 0 {
			switch {
			case len(f) > 1:
				return nil, fmt.Errorf("data: %s:%d: %d fields; want one weight a line", path, line, len(f))
			case first && !isNumber(f[0]):
				// A header.
			default:
				v, err := parseWeight(f[0])
				if err != nil {
					return nil, fmt.Errorf("data: %s:%d: %v", path, line, err)
				}
				w = append(w, v)
			}
			first = false
		}
		if rerr == io.EOF {
			return w, nil
		}
	}
}
