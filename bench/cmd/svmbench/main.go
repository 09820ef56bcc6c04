// Command svmbench compares the solvers of package svm with their reference
// tools on the same data. -mode selects the comparison:
//
//	smo     (default) svm.SMO against svm-train, below
//	grid    svm.GridSMO / GridSMOSVR against independent svm.SMO fits and
//	        scikit-learn's GridSearchCV (bench/svm_grid.py), see grid.go
//	svr     svm.SMOSVR against svm-train -s 3, see svr.go
//	linear  svm.LinearDCD against liblinear-train -s 1 / -s 3, see linear.go
//
// In smo mode it compares svm.SMO with LIBSVM's svm-train on the same
// data, kernel, C, γ, ε, cache size and shrinking: generated Ringnorm
// (6660 train / 740 test, standardised on the training split) and, when the
// IDX files are present, MNIST 0 vs 1 (pixels / 255). For each data set it
// prints the training time, dual objective, number of support vectors and
// test accuracy of both, and the time ratio ours / svm-train. svm-train's
// time is measured twice: as wall time of the process, and minus the time of
// a run that only loads the data (ε = 10⁹ stops at the first check), which
// is what compares with our in-memory solver.
//
// Usage:
//
//	go run ./bench/cmd/svmbench [-mnist DIR] [-reps 3] [-pegasos] [-jsonl]
//	go run ./bench/cmd/svmbench -mode grid [-reps 3] [-workers 1] [-jsonl]
//	go run ./bench/cmd/svmbench -mode svr [-reps 3] [-jsonl]
//	go run ./bench/cmd/svmbench -mode linear [-linear-n 1000000] [-jsonl]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "svmbench:", err)
		os.Exit(1)
	}
}

type config struct {
	mnistDir           string
	seed               uint64
	gamma, c           float64
	mnistGamma, mnistC float64
	eps                float64
	cacheMB            int
	workers            int
	reps               int
	pegasos            bool
	sets               string
	cpuProfile         string
	jsonl              bool
	mode               string
	sklearn            string
	linearN            int
	liblinear          bool
}

// result is one solver's run on one data set. Seconds is the training
// time (for svm-train: wall time less the time to load the data); CPU is the
// CPU time (user + system) spent on it, less loading likewise.
type result struct {
	Solver      string  `json:"solver"`
	Seconds     float64 `json:"seconds"`
	CPU         float64 `json:"cpu_seconds"`
	WallSeconds float64 `json:"wall_seconds,omitempty"`
	LoadSeconds float64 `json:"load_seconds,omitempty"`
	Objective   float64 `json:"objective"`
	NSV         int     `json:"nsv"`
	Accuracy    float64 `json:"accuracy"`
}

type report struct {
	Data     string   `json:"dataset"`
	NTrain   int      `json:"n_train"`
	NTest    int      `json:"n_test"`
	D        int      `json:"d"`
	Gamma    float64  `json:"gamma"`
	C        float64  `json:"C"`
	Ours     result   `json:"ours"`
	LIBSVM   *result  `json:"libsvm,omitempty"`
	Ratio    float64  `json:"time_ratio,omitempty"`
	CPURatio float64  `json:"cpu_ratio,omitempty"`
	Pegasos  []pegRun `json:"pegasos,omitempty"`
	Skipped  string   `json:"skipped,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

type pegRun struct {
	T        int     `json:"T"`
	Lambda   float64 `json:"lambda"`
	Seconds  float64 `json:"seconds"`
	NSV      int     `json:"nsv"`
	Accuracy float64 `json:"accuracy"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("svmbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := os.Getenv("NSVM_MNIST_DIR")
	if def == "" {
		def = "/work/mnist"
	}
	fs.StringVar(&cfg.mnistDir, "mnist", def, "directory of the MNIST IDX files ($NSVM_MNIST_DIR)")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the Ringnorm draw and split")
	fs.Float64Var(&cfg.gamma, "gamma", 0.05, "RBF γ for Ringnorm")
	fs.Float64Var(&cfg.c, "C", 1, "C for Ringnorm")
	fs.Float64Var(&cfg.mnistGamma, "mnist-gamma", 0.02, "RBF γ for MNIST")
	fs.Float64Var(&cfg.mnistC, "mnist-C", 1, "C for MNIST")
	fs.Float64Var(&cfg.eps, "eps", 1e-3, "stopping tolerance ε")
	fs.IntVar(&cfg.cacheMB, "m", 200, "kernel cache in MB (both solvers)")
	fs.IntVar(&cfg.workers, "workers", 1, "goroutines per kernel column in our SMO (svm-train uses one thread)")
	fs.IntVar(&cfg.reps, "reps", 3, "timed repetitions; the fastest counts")
	fs.BoolVar(&cfg.pegasos, "pegasos", false, "also run kernel Pegasos (λ=1e-4) on Ringnorm for 10⁴ and 10⁵ steps")
	fs.StringVar(&cfg.sets, "data", "ringnorm,mnist", "data sets to run: ringnorm (6660/740), ringnorm:N (N training points, 1000 test), mnist")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of our SMO runs")
	fs.BoolVar(&cfg.jsonl, "jsonl", false, "after the table, print one JSON line per data set")
	fs.StringVar(&cfg.mode, "mode", "smo", "comparison: smo, grid, svr or linear")
	fs.StringVar(&cfg.sklearn, "sklearn", "bench/svm_grid.py", "grid mode: scikit-learn peer script (empty: skip)")
	fs.IntVar(&cfg.linearN, "linear-n", 1_000_000, "linear mode: Ringnorm training points")
	fs.BoolVar(&cfg.liblinear, "liblinear", true, "linear mode: also run liblinear-train")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.reps < 1 {
		return fmt.Errorf("-reps must be ≥ 1")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch cfg.mode {
	case "smo":
	case "grid":
		return runGrid(ctx, cfg, stdout)
	case "svr":
		return runSVR(ctx, cfg, stdout)
	case "linear":
		return runLinear(ctx, cfg, stdout)
	default:
		return fmt.Errorf("unknown -mode %q (want smo, grid, svr or linear)", cfg.mode)
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	tmp, err := os.MkdirTemp("", "svmbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var reports []report
	for _, name := range strings.Split(cfg.sets, ",") {
		var r report
		switch strings.TrimSpace(name) {
		case "ringnorm":
			rng := rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15))
			all := datasets.Ringnorm(7400, rng)
			train, test := data.Split(all, 740, rng)
			st := data.FitStandardizer(train)
			st.Apply(train)
			st.Apply(test)
			r, err = compare(ctx, cfg, tmp, "ringnorm", train, test, cfg.gamma, cfg.c)
			if err == nil && cfg.pegasos {
				r.Pegasos, err = pegasos(ctx, cfg, train, test)
			}
		case "mnist":
			train, test, skip, lerr := loadMNIST(cfg.mnistDir)
			if lerr != nil {
				return lerr
			}
			if skip != "" {
				r = report{Data: "mnist-0v1", Skipped: skip}
				break
			}
			r, err = compare(ctx, cfg, tmp, "mnist-0v1", train, test, cfg.mnistGamma, cfg.mnistC)
		default:
			// ringnorm:N — N generated training points (and 1000 test
			// points), for SMO time against n.
			ns, ok := strings.CutPrefix(strings.TrimSpace(name), "ringnorm:")
			n, aerr := strconv.Atoi(ns)
			if !ok || aerr != nil || n < 10 {
				return fmt.Errorf("unknown data set %q (want ringnorm, ringnorm:N, mnist)", name)
			}
			rng := rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15))
			all := datasets.Ringnorm(n+1000, rng)
			train, test := data.Split(all, 1000, rng)
			st := data.FitStandardizer(train)
			st.Apply(train)
			st.Apply(test)
			r, err = compare(ctx, cfg, tmp, "ringnorm-"+ns, train, test, cfg.gamma, cfg.c)
		}
		if err != nil {
			return err
		}
		reports = append(reports, r)
	}
	printTable(stdout, cfg, reports)
	return writeJSONL(stdout, cfg.jsonl, reports)
}

// predictedAccuracy returns the share of the labels y that the prediction
// file path of svm-predict or liblinear-predict (one label a line) matches.
func predictedAccuracy(path string, y []float64) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	ok := 0
	for i, f := range strings.Fields(string(b)) {
		if v, _ := strconv.ParseFloat(f, 64); i < len(y) && v == y[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(y)), nil
}

// gridVariant is one way of running a grid search: its name in the table
// and its configuration.
type gridVariant struct {
	method string
	gcfg   svm.GridConfig
}

// gridVariants returns the runs of the grid search solver (svm.GridSMO or
// svm.GridSMOSVR) compared in the tables: with the -workers goroutines, with
// 2, without warm starts, and without the kernel matrix either.
func gridVariants(solver string, workers int) []gridVariant {
	return []gridVariant{
		{fmt.Sprintf("%s, %d worker(s)", solver, workers), svm.GridConfig{Workers: workers}},
		{solver + ", 2 workers", svm.GridConfig{Workers: 2}},
		{solver + ", no warm start", svm.GridConfig{Workers: workers, NoWarmStart: true}},
		{solver + ", no kernel matrix, no warm start", svm.GridConfig{Workers: workers, MatrixMB: -1, NoWarmStart: true}},
	}
}

// writeJSONL writes one JSON line per row after a table when on (-jsonl).
func writeJSONL[T any](w io.Writer, on bool, rows []T) error {
	if !on {
		return nil
	}
	enc := json.NewEncoder(w)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// rbfKernels returns the RBF kernels of the widths gammas.
func rbfKernels(gammas []float64) []kernel.Kernel {
	ks := make([]kernel.Kernel, len(gammas))
	for i, g := range gammas {
		ks[i] = kernel.RBF{Gamma: g}
	}
	return ks
}

func loadMNIST(dir string) (train, test *data.Dataset, skip string, err error) {
	paths := map[string]string{}
	for _, n := range []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"} {
		p := filepath.Join(dir, n)
		if _, err := os.Stat(p); err != nil {
			if _, err := os.Stat(p + ".gz"); err != nil {
				return nil, nil, "no " + n + " in " + dir, nil
			}
			p += ".gz"
		}
		paths[n] = p
	}
	if train, err = data.LoadMNIST(paths["train-images-idx3-ubyte"], paths["train-labels-idx1-ubyte"], []int{0, 1}); err != nil {
		return nil, nil, "", err
	}
	if test, err = data.LoadMNIST(paths["t10k-images-idx3-ubyte"], paths["t10k-labels-idx1-ubyte"], []int{0, 1}); err != nil {
		return nil, nil, "", err
	}
	return train, test, "", nil
}

func problem(d *data.Dataset) (svm.Problem, data.LabelMap, error) {
	y, lm, err := d.BinaryLabels()
	if err != nil {
		return svm.Problem{}, lm, err
	}
	return svm.Problem{X: d.X, N: d.N, D: d.D, Y: y}, lm, nil
}

func compare(ctx context.Context, cfg config, tmp, name string, train, test *data.Dataset, gamma, c float64) (report, error) {
	r := report{Data: name, NTrain: train.N, NTest: test.N, D: train.D, Gamma: gamma, C: c}
	p, lm, err := problem(train)
	if err != nil {
		return r, err
	}
	k := kernel.RBF{Gamma: gamma}
	best, bestCPU := time.Duration(1<<62), time.Duration(1<<62)
	var m *svm.Model
	for rep := 0; rep < cfg.reps; rep++ {
		runtime.GC()
		start, cpu0 := time.Now(), processCPU()
		m, err = svm.SMO(ctx, p, k, svm.SMOConfig{C: c, Eps: cfg.eps, CacheMB: cfg.cacheMB, Workers: cfg.workers}, nil)
		if err != nil {
			return r, err
		}
		best = min(best, time.Since(start))
		bestCPU = min(bestCPU, processCPU()-cpu0)
	}
	m.Neg, m.Pos = lm.Neg, lm.Pos
	obj, _ := strconv.ParseFloat(m.Info["objective"], 64)
	r.Ours = result{Solver: "svm.SMO", Seconds: best.Seconds(), CPU: bestCPU.Seconds(), Objective: obj, NSV: m.NSV, Accuracy: accuracy(m, test)}

	if _, err := exec.LookPath("svm-train"); err != nil {
		r.Problems = append(r.Problems, "svm-train not on PATH (apt-get install libsvm-tools)")
		return r, nil
	}
	trainF, testF := filepath.Join(tmp, name+".train"), filepath.Join(tmp, name+".test")
	modelF, predF := filepath.Join(tmp, name+".model"), filepath.Join(tmp, name+".pred")
	if err := writeLIBSVM(trainF, train); err != nil {
		return r, err
	}
	if err := writeLIBSVM(testF, test); err != nil {
		return r, err
	}
	targs := []string{"-s", "0", "-t", "2", "-g", fmtG(gamma), "-c", fmtG(c), "-m", strconv.Itoa(cfg.cacheMB), "-h", "1"}
	st, err := timeSVMTrain(ctx, cfg.reps, targs, cfg.eps, trainF, modelF, tmp)
	if err != nil {
		return r, err
	}
	lib := result{
		Solver: "svm-train", Seconds: st.seconds(), CPU: st.cpuSeconds(),
		WallSeconds: st.wall.Seconds(), LoadSeconds: st.loadWall.Seconds(),
		Objective: outputFloat(st.out, svmTrainObjective), NSV: outputInt(st.out, svmTrainNSV),
	}
	if o, err := exec.CommandContext(ctx, "svm-predict", testF, modelF, predF).CombinedOutput(); err != nil {
		return r, fmt.Errorf("svm-predict: %v\n%s", err, o)
	}
	if lib.Accuracy, err = predictedAccuracy(predF, test.Y); err != nil {
		return r, err
	}
	r.LIBSVM = &lib
	r.Ratio = r.Ours.Seconds / lib.Seconds
	r.CPURatio = r.Ours.CPU / lib.CPU
	return r, nil
}

// svmTrainTimes is what timeSVMTrain measured of svm-train: the output of
// its last training run, the best wall and CPU times of the runs that
// train, and the best of the runs that only load the file (ε = 10⁹ stops at
// the first check).
type svmTrainTimes struct {
	out               []byte
	wall, cpu         time.Duration
	loadWall, loadCPU time.Duration
}

// seconds is svm-train's training time: the best wall time less loading
// (at least 1 µs).
func (t svmTrainTimes) seconds() float64 { return max(t.wall-t.loadWall, time.Microsecond).Seconds() }

// cpuSeconds is seconds' CPU time (user + system).
func (t svmTrainTimes) cpuSeconds() float64 { return max(t.cpu-t.loadCPU, time.Microsecond).Seconds() }

// timeSVMTrain runs `svm-train targs -e eps trainF modelF` reps times, each
// run followed by one with -e 1e9 that only loads trainF (its model goes to
// tmp/load.model).
func timeSVMTrain(ctx context.Context, reps int, targs []string, eps float64, trainF, modelF, tmp string) (svmTrainTimes, error) {
	never := time.Duration(1 << 62)
	t := svmTrainTimes{wall: never, cpu: never, loadWall: never, loadCPU: never}
	for range reps {
		out, wall, cpu, err := timed(ctx, "svm-train", append(targs, "-e", fmtG(eps), trainF, modelF)...)
		if err != nil {
			return t, err
		}
		t.out, t.wall, t.cpu = out, min(t.wall, wall), min(t.cpu, cpu)
		if _, wall, cpu, err = timed(ctx, "svm-train", append(targs, "-e", "1e9", trainF, filepath.Join(tmp, "load.model"))...); err != nil {
			return t, err
		}
		t.loadWall, t.loadCPU = min(t.loadWall, wall), min(t.loadCPU, cpu)
	}
	return t, nil
}

// What svm-train and liblinear-train print: patterns whose first group is
// the number, for outputFloat and outputInt.
var (
	svmTrainObjective  = regexp.MustCompile(`obj = (-?[0-9.eE+-]+)`)
	svmTrainNSV        = regexp.MustCompile(`nSV = (\d+)`)
	trainIterations    = regexp.MustCompile(`#iter = (\d+)`)
	liblinearObjective = regexp.MustCompile(`Objective value = (-?[0-9.eE+-]+)`)
)

// outputFloat returns the number re's first group finds in out (the first
// match), 0 when re does not match.
func outputFloat(out []byte, re *regexp.Regexp) float64 {
	var v float64
	if m := re.FindSubmatch(out); m != nil {
		v, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	return v
}

// outputInt is outputFloat for an integer.
func outputInt(out []byte, re *regexp.Regexp) int {
	var v int
	if m := re.FindSubmatch(out); m != nil {
		v, _ = strconv.Atoi(string(m[1]))
	}
	return v
}

// timed runs a command and returns its output, wall time and CPU time.
func timed(ctx context.Context, name string, args ...string) ([]byte, time.Duration, time.Duration, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %v\n%s", name, err, out)
	}
	st := cmd.ProcessState
	return out, wall, st.UserTime() + st.SystemTime(), nil
}

func accuracy(m *svm.Model, test *data.Dataset) float64 {
	dec := make([]float64, test.N)
	m.DecisionBatch(dec, test.X, test.N)
	ok := 0
	for i, v := range dec {
		lab := m.Neg
		if v >= 0 {
			lab = m.Pos
		}
		if lab == test.Y[i] {
			ok++
		}
	}
	return float64(ok) / float64(test.N)
}

func pegasos(ctx context.Context, cfg config, train, test *data.Dataset) ([]pegRun, error) {
	p, lm, err := problem(train)
	if err != nil {
		return nil, err
	}
	var runs []pegRun
	for _, T := range []int{10_000, 100_000} {
		rng := rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15))
		start := time.Now()
		m, err := svm.Pegasos(ctx, p, kernel.RBF{Gamma: cfg.gamma}, svm.PegasosConfig{Lambda: 1e-4, T: T}, rng, nil)
		if err != nil {
			return nil, err
		}
		secs := time.Since(start).Seconds()
		m.Neg, m.Pos = lm.Neg, lm.Pos
		runs = append(runs, pegRun{T: T, Lambda: 1e-4, Seconds: secs, NSV: m.NSV, Accuracy: accuracy(m, test)})
	}
	return runs, nil
}

func writeLIBSVM(path string, d *data.Dataset) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := data.WriteLIBSVM(w, d); err != nil {
		f.Close()
		return err
	}
	return errors.Join(w.Flush(), f.Close())
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func printTable(w io.Writer, cfg config, reports []report) {
	fmt.Fprintf(w, "RBF C-SVM, ε = %g, cache %d MB, shrinking on, %d worker(s) per kernel column in svm.SMO; best of %d runs.\n", cfg.eps, cfg.cacheMB, cfg.workers, cfg.reps)
	fmt.Fprintf(w, "svm-train's times exclude ")
	fmt.Fprintf(w, "loading its text file (measured by a run with ε = 10⁹); CPU = user + system time.\n\n")
	fmt.Fprintf(w, "%-10s %-6s %-5s %-6s %-4s %-10s %8s %8s %14s %5s %7s\n", "data", "train", "test", "γ", "C", "solver", "time s", "CPU s", "objective", "#SV", "acc %")
	for _, r := range reports {
		if r.Skipped != "" {
			fmt.Fprintf(w, "%-10s skipped: %s\n", r.Data, r.Skipped)
			continue
		}
		row := func(res result) {
			fmt.Fprintf(w, "%-10s %-6d %-5d %-6g %-4g %-10s %8.3f %8.3f %14.6f %5d %7.2f\n",
				r.Data, r.NTrain, r.NTest, r.Gamma, r.C, res.Solver, res.Seconds, res.CPU, res.Objective, res.NSV, 100*res.Accuracy)
		}
		row(r.Ours)
		if r.LIBSVM != nil {
			row(*r.LIBSVM)
			fmt.Fprintf(w, "%-10s ours / svm-train: %.2f× time, %.2f× CPU (svm-train load %.3f s, wall with load %.3f s)\n",
				r.Data, r.Ratio, r.CPURatio, r.LIBSVM.LoadSeconds, r.LIBSVM.WallSeconds)
		}
		for _, pr := range r.Problems {
			fmt.Fprintf(w, "%-10s note: %s\n", r.Data, pr)
		}
		for _, pg := range r.Pegasos {
			fmt.Fprintf(w, "%-10s kernel Pegasos λ=%g T=%d: %.3f s, #SV %d, test accuracy %.2f %%\n", r.Data, pg.Lambda, pg.T, pg.Seconds, pg.NSV, 100*pg.Accuracy)
		}
	}
}
