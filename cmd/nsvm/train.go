package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

var classicalAlgos = []string{"smo", "pegasos", "pegasos-linear", "perceptron", "dual-sga", "chunking"}

// trainFlags holds every flag of "nsvm train".
type trainFlags struct {
	dataFlags
	model, algo                        string
	kernel                             string
	gamma, coef0                       float64
	degree                             int
	normalizeKernel                    bool
	C, lambda, mu, eps                 float64
	steps, steps2, batch               int
	epochs, chunk, cacheMB             int
	workers                            int
	seed                               uint64
	arch, inputShape                   string
	lr, momentum, weightDecay          float64
	optimizer, schedule, loss, solver2 string
	standardize                        string
	json, quiet, bias                  bool
	checkpoint, resume, log            string
	checkpointEvery                    int
	set                                map[string]bool
	multiclass                         string             // ovr or ovo
	probability                        bool               // calibrate probabilities on a held-out split
	holdout                            float64            // its fraction of the data
	multi                              *nsvm.ClassProblem // the data's classes when there are more than two
	reg                                regFlags           // §6 regulariser of nsvm3/nsvm4
	task, target                       string             // classification or regression; the regression target kernel
	epsilon                            float64            // SVR ε in target units
	balanced                           bool               // nsvm3 on more than two classes: class-balanced alignment labels
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
	if !contains(nsvm.RegNames, r.name) {
		return nsvm.RegConfig{}, usagef("nsvm %s: unknown --reg %q (want %s)", cmd, r.name, strings.Join(nsvm.RegNames, ", "))
	}
	c := nsvm.RegConfig{Name: r.name, Rho: r.weight, Target: r.target}
	if err := c.Validate(); err != nil {
		return c, usagef("nsvm %s: %s", cmd, strings.TrimPrefix(err.Error(), "nsvm: "))
	}
	return c, nil
}

func (e *env) train(args []string) error {
	var f trainFlags
	fs := e.newFlags("train", "train --data FILE --model OUT [flags]")
	f.dataFlags.register(fs)
	fs.StringVar(&f.model, "model", "", "write the trained model to this `file` (required)")
	fs.StringVar(&f.algo, "algo", "nsvm4", "training algorithm: nsvm1, nsvm2, nsvm3, nsvm4, or classical "+strings.Join(classicalAlgos, ", "))
	fs.StringVar(&f.kernel, "kernel", "rbf", "kernel on features: linear, poly, rbf or sigmoid")
	fs.Float64Var(&f.gamma, "gamma", 0, "kernel γ (default: the preset's for NSVMs, 1/D for classical SVMs)")
	fs.Float64Var(&f.coef0, "coef0", 0, "kernel coef0 (poly, sigmoid)")
	fs.IntVar(&f.degree, "degree", 3, "polynomial degree")
	fs.BoolVar(&f.normalizeKernel, "normalize-kernel", false, "use the normalised kernel K(a,b)/√(K(a,a)K(b,b)) (paper §4.1.3)")
	fs.Float64Var(&f.C, "C", 1, "SVM cost C (smo, chunking, dual-sga; nsvm4 with --solver2 smo)")
	fs.Float64Var(&f.lambda, "lambda", 1e-4, "regularisation λ (Pegasos and NSVM algorithms; --task regression: default 1/N, i.e. C = 1)")
	fs.Float64Var(&f.mu, "mu", 1, "μ of Algorithm 3")
	fs.Float64Var(&f.eps, "eps", 1e-3, "SMO/chunking stopping tolerance")
	fs.IntVar(&f.steps, "steps", 0, "steps T (NSVM: the preset's; Pegasos: 10·N)")
	fs.IntVar(&f.steps2, "steps2", 0, "Algorithm 4 Part II Pegasos steps (default: the preset's)")
	fs.StringVar(&f.solver2, "solver2", "pegasos", "Algorithm 4 Part II solver: pegasos or smo")
	fs.IntVar(&f.batch, "batch", 0, "batch size k (nsvm3, nsvm4: the preset's; pegasos: 1)")
	fs.IntVar(&f.epochs, "epochs", 10, "epochs (perceptron, dual-sga)")
	fs.IntVar(&f.chunk, "chunk", 500, "working-set size (chunking)")
	fs.IntVar(&f.cacheMB, "cache-mb", 200, "SMO kernel cache size in MB")
	fs.IntVar(&f.workers, "workers", 1, "goroutines per kernel row/column for pegasos (rows of ≥ 8192 SVs) and smo (columns of ≥ 4096 rows); the model is the same for any value")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.StringVar(&f.arch, "arch", "", "network architecture spec (default: the paper's MLP for vectors, CNN for 28×28 images)")
	fs.StringVar(&f.inputShape, "input-shape", "", "input shape, e.g. 20 or 1x28x28 (default: from the data)")
	fs.Float64Var(&f.lr, "lr", 0, "learning rate (default: the preset's)")
	fs.Float64Var(&f.momentum, "momentum", 0.9, "SGD momentum")
	fs.Float64Var(&f.weightDecay, "weight-decay", 1e-4, "L2 weight decay")
	fs.StringVar(&f.optimizer, "optimizer", "sgd", "θ-optimizer: sgd or adam")
	fs.StringVar(&f.schedule, "schedule", "constant", "learning-rate schedule: constant or invt")
	fs.StringVar(&f.loss, "loss", "squared", "Algorithm 4 alignment loss: squared ((1−A)²) or neg (−A)")
	fs.StringVar(&f.multiclass, "multiclass", "ovr", "more than two classes: one-vs-rest (ovr) or one-vs-one (ovo) SVM heads")
	fs.BoolVar(&f.balanced, "balanced", false, "nsvm3 on more than two classes: class-balanced labels 1, −1/(C−1) in the alignment terms (the ±1 sum favours constant features for C ≥ 6; see nsvm.MulticlassAlg3Config)")
	fs.BoolVar(&f.probability, "probability", false, "hold out part of the data (--probability-holdout) and fit Platt probabilities on it; predict --probability prints them")
	fs.Float64Var(&f.holdout, "probability-holdout", 0.2, "fraction of each class held out from training for --probability")
	fs.BoolVar(&f.bias, "bias", false, "add an unregularised bias term (pegasos; NSVM algorithms, paper §7)")
	fs.StringVar(&f.standardize, "standardize", "auto", "standardize inputs with training mean/std: auto (vectors yes, images no), on, off")
	fs.BoolVar(&f.json, "json", false, "print one JSON object on stdout")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "NSVM algorithms: write checkpoints to this `file` (every --checkpoint-every steps and on Ctrl-C)")
	fs.IntVar(&f.checkpointEvery, "checkpoint-every", 0, "steps between checkpoints (default: T/20 when --checkpoint is set)")
	fs.StringVar(&f.resume, "resume", "", "NSVM algorithms: continue the run saved in this checkpoint `file` (same data and flags)")
	fs.StringVar(&f.log, "log", "", "write every progress report as a JSON line to this `file` (for nsvm plot --log)")
	f.reg.register(fs)
	fs.StringVar(&f.task, "task", "classification", "classification, or regression (real targets in the label column; --algo nsvm4 or pegasos)")
	fs.Float64Var(&f.epsilon, "epsilon", 0, "regression: SVR ε in target units (default: 0.1 standard deviations of the training targets)")
	fs.StringVar(&f.target, "target", nsvm.TargetRBF, "regression with nsvm4: Part I target kernel, rbf (exp(−(y−y')²/2σ²)) or linear (centred yyᵀ)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if f.model == "" {
		return usagef("nsvm train: --model is required")
	}
	switch f.task {
	case "classification":
		if f.set["epsilon"] || f.set["target"] {
			return usagef("nsvm train: --epsilon and --target need --task regression")
		}
	case "regression":
		if err := f.check(); err != nil {
			return err
		}
		return e.trainRegression(&f)
	default:
		return usagef("nsvm train: unknown --task %q (want classification or regression)", f.task)
	}
	if err := f.check(); err != nil {
		return err
	}
	ds, err := f.dataFlags.load("train")
	if err != nil {
		return err
	}
	ds, cal, err := probabilitySplit(&f, ds)
	if err != nil {
		return err
	}
	var y []float32
	var labels data.LabelMap
	if f.multi, err = multiclassProblem(&f, ds); err != nil {
		return err
	} else if f.multi == nil {
		if y, labels, err = ds.BinaryLabels(); err != nil {
			return err
		}
	}
	// Fail before training, not after it, when an output cannot be written.
	if err := checkWritable(f.model, "model"); err != nil {
		return err
	}
	if f.checkpoint != "" {
		if err := checkWritable(f.checkpoint, "checkpoint"); err != nil {
			return err
		}
	}
	var lg *progressLog
	if f.log != "" {
		if lg, err = openLog(f.log); err != nil {
			return err
		}
	}
	m, secs, err := e.fit(&f, ds, y, lg)
	if cerr := lg.close(err); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if !m.Multiclass() {
		m.Head.Neg, m.Head.Pos = labels.Neg, labels.Pos
	}
	if cal != nil {
		if err := m.FitProbability(cal.X, cal.Y, cal.N); err != nil {
			return err
		}
	}
	if err := m.Save(f.model); err != nil {
		return err
	}
	acc := accuracy(m, ds)
	if f.json {
		out := map[string]any{
			"algo": f.algo, "n": ds.N, "train_seconds": secs, "n_sv": numSV(m),
			"train_accuracy": acc, "model": f.model,
		}
		if cal != nil {
			out["n_calibration"], out["platt_a"] = cal.N, m.Platt.A
		}
		return json.NewEncoder(e.stdout).Encode(out)
	}
	fmt.Fprintf(e.stdout, "trained %s on %d points in %.2fs: %d support vectors, training accuracy %.2f%%; model written to %s\n",
		f.algo, ds.N, secs, numSV(m), 100*acc, f.model)
	return nil
}

// check validates the flag values that do not depend on the data.
func (f *trainFlags) check() error {
	isN := strings.HasPrefix(f.algo, "nsvm")
	if !isN && !contains(classicalAlgos, f.algo) {
		return usagef("nsvm train: unknown --algo %q (want nsvm1, nsvm2, nsvm3, nsvm4, %s)", f.algo, strings.Join(classicalAlgos, ", "))
	}
	if isN && (len(f.algo) != 5 || f.algo[4] < '1' || f.algo[4] > '4') {
		return usagef("nsvm train: unknown --algo %q (want nsvm1, nsvm2, nsvm3 or nsvm4)", f.algo)
	}
	pos := func(name string, v float64) error {
		if f.set[name] && (!(v > 0) || math.IsInf(v, 0)) {
			return usagef("nsvm train: --%s must be a finite number > 0, got %g", name, v)
		}
		return nil
	}
	for _, c := range []struct {
		n string
		v float64
	}{{"gamma", f.gamma}, {"C", f.C}, {"lambda", f.lambda}, {"mu", f.mu}, {"lr", f.lr}, {"eps", f.eps}} {
		if err := pos(c.n, c.v); err != nil {
			return err
		}
	}
	if math.IsNaN(f.coef0) || math.IsInf(f.coef0, 0) {
		return usagef("nsvm train: --coef0 must be finite")
	}
	if !(f.momentum >= 0 && f.momentum < 1) {
		return usagef("nsvm train: --momentum must be in [0, 1), got %g", f.momentum)
	}
	if !(f.weightDecay >= 0) || math.IsInf(f.weightDecay, 0) {
		return usagef("nsvm train: --weight-decay must be ≥ 0, got %g", f.weightDecay)
	}
	for _, c := range []struct {
		n string
		v int
	}{{"steps", f.steps}, {"steps2", f.steps2}, {"batch", f.batch}, {"epochs", f.epochs}, {"chunk", f.chunk}, {"cache-mb", f.cacheMB}, {"degree", f.degree}, {"workers", f.workers}} {
		if f.set[c.n] && c.v < 1 {
			return usagef("nsvm train: --%s must be ≥ 1, got %d", c.n, c.v)
		}
	}
	if f.set["batch"] && f.algo == "nsvm3" || f.set["batch"] && f.algo == "nsvm4" {
		if f.batch < 2 {
			return usagef("nsvm train: --batch must be ≥ 2 for %s, got %d", f.algo, f.batch)
		}
	}
	if f.balanced && f.algo != "nsvm3" {
		return usagef("nsvm train: --balanced applies to nsvm3, not %s", f.algo)
	}
	if (f.checkpoint != "" || f.resume != "" || f.set["checkpoint-every"]) && !isN {
		return usagef("nsvm train: --checkpoint and --resume apply to the NSVM algorithms nsvm1–nsvm4")
	}
	if f.set["checkpoint-every"] && f.checkpointEvery < 1 {
		return usagef("nsvm train: --checkpoint-every must be ≥ 1, got %d", f.checkpointEvery)
	}
	rc, err := f.reg.config("train", f.set)
	if err != nil {
		return err
	}
	if rc.Name != "" && f.algo != "nsvm3" && f.algo != "nsvm4" {
		return usagef("nsvm train: --reg applies to nsvm3 and nsvm4, not %s", f.algo)
	}
	if _, ok := nsvm.AlignLosses[f.loss]; !ok {
		return usagef("nsvm train: unknown --loss %q (want squared or neg)", f.loss)
	}
	switch f.optimizer {
	case "sgd", "adam":
	default:
		return usagef("nsvm train: unknown --optimizer %q (want sgd or adam)", f.optimizer)
	}
	switch f.schedule {
	case "constant", "invt":
	default:
		return usagef("nsvm train: unknown --schedule %q (want constant or invt)", f.schedule)
	}
	switch f.multiclass {
	case "ovr", "ovo":
	default:
		return usagef("nsvm train: unknown --multiclass %q (want ovr or ovo)", f.multiclass)
	}
	switch f.solver2 {
	case "pegasos", "smo":
	default:
		return usagef("nsvm train: unknown --solver2 %q (want pegasos or smo)", f.solver2)
	}
	switch f.standardize {
	case "auto", "on", "off":
	default:
		return usagef("nsvm train: --standardize must be auto, on or off, got %q", f.standardize)
	}
	if f.arch != "" {
		if _, err := nn.ParseArch(f.arch); err != nil {
			return usageError{err.Error()}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// fit standardises the data as configured and runs the chosen trainer.
func (e *env) fit(f *trainFlags, ds *data.Dataset, y []float32, lg *progressLog) (*nsvm.Model, float64, error) {
	image := len(ds.Shape) == 3
	var mean, std []float64
	x := ds.X
	if f.standardize == "on" || f.standardize == "auto" && !image {
		st := data.FitStandardizer(ds)
		mean, std = st.Mean, st.Std
		x = standardized(ds, st)
	}
	rng := rand.New(rand.NewPCG(f.seed, f.seed^0x9e3779b97f4a7c15))
	progress, done := e.progressFor(f.algo, f.json || f.quiet)
	if lg != nil {
		progress = tee(progress, lg.callback(f.algo, f.seed))
	}
	start := time.Now()
	var m *nsvm.Model
	var err error
	if strings.HasPrefix(f.algo, "nsvm") {
		m, err = e.fitNSVM(f, ds, x, y, rng, progress)
	} else {
		m, err = e.fitClassical(f, ds, x, y, rng, progress)
	}
	done()
	if err != nil && e.ctx.Err() != nil && !strings.HasPrefix(err.Error(), "nsvm train: interrupted") {
		err = fmt.Errorf("nsvm train: interrupted (%v)", err)
	}
	if err != nil {
		return nil, 0, err
	}
	m.Mean, m.Std = mean, std
	return m, time.Since(start).Seconds(), nil
}

// standardized returns a standardised copy of the data's rows.
func standardized(ds *data.Dataset, st data.Standardizer) []float32 {
	x := append([]float32(nil), ds.X...)
	for i := 0; i < ds.N; i++ {
		st.ApplyRow(x[i*ds.D : i*ds.D+ds.D])
	}
	return x
}

func (f *trainFlags) kernelSpec(defaultGamma float64) (kernel.Spec, error) {
	s := kernel.Spec{Name: f.kernel, Normalized: f.normalizeKernel}
	switch f.kernel {
	case "poly":
		s.Degree, s.Coef0 = f.degree, f.coef0
		s.Gamma = defaultGamma
	case "rbf":
		s.Gamma = defaultGamma
	case "sigmoid":
		s.Coef0 = f.coef0
		s.Gamma = defaultGamma
	}
	if f.set["gamma"] && f.kernel != "linear" {
		s.Gamma = f.gamma
	}
	if err := s.Validate(); err != nil {
		return s, usageError{err.Error()}
	}
	return s, nil
}

func (e *env) fitClassical(f *trainFlags, ds *data.Dataset, x []float32, y []float32, rng *rand.Rand, progress nsvm.ProgressFunc) (*nsvm.Model, error) {
	p := svm.Problem{X: x, N: ds.N, D: ds.D, Y: y}
	ks, err := f.kernelSpec(1 / float64(ds.D))
	if err != nil {
		return nil, err
	}
	k, _ := kernel.New(ks)
	var sp svm.ProgressFunc
	if progress != nil {
		sp = func(s svm.Progress) {
			progress(nsvm.Progress{Phase: "svm", Step: s.Step, Total: s.Total, NSV: s.NSV, Elapsed: s.Elapsed})
		}
	}
	fit := func(ctx context.Context, p svm.Problem, rng *rand.Rand, sp svm.ProgressFunc) (h *svm.Model, err error) {
		steps := f.steps
		if steps == 0 {
			steps = 10 * p.N
		}
		switch f.algo {
		case "smo":
			h, err = svm.SMO(ctx, p, k, svm.SMOConfig{C: f.C, Eps: f.eps, CacheMB: f.cacheMB, Workers: f.workers}, sp)
		case "pegasos":
			h, err = svm.Pegasos(ctx, p, k, svm.PegasosConfig{Lambda: f.lambda, T: steps, Batch: f.batch, Bias: f.bias, Workers: f.workers}, rng, sp)
		case "pegasos-linear":
			h, err = svm.PegasosLinear(ctx, p, svm.PegasosLinearConfig{Lambda: f.lambda, T: steps}, rng, sp)
		case "perceptron":
			h, err = svm.Perceptron(ctx, p, k, svm.PerceptronConfig{Epochs: f.epochs}, rng, sp)
		case "dual-sga":
			h, err = svm.DualSGA(ctx, p, k, svm.DualSGAConfig{C: f.C, Epochs: f.epochs}, rng, sp)
		case "chunking":
			h, err = svm.Chunking(ctx, p, k, svm.ChunkingConfig{C: f.C, Eps: f.eps, Chunk: f.chunk}, sp)
		}
		return h, err
	}
	if f.multi != nil {
		return e.fitClassicalHeads(f, x, fit, progress)
	}
	h, err := fit(e.ctx, p, rng, sp)
	if err != nil {
		return nil, err
	}
	return &nsvm.Model{Algorithm: f.algo, Head: h, Info: h.Info}, nil
}

// preset picks the paper's recipe that fits the data: the CNN for 28×28
// images, the MLP (with the data's input width) otherwise.
func preset(alg int, shape []int) (nsvm.Preset, error) {
	if len(shape) == 3 {
		return nsvm.MNISTPreset(alg)
	}
	return nsvm.RingnormPreset(alg)
}

func (e *env) fitNSVM(f *trainFlags, ds *data.Dataset, x []float32, y []float32, rng *rand.Rand, progress nsvm.ProgressFunc) (*nsvm.Model, error) {
	alg := int(f.algo[4] - '0')
	shape := ds.Shape
	if f.inputShape != "" {
		s, err := parseShape(f.inputShape)
		if err != nil {
			return nil, err
		}
		if prod(s) != ds.D {
			return nil, usagef("nsvm train: --input-shape %s has %d values, the data has %d per row", f.inputShape, prod(s), ds.D)
		}
		shape = s
	}
	if shape == nil {
		shape = []int{ds.D}
	}
	pr, err := preset(alg, shape)
	if err != nil {
		return nil, err
	}
	if f.arch != "" {
		pr.Arch = f.arch
	}
	c := pr.Config()
	if f.set["kernel"] || f.set["gamma"] || f.set["normalize-kernel"] || f.set["coef0"] || f.set["degree"] {
		if c.Kernel, err = f.kernelSpec(c.Kernel.Gamma); err != nil {
			return nil, err
		}
	}
	if f.set["lambda"] {
		c.Lambda = f.lambda
	}
	if f.set["steps"] {
		c.T = f.steps
	}
	if f.set["lr"] {
		c.Opt.LR = f.lr
	}
	if f.set["momentum"] {
		c.Opt.Momentum = f.momentum
	}
	if f.set["weight-decay"] {
		c.Opt.WeightDecay = f.weightDecay
	}
	if f.set["optimizer"] {
		c.Opt.Name = f.optimizer
	}
	if f.set["schedule"] {
		c.Opt.Schedule = f.schedule
	}
	if f.set["mu"] {
		pr.Alg3.Mu = f.mu
	}
	c.Bias = f.bias
	if f.set["batch"] {
		pr.Alg3.Batch, pr.Alg4.Batch = f.batch, f.batch
	}
	pr.Alg4.Loss = nsvm.AlignLosses[f.loss]
	pr.Alg3.Reg, _ = f.reg.config("train", f.set) // checked in check
	pr.Alg4.Reg = pr.Alg3.Reg
	p2 := &pr.Alg4.Part2
	p2.Solver = f.solver2
	if f.set["steps2"] {
		p2.T = f.steps2
	}
	if f.set["lambda"] {
		p2.Lambda = f.lambda
	}
	p2.C, p2.Eps, p2.CacheMB = f.C, f.eps, f.cacheMB
	// Small data sets: the preset's batch may exceed the number of points.
	if !f.set["batch"] {
		pr.Alg3.Batch = min(pr.Alg3.Batch, ds.N)
		pr.Alg4.Batch = min(pr.Alg4.Batch, ds.N)
	}
	net, err := nn.New(pr.Arch, shape, rng)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	o := nsvm.Options{Seed: f.seed, Progress: progress}
	if f.resume != "" {
		if o.Resume, err = nsvm.LoadCheckpoint(f.resume); err != nil {
			return nil, err
		}
	}
	saved, saveErr := -1, error(nil) // the step of the last checkpoint written, the last save's error
	if f.checkpoint != "" {
		o.CheckpointEvery = f.checkpointEvery
		if o.CheckpointEvery == 0 {
			o.CheckpointEvery = max(1, pr.Config().T/20)
		}
		o.Checkpoint = func(c *nsvm.Checkpoint) error {
			if saveErr = c.Save(f.checkpoint); saveErr == nil {
				saved = c.Step
			}
			return saveErr
		}
	}
	p := nsvm.Problem{X: x, N: ds.N, D: ds.D, Y: y}
	var m *nsvm.Model
	switch alg {
	case 1:
		m, err = nsvm.TrainAlg1(e.ctx, net, p, pr.Alg1, o)
	case 2:
		m, err = nsvm.TrainAlg2(e.ctx, net, p, pr.Alg2, o)
	case 3:
		m, err = e.trainAlg3(f, net, x, p, pr.Alg3, o)
	default:
		m, err = e.trainAlg4(f, net, x, p, pr.Alg4, o)
	}
	if err != nil && e.ctx.Err() != nil {
		switch {
		case saveErr != nil:
			// The checkpoint on interrupt failed; err says why.
		case saved >= 0:
			return nil, fmt.Errorf("nsvm train: interrupted; checkpoint at step %d of %d written to %s (continue with the same flags and --resume %s)",
				saved, c.T, f.checkpoint, f.checkpoint)
		default:
			return nil, fmt.Errorf("nsvm train: interrupted (%v); without --checkpoint the run cannot be continued", strings.TrimPrefix(err.Error(), "nsvm: "))
		}
	}
	return m, err
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
