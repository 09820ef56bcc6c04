package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/cliflag"
)

// dataFlags are the flags that say where labelled data comes from.
type dataFlags struct {
	path, format, labels string
	labelCol             string // --label-col: a header name or a 0-based index; "" = infer
	header               string
	digits               string
	dim                  int           // forced width for LIBSVM data (the model's input size); 0 = infer
	dimFlag              int           // --dim: the width the user gives; 0 = none
	columns              []data.Column // the model's CSV columns (named when its file had a header)
	labelColumn          string        // the header name of the model's label column, if known
	fillMissing          bool          // train --fill-missing
	sep                  string
	layout               string
	weightCol            string   // train --weight-col
	keep                 []string // predict --keep
}

func (d *dataFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.path, "data", "", "data `file` (LIBSVM text, CSV, NumPy .npz or .npy, or an MNIST IDX images file) (required)")
	d.registerInput(fs)
}

// registerInput registers the flags that say how to read the data file,
// all but its name.
func (d *dataFlags) registerInput(fs *flag.FlagSet) {
	fs.Var(cliflag.Choice{Dst: &d.format, Name: "format", Values: []string{"libsvm", "csv", "idx", "npy", "npz"}}, "format", "data format: libsvm, csv, idx, npy or npz (default: from the file name and content)")
	fs.StringVar(&d.labels, "labels", "", "labels `file`: the .npy of y for a .npy of X (required then), or the IDX labels file (default: the images file name with images-idx3 → labels-idx1)")
	fs.StringVar(&d.labelCol, "label-col", "", "CSV label `column`: its header name, or its 0-based index (-1: the last) (default: the column named label, else class, target, outcome, species, diagnosis or survived, else the last one, named on stderr)")
	d.header = "auto"
	fs.Var(cliflag.Choice{Dst: &d.header, Name: "header", Values: []string{"auto", "yes", "no"}}, "header", "CSV header row: auto, yes or no")
	fs.StringVar(&d.sep, "sep", "", "CSV field separator: one character, or tab (default: a comma, or a semicolon or a tab when the first line has no comma)")
	fs.StringVar(&d.digits, "digits", "", "IDX: keep only these digits, e.g. 0,1")
	fs.IntVar(&d.dimFlag, "dim", 0, "number of features of LIBSVM and sparse .npz data, and of streamed rows (default: the largest feature index, within a bound set by the file's size)")
	fs.Var(cliflag.Choice{Dst: &d.layout, Name: "layout", Values: []string{data.LayoutDense, data.LayoutSparse}, Auto: true}, "layout", "rows of LIBSVM and sparse .npz files: dense or sparse (default: sparse when at least 1024 features of which at most 10 % are nonzero)")
}

// load reads and validates the data set the flags name: rows without
// labels (Y nil) for predict and data convert, labelled rows for the
// other commands.
func (d *dataFlags) load(cmd string) (*data.Dataset, error) {
	opt, err := d.options(cmd)
	if err != nil {
		return nil, err
	}
	ds, err := data.Open(d.path, opt)
	if err != nil {
		return nil, flagHint(err)
	}
	validate := ds.Validate
	if cmd == "predict" || cmd == "data convert" {
		validate = ds.ValidateInputs
	}
	if err := validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", d.path, err)
	}
	return ds, nil
}

// openStream opens the file the flags name for reading in row blocks.
func (d *dataFlags) openStream(cmd string) (*data.Stream, error) {
	opt, err := d.options(cmd)
	if err != nil {
		return nil, err
	}
	s, err := data.OpenStream(d.path, opt)
	return s, flagHint(err)
}

// flagHint adds to a reader's error the flag that reads the data: --dim
// for a width the data do not tell or that exceeds the bound of their
// size, --fill-missing for a missing value.
func flagHint(err error) error {
	var we *data.WidthError
	var me *data.MissingValueError
	switch {
	case errors.As(err, &we) && we.Width > 0:
		return fmt.Errorf("%w (--dim %d)", err, we.Width)
	case errors.As(err, &we):
		return fmt.Errorf("%w (--dim N)", err)
	case errors.As(err, &me):
		return fmt.Errorf("%w (--fill-missing fills it with the column's mean)", err)
	}
	return err
}

// options maps the flags to data.OpenOptions.
func (d *dataFlags) options(cmd string) (data.OpenOptions, error) {
	var none data.OpenOptions
	if d.path == "" {
		return none, usagef("nsvm %s: --data is required", cmd)
	}
	var digits []int
	if d.digits != "" {
		for _, s := range strings.Split(d.digits, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || v < 0 || v > 9 {
				return none, usagef("nsvm %s: --digits wants digits 0–9 separated by commas, got %q", cmd, d.digits)
			}
			digits = append(digits, v)
		}
	}
	hm := map[string]data.HeaderMode{"auto": data.HeaderAuto, "yes": data.HeaderYes, "no": data.HeaderNo}[d.header]
	var comma rune
	switch sep := []rune(d.sep); {
	case d.sep == "":
	case d.sep == "tab" || d.sep == `\t`:
		comma = '\t'
	case len(sep) == 1 && sep[0] != '"' && sep[0] != '\n' && sep[0] != '\r':
		comma = sep[0]
	default:
		return none, usagef("nsvm %s: --sep must be one character or tab, got %q", cmd, d.sep)
	}
	dim := d.dim
	switch {
	case d.dimFlag < 0:
		return none, usagef("nsvm %s: --dim must be ≥ 1, got %d", cmd, d.dimFlag)
	case d.dimFlag > 0 && dim > 0 && d.dimFlag != dim:
		return none, usagef("nsvm %s: --dim %d, but the model takes %d features", cmd, d.dimFlag, dim)
	case d.dimFlag > 0:
		dim = d.dimFlag
	}
	columns := d.columns
	if columns == nil && d.dim > 0 {
		// A model's features are numbers: a CSV file of as many columns
		// has no labels, one more column holds them.
		columns = make([]data.Column, d.dim)
	}
	labelCol, labelName := data.LabelAuto, d.labelColumn
	if d.labelCol != "" {
		switch i, err := strconv.Atoi(strings.TrimSpace(d.labelCol)); {
		case err != nil:
			labelName = d.labelCol // a header name
		case i == 0:
			labelCol = data.LabelFirst
		case i >= -1:
			labelCol = i
		default:
			return none, usagef("nsvm %s: --label-col %d: want a header name, a 0-based index or -1 (the last column)", cmd, i)
		}
	}
	return data.OpenOptions{Format: d.format, Labels: d.labels, Digits: digits, Dim: dim, Layout: d.layout,
		CSV: data.CSVOptions{LabelCol: labelCol, Header: hm, Columns: columns, LabelColumn: labelName, FillMissing: d.fillMissing, Comma: comma, WeightCol: d.weightCol, Keep: d.keep}}, nil
}
