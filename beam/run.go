package nsvmbeam

import (
	"context"
	"fmt"
	"io"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*writeLinesFn)(nil)).Elem())
	register.DoFn3x1[context.Context, []byte, func(*string) bool, error](&writeLinesFn{})
	register.Iter1[string]()
}

// Runner runs a pipeline: beamx.RunWithMetrics for the runner the --runner
// flag names, ptest.RunWithMetrics in tests.
type Runner func(ctx context.Context, p *beam.Pipeline) (beam.PipelineResult, error)

// WriteLines adds to s the writing of the lines of col to the file path
// (any Beam file system), a line each, in no particular order. The file is
// written, empty, when col is: a run leaves every output it names. A local
// file goes through a temporary file and a rename.
func WriteLines(s beam.Scope, path string, col beam.PCollection) {
	s = s.Scope("nsvm.WriteLines")
	beam.ParDo0(s, &writeLinesFn{Path: path}, beam.Impulse(s), beam.SideInput{Input: col})
}

// writeLinesFn writes its side input's lines to Path.
type writeLinesFn struct {
	Path string
}

func (fn *writeLinesFn) ProcessElement(ctx context.Context, _ []byte, lines func(*string) bool) error {
	return writeFile(ctx, fn.Path, func(w io.Writer) error {
		var l string
		for lines(&l) {
			if _, err := io.WriteString(w, l); err != nil {
				return err
			}
			if _, err := w.Write([]byte{'\n'}); err != nil {
				return err
			}
		}
		return nil
	})
}

// PredictCounts counts what a prediction run did.
type PredictCounts struct {
	Rows    int64 // rows scored
	BadRows int64 // dead letters
}

// PredictionsFile and DeadLettersFile name the outputs of RunPredict.
func PredictionsFile(prefix string) string { return prefix + ".predictions.tsv" }

// DeadLettersFile names the dead letters' file of RunPredict.
func DeadLettersFile(prefix string) string { return prefix + ".bad.tsv" }

// RunPredict builds the pipeline of Predict, with the predictions written
// to PredictionsFile(prefix) and the dead letters to
// DeadLettersFile(prefix), runs it and returns its counters. The model is
// loaded and the glob matched first, so that a missing model or input is
// an error before the pipeline starts.
func RunPredict(ctx context.Context, opt PredictOptions, prefix string, run Runner) (PredictCounts, error) {
	var none PredictCounts
	switch {
	case opt.Model == "":
		return none, fmt.Errorf("no model")
	case opt.Input == "":
		return none, fmt.Errorf("no input files")
	case prefix == "":
		return none, fmt.Errorf("no output prefix")
	case opt.Format != "" && opt.Format != "libsvm" && opt.Format != "csv":
		return none, fmt.Errorf("unknown format %q (want libsvm or csv)", opt.Format)
	}
	m, err := loadModel(ctx, opt.Model)
	if err != nil {
		return none, err
	}
	if err := opt.fits(m); err != nil {
		return none, err
	}
	files, err := listFiles(ctx, opt.Input)
	if err != nil {
		return none, fmt.Errorf("%s: %w", opt.Input, err)
	}
	if len(files) == 0 {
		return none, fmt.Errorf("%s: no files match", opt.Input)
	}
	p, s := beam.NewPipelineWithRoot()
	preds, dead := Predict(s, opt)
	WriteLines(s, PredictionsFile(prefix), preds)
	WriteLines(s, DeadLettersFile(prefix), dead)
	res, err := run(ctx, p)
	if err != nil {
		return none, err
	}
	return countsOf(res), nil
}

// countsOf reads Predict's counters from a pipeline's result.
func countsOf(res beam.PipelineResult) PredictCounts {
	var c PredictCounts
	if res == nil {
		return c
	}
	for _, r := range res.Metrics().AllMetrics().Counters() {
		if r.Namespace() != "nsvm" {
			continue
		}
		switch r.Name() {
		case "rows":
			c.Rows += r.Result()
		case "bad_rows":
			c.BadRows += r.Result()
		}
	}
	return c
}
