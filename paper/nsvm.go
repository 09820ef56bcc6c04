package paper

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// newOptimizer builds the θ-optimizer for net's parameters.
// newOptimizer returns the optimizer of o over the network's parameters
// and extra ones (a temporary head trained with it).
func newOptimizer(net *nn.Net, o OptConfig, extra ...*nn.Param) Optimizer {
	ps := append(slices.Clip(net.Params()), extra...)
	if o.Name == "adam" {
		return nn.NewAdam(ps, o.LR, 0.9, 0.999, 1e-8, o.WeightDecay)
	}
	return nn.NewSGD(ps, o.LR, o.Momentum, o.WeightDecay, false)
}

// validator is a configuration or a training set that checks itself.
type validator interface{ Validate() error }

// checkRun reports whether a trainer can run: the configuration cfg and the
// training set p are valid, there is a network, and it takes the d values
// of a point. what names the trainer in the errors ("algorithm 3",
// "multiclass").
func checkRun(what string, net *nn.Net, cfg, p validator, d int) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if net == nil {
		return errf("%s: no network", what)
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if d != net.InSize() {
		return errf("the data has %d values per point, the network expects %d", d, net.InSize())
	}
	return nil
}

// checkInputs is checkRun for the binary Algorithm alg on p; Algorithms 1
// and 2 also refuse batch normalisation.
func checkInputs(alg int, net *nn.Net, cfg validator, p Problem) error {
	if err := checkRun("algorithm "+strconv.Itoa(alg), net, cfg, p, p.D); err != nil {
		return err
	}
	if (alg == 1 || alg == 2) && hasLayer(net, nn.BatchNorm) {
		// Algorithms 1 and 2 take the features of one point at a time, and
		// batch statistics need batches.
		return fmt.Errorf("nsvm: algorithm %d: the network's batchnorm layers need batches; use algorithm 3 or 4", alg)
	}
	return nil
}

// hasLayer reports whether the network has a layer of the given kind.
func hasLayer(net *nn.Net, k nn.Kind) bool {
	for _, s := range net.Layers() {
		if s.Kind == k {
			return true
		}
	}
	return false
}

// hasDropout reports whether the network has a dropout layer, whose masks
// make train-mode features differ from inference features.
func hasDropout(net *nn.Net) bool {
	return hasLayer(net, nn.Dropout) || hasLayer(net, nn.Dropout2D)
}

// setup prepares what every trainer on an nn.Net needs: the optimizer, the
// run state with its random stream, and a separate stream for dropout.
func setup(alg int, net *nn.Net, c Config, o Options, extra ...*nn.Param) (Optimizer, *runState, *rand.PCG) {
	opt := newOptimizer(net, c.Opt, extra...)
	r := newRun(alg, c, opt, o.Seed, o.Progress)
	dropout := seedPCG(o.Seed + 0x632be59bd9b4e019)
	net.SetRand(rand.New(dropout))
	return opt, r, dropout
}

// configInfo returns the metadata every NSVM model records of its
// configuration c: λ, the steps and the learning rate.
func configInfo(c Config) map[string]string {
	return map[string]string{
		"lambda": strconv.FormatFloat(c.Lambda, 'g', -1, 64),
		"steps":  strconv.Itoa(c.T),
		"lr":     strconv.FormatFloat(c.Opt.LR, 'g', -1, 64),
	}
}

// setBiasInfo records the bias term of c in a model's metadata.
func setBiasInfo(info map[string]string, c Config) {
	if c.Bias {
		info["bias_term"] = "true"
	}
}

func newModel(alg int, net *nn.Net, c Config, h *head, info map[string]string) *model.Model {
	m := &model.Model{
		Algorithm: "nsvm" + strconv.Itoa(alg),
		Net:       net,
		Head: &svm.Model{Kernel: c.Kernel, SV: h.SV, NSV: h.NSV, D: net.OutSize(), Coef: h.Coef,
			Bias: h.Bias, Neg: -1, Pos: 1},
		Info: configInfo(c),
	}
	for k, v := range info {
		m.Info[k] = v
	}
	setBiasInfo(m.Info, c)
	return m
}

// trainExpansion checks the inputs of Algorithm alg (1–3) on p, runs the
// trainer that newTrainer builds on the run state and dropout stream, and
// returns the model of the kernel expansion it ends with; info adds to the
// model's metadata.
func trainExpansion(ctx context.Context, alg int, net *nn.Net, p Problem, cfg validator, c Config, o Options,
	info map[string]string, newTrainer func(r *runState, dropout *rand.PCG) (trainer, error)) (*model.Model, error) {
	if err := checkInputs(alg, net, cfg, p); err != nil {
		return nil, err
	}
	opt, r, dropout := setup(alg, net, c, o)
	tr, err := newTrainer(r, dropout)
	if err != nil {
		return nil, err
	}
	h, err := runNet(ctx, alg, net, opt, tr, r, dropout, c.T, configKey(alg, cfg), o)
	if err != nil {
		return nil, err
	}
	return newModel(alg, net, c, h, info), nil
}

// TrainAlg1 trains net and a kernel expansion with Algorithm 1 (paper §4.1)
// on the ±1-labelled problem p. The network's parameters are updated in
// place; the returned model shares net.
func TrainAlg1(ctx context.Context, net *nn.Net, p Problem, cfg Alg1Config, o Options) (*model.Model, error) {
	return trainExpansion(ctx, 1, net, p, cfg, cfg.Config, o, nil, func(r *runState, _ *rand.PCG) (trainer, error) {
		return newAlg1(net, p, cfg, r, hasDropout(net)), nil
	})
}

// TrainAlg2 trains with Algorithm 2 (paper §4.2).
func TrainAlg2(ctx context.Context, net *nn.Net, p Problem, cfg Alg2Config, o Options) (*model.Model, error) {
	return trainExpansion(ctx, 2, net, p, cfg, cfg.Config, o, nil, func(r *runState, dropout *rand.PCG) (trainer, error) {
		return newAlg2(net, p, cfg, r, hasDropout(net), dropout), nil
	})
}

// TrainAlg3 trains with Algorithm 3 (paper §4.3).
func TrainAlg3(ctx context.Context, net *nn.Net, p Problem, cfg Alg3Config, o Options) (*model.Model, error) {
	info := map[string]string{"mu": strconv.FormatFloat(cfg.Mu, 'g', -1, 64), "batch": strconv.Itoa(cfg.Batch)}
	return trainExpansion(ctx, 3, net, p, cfg, cfg.Config, o, info, func(r *runState, _ *rand.PCG) (trainer, error) {
		return newAlg3(net, p, cfg, r)
	})
}

// TrainAlg4 trains with Algorithm 4 (paper §4.4): Part I aligns the kernel
// on feature space with the labels by training net; Part II fits an SVM
// (kernel Pegasos or SMO) on the fixed features z_j = F_Θ(x_j).
// Checkpoints cover Part I; a run resumed after Part I goes straight to
// Part II.
func TrainAlg4(ctx context.Context, net *nn.Net, p Problem, cfg Alg4Config, o Options) (*model.Model, error) {
	if err := checkInputs(4, net, cfg, p); err != nil {
		return nil, err
	}
	opt, r, dropout := setup(4, net, cfg.Config, o)
	tr, err := newAlg4(net, p, cfg, r)
	if err != nil {
		return nil, err
	}
	z, err := part1Features(ctx, net, opt, tr, r, dropout, cfg.T, configKey(4, cfg), p.X, p.N, o)
	if err != nil {
		return nil, err
	}
	zp := svm.Problem{X: z, N: p.N, D: net.OutSize(), Y: p.Y}
	h, err := Part2Fitter(cfg.Kernel, cfg.Part2, cfg.Bias)(ctx, zp, r.rng, svmProgress(o.Progress, r))
	if err != nil {
		return nil, err
	}
	h.Neg, h.Pos = -1, 1
	return &model.Model{Algorithm: "nsvm4", Net: net, Head: h, Info: alg4Info(cfg)}, nil
}

// part1Features runs Part I of Algorithm 4 (the trainer tr) for T steps and
// returns the fixed features z_j = F_Θ(x_j) of the m rows x that Part II
// fits on, reporting the phase "features".
func part1Features(ctx context.Context, net *nn.Net, opt Optimizer, tr trainer, r *runState, dropout *rand.PCG, T int, key string,
	x []float32, m int, o Options) ([]float32, error) {
	if _, err := runNet(ctx, 4, net, opt, tr, r, dropout, T, key, o); err != nil {
		return nil, err
	}
	z := make([]float32, m*net.OutSize())
	net.Features(z, x, m)
	if nonFinite(z) {
		return nil, errNonFinite(4, T, "features after part I")
	}
	if o.Progress != nil {
		o.Progress(Progress{Algorithm: 4, Phase: "features", Step: m, Total: m, Elapsed: timeSince(r)})
	}
	return z, nil
}

// svmProgress reports an SVM solver's progress as Part II of Algorithm 4
// (phase "svm"); nil when progress is nil.
func svmProgress(progress ProgressFunc, r *runState) svm.ProgressFunc {
	if progress == nil {
		return nil
	}
	return func(s svm.Progress) {
		progress(Progress{Algorithm: 4, Phase: "svm", Step: s.Step, Total: s.Total, NSV: s.NSV, Elapsed: timeSince(r)})
	}
}

// alg4Info returns the metadata of an Algorithm 4 model: its Part I
// configuration, the Part II solver and that solver's parameters.
func alg4Info(cfg Alg4Config) map[string]string {
	info := configInfo(cfg.Config)
	info["batch"] = strconv.Itoa(cfg.Batch)
	info["part2_solver"] = cfg.Part2.SolverName()
	setBiasInfo(info, cfg.Config)
	switch cfg.Part2.SolverName() {
	case "pegasos":
		info["part2_lambda"] = strconv.FormatFloat(cfg.Part2.Lambda, 'g', -1, 64)
		info["part2_steps"] = strconv.Itoa(cfg.Part2.T)
	case "smo":
		info["part2_C"] = strconv.FormatFloat(cfg.Part2.C, 'g', -1, 64)
	}
	return info
}

func (p Part2Config) SolverName() string {
	if p.Solver == "" {
		return "pegasos"
	}
	return p.Solver
}
