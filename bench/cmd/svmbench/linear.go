package main

// Linear mode: svm.LinearDCD against liblinear-train -s 1 (squared hinge)
// and -s 3 (hinge), both with -B 1, C = 1 and the default tolerance 0.1, on
// generated Ringnorm (-linear-n training points, seed 1, and 100000 test
// points; standardised with the training statistics). Both run at most 1000
// epochs (LIBLINEAR's limit). liblinear-train's time per epoch excludes
// loading its text file: the time of a run with -e 1e9 (load and one epoch)
// is subtracted and the rest divided by the remaining epochs.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/svm"
)

type linearResult struct {
	Solver     string  `json:"solver"`
	Seconds    float64 `json:"seconds"`
	CPU        float64 `json:"cpu_seconds"`
	Epochs     int     `json:"epochs"`
	MsPerEpoch float64 `json:"ms_per_epoch"`
	Objective  float64 `json:"objective"`
	TestAcc    float64 `json:"test_accuracy"`
}

type linearReport struct {
	Data  string        `json:"dataset"`
	N     int           `json:"n_train"`
	Loss  string        `json:"loss"`
	Ours  linearResult  `json:"ours"`
	Lib   *linearResult `json:"liblinear,omitempty"`
	Note  string        `json:"note,omitempty"`
	LoadS float64       `json:"liblinear_load_and_first_epoch_seconds,omitempty"`
	Wall  float64       `json:"liblinear_wall_seconds,omitempty"`
}

func runLinear(ctx context.Context, cfg config, stdout io.Writer) error {
	if cfg.linearN < 10 {
		return fmt.Errorf("-linear-n must be ≥ 10")
	}
	rng := rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15))
	all := datasets.Ringnorm(cfg.linearN+100_000, rng)
	train, test := data.Split(all, 100_000, rng)
	st := data.FitStandardizer(train)
	st.Apply(train)
	st.Apply(test)
	p, lm, err := problem(train)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "svmbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	trainF, testF := filepath.Join(tmp, "ring.train"), filepath.Join(tmp, "ring.test")
	haveLib := false
	if _, err := exec.LookPath("liblinear-train"); err == nil && cfg.liblinear {
		haveLib = true
		if err := writeLIBSVM(trainF, train); err != nil {
			return err
		}
		if err := writeLIBSVM(testF, test); err != nil {
			return err
		}
	}
	var reps []linearReport
	for _, c := range []struct {
		loss svm.DCDLoss
		s    string
	}{{svm.SquaredHinge, "1"}, {svm.Hinge, "3"}} {
		r := linearReport{Data: "ringnorm", N: p.N, Loss: c.loss.String()}
		var m *svm.Model
		wall, cpu, err := bestOf(cfg.reps, func() error {
			var err error
			m, err = svm.LinearDCD(ctx, p, svm.LinearDCDConfig{Loss: c.loss}, rand.New(rand.NewPCG(1, 2)), nil)
			return err
		})
		if err != nil {
			return err
		}
		m.Neg, m.Pos = lm.Neg, lm.Pos
		ep, _ := strconv.Atoi(m.Info["epochs"])
		obj, _ := strconv.ParseFloat(m.Info["objective"], 64)
		r.Ours = linearResult{Solver: "svm.LinearDCD", Seconds: wall, CPU: cpu, Epochs: ep, MsPerEpoch: 1000 * wall / float64(ep), Objective: obj, TestAcc: accuracy(m, test)}
		if !haveLib {
			r.Note = "liblinear-train not run (not on PATH or -liblinear=false)"
			reps = append(reps, r)
			continue
		}
		modelF := filepath.Join(tmp, "ring.model")
		out, lw, lcpu, err := timed(ctx, "liblinear-train", "-s", c.s, "-B", "1", trainF, modelF)
		if err != nil {
			return err
		}
		_, w1, c1, err := timed(ctx, "liblinear-train", "-s", c.s, "-B", "1", "-e", "1e9", trainF, filepath.Join(tmp, "one.model"))
		if err != nil {
			return err
		}
		lib := linearResult{Solver: "liblinear-train -s " + c.s}
		lib.Epochs = outputInt(out, trainIterations)
		lib.Objective = outputFloat(out, liblinearObjective)
		r.LoadS, r.Wall = w1.Seconds(), lw.Seconds()
		if lib.Epochs > 1 {
			lib.Seconds = (lw - w1).Seconds() * float64(lib.Epochs) / float64(lib.Epochs-1)
			lib.CPU = (lcpu - c1).Seconds() * float64(lib.Epochs) / float64(lib.Epochs-1)
			lib.MsPerEpoch = 1000 * (lw - w1).Seconds() / float64(lib.Epochs-1)
		}
		predF := filepath.Join(tmp, "ring.pred")
		if o, err := exec.CommandContext(ctx, "liblinear-predict", testF, modelF, predF).CombinedOutput(); err != nil {
			return fmt.Errorf("liblinear-predict: %v\n%s", err, o)
		}
		if lib.TestAcc, err = predictedAccuracy(predF, test.Y); err != nil {
			return err
		}
		r.Lib = &lib
		reps = append(reps, r)
	}
	fmt.Fprintf(stdout, "Linear SVM by dual coordinate descent, C = 1, bias feature B = 1, tolerance 0.1, ≤ 1000 epochs; Ringnorm %d × 20 (standardised), 100000 test points.\n", p.N)
	fmt.Fprintf(stdout, "Ours: best of %d runs. liblinear-train: one run; its time excludes loading (a run with -e 1e9, i.e. load + one epoch, is subtracted and one epoch added back).\n\n", cfg.reps)
	fmt.Fprintf(stdout, "%-9s %8s %-5s %-20s %9s %9s %7s %9s %16s %8s\n", "data", "n", "loss", "solver", "time s", "CPU s", "epochs", "ms/epoch", "dual objective", "test %")
	for _, r := range reps {
		row := func(s linearResult) {
			fmt.Fprintf(stdout, "%-9s %8d %-5s %-20s %9.2f %9.2f %7d %9.1f %16.4f %8.2f\n", r.Data, r.N, r.Loss, s.Solver, s.Seconds, s.CPU, s.Epochs, s.MsPerEpoch, s.Objective, 100*s.TestAcc)
		}
		row(r.Ours)
		if r.Lib != nil {
			row(*r.Lib)
			fmt.Fprintf(stdout, "%-9s liblinear-train wall %.2f s including load; load + first epoch %.2f s\n", r.Data, r.Wall, r.LoadS)
		}
		if r.Note != "" {
			fmt.Fprintf(stdout, "%-9s note: %s\n", r.Data, r.Note)
		}
	}
	return writeJSONL(stdout, cfg.jsonl, reps)
}
