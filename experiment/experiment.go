// Package experiment runs the experiments of §5 of Simon and Radons (2023)
// as the paper describes them: Algorithms 1–4 on Ringnorm (6660/740 random
// splits of 7400 rows, standardised with the training statistics; the DELVE
// file or generated data) and on MNIST 0 vs 1 (the standard training set
// and its 2115 test images of the two digits), each with the paper's
// preset (package paper), over seeded runs; and beyond the paper, the
// multiclass NSVM on the ten MNIST digits. nsvm reproduce is its command
// line.
package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/internal/atomicfile"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
)

// The experiments.
const (
	Ringnorm = "ringnorm" // §5.1
	MNIST01  = "mnist01"  // §5.2
	MNIST10  = "mnist10"  // beyond the paper: all ten digits (RunMNIST10)
)

// PaperResult is what the paper reports for one algorithm.
type PaperResult struct {
	Steps    string
	Accuracy float64 // in [0, 1]; NaN if reported as errors only
	Errors   int     // −1 if not reported
}

// PaperResults are the paper's results by experiment and algorithm.
var PaperResults = map[string]map[int]PaperResult{
	Ringnorm: {
		1: {"80000", 0.981, -1}, 2: {"70000", 0.976, -1}, 3: {"4600", 0.970, -1}, 4: {"4200+33500", 0.982, -1},
	},
	MNIST01: {
		1: {"100000", math.NaN(), 2}, 2: {"100000", math.NaN(), 2}, 3: {"9500", 1, 0}, 4: {"400+35000", 1, 0},
	},
}

// CoordArch is the Arch that selects paper.RingnormCoordPreset, the
// per-coordinate network on Ringnorm.
const CoordArch = "coord"

// ErrConfig marks a Config that cannot run, by itself or on its data
// (wrapped; test with errors.Is).
var ErrConfig = errors.New("nsvm: bad experiment configuration")

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
}

// Config is one reproduction: the experiment, the algorithms and seeds, and
// what to change of the presets. Its zero value of each override keeps the
// preset's.
type Config struct {
	Task  string // Ringnorm or MNIST01
	Algos []int  // nil: 1, 2, 3, 4
	Seeds int    // seeded runs (0: 5)
	// Data is Ringnorm's file of 7400 rows (CSV or LIBSVM, read as nsvm
	// train reads it: a CSV file's label is its "label" or "class" … column,
	// else the last; "": generated) or MNIST's IDX directory ("":
	// $NSVM_MNIST_DIR, else ./mnist).
	Data string
	// Validate evaluates on a validation split held out of the training
	// set (Ringnorm: 200 rows; MNIST: 500 images) instead of the test set.
	Validate bool
	// StepsScale multiplies every step count (0: 1).
	StepsScale float64
	// Overrides of the presets (Steps after StepsScale; Steps2 unset keeps
	// Part II's scaled count).
	Steps                     int
	LR, Momentum, WeightDecay *float64
	Optimizer, Schedule       string
	Dropout                   *float64 // nil keeps the preset's rate; 0 removes the dropout layers
	Arch                      string   // a network spec, or CoordArch
	InputShape                []int    // the shape each row is seen as (with Arch)
	Solver2                   string   // Algorithm 4's Part II solver
	C2                        float64  // C of an SMO Part II (0: 1)
	Reg                       paper.RegConfig
	// Progress, if not nil, is asked for the progress function of each run
	// (named "TASK alg A seed S") and a function called when it ends.
	Progress func(run string, seed uint64) (paper.ProgressFunc, func())
}

// Result is one algorithm's row of a reproduction.
type Result struct {
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
	// NSV and TrainSecs are each seed's support vectors and training
	// seconds.
	NSV         []int     `json:"n_sv"`
	TrainSecs   []float64 `json:"train_seconds"`
	PaperAcc    *float64  `json:"paper_accuracy,omitempty"`
	PaperErrors *int      `json:"paper_errors,omitempty"`
}

func (c *Config) defaults() error {
	if _, ok := PaperResults[c.Task]; !ok {
		return configErr("unknown experiment %q (want %s or %s)", c.Task, Ringnorm, MNIST01)
	}
	if c.Algos == nil {
		c.Algos = []int{1, 2, 3, 4}
	}
	for _, a := range c.Algos {
		if a < 1 || a > 4 {
			return configErr("algorithm %d: want 1–4", a)
		}
	}
	if c.Seeds == 0 {
		c.Seeds = 5
	}
	if c.StepsScale == 0 {
		c.StepsScale = 1
	}
	switch {
	case c.Seeds < 1:
		return configErr("seeds must be ≥ 1, got %d", c.Seeds)
	case !(c.StepsScale > 0) || math.IsInf(c.StepsScale, 0):
		return configErr("the steps scale must be > 0, got %g", c.StepsScale)
	case c.Reg.Name != "" && (slices.Contains(c.Algos, 1) || slices.Contains(c.Algos, 2)):
		return configErr("a regulariser applies to algorithms 3 and 4")
	case c.InputShape != nil && c.Arch == "":
		return configErr("an input shape goes with an architecture")
	case c.Arch == CoordArch && c.Task != Ringnorm:
		return configErr("%s is a Ringnorm network", CoordArch)
	}
	if c.Arch != "" && c.Arch != CoordArch {
		if _, err := nn.ParseArch(c.Arch); err != nil {
			return configErr("arch: %v", err)
		}
	}
	return nil
}

// Run reproduces the experiment of cfg: every algorithm over every seeded
// split of sp (nil: Splits(cfg)). On an error it returns the results of the
// algorithms that had finished.
func Run(ctx context.Context, cfg Config, sp []Split) ([]Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	var err error
	if sp == nil {
		if sp, err = Splits(cfg); err != nil {
			return nil, err
		}
	}
	var out []Result
	for _, alg := range cfg.Algos {
		r, err := runAlg(ctx, cfg, alg, sp)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Split is one train/evaluation pair of a reproduction.
type Split struct {
	Train, Test *data.Dataset
}

// WriteSplits writes the runs' train/test pairs of cfg (Splits) as CSV
// files, label first, into dir/split<N>/train.csv and test.csv, for peers to
// train on the same rows.
func WriteSplits(ctx context.Context, dir string, cfg Config) error {
	sp, err := Splits(cfg)
	if err != nil {
		return err
	}
	for s, pair := range sp {
		sub := filepath.Join(dir, fmt.Sprintf("split%d", s+1))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return fmt.Errorf("nsvm: %w", err)
		}
		for name, ds := range map[string]*data.Dataset{"train.csv": pair.Train, "test.csv": pair.Test} {
			path := filepath.Join(sub, name)
			err := atomicfile.WriteContext(ctx, path, func(w io.Writer) error { return data.WriteCSV(w, ds, true) })
			if err != nil {
				return fmt.Errorf("nsvm: writing %s: %w", path, err)
			}
		}
	}
	return nil
}

// Splits returns the seeded train/test (or, with Validate,
// train/validation) pairs of cfg's experiment.
func Splits(cfg Config) ([]Split, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	var out []Split
	switch cfg.Task {
	case Ringnorm:
		var full *data.Dataset
		if cfg.Data != "" {
			ds, err := data.Open(cfg.Data, data.OpenOptions{}) // the label: a "label", "class", … column, else the last
			if err != nil {
				return nil, err
			}
			if err := ds.Validate(); err != nil {
				return nil, err
			}
			full = ds
		}
		for s := 1; s <= cfg.Seeds; s++ {
			rng := rand.New(rand.NewPCG(uint64(s), 0x5eed))
			ds := full
			if ds == nil {
				ds = datasets.Ringnorm(7400, rng)
			}
			if ds.N < 1000 {
				return nil, fmt.Errorf("nsvm: %s has %d rows; the protocol needs 7400 (6660 train, 740 test)", cfg.Data, ds.N)
			}
			nTest := ds.N / 10 // 740 of 7400
			train, test := data.Split(ds, nTest, rng)
			if cfg.Validate {
				train, test = data.StratifiedHoldout(train, 200, rng)
			}
			st := data.FitStandardizer(train)
			st.Apply(train)
			st.Apply(test)
			out = append(out, Split{train, test})
		}
	case MNIST01:
		train, test, err := LoadMNIST(cfg.Data, []int{0, 1})
		if err != nil {
			return nil, err
		}
		for s := 1; s <= cfg.Seeds; s++ {
			tr, te := train, test
			if cfg.Validate {
				rng := rand.New(rand.NewPCG(uint64(s), 0x5eed))
				tr, te = data.StratifiedHoldout(train, 500, rng)
			}
			out = append(out, Split{tr, te})
		}
	}
	return out, nil
}

// LoadMNIST reads MNIST's training and test sets (of the digits, nil: all)
// from the IDX files in dir ("": $NSVM_MNIST_DIR, else ./mnist).
func LoadMNIST(dir string, digits []int) (train, test *data.Dataset, err error) {
	if dir == "" {
		dir = os.Getenv("NSVM_MNIST_DIR")
	}
	if dir == "" {
		dir = "mnist"
	}
	load := func(prefix string) (*data.Dataset, error) {
		return data.LoadMNIST(filepath.Join(dir, prefix+"-images-idx3-ubyte"), filepath.Join(dir, prefix+"-labels-idx1-ubyte"), digits)
	}
	if train, err = load("train"); err != nil {
		return nil, nil, fmt.Errorf("%w (fetch the files with: nsvm data mnist --dir %s)", err, dir)
	}
	if test, err = load("t10k"); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// Preset returns the preset of algorithm alg for cfg's experiment with cfg's
// overrides applied, and validated.
func Preset(cfg Config, alg int) (paper.Preset, error) {
	if err := cfg.defaults(); err != nil {
		return paper.Preset{}, err
	}
	pr, err := paper.RingnormPreset(alg)
	switch {
	case cfg.Task == MNIST01:
		pr, err = paper.MNISTPreset(alg)
	case cfg.Arch == CoordArch:
		pr, err = paper.RingnormCoordPreset(alg)
	}
	if err != nil {
		return pr, err
	}
	c := pr.Config()
	scale := func(t int) int { return max(1, int(math.Round(float64(t)*cfg.StepsScale))) }
	c.T = scale(c.T)
	pr.Alg4.Part2.T = scale(pr.Alg4.Part2.T)
	if cfg.Steps > 0 {
		c.T = cfg.Steps
	}
	if cfg.LR != nil {
		c.Opt.LR = *cfg.LR // a rate ≤ 0 is refused by validate
	}
	c.Opt = c.Opt.With(0, cfg.Momentum, cfg.WeightDecay, cfg.Optimizer, cfg.Schedule)
	pr.Alg3.Reg, pr.Alg4.Reg = cfg.Reg, cfg.Reg
	if cfg.Arch != "" && cfg.Arch != CoordArch {
		pr.Arch = cfg.Arch
	}
	if cfg.Dropout != nil {
		if err := pr.SetDropout(*cfg.Dropout); err != nil {
			return pr, configErr("dropout: %v", errmsg.Strip(err))
		}
	}
	if cfg.Solver2 != "" {
		pr.Alg4.Part2.Solver = cfg.Solver2
		pr.Alg4.Part2.C, pr.Alg4.Part2.Eps, pr.Alg4.Part2.CacheMB = cfg.C2, 1e-3, 200
		if pr.Alg4.Part2.C == 0 {
			pr.Alg4.Part2.C = 1
		}
	}
	if err := validate(pr); err != nil {
		return pr, configErr("%v", errmsg.Strip(err))
	}
	return pr, nil
}

func validate(p paper.Preset) error {
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

// PresetConfig returns the part of a preset that its algorithm uses, for
// JSON reports (peers read their hyper-parameters from it).
func PresetConfig(p paper.Preset) any {
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

// runAlg runs algorithm alg over the splits.
func runAlg(ctx context.Context, cfg Config, alg int, sp []Split) (Result, error) {
	pr, err := Preset(cfg, alg)
	if err != nil {
		return Result{}, err
	}
	steps := strconv.Itoa(pr.Config().T)
	if alg == 4 {
		steps += "+" + strconv.Itoa(pr.Alg4.Part2.T)
	}
	// The network's input shape: InputShape when given, else the preset's
	// for vector rows (CoordArch), else the data's.
	d0 := sp[0].Train
	shape := d0.Shape
	if cfg.InputShape != nil {
		shape = cfg.InputShape
	} else if pr.InShape != nil && d0.Shape == nil {
		shape = pr.InShape
	}
	if shape == nil {
		shape = []int{d0.D}
	}
	if prod(shape) != d0.D {
		if cfg.InputShape != nil {
			return Result{}, configErr("the input shape %v has %d values, the data has %d per row", shape, prod(shape), d0.D)
		}
		return Result{}, fmt.Errorf("nsvm: the network's input shape %v does not fit %d values per row", shape, d0.D)
	}
	if _, err := nn.New(pr.Arch, shape, rand.New(rand.NewPCG(0, 0))); err != nil && cfg.Arch != "" {
		return Result{}, configErr("arch: %v", err)
	}
	if cfg.InputShape != nil || pr.InShape != nil {
		pr.InShape = shape
	}
	r := Result{Algo: alg, Steps: steps, Config: PresetConfig(pr)}
	if p, ok := PaperResults[cfg.Task][alg]; ok && !cfg.Validate {
		if !math.IsNaN(p.Accuracy) {
			v := p.Accuracy
			r.PaperAcc = &v
		}
		if p.Errors >= 0 {
			v := p.Errors
			r.PaperErrors = &v
		}
	}
	for s, pair := range sp {
		seed := uint64(s + 1)
		m, secs, err := trainOne(ctx, cfg, pr, alg, shape, pair.Train, seed)
		if err != nil {
			return r, err
		}
		ev, err := m.Evaluate(pair.Test)
		if err != nil {
			return r, err
		}
		r.Accuracies = append(r.Accuracies, ev.Accuracy)
		r.Errors = append(r.Errors, ev.Errors)
		r.NTest = ev.N
		r.NSVMean += float64(m.Head.NSV) / float64(len(sp))
		r.TrainSecMean += secs / float64(len(sp))
		r.NSV = append(r.NSV, m.Head.NSV)
		r.TrainSecs = append(r.TrainSecs, secs)
	}
	r.AccuracyMean, r.AccuracyStd = MeanStd(r.Accuracies)
	return r, nil
}

// trainOne trains one seeded run of algorithm alg on train and returns the
// model (labelled as train is) and the training time in seconds.
func trainOne(ctx context.Context, cfg Config, pr paper.Preset, alg int, shape []int, train *data.Dataset, seed uint64) (*model.Model, float64, error) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	y, lm, err := train.BinaryLabels()
	if err != nil {
		return nil, 0, err
	}
	net, err := nn.New(pr.Arch, shape, rng)
	if err != nil {
		return nil, 0, err
	}
	p := paper.Problem{X: train.X, N: train.N, D: train.D, Y: y}
	o := paper.Options{Seed: seed}
	done := func() {}
	if cfg.Progress != nil {
		o.Progress, done = cfg.Progress(fmt.Sprintf("%s alg %d seed %d", cfg.Task, alg, seed), seed)
	}
	start := time.Now()
	var m *model.Model
	switch alg {
	case 1:
		m, err = paper.TrainAlg1(ctx, net, p, pr.Alg1, o)
	case 2:
		m, err = paper.TrainAlg2(ctx, net, p, pr.Alg2, o)
	case 3:
		m, err = paper.TrainAlg3(ctx, net, p, pr.Alg3, o)
	case 4:
		m, err = paper.TrainAlg4(ctx, net, p, pr.Alg4, o)
	}
	done()
	if err != nil {
		return nil, 0, err
	}
	m.Head.Neg, m.Head.Pos = lm.Neg, lm.Pos
	return m, time.Since(start).Seconds(), nil
}

// MeanStd returns the mean and the sample standard deviation of v (0 for
// one value).
func MeanStd(v []float64) (float64, float64) {
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

func prod(v []int) int {
	p := 1
	for _, x := range v {
		p *= x
	}
	return p
}
