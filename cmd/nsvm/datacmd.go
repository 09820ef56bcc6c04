package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/cliflag"
	"github.com/nsvm-go/nsvm/search"

	"github.com/nsvm-go/nsvm/data/datasets"
)

const dataUsage = `data ringnorm --n N --seed S --out FILE [--format libsvm|csv]
       nsvm data friedman1 --n N --seed S --out FILE [--noise 1] [--format libsvm|csv]
       nsvm data mnist --dir DIR
       nsvm data convert IN OUT [--labels Y.npy] [--out-labels Y.npy] [input flags]`

func (e *env) data(args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, "Usage: nsvm "+dataUsage)
		return usagef("nsvm data: say ringnorm, friedman1, mnist or convert")
	}
	switch args[0] {
	case "ringnorm", "friedman1":
		return e.dataGenerate(args[0], args[1:])
	case "mnist":
		return e.dataMNIST(args[1:])
	case "convert":
		return e.dataConvert(args[1:])
	case "-h", "--help", "help":
		fmt.Fprintln(e.stdout, "Usage: nsvm "+dataUsage)
		return nil
	}
	return usagef("nsvm data: unknown data set %q (want ringnorm, friedman1, mnist or convert)", args[0])
}

// dataGenerate is "nsvm data ringnorm|friedman1": a generated data set
// (Ringnorm's two classes, or Friedman #1's regression targets with
// Gaussian noise).
func (e *env) dataGenerate(set string, args []string) error {
	cmd := "data " + set
	fs := e.newFlags(cmd, cmd+" --n N --seed S --out FILE [--format libsvm|csv]"+map[string]string{"friedman1": " [--noise 1]"}[set])
	n := fs.Int("n", map[string]int{"ringnorm": 7400, "friedman1": 2000}[set], "number of points")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("out", "", "output `file` (required; - for stdout)")
	format := fs.String("format", "", "output format: libsvm or csv (default: from the --out file's extension)")
	noise := 1.0
	if set == "friedman1" {
		fs.Float64Var(&noise, "noise", 1, "standard deviation of the Gaussian noise on the target")
	}
	if err := e.parse(fs, args); err != nil {
		return err
	}
	switch {
	case *n < 2:
		return usagef("nsvm %s: --n must be ≥ 2, got %d", cmd, *n)
	case !(noise >= 0) || math.IsInf(noise, 0):
		return usagef("nsvm %s: --noise must be a finite number ≥ 0, got %g", cmd, noise)
	case *out == "":
		return usagef("nsvm %s: --out is required", cmd)
	}
	rng := rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15))
	var ds *data.Dataset
	if set == "friedman1" {
		ds = datasets.Friedman1(*n, noise, rng)
	} else {
		ds = datasets.Ringnorm(*n, rng)
	}
	return e.writeGenerated(cmd, *out, *format, ds)
}

// writeGenerated writes a generated data set to out: in format ("libsvm"
// or "csv"), or "" for the format out's extension names (.csv, .libsvm,
// .npz, …; LIBSVM text for a name that tells none, and on stdout, "-"). A
// format that contradicts the extension is an error, not a file of one
// format under the other's name.
func (e *env) writeGenerated(cmd, out, format string, ds *data.Dataset) error {
	switch format {
	case "", "libsvm", "csv":
	default:
		return usagef("nsvm %s: unknown --format %q (want libsvm or csv)", cmd, format)
	}
	if out == "-" {
		if format == "csv" {
			return data.WriteCSV(e.stdout, ds, true)
		}
		return data.WriteLIBSVM(e.stdout, ds)
	}
	ext := data.SaveFormat(out)
	switch {
	case format != "" && ext != "" && ext != format:
		return usagef("nsvm %s: --format %s, but %s names %s data", cmd, format, out, ext)
	case ext == "" && format == "":
		ext = "libsvm" // a name that tells no format: LIBSVM text, the default
	case ext == "":
		ext = format
	}
	if ext == "csv" || ext == "libsvm" {
		write := data.WriteLIBSVM
		if ext == "csv" {
			write = func(w io.Writer, d *data.Dataset) error { return data.WriteCSV(w, d, true) }
		}
		return writeAtomicContext(e.ctx, out, func(w io.Writer) error { return write(w, ds) })
	}
	return data.Save(out, ds, "")
}

func (e *env) dataMNIST(args []string) error {
	fs := e.newFlags("data mnist", "data mnist --dir DIR")
	dir := fs.String("dir", "", "directory for the four MNIST IDX files (required)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("nsvm data mnist: --dir is required")
	}
	if err := datasets.FetchMNIST(e.ctx, *dir); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "MNIST IDX files verified in %s\n", *dir)
	return nil
}

const convertUsage = `data convert IN OUT [--labels Y.npy] [--out-labels Y.npy] [--format F] [--label-col C] [--header H] [--digits D]

Converts a data set between formats, named by the extensions: .csv (label
first, with a header), .libsvm/.svm/.txt (LIBSVM text), .npy (X as float32;
y as float64 in --out-labels, default OUT with .npy replaced by _y.npy), .npz
(X and y, stored uncompressed so that it opens memory-mapped). IN may also
be an MNIST IDX images file and may be gzip-compressed; a .npy IN needs
--labels, the .npy of its labels. OUT is written through a temporary file
and renamed, so that a failure leaves no partial file.`

func (e *env) dataConvert(args []string) error {
	fs := e.newFlags("data convert", convertUsage)
	var in dataFlags
	in.RegisterInput(fs)
	outLabels := fs.String("out-labels", "", "for a .npy OUT: the `file` of the labels y (default: OUT with .npy replaced by _y.npy)")
	pos, err := e.parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("nsvm data convert: want IN and OUT, got %d arguments (see nsvm data convert -h)", len(pos))
	}
	in.Path = pos[0]
	out := pos[1]
	outFormat := data.SaveFormat(out)
	if outFormat == "" {
		return usagef("nsvm data convert: cannot tell the format of %s from its extension (want .csv, .libsvm, .svm, .txt, .npy or .npz)", out)
	}
	if *outLabels != "" && outFormat != "npy" {
		return usagef("nsvm data convert: --out-labels is for a .npy OUT")
	}
	inputs := []file{{"IN", in.Path}, {"--labels", in.Labels}}
	if err := checkOutputs("data convert", []file{{"OUT", out}}, inputs); err != nil {
		return err
	}
	yPath := ""
	if outFormat == "npy" {
		yPath = *outLabels
		if yPath == "" {
			yPath = data.NPYLabelsPath(out)
		}
		if checkOutputs("data convert", []file{{"OUT", out}, {"--out-labels", yPath}}, inputs) != nil {
			return usagef("nsvm data convert: the labels file %s would overwrite an input or OUT; give --out-labels", yPath)
		}
	}
	// Fail before reading, not after it, when an output cannot be written.
	for _, p := range []string{out, yPath} {
		if p != "" {
			if err := checkWritable(p, "output"); err != nil {
				return err
			}
		}
	}
	ds, err := in.load("data convert")
	if err != nil {
		return err
	}
	e.notices("data convert", ds)
	defer ds.Close()
	if err := data.Save(out, ds, yPath); err != nil {
		return err
	}
	// Formats without names keep the class numbers; say which is which.
	numbered := ""
	if ds.LabelNames != nil && outFormat != "csv" {
		var b strings.Builder
		for i, s := range ds.LabelNames {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d = %s", i, s)
		}
		numbered = "; class names written as numbers: " + b.String()
	}
	if yPath != "" {
		fmt.Fprintf(e.stdout, "%s: %d rows × %d features → %s (X), %s (y)%s\n", in.Path, ds.N, ds.D, out, yPath, numbered)
		return nil
	}
	fmt.Fprintf(e.stdout, "%s: %d rows × %d features → %s%s\n", in.Path, ds.N, ds.D, out, numbered)
	return nil
}

// parseInterspersed parses flags that may come before, between or after
// positional arguments (cliflag.Parse), and returns the positional
// arguments. A training parameter's refused value is spelled as its flag.
func (e *env) parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	tool := map[bool]string{true: "svm-predict", false: "svm-train"}[fs.Name() == "predict"]
	pos, err := cliflag.Parse(fs, args, tool, cliflag.SVMTrainHints)
	var ce *nsvm.ConfigError
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return pos, err
	case errors.As(err, &ce):
		return nil, usagef("nsvm %s: %s", fs.Name(), ce.Text(search.FlagOf))
	}
	return nil, usagef("nsvm %s: %v (see nsvm %s -h)", fs.Name(), err, fs.Name())
}
