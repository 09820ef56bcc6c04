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

func checkInputs(alg int, net *nn.Net, p Problem) error {
	if net == nil {
		return fmt.Errorf("nsvm: algorithm %d: no network", alg)
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if p.D != net.InSize() {
		return fmt.Errorf("nsvm: the data has %d values per point, the network expects %d", p.D, net.InSize())
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

func newModel(alg int, net *nn.Net, c Config, h *head, info map[string]string) *model.Model {
	m := &model.Model{
		Algorithm: "nsvm" + strconv.Itoa(alg),
		Net:       net,
		Head: &svm.Model{Kernel: c.Kernel, SV: h.SV, NSV: h.NSV, D: net.OutSize(), Coef: h.Coef,
			Bias: h.Bias, Neg: -1, Pos: 1},
		Info: map[string]string{
			"lambda": strconv.FormatFloat(c.Lambda, 'g', -1, 64),
			"steps":  strconv.Itoa(c.T),
			"lr":     strconv.FormatFloat(c.Opt.LR, 'g', -1, 64),
		},
	}
	for k, v := range info {
		m.Info[k] = v
	}
	if c.Bias {
		m.Info["bias_term"] = "true"
	}
	return m
}

// TrainAlg1 trains net and a kernel expansion with Algorithm 1 (paper §4.1)
// on the ±1-labelled problem p. The network's parameters are updated in
// place; the returned model shares net.
func TrainAlg1(ctx context.Context, net *nn.Net, p Problem, cfg Alg1Config, o Options) (*model.Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkInputs(1, net, p); err != nil {
		return nil, err
	}
	opt, r, dropout := setup(1, net, cfg.Config, o)
	h, err := runNet(ctx, 1, net, opt, newAlg1(net, p, cfg, r, hasDropout(net)), r, dropout, cfg.T, configKey(1, cfg), o)
	if err != nil {
		return nil, err
	}
	return newModel(1, net, cfg.Config, h, nil), nil
}

// TrainAlg2 trains with Algorithm 2 (paper §4.2).
func TrainAlg2(ctx context.Context, net *nn.Net, p Problem, cfg Alg2Config, o Options) (*model.Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkInputs(2, net, p); err != nil {
		return nil, err
	}
	opt, r, dropout := setup(2, net, cfg.Config, o)
	h, err := runNet(ctx, 2, net, opt, newAlg2(net, p, cfg, r, hasDropout(net), dropout), r, dropout, cfg.T, configKey(2, cfg), o)
	if err != nil {
		return nil, err
	}
	return newModel(2, net, cfg.Config, h, nil), nil
}

// TrainAlg3 trains with Algorithm 3 (paper §4.3).
func TrainAlg3(ctx context.Context, net *nn.Net, p Problem, cfg Alg3Config, o Options) (*model.Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkInputs(3, net, p); err != nil {
		return nil, err
	}
	opt, r, dropout := setup(3, net, cfg.Config, o)
	tr, err := newAlg3(net, p, cfg, r)
	if err != nil {
		return nil, err
	}
	h, err := runNet(ctx, 3, net, opt, tr, r, dropout, cfg.T, configKey(3, cfg), o)
	if err != nil {
		return nil, err
	}
	return newModel(3, net, cfg.Config, h, map[string]string{
		"mu": strconv.FormatFloat(cfg.Mu, 'g', -1, 64), "batch": strconv.Itoa(cfg.Batch)}), nil
}

// TrainAlg4 trains with Algorithm 4 (paper §4.4): Part I aligns the kernel
// on feature space with the labels by training net; Part II fits an SVM
// (kernel Pegasos or SMO) on the fixed features z_j = F_Θ(x_j).
// Checkpoints cover Part I; a run resumed after Part I goes straight to
// Part II.
func TrainAlg4(ctx context.Context, net *nn.Net, p Problem, cfg Alg4Config, o Options) (*model.Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkInputs(4, net, p); err != nil {
		return nil, err
	}
	opt, r, dropout := setup(4, net, cfg.Config, o)
	tr, err := newAlg4(net, p, cfg, r)
	if err != nil {
		return nil, err
	}
	if _, err := runNet(ctx, 4, net, opt, tr, r, dropout, cfg.T, configKey(4, cfg), o); err != nil {
		return nil, err
	}
	n := net.OutSize()
	z := make([]float32, p.N*n)
	net.Features(z, p.X, p.N)
	if nonFinite(z) {
		return nil, errNonFinite(4, cfg.T, "features after part I")
	}
	if o.Progress != nil {
		o.Progress(Progress{Algorithm: 4, Phase: "features", Step: p.N, Total: p.N, Elapsed: timeSince(r)})
	}
	h, err := fitPart2(ctx, svm.Problem{X: z, N: p.N, D: n, Y: p.Y}, cfg, r, o.Progress)
	if err != nil {
		return nil, err
	}
	h.Neg, h.Pos = -1, 1
	m := &model.Model{Algorithm: "nsvm4", Net: net, Head: h, Info: map[string]string{
		"lambda":       strconv.FormatFloat(cfg.Lambda, 'g', -1, 64),
		"steps":        strconv.Itoa(cfg.T),
		"batch":        strconv.Itoa(cfg.Batch),
		"lr":           strconv.FormatFloat(cfg.Opt.LR, 'g', -1, 64),
		"part2_solver": cfg.Part2.SolverName(),
	}}
	if cfg.Bias {
		m.Info["bias_term"] = "true"
	}
	switch cfg.Part2.SolverName() {
	case "pegasos":
		m.Info["part2_lambda"] = strconv.FormatFloat(cfg.Part2.Lambda, 'g', -1, 64)
		m.Info["part2_steps"] = strconv.Itoa(cfg.Part2.T)
	case "smo":
		m.Info["part2_C"] = strconv.FormatFloat(cfg.Part2.C, 'g', -1, 64)
	}
	return m, nil
}

func (p Part2Config) SolverName() string {
	if p.Solver == "" {
		return "pegasos"
	}
	return p.Solver
}

func fitPart2(ctx context.Context, zp svm.Problem, cfg Alg4Config, r *runState, progress ProgressFunc) (*svm.Model, error) {
	k := mustKernel(cfg.Kernel)
	var sp svm.ProgressFunc
	if progress != nil {
		sp = func(s svm.Progress) {
			progress(Progress{Algorithm: 4, Phase: "svm", Step: s.Step, Total: s.Total, NSV: s.NSV, Elapsed: timeSince(r)})
		}
	}
	p2 := cfg.Part2
	switch p2.SolverName() {
	case "smo":
		return svm.SMO(ctx, zp, k, svm.SMOConfig{C: p2.C, Eps: p2.Eps, CacheMB: p2.CacheMB}, sp)
	default:
		return svm.Pegasos(ctx, zp, k, svm.PegasosConfig{Lambda: p2.Lambda, T: p2.T, Bias: cfg.Bias}, r.rng, sp)
	}
}
