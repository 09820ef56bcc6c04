package main

// SVR mode: svm.SMOSVR against LIBSVM's ε-SVR (svm-train -s 3) on the same
// standardised data, kernel, C, ε, tolerance, cache and shrinking: the
// sklearn diabetes data (all 442 points) and Friedman #1 (2000 training
// points, seed 1; 1000 test points, seed 2; features and target scaled with
// the training statistics). Times of svm-train exclude loading its text
// file (a run with -e 1e9 is subtracted), as in smo mode.

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

type svrResult struct {
	Solver     string  `json:"solver"`
	Seconds    float64 `json:"seconds"`
	CPU        float64 `json:"cpu_seconds"`
	Objective  float64 `json:"objective"`
	NSV        int     `json:"nsv"`
	Iterations int     `json:"iterations"`
	TestRMSE   float64 `json:"test_rmse,omitempty"`
}

type svrReport struct {
	Data    string     `json:"dataset"`
	N       int        `json:"n_train"`
	Gamma   float64    `json:"gamma"`
	C       float64    `json:"C"`
	Epsilon float64    `json:"epsilon"`
	Ours    svrResult  `json:"ours"`
	LIBSVM  *svrResult `json:"libsvm,omitempty"`
	Note    string     `json:"note,omitempty"`
}

func runSVR(ctx context.Context, cfg config, stdout io.Writer) error {
	tmp, err := os.MkdirTemp("", "svmbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	diab, _, err := loadDiabetes()
	if err != nil {
		return err
	}
	rng1 := rand.New(rand.NewPCG(1, 1^0x9e3779b97f4a7c15))
	rng2 := rand.New(rand.NewPCG(2, 2^0x9e3779b97f4a7c15))
	ftr, fte := datasets.Friedman1(2000, 1, rng1), datasets.Friedman1(1000, 1, rng2)
	st := data.FitStandardizer(ftr)
	st.Apply(ftr)
	st.Apply(fte)
	var m, v float64
	for _, y := range ftr.Y {
		m += y
	}
	m /= float64(ftr.N)
	for _, y := range ftr.Y {
		v += (y - m) * (y - m)
	}
	sd := math.Sqrt(v / float64(ftr.N))
	for _, d := range []*data.Dataset{ftr, fte} {
		for i := range d.Y {
			d.Y[i] = (d.Y[i] - m) / sd
		}
	}
	fr := svm.RegProblem{X: ftr.X, N: ftr.N, D: ftr.D, Y: ftr.Y}
	frTest := svm.RegProblem{X: fte.X, N: fte.N, D: fte.D, Y: fte.Y}
	cases := []struct {
		name        string
		train, test svm.RegProblem
		gamma, c, e float64
	}{
		{"diabetes", diab, svm.RegProblem{}, 0.1, 1, 0.1},
		{"diabetes", diab, svm.RegProblem{}, 0.0125, 1, 0.2},
		{"friedman1", fr, frTest, 0.1, 1, 0.1},
		{"friedman1", fr, frTest, 0.0125, 1000, 0.05},
	}
	var reps []svrReport
	for ci, c := range cases {
		r := svrReport{Data: c.name, N: c.train.N, Gamma: c.gamma, C: c.c, Epsilon: c.e}
		var mod *svm.Model
		wall, cpu, err := bestOf(cfg.reps, func() error {
			var err error
			mod, err = svm.SMOSVR(ctx, c.train, kernel.RBF{Gamma: c.gamma}, svm.SMOSVRConfig{C: c.c, Epsilon: c.e, Eps: cfg.eps, CacheMB: cfg.cacheMB}, nil)
			return err
		})
		if err != nil {
			return err
		}
		obj, _ := strconv.ParseFloat(mod.Info["objective"], 64)
		it, _ := strconv.Atoi(mod.Info["iterations"])
		r.Ours = svrResult{Solver: "svm.SMOSVR", Seconds: wall, CPU: cpu, Objective: obj, NSV: mod.NSV, Iterations: it}
		if c.test.N > 0 {
			dec := make([]float64, c.test.N)
			mod.DecisionBatch(dec, c.test.X, c.test.N)
			r.Ours.TestRMSE = rmseOf(dec, c.test.Y)
		}
		if _, err := exec.LookPath("svm-train"); err != nil {
			r.Note = "svm-train not on PATH (apt-get install libsvm-tools)"
			reps = append(reps, r)
			continue
		}
		trainF := filepath.Join(tmp, fmt.Sprintf("svr%d.train", ci))
		modelF := filepath.Join(tmp, fmt.Sprintf("svr%d.model", ci))
		if err := writeRegLIBSVM(trainF, c.train); err != nil {
			return err
		}
		targs := []string{"-s", "3", "-t", "2", "-g", fmtG(c.gamma), "-c", fmtG(c.c), "-p", fmtG(c.e), "-m", strconv.Itoa(cfg.cacheMB), "-h", "1"}
		st, err := timeSVMTrain(ctx, cfg.reps, targs, cfg.eps, trainF, modelF, tmp)
		if err != nil {
			return err
		}
		lib := svrResult{
			Solver: "svm-train -s 3", Seconds: st.seconds(), CPU: st.cpuSeconds(), Objective: outputFloat(st.out, svmTrainObjective),
			NSV: outputInt(st.out, svmTrainNSV), Iterations: outputInt(st.out, trainIterations),
		}
		if c.test.N > 0 {
			testF, predF := filepath.Join(tmp, "svr.test"), filepath.Join(tmp, "svr.pred")
			if err := writeRegLIBSVM(testF, c.test); err != nil {
				return err
			}
			if o, err := exec.CommandContext(ctx, "svm-predict", testF, modelF, predF).CombinedOutput(); err != nil {
				return fmt.Errorf("svm-predict: %v\n%s", err, o)
			}
			b, err := os.ReadFile(predF)
			if err != nil {
				return err
			}
			var pred []float64
			for _, f := range strings.Fields(string(b)) {
				x, _ := strconv.ParseFloat(f, 64)
				pred = append(pred, x)
			}
			if len(pred) == c.test.N {
				lib.TestRMSE = rmseOf(pred, c.test.Y)
			}
		}
		r.LIBSVM = &lib
		reps = append(reps, r)
	}
	fmt.Fprintf(stdout, "RBF ε-SVR on standardised features and targets, tolerance %g, cache %d MB, shrinking on; best of %d runs.\n", cfg.eps, cfg.cacheMB, cfg.reps)
	fmt.Fprintf(stdout, "svm-train's times exclude loading its text file; CPU = user + system time.\n\n")
	fmt.Fprintf(stdout, "%-10s %5s %-7s %-5s %-5s %-15s %8s %8s %16s %5s %9s %9s\n", "data", "n", "γ", "C", "ε", "solver", "time s", "CPU s", "objective", "#SV", "iters", "test RMSE")
	for _, r := range reps {
		row := func(s svrResult) {
			rm := ""
			if s.TestRMSE > 0 {
				rm = fmt.Sprintf("%.4f", s.TestRMSE)
			}
			fmt.Fprintf(stdout, "%-10s %5d %-7g %-5g %-5g %-15s %8.3f %8.3f %16.6f %5d %9d %9s\n", r.Data, r.N, r.Gamma, r.C, r.Epsilon, s.Solver, s.Seconds, s.CPU, s.Objective, s.NSV, s.Iterations, rm)
		}
		row(r.Ours)
		if r.LIBSVM != nil {
			row(*r.LIBSVM)
		}
		if r.Note != "" {
			fmt.Fprintf(stdout, "%-10s note: %s\n", r.Data, r.Note)
		}
	}
	return writeJSONL(stdout, cfg.jsonl, reps)
}

func rmseOf(pred, y []float64) float64 {
	var s float64
	for i, p := range pred {
		s += (p - y[i]) * (p - y[i])
	}
	return math.Sqrt(s / float64(len(y)))
}

func writeRegLIBSVM(path string, p svm.RegProblem) error {
	d := &data.Dataset{X: p.X, N: p.N, D: p.D, Y: p.Y}
	return writeLIBSVM(path, d)
}
