package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
)

// MNIST10Config is a run of the multiclass NSVM of paper.MNIST10Preset on
// the ten MNIST digits. Its zero values keep the preset's.
type MNIST10Config struct {
	Data       string  // the IDX directory (see LoadMNIST)
	Seeds      int     // 0: 1
	StepsScale float64 // multiplies both step counts (0: 1)
	// Steps and Steps2 override Part I's steps and Part II's steps per
	// head (before StepsScale); LR Part I's learning rate; Lambda2 Part
	// II's λ.
	Steps, Steps2 int
	LR, Lambda2   float64
	Arch          string // the network (default paper.MNIST10Arch)
	Scheme        string // model.OneVsRest (default) or model.OneVsOne
	Solver2       string // Part II: "pegasos" (default) or "smo"
	// Shift, if not nil, is the largest random shift in Part I (0: none).
	Shift *int
	// Validate evaluates on 500 training images per digit held out.
	Validate bool
	// Progress is as Config.Progress (runs named "mnist10 seed S").
	Progress func(run string, seed uint64) (paper.ProgressFunc, func())
}

// MNIST10Result is one seeded run.
type MNIST10Result struct {
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

// MNIST10Preset returns the network and the configuration of cfg's runs:
// paper.MNIST10Preset with cfg's overrides, validated.
func MNIST10Preset(cfg MNIST10Config) (string, paper.MulticlassConfig, error) {
	arch, c := paper.MNIST10Preset()
	scale := cfg.StepsScale
	if scale == 0 {
		scale = 1
	}
	if !(scale > 0) || math.IsInf(scale, 0) || cfg.Seeds < 0 || cfg.Steps < 0 || cfg.Steps2 < 0 || cfg.LR < 0 || cfg.Lambda2 < 0 {
		return "", c, configErr("the steps scale must be > 0 and the seeds, steps, learning rate and λ ≥ 0")
	}
	if cfg.Arch != "" {
		arch = cfg.Arch
	}
	if cfg.Steps > 0 {
		c.T = cfg.Steps
	}
	if cfg.Steps2 > 0 {
		c.Part2.T = cfg.Steps2
	}
	c.T = max(1, int(math.Round(float64(c.T)*scale)))
	c.Part2.T = max(1, int(math.Round(float64(c.Part2.T)*scale)))
	if cfg.LR > 0 {
		c.Opt.LR = cfg.LR
	}
	if cfg.Lambda2 > 0 {
		c.Part2.Lambda = cfg.Lambda2
	}
	if cfg.Shift != nil {
		c.Augment, c.AugmentName = nil, ""
		if *cfg.Shift > 0 {
			c.Augment, c.AugmentName = paper.RandomShift(1, 28, 28, *cfg.Shift, nil), fmt.Sprintf("shift(%d)", *cfg.Shift)
		}
	}
	if cfg.Scheme != "" {
		c.Scheme = cfg.Scheme
	}
	if cfg.Solver2 != "" {
		c.Part2.Solver = cfg.Solver2
	}
	if err := c.Validate(); err != nil {
		return arch, c, configErr("%v", errmsg.Strip(err))
	}
	return arch, c, nil
}

// RunMNIST10 trains and evaluates cfg's seeded runs. On an error it returns
// the runs that had finished.
func RunMNIST10(ctx context.Context, cfg MNIST10Config) ([]MNIST10Result, error) {
	arch, mc, err := MNIST10Preset(cfg)
	if err != nil {
		return nil, err
	}
	train, test, err := LoadMNIST(cfg.Data, nil)
	if err != nil {
		return nil, err
	}
	var out []MNIST10Result
	for s := 1; s <= max(1, cfg.Seeds); s++ {
		seed := uint64(s)
		tr, te := train, test
		if cfg.Validate {
			// 500 images per digit (fewer for small stand-in files).
			tr, te = data.StratifiedHoldout(train, min(500, max(1, train.N/120)), rand.New(rand.NewPCG(seed, 0x5eed)))
		}
		r, err := runMNIST10(ctx, cfg, tr, te, arch, mc, seed)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// runMNIST10 trains and evaluates one seeded run.
func runMNIST10(ctx context.Context, cfg MNIST10Config, train, test *data.Dataset, arch string, mc paper.MulticlassConfig, seed uint64) (MNIST10Result, error) {
	r := MNIST10Result{Seed: seed, NTest: test.N, TrainPoints: train.N}
	p := paper.ClassProblemOf(train)
	net, err := nn.New(arch, train.InputShape(), rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
	if err != nil {
		return r, err
	}
	var progress paper.ProgressFunc
	done := func() {}
	if cfg.Progress != nil {
		progress, done = cfg.Progress(fmt.Sprintf("mnist10 seed %d", seed), seed)
	}
	start := time.Now()
	var part1 time.Duration
	o := paper.Options{Seed: seed, Progress: func(pg paper.Progress) {
		if pg.Phase == "features" && part1 == 0 {
			part1 = time.Since(start)
		}
		if progress != nil {
			progress(pg)
		}
	}}
	m, err := paper.TrainMulticlass(ctx, net, p, mc, o)
	done()
	if err != nil {
		return r, err
	}
	r.TrainSec = time.Since(start).Seconds()
	r.Part1Sec = part1.Seconds()
	r.Part2Sec = r.TrainSec - r.Part1Sec
	ps := time.Now()
	ev, err := m.Evaluate(test)
	if err != nil {
		return r, err
	}
	r.PredictSec = time.Since(ps).Seconds()
	r.Accuracy, r.Errors, r.Confusion, r.NSV = ev.Accuracy, ev.Errors, ev.Confusion, m.NumSV()
	return r, nil
}
