package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/experiment"
	"github.com/nsvm-go/nsvm/internal/cliflag"
	"github.com/nsvm-go/nsvm/internal/trainflags"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/report"
)

// reproduce is "nsvm reproduce": the paper's experiments (package
// experiment).
func (e *env) reproduce(args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(e.stdout, "Usage: nsvm reproduce ringnorm|mnist01 [--algo 1,2,3,4|all] [--seeds N] [--steps-scale F] [--data PATH] [--arch coord|SPEC [--input-shape S]] [--dropout RATE] [--validate] [--json]")
			fmt.Fprintln(e.stdout, "       nsvm reproduce mnist10 [--steps-scale F] [--data DIR] [--validate] [--json] (see nsvm reproduce mnist10 -h)")
			return nil
		}
		return usagef("nsvm reproduce: say which experiment: ringnorm, mnist01 or mnist10")
	}
	task := args[0]
	if task == experiment.MNIST10 {
		return e.reproduceMNIST10(args[1:])
	}
	if _, ok := experiment.PaperResults[task]; !ok {
		return usagef("nsvm reproduce: unknown experiment %q (want ringnorm, mnist01 or mnist10)", task)
	}
	var (
		c                          = experiment.Config{Task: task}
		algos, logPath, saveSplits string
		lr, dropout, momentum, wd  float64
		asJSON, quiet              bool
		reg                        trainflags.Reg
	)
	fs := e.newFlags("reproduce", "reproduce ringnorm|mnist01 [flags]")
	fs.StringVar(&algos, "algo", "all", "algorithms to run: a comma-separated subset of 1,2,3,4, or all")
	fs.IntVar(&c.Seeds, "seeds", 5, "number of seeded runs (Ringnorm: random 6660/740 splits)")
	fs.StringVar(&logPath, "log", "", "write every progress report of every run as a JSON line to this `file` (for nsvm plot --log)")
	fs.Float64Var(&c.StepsScale, "steps-scale", 1, "multiply every step count by this factor (quick looks: 0.1)")
	fs.StringVar(&c.Data, "data", "", "Ringnorm: a CSV/LIBSVM file with 7400 rows (default: generated); MNIST: the IDX directory (default $NSVM_MNIST_DIR or ./mnist)")
	fs.BoolVar(&c.Validate, "validate", false, "evaluate on the paper's validation split (held out from training) instead of the test set, for tuning")
	fs.Float64Var(&lr, "lr", 0, "override the learning rate of every algorithm run")
	fs.IntVar(&c.Steps, "steps", 0, "override the step count T (Algorithm 4: of Part I; after --steps-scale)")
	fs.Float64Var(&dropout, "dropout", 0, "override the rate of the network's dropout layers; 0 removes them (default: the preset's; MNIST only, the Ringnorm networks have none)")
	fs.Float64Var(&momentum, "momentum", 0, "override the momentum")
	fs.Float64Var(&wd, "weight-decay", 0, "override the weight decay")
	fs.StringVar(&c.Optimizer, "optimizer", "", "override the θ-optimizer: sgd or adam")
	fs.StringVar(&c.Arch, "arch", "", "override the network of every algorithm run: a spec as for nsvm train --arch, or "+experiment.CoordArch+" (Ringnorm: the per-coordinate network nn.RingnormCoordArch with its validated learning rates)")
	fs.Var(cliflag.Shape{Dst: &c.InputShape}, "input-shape", "the shape the network sees each row as, e.g. 1x20x1 for a per-coordinate network on Ringnorm (default: the data's)")
	fs.StringVar(&c.Schedule, "schedule", "", "override the learning-rate schedule: constant or invt")
	fs.StringVar(&c.Solver2, "solver2", "", "override Algorithm 4's Part II solver: pegasos or smo")
	fs.Float64Var(&c.C2, "C2", 1, "C of the SMO Part II solver (with --solver2 smo)")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object on stdout")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	fs.StringVar(&saveSplits, "save-splits", "", "write each run's (standardized) train and test sets as CSV into this `directory` (split<N>/train.csv, test.csv), for peers")
	reg.Register(fs)
	if err := e.parse(fs, args[1:]); err != nil {
		return err
	}
	set := cliflag.Given(fs)
	var err error
	if c.Algos, err = parseAlgos(algos); err != nil {
		return err
	}
	if c.Reg, err = reg.Config(set); err != nil {
		return usagef("nsvm reproduce: %s", trainflags.Message(err))
	}
	for name, p := range map[string]**float64{"lr": &c.LR, "dropout": &c.Dropout, "momentum": &c.Momentum, "weight-decay": &c.WeightDecay} {
		if set[name] {
			v := map[string]float64{"lr": lr, "dropout": dropout, "momentum": momentum, "weight-decay": wd}[name]
			*p = &v
		}
	}
	switch {
	case c.Reg.Name != "" && (slices.Contains(c.Algos, 1) || slices.Contains(c.Algos, 2)):
		return usagef("nsvm reproduce: --reg applies to algorithms 3 and 4; pick them with --algo 3,4")
	case c.Seeds < 1:
		return usagef("nsvm reproduce: --seeds must be ≥ 1, got %d", c.Seeds)
	case !(c.StepsScale > 0) || math.IsInf(c.StepsScale, 0):
		return usagef("nsvm reproduce: --steps-scale must be > 0, got %g", c.StepsScale)
	case set["steps"] && c.Steps < 1:
		return usagef("nsvm reproduce: --steps must be ≥ 1, got %d", c.Steps)
	case c.InputShape != nil && c.Arch == "":
		return usagef("nsvm reproduce: --input-shape goes with --arch")
	case c.Arch == experiment.CoordArch && task != experiment.Ringnorm:
		return usagef("nsvm reproduce: --arch %s is a Ringnorm network", experiment.CoordArch)
	}
	if c.Arch != "" && c.Arch != experiment.CoordArch {
		if _, err := nn.ParseArch(c.Arch); err != nil {
			return usagef("nsvm reproduce: --arch: %v", err)
		}
	}
	for _, alg := range c.Algos {
		if _, err := experiment.Preset(c, alg); err != nil {
			return reproduceErr(err)
		}
	}
	if saveSplits != "" {
		if err := writeSplits(e.ctx, saveSplits, c); err != nil {
			return err
		}
	}
	var lg *progressLog
	if logPath != "" {
		if lg, err = openLog(logPath); err != nil {
			return err
		}
	}
	c.Progress = e.runProgress(quiet || asJSON, lg)
	results, err := experiment.Run(e.ctx, c, nil)
	if err != nil {
		lg.close(err)
		if errors.Is(err, experiment.ErrConfig) {
			return reproduceErr(err)
		}
		if e.ctx.Err() != nil {
			msg := strings.TrimSuffix(strings.TrimPrefix(err.Error(), "nsvm: "), ": context canceled")
			return fmt.Errorf("nsvm reproduce: interrupted (%s); %d of %d algorithms had finished", msg, len(results), len(c.Algos))
		}
		return err
	}
	if err := lg.close(nil); err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(map[string]any{"task": task, "validation": c.Validate, "results": results})
	}
	report.Reproduction(e.stdout, task, c.Validate, results)
	return nil
}

// reproduceErr is the usage error of a configuration the experiment
// refuses.
func reproduceErr(err error) error {
	return usagef("nsvm reproduce: %s", strings.TrimPrefix(err.Error(), experiment.ErrConfig.Error()+": "))
}

// runProgress returns the progress of each run of an experiment: a bar on a
// terminal (unless quiet) and the log's records (if lg is not nil).
func (e *env) runProgress(quiet bool, lg *progressLog) func(string, uint64) (paper.ProgressFunc, func()) {
	return func(run string, seed uint64) (paper.ProgressFunc, func()) {
		progress, done := e.progressFor(run, quiet)
		if lg != nil {
			progress = report.Tee(progress, lg.callback(run, seed))
		}
		return progress, done
	}
}

func parseAlgos(s string) ([]int, error) {
	if s == "all" {
		return []int{1, 2, 3, 4}, nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 || v > 4 {
			return nil, usagef("nsvm reproduce: --algo wants numbers 1–4 separated by commas, or all; got %q", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// writeSplits writes the runs' train/test pairs as CSV files (label first)
// into dir/split<N>/.
func writeSplits(ctx context.Context, dir string, c experiment.Config) error {
	sp, err := experiment.Splits(c)
	if err != nil {
		return err
	}
	for s, pair := range sp {
		sub := filepath.Join(dir, fmt.Sprintf("split%d", s+1))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return fmt.Errorf("nsvm reproduce: %w", err)
		}
		for name, ds := range map[string]*data.Dataset{"train.csv": pair.Train, "test.csv": pair.Test} {
			err := writeAtomicContext(ctx, filepath.Join(sub, name), func(w io.Writer) error { return data.WriteCSV(w, ds, true) })
			if err != nil {
				return err
			}
		}
	}
	return nil
}
