// Command nsvm-beam runs nsvm on Apache Beam: batch prediction over many
// files, and nsvm train's model selection with the candidates scored on
// the workers.
//
//	nsvm-beam predict --model M --input GLOB --output PREFIX [flags] [Beam flags]
//	nsvm-beam train --data F --model OUT [--seed S] [flags] [Beam flags]
//
// Beam's own flags choose where the pipelines run: --runner (default
// prism, in this process), --endpoint and --environment_type for a
// portable job server (Flink, Spark), --project, --region and
// --staging_location for Dataflow. The runners start this same binary
// on their workers, with Beam's worker flags and no subcommand.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	nsvmbeam "github.com/nsvm-go/nsvm/beam"
	"github.com/nsvm-go/nsvm/beam/beamio"
	"github.com/nsvm-go/nsvm/beam/predict"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/search"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `nsvm-beam runs nsvm on Apache Beam (prism in this process by default;
Dataflow, Flink or Spark with Beam's --runner flags).

Commands:
  predict  score the rows of many LIBSVM or CSV files with a model:
           nsvm-beam predict --model M --input GLOB --output PREFIX [flags] [Beam flags]
  train    nsvm train's selection with the candidates scored on the workers:
           nsvm-beam train --data F --model OUT [--seed S] [flags] [Beam flags]

Run "nsvm-beam predict -h" or "nsvm-beam train -h" for a command's flags and
Beam's (--runner, --endpoint, --project, …).`

// errUsage marks a command line that cannot work (exit status 2).
var errUsage = errors.New("usage")

// run runs one command line and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintln(stdout, usage)
		return 0
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		// A runner starting a worker (--worker …), or no subcommand.
		if err := flag.CommandLine.Parse(args); err == nil {
			beam.Init() // a worker runs the harness here and exits
		}
		fmt.Fprintln(stderr, usage)
		return 2
	}
	defer beamio.PrivateTemp()()
	var err error
	switch args[0] {
	case "predict":
		err = predictCmd(ctx, args[1:], stderr)
	case "train":
		err = trainCmd(ctx, args[1:], stderr)
	case "help":
		fmt.Fprintln(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "nsvm-beam: unknown command %q\n%s\n", args[0], usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "nsvm-beam:", strings.TrimSuffix(err.Error(), ": "+errUsage.Error()))
		return 2
	}
	fmt.Fprintln(stderr, "nsvm-beam:", err)
	return 1
}

func usagef(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, errUsage)...)
}

// newFlags returns the flag set of a subcommand, holding Beam's flags
// (registered on the command line's set: --runner, --endpoint, …).
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("nsvm-beam "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	flag.CommandLine.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, f.Name, f.Usage) })
	return fs
}

// parse parses a subcommand's flags, then initialises Beam.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	beamlog.LogLevel = "warn" // not the runner's report of every job
	beam.Init()
	return nil
}

func predictCmd(ctx context.Context, args []string, stderr io.Writer) error {
	var opt predict.Options
	var output, header, sep string
	fs := newFlags("predict", stderr)
	fs.StringVar(&opt.Model, "model", "", "model `file` written by nsvm train (required; local, gs://, s3://)")
	fs.StringVar(&opt.Input, "input", "", "`glob` of the LIBSVM or CSV files to score, gzip-compressed or not (required)")
	fs.StringVar(&output, "output", "", "output `prefix`: PREFIX.predictions.tsv and PREFIX.bad.tsv are written (required)")
	fs.StringVar(&opt.Format, "format", "", "data format: libsvm or csv (default: from each file's name, else its content)")
	fs.BoolVar(&opt.Probability, "probability", false, "add a probability column (models trained with --probability)")
	fs.IntVar(&opt.Batch, "batch", 1024, "rows read and scored at once")
	fs.StringVar(&header, "header", "auto", "CSV header row: auto, yes or no")
	fs.IntVar(&opt.LabelCol, "label-col", labelColAuto, "CSV label column, 0-based, as nsvm predict's (-1: last; default: the header field named label, class, …, else the last column)")
	fs.StringVar(&sep, "sep", "", data.SepUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case opt.Model == "" || opt.Input == "" || output == "":
		return usagef("predict needs --model, --input and --output")
	case opt.Batch < 1:
		return usagef("--batch must be ≥ 1, got %d", opt.Batch)
	case opt.Format != "" && opt.Format != "libsvm" && opt.Format != "csv":
		return usagef("unknown --format %q (want libsvm or csv)", opt.Format)
	}
	switch header {
	case "auto":
		opt.Header = data.HeaderAuto
	case "yes":
		opt.Header = data.HeaderYes
	case "no":
		opt.Header = data.HeaderNo
	default:
		return usagef("--header must be auto, yes or no, got %q", header)
	}
	switch opt.LabelCol {
	case labelColAuto:
		opt.LabelCol = data.LabelAuto
	case 0:
		opt.LabelCol = data.LabelFirst
	}
	if sep != "" {
		c, ok := data.ParseSep(sep)
		if !ok {
			return usagef("--sep must be one character, tab or space, got %q", sep)
		}
		opt.Comma = c
	}
	if err := makeDir(output); err != nil {
		return err
	}
	start := time.Now()
	c, err := predict.Run(ctx, opt, output, beamx.RunWithMetrics)
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(stderr, "scored %d rows in %.1fs (%.0f rows/s); %d bad rows\npredictions: %s\ndead letters: %s\n",
		c.Rows, secs, float64(c.Rows)/secs, c.BadRows, predict.PredictionsFile(output), predict.DeadLettersFile(output))
	return nil
}

func trainCmd(ctx context.Context, args []string, stderr io.Writer) error {
	var opt nsvmbeam.TrainOptions
	var model string
	fs := newFlags("train", stderr)
	fs.StringVar(&opt.Data, "data", "", "training data `file` (required): local in any format nsvm reads, or LIBSVM or CSV text on gs:// or s3://")
	fs.StringVar(&model, "model", "", "write the model to this `file` (required)")
	fs.StringVar(&opt.Format, "format", "", "data format, as nsvm train's --format (default: from the name, else the content)")
	fs.Uint64Var(&opt.Seed, "seed", 0, "random seed, as nsvm train's")
	fs.IntVar(&opt.Folds, "folds", 0, "validation folds, as nsvm train's (default: 5, 3 or a hold-out by the data's size)")
	fs.BoolVar(&opt.Probability, "probability", false, "calibrate probabilities, as nsvm train's")
	fs.DurationVar(&opt.Budget, "budget", 0, "bound on the search's wall time, checked between rounds (default 10m)")
	fs.StringVar(&opt.Work, "work", "", "`directory` for each round's results, written by the workers and read here (default: a local temporary directory; gs://… on Dataflow)")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case opt.Data == "" || model == "":
		return usagef("train needs --data and --model")
	case opt.Folds < 0 || isSet(fs, "folds") && opt.Folds < 1:
		return usagef("--folds must be ≥ 1, got %d", opt.Folds)
	case isSet(fs, "budget") && opt.Budget <= 0:
		return usagef("--budget must be > 0, got %v", opt.Budget)
	}
	if err := makeDir(model); err != nil {
		return err
	}
	start := time.Now()
	m, err := nsvmbeam.Train(ctx, opt, beamx.RunWithMetrics, nil)
	if err != nil {
		return err
	}
	if err := beamio.SaveModel(ctx, m, model); err != nil {
		return err
	}
	if sel := m.Selection; sel != nil {
		w := sel.Candidates[sel.Winner]
		fmt.Fprintf(stderr, "selected %s: %s validation %s of %d candidates\n", w.Name, sel.Validation, search.FormatScore(sel.Metric, w.Score), len(sel.Candidates))
	}
	fmt.Fprintf(stderr, "trained in %.1fs; model written to %s\n", time.Since(start).Seconds(), model)
	return nil
}

// labelColAuto is --label-col's default, data.LabelAuto (which is 0, the
// flag's first column), as nsvm's.
const labelColAuto = -2

// isSet reports whether a flag was given.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// makeDir makes the directory of a local output, as Beam's local file
// system makes the directories of what it writes.
func makeDir(path string) error {
	if !beamio.IsLocal(path) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}
