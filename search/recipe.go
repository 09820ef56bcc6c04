package search

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/svm"
	"github.com/nsvm-go/nsvm/svm/lecture"
)

// recipe is one complete way to train a model: a candidate of the search.
type recipe struct {
	name    string
	scaling string
	scheme  string // heads on more than two classes
	cfg     *FitConfig

	// Classical SVMs on the scaled inputs.
	solver string      // "" for an NSVM
	kern   kernel.Spec // on the inputs (classical) or the features (NSVM heads)
	c      float64     // C of SMO, chunking, dual-sga, heads; Pegasos uses λ = 1/(C·N)
	loss   svm.DCDLoss // the loss of the linear solver
	// blend: the linear solver's l2- and l1-loss SVMs at C, their weights
	// averaged (see blendLinear; LinearLoss "l2+l1"). loss is SquaredHinge.
	blend bool
	nu    float64 // ν of the ν solvers ("nu-smo")
	eps   float64 // SVR ε in units of the target's standard deviation

	// NSVMs.
	alg    int
	arch   string
	preset paper.Preset // the trainer configuration (Alg1..Alg4 as alg says)
	// auto: Part I of Algorithm 4 runs up to preset.Alg4.T steps with
	// early stopping on a hold-out of the recipe's rows, where the head's C
	// (and ε) are chosen too (see fitNSVM).
	auto  bool
	shift int // random shifts of up to this many pixels in Part I (images)
	// arms, if not empty, are the Part I variants an auto recipe races on
	// its hold-out (racePart1); the winner's network is kept.
	arms []part1Arm
	// cost orders the candidates: cheaper ones are tried first.
	cost float64
	// incumbent marks the classical default (RBF SVM, standardised inputs,
	// γ = 1/D, C = 1): another candidate must beat it by more than noise
	// to win (see search.winner).
	incumbent bool
}

// fitNotes are what an auto fit found out: the Part I steps that scored
// best and the head's solver, C and ε.
type fitNotes struct {
	steps   int
	c       float64
	eps     float64
	solver  string
	windows int    // FitStream: the stream windows Part I read
	race    string // the Part I race: every arm's score at every rung
	pruned  string // why Part I stopped as hopeless (monitor.hopeless)
	// testShift is chooseTestShift's comparison: the held-out scores
	// without and with the test-time shifts.
	testShift string
	// raceSecs and raceWork are the race's wall time and work.
	raceSecs float64
	raceWork Work
}

// trained is a fitted recipe with what it found out.
type trained struct {
	m     *model.Model
	notes fitNotes
}

// fit trains r on the rows train of d. workers bounds the goroutines of
// the solvers (0: FitConfig.Workers, else GOMAXPROCS).
func (r *recipe) fit(ctx context.Context, d *fitData, train []int, seed uint64, workers int, progress paper.ProgressFunc) (trained, error) {
	if workers == 0 {
		workers = r.cfg.Workers
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if r.sampled() && len(train) > svmRows {
		// SMO's cost grows as N² and its model's size with N: a kernel
		// SVM trains on a stratified sample of svmRows rows.
		train = d.sample(train, svmRows, rand.New(seedPCG(seed^0x73766d)))
	}
	var sp subProblem
	var t trained
	var err error
	if r.solver != "" {
		sp = d.subProblem(r.scaling, train)
		t.m, err = r.fitClassical(ctx, sp, seed, workers, progress)
	} else {
		sp = d.lazySubProblem(r.scaling, train)
		t, err = r.fitNSVM(ctx, sp, seed, workers, progress)
	}
	if err != nil {
		return t, err
	}
	if t.m.Net != nil {
		// The model is kept while other candidates train (the winner is
		// not trained again): it keeps its network's parameters, not the
		// workspaces its training grew.
		t.m.Net.Trim()
	}
	t.m.Mean, t.m.Std = sp.sc.mean, sp.sc.std
	if t.m.Info == nil {
		t.m.Info = map[string]string{}
	}
	t.m.Info["scaling"] = r.scaling
	return t, nil
}

// linearSolver reports whether a classical solver learns a linear function
// of the inputs without a kernel.
func linearSolver(solver string) bool { return solver == "linear" || solver == "pegasos-linear" }

// sampled reports whether r trains on a sample of at most svmRows rows (a
// kernel SVM, whose cost grows as N²; the linear solvers take every row).
func (r *recipe) sampled() bool { return r.solver == "smo" || r.solver == "nu-smo" }

// linearFitTol is the stopping tolerance of a linear SVM fitted as a
// model (the final fit, a cross-validation's folds), unless FitConfig.Tol
// pins one: scikit-learn's LinearSVC's, 10⁻⁴. The C paths that rank the
// candidates stop at LIBLINEAR's 0.1, which ranks them as well at a
// fraction of the epochs; the model is then solved to the precision of the
// reference a user compares it with, so that the default, the l2 loss at
// C = 1, is LinearSVC()'s model (its test predictions matched on three of
// the Debian splits of bench/sparse, where LIBLINEAR's tolerance was 2 and
// 6 documents of 10000 off, either way).
const linearFitTol = 1e-4

// headFitter returns the fitter of one binary head for the classical
// solver (on inputs) or the NSVM head (on features); steps pins Pegasos'
// steps (0: 10·N).
func (r *recipe) headFitter(solver string, k kernel.Kernel, c float64, steps, workers int) paper.HeadFitter {
	cfg := r.cfg
	return func(ctx context.Context, p svm.Problem, rng *rand.Rand, sp svm.ProgressFunc) (*svm.Model, error) {
		lambda := cfg.Lambda
		if lambda == 0 {
			lambda = 1 / (c * float64(p.N))
		}
		switch solver {
		case "smo":
			return svm.SMO(ctx, p, k, svm.SMOConfig{C: c, Eps: cfg.Tol, CacheMB: cfg.cacheMB(workers), Workers: workers}, sp)
		case "pegasos":
			if steps == 0 {
				steps = max(10*p.N, 1000)
			}
			return svm.Pegasos(ctx, p, k, svm.PegasosConfig{Lambda: lambda, T: steps, Batch: cfg.Batch, Bias: cfg.Bias, Workers: workers}, rng, sp)
		case "pegasos-linear":
			if steps == 0 {
				steps = max(10*p.N, 1000)
			}
			return svm.PegasosLinear(ctx, p, svm.PegasosLinearConfig{Lambda: lambda, T: steps}, rng, sp)
		case "perceptron":
			return lecture.Perceptron(ctx, p, k, lecture.PerceptronConfig{Epochs: cfg.Epochs}, rng, sp)
		case "dual-sga":
			return lecture.DualSGA(ctx, p, k, lecture.DualSGAConfig{C: c, Epochs: cfg.Epochs}, rng, sp)
		case "chunking":
			return svm.Chunking(ctx, p, k, svm.ChunkingConfig{C: c, Eps: cfg.Tol, Chunk: cfg.Chunk}, sp)
		case "dcd":
			return svm.LinearDCD(ctx, p, svm.LinearDCDConfig{C: c, MaxEpochs: 100}, rng, sp)
		case "linear":
			eps := cfg.Tol
			if eps == 0 {
				eps = linearFitTol
			}
			if r.blend {
				return blendLinear(ctx, p, svm.LinearDCDConfig{C: c, Eps: eps}, rng)
			}
			return svm.LinearDCD(ctx, p, svm.LinearDCDConfig{C: c, Loss: r.loss, Eps: eps}, rng, sp)
		case "nu-smo":
			return svm.NuSVC(ctx, p, k, svm.NuConfig{Nu: r.nu, Eps: cfg.Tol, CacheMB: cfg.cacheMB(workers), Workers: workers}, sp)
		}
		return nil, errf("fit: unknown solver %q", solver)
	}
}

// fitHeads fits the SVM part of a model on the rows x (n×D, already
// scaled or mapped to features) of s: one head for two classes, the heads
// of r.scheme for more, an SVR for regression.
func (r *recipe) fitHeads(ctx context.Context, s subProblem, x []float32, D int, solver string, spec kernel.Spec, c, eps float64, steps int, seed uint64, workers int, progress paper.ProgressFunc) (*model.Model, error) {
	k, err := kernel.New(spec)
	if err != nil {
		return nil, err
	}
	var sp svm.ProgressFunc
	if progress != nil {
		sp = func(p svm.Progress) {
			progress(paper.Progress{Phase: "svm", Step: p.Step, Total: p.Total, NSV: p.NSV, Elapsed: p.Elapsed})
		}
	}
	m := &model.Model{Algorithm: solver, Info: map[string]string{}}
	switch {
	case s.d.task == model.Regression:
		if r.cfg.Epsilon != nil {
			eps = *r.cfg.Epsilon / s.ySD // pinned in target units
		}
		h, err := r.fitSVR(ctx, svm.RegProblem{X: x, N: s.n, D: D, Y: s.targets()}, k, solver, c, eps, steps, workers, seed, sp)
		if err != nil {
			return nil, err
		}
		m.Head = h
		m.Task = model.Regression
		m.ScaleOutput(s.ySD, s.yMean)
		defer func() {
			m.Info["epsilon"] = fmtG(eps * s.ySD)
			m.Info["target_mean"], m.Info["target_std"] = fmtG(s.yMean), fmtG(s.ySD)
		}()
	case s.d.nclass() == 2:
		rng := rand.New(seedPCG(seed))
		h, err := r.headFitter(solver, k, c, steps, workers)(ctx, s.problem(x, D), rng, sp)
		if err != nil {
			return nil, err
		}
		h.Neg, h.Pos = s.d.classes[0], s.d.classes[1]
		m.Head = h
	default:
		cp := s.classProblem(x, D)
		if x == nil {
			cp.Sparse = s.sp
		}
		heads, err := paper.FitHeads(ctx, cp, r.scheme, workers, seed, r.headFitter(solver, k, c, steps, 1), progress)
		if err != nil {
			return nil, err
		}
		m.SetHeads(s.d.classes, r.scheme, heads)
	}
	countModel(m, countersFrom(ctx))
	for key, v := range m.Head.Info {
		switch key {
		case "solver", "lambda", "T", "batch", "C", "eps", "epochs", "bias", "chunk", "epsilon", "svm_type", "nu":
			m.Info[key] = v
		}
	}
	return m, nil
}

// fitSVR fits a kernel SVR on standardised targets: SMO's ε-SVR (LIBSVM's
// svm-train -s 3), or Pegasos SVR (iterates averaged) with λ = 1/(C·N).
func (r *recipe) fitSVR(ctx context.Context, p svm.RegProblem, k kernel.Kernel, solver string, c, eps float64, steps, workers int, seed uint64, sp svm.ProgressFunc) (*svm.Model, error) {
	if eps == 0 {
		eps = -1 // exactly 0 for the configurations below
	}
	switch solver {
	case "smo":
		return svm.SMOSVR(ctx, p, k, svm.SMOSVRConfig{C: c, Epsilon: eps, Eps: r.cfg.Tol, CacheMB: r.cfg.cacheMB(workers), Workers: workers}, sp)
	case "nu-smo":
		return svm.NuSVR(ctx, p, k, svm.NuConfig{Nu: r.nu, C: c, Eps: r.cfg.Tol, CacheMB: r.cfg.cacheMB(workers), Workers: workers}, sp)
	}
	lambda := r.cfg.Lambda
	if lambda == 0 {
		lambda = 1 / (c * float64(p.N))
	}
	if steps == 0 {
		steps = max(20*p.N, 2000)
	}
	return svm.PegasosSVR(ctx, p, k, svm.SVRConfig{Lambda: lambda, Epsilon: eps, T: steps, Average: true}, rand.New(seedPCG(seed)), sp)
}

// fitClassical trains a classical SVM on the scaled inputs.
func (r *recipe) fitClassical(ctx context.Context, s subProblem, seed uint64, workers int, progress paper.ProgressFunc) (*model.Model, error) {
	m, err := r.fitHeads(ctx, s, s.x, s.d.d, r.solver, r.kern, r.c, r.eps, r.cfg.Steps, seed, workers, progress)
	if err != nil {
		return nil, err
	}
	m.Algorithm = r.solver
	return m, nil
}

// fitNSVM trains the network of an NSVM recipe and its head.
func (r *recipe) fitNSVM(ctx context.Context, s subProblem, seed uint64, workers int, progress paper.ProgressFunc) (trained, error) {
	var t trained
	rng := rand.New(seedPCG(seed))
	net, err := nn.New(r.arch, s.d.shape, rng)
	if err != nil {
		return t, err
	}
	countNet(ctx, net)
	if s.sp != nil {
		// Sparse rows enter the first dense layer as they are; its
		// weights are kept one input column a row, so that a nonzero is
		// one contiguous update.
		if err := net.SetSparseLayout(true); err != nil {
			return t, configErr("%v", err)
		}
	}
	o := r.cfg.Train
	o.Seed, o.Progress = seed, progress
	if !r.auto && r.alg != 4 {
		t.m, err = r.fitAlg123(ctx, net, s.dense(), o)
		return t, err
	}
	// Algorithm 4: Part I against the class or regression target, then the
	// head on the fixed features. An auto recipe holds out a stratified
	// part of its rows: Part I trains on the rest and stops early where
	// the held-out score peaks, the head's C (and ε) are chosen on it, and
	// the final head is fitted on the features of all the rows. The
	// procedure is the same in the search and in the final fit, so that a
	// candidate's validation score is not biased by choices made on the
	// validation rows.
	cfg := r.preset.Alg4
	fitPart, stop := s, subProblem{}
	if r.auto {
		fitPart, stop = s.splitInPlace(min(autoHoldout, maxHoldout/float64(s.n)), rand.New(seedPCG(seed^0x686f6c64)))
		cfg.Batch = min(cfg.Batch, fitPart.n) // a fold may be smaller than the data
	}
	t.notes = fitNotes{steps: cfg.T, c: r.c, eps: r.eps}
	arm, race, err := r.trainPart1(ctx, net, s, fitPart, stop, &cfg, o, seed, &t.notes)
	if err != nil {
		return t, err
	}
	var head *model.Model
	var headScore float64
	if stop.n > 0 {
		if head, headScore, err = r.chooseHead(ctx, net, s, fitPart, stop, cfg, seed, workers, &t.notes); err != nil {
			return t, err
		}
	}
	hm, err := r.finalHead(ctx, net, s, cfg, o.Progress, seed, workers, &t.notes)
	if err != nil {
		return t, err
	}
	hm.TestShift = r.chooseTestShift(net, stop, head, headScore, strings.Contains(arm.augment, "shift"), &t.notes)
	if t.notes.testShift != "" {
		hm.Info["test_shift_race"] = t.notes.testShift
	}
	if race {
		hm.Info["augment"] = arm.augment
		hm.Info["part1_race"] = t.notes.race
	}
	t.m = hm
	return t, nil
}

// fitAlg123 trains the binary Algorithms 1 and 2 or Algorithm 3 (binary
// or multiclass) on s, as the recipe pins them.
func (r *recipe) fitAlg123(ctx context.Context, net *nn.Net, s subProblem, o paper.Options) (*model.Model, error) {
	d, p := s.d, r.preset
	if d.task != model.Classification || d.nclass() > 2 && r.alg != 3 {
		return nil, configErr("algorithm %d is binary", r.alg)
	}
	var m *model.Model
	var err error
	switch {
	case r.alg == 1:
		m, err = paper.TrainAlg1(ctx, net, paper.Problem{X: s.x, N: s.n, D: d.d, Y: s.binaryY()}, p.Alg1, o)
	case r.alg == 2:
		m, err = paper.TrainAlg2(ctx, net, paper.Problem{X: s.x, N: s.n, D: d.d, Y: s.binaryY()}, p.Alg2, o)
	case d.nclass() == 2:
		m, err = paper.TrainAlg3(ctx, net, paper.Problem{X: s.x, N: s.n, D: d.d, Y: s.binaryY()}, p.Alg3, o)
	default:
		m, err = paper.TrainMulticlassAlg3(ctx, net, s.classProblem(s.x, d.d), paper.MulticlassAlg3Config{Alg3Config: p.Alg3, Balanced: r.cfg.Balanced == nil || *r.cfg.Balanced}, o)
	}
	if err != nil {
		return nil, err
	}
	if !m.Multiclass() {
		m.Head.Neg, m.Head.Pos = d.classes[0], d.classes[1]
	}
	return m, nil
}

// trainPart1 trains Part I of Algorithm 4 on fitPart: the Part I race
// (objective and augmentation, which it sets in cfg) when the recipe has
// arms and held-out rows, early stopping on stop, and a stream's final
// fit over the whole stream. It reports the augmentation in effect (the
// race's winner, with its objective, when the race ran) and whether the
// race ran.
func (r *recipe) trainPart1(ctx context.Context, net *nn.Net, s, fitPart, stop subProblem, cfg *paper.Alg4Config, o paper.Options, seed uint64, notes *fitNotes) (part1Arm, bool, error) {
	d := s.d
	targetOf := func(sp subProblem) paper.Target {
		if d.task == model.Regression {
			tk := r.cfg.Target
			if tk == "" {
				tk = paper.TargetRBF
			}
			return paper.RegressionTarget(sp.targets(), string(tk))
		}
		return paper.ClassTarget(sp.classProblem(nil, 0).Y, d.nclass())
	}
	target := targetOf(fitPart)
	var aug paper.Augmenter
	var arm part1Arm
	switch {
	case r.cfg.Augment != "" && len(d.shape) == 3:
		arm.augment = string(r.cfg.Augment)
		aug = arm.augmenter(d.shape, fitPart.sc.black(d.d))
	case r.shift > 0:
		arm.augment = "shift"
		aug = paper.RandomShift(d.shape[0], d.shape[1], d.shape[2], r.shift, fitPart.sc.black(d.d))
	}
	race := len(r.arms) > 0 && stop.n > 0 && d.stream == nil && fitPart.sp == nil
	if race {
		var err error
		if arm, err = r.racePart1(ctx, net, fitPart, stop, *cfg, targetOf, o, seed, notes); err != nil {
			return arm, race, err
		}
		cfg.Objective, aug = arm.objective, arm.augmenter(d.shape, fitPart.sc.black(d.d))
	}
	if stop.n > 0 {
		mon := r.monitor(ctx, net, fitPart, stop, seed, notes)
		o.Monitor, o.MonitorEvery = mon.check, max(1, cfg.T/monitorChecks)
	}
	if d.stream != nil && s.n == d.n && r.auto && d.task == model.Classification {
		// FitStream's final fit: Part I over the whole stream.
		return arm, race, r.streamPart1(ctx, net, s, fitPart, stop, *cfg, aug, o, seed, notes)
	}
	p1 := paper.Part1{Target: target, Weights: d.costs(fitPart.idx), Augment: aug}
	fitPart.part1Rows(&p1)
	err := paper.TrainPart1(ctx, net, p1, *cfg, o)
	if err == nil && notes.pruned != "" {
		err = errors.New("pruned: " + notes.pruned)
	}
	return arm, race, err
}

// headSample is the stratified sample of at most rows rows of sp that a
// head trains on: on large data the kernel head trains on headRows rows
// (SMO's cost grows as N² and a head's support vectors bound its
// prediction cost) and a linear head on linearRows.
func headSample(sp subProblem, rows int, seed uint64) subProblem {
	return sp.atMost(rows, rand.New(seedPCG(seed^0x68656164)))
}

// chooseHead chooses the head of Algorithm 4 (its C and ε, and on large
// data a linear head against the kernel head) by the held-out score on
// stop of heads trained on the features of fitPart, into notes. It returns
// the best head and its score.
func (r *recipe) chooseHead(ctx context.Context, net *nn.Net, s, fitPart, stop subProblem, cfg paper.Alg4Config, seed uint64, workers int, notes *fitNotes) (*model.Model, float64, error) {
	d, n := s.d, net.OutSize()
	fs := headSample(fitPart, headRows, seed)
	zf, zs := features(net, fs), features(net, stop)
	best := math.Inf(-1)
	var head *model.Model
	try := func(solver string, sp subProblem, z []float32, c, eps float64) error {
		hm, err := r.fitHeads(ctx, sp, z, n, solver, cfg.Kernel, c, eps, cfg.Part2.T, seed, workers, nil)
		if err != nil {
			return err
		}
		if sc := scoreOn(hm, d, stop.idx, zs); sc > best {
			best, head, notes.c, notes.eps, notes.solver = sc, hm, c, eps, solver
		}
		return nil
	}
	for _, c := range r.headCs() {
		for _, eps := range r.headEps(d) {
			if err := try(cfg.Part2.SolverName(), fs, zf, c, eps); err != nil {
				return nil, 0, err
			}
		}
	}
	if r.auto && d.task == model.Classification && s.n > headRows && r.cfg.Solver2 == "" {
		ls := headSample(fitPart, linearRows, seed)
		za := features(net, ls)
		for _, c := range []float64{0.01, 0.1, 1, 10} {
			if err := try("dcd", ls, za, c, 0); err != nil {
				return nil, 0, err
			}
		}
	}
	return head, best, nil
}

// chooseTestShift returns the TestShift of an image recipe's model: as
// FitConfig.TestAugment pins it, or else 1 where Part I trained on shifted
// images (shifted) and head, the head chooseHead chose, scores better on
// the held-out rows stop with their features averaged over the shifts
// than its score without them (score), which notes record.
func (r *recipe) chooseTestShift(net *nn.Net, stop subProblem, head *model.Model, score float64, shifted bool, notes *fitNotes) int {
	if model.CheckTestShiftShape(net.InShape(), 1) != nil {
		return 0
	}
	switch r.cfg.TestAugment {
	case "none":
		return 0
	case "shift":
		return 1
	}
	if !shifted || head == nil || stop.n == 0 || stop.sp != nil {
		return 0
	}
	sc := scoreOn(head, stop.d, stop.idx, shiftedFeatures(net, stop, 1))
	notes.testShift = fmt.Sprintf("%d rows: none=%.4f shift=%.4f", stop.n, score, sc)
	if sc > score {
		return 1
	}
	return 0
}

// shiftedFeatures returns the features of the rows of s (dense) as a model
// of the network with TestShift shift gives them: the mean over the images
// moved before they are scaled. Rows s holds scaled are unscaled first.
func shiftedFeatures(net *nn.Net, s subProblem, shift int) []float32 {
	m := &model.Model{Net: net, Head: &svm.Model{D: net.OutSize()}, Mean: s.sc.mean, Std: s.sc.std, TestShift: shift}
	return inBlocks(s, m.OutSize(), s.rawRows, m.Features)
}

// finalHead fits the head of Algorithm 4 that notes chose (or the
// preset's) on the features of s's rows, and records the fit in the
// model's Info.
func (r *recipe) finalHead(ctx context.Context, net *nn.Net, s subProblem, cfg paper.Alg4Config, progress paper.ProgressFunc, seed uint64, workers int, notes *fitNotes) (*model.Model, error) {
	solver := cfg.Part2.SolverName()
	if notes.solver != "" {
		solver = notes.solver
	}
	rows := headRows
	if solver == "dcd" {
		rows = linearRows
	}
	hs := headSample(s, rows, seed)
	z := features(net, hs)
	if nonFinite(z) {
		return nil, errNonFinite(4, cfg.T, "features after part I")
	}
	if progress != nil {
		progress(paper.Progress{Algorithm: 4, Phase: "features", Step: hs.n, Total: hs.n})
	}
	hm, err := r.fitHeads(ctx, hs, z, net.OutSize(), solver, cfg.Kernel, notes.c, notes.eps, cfg.Part2.T, seed, workers, progress)
	if err != nil {
		return nil, err
	}
	if r.cfg.KeepInputs {
		keepInputs(hm, z, hs)
	}
	hm.Net = net
	hm.Algorithm = "nsvm4"
	hm.Info["steps"] = strconv.Itoa(notes.steps)
	if notes.windows > 0 {
		hm.Info["part1_windows"] = strconv.Itoa(notes.windows)
	}
	hm.Info["batch"] = strconv.Itoa(cfg.Batch)
	hm.Info["lr"] = fmtG(cfg.Opt.LR)
	hm.Info["optimizer"] = cmp.Or(cfg.Opt.Name, "sgd")
	hm.Info["part2_solver"] = solver
	if cfg.Objective != "" {
		hm.Info["part1_objective"] = cfg.Objective
	}
	if solver == "smo" || solver == "dcd" {
		hm.Info["part2_C"] = fmtG(notes.c)
	}
	if hs.n < s.n {
		hm.Info["part2_rows"] = strconv.Itoa(hs.n)
	}
	return hm, nil
}

// keepInputs sets the Inputs of m's kernel heads: the rows of s whose
// features (z, s.n × m.OutSize()) are their support vectors, which the
// solvers copied from z.
func keepInputs(m *model.Model, z []float32, s subProblem) {
	n, d := m.OutSize(), s.d.d
	if s.x == nil && s.src == nil {
		return
	}
	row := make(map[string]int, s.n)
	for i := range s.n {
		row[string(f32Bytes(z[i*n:(i+1)*n]))] = i
	}
	hs := m.Heads
	if hs == nil {
		hs = []*svm.Model{m.Head}
	}
	for _, h := range hs {
		if h.SV == nil || h.Kernel.Name == "linear" || h.NSV == 0 {
			continue
		}
		in := make([]float32, 0, h.NSV*d)
		for j := range h.NSV {
			i, ok := row[string(f32Bytes(h.SV[j*n:(j+1)*n]))]
			if !ok {
				in = nil
				break
			}
			in = slices.Grow(in, d)[:len(in)+d]
			s.gather(in[len(in)-d:], []int{i})
		}
		h.Inputs = in
	}
}

// f32Bytes returns the bytes of v (a map key).
func f32Bytes(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// svmRows bounds the rows a classical kernel SVM trains on (SMO).
// autoHoldout is the fraction of its rows an auto NSVM recipe holds out
// for early stopping and the head's C (at most maxHoldout rows);
// monitorChecks is how many times Part I is scored on them over its
// maximal length; headRows bounds the rows a kernel head trains on,
// linearRows those of a linear head.
const (
	svmRows       = 20000
	autoHoldout   = 0.15
	maxHoldout    = 5000
	monitorChecks = 16
	headRows      = 10000
	linearRows    = 100000
)

// headCs returns the C values tried for an NSVM head.
func (r *recipe) headCs() []float64 {
	if r.cfg.C > 0 || r.preset.Alg4.Part2.SolverName() != "smo" {
		return []float64{r.c}
	}
	return []float64{0.1, 1, 10, 100}
}

// headEps returns the ε values tried for an NSVM regression head.
func (r *recipe) headEps(d *fitData) []float64 {
	if d.task != model.Regression || r.cfg.Epsilon != nil {
		return []float64{r.eps}
	}
	return []float64{0.01, 0.1, 0.3}
}

// scoreOn scores a model whose rows are given already transformed (xv:
// the model's own input, which for a head is the feature vectors).
func scoreOn(m *model.Model, d *fitData, val []int, xv []float32) float64 {
	sc, _ := d.scoreModel(m, val, denseRows(xv, len(val)))
	return sc
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// describe names a recipe for reports.
func (r *recipe) describe() string {
	var b strings.Builder
	if r.solver != "" {
		if linearSolver(r.solver) {
			b.WriteString(r.solver)
			if r.blend {
				b.WriteString(" l2+l1")
			} else if r.solver == "linear" {
				b.WriteString(" " + r.loss.String())
			}
		} else {
			fmt.Fprintf(&b, "%s %s", r.solver, r.kern.Name)
		}
		if r.kern.Name != "linear" {
			fmt.Fprintf(&b, " γ=%.3g", r.kern.Gamma)
		}
		if r.solver != "perceptron" {
			fmt.Fprintf(&b, " C=%.3g", r.c)
		}
		if r.eps != 0 {
			fmt.Fprintf(&b, " ε=%.3g", r.eps)
		}
		if r.nu != 0 {
			fmt.Fprintf(&b, " ν=%.3g", r.nu)
		}
	} else {
		fmt.Fprintf(&b, "nsvm%d %s", r.alg, r.arch)
		if r.alg == 4 {
			fmt.Fprintf(&b, " lr=%g", r.preset.Alg4.Opt.LR)
		}
	}
	fmt.Fprintf(&b, " (%s)", r.scaling)
	return b.String()
}
