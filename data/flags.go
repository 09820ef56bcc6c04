package data

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/internal/cliflag"
)

// Flags are a command line's description of a data file: its name and how
// to read it, nsvm's --data, --format, --labels, --label-col, --header,
// --sep, --digits, --dim and --layout. Options maps them to OpenOptions.
type Flags struct {
	Path, Format, Labels string
	LabelCol             string // a header name or a 0-based index (-1: the last); "" infers it
	Header               string // auto, yes or no; "" is auto
	Sep                  string // one character, tab, or space (Spaces); "" infers it
	Digits               string // IDX: digits separated by commas
	Dim                  int    // the width of LIBSVM and sparse rows; 0 infers it
	Layout               string // dense, sparse, or "" to choose
}

// FlagError is a value of a Flags field that Options refuses. Flag names
// the flag ("dim"); Msg says why, naming it as the command line spells it.
type FlagError struct{ Flag, Msg string }

func (e *FlagError) Error() string { return "data: " + e.Msg }

func flagErrorf(name, format string, args ...any) error {
	return &FlagError{Flag: name, Msg: fmt.Sprintf(format, args...)}
}

// Register defines --data and the flags of RegisterInput on fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Path, "data", "", "data `file` (LIBSVM text, CSV, NumPy .npz or .npy, or an MNIST IDX images file) (required)")
	f.RegisterInput(fs)
}

// SepUsage is the usage of a --sep flag (ParseSep).
const SepUsage = "CSV field separator: one character, tab, or space (runs of spaces and tabs) (default: a comma, or a semicolon or a tab when the first line has no comma, else space when it has two fields or more)"

// ParseSep reads a --sep flag's value: one character (not a quote or a
// line end), "tab" or `\t` for a tab, "space" or " " for runs of spaces
// and tabs (Spaces). It reports false for anything else.
func ParseSep(s string) (rune, bool) {
	switch r := []rune(s); {
	case s == "tab" || s == `\t`:
		return '\t', true
	case s == "space" || s == " ":
		return Spaces, true
	case len(r) == 1 && r[0] != '"' && r[0] != '\n' && r[0] != '\r':
		return r[0], true
	}
	return 0, false
}

// RegisterInput defines on fs the flags that say how to read the data file,
// all but its name.
func (f *Flags) RegisterInput(fs *flag.FlagSet) {
	fs.Var(cliflag.Choice{Dst: &f.Format, Name: "format", Values: []string{"libsvm", "csv", "idx", "npy", "npz"}}, "format", "data format: libsvm, csv, idx, npy or npz (default: from the file name and content)")
	fs.StringVar(&f.Labels, "labels", "", "labels `file`: the .npy of y for a .npy of X (required then), or the IDX labels file (default: the images file name with images-idx3 → labels-idx1)")
	fs.StringVar(&f.LabelCol, "label-col", "", "CSV label `column`: its header name, or its 0-based index (-1: the last) (default: the column named label, else class, target, outcome, species, diagnosis or survived, else the last one, named on stderr)")
	f.Header = "auto"
	fs.Var(cliflag.Choice{Dst: &f.Header, Name: "header", Values: []string{"auto", "yes", "no"}}, "header", "CSV header row: auto, yes or no")
	fs.StringVar(&f.Sep, "sep", "", SepUsage)
	fs.StringVar(&f.Digits, "digits", "", "IDX: keep only these digits, e.g. 0,1")
	fs.IntVar(&f.Dim, "dim", 0, "number of features of LIBSVM and sparse .npz data, and of streamed rows (default: the largest feature index, within a bound set by the file's size)")
	fs.Var(cliflag.Choice{Dst: &f.Layout, Name: "layout", Values: []string{LayoutDense, LayoutSparse}, Auto: true}, "layout", "rows of LIBSVM and sparse .npz files: dense or sparse (default: sparse when at least 1024 features of which at most 10 % are nonzero)")
}

// Options returns o, what the caller knows of the file already (CSV
// options of its own flags), completed by the flags. A value it refuses is a *FlagError.
func (f *Flags) Options(o OpenOptions) (OpenOptions, error) {
	if f.Digits != "" {
		for _, s := range strings.Split(f.Digits, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || v < 0 || v > 9 {
				return o, flagErrorf("digits", "--digits wants digits 0–9 separated by commas, got %q", f.Digits)
			}
			o.Digits = append(o.Digits, v)
		}
	}
	switch f.Header {
	case "", "auto":
		o.CSV.Header = HeaderAuto
	case "yes":
		o.CSV.Header = HeaderYes
	case "no":
		o.CSV.Header = HeaderNo
	default:
		return o, flagErrorf("header", "unknown --header %q (want auto, yes or no)", f.Header)
	}
	if f.Sep != "" {
		c, ok := ParseSep(f.Sep)
		if !ok {
			return o, flagErrorf("sep", "--sep must be one character, tab or space, got %q", f.Sep)
		}
		o.CSV.Comma = c
	}
	switch {
	case f.Dim < 0:
		return o, flagErrorf("dim", "--dim must be ≥ 1, got %d", f.Dim)
	case f.Dim > 0:
		o.Dim = f.Dim
	}
	o.CSV.LabelCol = LabelAuto
	if f.LabelCol != "" {
		switch i, err := strconv.Atoi(strings.TrimSpace(f.LabelCol)); {
		case err != nil:
			o.CSV.LabelColumn = f.LabelCol // a header name
		case i == 0:
			o.CSV.LabelCol = LabelFirst
		case i >= -1:
			o.CSV.LabelCol = i
		default:
			return o, flagErrorf("label-col", "--label-col %d: want a header name, a 0-based index or -1 (the last column)", i)
		}
	}
	o.Format, o.Labels, o.Layout = f.Format, f.Labels, f.Layout
	return o, nil
}

// FlagHint adds to a reader's error the flag that reads the data: --dim for
// a width the data do not tell or that exceeds the bound of their size,
// --fill-missing for a missing value.
func FlagHint(err error) error {
	var we *WidthError
	var me *MissingValueError
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
