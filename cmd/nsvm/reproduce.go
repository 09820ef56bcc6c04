package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
)

// paperResult is what the paper reports for one algorithm (§5).
type paperResult struct {
	steps    string
	accuracy float64 // percent; NaN if reported as errors only
	errors   int     // −1 if not reported
}

var paperResults = map[string]map[int]paperResult{
	"ringnorm": {
		1: {"80000", 98.1, -1}, 2: {"70000", 97.6, -1}, 3: {"4600", 97.0, -1}, 4: {"4200+33500", 98.2, -1},
	},
	"mnist01": {
		1: {"100000", math.NaN(), 2}, 2: {"100000", math.NaN(), 2}, 3: {"9500", 100, 0}, 4: {"400+35000", 100, 0},
	},
}

// reproResult is one row of the table (and of --json's "results").
type reproResult struct {
	Algo         int       `json:"algo"`
	Config       any       `json:"config"`
	Steps        string    `json:"steps"`
	AccuracyMean float64   `json:"accuracy_mean"`
	AccuracyStd  float64   `json:"accuracy_std"`
	Accuracies   []float64 `json:"accuracies"`
	Errors       []int     `json:"errors"`
	NTest        int       `json:"n_test"`
	NSVMean      float64   `json:"n_sv_mean"`
	TrainSecMean float64   `json:"train_seconds_mean"`
	PaperAcc     *float64  `json:"paper_accuracy,omitempty"`
	PaperErrors  *int      `json:"paper_errors,omitempty"`
}

type reproFlags struct {
	algos      string
	logPath    string
	log        *progressLog
	seeds      int
	stepsScale float64
	dataPath   string
	asJSON     bool
	quiet      bool
	validate   bool
	lr         float64
	steps      int
	dropout    float64
	momentum   float64
	wd         float64
	saveSplits string
	optimizer  string
	schedule   string
	arch       string
	inputShape string
	shape      []int // --input-shape, parsed
	solver2    string
	c2         float64
	reg        regFlags
	regCfg     nsvm.RegConfig
	set        map[string]bool
}

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
	if task == "mnist10" {
		return e.reproduceMNIST10(args[1:])
	}
	if _, ok := paperResults[task]; !ok {
		return usagef("nsvm reproduce: unknown experiment %q (want ringnorm, mnist01 or mnist10)", task)
	}
	var f reproFlags
	fs := e.newFlags("reproduce", "reproduce ringnorm|mnist01 [flags]")
	fs.StringVar(&f.algos, "algo", "all", "algorithms to run: a comma-separated subset of 1,2,3,4, or all")
	fs.IntVar(&f.seeds, "seeds", 5, "number of seeded runs (Ringnorm: random 6660/740 splits)")
	fs.StringVar(&f.logPath, "log", "", "write every progress report of every run as a JSON line to this `file` (for nsvm plot --log)")
	fs.Float64Var(&f.stepsScale, "steps-scale", 1, "multiply every step count by this factor (quick looks: 0.1)")
	fs.StringVar(&f.dataPath, "data", "", "Ringnorm: a CSV/LIBSVM file with 7400 rows (default: generated); MNIST: the IDX directory (default $NSVM_MNIST_DIR or ./mnist)")
	fs.BoolVar(&f.validate, "validate", false, "evaluate on the paper's validation split (held out from training) instead of the test set, for tuning")
	fs.Float64Var(&f.lr, "lr", 0, "override the learning rate of every algorithm run")
	fs.IntVar(&f.steps, "steps", 0, "override the step count T (Algorithm 4: of Part I; after --steps-scale)")
	fs.Float64Var(&f.dropout, "dropout", 0, "override the rate of the network's dropout layers; 0 removes them (default: the preset's; MNIST only, the Ringnorm networks have none)")
	fs.Float64Var(&f.momentum, "momentum", 0, "override the momentum")
	fs.Float64Var(&f.wd, "weight-decay", 0, "override the weight decay")
	fs.StringVar(&f.optimizer, "optimizer", "", "override the θ-optimizer: sgd or adam")
	fs.StringVar(&f.arch, "arch", "", "override the network of every algorithm run: a spec as for nsvm train --arch, or "+coordArch+" (Ringnorm: the per-coordinate network nn.RingnormCoordArch with its validated learning rates)")
	fs.StringVar(&f.inputShape, "input-shape", "", "the shape the network sees each row as, e.g. 1x20x1 for a per-coordinate network on Ringnorm (default: the data's)")
	fs.StringVar(&f.schedule, "schedule", "", "override the learning-rate schedule: constant or invt")
	fs.StringVar(&f.solver2, "solver2", "", "override Algorithm 4's Part II solver: pegasos or smo")
	fs.Float64Var(&f.c2, "C2", 1, "C of the SMO Part II solver (with --solver2 smo)")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object on stdout")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fs.StringVar(&f.saveSplits, "save-splits", "", "write each run's (standardized) train and test sets as CSV into this `directory` (split<N>/train.csv, test.csv), for peers")
	f.reg.register(fs)
	if err := e.parse(fs, args[1:]); err != nil {
		return err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	algos, err := parseAlgos(f.algos)
	if err != nil {
		return err
	}
	if f.regCfg, err = f.reg.config("reproduce", f.set); err != nil {
		return err
	}
	if f.regCfg.Name != "" && (slices.Contains(algos, 1) || slices.Contains(algos, 2)) {
		return usagef("nsvm reproduce: --reg applies to algorithms 3 and 4; pick them with --algo 3,4")
	}
	if f.seeds < 1 {
		return usagef("nsvm reproduce: --seeds must be ≥ 1, got %d", f.seeds)
	}
	if !(f.stepsScale > 0) || math.IsInf(f.stepsScale, 0) {
		return usagef("nsvm reproduce: --steps-scale must be > 0, got %g", f.stepsScale)
	}
	if f.inputShape != "" && f.arch == "" {
		return usagef("nsvm reproduce: --input-shape goes with --arch")
	}
	if f.arch == coordArch && task != "ringnorm" {
		return usagef("nsvm reproduce: --arch %s is a Ringnorm network", coordArch)
	}
	if f.arch != "" && f.arch != coordArch {
		if _, err := nn.ParseArch(f.arch); err != nil {
			return usagef("nsvm reproduce: --arch: %v", err)
		}
	}
	if f.inputShape != "" {
		if f.shape, err = parseShape(f.inputShape); err != nil {
			return err
		}
	}
	if f.saveSplits != "" {
		if err := e.writeSplits(task, &f); err != nil {
			return err
		}
	}
	if f.logPath != "" {
		if f.log, err = openLog(f.logPath); err != nil {
			return err
		}
	}
	var results []reproResult
	for _, alg := range algos {
		r, err := e.reproduceOne(task, alg, &f)
		if err == nil {
			results = append(results, r)
			continue
		}
		f.log.close(err)
		if e.ctx.Err() != nil {
			msg := strings.TrimSuffix(strings.TrimPrefix(err.Error(), "nsvm: "), ": context canceled")
			return fmt.Errorf("nsvm reproduce: interrupted (%s); %d of %d algorithms had finished", msg, len(results), len(algos))
		}
		return err
	}
	if err := f.log.close(nil); err != nil {
		return err
	}
	if f.asJSON {
		return json.NewEncoder(e.stdout).Encode(map[string]any{"task": task, "validation": f.validate, "results": results})
	}
	printTable(e, task, f.validate, results)
	return nil
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

// split is one train/evaluation pair of a reproduction run.
type split struct {
	train, test *data.Dataset
}

// splits prepares the seeded train/test (or train/validation) pairs.
func (e *env) splits(task string, f *reproFlags) ([]split, error) {
	var out []split
	switch task {
	case "ringnorm":
		var full *data.Dataset
		if f.dataPath != "" {
			ds, err := data.Open(f.dataPath, data.OpenOptions{CSV: data.CSVOptions{LabelCol: -1, Header: data.HeaderAuto}})
			if err != nil {
				return nil, err
			}
			if err := ds.Validate(); err != nil {
				return nil, err
			}
			full = ds
		}
		for s := 1; s <= f.seeds; s++ {
			rng := rand.New(rand.NewPCG(uint64(s), 0x5eed))
			ds := full
			if ds == nil {
				ds = data.Ringnorm(7400, rng)
			}
			if ds.N < 1000 {
				return nil, fmt.Errorf("nsvm reproduce: %s has %d rows; the protocol needs 7400 (6660 train, 740 test)", f.dataPath, ds.N)
			}
			nTest := ds.N / 10 // 740 of 7400
			train, test := data.Split(ds, nTest, rng)
			if f.validate {
				train, test = data.StratifiedHoldout(train, 200, rng)
			}
			st := data.FitStandardizer(train)
			st.Apply(train)
			st.Apply(test)
			out = append(out, split{train, test})
		}
	case "mnist01":
		dir := f.dataPath
		if dir == "" {
			dir = os.Getenv("NSVM_MNIST_DIR")
		}
		if dir == "" {
			dir = "mnist"
		}
		load := func(prefix string) (*data.Dataset, error) {
			return data.LoadMNIST(filepath.Join(dir, prefix+"-images-idx3-ubyte"), filepath.Join(dir, prefix+"-labels-idx1-ubyte"), []int{0, 1})
		}
		train, err := load("train")
		if err != nil {
			return nil, fmt.Errorf("%w (fetch the files with: nsvm data mnist --dir %s)", err, dir)
		}
		test, err := load("t10k")
		if err != nil {
			return nil, err
		}
		for s := 1; s <= f.seeds; s++ {
			tr, te := train, test
			if f.validate {
				rng := rand.New(rand.NewPCG(uint64(s), 0x5eed))
				tr, te = data.StratifiedHoldout(train, 500, rng)
			}
			out = append(out, split{tr, te})
		}
	}
	return out, nil
}

// coordArch is the --arch name of paper.RingnormCoordPreset.
const coordArch = "coord"

func (e *env) reproduceOne(task string, alg int, f *reproFlags) (reproResult, error) {
	pr, err := nsvm.RingnormPreset(alg)
	switch {
	case task == "mnist01":
		pr, err = paper.MNISTPreset(alg)
	case f.arch == coordArch:
		pr, err = paper.RingnormCoordPreset(alg)
	}
	if err != nil {
		return reproResult{}, err
	}
	c := pr.Config()
	scale := func(t int) int { return max(1, int(math.Round(float64(t)*f.stepsScale))) }
	c.T = scale(c.T)
	pr.Alg4.Part2.T = scale(pr.Alg4.Part2.T)
	if f.set["steps"] {
		c.T = f.steps
	}
	if f.set["lr"] {
		c.Opt.LR = f.lr
	}
	if f.set["momentum"] {
		c.Opt.Momentum = f.momentum
	}
	if f.set["weight-decay"] {
		c.Opt.WeightDecay = f.wd
	}
	if f.set["optimizer"] {
		c.Opt.Name = f.optimizer
	}
	if f.set["schedule"] {
		c.Opt.Schedule = f.schedule
	}
	pr.Alg3.Reg, pr.Alg4.Reg = f.regCfg, f.regCfg
	if f.arch != "" && f.arch != coordArch {
		pr.Arch = f.arch
	}
	if f.set["dropout"] {
		if err := pr.SetDropout(f.dropout); err != nil {
			return reproResult{}, usagef("nsvm reproduce: --dropout: %v", strings.TrimPrefix(err.Error(), "nsvm: "))
		}
	}
	if f.set["solver2"] {
		pr.Alg4.Part2.Solver = f.solver2
		pr.Alg4.Part2.C, pr.Alg4.Part2.Eps, pr.Alg4.Part2.CacheMB = f.c2, 1e-3, 200
	}
	if err := presetValidate(pr); err != nil {
		return reproResult{}, usageError{err.Error()}
	}
	steps := strconv.Itoa(c.T)
	if alg == 4 {
		steps += "+" + strconv.Itoa(pr.Alg4.Part2.T)
	}
	sp, err := e.splits(task, f)
	if err != nil {
		return reproResult{}, err
	}
	// The network's input shape: --input-shape when given, else the
	// preset's for vector rows (--arch coord), else the data's.
	d0 := sp[0].train
	shape := d0.Shape
	if f.shape != nil {
		shape = f.shape
	} else if pr.InShape != nil && d0.Shape == nil {
		shape = pr.InShape
	}
	if shape == nil {
		shape = []int{d0.D}
	}
	if prod(shape) != d0.D {
		if f.inputShape != "" {
			return reproResult{}, usagef("nsvm reproduce: --input-shape %s has %d values, the data has %d per row", f.inputShape, prod(shape), d0.D)
		}
		return reproResult{}, fmt.Errorf("nsvm reproduce: the network's input shape %v does not fit %d values per row", shape, d0.D)
	}
	if f.inputShape != "" || pr.InShape != nil {
		pr.InShape = shape
	}
	r := reproResult{Algo: alg, Steps: steps, Config: presetConfig(pr)}
	if p, ok := paperResults[task][alg]; ok && !f.validate {
		if !math.IsNaN(p.accuracy) {
			v := p.accuracy / 100
			r.PaperAcc = &v
		}
		if p.errors >= 0 {
			v := p.errors
			r.PaperErrors = &v
		}
	}
	for s, pair := range sp {
		seed := uint64(s + 1)
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		y, _, err := pair.train.BinaryLabels()
		if err != nil {
			return r, err
		}
		net, err := nn.New(pr.Arch, shape, rng)
		if err != nil {
			if f.arch != "" {
				return r, usagef("nsvm reproduce: --arch: %v", err)
			}
			return r, err
		}
		p := nsvm.Problem{X: pair.train.X, N: pair.train.N, D: pair.train.D, Y: y}
		run := fmt.Sprintf("%s alg %d seed %d", task, alg, seed)
		progress, done := e.progressFor(run, f.asJSON || f.quiet)
		if f.log != nil {
			progress = tee(progress, f.log.callback(run, seed))
		}
		start := time.Now()
		var m *nsvm.Model
		o := nsvm.Options{Seed: seed, Progress: progress}
		switch alg {
		case 1:
			m, err = nsvm.TrainAlg1(e.ctx, net, p, pr.Alg1, o)
		case 2:
			m, err = nsvm.TrainAlg2(e.ctx, net, p, pr.Alg2, o)
		case 3:
			m, err = nsvm.TrainAlg3(e.ctx, net, p, pr.Alg3, o)
		case 4:
			m, err = nsvm.TrainAlg4(e.ctx, net, p, pr.Alg4, o)
		}
		done()
		if err != nil {
			return r, err
		}
		secs := time.Since(start).Seconds()
		_, lm, _ := pair.train.BinaryLabels()
		m.Head.Neg, m.Head.Pos = lm.Neg, lm.Pos
		ev, err := evaluate(m, pair.test)
		if err != nil {
			return r, err
		}
		r.Accuracies = append(r.Accuracies, ev.Accuracy)
		r.Errors = append(r.Errors, ev.Errors)
		r.NTest = ev.N
		r.NSVMean += float64(m.Head.NSV) / float64(len(sp))
		r.TrainSecMean += secs / float64(len(sp))
	}
	r.AccuracyMean, r.AccuracyStd = meanStd(r.Accuracies)
	return r, nil
}

func meanStd(v []float64) (float64, float64) {
	var s float64
	for _, x := range v {
		s += x
	}
	mean := s / float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

func printTable(e *env, task string, validation bool, rs []reproResult) {
	what := "test"
	if validation {
		what = "validation"
	}
	fmt.Fprintf(e.stdout, "%s (%s set, %d run(s) each)\n", task, what, len(rs[0].Accuracies))
	fmt.Fprintf(e.stdout, "%-4s %-12s %-18s %-16s %8s %9s  %s\n", "alg", "steps", "accuracy %", "errors", "#SV", "train s", "paper")
	for _, r := range rs {
		errs := make([]string, len(r.Errors))
		for i, v := range r.Errors {
			errs[i] = strconv.Itoa(v)
		}
		paper := ""
		if r.PaperAcc != nil {
			paper = fmt.Sprintf("%.1f %%", 100**r.PaperAcc)
		}
		if r.PaperErrors != nil {
			if paper != "" {
				paper += ", "
			}
			paper += fmt.Sprintf("%d errors", *r.PaperErrors)
		}
		fmt.Fprintf(e.stdout, "%-4d %-12s %6.2f ± %-9.2f %-16s %8.0f %9.1f  %s\n", r.Algo, r.Steps,
			100*r.AccuracyMean, 100*r.AccuracyStd, strings.Join(errs, ",")+fmt.Sprintf(" /%d", r.NTest), r.NSVMean, r.TrainSecMean, paper)
	}
}

// presetConfig returns the part of a preset that an algorithm uses, for
// --json (peers read their hyperparameters from it).
func presetConfig(p nsvm.Preset) any {
	cfg := map[string]any{"arch": p.Arch, "dropout": p.Dropout}
	if p.InShape != nil {
		cfg["input_shape"] = p.InShape
	}
	switch p.Alg {
	case 1:
		cfg["trainer"] = p.Alg1
	case 2:
		cfg["trainer"] = p.Alg2
	case 3:
		cfg["trainer"] = p.Alg3
	default:
		cfg["trainer"] = p.Alg4
	}
	return cfg
}

// writeSplits writes the runs' train/test pairs as CSV files (label first).
func (e *env) writeSplits(task string, f *reproFlags) error {
	sp, err := e.splits(task, f)
	if err != nil {
		return err
	}
	for s, pair := range sp {
		dir := filepath.Join(f.saveSplits, fmt.Sprintf("split%d", s+1))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("nsvm reproduce: %w", err)
		}
		for name, ds := range map[string]*data.Dataset{"train.csv": pair.train, "test.csv": pair.test} {
			err := writeAtomic(filepath.Join(dir, name), func(w io.Writer) error { return data.WriteCSV(w, ds, true) })
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func presetValidate(p nsvm.Preset) error {
	switch p.Alg {
	case 1:
		return p.Alg1.Validate()
	case 2:
		return p.Alg2.Validate()
	case 3:
		return p.Alg3.Validate()
	default:
		return p.Alg4.Validate()
	}
}
