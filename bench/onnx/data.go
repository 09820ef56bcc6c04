package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// table is a data set as rows of text fields under a header, the label
// (class name or target) first.
type table struct {
	header []string
	rows   [][]string
}

// split shuffles the rows with a fixed seed and returns the first
// fraction for training, the rest held out.
func (t *table) split(frac float64) (train, test *table) {
	rng := rand.New(rand.NewPCG(2024, 6))
	rows := append([][]string(nil), t.rows...)
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	k := int(frac * float64(len(rows)))
	return &table{t.header, rows[:k]}, &table{t.header, rows[k:]}
}

// writeCSV writes the table as CSV (no field needs quotes).
func (t *table) writeCSV(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, strings.Join(t.header, ","))
	for _, r := range t.rows {
		fmt.Fprintln(w, strings.Join(r, ","))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeLIBSVM writes the table as LIBSVM text: the label, then the
// nonzero features as index:value.
func (t *table) writeLIBSVM(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, r := range t.rows {
		w.WriteString(r[0])
		for j, v := range r[1:] {
			if x, err := strconv.ParseFloat(v, 64); err != nil || x != 0 {
				fmt.Fprintf(w, " %d:%s", j+1, v)
			}
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// tile returns n rows: the table's rows repeated.
func (t *table) tile(n int) *table {
	out := &table{header: t.header}
	for i := range n {
		out.rows = append(out.rows, t.rows[i%len(t.rows)])
	}
	return out
}

// readLines returns the lines of a file, gunzipped when it ends in .gz.
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			return nil, err
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n"), nil
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i+1)
	}
	return out
}

// sklearnTable reads one of scikit-learn's bundled data sets from dir:
// breast_cancer (30 features, classes malignant and benign), digits (8×8
// images, 64 features, classes 0–9), diabetes (10 features, a target) or
// boston (13 named features, the target MEDV, named "target").
func sklearnTable(dir, name string) (*table, error) {
	switch name {
	case "breast_cancer":
		lines, err := readLines(filepath.Join(dir, "breast_cancer.csv"))
		if err != nil {
			return nil, err
		}
		classes := strings.Split(lines[0], ",")[2:]
		t := &table{header: append([]string{"diagnosis"}, names("f", 30)...)}
		for _, l := range lines[1:] {
			f := strings.Split(l, ",")
			c, _ := strconv.Atoi(f[30])
			t.rows = append(t.rows, append([]string{classes[c]}, f[:30]...))
		}
		return t, nil
	case "digits":
		lines, err := readLines(filepath.Join(dir, "digits.csv.gz"))
		if err != nil {
			return nil, err
		}
		t := &table{header: append([]string{"label"}, names("p", 64)...)}
		for _, l := range lines {
			f := strings.Split(l, ",")
			t.rows = append(t.rows, append([]string{f[64]}, f[:64]...))
		}
		return t, nil
	case "diabetes":
		x, err := readLines(filepath.Join(dir, "diabetes_data_raw.csv.gz"))
		if err != nil {
			return nil, err
		}
		y, err := readLines(filepath.Join(dir, "diabetes_target.csv.gz"))
		if err != nil {
			return nil, err
		}
		t := &table{header: append([]string{"target"}, names("f", 10)...)}
		for i, l := range x {
			v, _ := strconv.ParseFloat(strings.TrimSpace(y[i]), 64)
			t.rows = append(t.rows, append([]string{strconv.FormatFloat(v, 'g', -1, 64)}, strings.Fields(l)...))
		}
		return t, nil
	case "boston":
		lines, err := readLines(filepath.Join(dir, "boston_house_prices.csv"))
		if err != nil {
			return nil, err
		}
		head := strings.Split(strings.ReplaceAll(lines[1], `"`, ""), ",")
		t := &table{header: append([]string{"target"}, head[:13]...)}
		for _, l := range lines[2:] {
			f := strings.Split(l, ",")
			t.rows = append(t.rows, append([]string{f[13]}, f[:13]...))
		}
		return t, nil
	}
	return nil, fmt.Errorf("unknown data set %s", name)
}

// bostonCategorical is the Boston housing data with its two categorical
// columns as text, CHAS ("river" or "inland") and RAD (the index of
// accessibility to radial highways, "rad1" … "rad24"), and every 20th
// value of AGE missing (empty): columns a model one-hot encodes and fills.
// With classes, the label is "dear" or "cheap" (MEDV above or below 21),
// else MEDV, the target.
func bostonCategorical(t *table, classes bool) *table {
	out := &table{header: t.header}
	idx := map[string]int{}
	for j, h := range t.header {
		idx[h] = j
	}
	for i, r := range t.rows {
		r = append([]string(nil), r...)
		if r[idx["CHAS"]] == "1" {
			r[idx["CHAS"]] = "river"
		} else {
			r[idx["CHAS"]] = "inland"
		}
		r[idx["RAD"]] = "rad" + r[idx["RAD"]]
		if i%20 == 7 {
			r[idx["AGE"]] = ""
		}
		if classes {
			v, _ := strconv.ParseFloat(r[0], 64)
			r[0] = "cheap"
			if v > 21 {
				r[0] = "dear"
			}
		}
		out.rows = append(out.rows, r)
	}
	if classes {
		out.header = append([]string{"label"}, t.header[1:]...)
	}
	return out
}

// ringnormTable draws n points of Ringnorm with nsvm data ringnorm.
func ringnormTable(nsvm, dir string, n int) (*table, error) {
	path := filepath.Join(dir, "ringnorm-all.csv")
	if out, err := exec.Command(nsvm, "data", "ringnorm", "--n", strconv.Itoa(n), "--seed", "1", "--out", path).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("nsvm data ringnorm: %v\n%s", err, out)
	}
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	t := &table{header: strings.Split(lines[0], ",")}
	for _, l := range lines[1:] {
		t.rows = append(t.rows, strings.Split(l, ","))
	}
	return t, nil
}
