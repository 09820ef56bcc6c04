package paper

import (
	"fmt"
	"strings"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
)

// Preset is a complete training recipe for one algorithm: the network
// architecture and the trainer configuration. The presets reproduce the
// paper's experiments (§5): its architectures, kernels, λ, μ, batch sizes,
// step counts and Algorithm 4's loss (1 − A)². What the paper leaves open
// is the project's choice, made on the paper's validation split (400
// Ringnorm / 1000 MNIST training points held out, nsvm reproduce
// --validate), never on a test set, and listed in each preset's comment:
// the optimizer's learning rate, momentum, weight decay and schedule, the
// dropout rate, the initialisation and Algorithm 4's Part II λ. Common to
// all presets: plain SGD with momentum 0.9 and L2 weight decay 1e-4 (the
// paper: "gradient descent with momentum and L²-regularization"), PyTorch's
// default initialisation (package nn), Part II Pegasos with the paper's
// λ = 1e-4, no bias term and no §6 regulariser. The presets are the
// defaults of the command line (nsvm reproduce).
type Preset struct {
	Task string // "ringnorm" (vector data) or "mnist" (28×28 images)
	Alg  int
	Arch string
	// InShape is the shape the network sees each row as; nil means the
	// data's own ([D] for vectors, [1, 28, 28] for MNIST).
	InShape []int
	// Dropout is the rate of the dropout layers in Arch (0: Arch has none);
	// SetDropout changes both.
	Dropout float64
	Alg1    Alg1Config
	Alg2    Alg2Config
	Alg3    Alg3Config
	Alg4    Alg4Config
}

// Config returns the shared part of the preset's trainer configuration.
func (p *Preset) Config() *Config {
	switch p.Alg {
	case 1:
		return &p.Alg1.Config
	case 2:
		return &p.Alg2.Config
	case 3:
		return &p.Alg3.Config
	default:
		return &p.Alg4.Config
	}
}

// SetDropout sets the rate of every dropout and dropout2d layer of p.Arch to
// rate; rate 0 removes them (the network then has no dropout).
func (p *Preset) SetDropout(rate float64) error {
	arch, err := ArchWithDropout(p.Arch, rate)
	if err != nil {
		return err
	}
	p.Arch, p.Dropout = arch, rate
	return nil
}

// ArchWithDropout returns the architecture spec arch with the probability of
// every dropout(P) and dropout2d(P) layer set to rate, in [0, 1); rate 0
// removes those layers. A rate > 0 for a network without dropout layers is
// an error: where dropout belongs is part of the architecture.
func ArchWithDropout(arch string, rate float64) (string, error) {
	if !(rate >= 0 && rate < 1) {
		return "", fmt.Errorf("nsvm: dropout rate must be in [0, 1), got %g", rate)
	}
	specs, err := nn.ParseArch(arch)
	if err != nil {
		return "", err
	}
	var toks []string
	found := false
	for _, s := range specs {
		if s.Kind == nn.Dropout || s.Kind == nn.Dropout2D {
			found = true
			if rate == 0 {
				continue
			}
			s.P = rate
		}
		toks = append(toks, s.String())
	}
	if !found {
		if rate == 0 {
			return arch, nil
		}
		return "", fmt.Errorf("nsvm: the network %q has no dropout layer to set to %g", arch, rate)
	}
	return strings.Join(toks, ","), nil
}

func rbf(gamma float64) kernel.Spec { return kernel.Spec{Name: "rbf", Gamma: gamma} }

func sgd(lr float64) OptConfig {
	return OptConfig{Name: "sgd", LR: lr, Momentum: 0.9, WeightDecay: 1e-4}
}

// sgdInvT is sgd with the rate decaying as LR·1000/(1000+t).
func sgdInvT(lr float64) OptConfig {
	o := sgd(lr)
	o.Schedule = "invt"
	return o
}

// RingnormPreset returns the paper's Ringnorm recipe for algorithm alg
// (1–4): the MLP 40-30-20-20 with ReLU after every layer (L2-normalised
// output for Algorithms 1 and 2), K(a,b) = exp(−‖a−b‖²), λ = 1e-4, μ = 1,
// batch 16, and the paper's step counts 80000, 70000, 4600 and 4200 + 33500.
// The project's choices (validation split): learning rates 3e-5, 3e-5, 3e-3
// and 1e-2, constant except for Algorithm 4, whose rate decays as
// 1e-2·1000/(1000+t) over its θ-steps t; momentum 0.9, weight decay 1e-4;
// no dropout (the paper's MLP has none).
func RingnormPreset(alg int) (Preset, error) {
	return paperPreset(Preset{Task: "ringnorm"}, alg, nn.RingnormArch, nn.RingnormArchNoNorm, [4]paperRun{
		{T: 80000, Kernel: rbf(1), Opt: sgd(3e-5)},
		{T: 70000, Kernel: rbf(1), Opt: sgd(3e-5)},
		{T: 4600, Kernel: rbf(1), Opt: sgd(3e-3), Batch: 16},
		{T: 4200, Kernel: rbf(1), Opt: sgdInvT(1e-2), Batch: 16, Part2T: 33500},
	})
}

// paperRun is what a preset sets per algorithm: the steps (Part I's for
// Algorithm 4), the kernel, the optimizer, the batch size (Algorithms 3
// and 4) and Part II's steps (Algorithm 4).
type paperRun struct {
	T      int
	Kernel kernel.Spec
	Opt    OptConfig
	Batch  int
	Part2T int
}

// paperPreset returns p for algorithm alg (1–4) with runs[alg−1] and what
// the paper sets alike for both data sets: λ = 1e-4, μ = 1, Part II by
// Pegasos with λ = 1e-4, the network arch for Algorithms 1 and 2 (output
// L2-normalised) and archNoNorm for Algorithms 3 and 4.
func paperPreset(p Preset, alg int, arch, archNoNorm string, runs [4]paperRun) (Preset, error) {
	p.Alg = alg
	if alg < 1 || alg > 4 {
		return p, fmt.Errorf("nsvm: no algorithm %d (want 1, 2, 3 or 4)", alg)
	}
	r := runs[alg-1]
	c := Config{Lambda: 1e-4, T: r.T, Kernel: r.Kernel, Opt: r.Opt}
	switch alg {
	case 1:
		p.Arch, p.Alg1 = arch, Alg1Config{c}
	case 2:
		p.Arch, p.Alg2 = arch, Alg2Config{Config: c}
	case 3:
		p.Arch, p.Alg3 = archNoNorm, Alg3Config{Config: c, Mu: 1, Batch: r.Batch}
	case 4:
		p.Arch, p.Alg4 = archNoNorm, Alg4Config{Config: c, Batch: r.Batch,
			Part2: Part2Config{Solver: "pegasos", Lambda: 1e-4, T: r.Part2T}}
	}
	return p, nil
}

// RingnormCoordPreset is RingnormPreset(alg) with the per-coordinate
// network nn.RingnormCoordArch (",l2norm" appended for Algorithms 1 and 2)
// in place of the paper's MLP, each row seen as a 1×20×1 image. It goes
// beyond the paper: the paper's protocol (splits, kernel, λ, μ, batch sizes,
// step counts) is unchanged, and the learning rates were chosen on the
// paper's validation split for this network (Algorithm 3: 1e-3 instead of
// 3e-3; the others as for the MLP). On the DELVE splits of nsvm reproduce
// it lifts test accuracy by about one point for Algorithms 1, 3 and 4 (see
// the README).
func RingnormCoordPreset(alg int) (Preset, error) {
	p, err := RingnormPreset(alg)
	if err != nil {
		return p, err
	}
	p.Arch = nn.RingnormCoordArch
	p.InShape = []int{1, 20, 1}
	switch alg {
	case 1, 2:
		p.Arch += ",l2norm"
	case 3:
		p.Alg3.Opt.LR = 1e-3
	}
	return p, nil
}

// MNISTPreset returns the paper's MNIST recipe for algorithm alg (1–4): the
// CNN conv(10,5)-maxpool-relu-conv(20,5)-dropout2d-maxpool-relu (output 320,
// L2-normalised and scaled by √2 for Algorithms 1 and 2),
// K(a,b) = exp(−‖a−b‖²) for Algorithms 1 and 2 and exp(−‖a−b‖²/320) for 3
// and 4, λ = 1e-4, μ = 1, batch 4 (Algorithm 3) and 64 (Algorithm 4), and the
// paper's step counts 100000, 100000, 9500 and 400 + 35000.
//
// The project's choices (validation split of 1000 training images, 5 or 10
// seeded splits; the measurements are in the README): constant learning
// rates 1e-5, 1e-4, 1e-2 and 1e-2, momentum 0.9, weight decay 1e-4;
// Algorithm 2 pushes its gradient batch through the network in chunks of
// 256 rows. The paper applies channel dropout but gives no rate: Algorithms
// 1, 2 and 4 use 0.5 (PyTorch's default for Dropout2d; for Algorithm 4 it
// made 6 validation errors in 10000 against 12 without dropout, with 0.25
// and 800 or 1600 Part I steps no better; on 20 splits, 12 errors in 20000
// against 29 without dropout, and no cell of dropout 0–0.75 × rate
// 3e-3–3e-2 × 400–2000 steps below 11), Algorithm 3 uses 0.25 (4 errors
// in 5000 against 7 without dropout and 10 at 0.5; 1e-2 against 3e-3 and
// 3e-2, and 9500 steps against 19000, no better).
func MNISTPreset(alg int) (Preset, error) {
	p, err := paperPreset(Preset{Task: "mnist", Dropout: 0.5}, alg, nn.MNISTArch, nn.MNISTArchNoNorm, [4]paperRun{
		{T: 100000, Kernel: rbf(1), Opt: sgd(1e-5)},
		{T: 100000, Kernel: rbf(1), Opt: sgd(1e-4)},
		{T: 9500, Kernel: rbf(1.0 / 320), Opt: sgd(1e-2), Batch: 4},
		{T: 400, Kernel: rbf(1.0 / 320), Opt: sgd(1e-2), Batch: 64, Part2T: 35000},
	})
	switch {
	case err != nil:
		return p, err
	case alg == 2:
		p.Alg2.Chunk = 256
	case alg == 3:
		return p, p.SetDropout(0.25)
	}
	return p, nil
}

// MNIST10Arch is the feature map of MNIST10Preset: the paper's MNIST CNN
// (§5.2.1: two 5×5 convolutions, each followed by 2×2 max-pooling and
// ReLU) with 32 and 64 channels instead of 10 and 20 (1024 features instead
// of 320) and without the channel dropout. Dropout scales the surviving
// channels by 2 in train mode, which changes every RBF distance between
// train-mode and inference features; with it the alignment-trained
// features lost 1–3 points of test accuracy on MNIST.
const MNIST10Arch = "conv(32,5),maxpool(2),relu,conv(64,5),maxpool(2),relu,flatten"

// MNIST10Preset returns the recipe of "nsvm reproduce mnist10", the
// multiclass NSVM on all ten MNIST digits (60000 training images): feature
// map MNIST10Arch, the paper's MNIST kernel for Algorithm 4,
// K(a,b) = exp(−‖a−b‖²/320), batch 64, Part I 12000 steps (12.8 epochs) of
// Adam (rate 1e-3 decaying as 3000/(3000+t), L2 weight decay 1e-4) with
// random shifts of up to one pixel, then one-vs-rest kernel-Pegasos heads
// (λ = 1e-5, 10⁶ steps each, about 17 epochs) on the fixed features. The
// paper's SGD with momentum reached 97.5 % where Adam reached 98.7 % (paper
// CNN, 3000 steps, heads on 10000 points); the wider network, all 60000
// points for the heads, the longer Part I and the long Pegasos runs are
// what bring it to 99.37 % on the test set (63 errors, seed 1, 659 s on two
// cores; with 10⁵ steps per head: 99.16 %, 309 s). On 5000 held-out
// training images the heads scored 98.90 % (10⁵ Pegasos steps), 99.04 %
// (SMO) and 99.12 % (10⁶ Pegasos steps).
func MNIST10Preset() (arch string, cfg MulticlassConfig) {
	cfg = MulticlassConfig{
		Alg4Config: Alg4Config{
			Config: Config{Lambda: 1e-5, T: 12000, Kernel: kernel.Spec{Name: "rbf", Gamma: 1.0 / 320},
				Opt: OptConfig{Name: "adam", LR: 1e-3, WeightDecay: 1e-4, Schedule: "invt", T0: 3000}},
			Batch: 64,
			Part2: Part2Config{Solver: "pegasos", Lambda: 1e-5, T: 1000000, C: 10, Eps: 1e-3, CacheMB: 400},
		},
		Scheme:      model.OneVsRest,
		Augment:     RandomShift(1, 28, 28, 1, nil),
		AugmentName: "shift(1)",
	}
	return MNIST10Arch, cfg
}
