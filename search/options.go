package search

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/paper"
)

// The enumerated options of FitConfig are named string types: each is a
// flag.Value (String, Set) and an encoding.TextUnmarshaler, so that the
// command line, the C ABI's JSON and Go set them alike, and Set refuses a
// value not among its type's Values with a *ConfigError. The empty value
// is "choose for me" (the field's zero value) and is always accepted.
type (
	// Task is FitConfig.Task: Classification or Regression.
	Task string
	// Algorithm is FitConfig.Algorithm (Algorithms).
	Algorithm string
	// Scaling is FitConfig.Scaling: ScaleStandardize, ScaleGlobal, ScaleNone.
	Scaling string
	// KernelName is FitConfig.Kernel: linear, poly, rbf, sigmoid, or
	// precomputed (FitPrecomputed's rows of kernel values).
	KernelName string
	// SVMType is FitConfig.SVMType (SVMTypes).
	SVMType string
	// LinearLoss is FitConfig.LinearLoss: l2, l1 or l2+l1.
	LinearLoss string
	// NearCopies is FitConfig.NearCopies: keep or drop.
	NearCopies string
	// Optimizer is FitConfig.Optimizer: sgd or adam.
	Optimizer string
	// Schedule is FitConfig.Schedule: constant, invt, cosine, onecycle.
	Schedule string
	// Objective is FitConfig.Objective: align or softmax.
	Objective string
	// Augment is FitConfig.Augment (Augmentations).
	Augment string
	// TestAugment is FitConfig.TestAugment: none or shift.
	TestAugment string
	// PartILoss is FitConfig.Loss: squared or neg.
	PartILoss string
	// Solver2 is FitConfig.Solver2: smo or pegasos.
	Solver2 string
	// Target is FitConfig.Target: rbf or linear.
	Target string
	// Multiclass is FitConfig.Multiclass: OneVsOne or OneVsRest.
	Multiclass string
	// Metric is FitConfig.Metric (Metrics).
	Metric string
)

// Values of the enumerated options, besides "".
var (
	taskValues       = []string{model.Classification, model.Regression}
	scalingValues    = []string{ScaleStandardize, ScaleGlobal, ScaleNone}
	kernelValues     = []string{"linear", "poly", "rbf", "sigmoid", KernelPrecomputed}
	linearLossValues = []string{"l2", "l1", "l2+l1"}
	optimizerValues  = []string{"sgd", "adam"}
	scheduleValues   = []string{"constant", "invt", "cosine", "onecycle"}
	objectiveValues  = []string{paper.ObjectiveAlign, paper.ObjectiveSoftmax}
	lossValues       = []string{"squared", "neg"}
	solver2Values    = []string{"smo", "pegasos"}
	targetValues     = []string{paper.TargetRBF, paper.TargetLinear}
	multiclassValues = []string{model.OneVsOne, model.OneVsRest}
	testAugValues    = []string{"none", "shift"}
)

// KernelPrecomputed is the kernel of rows of kernel values (svm-train -t
// 4), which FitPrecomputed takes and Fit does not.
const KernelPrecomputed = "precomputed"

// setChoice sets *dst to s if s is "" or one of values, for the field named
// field; otherwise it returns a *ConfigError.
func setChoice[T ~string](dst *T, s, field string, values []string) error {
	if s != "" && !slices.Contains(values, s) {
		return unknownValue(field, s, values)
	}
	*dst = T(s)
	return nil
}

// unknownValue is the error of a value s not among values.
func unknownValue(field, s string, values []string) *ConfigError {
	return &ConfigError{Field: field, Msg: fmt.Sprintf("unknown {%s} %q (want %s)", field, s, strings.Join(values, ", "))}
}

func (v Task) String() string        { return string(v) }
func (v Algorithm) String() string   { return string(v) }
func (v Scaling) String() string     { return string(v) }
func (v KernelName) String() string  { return string(v) }
func (v SVMType) String() string     { return string(v) }
func (v LinearLoss) String() string  { return string(v) }
func (v NearCopies) String() string  { return string(v) }
func (v Optimizer) String() string   { return string(v) }
func (v Schedule) String() string    { return string(v) }
func (v Objective) String() string   { return string(v) }
func (v Augment) String() string     { return string(v) }
func (v TestAugment) String() string { return string(v) }
func (v PartILoss) String() string   { return string(v) }
func (v Solver2) String() string     { return string(v) }
func (v Target) String() string      { return string(v) }
func (v Multiclass) String() string  { return string(v) }
func (v Metric) String() string      { return string(v) }
func (v *Task) Set(s string) error   { return setChoice(v, s, "Task", taskValues) }
func (v *Algorithm) Set(s string) error {
	return setChoice(v, s, "Algorithm", Algorithms())
}
func (v *Scaling) Set(s string) error    { return setChoice(v, s, "Scaling", scalingValues) }
func (v *KernelName) Set(s string) error { return setChoice(v, s, "Kernel", kernelValues) }
func (v *SVMType) Set(s string) error    { return setChoice(v, s, "SVMType", SVMTypes()) }
func (v *LinearLoss) Set(s string) error { return setChoice(v, s, "LinearLoss", linearLossValues) }
func (v *NearCopies) Set(s string) error { return setChoice(v, s, "NearCopies", NearCopyRules()) }
func (v *Optimizer) Set(s string) error  { return setChoice(v, s, "Optimizer", optimizerValues) }
func (v *Schedule) Set(s string) error   { return setChoice(v, s, "Schedule", scheduleValues) }
func (v *Objective) Set(s string) error  { return setChoice(v, s, "Objective", objectiveValues) }
func (v *Augment) Set(s string) error    { return setChoice(v, s, "Augment", Augmentations) }
func (v *TestAugment) Set(s string) error {
	return setChoice(v, s, "TestAugment", testAugValues)
}
func (v *PartILoss) Set(s string) error  { return setChoice(v, s, "Loss", lossValues) }
func (v *Solver2) Set(s string) error    { return setChoice(v, s, "Solver2", solver2Values) }
func (v *Target) Set(s string) error     { return setChoice(v, s, "Target", targetValues) }
func (v *Multiclass) Set(s string) error { return setChoice(v, s, "Multiclass", multiclassValues) }
func (v *Metric) Set(s string) error     { return setChoice(v, s, "Metric", Metrics()) }

// UnmarshalText is Set, for encoding/json and the like.
func (v *Task) UnmarshalText(b []byte) error        { return v.Set(string(b)) }
func (v *Algorithm) UnmarshalText(b []byte) error   { return v.Set(string(b)) }
func (v *Scaling) UnmarshalText(b []byte) error     { return v.Set(string(b)) }
func (v *KernelName) UnmarshalText(b []byte) error  { return v.Set(string(b)) }
func (v *SVMType) UnmarshalText(b []byte) error     { return v.Set(string(b)) }
func (v *LinearLoss) UnmarshalText(b []byte) error  { return v.Set(string(b)) }
func (v *NearCopies) UnmarshalText(b []byte) error  { return v.Set(string(b)) }
func (v *Optimizer) UnmarshalText(b []byte) error   { return v.Set(string(b)) }
func (v *Schedule) UnmarshalText(b []byte) error    { return v.Set(string(b)) }
func (v *Objective) UnmarshalText(b []byte) error   { return v.Set(string(b)) }
func (v *Augment) UnmarshalText(b []byte) error     { return v.Set(string(b)) }
func (v *TestAugment) UnmarshalText(b []byte) error { return v.Set(string(b)) }
func (v *PartILoss) UnmarshalText(b []byte) error   { return v.Set(string(b)) }
func (v *Solver2) UnmarshalText(b []byte) error     { return v.Set(string(b)) }
func (v *Target) UnmarshalText(b []byte) error      { return v.Set(string(b)) }
func (v *Multiclass) UnmarshalText(b []byte) error  { return v.Set(string(b)) }
func (v *Metric) UnmarshalText(b []byte) error      { return v.Set(string(b)) }
