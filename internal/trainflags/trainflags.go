// Package trainflags maps nsvm train's training flags (--algo, --C,
// --gamma, --arch, …) to a search.FitConfig. It is the one mapping: the
// command line registers these flags beside its own (the data file, the
// model file, the outputs), and the browser page (package toy) parses the
// text of its options box with ParseTrainArgs, so that the same flags train
// the same model, byte for byte, in both.
//
// Errors wrap search.ErrBadConfig; their text, after that error's prefix,
// names the flag.
package trainflags

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/nsvm-go/nsvm/internal/cliflag"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/search"
)

// Flags holds the training flags: most of them pin a field of Config
// directly (everything left unset is chosen by search.Fit).
type Flags struct {
	Config search.FitConfig
	// Kernel is --kernel, which may be "precomputed" (svm-train -t 4:
	// the data are kernel values, which only the command line reads).
	Kernel string
	Reg    Reg

	epsilon, coef0, momentum, weightDec float64
	nu                                  float64
	balanced                            bool
}

// Reg holds --reg, --reg-weight and --reg-target, which nsvm reproduce
// takes too.
type Reg struct {
	Name           string
	Weight, Target float64
}

// bad returns an error wrapping search.ErrBadConfig.
func bad(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{search.ErrBadConfig}, args...)...)
}

// Register registers the --reg flags on fs.
func (r *Reg) Register(fs *flag.FlagSet) {
	fs.StringVar(&r.Name, "reg", "none", "regulariser of the batch kernel matrix for nsvm3/nsvm4 (paper §6): none, entropy, frob-i, frob-ones or frob")
	fs.Float64Var(&r.Weight, "reg-weight", 0.1, "weight ρ of the --reg regulariser")
	fs.Float64Var(&r.Target, "reg-target", 0, "--reg target: 0 for the barrier form; entropy: s₀ in (0,1) for (S−s₀)²; frob*: t in (0,1] for max(0, t−d)²")
}

// Config checks the --reg flags and returns the library's RegConfig; set
// tells which flags were given.
func (r *Reg) Config(set map[string]bool) (paper.RegConfig, error) {
	if r.Name == "none" {
		if set["reg-weight"] || set["reg-target"] {
			return paper.RegConfig{}, bad("--reg-weight and --reg-target need --reg")
		}
		return paper.RegConfig{}, nil
	}
	if !slices.Contains(paper.RegNames, r.Name) {
		return paper.RegConfig{}, bad("unknown --reg %q (want %s)", r.Name, strings.Join(paper.RegNames, ", "))
	}
	c := paper.RegConfig{Name: r.Name, Rho: r.Weight, Target: r.Target}
	if err := c.Validate(); err != nil {
		return c, bad("%s", strings.TrimPrefix(err.Error(), "nsvm: "))
	}
	return c, nil
}

// Register registers the training flags on fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	c := &f.Config
	choice := func(dst *string, name string, values []string, auto bool, usage string) {
		fs.Var(cliflag.Choice{Dst: dst, Name: name, Values: values, Auto: auto}, name, usage)
	}
	positive := func(dst *float64, name, usage string) { fs.Var(cliflag.Positive{Dst: dst, Name: name}, name, usage) }
	count := func(dst *int, name, usage string) { fs.Var(cliflag.Count{Dst: dst, Name: name}, name, usage) }
	choice(&c.Algorithm, "algo", search.Algorithms(), true, "pin the algorithm: nsvm1, nsvm2, nsvm3, nsvm4, or classical "+strings.Join(search.Algorithms()[4:], ", ")+" (default: chosen by validation among SMO's RBF SVM and NSVMs)")
	choice(&c.Task, "task", []string{model.Classification, model.Regression}, true, "classification or regression (default: regression when the labels are not class labels)")
	choice(&c.Scaling, "scaling", []string{search.ScaleStandardize, search.ScaleGlobal, search.ScaleNone}, true, "input scaling: standardize (per feature), global (one mean and deviation), none (default: chosen by validation; none with --gamma, which is in the inputs' units)")
	choice(&c.Augment, "augment", search.Augmentations, false, "nsvm4 on images: Part I augmentation, none, shift (random one-pixel shifts), flip (random mirror images) or shift+flip (default: chosen by validation)")
	fs.Var(cliflag.Shape{Dst: &c.InShape}, "input-shape", "shape of one row, e.g. 1x8x8 for 8×8 images (brings CNNs into the search; default: the data's)")
	fs.StringVar(&c.Arch, "arch", "", "pin the NSVM network, e.g. \"dense(64),relu,dense(32),relu\" (default: sized from the data)")
	choice(&f.Kernel, "kernel", []string{"linear", "poly", "rbf", "sigmoid", "precomputed"}, false, "kernel (on the inputs for classical solvers, on the features for NSVMs): linear, poly, rbf, sigmoid, or precomputed (svm-train -t 4) (default rbf)")
	positive(&c.Gamma, "gamma", "pin the kernel's γ (default: chosen by validation)")
	fs.Float64Var(&f.coef0, "coef0", 0, "kernel coef0 (poly, sigmoid)")
	count(&c.Degree, "degree", "poly kernel degree (default 3)")
	fs.BoolVar(&c.NormalizeKernel, "normalize-kernel", false, "use the normalised kernel K̃ (paper §4.1.3)")
	positive(&c.C, "C", "pin the SVM's C (classical solvers, NSVM heads; default: chosen by validation)")
	positive(&c.Lambda, "lambda", "pin λ of Pegasos and the NSVM trainers (default: the trainer's)")
	fs.Float64Var(&f.epsilon, "epsilon", 0, "regression: pin the SVR's ε in target units (default: chosen by validation)")
	positive(&c.Tol, "eps", "stopping tolerance of SMO and chunking (default 1e-3) and of the linear solver (default 0.1 on the C paths, 1e-4 for the model)")
	count(&c.CacheMB, "cache-mb", "kernel memory in MB: an SMO fit's column cache, the search's kernel matrices (default 100, as svm-train -m)")
	count(&c.Steps, "steps", "pin the steps of NSVM trainers (Part I for nsvm4) and Pegasos (default: epochs with early stopping, or the paper's counts)")
	count(&c.Steps2, "steps2", "nsvm4 with --solver2 pegasos: Part II steps")
	count(&c.Epochs, "epochs", "perceptron and dual-sga epochs")
	count(&c.Batch, "batch", "batch size k of nsvm3/nsvm4 and mini-batch Pegasos")
	count(&c.Chunk, "chunk", "chunking's working-set size; nsvm2's feature chunk")
	positive(&c.LR, "lr", "NSVM learning rate (default: the algorithm's)")
	fs.Float64Var(&f.momentum, "momentum", 0.9, "NSVM SGD momentum")
	fs.Float64Var(&f.weightDec, "weight-decay", 1e-4, "NSVM L2 weight decay")
	choice(&c.Optimizer, "optimizer", []string{"sgd", "adam"}, false, "NSVM θ-optimizer: sgd or adam")
	choice(&c.Schedule, "schedule", []string{"constant", "invt", "cosine", "onecycle"}, false, "NSVM learning-rate schedule: constant, invt (LR·1000/(1000+t)), cosine or onecycle (over the Part I steps)")
	choice(&c.Objective, "objective", []string{paper.ObjectiveAlign, paper.ObjectiveSoftmax}, false, "nsvm4 Part I objective on classes: align (the paper's kernel-target alignment) or softmax (cross-entropy through a temporary softmax head, discarded after Part I) (default: chosen by validation)")
	positive(&c.Mu, "mu", "nsvm3: μ, weight of the ‖f‖²-replacement term (default 1)")
	choice(&c.Loss, "loss", []string{"squared", "neg"}, false, "nsvm4 Part I loss: squared ((1−A)², default) or neg (−A)")
	choice(&c.Solver2, "solver2", []string{"smo", "pegasos"}, false, "nsvm4 Part II solver: smo or pegasos (the paper's)")
	choice(&c.Target, "target", []string{paper.TargetRBF, paper.TargetLinear}, false, "regression with nsvm4: Part I target kernel, rbf (exp(−(y−y')²/2σ²), default) or linear (centred yyᵀ)")
	f.Reg.Register(fs)
	fs.BoolVar(&c.Bias, "bias", false, "add an unregularised bias term (pegasos; NSVM algorithms, paper §7)")
	fs.BoolVar(&f.balanced, "balanced", false, "nsvm3 on more than two classes: class-balanced alignment labels (default true; --balanced=false for the ±1 labels)")
	choice(&c.Multiclass, "multiclass", []string{model.OneVsOne, model.OneVsRest}, false, "heads on more than two classes: ovo (one-vs-one, default) or ovr (one-vs-rest)")
	fs.StringVar(&c.ClassWeight, "class-weight", "", "class weights: balanced (N/(K·N_class)), none, or LABEL:W,… as svm-train's -wLABEL W (default: balanced when the smallest class has under a fifth of its balanced share of the rows, else none)")
	choice(&c.Metric, "metric", search.Metrics(), false, "selection metric: "+strings.Join(search.Metrics(), ", ")+" (default: rmse for regression; accuracy, but roc_auc (2 classes) or balanced_accuracy on imbalanced classes)")
	choice(&c.SVMType, "svm-type", search.SVMTypes(), false, "LIBSVM's svm type (svm-train -s 0…4): c-svc, nu-svc, one-class (trains on every row whatever its label; predicts +1 inlier, −1 outlier), epsilon-svr or nu-svr; pins --algo smo (default: c-svc or epsilon-svr by the task)")
	fs.Float64Var(&f.nu, "nu", 0, "ν of nu-svc, one-class and nu-svr, in (0, 1] (svm-train -n; default: chosen by validation, 0.5 for one-class)")
	choice(&c.NearCopies, "near-copies", search.NearCopyRules(), false, "validation rows that are near copies (cosine ≥ 0.9) of training rows: keep (score them) or drop (leave them out; sparse rows) (default: drop on wide sparse rows such as text, keep otherwise)")
	choice(&c.LinearLoss, "linear-loss", []string{"l1", "l2", "l2+l1"}, false, "--algo linear: l2 (squared hinge, liblinear -s 1), l1 (hinge, -s 3) or l2+l1 (the mean of the two at one C) (default: chosen by validation)")
	fs.BoolVar(&c.Probability, "probability", false, "calibrate probabilities (Platt scaling on out-of-fold decision values); predict --probability prints them")
	count(&c.Folds, "folds", "validation folds for the selection; 1 = one hold-out split (default: 5, 3 or hold-out by size)")
	fs.DurationVar(&c.Budget, "budget", 0, "bound on the time of the whole selection, e.g. 30s or 5m, checked as each candidate's run starts (the first, the incumbent, always runs) (default 10m)")
	count(&c.SampleRows, "sample-rows", "with --stream: the rows kept in memory (default: as many as 256 MB hold, at most 10⁶)")
	count(&c.Workers, "workers", "goroutines for the selection and the solvers (default: all cores; results do not depend on it)")
	fs.Uint64Var(&c.Seed, "seed", search.DefaultSeed, "random seed: splits, initialisation, sampling (0 means the default)")
}

// FitConfig checks what the flags say together and returns the
// configuration: the fields the flags pinned, and those that need more
// than a value's own check. set tells which flags were given
// (cliflag.Given).
func (f *Flags) FitConfig(set map[string]bool) (*search.FitConfig, error) {
	c := &f.Config
	algo := c.Algorithm
	switch {
	case set["momentum"] && !(f.momentum >= 0 && f.momentum < 1):
		return nil, bad("--momentum must be in [0, 1), got %g", f.momentum)
	case set["weight-decay"] && (!(f.weightDec >= 0) || math.IsInf(f.weightDec, 0)):
		return nil, bad("--weight-decay must be ≥ 0, got %g", f.weightDec)
	case set["batch"] && c.Batch < 2 && (algo == "" || algo == "nsvm3" || algo == "nsvm4"):
		return nil, bad("--batch must be ≥ 2 for the NSVM algorithms nsvm3 and nsvm4, got %d", c.Batch)
	case set["balanced"] && algo != "nsvm3":
		return nil, bad("--balanced applies to nsvm3, not %q", algo)
	case set["reg"] && f.Reg.Name != "none" && algo != "" && algo != "nsvm3" && algo != "nsvm4":
		return nil, bad("--reg applies to nsvm3 and nsvm4, not %s", algo)
	case algo == "nsvm3" && c.Multiclass == model.OneVsOne:
		return nil, bad("--algo nsvm3 trains one-vs-rest heads jointly with the network and supports --multiclass ovr only; use nsvm4 for one-vs-one heads")
	case set["target"] && algo != "" && algo != "nsvm4":
		return nil, bad("--target is the Part I target kernel of nsvm4, not of %s", algo)
	case (set["epsilon"] || set["target"]) && c.Task == model.Classification:
		return nil, bad("--epsilon and --target apply to --task regression")
	case set["nu"] && !(f.nu > 0 && f.nu <= 1):
		return nil, bad("--nu must be in (0, 1], got %g", f.nu)
	case set["epsilon"] && (!(f.epsilon >= 0) || math.IsInf(f.epsilon, 0)):
		return nil, bad("--epsilon must be a finite number ≥ 0, got %g", f.epsilon)
	case set["coef0"] && (math.IsNaN(f.coef0) || math.IsInf(f.coef0, 0)):
		return nil, bad("--coef0 must be finite")
	case set["budget"] && c.Budget <= 0:
		return nil, bad("--budget must be > 0, got %v", c.Budget)
	}
	if c.Task == model.Regression {
		for _, name := range []string{"probability", "multiclass", "balanced"} {
			if set[name] {
				return nil, bad("--%s applies to classification, not --task regression", name)
			}
		}
	}
	if f.Kernel != "precomputed" {
		c.Kernel = f.Kernel
	}
	if set["balanced"] {
		c.Balanced = &f.balanced
	}
	if set["momentum"] {
		c.Momentum = &f.momentum
	}
	if set["weight-decay"] {
		c.WeightDecay = &f.weightDec
	}
	c.Nu, c.Coef0 = f.nu, f.coef0
	if set["epsilon"] {
		c.Epsilon = f.epsilon
		if f.epsilon == 0 {
			c.Epsilon = -1 // exactly 0
		}
	}
	var err error
	if c.Reg, err = f.Reg.Config(set); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// ParseTrainArgs parses the training flags in args, as nsvm train takes
// them but without the flags that name files or outputs (--data, --model,
// --cv, …), and returns the configuration nsvm train fits with them. A
// FitConfig with Progress set, on the same rows, gives the model nsvm train
// writes.
func ParseTrainArgs(args []string) (*search.FitConfig, error) {
	var f Flags
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, bad("no help here: the flags are nsvm train's (see nsvm train -h)")
		}
		return nil, bad("%s", cliflag.ParseError(err))
	}
	if fs.NArg() > 0 {
		return nil, bad("unexpected argument %q", fs.Arg(0))
	}
	if f.Kernel == "precomputed" {
		return nil, bad("--kernel precomputed trains on rows of kernel values, which only nsvm train reads")
	}
	return f.FitConfig(cliflag.Given(fs))
}

// Message is err's text without search.ErrBadConfig's prefix: what a
// front end prints after its own name.
func Message(err error) string {
	return strings.TrimPrefix(err.Error(), search.ErrBadConfig.Error()+": ")
}
