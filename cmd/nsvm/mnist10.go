package main

import (
	"encoding/json"
	"fmt"

	"github.com/nsvm-go/nsvm/experiment"
	"github.com/nsvm-go/nsvm/internal/cliflag"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/report"
)

// reproduceMNIST10 trains the multiclass NSVM of paper.MNIST10Preset on the
// ten MNIST digits (60000 training, 10000 test images) and reports test
// accuracy and time (experiment.RunMNIST10).
func (e *env) reproduceMNIST10(args []string) error {
	var (
		c             experiment.MNIST10Config
		logPath       string
		shift         int
		asJSON, quiet bool
	)
	fs := e.newFlags("reproduce", "reproduce mnist10 [flags]")
	fs.StringVar(&c.Data, "data", "", "MNIST IDX `directory` (default $NSVM_MNIST_DIR or ./mnist)")
	c.StepsScale, c.Seeds = 1, 1
	fs.Var(cliflag.Positive{Dst: &c.StepsScale, Name: "steps-scale"}, "steps-scale", "multiply both step counts by this factor (quick looks: 0.1)")
	fs.Var(cliflag.Count{Dst: &c.Seeds, Name: "seeds"}, "seeds", "number of seeded runs")
	fs.IntVar(&c.Steps, "steps", 0, "Part I steps (default: the preset's 12000)")
	fs.IntVar(&c.Steps2, "steps2", 0, "Part II Pegasos steps per head (default: the preset's 1000000)")
	fs.StringVar(&c.Arch, "arch", "", "network architecture (default: "+paper.MNIST10Arch+")")
	fs.StringVar(&c.Scheme, "multiclass", "ovr", "heads: one-vs-rest (ovr) or one-vs-one (ovo)")
	fs.StringVar(&c.Solver2, "solver2", "pegasos", "Part II solver: pegasos or smo")
	fs.Float64Var(&c.LR, "lr", 0, "Part I learning rate (default: the preset's)")
	fs.Float64Var(&c.Lambda2, "lambda2", 0, "Part II Pegasos λ (default: the preset's 1e-5)")
	fs.IntVar(&shift, "shift", -1, "random shifts of up to this many pixels in Part I (default: the preset's 1; 0: none)")
	fs.BoolVar(&c.Validate, "validate", false, "evaluate on 5000 training images held out (500 per digit) instead of the test set")
	fs.StringVar(&logPath, "log", "", "write every progress report as a JSON line to this `file`")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object on stdout")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if shift >= 0 {
		c.Shift = &shift
	}
	arch, cfg, err := experiment.MNIST10Preset(c)
	if err != nil {
		return reproduceErr(err)
	}
	var lg *progressLog
	if logPath != "" {
		if lg, err = openLog(logPath); err != nil {
			return err
		}
	}
	c.Progress = e.runProgress(quiet || asJSON, lg)
	results, err := experiment.RunMNIST10(e.ctx, c)
	if err != nil {
		lg.close(err)
		if e.ctx.Err() != nil {
			return fmt.Errorf("nsvm reproduce: interrupted (%v)", errmsg.Strip(err))
		}
		return err
	}
	if err := lg.close(nil); err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(map[string]any{"task": "mnist10", "validation": c.Validate, "arch": arch,
			"config": cfg, "augment": cfg.AugmentName, "results": results})
	}
	report.MNIST10(e.stdout, c.Validate, arch, cfg, results)
	return nil
}
