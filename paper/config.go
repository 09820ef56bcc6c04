package paper

import (
	"fmt"
	"math"
	"time"

	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/kernel"
)

// OptConfig configures the θ-optimizer: "sgd" (torch.optim.SGD semantics:
// momentum, L2 weight decay) or "adam", with a learning-rate schedule.
type OptConfig struct {
	Name        string  // "sgd" (default) or "adam"
	LR          float64 // learning rate, > 0
	Momentum    float64 // SGD momentum in [0, 1)
	WeightDecay float64 // L2 penalty ≥ 0, added to the gradient as in torch.optim
	// Schedule is "constant" (default), "invt" (LR·T0/(T0+t)), "step"
	// (LR·Gamma^⌊t/Every⌋), "cosine" (LR·(1+cos(πt/H))/2) or "onecycle"
	// (torch.optim.lr_scheduler.OneCycleLR's cosine form: from LR/25 up to
	// LR over the first 30 % of H, then down to LR/25/10⁴ at H), with t
	// counting θ-steps and H the Horizon.
	Schedule string
	T0       float64 // for "invt": steps until the rate halves; default 1000
	Every    int     // for "step"
	Gamma    float64 // for "step"
	// Horizon is the H of "cosine" and "onecycle": the steps over which
	// the rate falls; 0 means the run's length (Config.T).
	Horizon int `json:",omitempty"`
}

// With returns o with the fields given replaced: the learning rate when
// lr > 0, momentum and weightDecay when not nil, the optimizer's name and
// schedule when not "".
func (o OptConfig) With(lr float64, momentum, weightDecay *float64, name, schedule string) OptConfig {
	if lr > 0 {
		o.LR = lr
	}
	if momentum != nil {
		o.Momentum = *momentum
	}
	if weightDecay != nil {
		o.WeightDecay = *weightDecay
	}
	if name != "" {
		o.Name = name
	}
	if schedule != "" {
		o.Schedule = schedule
	}
	return o
}

func (o OptConfig) validate() error {
	switch o.Name {
	case "", "sgd", "adam":
	default:
		return fmt.Errorf("nsvm: unknown optimizer %q (want sgd or adam)", o.Name)
	}
	if !(o.LR > 0) || math.IsInf(o.LR, 0) {
		return fmt.Errorf("nsvm: learning rate must be > 0, got %g", o.LR)
	}
	if !(o.Momentum >= 0 && o.Momentum < 1) {
		return fmt.Errorf("nsvm: momentum must be in [0, 1), got %g", o.Momentum)
	}
	if !(o.WeightDecay >= 0) || math.IsInf(o.WeightDecay, 0) {
		return fmt.Errorf("nsvm: weight decay must be ≥ 0, got %g", o.WeightDecay)
	}
	switch o.Schedule {
	case "", "constant":
	case "invt":
		if o.T0 < 0 {
			return fmt.Errorf("nsvm: schedule invt needs T0 ≥ 0, got %g", o.T0)
		}
	case "step":
		if o.Every < 1 || !(o.Gamma > 0) {
			return fmt.Errorf("nsvm: schedule step needs Every ≥ 1 and Gamma > 0, got %d and %g", o.Every, o.Gamma)
		}
	case "cosine", "onecycle":
		if o.Horizon < 0 {
			return fmt.Errorf("nsvm: schedule %s needs a horizon ≥ 0, got %d", o.Schedule, o.Horizon)
		}
	default:
		return fmt.Errorf("nsvm: unknown schedule %q (want constant, invt, step, cosine or onecycle)", o.Schedule)
	}
	return nil
}

// Anneals reports whether the schedule brings the rate down to (nearly)
// zero at its horizon.
func (o OptConfig) Anneals() bool { return o.Schedule == "cosine" || o.Schedule == "onecycle" }

// lrAt returns the learning rate for the θ-step with index t (0-based).
func (o OptConfig) lrAt(t int) float64 {
	switch o.Schedule {
	case "invt":
		t0 := o.T0
		if t0 == 0 {
			t0 = 1000
		}
		return o.LR * t0 / (t0 + float64(t))
	case "step":
		return o.LR * math.Pow(o.Gamma, float64(t/o.Every))
	case "cosine":
		if o.Horizon <= 0 {
			return o.LR
		}
		return o.LR * cosineRamp(float64(min(t, o.Horizon))/float64(o.Horizon))
	case "onecycle":
		if o.Horizon <= 0 {
			return o.LR
		}
		lo, end := o.LR/25, o.LR/25/1e4
		up := 0.3 * float64(o.Horizon)
		if tf := float64(min(t, o.Horizon)); tf < up {
			return o.LR + (lo-o.LR)*cosineRamp(tf/up)
		} else {
			return end + (o.LR-end)*cosineRamp((tf-up)/(float64(o.Horizon)-up))
		}
	}
	return o.LR
}

// cosineRamp is (1 + cos(πu))/2: 1 at u = 0, 0 at u = 1.
func cosineRamp(u float64) float64 { return (1 + math.Cos(math.Pi*u)) / 2 }

// Config holds what every NSVM trainer needs.
type Config struct {
	// Lambda is the SVM regularisation λ > 0 of problem (1); the paper uses 1e-4.
	Lambda float64
	// T is the number of steps (Part I for Algorithm 4).
	T int
	// Kernel is the kernel K on feature space; the paper uses rbf with γ = 1
	// (γ = 1/320 for Algorithms 3 and 4 on MNIST). Kernel.Normalized selects
	// the normalised kernel K̃ of §4.1.3.
	Kernel kernel.Spec
	// Opt configures the θ-updates.
	Opt OptConfig
	// Bias adds an unregularised bias b to the SVM head, g = h(F_Θ(x)) + b
	// (paper §7): b takes the sub-gradient step of svm.PegasosConfig.Bias,
	// b += κ·y/(λt + 1) per violation (divided by k for mini-batches), with
	// κ = K(z, z) at the current features (1 for RBF kernels). In
	// Algorithms 1–3 b enters only the margin test y·(g̃ + b) < 1 and the
	// final decision function: the θ-objectives do not depend on b. In
	// Algorithm 4 it selects Pegasos with bias for Part II (SMO always fits
	// a bias). False keeps the paper's bias-free algorithms exactly.
	Bias bool `json:",omitempty"`
	// ReportEvery is the number of steps between progress reports; 0 means
	// about 200 reports per run.
	ReportEvery int
}

func (c Config) validate(alg int) error {
	if !(c.Lambda > 0) || math.IsInf(c.Lambda, 0) {
		return fmt.Errorf("nsvm: algorithm %d: lambda must be > 0, got %g", alg, c.Lambda)
	}
	if c.T < 1 {
		return fmt.Errorf("nsvm: algorithm %d: steps T must be ≥ 1, got %d", alg, c.T)
	}
	if err := c.Kernel.Validate(); err != nil {
		return fmt.Errorf("nsvm: algorithm %d: %w", alg, err)
	}
	if err := c.Opt.validate(); err != nil {
		return fmt.Errorf("nsvm: algorithm %d: %w", alg, errmsg.Strip(err))
	}
	if c.ReportEvery < 0 {
		return fmt.Errorf("nsvm: algorithm %d: ReportEvery must be ≥ 0", alg)
	}
	return nil
}

func (c Config) reportEvery() int {
	if c.ReportEvery > 0 {
		return c.ReportEvery
	}
	return max(1, c.T/200)
}

// Alg1Config configures Algorithm 1 (paper §4.1).
type Alg1Config struct{ Config }

// Validate reports whether the configuration is usable.
func (c Alg1Config) Validate() error { return c.validate(1) }

// Alg2Config configures Algorithm 2 (paper §4.2).
type Alg2Config struct {
	Config
	// Chunk bounds the number of rows pushed through the network at once
	// when recomputing support-vector features; 0 means 1024.
	Chunk int
}

// Validate reports whether the configuration is usable.
func (c Alg2Config) Validate() error {
	if c.Chunk < 0 {
		return fmt.Errorf("nsvm: algorithm 2: chunk must be ≥ 0, got %d", c.Chunk)
	}
	return c.validate(2)
}

// Alg3Config configures Algorithm 3 (paper §4.3).
type Alg3Config struct {
	Config
	Mu    float64 // μ > 0, weight of the ‖f‖²-replacement term; the paper uses 1
	Batch int     // k ≥ 2; the paper uses 16 (Ringnorm) and 4 (MNIST)
	// Reg adds ρ·R(K) of the batch kernel matrix to the θ-objective (§6);
	// the zero value is off.
	Reg RegConfig `json:",omitzero"`
}

// Validate reports whether the configuration is usable.
func (c Alg3Config) Validate() error {
	if !(c.Mu > 0) || math.IsInf(c.Mu, 0) {
		return fmt.Errorf("nsvm: algorithm 3: mu must be > 0, got %g", c.Mu)
	}
	if c.Batch < 2 {
		return fmt.Errorf("nsvm: algorithm 3: batch size k must be ≥ 2, got %d", c.Batch)
	}
	if err := c.Reg.Validate(); err != nil {
		return fmt.Errorf("nsvm: algorithm 3: %w", errmsg.Strip(err))
	}
	return c.validate(3)
}

// AlignLoss is the loss 𝓛(1, A) of Algorithm 4 Part I as a function of the
// batch alignment A ∈ [−1, 1]: it returns the loss and d𝓛/dA.
type AlignLoss func(a float64) (loss, dloss float64)

// SquaredAlignLoss is the paper's 𝓛(β, γ) = (β − γ)² at β = 1.
func SquaredAlignLoss(a float64) (float64, float64) { return (1 - a) * (1 - a), -2 * (1 - a) }

// NegAlignLoss is −A, the plain alignment objective of §4.4.1.
func NegAlignLoss(a float64) (float64, float64) { return -a, -1 }

// AlignLosses maps the names accepted on the command line to losses.
var AlignLosses = map[string]AlignLoss{"squared": SquaredAlignLoss, "neg": NegAlignLoss}

// Part2Config configures the SVM fit of Algorithm 4 Part II on fixed features.
type Part2Config struct {
	// Solver is "pegasos" (the paper's choice, default) or "smo".
	Solver string
	// Lambda is Pegasos' λ (default 1e-4); T its number of steps.
	Lambda float64
	T      int
	// C, Eps and CacheMB configure SMO (defaults 1, 1e-3, svm.DefaultCacheMB).
	C, Eps  float64
	CacheMB int
}

// Alg4Config configures Algorithm 4 (paper §4.4).
type Alg4Config struct {
	Config
	Batch int       // k ≥ 2; the paper uses 16 (Ringnorm) and 64 (MNIST)
	Loss  AlignLoss `json:"-"` // 𝓛(1, ·); nil means SquaredAlignLoss
	Part2 Part2Config
	// Reg adds ρ·R(K) of the batch kernel matrix to the Part I objective
	// (§6); the zero value is off.
	Reg RegConfig `json:",omitzero"`
	// Objective is Part I's objective: ObjectiveAlign (the paper's, and
	// the zero value) or ObjectiveSoftmax (classes only; an extension).
	Objective string `json:",omitempty"`
}

// Validate reports whether the configuration is usable.
func (c Alg4Config) Validate() error {
	if c.Batch < 2 {
		return fmt.Errorf("nsvm: algorithm 4: batch size k must be ≥ 2, got %d", c.Batch)
	}
	if err := c.Reg.Validate(); err != nil {
		return fmt.Errorf("nsvm: algorithm 4: %w", errmsg.Strip(err))
	}
	if err := validateObjective(c.Objective); err != nil {
		return err
	}
	p := c.Part2
	switch p.Solver {
	case "", "pegasos":
		if !(p.Lambda > 0) {
			return fmt.Errorf("nsvm: algorithm 4: part II lambda must be > 0, got %g", p.Lambda)
		}
		if p.T < 1 {
			return fmt.Errorf("nsvm: algorithm 4: part II steps must be ≥ 1, got %d", p.T)
		}
	case "smo":
		if !(p.C > 0) || math.IsInf(p.C, 0) {
			return fmt.Errorf("nsvm: algorithm 4: part II C must be > 0, got %g", p.C)
		}
		if p.Eps < 0 {
			return fmt.Errorf("nsvm: algorithm 4: part II eps must be ≥ 0, got %g", p.Eps)
		}
	default:
		return fmt.Errorf("nsvm: algorithm 4: unknown part II solver %q (want pegasos or smo)", p.Solver)
	}
	return c.validate(4)
}

// Progress is reported by the trainers every Config.ReportEvery steps and
// once at the end of each phase.
type Progress struct {
	Algorithm int
	Phase     string // "train", "features", "svm"
	Step      int    // steps done in this phase
	Total     int    // steps in this phase
	// ViolationRate is the fraction of margin violations (y·g̃ < 1) among the
	// points examined since the previous report (Algorithms 1–3).
	ViolationRate float64
	NSV           int     // current number of support vectors (α > 0)
	Alignment     float64 // kernel-target alignment of the last batch (Algorithms 3, 4)
	Loss          float64 // θ-objective of the last step (with ρ·R(K) when a Reg is on)
	Elapsed       time.Duration
}

// ProgressFunc receives progress reports. It runs on the training goroutine
// and should return quickly.
type ProgressFunc func(Progress)
