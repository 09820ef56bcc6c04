package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"strings"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/atomicfile"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/report"
	"github.com/nsvm-go/nsvm/search"
)

// loadFor loads a model and data that must fit it (search.OpenFor),
// labelled unless the command is predict.
func (e *env) loadFor(cmd, modelPath string, df *dataFlags) (*nsvm.Model, *data.Dataset, error) {
	if modelPath == "" {
		return nil, nil, usagef("nsvm %s: --model is required", cmd)
	}
	opt, err := df.options(cmd)
	if err != nil {
		return nil, nil, err
	}
	m, err := e.loadModel(cmd, modelPath)
	if err != nil {
		return nil, nil, err
	}
	ds, err := nsvm.OpenFor(m, df.Path, opt, cmd != "predict")
	if err != nil {
		return nil, nil, data.FlagHint(err)
	}
	e.notices(cmd, ds)
	return m, ds, nil
}

// notices prints on stderr, one line each, what reading ds did that the
// user should know (search.ReadNotices).
func (e *env) notices(cmd string, ds *data.Dataset) {
	for _, n := range search.ReadNotices(ds, cmd == "train") {
		fmt.Fprintf(e.stderr, "nsvm %s: %s\n", cmd, n)
	}
}

// loadModel loads a model file, with a notice on stderr when the file
// carries no checksum to verify it by.
func (e *env) loadModel(cmd, path string) (*nsvm.Model, error) {
	m, err := nsvm.Load(path)
	if err == nil && m.Unchecked {
		fmt.Fprintf(e.stderr, "nsvm %s: notice: %s carries no checksum (an older model file); its contents are not verified\n", cmd, path)
	}
	return m, err
}

func (e *env) predict(args []string) error {
	var df dataFlags
	var modelPath, out, format string
	var prob, decisions bool
	var layout model.PredictionLayout
	fs := e.newFlags("predict", "predict --model M --data FILE [--out FILE] [--probability] [--decision-values] [--out-format libsvm]")
	df.Register(fs)
	fs.StringVar(&modelPath, "model", "", "model `file` written by nsvm train (required)")
	fs.StringVar(&out, "out", "", "write predictions to this `file` instead of stdout")
	fs.BoolVar(&decisions, "decision-values", false, "print every head's decision value after the label (one-vs-one: LIBSVM's pair order; one-vs-rest: the classes' order)")
	fs.StringVar(&format, "out-format", "nsvm", "output layout: nsvm, or libsvm (svm-predict's: the label alone; with --probability a \"labels …\" line, then the label and every class's probability)")
	fs.BoolVar(&prob, "probability", false, "add every class's probability after the label and its decision value or score, in the model's class order (models trained with --probability, or svm-train -b 1)")
	fs.BoolVar(&layout.Header, "out-header", false, "first line of the output: the columns' names (label, decision/score/votes, p(CLASS) …); the columns are then separated by tabs")
	keep := fs.String("keep", "", "CSV: columns to carry through to the output, first in every row, by header name or 0-based index, separated by commas (e.g. --keep customer_id); the columns are then separated by tabs")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if err := checkOutputs("predict", []file{{"--out", out}}, []file{{"--data", df.Path}, {"--labels", df.Labels}, {"--model", modelPath}}); err != nil {
		return err
	}
	if *keep != "" {
		if format == "libsvm" {
			return usagef("nsvm predict: --keep writes columns svm-predict's layout has no place for (leave out --out-format libsvm)")
		}
		for _, c := range strings.Split(*keep, ",") {
			df.base.CSV.Keep = append(df.base.CSV.Keep, strings.TrimSpace(c))
		}
	}
	m, ds, err := e.loadFor("predict", modelPath, &df)
	if err != nil {
		return err
	}
	if df.base.CSV.Keep != nil && ds.Kept == nil {
		return usagef("nsvm predict: --keep carries columns of CSV files; %s is not one", df.Path)
	}
	if prob {
		if m.Regression() {
			return usagef("nsvm predict: --probability applies to classifiers; %s is a regressor", modelPath)
		}
		if !m.Calibrated() {
			return fmt.Errorf("nsvm predict: %s has no probability calibration; train it with --probability", modelPath)
		}
	}
	if format != "nsvm" && format != "libsvm" {
		return usagef("nsvm predict: unknown --out-format %q (want nsvm or libsvm)", format)
	}
	p, err := m.PredictDataset(ds, prob)
	if err != nil {
		return err
	}
	layout.LIBSVM, layout.Decisions, layout.Probabilities, layout.Kept = format == "libsvm", decisions, prob, ds.Kept
	write := func(w io.Writer) error { return m.WritePredictions(w, p, layout) }
	if out == "" {
		err = write(e.stdout)
	} else {
		err = writeAtomicContext(e.ctx, out, write)
	}
	if err != nil {
		return err
	}
	if ds.Y == nil {
		fmt.Fprintf(e.stderr, "nsvm predict: %d rows without labels\n", ds.N)
	} else {
		fmt.Fprintf(e.stderr, "nsvm predict: %d rows with labels (not used; nsvm eval scores them)\n", ds.N)
	}
	return nil
}

// writeAtomicContext writes path through atomicfile: a regular file is
// replaced only by a complete one (a symbolic link is followed, the mode
// kept), a device or pipe is written in place. It gives up, leaving path
// as it was, when ctx is done (Ctrl-C).
func writeAtomicContext(ctx context.Context, path string, write func(io.Writer) error) error {
	err := atomicfile.WriteContext(ctx, path, write)
	var ae *atomicfile.Error
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &ae):
		return fmt.Errorf("nsvm: writing %s: %w", path, err)
	case ae.Op == "create":
		if werr := checkWritable(path, "output"); werr != nil {
			return werr
		}
	}
	return fmt.Errorf("nsvm: cannot write %s: %w", path, ae.Err)
}

func (e *env) eval(args []string) error {
	var df dataFlags
	var modelPath string
	var asJSON bool
	fs := e.newFlags("eval", "eval --model M --data FILE [--json]")
	df.Register(fs)
	fs.StringVar(&modelPath, "model", "", "model `file` written by nsvm train (required)")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object on stdout")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	m, ds, err := e.loadFor("eval", modelPath, &df)
	if err != nil {
		return err
	}
	sc, err := m.Evaluate(ds)
	switch {
	case err != nil && m.Regression():
		return err
	case err != nil:
		return fmt.Errorf("nsvm eval: %s", errmsg.Detail(err, nsvm.ErrBadData))
	case asJSON:
		return json.NewEncoder(e.stdout).Encode(report.EvaluationJSON(sc))
	}
	report.Evaluation(e.stdout, sc)
	return nil
}
