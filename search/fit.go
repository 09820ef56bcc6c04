package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/svm"
)

// Input scalings. The scaler is fitted on the training data and stored in
// the model (Model.Mean, Model.Std), which applies it to every input.
const (
	// ScaleStandardize maps every feature to mean 0 and standard deviation 1.
	ScaleStandardize = "standardize"
	// ScaleGlobal subtracts one mean and divides by one standard deviation
	// taken over all values: the relative scale of the features (pixels,
	// counts, spectra) is kept.
	ScaleGlobal = "global"
	// ScaleNone leaves the inputs as they are.
	ScaleNone = "none"
)

// FitConfig configures Fit. Its zero value — or a nil *FitConfig — lets Fit
// choose everything from the data by validation: every zero field is "choose
// for me", and every field set pins that part of the search. Fields that
// apply to only some algorithms are ignored by the others.
type FitConfig struct {
	// Task is Classification, Regression, or "" to infer it from the labels:
	// integral labels with at most max(2, N/5) distinct values make a
	// classification problem, anything else a regression problem. Where
	// more than two integers could be read either way, the selection's
	// TaskNote says how they were read.
	Task Task

	// Algorithm pins the trainer: "nsvm1" … "nsvm4" (the paper's Algorithms
	// 1–4; nsvm3 and nsvm4 also handle many classes, nsvm4 regression), or a
	// classical solver on the inputs: "smo" (C-SVM / ε-SVR, LIBSVM's
	// solver), "linear" (a linear SVM by dual coordinate descent,
	// LIBLINEAR's solver: one-vs-rest on many classes, dense or sparse
	// rows; see LinearLoss), "pegasos" (kernel Pegasos / Pegasos SVR), "pegasos-linear",
	// "perceptron", "dual-sga", "chunking". "" selects among SMO's RBF SVM
	// over a C × γ grid and NSVMs (Algorithm 4 with networks sized from
	// the data) by validation.
	Algorithm Algorithm

	// Scaling is ScaleStandardize, ScaleGlobal, ScaleNone, or "" to choose
	// by validation (classical SVMs try standardize and global; networks on
	// images use global, on vectors standardize). A pinned Gamma is in the
	// units of the scaled inputs and leaves the scaling to be chosen; with
	// ScaleNone the inputs are taken as they are, as svm-train takes them.
	Scaling Scaling

	// InShape is the shape of one input row, e.g. [1 8 8] for 8×8 grey
	// images: a shape of three numbers brings convolutional networks into
	// the search. nil uses the data set's Shape, else [D].
	InShape []int
	// Arch pins the network of the NSVM algorithms (an nn spec); "" sizes
	// one from the data.
	Arch string

	// Kernel pins the kernel (on the inputs for classical solvers, on the
	// features for NSVMs): "linear", "poly", "rbf", "sigmoid"; "" means rbf.
	// Gamma pins γ (0 selects it; for NSVMs 0 means the trainer's default),
	// Coef0 and Degree configure poly and sigmoid (Degree 0: 3), and
	// NormalizeKernel selects the normalised kernel K̃ (paper §4.1.3).
	Kernel          KernelName
	Gamma, Coef0    float64
	Degree          int
	NormalizeKernel bool

	// SVMType is LIBSVM's svm_type (svm-train -s) of the classical SVM:
	// SVMCSVC, SVMNuSVC, SVMOneClass, SVMEpsilonSVR, SVMNuSVR, or "" for
	// C-SVC or ε-SVR as the task says. The ν types run SMO with ν's
	// working-set selection (Nu, for ν-SVR also C); one-class trains on
	// every row whatever its label and predicts +1 for inliers and −1 for
	// outliers, as svm-predict does. A type other than "" pins the
	// algorithm to smo; the ν solvers take no weights. No NSVM is trained
	// for one class: in bench/oneclass a Deep-SVDD feature map with a
	// one-class head (ROC AUC 0.981 over eleven data sets) beat the RBF
	// one-class SVM (0.975) only as much as whitening the inputs did
	// (0.982), lost on breast_cancer, and needs a training length that
	// inliers alone cannot validate.
	SVMType SVMType
	// Nu pins ν ∈ (0, 1] of the ν types (0: chosen by validation over
	// {0.1, 0.2, 0.3, 0.5, 0.7} for nu-svc and nu-svr; 0.5, LIBSVM's
	// default, for one-class, whose rows carry no labels to validate on).
	Nu float64

	// LinearLoss pins the loss of the linear solver: "l2" (squared
	// hinge, LIBLINEAR -s 1), "l1" (hinge, -s 3), "l2+l1" (the mean of
	// the two SVMs of one C, svm.MeanLinear), or "" to choose between l2
	// and l1 by validation.
	LinearLoss LinearLoss

	// NearCopies says whether the selection scores the validation rows
	// that are near copies (cosine ≥ 0.9) of rows of their split's
	// training part: "keep" scores them, "drop" leaves them out (sparse
	// rows only), and "" leaves them out on wide sparse rows read as such
	// (text: data.SparseLayout's rule, not CSV columns), where a random
	// split puts a document's near copies on both sides and they reward
	// memorising, and keeps them otherwise (tables, whose repeated records
	// the rows to predict repeat too).
	NearCopies NearCopies

	// C pins the SVM's box constraint (classical solvers and the heads of
	// Algorithm 4); 0 selects it. Lambda pins the Pegasos and NSVM λ
	// (0: the trainer's default). Epsilon, if not nil, pins the SVR's ε in
	// target units (0 is ε = 0); nil selects it.
	C, Lambda float64
	Epsilon   *float64
	// Tol is SMO's stopping tolerance (default 1e-3), and the linear
	// solver's (default 0.1 on the C paths, 10⁻⁴ for the model: see
	// linearFitTol). CacheMB bounds the
	// kernel values held at once, in MB (default svm.DefaultCacheMB, 100,
	// LIBSVM's -m): a fit's SMO column cache and the search's kernel
	// matrices. The search's fits, run one a core at once, share it (each
	// at least 16 MB).
	Tol     float64
	CacheMB int

	// Training length: Steps pins the steps of the NSVM trainers (Part I
	// for Algorithm 4) and of Pegasos; 0 counts them in epochs with early
	// stopping on validation data when selecting, and uses the paper's
	// step counts otherwise. Steps2 pins Part II's Pegasos steps. Epochs
	// pins the epochs of perceptron and dual-sga. Batch pins the batch
	// size k of Algorithms 3/4 and mini-batch Pegasos. Chunk pins the
	// working-set size of chunking and Algorithm 2's feature chunk.
	Steps, Steps2, Epochs, Batch, Chunk int

	// θ-optimizer of the NSVM algorithms: LR (0: the default for the
	// algorithm and network), Momentum and WeightDecay (nil: default),
	// Optimizer "sgd" or "adam" and Schedule "constant", "invt",
	// "cosine" or "onecycle" over the Part I steps ("": default).
	LR                    float64
	Momentum, WeightDecay *float64
	Optimizer             Optimizer
	Schedule              Schedule
	// Objective pins Algorithm 4's Part I objective on classes:
	// ObjectiveAlign (the paper's kernel-target alignment) or
	// ObjectiveSoftmax (cross-entropy through a temporary softmax head,
	// discarded after Part I); "" lets the selection choose.
	Objective Objective
	// Augment pins the augmentation of Part I on images: "none", "shift"
	// (random shifts of one pixel), "flip" (random mirror images) or
	// "shift+flip"; "" lets the selection choose.
	Augment Augment
	// TestAugment pins whether an image model averages its features over
	// the one-pixel shifts of every image at prediction (Model.TestShift):
	// "shift" or "none". "" lets validation choose where Part I trained on
	// shifted images: the shifts are kept when the head's held-out score
	// is higher with them.
	TestAugment TestAugment

	// Mu is Algorithm 3's μ (0: 1). Loss is Algorithm 4's Part I loss,
	// "squared" (default) or "neg". Solver2 is Algorithm 4's Part II
	// solver, "pegasos" or "smo" ("": smo when selecting, else the paper's
	// pegasos). Reg adds a §6 regulariser to Algorithms 3/4. Bias adds the
	// unregularised bias of §7 to kernel Pegasos and Algorithms 1–4.
	// Balanced selects class-balanced alignment labels for nsvm3 on more
	// than two classes (nil: on; see multiclassAlg3Preset). Target is the Part I target kernel of NSVM regression
	// (TargetRBF or TargetLinear; "": TargetRBF).
	Mu       float64
	Loss     PartILoss
	Solver2  Solver2
	Reg      paper.RegConfig
	Bias     bool
	Balanced *bool
	Target   Target

	// Multiclass is the arrangement of binary heads on more than two
	// classes: OneVsOne (LIBSVM's), OneVsRest, or "" for one-vs-one.
	Multiclass Multiclass
	// Probability calibrates the classifier's decision values into
	// probabilities (Platt scaling) on decision values of points the
	// scored model was not trained on: out-of-fold values from the
	// selection's validation, or from a 5-fold cross-validation of the
	// pinned configuration.
	Probability bool

	// ClassWeight weighs the classes in training: ClassWeightBalanced
	// (N/(K·N_c), scikit-learn's class_weight="balanced"), ClassWeightNone,
	// LABEL:W pairs separated by commas (LIBSVM's -wLABEL W; classes not
	// listed weigh 1; labels are numbers, or names for named labels), or
	// "": none, except on imbalanced classes (see Metric), which are
	// weighed balanced. A row's cost is its sample weight
	// (data.Dataset.W) times its class's weight, honoured by every trainer
	// that has a cost per point (SMO, Pegasos, the linear solvers, NSVM
	// Part I — batches drawn in proportion to the weights — and the heads),
	// by Platt calibration and by the selection's scores (sample weights).
	ClassWeight string
	// Metric is the selection's validation score: MetricAccuracy,
	// MetricBalancedAccuracy, MetricF1, MetricROCAUC (two classes),
	// MetricRMSE (regression), or "": RMSE for regression and accuracy for
	// classification, except on imbalanced classes — the smallest holding
	// less than a fifth of its balanced share of the rows, N/(5K), and the
	// largest at least half of them (two classes: the smaller under 10 %) —
	// which are scored by ROC AUC (two classes) or balanced accuracy
	// (more), since accuracy there rewards predicting the majority.
	Metric Metric

	// Folds is the number of validation folds for selection (0: 5 for up
	// to 2000 training rows, 3 up to 10000, else one hold-out split of 20 %,
	// at most 10000 rows). 1 means a hold-out split.
	Folds int
	// Budget bounds the wall time of the whole search (0: 10 minutes).
	// Candidates are tried from the cheapest; when the budget runs out, the
	// best of those tried wins and Selection.BudgetReached is set (the
	// result then depends on the machine's speed). The budget is checked as
	// each candidate's run on a split starts, not within a run, and the
	// first candidate (the incumbent) always runs, so that there is a
	// model: on data where one SMO run outlasts the budget, the search
	// takes that run's time.
	Budget time.Duration
	// Seed makes everything deterministic: splits, initialisation,
	// sampling. The same data, configuration and seed give the same model
	// (unless the budget runs out). 0 means DefaultSeed, nsvm train's
	// default, so that the zero FitConfig trains what the command does.
	Seed uint64
	// Workers bounds the goroutines used for selection (0: GOMAXPROCS).
	// The result does not depend on it.
	Workers int
	// SampleRows is the number of rows FitStream keeps in memory (0: as
	// many as 256 MB hold, at most 10⁶). Fit ignores it.
	SampleRows int
	// MaxMemory bounds, in bytes, the memory of what the data imply
	// beyond the rows themselves — the heads of many classes, vectors over
	// many features — checked before the fit starts (an error wrapping
	// ErrMemory names what and how to shrink it); 0: half of the memory
	// the process may use (its cgroup's limit, else the machine's).
	MaxMemory int64
	// KeepInputs stores with an NSVM's kernel heads the (scaled) inputs of
	// their support vectors (svm.Model.Inputs), so that Continue can
	// recompute their features when the network moves instead of
	// restarting the head; the model file grows by D values a support
	// vector and head.
	KeepInputs bool

	// Progress, if not nil, receives a report after every candidate and
	// during the final fit.
	Progress func(FitProgress)
	// Train carries checkpoints and resume for a pinned NSVM run (no
	// selection); its Seed and Progress are set by Fit.
	Train paper.Options
}

// FitProgress is what Fit reports while it works.
type FitProgress struct {
	// Stage is "sample" (FitStream's pass over its stream; Done counts the
	// rows read), "select" (a candidate was scored), "fit" (the final model
	// is being trained; Train holds the trainer's report), "keep" (the
	// winner is kept as the search trained it, on Done rows), "calibrate"
	// or "done" (the last report of a fit that selected its model: Phases
	// says where its time went).
	Stage string
	// Candidate names the candidate; Done and Total count the candidates
	// scored and planned (Total grows when the search refines around the
	// best; a C path that stops early leaves some unscored).
	Candidate   string
	Done, Total int
	// Score is the candidate's validation score in Metric ("accuracy", in
	// [0, 1], or "rmse") and Seconds its cost; Best and BestScore the
	// leader so far.
	Metric         string
	Score, Seconds float64
	Best           string
	BestScore      float64
	Elapsed        time.Duration
	// Err says why the candidate has no score (it failed or was pruned).
	Err string
	// Work is the candidate's work (Stage "select"), or the fit's (Stage
	// "done": the sum of its phases'). RaceSeconds and RaceWork are the
	// part of the candidate's Seconds and Work that its Part I race took
	// (an image recipe; see racePart1).
	Work        Work
	RaceSeconds float64
	RaceWork    Work
	// Train is the trainer's report during the final fit, else nil.
	Train *paper.Progress
	// Phases is where the wall time of the fit went (Stage "done"): the
	// phases' Seconds add up to Elapsed.
	Phases []Phase
}

// DefaultSeed is the seed a FitConfig with Seed 0 uses, as nsvm train does
// without --seed.
const DefaultSeed = 1

// ErrBadConfig marks a FitConfig that cannot work, by itself or with the
// data given (wrapped, by a *ConfigError; test with errors.Is, or
// errors.As for the field).
var ErrBadConfig = errors.New("nsvm: bad configuration")

// classicalSolvers are the solvers of package svm that Fit can run on the
// inputs.
var classicalSolvers = []string{"smo", "linear", "pegasos", "pegasos-linear", "perceptron", "dual-sga", "chunking"}

// unweightedSolvers are the classical solvers that take no sample or
// class weights: the lecture's perceptron and dual gradient ascent, and
// chunking.
var unweightedSolvers = []string{"perceptron", "dual-sga", "chunking"}

// Algorithms lists the values FitConfig.Algorithm accepts besides "".
func Algorithms() []string {
	return append([]string{"nsvm1", "nsvm2", "nsvm3", "nsvm4"}, classicalSolvers...)
}

// nsvmAlg returns 1–4 for "nsvm1" … "nsvm4" and 0 otherwise.
func nsvmAlg(name string) int {
	if len(name) == 5 && strings.HasPrefix(name, "nsvm") && name[4] >= '1' && name[4] <= '4' {
		return int(name[4] - '0')
	}
	return 0
}

// Validate reports whether the configuration is usable, independently of
// the data: every field by its rule (Params), then the fields that must go
// together. Its error is a *ConfigError naming the field.
func (c *FitConfig) Validate() error {
	for i := range Params {
		p := &Params[i]
		if err := p.check(c); err != nil {
			return err
		}
		if p.value(c).IsZero() {
			continue
		}
		if p.Tasks != "" && c.Task != "" && string(c.Task) != p.Tasks {
			return fieldErr(p.Field, "applies to %s ({Task} %s), not %s", p.Tasks, p.Tasks, c.Task)
		}
		if err := p.appliesTo(c.Algorithm); err != nil {
			return err
		}
	}
	algo := c.Algorithm
	if c.Task == model.Regression {
		switch algo {
		case "", "nsvm4", "smo", "pegasos":
		default:
			return fieldErr("Algorithm", "%s cannot regress: regression needs algorithm nsvm4, smo or pegasos", algo)
		}
	}
	if c.Kernel == KernelPrecomputed {
		return fieldErr("Kernel", "%s takes rows of kernel values: train with FitPrecomputed", c.Kernel)
	}
	if c.Batch == 1 && (algo == "" || algo == "nsvm3" || algo == "nsvm4") {
		return fieldErr("Batch", "must be ≥ 2 for the NSVM algorithms nsvm3 and nsvm4, got 1")
	}
	if algo == "nsvm3" && c.Multiclass == model.OneVsOne {
		return fieldErr("Multiclass", "%s: nsvm3 trains one-vs-rest heads jointly with the network (ovr only); use nsvm4 for one-vs-one heads", c.Multiclass)
	}
	if slices.Contains(unweightedSolvers, string(algo)) && c.ClassWeight != "" && c.ClassWeight != ClassWeightNone {
		return fieldErr("ClassWeight", "%s: %s takes no class weights", c.ClassWeight, algo)
	}
	switch c.SVMType {
	case SVMNuSVC, SVMOneClass, SVMNuSVR:
		if c.ClassWeight != "" && c.ClassWeight != ClassWeightNone {
			return fieldErr("ClassWeight", "applies to c-svc; the ν solvers (%s) take no class weights", c.SVMType)
		}
	}
	if c.SVMType != "" && algo != "" && algo != "smo" {
		return fieldErr("SVMType", "%s runs smo, not %s", c.SVMType, algo)
	}
	if c.Nu != 0 && c.SVMType != SVMNuSVC && c.SVMType != SVMOneClass && c.SVMType != SVMNuSVR {
		return fieldErr("Nu", "applies to the svm types nu-svc, one-class and nu-svr")
	}
	if c.Reg.Name == "" && c.Reg.Rho != 0 {
		return fieldErr("Reg.Rho", "needs a regulariser ({Reg.Name})")
	}
	if c.Reg.Name == "" && c.Reg.Target != 0 {
		return fieldErr("Reg.Target", "needs a regulariser ({Reg.Name})")
	}
	if c.Reg.Name != "" {
		if err := c.reg().Validate(); err != nil {
			return &ConfigError{Field: "Reg.Name", Msg: "{Reg.Name}: " + errmsg.Strip(err).Error()}
		}
	}
	if (c.Train.Resume != nil || c.Train.Checkpoint != nil) && nsvmAlg(string(algo)) == 0 {
		return configErr("checkpoints apply to the NSVM algorithms nsvm1–nsvm4")
	}
	return nil
}

// reg returns the §6 regulariser with its weight's default (0.1) when it
// is not given.
func (c *FitConfig) reg() paper.RegConfig {
	r := c.Reg
	if r.Name != "" && r.Rho == 0 {
		r.Rho = defaultRegWeight
	}
	return r
}

// defaultRegWeight is the weight ρ of a regulariser given without one.
const defaultRegWeight = 0.1

// kernelSpec returns the pinned kernel with γ = gamma when the kernel has a
// γ and none is pinned.
func (c *FitConfig) kernelSpec(gamma float64) (kernel.Spec, error) {
	name := c.Kernel
	if name == "" {
		name = "rbf"
	}
	s := kernel.Spec{Name: string(name), Normalized: c.NormalizeKernel}
	switch name {
	case "poly":
		s.Degree, s.Coef0, s.Gamma = c.Degree, c.Coef0, gamma
		if s.Degree == 0 {
			s.Degree = 3
		}
	case "rbf":
		s.Gamma = gamma
	case "sigmoid":
		s.Coef0, s.Gamma = c.Coef0, gamma
	}
	if c.Gamma > 0 && name != "linear" {
		s.Gamma = c.Gamma
	}
	if err := s.Validate(); err != nil {
		return s, configErr("%v", err)
	}
	return s, nil
}

// fitArgs returns the context (Background for nil) and a validated copy of
// the configuration (its zero value for nil) of Fit and its kin.
func fitArgs(ctx context.Context, cfg *FitConfig) (context.Context, FitConfig, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	var c FitConfig
	if cfg != nil {
		c = *cfg
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	return ctx, c, c.Validate()
}

// Fit trains a model on ds: the estimator of this package, as LIBSVM's
// svm_train or scikit-learn's fit. It maps the labels (any integral class
// labels, or real targets for regression), scales the inputs, infers the
// input shape, and — unless cfg pins everything that matters — selects the
// algorithm, the network and the hyper-parameters on validation data
// taken from ds (stratified k-fold for small data, a hold-out split for
// large data), then refits the winner on all of ds (except a network whose
// hold-out was at most 5 % of ds, or an image CNN validated on one
// hold-out, which is kept as the search trained it).
// The returned model
// carries what prediction needs (scaler, labels, input shape) and, in
// Selection and Info, what was chosen and its validation score.
//
// The candidates include the classical RBF SVM (SMO) over a C × γ grid on
// standardised and globally scaled inputs — so that a default fit is never
// worse than a tuned SVM beyond validation noise — and NSVMs (Algorithm 4:
// kernel-target alignment, then an SVM on the learned features) whose
// networks follow the data (MLPs for vectors; CNNs when the input shape is
// an image), trained for a number of epochs chosen by early stopping on
// the validation score.
//
// ds is not modified. A model no better than predicting the most frequent
// class on its own training data is an error (ErrChanceLevel), as is a
// regressor with training R² ≤ 0; the model is returned with that error
// for a caller that wants to look at it (or keep it, warned).
func Fit(ctx context.Context, ds *data.Dataset, cfg *FitConfig) (*model.Model, error) {
	start := time.Now()
	ctx, c, err := fitArgs(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var m *model.Model
	if c.SVMType == SVMOneClass {
		m, err = fitOneClass(ctx, ds, &c)
	} else {
		var d *fitData
		if d, err = prepareFit(ds, &c); err != nil {
			return nil, err
		}
		m, err = fitPrepared(ctx, d, &c, start)
	}
	recordData(m, ds)
	return m, err
}

// recordData records in m what it was trained on: the fingerprint and the
// size of the training data (data.Fingerprint).
func recordData(m *model.Model, ds *data.Dataset) {
	if m == nil {
		return
	}
	m.Info["data_fingerprint"] = data.Fingerprint(ds)
	m.Info["data_rows"] = strconv.Itoa(ds.N)
}

// prepareFit maps an SVM type to the algorithm and task it implies and
// prepares ds for Fit (not for a one-class SVM).
func prepareFit(ds *data.Dataset, c *FitConfig) (*fitData, error) {
	if c.SVMType != "" {
		c.Algorithm = "smo"
		switch c.SVMType {
		case SVMCSVC, SVMNuSVC:
			if c.Task == model.Regression {
				return nil, configErr("svm type %s is a classifier; the task is regression", c.SVMType)
			}
			c.Task = model.Classification
		case SVMEpsilonSVR, SVMNuSVR:
			if c.Task == model.Classification {
				return nil, configErr("svm type %s is a regressor; the task is classification", c.SVMType)
			}
			c.Task = model.Regression
		}
		if c.SVMType == SVMNuSVC && c.ClassWeight == "" {
			c.ClassWeight = ClassWeightNone // the ν solvers take no weights
		}
	}
	d, err := prepare(ds, c)
	if err != nil {
		return nil, err
	}
	if d.w != nil && (c.SVMType == SVMNuSVC || c.SVMType == SVMNuSVR) {
		return nil, configErr("the ν solvers take no sample weights")
	}
	return d, nil
}

// fitPrepared fits d; start is when the fit began (its time is accounted
// from there).
func fitPrepared(ctx context.Context, d *fitData, c *FitConfig, start time.Time) (*model.Model, error) {
	m, err := fitSearch(ctx, d, c, nil, start)
	if err != nil && d.taskNote != "" && (errors.Is(err, model.ErrBadData) || errors.Is(err, ErrChanceLevel)) {
		// The data refused as read: say how the labels were read, and
		// how to read them the other way.
		err = fmt.Errorf("%w; %s", err, d.taskNote)
	}
	return m, err
}

// fitSearch is fitPrepared with the search's scoring handed to remote
// (nil: scored in this process).
func fitSearch(ctx context.Context, d *fitData, c *FitConfig, remote *remote, start time.Time) (*model.Model, error) {
	cands, err := candidates(d, c)
	if err != nil {
		return nil, err
	}
	s := newSearch(ctx, d, c, start)
	if c.Progress != nil {
		s.clock.measure(s.work)
		defer s.clock.stopSampling()
	}
	s.notes = planNotes(d, c)
	if remote != nil {
		s.remote = remote.bind(cands)
	}
	var win *recipe
	var sel *model.Selection
	var oof *outOfFold
	if len(cands) == 1 {
		win = cands[0]
	} else {
		if win, oof, err = s.run(cands); err != nil {
			return nil, err
		}
		sel = s.selection()
	}
	keep := s.kept != nil && d.stream == nil
	if keep {
		s.enter("keep")
	} else {
		s.enter("final fit")
	}
	if c.Progress != nil {
		p := FitProgress{Stage: "fit", Candidate: win.name, Elapsed: time.Since(start)}
		if keep {
			p.Stage, p.Done = "keep", d.n-len(s.splits[0].val)
		}
		c.Progress(p)
	}
	var m *model.Model
	if keep {
		// A network trained on the hold-out's training part (at least 95 %
		// of the rows, or an image CNN): no second training.
		m = s.kept
		m.Info["trained_rows"] = strconv.Itoa(d.n - len(s.splits[0].val))
	} else {
		var t trained
		t, err = win.fit(s.ctx, d, d.all(), c.Seed, 0, c.finalProgress(start, win.name))
		m = t.m
	}
	// What the model computes from here on counts as the fit's; the
	// caller's predictions with it, after Fit, count nowhere.
	countModel(m, s.cnt)
	defer countModel(m, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("nsvm: fit: stopped while training %s: %w", win.name, err)
		}
		return nil, fmt.Errorf("nsvm: fit: training %s: %w", win.name, err)
	}
	// The final fit's kernel cache goes back to the OS before the model
	// scores the rows (calibration, checkLearned), as a phase's memory
	// does (enter, which the calibration therefore does not call again).
	debug.FreeOSMemory()
	if d.task == model.Classification && c.Probability {
		s.clock.enter("calibration")
		if c.Progress != nil {
			c.Progress(FitProgress{Stage: "calibrate", Candidate: win.name, Elapsed: time.Since(start)})
		}
		if oof == nil {
			if oof, err = s.crossDecisions(win); err != nil {
				return nil, err
			}
		}
		if err := m.Calibrate(oof.dec, oof.cls, oof.w); err != nil {
			return nil, err
		}
	}
	recordSelection(m, sel)
	if d.task == model.Regression {
		m.Task = model.Regression
	}
	m.LabelNames = slices.Clone(d.names)
	m.Columns = slices.Clone(d.columns)
	m.LabelColumn = d.labelColumn
	val, valRows := s.validationScore(sel)
	s.clock.enter("check")
	err = d.checkLearned(m, val, valRows)
	if c.Progress != nil && sel != nil {
		c.Progress(FitProgress{Stage: "done", Candidate: win.name, Done: len(sel.Candidates), Total: len(sel.Candidates),
			Elapsed: time.Since(start), Phases: s.clock.report(), Work: s.work()})
	}
	return m, err
}

// validationScore returns the winner's validation score (sel.Metric) and
// the number of validation rows behind it; NaN and 0 without a selection.
func (s *search) validationScore(sel *model.Selection) (float64, int) {
	if sel == nil {
		return math.NaN(), 0
	}
	rows := 0
	for _, sp := range s.splits {
		rows += len(sp.val)
	}
	return sel.Candidates[sel.Winner].Score, rows
}

// recordSelection keeps the record of the search that chose m (nil: none)
// in m.Selection and its summary in m.Info.
func recordSelection(m *model.Model, sel *model.Selection) {
	if sel == nil {
		return
	}
	m.Selection = sel
	m.Info["selected"] = sel.Candidates[sel.Winner].Name
	m.Info["validation"] = sel.Validation
	m.Info["validation_score"] = fmtG(sel.Candidates[sel.Winner].Score)
}

// finalProgress adapts the trainer's reports of the final fit.
func (c *FitConfig) finalProgress(start time.Time, name string) paper.ProgressFunc {
	if c.Progress == nil {
		return nil
	}
	return func(p paper.Progress) {
		c.Progress(FitProgress{Stage: "fit", Candidate: name, Elapsed: time.Since(start), Train: &p})
	}
}

// kernelMB is the memory for kernel values (CacheMB or its default).
func (c *FitConfig) kernelMB() int { return cmp.Or(c.CacheMB, svm.DefaultCacheMB) }

// cacheMB is the kernel cache of one fit on workers goroutines (0: every
// core): its share of kernelMB by the cores it occupies, so that the fits
// running at once on every core hold kernelMB together, but at least 16
// MB (or kernelMB if less).
func (c *FitConfig) cacheMB(workers int) int {
	mb, p := c.kernelMB(), runtime.GOMAXPROCS(0)
	if workers <= 0 {
		workers = p
	}
	return max(mb*min(workers, p)/p, min(mb, 16))
}
