package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
)

// printConfusion prints the confusion matrix of r (rows: true class,
// columns: predicted), one column per class.
func printConfusion(w io.Writer, r evalResult) {
	fmt.Fprintln(w, "confusion (rows: true, columns: predicted)")
	name := func(i int) string {
		if r.Names != nil {
			return r.Names[i]
		}
		return strconv.FormatFloat(r.Labels[i], 'g', -1, 64)
	}
	wd := 10 // column width
	for i := range r.Labels {
		wd = max(wd, utf8.RuneCountInString(name(i)))
	}
	fmt.Fprintf(w, "%*s", wd+2, "")
	for i := range r.Labels {
		fmt.Fprintf(w, " %*s", wd, name(i))
	}
	fmt.Fprintln(w)
	for i, row := range r.Confusion {
		fmt.Fprintf(w, "%*s", wd+2, name(i))
		for _, v := range row {
			fmt.Fprintf(w, " %*d", wd, v)
		}
		fmt.Fprintln(w)
	}
}

// mnist10Result is what "nsvm reproduce mnist10 --json" prints per run.
type mnist10Result struct {
	Seed        uint64  `json:"seed"`
	Accuracy    float64 `json:"accuracy"`
	Errors      int     `json:"errors"`
	NTest       int     `json:"n_test"`
	NSV         int     `json:"n_sv"`
	Part1Sec    float64 `json:"part1_seconds"`
	Part2Sec    float64 `json:"part2_seconds"`
	TrainSec    float64 `json:"train_seconds"`
	Confusion   [][]int `json:"confusion"`
	PredictSec  float64 `json:"predict_seconds"`
	TrainPoints int     `json:"n_train"`
}

// reproduceMNIST10 trains the multiclass NSVM of paper.MNIST10Preset on the
// ten MNIST digits (60000 training, 10000 test images) and reports test
// accuracy and time.
func (e *env) reproduceMNIST10(args []string) error {
	var (
		dir, logPath, arch, scheme, solver2 string
		scale, lr, lambda2                  float64
		seeds, steps, steps2, shift         int
		asJSON, quiet, validate             bool
	)
	fs := e.newFlags("reproduce", "reproduce mnist10 [flags]")
	fs.StringVar(&dir, "data", "", "MNIST IDX `directory` (default $NSVM_MNIST_DIR or ./mnist)")
	fs.Float64Var(&scale, "steps-scale", 1, "multiply both step counts by this factor (quick looks: 0.1)")
	fs.IntVar(&seeds, "seeds", 1, "number of seeded runs")
	fs.IntVar(&steps, "steps", 0, "Part I steps (default: the preset's 12000)")
	fs.IntVar(&steps2, "steps2", 0, "Part II Pegasos steps per head (default: the preset's 1000000)")
	fs.StringVar(&arch, "arch", "", "network architecture (default: "+paper.MNIST10Arch+")")
	fs.StringVar(&scheme, "multiclass", "ovr", "heads: one-vs-rest (ovr) or one-vs-one (ovo)")
	fs.StringVar(&solver2, "solver2", "pegasos", "Part II solver: pegasos or smo")
	fs.Float64Var(&lr, "lr", 0, "Part I learning rate (default: the preset's)")
	fs.Float64Var(&lambda2, "lambda2", 0, "Part II Pegasos λ (default: the preset's 1e-5)")
	fs.IntVar(&shift, "shift", -1, "random shifts of up to this many pixels in Part I (default: the preset's 1; 0: none)")
	fs.BoolVar(&validate, "validate", false, "evaluate on 5000 training images held out (500 per digit) instead of the test set")
	fs.StringVar(&logPath, "log", "", "write every progress report as a JSON line to this `file`")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object on stdout")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return usagef("nsvm reproduce: --steps-scale must be > 0, got %g", scale)
	}
	if seeds < 1 || steps < 0 || steps2 < 0 || lr < 0 || lambda2 < 0 {
		return usagef("nsvm reproduce: --seeds must be ≥ 1 and --steps, --steps2, --lr, --lambda2 ≥ 0")
	}
	arch0, cfg := paper.MNIST10Preset()
	if arch != "" {
		arch0 = arch
	}
	if steps > 0 {
		cfg.T = steps
	}
	if steps2 > 0 {
		cfg.Part2.T = steps2
	}
	cfg.T = max(1, int(math.Round(float64(cfg.T)*scale)))
	cfg.Part2.T = max(1, int(math.Round(float64(cfg.Part2.T)*scale)))
	if lr > 0 {
		cfg.Opt.LR = lr
	}
	if lambda2 > 0 {
		cfg.Part2.Lambda = lambda2
	}
	if shift >= 0 {
		cfg.Augment, cfg.AugmentName = nil, ""
		if shift > 0 {
			cfg.Augment, cfg.AugmentName = paper.RandomShift(1, 28, 28, shift), fmt.Sprintf("shift(%d)", shift)
		}
	}
	cfg.Scheme, cfg.Part2.Solver = scheme, solver2
	if err := cfg.Validate(); err != nil {
		return usageError{err.Error()}
	}
	if dir == "" {
		dir = os.Getenv("NSVM_MNIST_DIR")
	}
	if dir == "" {
		dir = "mnist"
	}
	load := func(prefix string) (*data.Dataset, error) {
		return data.LoadMNIST(filepath.Join(dir, prefix+"-images-idx3-ubyte"), filepath.Join(dir, prefix+"-labels-idx1-ubyte"), nil)
	}
	train, err := load("train")
	if err != nil {
		return fmt.Errorf("%w (fetch the files with: nsvm data mnist --dir %s)", err, dir)
	}
	test, err := load("t10k")
	if err != nil {
		return err
	}
	var lg *progressLog
	if logPath != "" {
		if lg, err = openLog(logPath); err != nil {
			return err
		}
	}
	var results []mnist10Result
	for s := 1; s <= seeds; s++ {
		seed := uint64(s)
		tr, te := train, test
		if validate {
			// 500 images per digit (fewer for small stand-in files).
			tr, te = data.StratifiedHoldout(train, min(500, max(1, train.N/120)), rand.New(rand.NewPCG(seed, 0x5eed)))
		}
		r, err := e.runMNIST10(tr, te, arch0, cfg, seed, quiet || asJSON, lg)
		if err != nil {
			lg.close(err)
			if e.ctx.Err() != nil {
				return fmt.Errorf("nsvm reproduce: interrupted (%s)", strings.TrimPrefix(err.Error(), "nsvm: "))
			}
			return err
		}
		results = append(results, r)
	}
	if err := lg.close(nil); err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(map[string]any{"task": "mnist10", "validation": validate, "arch": arch0,
			"config": cfg, "augment": cfg.AugmentName, "results": results})
	}
	what := "test"
	if validate {
		what = "validation"
	}
	fmt.Fprintf(e.stdout, "mnist10 (%s set, %d run(s)): %s, %s heads, Part I %d steps, Part II %s %d steps per head\n",
		what, len(results), arch0, cfg.Scheme, cfg.T, cfg.Part2.Solver, cfg.Part2.T)
	fmt.Fprintf(e.stdout, "%-5s %-11s %-12s %8s %9s %9s %9s\n", "seed", "accuracy %", "errors", "#SV", "part I s", "part II s", "train s")
	for _, r := range results {
		fmt.Fprintf(e.stdout, "%-5d %-11.2f %-12s %8d %9.1f %9.1f %9.1f\n", r.Seed, 100*r.Accuracy,
			fmt.Sprintf("%d/%d", r.Errors, r.NTest), r.NSV, r.Part1Sec, r.Part2Sec, r.TrainSec)
	}
	fmt.Fprintln(e.stdout, "references: LeNet-5 99.05 %, RBF-SVM on pixels (one-vs-one) 98.58 %")
	return nil
}

// runMNIST10 trains and evaluates one seeded run.
func (e *env) runMNIST10(train, test *data.Dataset, arch string, cfg paper.MulticlassConfig, seed uint64, quiet bool, lg *progressLog) (mnist10Result, error) {
	r := mnist10Result{Seed: seed, NTest: test.N, TrainPoints: train.N}
	p := paper.ClassProblemOf(train)
	net, err := nn.New(arch, train.InputShape(), rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
	if err != nil {
		return r, usageError{err.Error()}
	}
	run := fmt.Sprintf("mnist10 seed %d", seed)
	progress, done := e.progressFor(run, quiet)
	if lg != nil {
		progress = tee(progress, lg.callback(run, seed))
	}
	start := time.Now()
	var part1 time.Duration
	o := nsvm.Options{Seed: seed, Progress: func(pg nsvm.Progress) {
		if pg.Phase == "features" && part1 == 0 {
			part1 = time.Since(start)
		}
		if progress != nil {
			progress(pg)
		}
	}}
	m, err := paper.TrainMulticlass(e.ctx, net, p, cfg, o)
	done()
	if err != nil {
		return r, err
	}
	r.TrainSec = time.Since(start).Seconds()
	r.Part1Sec = part1.Seconds()
	r.Part2Sec = r.TrainSec - r.Part1Sec
	ps := time.Now()
	ev, err := evaluate(m, test)
	if err != nil {
		return r, err
	}
	r.PredictSec = time.Since(ps).Seconds()
	r.Accuracy, r.Errors, r.Confusion, r.NSV = ev.Accuracy, ev.Errors, ev.Confusion, m.NumSV()
	return r, nil
}
