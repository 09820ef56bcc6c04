package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/nsvm-go/nsvm"
)

// configJSON is the JSON form of nsvm.FitConfig that nsvm_fit takes: its
// fields in snake_case, named as nsvm train's flags. A key left out (or
// null) leaves the field at its zero value, "choose for me", so that "{}"
// trains what nsvm train with no flag trains. Three keys differ from the
// struct: budget is in seconds; epsilon 0 means ε = 0 (FitConfig's
// negative value), and reg_weight defaults to 0.1 when reg is set, as
// nsvm train's --reg-weight does. Unknown keys are an error.
type configJSON struct {
	Task            string   `json:"task"`
	Algorithm       string   `json:"algorithm"`
	Scaling         string   `json:"scaling"`
	InputShape      []int    `json:"input_shape"`
	Arch            string   `json:"arch"`
	Kernel          string   `json:"kernel"`
	Gamma           float64  `json:"gamma"`
	Coef0           float64  `json:"coef0"`
	Degree          int      `json:"degree"`
	NormalizeKernel bool     `json:"normalize_kernel"`
	SVMType         string   `json:"svm_type"`
	Nu              float64  `json:"nu"`
	LinearLoss      string   `json:"linear_loss"`
	NearCopies      string   `json:"near_copies"`
	C               float64  `json:"C"`
	Lambda          float64  `json:"lambda"`
	Epsilon         *float64 `json:"epsilon"`
	Tol             float64  `json:"tol"`
	CacheMB         int      `json:"cache_mb"`
	Steps           int      `json:"steps"`
	Steps2          int      `json:"steps2"`
	Epochs          int      `json:"epochs"`
	Batch           int      `json:"batch"`
	Chunk           int      `json:"chunk"`
	LR              float64  `json:"lr"`
	Momentum        *float64 `json:"momentum"`
	WeightDecay     *float64 `json:"weight_decay"`
	Optimizer       string   `json:"optimizer"`
	Schedule        string   `json:"schedule"`
	Objective       string   `json:"objective"`
	Augment         string   `json:"augment"`
	Mu              float64  `json:"mu"`
	Loss            string   `json:"loss"`
	Solver2         string   `json:"solver2"`
	Reg             string   `json:"reg"`
	RegWeight       *float64 `json:"reg_weight"`
	RegTarget       float64  `json:"reg_target"`
	Bias            bool     `json:"bias"`
	Balanced        *bool    `json:"balanced"`
	Target          string   `json:"target"`
	Multiclass      string   `json:"multiclass"`
	Probability     bool     `json:"probability"`
	ClassWeight     string   `json:"class_weight"`
	Metric          string   `json:"metric"`
	Folds           int      `json:"folds"`
	Budget          float64  `json:"budget"`
	Seed            uint64   `json:"seed"`
	Workers         int      `json:"workers"`
	MaxMemory       int64    `json:"max_memory"`

	// FeatureNames and LabelName are not FitConfig's: the names of the
	// columns of dense or sparse rows and of the labels (a DataFrame's and
	// a Series'), which the model records as nsvm train records a CSV
	// file's header.
	FeatureNames []string `json:"feature_names"`
	LabelName    string   `json:"label_name"`

	// KeepInputs is FitConfig.KeepInputs: an NSVM's heads keep their
	// support vectors' inputs, for nsvm_continue.
	KeepInputs bool `json:"keep_inputs"`
}

// defaultRegWeight is nsvm train's --reg-weight default.
const defaultRegWeight = 0.1

// badConfig returns an error wrapping nsvm.ErrBadConfig.
func badConfig(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{nsvm.ErrBadConfig}, args...)...)
}

// parseFitConfig reads a configuration (empty text: the zero FitConfig),
// validates it and returns with it the names the text gives the data's
// columns and labels.
func parseFitConfig(text []byte) (*nsvm.FitConfig, *configJSON, error) {
	var j configJSON
	if len(bytes.TrimSpace(text)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			return nil, nil, badConfig("configuration: %v", err)
		}
		if dec.More() {
			return nil, nil, badConfig("configuration: more than one JSON value")
		}
	}
	c := &nsvm.FitConfig{
		Task: j.Task, Algorithm: j.Algorithm, Scaling: j.Scaling, InShape: j.InputShape, Arch: j.Arch,
		Kernel: j.Kernel, Gamma: j.Gamma, Coef0: j.Coef0, Degree: j.Degree, NormalizeKernel: j.NormalizeKernel,
		SVMType: j.SVMType, Nu: j.Nu, LinearLoss: j.LinearLoss, NearCopies: j.NearCopies, C: j.C, Lambda: j.Lambda, Tol: j.Tol, CacheMB: j.CacheMB,
		Steps: j.Steps, Steps2: j.Steps2, Epochs: j.Epochs, Batch: j.Batch, Chunk: j.Chunk,
		LR: j.LR, Momentum: j.Momentum, WeightDecay: j.WeightDecay, Optimizer: j.Optimizer, Schedule: j.Schedule,
		Objective: j.Objective, Augment: j.Augment, Mu: j.Mu, Loss: j.Loss, Solver2: j.Solver2,
		Bias: j.Bias, Balanced: j.Balanced, Target: j.Target, Multiclass: j.Multiclass, Probability: j.Probability,
		ClassWeight: j.ClassWeight, Metric: j.Metric, Folds: j.Folds, Seed: j.Seed, Workers: j.Workers, MaxMemory: j.MaxMemory,
	}
	if e := j.Epsilon; e != nil {
		if !(*e >= 0) || math.IsInf(*e, 0) {
			return nil, nil, badConfig("epsilon must be a finite number ≥ 0, got %g", *e)
		}
		c.Epsilon = *e
		if *e == 0 {
			c.Epsilon = -1 // FitConfig's ε = 0
		}
	}
	if j.Budget != 0 {
		if !(j.Budget > 0) || j.Budget > 1e9 {
			return nil, nil, badConfig("budget must be a number of seconds > 0, got %g", j.Budget)
		}
		c.Budget = time.Duration(j.Budget * float64(time.Second))
	}
	if j.Reg != "" && j.Reg != "none" {
		c.Reg = nsvm.RegConfig{Name: j.Reg, Rho: defaultRegWeight, Target: j.RegTarget}
		if j.RegWeight != nil {
			c.Reg.Rho = *j.RegWeight
		}
	} else if j.RegWeight != nil || j.RegTarget != 0 {
		return nil, nil, badConfig("reg_weight and reg_target need reg")
	}
	c.KeepInputs = j.KeepInputs
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	return c, &j, nil
}

// continueJSON is the JSON form of nsvm.ContinueConfig that nsvm_continue
// takes (its fields in snake_case; a key left out keeps the zero value:
// continue as the model's own training chose), with the names of dense
// columns as configJSON has them.
type continueJSON struct {
	Budget       int      `json:"budget"`
	Maintenance  string   `json:"maintenance"`
	Lambda       float64  `json:"lambda"`
	Epochs       int      `json:"epochs"`
	Window       int      `json:"window"`
	Seed         uint64   `json:"seed"`
	FeatureNames []string `json:"feature_names"`
}

// parseContinueConfig reads nsvm_continue's configuration.
func parseContinueConfig(text []byte) (*nsvm.ContinueConfig, *continueJSON, error) {
	var j continueJSON
	if len(bytes.TrimSpace(text)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			return nil, nil, badConfig("configuration: %v", err)
		}
	}
	c := &nsvm.ContinueConfig{Budget: j.Budget, Maintenance: j.Maintenance, Lambda: j.Lambda, Epochs: j.Epochs, Window: j.Window, Seed: j.Seed}
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	return c, &j, nil
}
