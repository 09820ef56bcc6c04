package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/cliflag"
	"github.com/nsvm-go/nsvm/internal/trainflags"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/report"
	"github.com/nsvm-go/nsvm/search"
)

// trainFlags holds the flags of "nsvm train": the training flags
// (trainflags.Flags, which map to the nsvm.FitConfig) and those that say
// where data and outputs go.
type trainFlags struct {
	dataFlags
	trainflags.Flags
	model, weights          string
	checkpointEvery         int
	stream                  bool
	cv                      int
	json, quiet             bool
	checkpoint, resume, log string
	set                     map[string]bool
	loadSeconds             float64 // reading the data
}

func (f *trainFlags) register(fs *flag.FlagSet) {
	f.dataFlags.register(fs)
	fs.BoolVar(&f.dataFlags.fillMissing, "fill-missing", false, "CSV: replace a missing value (empty, NA, ?) in a column of numbers by the column's mean, which the model keeps to fill new data with (default: an error)")
	fs.StringVar(&f.model, "model", "", "write the trained model to this `file` (required unless --cv)")
	f.Flags.Register(fs)
	fs.StringVar(&f.weights, "weights", "", "sample weights `file`: one number ≥ 0 a line (a header line allowed) or a .npy, one per row: a row of weight w counts as w rows in training and in the selection's scores")
	fs.StringVar(&f.dataFlags.weightCol, "weight-col", "", "CSV: the column of sample weights, by header name or 0-based index (left out of the features)")
	fs.BoolVar(&f.stream, "stream", false, "train from the file in bounded memory (a sample for selection; an NSVM's Part I reads the whole file); default: on for LIBSVM and CSV files over 1 GiB")
	fs.IntVar(&f.cv, "cv", 0, "report K-fold cross-validated accuracy (RMSE for regression) of this configuration instead of writing a model")
	fs.BoolVar(&f.json, "json", false, "print one JSON object on stdout")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "pinned NSVM algorithms: write checkpoints to this `file` (every --checkpoint-every steps and on Ctrl-C)")
	fs.Var(cliflag.Count{Dst: &f.checkpointEvery, Name: "checkpoint-every"}, "checkpoint-every", "steps between checkpoints (default: T/20 when --checkpoint is set)")
	fs.StringVar(&f.resume, "resume", "", "pinned NSVM algorithms: continue the run saved in this checkpoint `file` (same data and flags)")
	fs.StringVar(&f.log, "log", "", "write every progress report of the final fit as a JSON line to this `file` (for nsvm plot --log)")
}

func (e *env) train(args []string) error {
	var f trainFlags
	fs := e.newFlags("train", "train --data FILE --model OUT [flags]   (every flag but --data and --model is optional)")
	f.register(fs)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	f.set = cliflag.Given(fs)
	if err := f.checkOutputs(); err != nil {
		return err
	}
	if f.cv == 0 && f.model == "" {
		return usagef("nsvm train: --model is required (or --cv K to cross-validate without writing a model)")
	}
	if f.set["cv"] && f.cv < 2 {
		return usagef("nsvm train: --cv must be ≥ 2, got %d", f.cv)
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	if f.cv == 0 {
		// The files a fit writes, before any data is read.
		for _, out := range [][2]string{{f.model, "model"}, {f.checkpoint, "checkpoint"}} {
			if out[0] != "" {
				if err := checkWritable(out[0], out[1]); err != nil {
					return err
				}
			}
		}
	}
	if f.streaming() {
		if f.weights != "" || f.dataFlags.weightCol != "" {
			return usagef("nsvm train: sample weights need the whole data in memory; they do not stream (leave out --stream, or the weights)")
		}
		if f.cv > 0 {
			return usagef("nsvm train: --cv reads the whole data; it does not stream")
		}
		return e.trainStream(&f, cfg)
	}
	loadStart := time.Now()
	if f.Kernel == "precomputed" {
		return e.trainPrecomputed(&f, cfg)
	}
	ds, err := f.dataFlags.load("train")
	if err != nil {
		return err
	}
	if f.weights != "" {
		if ds.W != nil {
			return usagef("nsvm train: --weights and --weight-col both give sample weights; give one")
		}
		if ds.W, err = data.ReadWeights(f.weights, ds.N); err != nil {
			return err
		}
	}
	f.loadSeconds = time.Since(loadStart).Seconds()
	e.notices("train", ds)
	if cfg.InShape != nil && prod(cfg.InShape) != ds.D {
		return usagef("nsvm train: --input-shape %s has %d values, the data has %d per row", shapeText(cfg.InShape), prod(cfg.InShape), ds.D)
	}
	if f.cv > 0 {
		return e.crossValidate(&f, cfg, ds)
	}
	return e.fitAndSave(&f, cfg, ds)
}

// trainPrecomputed is train --kernel precomputed: svm-train -t 4 on the
// kernel values of the data file.
func (e *env) trainPrecomputed(f *trainFlags, cfg *nsvm.FitConfig) error {
	if f.cv > 0 || f.Config.Algorithm != "" && f.Config.Algorithm != "smo" || f.Config.SVMType != "" && f.Config.SVMType != search.SVMCSVC {
		return usagef("nsvm train: --kernel precomputed trains LIBSVM's C-SVC, with --C or C chosen by validation (no --cv, --algo or other --svm-type)")
	}
	ds, err := readPrecomputed(f.path, 0)
	if err != nil {
		return err
	}
	return e.runFit(f, cfg, func() (*nsvm.Model, error) { return nsvm.FitPrecomputed(e.ctx, ds, cfg) },
		func() (*data.Dataset, error) { return ds, nil })
}

// fitAndSave trains on ds, writes the model and reports it.
func (e *env) fitAndSave(f *trainFlags, cfg *nsvm.FitConfig, ds *data.Dataset) error {
	return e.runFit(f, cfg, func() (*nsvm.Model, error) { return nsvm.Fit(e.ctx, ds, cfg) },
		func() (*data.Dataset, error) { return ds, nil })
}

// runFit runs fit (Fit, FitStream or FitPrecomputed on cfg) with what the
// command puts around it (train has checked its outputs): the --log
// file, the progress lines, checkpoints and --resume, the model file, and
// the report of the model's scores on the rows scored returns.
func (e *env) runFit(f *trainFlags, cfg *nsvm.FitConfig, fit func() (*nsvm.Model, error), scored func() (*data.Dataset, error)) error {
	var err error
	var lg *progressLog
	if f.log != "" {
		if lg, err = openLog(f.log); err != nil {
			return err
		}
	}
	rend, done := e.fitLines(f, lg)
	cfg.Progress = rend.Update
	saved, saveErr := -1, error(nil) // the step of the last checkpoint written, the last save's error
	if f.checkpoint != "" {
		cfg.Train.CheckpointEvery = f.checkpointEvery
		cfg.Train.Checkpoint = func(c *paper.Checkpoint) error {
			if saveErr = c.Save(f.checkpoint); saveErr == nil {
				saved = c.Step
			}
			return saveErr
		}
	}
	if f.resume != "" {
		if cfg.Train.Resume, err = paper.LoadCheckpoint(f.resume); err != nil {
			lg.close(err)
			return err
		}
	}
	start := time.Now()
	m, err := fit()
	done()
	secs := time.Since(start).Seconds()
	if cerr := lg.close(err); err == nil {
		err = cerr
	}
	if err != nil {
		if e.ctx.Err() != nil {
			switch {
			case saveErr != nil:
				// The checkpoint on interrupt failed; err says why.
			case saved >= 0:
				return fmt.Errorf("nsvm train: interrupted; checkpoint at step %d written to %s (continue with the same flags and --resume %s)",
					saved, f.checkpoint, f.checkpoint)
			default:
				return fmt.Errorf("nsvm train: interrupted (%v)", strings.TrimPrefix(err.Error(), "nsvm: "))
			}
		}
		return trainError(f, err)
	}
	if err := m.Save(f.model); err != nil {
		return err
	}
	ds, err := scored()
	if err != nil {
		return err
	}
	return e.reportTrained(f, rend, m, ds, secs)
}

// streamAutoBytes is the file size from which train streams by default.
const streamAutoBytes = 1 << 30

// streaming reports whether train reads the data as a stream.
func (f *trainFlags) streaming() bool {
	if f.set["stream"] {
		return f.stream
	}
	if f.format == "idx" || f.checkpoint != "" || f.resume != "" {
		return false
	}
	st, err := os.Stat(f.path)
	if err != nil || st.Size() < streamAutoBytes {
		return false
	}
	base := strings.ToLower(strings.TrimSuffix(f.path, ".gz"))
	return f.format != "" || strings.HasSuffix(base, ".csv") || strings.HasSuffix(base, ".libsvm") || strings.HasSuffix(base, ".svm")
}

// trainStream is train on a stream (nsvm.FitStream).
func (e *env) trainStream(f *trainFlags, cfg *nsvm.FitConfig) error {
	s, err := f.dataFlags.openStream("train")
	if err != nil {
		return err
	}
	defer s.Close()
	if s.Layout() == data.LayoutSparse && f.layout != data.LayoutDense {
		// Wide, sparse rows: their nonzeros are the bounded form of the
		// data (a sample of dense rows would hold D values a row), so the
		// stream is read whole into sparse rows and trained on as they are.
		fmt.Fprintf(e.stderr, "nsvm train: %s holds wide, sparse rows (%d features); reading its nonzeros into memory as sparse rows\n", f.path, s.D())
		ds, err := s.ReadSparse(math.MaxInt32)
		if err != nil {
			return err
		}
		if err := ds.Validate(); err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		return e.fitAndSave(f, cfg, ds)
	}
	if cfg.InShape != nil && prod(cfg.InShape) != s.D() {
		return usagef("nsvm train: --input-shape %s has %d values, the data has %d per row", shapeText(cfg.InShape), prod(cfg.InShape), s.D())
	}
	return e.runFit(f, cfg, func() (*nsvm.Model, error) { return nsvm.FitStream(e.ctx, s, cfg) }, func() (*data.Dataset, error) {
		// Training scores on the first rows of the stream.
		if err := s.Rewind(); err != nil {
			return nil, err
		}
		if s.Layout() == data.LayoutSparse {
			return s.ReadSparse(report.SummaryRows)
		}
		return s.ReadRows(report.SummaryRows)
	})
}

// config checks the flags and returns the library's configuration
// (trainflags.Flags.FitConfig), after the checks of the command's own flags.
func (f *trainFlags) config() (*nsvm.FitConfig, error) {
	switch {
	case (f.checkpoint != "" || f.resume != "" || f.set["checkpoint-every"]) && !strings.HasPrefix(f.Config.Algorithm, "nsvm"):
		return nil, usagef("nsvm train: --checkpoint and --resume need a pinned NSVM algorithm (--algo nsvm1 … nsvm4)")
	case f.cv > 0 && (f.checkpoint != "" || f.resume != "" || f.log != ""):
		return nil, usagef("nsvm train: --cv writes no model; --checkpoint, --resume and --log do not apply")
	}
	c, err := f.Flags.FitConfig(f.set)
	if err != nil {
		return nil, trainError(f, err)
	}
	return c, nil
}

// trainError words a library error for the command line: bad data names
// the file, a configuration that cannot work is a usage error (exit 2).
func trainError(f *trainFlags, err error) error {
	switch {
	case errors.Is(err, nsvm.ErrBadData):
		return fmt.Errorf("nsvm train: %s: %s", f.path, strings.TrimPrefix(err.Error(), "nsvm: unusable data: "))
	case errors.Is(err, nsvm.ErrBadConfig):
		return usageError{"nsvm train: " + trainflags.Message(err)}
	}
	return err
}

// report.SummaryRows bounds the rows the training scores are measured on.
// reportTrained prints the outcome of a fit whose progress rend rendered.
func (e *env) reportTrained(f *trainFlags, rend *report.FitLines, m *nsvm.Model, ds *data.Dataset, secs float64) error {
	r, err := report.SummarizeFit(m, ds, secs, f.model)
	if err != nil {
		return err
	}
	r.LoadSeconds, r.Phases = f.loadSeconds, rend.Phases
	if f.json {
		if r.OutlierShare != nil {
			return json.NewEncoder(e.stdout).Encode(map[string]any{"algo": "one-class", "n": ds.N, "train_seconds": secs,
				"n_sv": m.NumSV(), "outlier_share": *r.OutlierShare, "model": f.model, "info": m.Info})
		}
		return json.NewEncoder(e.stdout).Encode(r)
	}
	r.WriteText(e.stdout)
	return nil
}

// crossValidate is "nsvm train --cv K".
func (e *env) crossValidate(f *trainFlags, cfg *nsvm.FitConfig, ds *data.Dataset) error {
	rend, done := e.fitLines(f, nil)
	rend.Folds = true
	cfg.Progress = rend.Update
	r, err := nsvm.CrossValidate(e.ctx, ds, cfg, f.cv)
	done()
	if err != nil {
		return trainError(f, err)
	}
	if f.json {
		return json.NewEncoder(e.stdout).Encode(r)
	}
	report.CrossValidation(e.stdout, r)
	return nil
}

// fitLines returns the renderer of a fit's progress: candidate lines on
// stderr, a progress bar of the final fit on a terminal, and the final
// fit's reports in the --log file; and the function that ends the bar.
func (e *env) fitLines(f *trainFlags, lg *progressLog) (*report.FitLines, func()) {
	quiet := f.quiet || f.json && !e.terminal()
	algo := f.Config.Algorithm
	if algo == "" {
		algo = "train"
	}
	r := &report.FitLines{W: e.stderr, Quiet: quiet}
	var done func()
	r.Bar, done = e.progressFor(algo, quiet)
	if lg != nil {
		r.Log = lg.callback(algo, f.Config.Seed)
	}
	return r, done
}

// shapeText writes a shape as --input-shape takes it.
func shapeText(s []int) string { return cliflag.Shape{Dst: &s}.String() }

func prod(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}
