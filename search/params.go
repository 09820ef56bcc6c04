package search

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/internal/cliflag"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/internal/sysmem"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
)

// ConfigError is the error of a FitConfig that cannot work, alone or with
// the data: a field's value out of its range, or fields that do not go
// together. It wraps ErrBadConfig. Front ends spell the fields their way
// (Text): --C on the command line, C in Python and in the C ABI's JSON.
type ConfigError struct {
	// Field is FitConfig's field the error is about ("C", "Reg.Rho"), or
	// "" for the configuration as a whole.
	Field string
	// Msg is the message with each field it names in braces, as
	// "{C} must be a finite number > 0, got -1" or
	// "{Reg.Rho} needs a regulariser ({Reg.Name})".
	Msg string
}

func (e *ConfigError) Error() string {
	return "nsvm: bad configuration: " + e.Text(func(f string) string { return f })
}

// Unwrap returns ErrBadConfig.
func (e *ConfigError) Unwrap() error { return ErrBadConfig }

// Text is the message with every field it names spelled by spell, as a
// front end spells it (field "C": "--C", "C").
func (e *ConfigError) Text(spell func(field string) string) string {
	return fieldRef.ReplaceAllStringFunc(e.Msg, func(m string) string { return spell(m[1 : len(m)-1]) })
}

// fieldRef is a field's name in a ConfigError's message.
var fieldRef = regexp.MustCompile(`\{[A-Z][A-Za-z0-9.]*\}`)

// fieldErr returns a *ConfigError about field: its name, then the words of
// format (which may name other fields in braces).
func fieldErr(field, format string, args ...any) *ConfigError {
	return &ConfigError{Field: field, Msg: "{" + field + "} " + fmt.Sprintf(format, args...)}
}

// configErr returns an error about the configuration as a whole, wrapping
// ErrBadConfig.
func configErr(format string, args ...any) error {
	return &ConfigError{Msg: fmt.Sprintf(format, args...)}
}

// Kind is how a parameter's values are written.
type Kind int

// The kinds of parameters.
const (
	KindFloat    Kind = iota // a number
	KindOptFloat             // a number, nil when not given (*float64)
	KindInt                  // an integer
	KindUint                 // an integer ≥ 0 (uint64)
	KindBool                 // true or false
	KindOptBool              // true or false, nil when not given (*bool)
	KindChoice               // one of Values
	KindString               // text
	KindShape                // integers: "1x28x28" as text, [1, 28, 28] in JSON
	KindDuration             // "30s" as text, seconds in JSON
	KindBytes                // "8GiB" as text, bytes in JSON
)

// Rule is what one value of a parameter must satisfy.
type Rule int

// The rules. A value at its zero ("not given") passes every rule.
const (
	RuleAny      Rule = iota // anything of its kind
	RuleFinite               // a finite number
	RulePositive             // a finite number > 0
	RuleNonNeg               // a finite number ≥ 0, or an integer ≥ 0
	RuleUnit                 // in (0, 1]
	RuleFraction             // in [0, 1)
	RuleCount                // an integer ≥ 1 when given (0: not given)
)

// Param describes one field of FitConfig for every front end: the command
// line's flag, the C ABI's JSON key, the Python estimators' parameter,
// what it takes, what its zero value means and what it does. Params lists
// them; the front ends derive their flags, keys, parameters and
// documentation from it, and Validate checks each value by its Rule.
type Param struct {
	Field  string // FitConfig's field ("Reg.Rho": a field of a field)
	Flag   string // nsvm train's flag, without its dashes
	Key    string // the C ABI's configuration key (nsvm_fit's JSON)
	Python string // the Python estimators' parameter; "" if not offered there
	Kind   Kind
	Values []string // a KindChoice's values
	Rule   Rule
	// Tasks is the task the parameter applies to: "" for both,
	// model.Classification or model.Regression.
	Tasks string
	// Algos are the algorithms the parameter applies to (nil: all):
	// Validate refuses it given with another algorithm, or without one
	// when the selection tries none of them (searchAlgos).
	Algos []string
	// Default says what the zero value (the parameter not given) does;
	// Doc what the parameter is, in one line.
	Default, Doc string
}

// nsvmAlgos are the paper's algorithms; searchAlgos those the selection
// tries when no algorithm is given (FitConfig.Algorithm "").
var (
	nsvmAlgos = []string{"nsvm1", "nsvm2", "nsvm3", "nsvm4"}
	// pegasosAlgos are the algorithms of Pegasos' λ and steps.
	pegasosAlgos = []string{"nsvm1", "nsvm2", "nsvm3", "nsvm4", "pegasos", "pegasos-linear"}
	searchAlgos  = []string{"smo", "linear", "nsvm4"}
)

// appliesTo returns the error of the parameter, given, with algorithm algo
// ("": the selection) when it applies to none of the algorithms that run.
func (p *Param) appliesTo(algo Algorithm) error {
	if p.Algos == nil {
		return nil
	}
	if algo != "" {
		if !slices.Contains(p.Algos, string(algo)) {
			return fieldErr(p.Field, "applies to %s, not %s", p.algoList(), algo)
		}
		return nil
	}
	for _, a := range searchAlgos {
		if slices.Contains(p.Algos, a) {
			return nil
		}
	}
	if len(p.Algos) == 1 {
		return fieldErr(p.Field, "applies to %s, which the selection does not try: give {Algorithm} %s", p.Algos[0], p.Algos[0])
	}
	return fieldErr(p.Field, "applies to %s, which the selection does not try: give {Algorithm} (one of them)", p.algoList())
}

// algoList names the parameter's algorithms in a message: "nsvm3 and
// nsvm4", "nsvm1, nsvm2, nsvm3 and nsvm4".
func (p *Param) algoList() string {
	n := len(p.Algos)
	if n < 2 {
		return strings.Join(p.Algos, "")
	}
	return strings.Join(p.Algos[:n-1], ", ") + " and " + p.Algos[n-1]
}

// Params describes FitConfig's fields, one entry each but for Progress and
// Train (callbacks and checkpoints, which are Go's alone).
var Params = []Param{
	{Field: "Task", Flag: "task", Key: "task", Kind: KindChoice, Values: taskValues,
		Default: "classification when the labels are integers with at most one distinct value per 5 rows, else regression (a note says which when more than 2 integers could be either)", Doc: "classification or regression (Python: the estimator's)"},
	{Field: "Algorithm", Flag: "algo", Key: "algorithm", Python: "algorithm", Kind: KindChoice, Values: Algorithms(),
		Default: "chosen by validation among SMO's RBF SVM and NSVMs", Doc: "the algorithm: the paper's nsvm1–nsvm4, or a classical solver"},
	{Field: "Scaling", Flag: "scaling", Key: "scaling", Python: "scaling", Kind: KindChoice, Values: scalingValues,
		Default: "chosen by validation, also with a pinned γ, which is in the scaled inputs' units", Doc: "input scaling: standardize (per feature), global (one mean and deviation), none (the inputs as they are, as svm-train takes them)"},
	{Field: "InShape", Flag: "input-shape", Key: "input_shape", Python: "input_shape", Kind: KindShape,
		Default: "the data's", Doc: "shape of one row, e.g. 1x8x8 for 8×8 images (brings CNNs into the search)"},
	{Field: "Arch", Flag: "arch", Key: "arch", Python: "arch", Algos: nsvmAlgos, Kind: KindString,
		Default: "sized from the data", Doc: `the NSVM network, e.g. "dense(64),relu,dense(32),relu"`},
	{Field: "Kernel", Flag: "kernel", Key: "kernel", Python: "kernel", Kind: KindChoice, Values: kernelValues,
		Default: "rbf", Doc: "kernel (on the inputs for classical solvers, on the features for NSVMs); precomputed: rows of kernel values (svm-train -t 4)"},
	{Field: "Gamma", Flag: "gamma", Key: "gamma", Python: "gamma", Kind: KindFloat, Rule: RulePositive,
		Default: "chosen by validation", Doc: "the kernel's γ"},
	{Field: "Coef0", Flag: "coef0", Key: "coef0", Python: "coef0", Kind: KindFloat, Rule: RuleFinite,
		Default: "0", Doc: "kernel coef0 (poly, sigmoid)"},
	{Field: "Degree", Flag: "degree", Key: "degree", Python: "degree", Kind: KindInt, Rule: RuleCount,
		Default: "3", Doc: "poly kernel degree"},
	{Field: "NormalizeKernel", Flag: "normalize-kernel", Key: "normalize_kernel", Python: "normalize_kernel", Kind: KindBool,
		Default: "off", Doc: "the normalised kernel K̃ (paper §4.1.3)"},
	{Field: "SVMType", Flag: "svm-type", Key: "svm_type", Python: "svm_type", Kind: KindChoice, Values: SVMTypes(),
		Default: "c-svc or epsilon-svr by the task", Doc: "LIBSVM's svm type (svm-train -s 0…4); one-class trains on every row whatever its label; pins the algorithm to smo"},
	{Field: "Nu", Flag: "nu", Key: "nu", Python: "nu", Kind: KindFloat, Rule: RuleUnit,
		Default: "chosen by validation; 0.5 for one-class", Doc: "ν of nu-svc, one-class and nu-svr (svm-train -n)"},
	{Field: "LinearLoss", Flag: "linear-loss", Key: "linear_loss", Python: "linear_loss", Algos: []string{"linear"}, Kind: KindChoice, Values: linearLossValues, Tasks: model.Classification,
		Default: "chosen by validation", Doc: "the linear solver's loss: l2 (squared hinge, liblinear -s 1), l1 (hinge, -s 3), l2+l1 (the mean of the two at one C)"},
	{Field: "NearCopies", Flag: "near-copies", Key: "near_copies", Python: "near_copies", Kind: KindChoice, Values: NearCopyRules(),
		Default: "drop on wide sparse rows such as text, keep otherwise", Doc: "validation rows that are near copies (cosine ≥ 0.9) of training rows: keep (score them) or drop (leave them out; sparse rows)"},
	{Field: "C", Flag: "C", Key: "C", Python: "C", Kind: KindFloat, Rule: RulePositive,
		Default: "chosen by validation", Doc: "the SVM's C (classical solvers, NSVM heads)"},
	{Field: "Lambda", Flag: "lambda", Key: "lambda", Python: "alpha", Algos: pegasosAlgos, Kind: KindFloat, Rule: RulePositive,
		Default: "the trainer's", Doc: "λ of Pegasos and the NSVM trainers"},
	{Field: "Epsilon", Flag: "epsilon", Key: "epsilon", Python: "epsilon", Kind: KindOptFloat, Rule: RuleNonNeg, Tasks: model.Regression,
		Default: "chosen by validation", Doc: "the SVR's ε in target units (0 is ε = 0)"},
	{Field: "Tol", Flag: "eps", Key: "tol", Python: "tol", Kind: KindFloat, Rule: RulePositive,
		Default: "1e-3 (SMO, chunking); 0.1 on the linear C paths, 1e-4 for the linear model", Doc: "stopping tolerance"},
	{Field: "CacheMB", Flag: "cache-mb", Key: "cache_mb", Python: "cache_size", Kind: KindInt, Rule: RuleCount,
		Default: "100, as svm-train -m", Doc: "kernel memory in MB: an SMO fit's column cache, the search's kernel matrices"},
	{Field: "Steps", Flag: "steps", Key: "steps", Python: "steps", Algos: pegasosAlgos, Kind: KindInt, Rule: RuleCount,
		Default: "epochs with early stopping, or the paper's counts", Doc: "steps of the NSVM trainers (Part I for nsvm4) and of Pegasos"},
	{Field: "Steps2", Flag: "steps2", Key: "steps2", Python: "steps2", Algos: []string{"nsvm4"}, Kind: KindInt, Rule: RuleCount,
		Default: "the paper's", Doc: "nsvm4 with solver2 pegasos: Part II steps"},
	{Field: "Epochs", Flag: "epochs", Key: "epochs", Python: "epochs", Algos: []string{"perceptron", "dual-sga"}, Kind: KindInt, Rule: RuleCount,
		Default: "the solver's", Doc: "perceptron and dual-sga epochs"},
	{Field: "Batch", Flag: "batch", Key: "batch", Python: "batch_size", Algos: []string{"nsvm3", "nsvm4", "pegasos"}, Kind: KindInt, Rule: RuleCount,
		Default: "the algorithm's", Doc: "batch size k of nsvm3/nsvm4 (at least 2) and mini-batch Pegasos"},
	{Field: "Chunk", Flag: "chunk", Key: "chunk", Python: "chunk", Algos: []string{"nsvm2", "chunking"}, Kind: KindInt, Rule: RuleCount,
		Default: "the solver's", Doc: "chunking's working-set size; nsvm2's feature chunk"},
	{Field: "LR", Flag: "lr", Key: "lr", Python: "learning_rate_init", Algos: nsvmAlgos, Kind: KindFloat, Rule: RulePositive,
		Default: "the algorithm's", Doc: "NSVM learning rate"},
	{Field: "Momentum", Flag: "momentum", Key: "momentum", Python: "momentum", Algos: nsvmAlgos, Kind: KindOptFloat, Rule: RuleFraction,
		Default: "0.9", Doc: "NSVM SGD momentum, in [0, 1)"},
	{Field: "WeightDecay", Flag: "weight-decay", Key: "weight_decay", Python: "weight_decay", Algos: nsvmAlgos, Kind: KindOptFloat, Rule: RuleNonNeg,
		Default: "1e-4", Doc: "NSVM L2 weight decay"},
	{Field: "Optimizer", Flag: "optimizer", Key: "optimizer", Python: "optimizer", Algos: nsvmAlgos, Kind: KindChoice, Values: optimizerValues,
		Default: "the algorithm's", Doc: "NSVM θ-optimizer"},
	{Field: "Schedule", Flag: "schedule", Key: "schedule", Python: "schedule", Algos: nsvmAlgos, Kind: KindChoice, Values: scheduleValues,
		Default: "the algorithm's", Doc: "NSVM learning-rate schedule over the Part I steps: constant, invt (LR·1000/(1000+t)), cosine, onecycle"},
	{Field: "Objective", Flag: "objective", Key: "objective", Python: "objective", Algos: []string{"nsvm4"}, Kind: KindChoice, Values: objectiveValues, Tasks: model.Classification,
		Default: "chosen by validation", Doc: "nsvm4 Part I objective on classes: align (the paper's kernel-target alignment) or softmax (cross-entropy through a temporary softmax head)"},
	{Field: "Augment", Flag: "augment", Key: "augment", Python: "augment", Algos: []string{"nsvm4"}, Kind: KindChoice, Values: Augmentations,
		Default: "chosen by validation", Doc: "nsvm4 on images: Part I augmentation (shift: random one-pixel shifts, flip: random mirror images)"},
	{Field: "TestAugment", Flag: "test-augment", Key: "test_augment", Python: "test_augment", Algos: []string{"nsvm4"}, Kind: KindChoice, Values: testAugValues,
		Default: "chosen by validation where Part I shifts", Doc: "nsvm4 on images: shift makes the model average its features over the 9 one-pixel shifts of every image (nine times the network's prediction cost)"},
	{Field: "Mu", Flag: "mu", Key: "mu", Python: "mu", Algos: []string{"nsvm3"}, Kind: KindFloat, Rule: RulePositive, Tasks: model.Classification,
		Default: "1", Doc: "nsvm3: μ, the weight of the ‖f‖²-replacement term"},
	{Field: "Loss", Flag: "loss", Key: "loss", Python: "align_loss", Algos: []string{"nsvm4"}, Kind: KindChoice, Values: lossValues,
		Default: "squared", Doc: "nsvm4 Part I loss: squared ((1−A)²) or neg (−A)"},
	{Field: "Solver2", Flag: "solver2", Key: "solver2", Python: "solver2", Algos: []string{"nsvm4"}, Kind: KindChoice, Values: solver2Values,
		Default: "smo when selecting, else the paper's pegasos", Doc: "nsvm4 Part II solver"},
	{Field: "Reg.Name", Flag: "reg", Key: "reg", Python: "reg", Algos: []string{"nsvm3", "nsvm4"}, Kind: KindChoice, Values: paper.RegNames,
		Default: "none", Doc: "regulariser of the batch kernel matrix for nsvm3/nsvm4 (paper §6)"},
	{Field: "Reg.Rho", Flag: "reg-weight", Key: "reg_weight", Python: "reg_weight", Kind: KindFloat, Rule: RuleNonNeg,
		Default: "0.1", Doc: "weight ρ of the regulariser"},
	{Field: "Reg.Target", Flag: "reg-target", Key: "reg_target", Python: "reg_target", Kind: KindFloat, Rule: RuleFinite,
		Default: "0, the barrier form", Doc: "the regulariser's target: entropy s₀ in (0,1) for (S−s₀)²; frob*: t in (0,1] for max(0, t−d)²"},
	{Field: "Bias", Flag: "bias", Key: "bias", Python: "bias", Algos: []string{"nsvm1", "nsvm2", "nsvm3", "nsvm4", "pegasos"}, Kind: KindBool,
		Default: "off", Doc: "an unregularised bias term (pegasos; NSVM algorithms, paper §7)"},
	{Field: "Balanced", Flag: "balanced", Key: "balanced", Python: "balanced", Algos: []string{"nsvm3"}, Kind: KindOptBool, Tasks: model.Classification,
		Default: "on", Doc: "nsvm3 on more than two classes: class-balanced alignment labels (false: the ±1 labels)"},
	{Field: "Target", Flag: "target", Key: "target", Python: "target", Algos: []string{"nsvm4"}, Kind: KindChoice, Values: targetValues, Tasks: model.Regression,
		Default: "rbf", Doc: "regression with nsvm4: Part I target kernel, rbf (exp(−(y−y')²/2σ²)) or linear (centred yyᵀ)"},
	{Field: "Multiclass", Flag: "multiclass", Key: "multiclass", Python: "multiclass", Kind: KindChoice, Values: multiclassValues, Tasks: model.Classification,
		Default: "ovo; ovr for linear SVMs", Doc: "heads on more than two classes: ovo (one-vs-one) or ovr (one-vs-rest)"},
	{Field: "Probability", Flag: "probability", Key: "probability", Python: "probability", Kind: KindBool, Tasks: model.Classification,
		Default: "off", Doc: "calibrate probabilities (Platt scaling on out-of-fold decision values)"},
	{Field: "ClassWeight", Flag: "class-weight", Key: "class_weight", Python: "class_weight", Kind: KindString, Tasks: model.Classification,
		Default: "balanced when the smallest class has under a fifth of its balanced share of the rows, else none", Doc: "class weights: balanced (N/(K·N_class)), none, or LABEL:W,… as svm-train's -wLABEL W"},
	{Field: "Metric", Flag: "metric", Key: "metric", Python: "metric", Kind: KindChoice, Values: Metrics(),
		Default: "accuracy; roc_auc (2 classes) or balanced_accuracy on imbalanced classes; rmse for regression", Doc: "the selection's validation metric"},
	{Field: "Folds", Flag: "folds", Key: "folds", Python: "folds", Kind: KindInt, Rule: RuleCount,
		Default: "5, 3 or a hold-out by size", Doc: "validation folds of the selection; 1 = one hold-out split"},
	{Field: "Budget", Flag: "budget", Key: "budget", Python: "budget", Kind: KindDuration, Rule: RuleNonNeg,
		Default: "10 minutes", Doc: "bound on the selection's time (seconds in JSON and Python), checked as each candidate's run starts"},
	{Field: "Seed", Flag: "seed", Key: "seed", Python: "random_state", Kind: KindUint,
		Default: "1", Doc: "random seed: splits, initialisation, sampling (0 means the default)"},
	{Field: "Workers", Flag: "workers", Key: "workers", Python: "n_jobs", Kind: KindInt, Rule: RuleCount,
		Default: "all cores", Doc: "goroutines for the selection and the solvers (the result does not depend on it)"},
	{Field: "SampleRows", Flag: "sample-rows", Key: "sample_rows", Kind: KindInt, Rule: RuleCount,
		Default: "as many as 256 MB hold, at most 10⁶", Doc: "streams: the rows kept in memory for the selection"},
	{Field: "KeepInputs", Flag: "keep-inputs", Key: "keep_inputs", Kind: KindBool,
		Default: "off (partial_fit's first call: on)", Doc: "an NSVM's kernel heads keep their support vectors' inputs, so that a continued model (--continue, partial_fit) recomputes their features instead of restarting its head"},
	{Field: "MaxMemory", Flag: "max-memory", Key: "max_memory", Python: "max_memory", Kind: KindBytes, Rule: RuleNonNeg,
		Default: "half of the memory the process may use", Doc: "bound on what the data imply beyond their rows (the heads of many classes, vectors over many features), checked before training"},
}

// Set returns a pointer to v: the value of a field that is nil when not
// given (FitConfig.Epsilon, Momentum, WeightDecay, Balanced), as in
// FitConfig{Epsilon: search.Set(0.5)}.
func Set[T any](v T) *T { return &v }

// ParamByField, ParamByFlag and ParamByKey find a parameter by its
// spelling, or return nil.
func ParamByField(field string) *Param {
	return findParam(func(p *Param) bool { return p.Field == field })
}

// ParamByFlag is ParamByField for a flag's name.
func ParamByFlag(flag string) *Param { return findParam(func(p *Param) bool { return p.Flag == flag }) }

// ParamByKey is ParamByField for a configuration key.
func ParamByKey(key string) *Param { return findParam(func(p *Param) bool { return p.Key == key }) }

func findParam(match func(*Param) bool) *Param {
	for i := range Params {
		if match(&Params[i]) {
			return &Params[i]
		}
	}
	return nil
}

// value returns the parameter's field of c.
func (p *Param) value(c *FitConfig) reflect.Value {
	v := reflect.ValueOf(c).Elem()
	for _, name := range strings.Split(p.Field, ".") {
		v = v.FieldByName(name)
	}
	return v
}

// Value returns the flag.Value that sets the parameter in c: nsvm
// train's flag --Flag.
func (p *Param) Value(c *FitConfig) flag.Value { return paramValue{p, c} }

type paramValue struct {
	p *Param
	c *FitConfig
}

func (v paramValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.Get(v.c)
}

func (v paramValue) Set(s string) error { return v.p.Set(v.c, s) }

// IsBoolFlag lets a boolean parameter be given as --bias, without a value.
func (v paramValue) IsBoolFlag() bool {
	return v.p != nil && (v.p.Kind == KindBool || v.p.Kind == KindOptBool)
}

// Get returns the parameter's value in c as text ("" when not given).
func (p *Param) Get(c *FitConfig) string {
	v := p.value(c)
	if v.IsZero() {
		return ""
	}
	switch p.Kind {
	case KindOptFloat, KindOptBool:
		if v.IsNil() {
			return ""
		}
		return fmt.Sprint(v.Elem().Interface())
	case KindShape:
		s := v.Interface().([]int)
		parts := make([]string, len(s))
		for i, d := range s {
			parts[i] = strconv.Itoa(d)
		}
		return strings.Join(parts, "x")
	case KindFloat:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(v.Interface())
}

// Set parses text, checks it by the parameter's rule and stores it in c;
// its error is a *ConfigError about the field.
func (p *Param) Set(c *FitConfig, text string) error {
	v := p.value(c)
	bad := func(format string, args ...any) error { return fieldErr(p.Field, format, args...) }
	switch p.Kind {
	case KindFloat, KindOptFloat:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return bad("must be a number, got %q", text)
		}
		return p.setFloat(v, f)
	case KindInt:
		n, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil {
			return bad("must be an integer, got %q", text)
		}
		return p.setInt(v, int64(n))
	case KindUint:
		n, err := strconv.ParseUint(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return bad("must be an integer ≥ 0, got %q", text)
		}
		v.SetUint(n)
	case KindBool, KindOptBool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return bad("must be true or false, got %q", text)
		}
		p.setBool(v, b)
	case KindChoice:
		if p.Field == "Reg.Name" && text == "none" {
			text = "" // the regulariser's name for none
		}
		if text != "" && !slices.Contains(p.Values, text) {
			return unknownValue(p.Field, text, p.Values)
		}
		v.SetString(text)
	case KindString:
		v.SetString(text)
		return p.check(c)
	case KindShape:
		var shape []int
		for _, s := range strings.Split(strings.ReplaceAll(text, ",", "x"), "x") {
			d, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return bad("must be dimensions such as 1x28x28, got %q", text)
			}
			shape = append(shape, d)
		}
		v.Set(reflect.ValueOf(shape))
		return p.check(c)
	case KindDuration:
		d, err := time.ParseDuration(text)
		if err != nil {
			return bad("must be a duration such as 30s or 5m, got %q", text)
		}
		if d <= 0 {
			return bad("must be > 0, got %v", d)
		}
		v.SetInt(int64(d))
	case KindBytes:
		n, ok := sysmem.ParseBytes(text)
		if !ok {
			return bad("must be a byte count such as 512MiB or 8GB, got %q", text)
		}
		v.SetInt(n)
	}
	return nil
}

// SetJSON stores the JSON value raw (null: not given) in c, as the C ABI's
// configuration gives it: a duration in seconds, the others as in text.
func (p *Param) SetJSON(c *FitConfig, raw json.RawMessage) error {
	if string(raw) == "null" {
		return nil
	}
	v := p.value(c)
	bad := func(format string, args ...any) error { return fieldErr(p.Field, format, args...) }
	switch p.Kind {
	case KindFloat, KindOptFloat:
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return bad("must be a number, got %s", raw)
		}
		return p.setFloat(v, f)
	case KindInt, KindBytes:
		var n int64
		if err := json.Unmarshal(raw, &n); err != nil {
			return bad("must be an integer, got %s", raw)
		}
		return p.setInt(v, n)
	case KindUint:
		var n uint64
		if err := json.Unmarshal(raw, &n); err != nil {
			return bad("must be an integer ≥ 0, got %s", raw)
		}
		v.SetUint(n)
	case KindBool, KindOptBool:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return bad("must be true or false, got %s", raw)
		}
		p.setBool(v, b)
	case KindDuration:
		var secs float64
		if err := json.Unmarshal(raw, &secs); err != nil || !(secs > 0) || secs > 1e9 {
			return bad("must be a number of seconds > 0, got %s", raw)
		}
		v.SetInt(int64(secs * float64(time.Second)))
	case KindShape:
		var shape []int
		if err := json.Unmarshal(raw, &shape); err != nil {
			return bad("must be an array of dimensions, got %s", raw)
		}
		v.Set(reflect.ValueOf(shape))
		return p.check(c)
	default: // choices and text
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return bad("must be a string, got %s", raw)
		}
		return p.Set(c, s)
	}
	return nil
}

func (p *Param) setFloat(v reflect.Value, f float64) error {
	if err := p.checkFloat(f); err != nil {
		return err
	}
	if p.Kind == KindOptFloat {
		v.Set(reflect.ValueOf(&f))
		return nil
	}
	v.SetFloat(f)
	return nil
}

func (p *Param) setInt(v reflect.Value, n int64) error {
	switch {
	case p.Rule == RuleNonNeg && n < 0:
		return fieldErr(p.Field, "must be ≥ 0, got %d", n)
	case p.Rule == RuleCount && n < 1:
		return fieldErr(p.Field, "must be ≥ 1, got %d", n)
	}
	v.SetInt(n)
	return nil
}

func (p *Param) setBool(v reflect.Value, b bool) {
	if p.Kind == KindOptBool {
		v.Set(reflect.ValueOf(&b))
		return
	}
	v.SetBool(b)
}

// checkFloat checks a number given for the parameter by its rule.
func (p *Param) checkFloat(f float64) error {
	bad := func(want string) error { return fieldErr(p.Field, "must be %s, got %g", want, f) }
	switch p.Rule {
	case RuleFinite:
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return bad("finite")
		}
	case RulePositive:
		if !(f > 0) || math.IsInf(f, 0) {
			return bad("a finite number > 0")
		}
	case RuleNonNeg:
		if !(f >= 0) || math.IsInf(f, 0) {
			return bad("a finite number ≥ 0")
		}
	case RuleUnit:
		if !(f > 0 && f <= 1) {
			return bad("in (0, 1]")
		}
	case RuleFraction:
		if !(f >= 0 && f < 1) {
			return bad("in [0, 1)")
		}
	}
	return nil
}

// check checks the parameter's value in c by its rule (a value not given
// passes).
func (p *Param) check(c *FitConfig) error {
	v := p.value(c)
	switch p.Kind {
	case KindFloat:
		if f := v.Float(); f != 0 || math.IsNaN(f) {
			return p.checkFloat(f)
		}
	case KindOptFloat:
		if !v.IsNil() {
			return p.checkFloat(v.Elem().Float())
		}
	case KindInt, KindBytes, KindDuration:
		if (p.Rule == RuleNonNeg || p.Rule == RuleCount) && v.Int() < 0 {
			if p.Kind == KindDuration {
				return fieldErr(p.Field, "must be ≥ 0, got %v", time.Duration(v.Int()))
			}
			return fieldErr(p.Field, "must be ≥ 0, got %d", v.Int())
		}
	case KindChoice:
		if s := v.String(); s != "" && !slices.Contains(p.Values, s) && !(p.Field == "Reg.Name" && s == "none") {
			return unknownValue(p.Field, s, p.Values)
		}
	case KindShape:
		shape := v.Interface().([]int)
		if shape == nil {
			return nil
		}
		if len(shape) != 1 && len(shape) != 3 {
			return fieldErr(p.Field, "%v: want one number or three (C×H×W)", shape)
		}
		for _, d := range shape {
			if d < 1 {
				return fieldErr(p.Field, "%v has a dimension < 1", shape)
			}
		}
	case KindString:
		switch p.Field {
		case "Arch":
			if s := v.String(); s != "" {
				if _, err := nn.ParseArch(s); err != nil {
					return &ConfigError{Field: p.Field, Msg: "{" + p.Field + "}: " + errmsg.Strip(err).Error()}
				}
			}
		case "ClassWeight":
			return checkClassWeightSyntax(v.String())
		}
	}
	return nil
}

// Usage is the parameter's help: its doc, its values, and its default.
func (p *Param) Usage() string {
	u := p.Doc
	if p.Kind == KindChoice {
		u += ": " + strings.Join(p.Values, ", ")
	}
	if p.Default != "" {
		u += " (default: " + p.Default + ")"
	}
	return u
}

// ParamsTable is the parameters as a Markdown table: the flag, the key
// and Python name, the task, the algorithms, the default and the doc
// (README.md's).
func ParamsTable() string {
	var b strings.Builder
	b.WriteString("| flag | configuration key (Python) | task | algorithms | what | default |\n|---|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, p := range Params {
		key := "`" + p.Key + "`"
		if p.Python != "" && p.Python != p.Key {
			key += " (`" + p.Python + "`)"
		} else if p.Python == "" {
			key += " (—)"
		}
		task := p.Tasks
		if task == "" {
			task = "both"
		}
		doc := p.Doc
		if p.Kind == KindChoice {
			doc += ": " + strings.Join(p.Values, ", ")
		}
		algos := "all"
		if p.Algos != nil {
			algos = strings.Join(p.Algos, ", ")
		}
		fmt.Fprintf(&b, "| `--%s` | %s | %s | %s | %s | %s |\n", p.Flag, key, task, algos, cell(doc), cell(p.Default))
	}
	return b.String()
}

// FlagOf spells a FitConfig field as nsvm train's flag ("C" → "--C"), for
// ConfigError.Text; a name that is no parameter's stays as it is.
func FlagOf(field string) string {
	if p := ParamByField(field); p != nil {
		return "--" + p.Flag
	}
	return field
}

// ParseArgs parses training flags as nsvm train takes them, one per Param
// ("--algo smo --C 10 --gamma 5"), into a FitConfig and validates it; what
// they leave unset Fit chooses. Flags that name files or outputs (--data,
// --model, --cv, …) are not among them. A refused value or combination is
// a *ConfigError (Text(FlagOf) spells it as the flags), any other mistake
// an error naming the argument.
func ParseArgs(args []string) (*FitConfig, error) {
	var c FitConfig
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for i := range Params {
		fs.Var(Params[i].Value(&c), Params[i].Flag, Params[i].Doc)
	}
	pos, err := cliflag.Parse(fs, args, "svm-train", cliflag.SVMTrainHints)
	var ve *cliflag.ValueError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, fmt.Errorf("nsvm: the flags are nsvm train's training flags (see nsvm train -h)")
	case errors.As(err, &ve) && errors.Is(ve.Err, ErrBadConfig):
		return nil, ve.Err
	case err != nil:
		return nil, fmt.Errorf("nsvm: %w", err)
	case len(pos) > 0:
		return nil, fmt.Errorf("nsvm: unexpected argument %q (the training flags take no file)", pos[0])
	case c.Kernel == KernelPrecomputed:
		return nil, fieldErr("Kernel", "{Kernel} precomputed trains on rows of kernel values (FitPrecomputed), not on points")
	}
	return &c, c.Validate()
}
