package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/cliflag"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/report"
	"github.com/nsvm-go/nsvm/search"
)

// trainFlags holds the flags of "nsvm train": one per training parameter
// (search.Params), which set c, the nsvm.FitConfig, directly (everything
// left unset is chosen by nsvm.Fit); the others say where data and outputs
// go.
type trainFlags struct {
	dataFlags
	c                       nsvm.FitConfig
	model, weights          string
	checkpointEvery         int
	stream, cvFixed         bool
	cv                      int
	json, quiet             bool
	checkpoint, resume, log string
	cont                    string // --continue
	svBudget                int    // --sv-budget
	set                     map[string]bool
	loadSeconds             float64 // reading the data
}

// regFlags holds --reg, --reg-weight and --reg-target of nsvm reproduce.
type regFlags struct {
	name           string
	weight, target float64
}

func (r *regFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.name, "reg", "none", "regulariser of the batch kernel matrix for nsvm3/nsvm4 (paper §6): none, entropy, frob-i, frob-ones or frob")
	fs.Float64Var(&r.weight, "reg-weight", 0.1, "weight ρ of the --reg regulariser")
	fs.Float64Var(&r.target, "reg-target", 0, "--reg target: 0 for the barrier form; entropy: s₀ in (0,1) for (S−s₀)²; frob*: t in (0,1] for max(0, t−d)²")
}

// config checks the flags and returns the library's RegConfig; cmd names the
// command in errors and set tells which flags were given.
func (r *regFlags) config(cmd string, set map[string]bool) (nsvm.RegConfig, error) {
	if r.name == "none" {
		if set["reg-weight"] || set["reg-target"] {
			return nsvm.RegConfig{}, usagef("nsvm %s: --reg-weight and --reg-target need --reg", cmd)
		}
		return nsvm.RegConfig{}, nil
	}
	if !slices.Contains(paper.RegNames, r.name) {
		return nsvm.RegConfig{}, usagef("nsvm %s: unknown --reg %q (want %s)", cmd, r.name, strings.Join(paper.RegNames, ", "))
	}
	c := nsvm.RegConfig{Name: r.name, Rho: r.weight, Target: r.target}
	if err := c.Validate(); err != nil {
		return c, usagef("nsvm %s: %s", cmd, errmsg.Strip(err))
	}
	return c, nil
}

func (f *trainFlags) register(fs *flag.FlagSet) {
	f.dataFlags.Register(fs)
	for i := range search.Params {
		p := &search.Params[i]
		fs.Var(p.Value(&f.c), p.Flag, p.Usage())
	}
	fs.BoolVar(&f.dataFlags.base.CSV.FillMissing, "fill-missing", false, "CSV: replace a missing value (empty, NA, ?) in a column of numbers by the column's mean, which the model keeps to fill new data with (default: an error)")
	fs.StringVar(&f.model, "model", "", "write the trained model to this `file` (required unless --cv)")
	fs.StringVar(&f.weights, "weights", "", "sample weights `file`: one number ≥ 0 a line (a header line allowed) or a .npy, one per row: a row of weight w counts as w rows in training and in the selection's scores")
	fs.StringVar(&f.dataFlags.base.CSV.WeightCol, "weight-col", "", "CSV: the column of sample weights, by header name or 0-based index (left out of the features)")
	fs.BoolVar(&f.stream, "stream", false, "train from the file in bounded memory (a sample for selection; an NSVM's Part I reads the whole file); default: on for LIBSVM and CSV files over 1 GiB")
	fs.IntVar(&f.cv, "cv", 0, "report K-fold cross-validated accuracy (RMSE for regression) of this configuration instead of writing a model (what the flags leave open is selected in each fold)")
	fs.BoolVar(&f.cvFixed, "cv-fixed", false, "with --cv: select once on all rows, then cross-validate the chosen configuration alone (one selection instead of K)")
	fs.BoolVar(&f.json, "json", false, "print one JSON object on stdout")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "pinned NSVM algorithms: write checkpoints to this `file` (every --checkpoint-every steps and on Ctrl-C)")
	fs.Var(cliflag.Count{Dst: &f.checkpointEvery, Name: "checkpoint-every"}, "checkpoint-every", "steps between checkpoints (default: T/20 when --checkpoint is set)")
	fs.StringVar(&f.resume, "resume", "", "pinned NSVM algorithms: continue the run saved in this checkpoint `file` (same data and flags)")
	fs.StringVar(&f.cont, "continue", "", "train on from this model `file` with the rows of --data (its columns and classes), as partial_fit: see nsvm.Continue")
	fs.Var(cliflag.Count{Dst: &f.svBudget, Name: "sv-budget"}, "sv-budget", "with --continue: the most support vectors a kernel model keeps (default: the model's last continuation's, else 1000)")
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
	if f.cvFixed && f.cv == 0 {
		return usagef("nsvm train: --cv-fixed goes with --cv K")
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
	if f.svBudget > 0 && f.cont == "" {
		return usagef("nsvm train: --sv-budget goes with --continue")
	}
	if f.cont != "" { // nsvm.Continue on the rows of --data, read with the model's columns
		m, ds, err := e.loadFor("train", f.cont, &f.dataFlags)
		if err != nil || f.cv > 0 || f.stream {
			return cmp.Or(err, usagef("nsvm train: --continue takes no --cv or --stream"))
		}
		return e.runFit(&f, cfg, func() (*nsvm.Model, *data.Dataset, error) {
			m, err := nsvm.Continue(e.ctx, m, ds, &nsvm.ContinueConfig{Budget: f.svBudget, Seed: cfg.Seed, Progress: cfg.Progress})
			return m, ds, err
		})
	}
	if f.c.Kernel == search.KernelPrecomputed && (f.cv > 0 || f.c.Algorithm != "" && f.c.Algorithm != "smo" || f.c.SVMType != "" && f.c.SVMType != search.SVMCSVC) {
		return usagef("nsvm train: --kernel precomputed trains LIBSVM's C-SVC, with --C or C chosen by validation (no --cv, --algo or other --svm-type)")
	}
	if f.cv > 0 {
		if f.stream {
			return usagef("nsvm train: --cv reads the whole data; it does not stream")
		}
		ds, err := f.dataFlags.load("train")
		if err == nil && f.weights != "" && ds.W == nil {
			ds.W, err = data.ReadWeights(f.weights, ds.N)
		}
		if err != nil {
			return err
		}
		e.notices("train", ds)
		return e.crossValidate(&f, cfg, ds)
	}
	opt, err := f.dataFlags.options("train")
	if err != nil {
		return err
	}
	fo := search.FileOptions{Open: opt, Weights: f.weights, NoStream: f.checkpoint != "" || f.resume != "",
		Notice: func(s string) { fmt.Fprintf(e.stderr, "nsvm train: %s\n", s) }}
	if f.set["stream"] {
		fo.Stream = map[bool]string{true: "on", false: "off"}[f.stream]
	}
	return e.runFit(&f, cfg, func() (*nsvm.Model, *data.Dataset, error) {
		r, err := search.FitFile(e.ctx, f.Path, fo, cfg)
		if r == nil {
			return nil, nil, data.FlagHint(err)
		}
		f.loadSeconds = r.LoadSeconds
		return r.Model, r.Rows, data.FlagHint(err)
	})
}

// runFit runs fit (FitFile or Continue on cfg) with what the command puts
// around it (train has checked its outputs): the --log file, the progress
// lines, checkpoints and --resume, the model file, and the report of the
// model's scores on the rows fit returns.
func (e *env) runFit(f *trainFlags, cfg *nsvm.FitConfig, fit func() (*nsvm.Model, *data.Dataset, error)) error {
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
	m, ds, err := fit()
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
				return fmt.Errorf("nsvm train: interrupted (%v)", errmsg.Strip(err))
			}
		}
		return trainError(f, err)
	}
	return e.reportTrained(f, rend, m, ds, secs)
}

// config checks what the flags say together and returns the library's
// configuration, which the flags set as they were parsed: the library
// checks it (Validate), the command checks its own flags.
func (f *trainFlags) config() (*nsvm.FitConfig, error) {
	c := &f.c
	switch {
	case (f.checkpoint != "" || f.resume != "" || f.set["checkpoint-every"]) && !strings.HasPrefix(string(c.Algorithm), "nsvm"):
		return nil, usagef("nsvm train: --checkpoint and --resume need a pinned NSVM algorithm (--algo nsvm1 … nsvm4)")
	case f.cv > 0 && (f.checkpoint != "" || f.resume != "" || f.log != ""):
		return nil, usagef("nsvm train: --cv writes no model; --checkpoint, --resume and --log do not apply")
	}
	check := *c
	if check.Kernel == search.KernelPrecomputed {
		check.Kernel = "" // trainPrecomputed's
	}
	if err := check.Validate(); err != nil {
		return nil, trainError(f, err)
	}
	return c, nil
}

// trainError words a library error for the command line: bad data names
// the file, a configuration that cannot work is a usage error (exit 2)
// naming the flag of the field it is about.
func trainError(f *trainFlags, err error) error {
	var ce *nsvm.ConfigError
	switch {
	case errors.As(err, &ce):
		return usageError{"nsvm train: " + ce.Text(search.FlagOf)}
	case errors.Is(err, nsvm.ErrBadData):
		return fmt.Errorf("nsvm train: %s: %s", f.Path, errmsg.Detail(err, nsvm.ErrBadData))
	}
	return err
}

// report.SummaryRows bounds the rows the training scores are measured on.
// reportTrained scores the model of a fit whose progress rend rendered,
// writes it (not when scoring fails) and prints the outcome.
func (e *env) reportTrained(f *trainFlags, rend *report.FitLines, m *nsvm.Model, ds *data.Dataset, secs float64) error {
	r, err := report.SummarizeFit(m, ds, secs, f.model)
	if err != nil {
		return fmt.Errorf("nsvm train: scoring the model on its training rows: %v (no model written)", err)
	}
	if err := m.Save(f.model); err != nil {
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
	cv := nsvm.CrossValidate
	switch {
	case f.cvFixed:
		cv = nsvm.CrossValidateSelected
	case !f.quiet && (cfg.Algorithm == "" || cfg.C == 0 || cfg.Gamma == 0 && cfg.Kernel != "linear" && cfg.Algorithm != "linear"):
		fmt.Fprintf(e.stderr, "nsvm train: --cv %d runs the selection of what the flags leave open in each fold (nested cross-validation: %d selections and fits); --cv-fixed runs it once on all rows and cross-validates the configuration it chooses\n", f.cv, f.cv)
	}
	r, err := cv(e.ctx, ds, cfg, f.cv)
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
	algo := string(f.c.Algorithm)
	if algo == "" {
		algo = "train"
	}
	r := &report.FitLines{W: e.stderr, Quiet: quiet}
	var done func()
	r.Bar, done = e.progressFor(algo, quiet)
	if lg != nil {
		r.Log = lg.callback(algo, f.c.Seed)
	}
	return r, done
}
