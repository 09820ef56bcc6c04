package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/report"
	"github.com/nsvm-go/nsvm/search"
)

// trainFlags holds every flag of "nsvm train"; each one set on the command
// line pins one field of nsvm.FitConfig, and everything left unset is
// chosen by nsvm.Fit.
type trainFlags struct {
	dataFlags
	model, algo, task, scaling, inputShape, arch string
	kernel                                       string
	gamma, coef0                                 float64
	degree                                       int
	normalizeKernel                              bool
	C, lambda, epsilon, eps                      float64
	cacheMB                                      int
	steps, steps2, epochs, batch, chunk          int
	lr, momentum, weightDecay                    float64
	optimizer, schedule                          string
	mu                                           float64
	loss, solver2, target, objective, augment    string
	reg                                          regFlags
	bias, balanced                               bool
	multiclass                                   string
	classWeight, metric, linearLoss, weights     string
	svmType                                      string
	nu                                           float64
	probability                                  bool
	folds, cv, workers                           int
	stream                                       bool
	sampleRows                                   int
	budget                                       time.Duration
	seed                                         uint64
	json, quiet                                  bool
	checkpoint, resume, log                      string
	checkpointEvery                              int
	set                                          map[string]bool
	loadSeconds                                  float64 // reading the data
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
	if !contains(paper.RegNames, r.name) {
		return nsvm.RegConfig{}, usagef("nsvm %s: unknown --reg %q (want %s)", cmd, r.name, strings.Join(paper.RegNames, ", "))
	}
	c := nsvm.RegConfig{Name: r.name, Rho: r.weight, Target: r.target}
	if err := c.Validate(); err != nil {
		return c, usagef("nsvm %s: %s", cmd, strings.TrimPrefix(err.Error(), "nsvm: "))
	}
	return c, nil
}

func (f *trainFlags) register(fs *flag.FlagSet) {
	f.dataFlags.register(fs)
	fs.BoolVar(&f.dataFlags.fillMissing, "fill-missing", false, "CSV: replace a missing value (empty, NA, ?) in a column of numbers by the column's mean, which the model keeps to fill new data with (default: an error)")
	fs.StringVar(&f.model, "model", "", "write the trained model to this `file` (required unless --cv)")
	fs.StringVar(&f.algo, "algo", "", "pin the algorithm: nsvm1, nsvm2, nsvm3, nsvm4, or classical "+strings.Join(classicalAlgos, ", ")+" (default: chosen by validation among SMO's RBF SVM and NSVMs)")
	fs.StringVar(&f.task, "task", "", "classification or regression (default: regression when the labels are not class labels)")
	fs.StringVar(&f.scaling, "scaling", "", "input scaling: standardize (per feature), global (one mean and deviation), none (default: chosen by validation)")
	fs.StringVar(&f.augment, "augment", "", "nsvm4 on images: Part I augmentation, none, shift (random one-pixel shifts), flip (random mirror images) or shift+flip (default: chosen by validation)")
	fs.StringVar(&f.inputShape, "input-shape", "", "shape of one row, e.g. 1x8x8 for 8×8 images (brings CNNs into the search; default: the data's)")
	fs.StringVar(&f.arch, "arch", "", "pin the NSVM network, e.g. \"dense(64),relu,dense(32),relu\" (default: sized from the data)")
	fs.StringVar(&f.kernel, "kernel", "", "kernel (on the inputs for classical solvers, on the features for NSVMs): linear, poly, rbf or sigmoid (default rbf)")
	fs.Float64Var(&f.gamma, "gamma", 0, "pin the kernel's γ (default: chosen by validation)")
	fs.Float64Var(&f.coef0, "coef0", 0, "kernel coef0 (poly, sigmoid)")
	fs.IntVar(&f.degree, "degree", 3, "poly kernel degree")
	fs.BoolVar(&f.normalizeKernel, "normalize-kernel", false, "use the normalised kernel K̃ (paper §4.1.3)")
	fs.Float64Var(&f.C, "C", 0, "pin the SVM's C (classical solvers, NSVM heads; default: chosen by validation)")
	fs.Float64Var(&f.lambda, "lambda", 0, "pin λ of Pegasos and the NSVM trainers (default: the trainer's)")
	fs.Float64Var(&f.epsilon, "epsilon", 0, "regression: pin the SVR's ε in target units (default: chosen by validation)")
	fs.Float64Var(&f.eps, "eps", 0, "SMO and chunking stopping tolerance (default 1e-3)")
	fs.IntVar(&f.cacheMB, "cache-mb", 0, "SMO kernel cache in MB (default 200)")
	fs.IntVar(&f.steps, "steps", 0, "pin the steps of NSVM trainers (Part I for nsvm4) and Pegasos (default: epochs with early stopping, or the paper's counts)")
	fs.IntVar(&f.steps2, "steps2", 0, "nsvm4 with --solver2 pegasos: Part II steps")
	fs.IntVar(&f.epochs, "epochs", 0, "perceptron and dual-sga epochs")
	fs.IntVar(&f.batch, "batch", 0, "batch size k of nsvm3/nsvm4 and mini-batch Pegasos")
	fs.IntVar(&f.chunk, "chunk", 0, "chunking's working-set size; nsvm2's feature chunk")
	fs.Float64Var(&f.lr, "lr", 0, "NSVM learning rate (default: the algorithm's)")
	fs.Float64Var(&f.momentum, "momentum", 0.9, "NSVM SGD momentum")
	fs.Float64Var(&f.weightDecay, "weight-decay", 1e-4, "NSVM L2 weight decay")
	fs.StringVar(&f.optimizer, "optimizer", "", "NSVM θ-optimizer: sgd or adam")
	fs.StringVar(&f.schedule, "schedule", "", "NSVM learning-rate schedule: constant, invt (LR·1000/(1000+t)), cosine or onecycle (over the Part I steps)")
	fs.StringVar(&f.objective, "objective", "", "nsvm4 Part I objective on classes: align (the paper's kernel-target alignment) or softmax (cross-entropy through a temporary softmax head, discarded after Part I) (default: chosen by validation)")
	fs.Float64Var(&f.mu, "mu", 1, "nsvm3: μ, weight of the ‖f‖²-replacement term")
	fs.StringVar(&f.loss, "loss", "", "nsvm4 Part I loss: squared ((1−A)², default) or neg (−A)")
	fs.StringVar(&f.solver2, "solver2", "", "nsvm4 Part II solver: smo or pegasos (the paper's)")
	fs.StringVar(&f.target, "target", "", "regression with nsvm4: Part I target kernel, rbf (exp(−(y−y')²/2σ²), default) or linear (centred yyᵀ)")
	f.reg.register(fs)
	fs.BoolVar(&f.bias, "bias", false, "add an unregularised bias term (pegasos; NSVM algorithms, paper §7)")
	fs.BoolVar(&f.balanced, "balanced", false, "nsvm3 on more than two classes: class-balanced alignment labels (default true; --balanced=false for the ±1 labels)")
	fs.StringVar(&f.multiclass, "multiclass", "", "heads on more than two classes: ovo (one-vs-one, default) or ovr (one-vs-rest)")
	fs.StringVar(&f.classWeight, "class-weight", "", "class weights: balanced (N/(K·N_class)), none, or LABEL:W,… as svm-train's -wLABEL W (default: balanced when the smallest class has under half its balanced share of the rows, else none)")
	fs.StringVar(&f.weights, "weights", "", "sample weights `file`: one number ≥ 0 a line (a header line allowed) or a .npy, one per row: a row of weight w counts as w rows in training and in the selection's scores")
	fs.StringVar(&f.dataFlags.weightCol, "weight-col", "", "CSV: the column of sample weights, by header name or 0-based index (left out of the features)")
	fs.StringVar(&f.metric, "metric", "", "selection metric: "+strings.Join(search.Metrics(), ", ")+" (default: rmse for regression; accuracy, but roc_auc (2 classes) or balanced_accuracy on imbalanced classes)")
	fs.StringVar(&f.svmType, "svm-type", "", "LIBSVM's svm type (svm-train -s 0…4): c-svc, nu-svc, one-class (trains on every row whatever its label; predicts +1 inlier, −1 outlier), epsilon-svr or nu-svr; pins --algo smo (default: c-svc or epsilon-svr by the task)")
	fs.Float64Var(&f.nu, "nu", 0, "ν of nu-svc, one-class and nu-svr, in (0, 1] (svm-train -n; default: chosen by validation, 0.5 for one-class)")
	fs.StringVar(&f.linearLoss, "linear-loss", "", "--algo linear: l2 (squared hinge, liblinear -s 1) or l1 (hinge, -s 3) (default: chosen by validation)")
	fs.BoolVar(&f.probability, "probability", false, "calibrate probabilities (Platt scaling on out-of-fold decision values); predict --probability prints them")
	fs.IntVar(&f.folds, "folds", 0, "validation folds for the selection; 1 = one hold-out split (default: 5, 3 or hold-out by size)")
	fs.DurationVar(&f.budget, "budget", 0, "bound on the time of the whole selection, e.g. 30s or 5m (default 10m)")
	fs.BoolVar(&f.stream, "stream", false, "train from the file in bounded memory (a sample for selection; an NSVM's Part I reads the whole file); default: on for LIBSVM and CSV files over 1 GiB")
	fs.IntVar(&f.sampleRows, "sample-rows", 0, "with --stream: the rows kept in memory (default: as many as 256 MB hold, at most 10⁶)")
	fs.IntVar(&f.cv, "cv", 0, "report K-fold cross-validated accuracy (RMSE for regression) of this configuration instead of writing a model")
	fs.IntVar(&f.workers, "workers", 0, "goroutines for the selection and the solvers (default: all cores; results do not depend on it)")
	fs.Uint64Var(&f.seed, "seed", nsvm.DefaultSeed, "random seed: splits, initialisation, sampling (0 means the default)")
	fs.BoolVar(&f.json, "json", false, "print one JSON object on stdout")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "pinned NSVM algorithms: write checkpoints to this `file` (every --checkpoint-every steps and on Ctrl-C)")
	fs.IntVar(&f.checkpointEvery, "checkpoint-every", 0, "steps between checkpoints (default: T/20 when --checkpoint is set)")
	fs.StringVar(&f.resume, "resume", "", "pinned NSVM algorithms: continue the run saved in this checkpoint `file` (same data and flags)")
	fs.StringVar(&f.log, "log", "", "write every progress report of the final fit as a JSON line to this `file` (for nsvm plot --log)")
}

var classicalAlgos = []string{"smo", "linear", "pegasos", "pegasos-linear", "perceptron", "dual-sga", "chunking"}

func (e *env) train(args []string) error {
	var f trainFlags
	fs := e.newFlags("train", "train --data FILE --model OUT [flags]   (every flag but --data and --model is optional)")
	f.register(fs)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
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
	if f.set["sample-rows"] && f.sampleRows < 1 {
		return usagef("nsvm train: --sample-rows must be ≥ 1, got %d", f.sampleRows)
	}
	cfg.SampleRows = f.sampleRows
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
	for k, c := range ds.Columns {
		if c.Dropped {
			fmt.Fprintf(e.stderr, "nsvm train: feature column %d holds %d different texts in %d rows (an identifier or free text?); it is left out\n", k, c.Distinct, ds.N)
		}
	}
	if cfg.InShape != nil && prod(cfg.InShape) != ds.D {
		return usagef("nsvm train: --input-shape %s has %d values, the data has %d per row", f.inputShape, prod(cfg.InShape), ds.D)
	}
	if f.cv > 0 {
		return e.crossValidate(&f, cfg, ds)
	}
	return e.fitAndSave(&f, cfg, ds)
}

// trainPrecomputed is train --kernel precomputed: svm-train -t 4 on the
// kernel values of the data file.
func (e *env) trainPrecomputed(f *trainFlags, cfg *nsvm.FitConfig) error {
	if f.cv > 0 || f.algo != "" && f.algo != "smo" || f.svmType != "" && f.svmType != search.SVMCSVC {
		return usagef("nsvm train: --kernel precomputed trains LIBSVM's C-SVC, with --C or C chosen by validation (no --cv, --algo or other --svm-type)")
	}
	if err := checkWritable(f.model, "model"); err != nil {
		return err
	}
	ds, err := readPrecomputed(f.path, 0)
	if err != nil {
		return err
	}
	rend, done := e.fitLines(f, nil)
	cfg.Progress = rend.Update
	start := time.Now()
	m, err := nsvm.FitPrecomputed(e.ctx, ds, cfg)
	done()
	if err != nil {
		return trainError(f, err)
	}
	if err := m.Save(f.model); err != nil {
		return err
	}
	return e.reportTrained(f, rend, m, ds, time.Since(start).Seconds())
}

// fitAndSave trains on ds, writes the model and reports it.
func (e *env) fitAndSave(f *trainFlags, cfg *nsvm.FitConfig, ds *data.Dataset) error {
	// Fail before training, not after it, when an output cannot be written.
	if err := checkWritable(f.model, "model"); err != nil {
		return err
	}
	if f.checkpoint != "" {
		if err := checkWritable(f.checkpoint, "checkpoint"); err != nil {
			return err
		}
	}
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
			return err
		}
	}
	start := time.Now()
	m, err := nsvm.Fit(e.ctx, ds, cfg)
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
	return e.reportTrained(f, rend, m, ds, secs)
}

// streamAutoBytes is the file size from which train streams by default.
const streamAutoBytes = 1 << 30

// streaming reports whether train reads the data as a stream.
func (f *trainFlags) streaming() bool {
	if f.set["stream"] {
		return f.stream
	}
	if f.format == "idx" || f.checkpoint != "" || f.resume != "" {
		return false
	}
	st, err := os.Stat(f.path)
	if err != nil || st.Size() < streamAutoBytes {
		return false
	}
	base := strings.ToLower(strings.TrimSuffix(f.path, ".gz"))
	return f.format != "" || strings.HasSuffix(base, ".csv") || strings.HasSuffix(base, ".libsvm") || strings.HasSuffix(base, ".svm")
}

// trainStream is train on a stream (nsvm.FitStream).
func (e *env) trainStream(f *trainFlags, cfg *nsvm.FitConfig) error {
	if err := checkWritable(f.model, "model"); err != nil {
		return err
	}
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
	if cfg.InShape != nil && prod(cfg.InShape) != s.D() {
		return usagef("nsvm train: --input-shape %s has %d values, the data has %d per row", f.inputShape, prod(cfg.InShape), s.D())
	}
	var lg *progressLog
	if f.log != "" {
		if lg, err = openLog(f.log); err != nil {
			return err
		}
	}
	rend, done := e.fitLines(f, lg)
	cfg.Progress = rend.Update
	start := time.Now()
	m, err := nsvm.FitStream(e.ctx, s, cfg)
	done()
	secs := time.Since(start).Seconds()
	if cerr := lg.close(err); err == nil {
		err = cerr
	}
	if err != nil {
		if e.ctx.Err() != nil {
			return fmt.Errorf("nsvm train: interrupted (%v)", strings.TrimPrefix(err.Error(), "nsvm: "))
		}
		return trainError(f, err)
	}
	if err := m.Save(f.model); err != nil {
		return err
	}
	// Training scores on the first rows of the stream.
	if err := s.Rewind(); err != nil {
		return err
	}
	ds, err := s.ReadRows(report.SummaryRows)
	if s.Layout() == data.LayoutSparse {
		ds, err = s.ReadSparse(report.SummaryRows)
	}
	if err != nil {
		return err
	}
	return e.reportTrained(f, rend, m, ds, secs)
}

// checkChoices reports the first flag whose value is not one of its
// choices, naming the flag.
func (f *trainFlags) checkChoices() error {
	for _, ch := range []struct {
		name, v string
		ok      []string
	}{
		{"algo", f.algo, append([]string{"auto"}, search.Algorithms()...)},
		{"task", f.task, []string{"auto", nsvm.Classification, nsvm.Regression}},
		{"scaling", f.scaling, []string{"auto", nsvm.ScaleStandardize, nsvm.ScaleGlobal, nsvm.ScaleNone}},
		{"kernel", f.kernel, []string{"linear", "poly", "rbf", "sigmoid", "precomputed"}},
		{"optimizer", f.optimizer, []string{"sgd", "adam"}},
		{"schedule", f.schedule, []string{"constant", "invt", "cosine", "onecycle"}},
		{"objective", f.objective, []string{paper.ObjectiveAlign, paper.ObjectiveSoftmax}},
		{"augment", f.augment, search.Augmentations},
		{"loss", f.loss, []string{"squared", "neg"}},
		{"solver2", f.solver2, []string{"smo", "pegasos"}},
		{"target", f.target, []string{paper.TargetRBF, paper.TargetLinear}},
		{"multiclass", f.multiclass, []string{nsvm.OneVsOne, nsvm.OneVsRest}},
		{"metric", f.metric, search.Metrics()},
		{"linear-loss", f.linearLoss, []string{"l1", "l2"}},
		{"svm-type", f.svmType, search.SVMTypes()},
	} {
		if f.set[ch.name] && !contains(ch.ok, ch.v) {
			return usagef("nsvm train: unknown --%s %q (want %s)", ch.name, ch.v, strings.Join(ch.ok, ", "))
		}
	}
	if f.set["momentum"] && !(f.momentum >= 0 && f.momentum < 1) {
		return usagef("nsvm train: --momentum must be in [0, 1), got %g", f.momentum)
	}
	if f.set["weight-decay"] && (!(f.weightDecay >= 0) || math.IsInf(f.weightDecay, 0)) {
		return usagef("nsvm train: --weight-decay must be ≥ 0, got %g", f.weightDecay)
	}
	if f.set["batch"] && f.batch < 2 && (f.algo == "" || f.algo == "nsvm3" || f.algo == "nsvm4") {
		return usagef("nsvm train: --batch must be ≥ 2 for the NSVM algorithms nsvm3 and nsvm4, got %d", f.batch)
	}
	if f.set["balanced"] && f.algo != "nsvm3" {
		return usagef("nsvm train: --balanced applies to nsvm3, not %q", f.algo)
	}
	if f.set["reg"] && f.reg.name != "none" && f.algo != "" && f.algo != "nsvm3" && f.algo != "nsvm4" {
		return usagef("nsvm train: --reg applies to nsvm3 and nsvm4, not %s", f.algo)
	}
	if f.algo == "nsvm3" && f.multiclass == nsvm.OneVsOne {
		return usagef("nsvm train: --algo nsvm3 trains one-vs-rest heads jointly with the network and supports --multiclass ovr only; use nsvm4 for one-vs-one heads")
	}
	if f.task == nsvm.Regression {
		for _, name := range []string{"probability", "multiclass", "balanced"} {
			if f.set[name] {
				return usagef("nsvm train: --%s applies to classification, not --task regression", name)
			}
		}
	}
	if f.set["target"] && f.algo != "" && f.algo != "nsvm4" {
		return usagef("nsvm train: --target is the Part I target kernel of nsvm4, not of %s", f.algo)
	}
	if (f.set["epsilon"] || f.set["target"]) && f.task == nsvm.Classification {
		return usagef("nsvm train: --epsilon and --target apply to --task regression")
	}
	return nil
}

// config maps the flags that were set to the library's configuration.
func (f *trainFlags) config() (*nsvm.FitConfig, error) {
	if err := f.checkChoices(); err != nil {
		return nil, err
	}
	c := &nsvm.FitConfig{Seed: f.seed, Workers: f.workers, Budget: f.budget, Folds: f.folds,
		Probability: f.probability, Bias: f.bias, NormalizeKernel: f.normalizeKernel}
	if f.set["balanced"] {
		c.Balanced = &f.balanced
	}
	str := func(name, v string, dst *string) {
		if f.set[name] {
			*dst = v
		}
	}
	if f.algo != "auto" {
		str("algo", f.algo, &c.Algorithm)
	}
	str("task", f.task, &c.Task)
	str("arch", f.arch, &c.Arch)
	if f.kernel != "precomputed" {
		str("kernel", f.kernel, &c.Kernel)
	}
	str("optimizer", f.optimizer, &c.Optimizer)
	str("schedule", f.schedule, &c.Schedule)
	str("loss", f.loss, &c.Loss)
	str("objective", f.objective, &c.Objective)
	str("augment", f.augment, &c.Augment)
	str("solver2", f.solver2, &c.Solver2)
	str("target", f.target, &c.Target)
	str("multiclass", f.multiclass, &c.Multiclass)
	str("class-weight", f.classWeight, &c.ClassWeight)
	str("metric", f.metric, &c.Metric)
	str("linear-loss", f.linearLoss, &c.LinearLoss)
	str("svm-type", f.svmType, &c.SVMType)
	if f.set["nu"] {
		if !(f.nu > 0 && f.nu <= 1) {
			return nil, usagef("nsvm train: --nu must be in (0, 1], got %g", f.nu)
		}
		c.Nu = f.nu
	}
	if f.set["scaling"] {
		c.Scaling = f.scaling
		if f.scaling == "auto" {
			c.Scaling = ""
		}
	}
	if f.set["task"] && f.task == "auto" {
		c.Task = ""
	}
	pos := func(name string, v float64, dst *float64) error {
		if !f.set[name] {
			return nil
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return usagef("nsvm train: --%s must be a finite number > 0, got %g", name, v)
		}
		*dst = v
		return nil
	}
	for _, p := range []struct {
		name string
		v    float64
		dst  *float64
	}{{"gamma", f.gamma, &c.Gamma}, {"C", f.C, &c.C}, {"lambda", f.lambda, &c.Lambda}, {"lr", f.lr, &c.LR}, {"eps", f.eps, &c.Tol}, {"mu", f.mu, &c.Mu}} {
		if err := pos(p.name, p.v, p.dst); err != nil {
			return nil, err
		}
	}
	if f.set["epsilon"] {
		if !(f.epsilon >= 0) || math.IsInf(f.epsilon, 0) {
			return nil, usagef("nsvm train: --epsilon must be a finite number ≥ 0, got %g", f.epsilon)
		}
		c.Epsilon = f.epsilon
		if f.epsilon == 0 {
			c.Epsilon = -1 // exactly 0
		}
	}
	if f.set["coef0"] {
		if math.IsNaN(f.coef0) || math.IsInf(f.coef0, 0) {
			return nil, usagef("nsvm train: --coef0 must be finite")
		}
		c.Coef0 = f.coef0
	}
	if f.set["momentum"] {
		c.Momentum = &f.momentum
	}
	if f.set["weight-decay"] {
		c.WeightDecay = &f.weightDecay
	}
	for _, p := range []struct {
		name string
		v    int
		dst  *int
	}{{"steps", f.steps, &c.Steps}, {"steps2", f.steps2, &c.Steps2}, {"epochs", f.epochs, &c.Epochs},
		{"batch", f.batch, &c.Batch}, {"chunk", f.chunk, &c.Chunk}, {"cache-mb", f.cacheMB, &c.CacheMB},
		{"degree", f.degree, &c.Degree}, {"folds", f.folds, &c.Folds}, {"workers", f.workers, &c.Workers}} {
		if f.set[p.name] && p.v < 1 {
			return nil, usagef("nsvm train: --%s must be ≥ 1, got %d", p.name, p.v)
		}
		if f.set[p.name] {
			*p.dst = p.v
		}
	}
	if f.set["budget"] && f.budget <= 0 {
		return nil, usagef("nsvm train: --budget must be > 0, got %v", f.budget)
	}
	if f.inputShape != "" {
		s, err := parseShape(f.inputShape)
		if err != nil {
			return nil, err
		}
		c.InShape = s
	}
	rc, err := f.reg.config("train", f.set)
	if err != nil {
		return nil, err
	}
	c.Reg = rc
	if f.set["checkpoint-every"] && f.checkpointEvery < 1 {
		return nil, usagef("nsvm train: --checkpoint-every must be ≥ 1, got %d", f.checkpointEvery)
	}
	if (f.checkpoint != "" || f.resume != "" || f.set["checkpoint-every"]) && !strings.HasPrefix(f.algo, "nsvm") {
		return nil, usagef("nsvm train: --checkpoint and --resume need a pinned NSVM algorithm (--algo nsvm1 … nsvm4)")
	}
	if f.cv > 0 && (f.checkpoint != "" || f.resume != "" || f.log != "") {
		return nil, usagef("nsvm train: --cv writes no model; --checkpoint, --resume and --log do not apply")
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
				"nsv": m.NumSV(), "outlier_share": *r.OutlierShare, "model": f.model, "info": m.Info})
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
	r, err := nsvm.CrossValidate(e.ctx, ds, cfg, f.cv)
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
	algo := f.algo
	if algo == "" {
		algo = "train"
	}
	r := &report.FitLines{W: e.stderr, Quiet: quiet}
	var done func()
	r.Bar, done = e.progressFor(algo, quiet)
	if lg != nil {
		r.Log = lg.callback(algo, f.seed)
	}
	return r, done
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func parseShape(s string) ([]int, error) {
	var out []int
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == 'x' || r == 'X' || r == ',' || r == '×' }) {
		var v int
		if _, err := fmt.Sscanf(part, "%d", &v); err != nil || v < 1 || fmt.Sprint(v) != part {
			return nil, usagef("nsvm: bad input shape %q (want e.g. 20 or 1x28x28)", s)
		}
		out = append(out, v)
	}
	if len(out) == 0 || len(out) == 2 || len(out) > 3 {
		return nil, usagef("nsvm: bad input shape %q (want e.g. 20 or 1x28x28)", s)
	}
	return out, nil
}

func prod(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}
