package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/cliflag"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/report"
	"github.com/nsvm-go/nsvm/search"
	"github.com/nsvm-go/nsvm/serve"
)

// trainFlags holds the flags of "nsvm train": most of them pin a field of
// c, the nsvm.FitConfig, directly (everything left unset is chosen by
// nsvm.Fit); the others say where data and outputs go.
type trainFlags struct {
	dataFlags
	c                                   nsvm.FitConfig
	model, kernel, weights              string
	epsilon, coef0, momentum, weightDec float64
	nu                                  float64
	checkpointEvery                     int
	reg                                 regFlags
	balanced, stream, cvFixed           bool
	cv                                  int
	json, quiet                         bool
	checkpoint, resume, log, cont       string
	set                                 map[string]bool
	loadSeconds                         float64 // reading the data
}

// regFlags holds --reg, --reg-weight and --reg-target, shared by train and
// reproduce.
type regFlags struct {
	name           string
	weight, target float64
}

func (r *regFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.name, "reg", "none", "regulariser of the batch kernel matrix for nsvm3/nsvm4 (paper §6): none, entropy, frob-i, frob-ones or frob")
	fs.Float64Var(&r.weight, "reg-weight", 0.1, "weight ρ of the --reg regulariser")
	fs.Float64Var(&r.target, "reg-target", 0, "--reg target: 0 for the barrier form; entropy: s₀ in (0,1) for (S−s₀)²; frob*: t in (0,1] for max(0, t−d)²")
}

// config checks the flags and returns the library's RegConfig; cmd names the
// command in errors and set tells which flags were given.
func (r *regFlags) config(cmd string, set map[string]bool) (nsvm.RegConfig, error) {
	if r.name == "none" {
		if set["reg-weight"] || set["reg-target"] {
			return nsvm.RegConfig{}, usagef("nsvm %s: --reg-weight and --reg-target need --reg", cmd)
		}
		return nsvm.RegConfig{}, nil
	}
	if !slices.Contains(paper.RegNames, r.name) {
		return nsvm.RegConfig{}, usagef("nsvm %s: unknown --reg %q (want %s)", cmd, r.name, strings.Join(paper.RegNames, ", "))
	}
	c := nsvm.RegConfig{Name: r.name, Rho: r.weight, Target: r.target}
	if err := c.Validate(); err != nil {
		return c, usagef("nsvm %s: %s", cmd, strings.TrimPrefix(err.Error(), "nsvm: "))
	}
	return c, nil
}

func (f *trainFlags) register(fs *flag.FlagSet) {
	c := &f.c
	choice := func(dst *string, name string, values []string, auto bool, usage string) {
		fs.Var(cliflag.Choice{Dst: dst, Name: name, Values: values, Auto: auto}, name, usage)
	}
	positive := func(dst *float64, name, usage string) { fs.Var(cliflag.Positive{Dst: dst, Name: name}, name, usage) }
	count := func(dst *int, name, usage string) { fs.Var(cliflag.Count{Dst: dst, Name: name}, name, usage) }
	f.dataFlags.register(fs)
	fs.BoolVar(&f.dataFlags.fillMissing, "fill-missing", false, "CSV: replace a missing value (empty, NA, ?) in a column of numbers by the column's mean, which the model keeps to fill new data with (default: an error)")
	fs.StringVar(&f.model, "model", "", "write the trained model to this `file` (required unless --cv)")
	choice(&c.Algorithm, "algo", search.Algorithms(), true, "pin the algorithm: nsvm1, nsvm2, nsvm3, nsvm4, or classical "+strings.Join(search.Algorithms()[4:], ", ")+" (default: chosen by validation among SMO's RBF SVM and NSVMs)")
	choice(&c.Task, "task", []string{nsvm.Classification, nsvm.Regression}, true, "classification or regression (default: regression when the labels are not class labels)")
	choice(&c.Scaling, "scaling", []string{nsvm.ScaleStandardize, nsvm.ScaleGlobal, nsvm.ScaleNone}, true, "input scaling: standardize (per feature), global (one mean and deviation), none (the inputs as they are, as svm-train takes them) (default: chosen by validation, also with --gamma, which is in the scaled inputs' units)")
	choice(&c.Augment, "augment", search.Augmentations, false, "nsvm4 on images: Part I augmentation, none, shift (random one-pixel shifts), flip (random mirror images) or shift+flip (default: chosen by validation)")
	fs.Var(cliflag.Shape{Dst: &c.InShape}, "input-shape", "shape of one row, e.g. 1x8x8 for 8×8 images (brings CNNs into the search; default: the data's)")
	fs.StringVar(&c.Arch, "arch", "", "pin the NSVM network, e.g. \"dense(64),relu,dense(32),relu\" (default: sized from the data)")
	choice(&f.kernel, "kernel", []string{"linear", "poly", "rbf", "sigmoid", "precomputed"}, false, "kernel (on the inputs for classical solvers, on the features for NSVMs): linear, poly, rbf, sigmoid, or precomputed (svm-train -t 4) (default rbf)")
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
	f.reg.register(fs)
	fs.BoolVar(&c.Bias, "bias", false, "add an unregularised bias term (pegasos; NSVM algorithms, paper §7)")
	fs.BoolVar(&f.balanced, "balanced", false, "nsvm3 on more than two classes: class-balanced alignment labels (default true; --balanced=false for the ±1 labels)")
	choice(&c.Multiclass, "multiclass", []string{nsvm.OneVsOne, nsvm.OneVsRest}, false, "heads on more than two classes: ovo (one-vs-one, default) or ovr (one-vs-rest)")
	fs.StringVar(&c.ClassWeight, "class-weight", "", "class weights: balanced (N/(K·N_class)), none, or LABEL:W,… as svm-train's -wLABEL W (default: balanced when the smallest class has under a fifth of its balanced share of the rows, else none)")
	fs.StringVar(&f.weights, "weights", "", "sample weights `file`: one number ≥ 0 a line (a header line allowed) or a .npy, one per row: a row of weight w counts as w rows in training and in the selection's scores")
	fs.StringVar(&f.dataFlags.weightCol, "weight-col", "", "CSV: the column of sample weights, by header name or 0-based index (left out of the features)")
	choice(&c.Metric, "metric", search.Metrics(), false, "selection metric: "+strings.Join(search.Metrics(), ", ")+" (default: rmse for regression; accuracy, but roc_auc (2 classes) or balanced_accuracy on imbalanced classes)")
	choice(&c.SVMType, "svm-type", search.SVMTypes(), false, "LIBSVM's svm type (svm-train -s 0…4): c-svc, nu-svc, one-class (trains on every row whatever its label; predicts +1 inlier, −1 outlier), epsilon-svr or nu-svr; pins --algo smo (default: c-svc or epsilon-svr by the task)")
	fs.Float64Var(&f.nu, "nu", 0, "ν of nu-svc, one-class and nu-svr, in (0, 1] (svm-train -n; default: chosen by validation, 0.5 for one-class)")
	choice(&c.NearCopies, "near-copies", search.NearCopyRules(), false, "validation rows that are near copies (cosine ≥ 0.9) of training rows: keep (score them) or drop (leave them out; sparse rows) (default: drop on wide sparse rows such as text, keep otherwise)")
	choice(&c.LinearLoss, "linear-loss", []string{"l1", "l2", "l2+l1"}, false, "--algo linear: l2 (squared hinge, liblinear -s 1), l1 (hinge, -s 3) or l2+l1 (the mean of the two at one C) (default: chosen by validation)")
	fs.BoolVar(&c.Probability, "probability", false, "calibrate probabilities (Platt scaling on out-of-fold decision values); predict --probability prints them")
	count(&c.Folds, "folds", "validation folds for the selection; 1 = one hold-out split (default: 5, 3 or hold-out by size)")
	fs.DurationVar(&c.Budget, "budget", 0, "bound on the time of the whole selection, e.g. 30s or 5m, checked as each candidate's run starts (the first, the incumbent, always runs) (default 10m)")
	fs.BoolVar(&f.stream, "stream", false, "train from the file in bounded memory (a sample for selection; an NSVM's Part I reads the whole file); default: on for LIBSVM and CSV files over 1 GiB")
	fs.Var(serve.ByteSize{P: &c.MaxMemory}, "max-memory", "bound on the memory of what the data imply beyond their rows (the heads of many classes, vectors over many features), checked before training, e.g. 8GiB (default: half of the machine's memory)")
	count(&c.SampleRows, "sample-rows", "with --stream: the rows kept in memory (default: as many as 256 MB hold, at most 10⁶)")
	fs.IntVar(&f.cv, "cv", 0, "report K-fold cross-validated accuracy (RMSE for regression) of this configuration instead of writing a model (what the flags leave open is selected in each fold)")
	fs.BoolVar(&f.cvFixed, "cv-fixed", false, "with --cv: select once on all rows, then cross-validate the chosen configuration alone (one selection instead of K)")
	count(&c.Workers, "workers", "goroutines for the selection and the solvers (default: all cores; results do not depend on it)")
	fs.Uint64Var(&c.Seed, "seed", nsvm.DefaultSeed, "random seed: splits, initialisation, sampling (0 means the default)")
	fs.BoolVar(&f.json, "json", false, "print one JSON object on stdout")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "pinned NSVM algorithms: write checkpoints to this `file` (every --checkpoint-every steps and on Ctrl-C)")
	count(&f.checkpointEvery, "checkpoint-every", "steps between checkpoints (default: T/20 when --checkpoint is set)")
	fs.StringVar(&f.resume, "resume", "", "pinned NSVM algorithms: continue the run saved in this checkpoint `file` (same data and flags)")
	fs.StringVar(&f.cont, "continue", "", "train on from this model `file` with the rows of --data (its columns and classes), as partial_fit: see nsvm.Continue")
	fs.StringVar(&f.log, "log", "", "write every progress report of the final fit as a JSON line to this `file` (for nsvm plot --log)")
}

func (e *env) train(args []string) error {
	var f trainFlags
	fs := e.newFlags("train", "train --data FILE --model OUT [flags]   (every flag but --data and --model is optional)")
	f.register(fs)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	f.set = cliflag.Given(fs)
	if err := f.checkOutputs(); err != nil {
		return err
	}
	if f.cvFixed && f.cv == 0 {
		return usagef("nsvm train: --cv-fixed goes with --cv K")
	}
	if f.cv == 0 && f.model == "" {
		return usagef("nsvm train: --model is required (or --cv K to cross-validate without writing a model)")
	}
	if f.set["cv"] && f.cv < 2 {
		return usagef("nsvm train: --cv must be ≥ 2, got %d", f.cv)
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	if f.cv == 0 {
		// The files a fit writes, before any data is read.
		for _, out := range [][2]string{{f.model, "model"}, {f.checkpoint, "checkpoint"}} {
			if out[0] != "" {
				if err := checkWritable(out[0], out[1]); err != nil {
					return err
				}
			}
		}
	}
	if f.cont != "" { // nsvm.Continue on the rows of --data, read with the model's columns
		m, ds, err := e.loadFor("train", f.cont, &f.dataFlags)
		if err != nil || f.cv > 0 || f.stream {
			return cmp.Or(err, usagef("nsvm train: --continue takes no --cv or --stream"))
		}
		return e.runFit(&f, cfg, func() (*nsvm.Model, error) {
			return nsvm.Continue(e.ctx, m, ds, &nsvm.ContinueConfig{Seed: cfg.Seed, Progress: cfg.Progress})
		}, func() (*data.Dataset, error) { return ds, nil })
	}
	if f.streaming() {
		if f.weights != "" || f.dataFlags.weightCol != "" {
			return usagef("nsvm train: sample weights need the whole data in memory; they do not stream (leave out --stream, or the weights)")
		}
		if f.cv > 0 {
			return usagef("nsvm train: --cv reads the whole data; it does not stream")
		}
		return e.trainStream(&f, cfg)
	}
	loadStart := time.Now()
	if f.kernel == "precomputed" {
		return e.trainPrecomputed(&f, cfg)
	}
	ds, err := f.dataFlags.load("train")
	if big := (*data.TooLargeError)(nil); errors.As(err, &big) && f.canStream() {
		// A compressed file is known to be large only once decompressed.
		fmt.Fprintf(e.stderr, "nsvm train: %s decompresses to more than %.1f GiB: training from a stream, in bounded memory\n", f.path, float64(big.Limit)/(1<<30))
		return e.trainStream(&f, cfg)
	}
	if err != nil {
		return err
	}
	if f.weights != "" {
		if ds.W != nil {
			return usagef("nsvm train: --weights and --weight-col both give sample weights; give one")
		}
		if ds.W, err = data.ReadWeights(f.weights, ds.N); err != nil {
			return err
		}
	}
	f.loadSeconds = time.Since(loadStart).Seconds()
	e.notices("train", ds)
	if f.cv > 0 {
		return e.crossValidate(&f, cfg, ds)
	}
	return e.fitAndSave(&f, cfg, ds)
}

// trainPrecomputed is train --kernel precomputed: svm-train -t 4 on the
// kernel values of the data file.
func (e *env) trainPrecomputed(f *trainFlags, cfg *nsvm.FitConfig) error {
	if f.cv > 0 || f.c.Algorithm != "" && f.c.Algorithm != "smo" || f.c.SVMType != "" && f.c.SVMType != search.SVMCSVC {
		return usagef("nsvm train: --kernel precomputed trains LIBSVM's C-SVC, with --C or C chosen by validation (no --cv, --algo or other --svm-type)")
	}
	ds, err := readPrecomputed(f.path, 0)
	if err != nil {
		return err
	}
	return e.runFit(f, cfg, func() (*nsvm.Model, error) { return nsvm.FitPrecomputed(e.ctx, ds, cfg) },
		func() (*data.Dataset, error) { return ds, nil })
}

// fitAndSave trains on ds, writes the model and reports it.
func (e *env) fitAndSave(f *trainFlags, cfg *nsvm.FitConfig, ds *data.Dataset) error {
	return e.runFit(f, cfg, func() (*nsvm.Model, error) { return nsvm.Fit(e.ctx, ds, cfg) },
		func() (*data.Dataset, error) { return ds, nil })
}

// runFit runs fit (Fit, FitStream or FitPrecomputed on cfg) with what the
// command puts around it (train has checked its outputs): the --log
// file, the progress lines, checkpoints and --resume, the model file, and
// the report of the model's scores on the rows scored returns.
func (e *env) runFit(f *trainFlags, cfg *nsvm.FitConfig, fit func() (*nsvm.Model, error), scored func() (*data.Dataset, error)) error {
	var err error
	var lg *progressLog
	if f.log != "" {
		if lg, err = openLog(f.log); err != nil {
			return err
		}
	}
	rend, done := e.fitLines(f, lg)
	cfg.Progress = rend.Update
	saved, saveErr := -1, error(nil) // the step of the last checkpoint written, the last save's error
	if f.checkpoint != "" {
		cfg.Train.CheckpointEvery = f.checkpointEvery
		cfg.Train.Checkpoint = func(c *paper.Checkpoint) error {
			if saveErr = c.Save(f.checkpoint); saveErr == nil {
				saved = c.Step
			}
			return saveErr
		}
	}
	if f.resume != "" {
		if cfg.Train.Resume, err = paper.LoadCheckpoint(f.resume); err != nil {
			lg.close(err)
			return err
		}
	}
	start := time.Now()
	m, err := fit()
	done()
	secs := time.Since(start).Seconds()
	if cerr := lg.close(err); err == nil {
		err = cerr
	}
	if err != nil {
		if e.ctx.Err() != nil {
			switch {
			case saveErr != nil:
				// The checkpoint on interrupt failed; err says why.
			case saved >= 0:
				return fmt.Errorf("nsvm train: interrupted; checkpoint at step %d written to %s (continue with the same flags and --resume %s)",
					saved, f.checkpoint, f.checkpoint)
			default:
				return fmt.Errorf("nsvm train: interrupted (%v)", strings.TrimPrefix(err.Error(), "nsvm: "))
			}
		}
		return trainError(f, err)
	}
	if err := m.Save(f.model); err != nil {
		return err
	}
	ds, err := scored()
	if err != nil {
		return err
	}
	return e.reportTrained(f, rend, m, ds, secs)
}

// streaming reports whether train reads the data as a stream.
func (f *trainFlags) streaming() bool {
	if f.set["stream"] {
		return f.stream
	}
	if f.format == "idx" || f.checkpoint != "" || f.resume != "" {
		return false
	}
	st, err := os.Stat(f.path)
	if err != nil || st.Size() < data.StreamBytes {
		return false
	}
	base := strings.ToLower(strings.TrimSuffix(f.path, ".gz"))
	return f.format != "" || strings.HasSuffix(base, ".csv") || strings.HasSuffix(base, ".libsvm") || strings.HasSuffix(base, ".svm")
}

// canStream reports whether train may turn to a stream when the data turn
// out too large to read whole: no --stream given, and nothing asked for
// that needs the data whole.
func (f *trainFlags) canStream() bool {
	return !f.set["stream"] && f.format != "idx" && f.checkpoint == "" && f.resume == "" &&
		f.cv == 0 && f.weights == "" && f.dataFlags.weightCol == "" && f.kernel != "precomputed"
}

// trainStream is train on a stream (nsvm.FitStream).
func (e *env) trainStream(f *trainFlags, cfg *nsvm.FitConfig) error {
	s, err := f.dataFlags.openStream("train")
	if err != nil {
		return err
	}
	defer s.Close()
	if s.Layout() == data.LayoutSparse && f.layout != data.LayoutDense {
		// Wide, sparse rows: their nonzeros are the bounded form of the
		// data (a sample of dense rows would hold D values a row), so the
		// stream is read whole into sparse rows and trained on as they are.
		fmt.Fprintf(e.stderr, "nsvm train: %s holds wide, sparse rows (%d features); reading its nonzeros into memory as sparse rows\n", f.path, s.D())
		ds, err := s.ReadSparse(math.MaxInt32)
		if err != nil {
			return err
		}
		if err := ds.Validate(); err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		return e.fitAndSave(f, cfg, ds)
	}
	return e.runFit(f, cfg, func() (*nsvm.Model, error) { return nsvm.FitStream(e.ctx, s, cfg) }, func() (*data.Dataset, error) {
		// Training scores on the first rows of the stream.
		if err := s.Rewind(); err != nil {
			return nil, err
		}
		if s.Layout() == data.LayoutSparse {
			return s.ReadSparse(report.SummaryRows)
		}
		return s.ReadRows(report.SummaryRows)
	})
}

// config checks what the flags say together and returns the library's
// configuration: the fields the flags pinned, and those that need more
// than a value's own check.
func (f *trainFlags) config() (*nsvm.FitConfig, error) {
	c := &f.c
	algo, set := c.Algorithm, f.set
	switch {
	case set["momentum"] && !(f.momentum >= 0 && f.momentum < 1):
		return nil, usagef("nsvm train: --momentum must be in [0, 1), got %g", f.momentum)
	case set["weight-decay"] && (!(f.weightDec >= 0) || math.IsInf(f.weightDec, 0)):
		return nil, usagef("nsvm train: --weight-decay must be ≥ 0, got %g", f.weightDec)
	case set["batch"] && c.Batch < 2 && (algo == "" || algo == "nsvm3" || algo == "nsvm4"):
		return nil, usagef("nsvm train: --batch must be ≥ 2 for the NSVM algorithms nsvm3 and nsvm4, got %d", c.Batch)
	case set["balanced"] && algo != "nsvm3":
		return nil, usagef("nsvm train: --balanced applies to nsvm3, not %q", algo)
	case set["target"] && algo != "" && algo != "nsvm4":
		return nil, usagef("nsvm train: --target is the Part I target kernel of nsvm4, not of %s", algo)
	case (set["epsilon"] || set["target"]) && c.Task == nsvm.Classification:
		return nil, usagef("nsvm train: --epsilon and --target apply to --task regression")
	case set["nu"] && !(f.nu > 0 && f.nu <= 1):
		return nil, usagef("nsvm train: --nu must be in (0, 1], got %g", f.nu)
	case set["epsilon"] && (!(f.epsilon >= 0) || math.IsInf(f.epsilon, 0)):
		return nil, usagef("nsvm train: --epsilon must be a finite number ≥ 0, got %g", f.epsilon)
	case set["budget"] && c.Budget <= 0:
		return nil, usagef("nsvm train: --budget must be > 0, got %v", c.Budget)
	case (f.checkpoint != "" || f.resume != "" || set["checkpoint-every"]) && !strings.HasPrefix(algo, "nsvm"):
		return nil, usagef("nsvm train: --checkpoint and --resume need a pinned NSVM algorithm (--algo nsvm1 … nsvm4)")
	case f.cv > 0 && (f.checkpoint != "" || f.resume != "" || f.log != ""):
		return nil, usagef("nsvm train: --cv writes no model; --checkpoint, --resume and --log do not apply")
	}
	for _, name := range []string{"probability", "multiclass", "balanced"} {
		if set[name] && c.Task == nsvm.Regression {
			return nil, usagef("nsvm train: --%s applies to classification, not --task regression", name)
		}
	}
	if f.kernel != "precomputed" {
		c.Kernel = f.kernel
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
	if c.Reg, err = f.reg.config("train", set); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, trainError(f, err)
	}
	return c, nil
}

// trainError words a library error for the command line: bad data names
// the file, a configuration that cannot work is a usage error (exit 2).
func trainError(f *trainFlags, err error) error {
	switch {
	case errors.Is(err, nsvm.ErrBadData):
		return fmt.Errorf("nsvm train: %s: %s", f.path, strings.TrimPrefix(err.Error(), "nsvm: unusable data: "))
	case errors.Is(err, nsvm.ErrBadConfig):
		return usageError{"nsvm train: " + strings.TrimPrefix(err.Error(), "nsvm: bad configuration: ")}
	}
	return err
}

// report.SummaryRows bounds the rows the training scores are measured on.
// reportTrained prints the outcome of a fit whose progress rend rendered.
func (e *env) reportTrained(f *trainFlags, rend *report.FitLines, m *nsvm.Model, ds *data.Dataset, secs float64) error {
	r, err := report.SummarizeFit(m, ds, secs, f.model)
	if err != nil {
		return err
	}
	r.LoadSeconds, r.Phases = f.loadSeconds, rend.Phases
	if f.json {
		if r.OutlierShare != nil {
			return json.NewEncoder(e.stdout).Encode(map[string]any{"algo": "one-class", "n": ds.N, "train_seconds": secs,
				"n_sv": m.NumSV(), "outlier_share": *r.OutlierShare, "model": f.model, "info": m.Info})
		}
		return json.NewEncoder(e.stdout).Encode(r)
	}
	r.WriteText(e.stdout)
	return nil
}

// crossValidate is "nsvm train --cv K".
func (e *env) crossValidate(f *trainFlags, cfg *nsvm.FitConfig, ds *data.Dataset) error {
	rend, done := e.fitLines(f, nil)
	rend.Folds = true
	cfg.Progress = rend.Update
	cv := nsvm.CrossValidate
	switch {
	case f.cvFixed:
		cv = nsvm.CrossValidateSelected
	case !f.quiet && (cfg.Algorithm == "" || cfg.C == 0 || cfg.Gamma == 0 && f.kernel != "linear" && cfg.Algorithm != "linear"):
		fmt.Fprintf(e.stderr, "nsvm train: --cv %d runs the selection of what the flags leave open in each fold (nested cross-validation: %d selections and fits); --cv-fixed runs it once on all rows and cross-validates the configuration it chooses\n", f.cv, f.cv)
	}
	r, err := cv(e.ctx, ds, cfg, f.cv)
	done()
	if err != nil {
		return trainError(f, err)
	}
	if f.json {
		return json.NewEncoder(e.stdout).Encode(r)
	}
	report.CrossValidation(e.stdout, r)
	return nil
}

// fitLines returns the renderer of a fit's progress: candidate lines on
// stderr, a progress bar of the final fit on a terminal, and the final
// fit's reports in the --log file; and the function that ends the bar.
func (e *env) fitLines(f *trainFlags, lg *progressLog) (*report.FitLines, func()) {
	quiet := f.quiet || f.json && !e.terminal()
	algo := f.c.Algorithm
	if algo == "" {
		algo = "train"
	}
	r := &report.FitLines{W: e.stderr, Quiet: quiet}
	var done func()
	r.Bar, done = e.progressFor(algo, quiet)
	if lg != nil {
		r.Log = lg.callback(algo, f.c.Seed)
	}
	return r, done
}
