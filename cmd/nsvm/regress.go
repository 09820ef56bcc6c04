package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// Regression on the command line ("nsvm train --task regression"):
//
//   - the label column holds real targets;
//   - features are standardised as for classification (--standardize);
//   - targets are always standardised with the training mean and standard
//     deviation for training, and the model's output is mapped back
//     (nsvm.Model.ScaleOutput), so that predictions are in target units and
//     the file needs no extra statistics (they are recorded in its metadata
//     as target_mean and target_std);
//   - --epsilon is in target units, like svm-train's -p; by default it is
//     0.1 standard deviations of the training targets;
//   - --lambda defaults to 1/N (LIBSVM's C = 1, since C = 1/(λN)) for the
//     SVR, the Pegasos SVR on the inputs (--algo pegasos) or the head of the
//     NSVM regressor (--algo nsvm4), which runs Part I of Algorithm 4 with a
//     regression target kernel (--target) first.

// Regression defaults of nsvm train (--algo nsvm4 --task regression) for
// vector data, chosen on validation splits of Friedman #1 and of the
// diabetes data (see bench/README-svr.md). Part I runs 2·N steps of batch
// 16 (32 epochs), at most 10000: more steps help on large, smooth problems
// (Friedman #1) and overfit small noisy ones (diabetes), where --steps or a
// larger --weight-decay should be chosen on held-out data.
const (
	regressionArch     = "dense(40),relu,dense(30),relu,dense(20),relu,l2norm"
	regressionEpochs   = 2     // Part I steps per training point
	regressionMaxSteps = 10000 // at most this many Part I steps
	regressionLR       = 3e-2  // SGD with momentum 0.9, invt schedule
	regressionSVRx     = 20    // SVR steps per training point
)

// regressionAlgos are the trainers --task regression accepts.
var regressionAlgos = []string{"nsvm4", "pegasos"}

// checkRegression validates the flags that do not depend on the data.
func (f *trainFlags) checkRegression() error {
	if !contains(regressionAlgos, f.algo) {
		return usagef("nsvm train: --task regression needs --algo nsvm4 or pegasos, not %s", f.algo)
	}
	switch {
	case f.probability:
		return usagef("nsvm train: --probability applies to classification, not --task regression")
	case f.set["multiclass"]:
		return usagef("nsvm train: --multiclass applies to classification, not --task regression")
	case f.set["solver2"] && f.solver2 != "pegasos":
		return usagef("nsvm train: --task regression fits its head by Pegasos SVR; --solver2 %s is for classification", f.solver2)
	case f.checkpoint != "" || f.resume != "":
		return usagef("nsvm train: --checkpoint and --resume are not available for --task regression")
	case f.set["epsilon"] && (!(f.epsilon >= 0) || math.IsInf(f.epsilon, 0)):
		return usagef("nsvm train: --epsilon must be a finite number ≥ 0, got %g", f.epsilon)
	}
	switch f.target {
	case nsvm.TargetLinear, nsvm.TargetRBF:
	default:
		return usagef("nsvm train: unknown --target %q (want linear or rbf)", f.target)
	}
	if f.set["target"] && f.algo != "nsvm4" {
		return usagef("nsvm train: --target is the Part I target kernel of --algo nsvm4")
	}
	return nil
}

// targetStats returns the mean and standard deviation (divisor N) of y.
func targetStats(y []float64) (mean, sd float64) {
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	for _, v := range y {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(y)))
}

// trainRegression is "nsvm train --task regression".
func (e *env) trainRegression(f *trainFlags) error {
	if err := f.checkRegression(); err != nil {
		return err
	}
	ds, err := f.dataFlags.load("train")
	if err != nil {
		return err
	}
	if ds.N < 2 {
		return fmt.Errorf("nsvm train: regression needs at least 2 points, %s has %d", f.path, ds.N)
	}
	mean, sd := targetStats(ds.Y)
	if !(sd > 0) || math.IsInf(sd, 0) {
		return fmt.Errorf("nsvm train: all %d targets are %g; there is nothing to regress", ds.N, ds.Y[0])
	}
	if err := checkWritable(f.model, "model"); err != nil {
		return err
	}
	var lg *progressLog
	if f.log != "" {
		if lg, err = openLog(f.log); err != nil {
			return err
		}
	}
	m, secs, err := e.fitRegression(f, ds, mean, sd, lg)
	if cerr := lg.close(err); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := m.Save(f.model); err != nil {
		return err
	}
	r := regressionScores(m, ds)
	if f.json {
		return json.NewEncoder(e.stdout).Encode(map[string]any{
			"algo": f.algo, "task": "regression", "n": ds.N, "train_seconds": secs, "n_sv": numSV(m),
			"train_rmse": r.RMSE, "train_r2": r.R2, "epsilon": m.Info["epsilon"], "model": f.model,
		})
	}
	fmt.Fprintf(e.stdout, "trained %s regressor on %d points in %.2fs: %d support vectors, training RMSE %.4g, R² %.4f; model written to %s\n",
		f.algo, ds.N, secs, numSV(m), r.RMSE, r.R2, f.model)
	return nil
}

// fitRegression standardises inputs (as configured) and targets, trains,
// and maps the model back to target units.
func (e *env) fitRegression(f *trainFlags, ds *data.Dataset, ymean, ysd float64, lg *progressLog) (*nsvm.Model, float64, error) {
	var xmean, xstd []float64
	x := ds.X
	if f.standardize == "on" || f.standardize == "auto" && len(ds.Shape) != 3 {
		st := data.FitStandardizer(ds)
		xmean, xstd = st.Mean, st.Std
		x = standardized(ds, st)
	}
	y := make([]float64, ds.N)
	for i, v := range ds.Y {
		y[i] = (v - ymean) / ysd
	}
	p := svm.RegProblem{X: x, N: ds.N, D: ds.D, Y: y}
	eps := 0.1
	if f.set["epsilon"] {
		eps = f.epsilon / ysd
		if eps == 0 {
			eps = -1 // exactly 0 (SVRConfig reads 0 as its default)
		}
	}
	lambda := 1 / float64(ds.N)
	if f.set["lambda"] {
		lambda = f.lambda
	}
	steps2 := regressionSVRx * ds.N
	rng := rand.New(rand.NewPCG(f.seed, f.seed^0x9e3779b97f4a7c15))
	progress, done := e.progressFor(f.algo, f.json || f.quiet)
	if lg != nil {
		progress = tee(progress, lg.callback(f.algo, f.seed))
	}
	start := time.Now()
	var m *nsvm.Model
	var err error
	if f.algo == "pegasos" {
		if f.set["steps"] {
			steps2 = f.steps
		}
		m, err = e.fitPegasosSVR(f, p, svm.SVRConfig{Lambda: lambda, Epsilon: eps, T: steps2, Batch: f.batch, Average: true}, rng, progress)
	} else {
		if f.set["steps2"] {
			steps2 = f.steps2
		}
		m, err = e.fitNSVMRegression(f, ds, p, lambda, eps, steps2, rng, progress)
	}
	done()
	if err != nil && e.ctx.Err() != nil {
		err = fmt.Errorf("nsvm train: interrupted (%v)", strings.TrimPrefix(err.Error(), "nsvm: "))
	}
	if err != nil {
		return nil, 0, err
	}
	secs := time.Since(start).Seconds()
	m.ScaleOutput(ysd, ymean)
	m.Mean, m.Std = xmean, xstd
	m.Info["task"] = "regression"
	m.Info["epsilon"] = strconv.FormatFloat(math.Max(eps, 0)*ysd, 'g', -1, 64)
	m.Info["target_mean"] = strconv.FormatFloat(ymean, 'g', -1, 64)
	m.Info["target_std"] = strconv.FormatFloat(ysd, 'g', -1, 64)
	return m, secs, nil
}

// fitPegasosSVR is --algo pegasos: kernel SVR on the (standardised) inputs.
func (e *env) fitPegasosSVR(f *trainFlags, p svm.RegProblem, cfg svm.SVRConfig, rng *rand.Rand, progress nsvm.ProgressFunc) (*nsvm.Model, error) {
	ks, err := f.kernelSpec(1 / float64(p.D))
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
	h, err := svm.PegasosSVR(e.ctx, p, k, cfg, rng, sp)
	if err != nil {
		return nil, err
	}
	return &nsvm.Model{Algorithm: "pegasos", Head: h, Info: h.Info}, nil
}

// fitNSVMRegression is --algo nsvm4: nsvm.TrainRegression with the
// regression defaults above (the MNIST CNN for 28×28 images).
func (e *env) fitNSVMRegression(f *trainFlags, ds *data.Dataset, p svm.RegProblem, lambda, eps float64, steps2 int, rng *rand.Rand, progress nsvm.ProgressFunc) (*nsvm.Model, error) {
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
	pr, err := preset(4, shape)
	if err != nil {
		return nil, err
	}
	c := pr.Alg4
	if len(shape) != 3 {
		pr.Arch = regressionArch
		c.T = min(regressionEpochs*ds.N, regressionMaxSteps)
		c.Opt.LR = regressionLR
	}
	if f.arch != "" {
		pr.Arch = f.arch
	}
	if f.set["kernel"] || f.set["gamma"] || f.set["normalize-kernel"] || f.set["coef0"] || f.set["degree"] {
		if c.Kernel, err = f.kernelSpec(c.Kernel.Gamma); err != nil {
			return nil, err
		}
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
	if f.set["batch"] {
		c.Batch = f.batch
	} else {
		c.Batch = min(c.Batch, ds.N)
	}
	c.Loss = nsvm.AlignLosses[f.loss]
	c.Reg, _ = f.reg.config("train", f.set) // checked in check
	c.Part2 = nsvm.Part2Config{Solver: "pegasos", Lambda: lambda, T: steps2}
	net, err := nn.New(pr.Arch, shape, rng)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return nsvm.TrainRegression(e.ctx, net, p, nsvm.RegressionConfig{Alg4Config: c, Epsilon: eps, Target: f.target},
		nsvm.Options{Seed: f.seed, Progress: progress})
}

// regressionResult is what "nsvm eval --json" prints for a regressor.
type regressionResult struct {
	RMSE float64 `json:"rmse"`
	MAE  float64 `json:"mae"`
	R2   float64 `json:"r2"`
	N    int     `json:"n"`
}

// regressionScores compares m's predictions on ds with its targets. R² is
// 1 − SSE/SST with SST about the mean of ds's targets (−Inf… when they
// are all equal and the predictions are not exact, NaN when both are 0 is
// reported as 1).
func regressionScores(m *nsvm.Model, ds *data.Dataset) regressionResult {
	g := make([]float64, ds.N)
	m.PredictBatch(g, ds.X, ds.N)
	mean, _ := targetStats(ds.Y)
	var sse, sae, sst float64
	for i, v := range g {
		d := v - ds.Y[i]
		sse += d * d
		sae += math.Abs(d)
		sst += (ds.Y[i] - mean) * (ds.Y[i] - mean)
	}
	n := float64(ds.N)
	r := regressionResult{RMSE: math.Sqrt(sse / n), MAE: sae / n, N: ds.N}
	switch {
	case sst > 0:
		r.R2 = 1 - sse/sst
	case sse == 0:
		r.R2 = 1
	default:
		r.R2 = math.Inf(-1)
	}
	return r
}

// evalRegression prints the scores of a regressor.
func (e *env) evalRegression(m *nsvm.Model, ds *data.Dataset, asJSON bool) error {
	r := regressionScores(m, ds)
	if asJSON {
		if math.IsInf(r.R2, 0) { // JSON has no infinities
			return json.NewEncoder(e.stdout).Encode(map[string]any{"rmse": r.RMSE, "mae": r.MAE, "r2": nil, "n": r.N})
		}
		return json.NewEncoder(e.stdout).Encode(r)
	}
	fmt.Fprintf(e.stdout, "RMSE %.6g, MAE %.6g, R² %.4f (%d points)\n", r.RMSE, r.MAE, r.R2, r.N)
	return nil
}

// predictRegression writes one predicted value per row.
func predictRegression(m *nsvm.Model, ds *data.Dataset, w io.Writer) error {
	g := make([]float64, ds.N)
	m.PredictBatch(g, ds.X, ds.N)
	bw := bufio.NewWriter(w)
	for _, v := range g {
		bw.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// dataFriedman1 is "nsvm data friedman1": Friedman #1 regression data.
func (e *env) dataFriedman1(args []string) error {
	fs := e.newFlags("data friedman1", "data friedman1 --n N --seed S --out FILE [--noise 1] [--format libsvm|csv]")
	n := fs.Int("n", 2000, "number of points")
	seed := fs.Uint64("seed", 1, "random seed")
	noise := fs.Float64("noise", 1, "standard deviation of the Gaussian noise on the target")
	out := fs.String("out", "", "output `file` (required; - for stdout)")
	format := fs.String("format", "libsvm", "output format: libsvm or csv")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *n < 2 {
		return usagef("nsvm data friedman1: --n must be ≥ 2, got %d", *n)
	}
	if !(*noise >= 0) || math.IsInf(*noise, 0) {
		return usagef("nsvm data friedman1: --noise must be a finite number ≥ 0, got %g", *noise)
	}
	if *out == "" {
		return usagef("nsvm data friedman1: --out is required")
	}
	var write func(io.Writer, *data.Dataset) error
	switch *format {
	case "libsvm":
		write = data.WriteLIBSVM
	case "csv":
		write = func(w io.Writer, d *data.Dataset) error { return data.WriteCSV(w, d, true) }
	default:
		return usagef("nsvm data friedman1: unknown --format %q (want libsvm or csv)", *format)
	}
	ds := data.Friedman1(*n, *noise, rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15)))
	if *out == "-" {
		return write(e.stdout, ds)
	}
	return writeAtomic(*out, func(w io.Writer) error { return write(w, ds) })
}
