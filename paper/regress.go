package paper

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// Regression target kernels for Part I of TrainRegression.
const (
	// TargetLinear is Y = ỹỹᵀ with ỹ the batch's targets minus their
	// mean: the linear kernel on the targets, the direct analogue of yyᵀ.
	TargetLinear = "linear"
	// TargetRBF is Y_ij = exp(−(y_i − y_j)²/(2σ²)) with σ the standard
	// deviation of the training targets: points with close targets should
	// have close features, whatever their sign relative to the mean.
	TargetRBF = "rbf"
)

// RegressionConfig configures TrainRegression: Part I of Algorithm 4 with a
// regression target kernel and centred alignment, then a kernel SVR head
// (svm.PegasosSVR) on the fixed features.
type RegressionConfig struct {
	// Alg4Config configures Part I as for classification; its Part2 gives
	// the SVR head's λ (Part2.Lambda) and steps (Part2.T); Part2.Solver
	// must be "" or "pegasos". Config.Bias is ignored: the SVR head always
	// has a bias (svm.SVRConfig).
	Alg4Config
	// Epsilon is the SVR's ε, in target units (default 0.1; negative: 0).
	Epsilon float64
	// Target is TargetLinear (default) or TargetRBF.
	Target string `json:",omitempty"`
	// LastIterate makes the SVR head the last Pegasos iterate; by default
	// it is the suffix average (svm.SVRConfig.Average), which is far less
	// noisy for small Part2.Lambda.
	LastIterate bool `json:",omitempty"`
}

func (c RegressionConfig) target() string {
	if c.Target == "" {
		return TargetLinear
	}
	return c.Target
}

// Validate reports whether the configuration is usable.
func (c RegressionConfig) Validate() error {
	switch c.Target {
	case "", TargetLinear, TargetRBF:
	default:
		return fmt.Errorf("nsvm: unknown regression target %q (want linear or rbf)", c.Target)
	}
	if c.Part2.Solver != "" && c.Part2.Solver != "pegasos" {
		return fmt.Errorf("nsvm: regression: the Part II solver is Pegasos SVR, not %q", c.Part2.Solver)
	}
	if math.IsNaN(c.Epsilon) || math.IsInf(c.Epsilon, 0) {
		return fmt.Errorf("nsvm: regression: epsilon must be finite, got %g", c.Epsilon)
	}
	return c.Alg4Config.Validate()
}

// RegressionTarget is the Part I target of real targets y: TargetRBF or
// TargetLinear (kind), double-centred, for the centred alignment.
func RegressionTarget(y []float64, kind string) Target {
	return Target{kernel: regressionKernel(y, kind), centered: true, y: y}
}

// regressionKernel returns the target matrix builder for real targets y.
// Both targets are double-centred (HYH, H = I − 11ᵀ/k) so that they pair
// with the centred alignment of the trainer.
func regressionKernel(y []float64, kind string) targetFunc {
	var inv2s2 float64
	if kind == TargetRBF {
		var mean, ss float64
		for _, v := range y {
			mean += v
		}
		mean /= float64(len(y))
		for _, v := range y {
			ss += (v - mean) * (v - mean)
		}
		s2 := ss / float64(len(y))
		if s2 == 0 {
			s2 = 1
		}
		inv2s2 = 1 / (2 * s2)
	}
	var yb []float64
	return func(dst []float64, idx []int) {
		k := len(idx)
		if kind == TargetRBF {
			for a, i := range idx {
				for b, j := range idx {
					d := y[i] - y[j]
					dst[a*k+b] = math.Exp(-d * d * inv2s2)
				}
			}
			centerTo(dst, dst, k)
			return
		}
		yb = vec.Resize(yb, k)
		var mean float64
		for a, i := range idx {
			yb[a] = y[i]
			mean += y[i]
		}
		mean /= float64(k)
		for a := range yb {
			yb[a] -= mean
		}
		for a := 0; a < k; a++ {
			for b := 0; b < k; b++ {
				dst[a*k+b] = yb[a] * yb[b]
			}
		}
	}
}

// centerTo sets dst (k×k) to H·src·H with H = I − 11ᵀ/k: every row and
// column of the result sums to 0. dst may be src.
func centerTo(dst, src []float64, k int) {
	rm := make([]float64, k)
	var all float64
	for i := 0; i < k; i++ {
		var s float64
		for j := 0; j < k; j++ {
			s += src[i*k+j]
		}
		rm[i] = s / float64(k)
		all += s
	}
	all /= float64(k * k)
	// src is symmetric here (kernel and target matrices), so column means
	// equal row means.
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			dst[i*k+j] = src[i*k+j] - rm[i] - rm[j] + all
		}
	}
}

// centeredAlignment returns the centred alignment (Cortes, Mohri and
// Rostamizadeh, "Algorithms for learning kernels based on centered
// alignment", JMLR 13, 2012) of the symmetric batch kernel matrix K with a
// double-centred target Y,
//
//	A_c = ⟨K_c, Y⟩_F / (‖K_c‖_F ‖Y‖_F),   K_c = HKH,
//
// and, if g is not nil, adds scale·∂A_c/∂K to g. Since H is a symmetric
// projection, ⟨K_c, Y⟩ = ⟨K, Y⟩ for centred Y and ∂‖K_c‖²/∂K = 2K_c, so
// ∂A_c/∂K = Y/(‖K_c‖‖Y‖) − A_c·K_c/‖K_c‖²: targetAlignment on K_c. kc is a
// k×k workspace.
func centeredAlignment(kmat, tgt, g, kc []float64, k int, scale float64) float64 {
	centerTo(kc, kmat, k)
	return targetAlignment(kc, tgt, g, scale)
}

// TrainRegression trains an NSVM regressor: Part I of Algorithm 4 with the
// centred alignment between the batch kernel matrix and a regression
// target kernel (cfg.Target), then kernel SVR by Pegasos (ε-insensitive
// loss, bias from the mean target, iterates averaged over the second half
// of the steps unless cfg.LastIterate) on the fixed features z_j = F_Θ(x_j).
// The model's Decision is the regression function; its Task is
// Regression.
func TrainRegression(ctx context.Context, net *nn.Net, p svm.RegProblem, cfg RegressionConfig, o Options) (*model.Model, error) {
	if err := checkRun("regression", net, cfg, p, p.D); err != nil {
		return nil, err
	}
	opt, r, dropout, tr, err := newPart1(net, p.X, p.N, p.D, cfg.Alg4Config, RegressionTarget(p.Y, cfg.target()), o)
	if err != nil {
		return nil, err
	}
	z, err := part1Features(ctx, net, opt, tr, r, dropout, cfg.T, configKey(4, cfg), p.X, p.N, o)
	if err != nil {
		return nil, err
	}
	h, err := svm.PegasosSVR(ctx, svm.RegProblem{X: z, N: p.N, D: net.OutSize(), Y: p.Y}, mustKernel(cfg.Kernel),
		svm.SVRConfig{Lambda: cfg.Part2.Lambda, Epsilon: cfg.Epsilon, T: cfg.Part2.T, Average: !cfg.LastIterate}, r.rng, svmProgress(o.Progress, r))
	if err != nil {
		return nil, err
	}
	eps, _ := strconv.ParseFloat(h.Info["epsilon"], 64) // the ε in effect after the defaults
	info := configInfo(cfg.Config)                      // no bias_term: the SVR head always has a bias
	info["target"] = cfg.target()
	info["epsilon"] = strconv.FormatFloat(eps, 'g', -1, 64)
	info["batch"] = strconv.Itoa(cfg.Batch)
	info["part2_solver"] = "pegasos-svr"
	info["part2_lambda"] = strconv.FormatFloat(cfg.Part2.Lambda, 'g', -1, 64)
	info["part2_steps"] = strconv.Itoa(cfg.Part2.T)
	return &model.Model{Algorithm: "nsvm4", Task: model.Regression, Net: net, Head: h, Info: info}, nil
}
