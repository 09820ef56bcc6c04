package nsvm

import (
	"context"
	"io"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/search"
)

// Model is a trained model: an NSVM or a classical SVM, with what
// prediction needs (see package model).
type Model = model.Model

// Prediction is what a model says of a block of rows (Model.Predictions).
type Prediction = model.Prediction

// Scores is a model's measure on labelled data (Model.Evaluate).
type Scores = model.Scores

// Selection records how Fit chose a model (Model.Selection).
type Selection = model.Selection

// FitConfig configures Fit; its zero value (or nil) does what nsvm train
// does with no flag: choose everything by validation (see package search).
type FitConfig = search.FitConfig

// ConfigError is the error of a FitConfig that cannot work: the field it
// is about and what is wrong (search.ConfigError); it wraps ErrBadConfig.
type ConfigError = search.ConfigError

// FitProgress is what Fit reports while it works (FitConfig.Progress).
type FitProgress = search.FitProgress

// ContinueConfig configures Continue; its zero value continues as the
// model's own training chose (see package search).
type ContinueConfig = search.ContinueConfig

// CVResult is CrossValidate's result.
type CVResult = search.CVResult

// RowStream is a source of rows FitStream reads in passes.
type RowStream = search.RowStream

// Search is Fit's selection with its rounds of candidates handed to an
// Executor, to be scored in other processes; its model is Fit's.
type Search = search.Search

// Executor scores a round of a Search's tasks (see Search.Run).
type Executor = search.Executor

// Problem, Options, Progress, RegConfig and Preset are the paper's
// trainers' types (see package paper): a ±1-labelled training set; the
// options of a run (seed, progress, checkpoints); a trainer's report; a §6
// regulariser (FitConfig.Reg); a preset reproducing the paper.
type (
	Problem   = paper.Problem
	Options   = paper.Options
	Progress  = paper.Progress
	RegConfig = paper.RegConfig
	Preset    = paper.Preset
)

// Values of FitConfig's fields.
const (
	// DefaultSeed is the seed of a FitConfig with Seed 0, nsvm train's.
	DefaultSeed = search.DefaultSeed

	Classification = model.Classification // FitConfig.Task
	Regression     = model.Regression

	ScaleStandardize = search.ScaleStandardize // FitConfig.Scaling
	ScaleGlobal      = search.ScaleGlobal
	ScaleNone        = search.ScaleNone

	MetricAccuracy         = search.MetricAccuracy // FitConfig.Metric
	MetricBalancedAccuracy = search.MetricBalancedAccuracy
	MetricF1               = search.MetricF1
	MetricROCAUC           = search.MetricROCAUC
	MetricRMSE             = search.MetricRMSE

	ClassWeightBalanced = search.ClassWeightBalanced // FitConfig.ClassWeight
	ClassWeightNone     = search.ClassWeightNone

	OneVsOne  = model.OneVsOne // FitConfig.Multiclass
	OneVsRest = model.OneVsRest
)

// Errors, wrapped in what the functions return (test with errors.Is).
var (
	// ErrBadData: the data cannot be used (as given, or with the model).
	ErrBadData = model.ErrBadData
	// ErrBadConfig: a FitConfig that cannot work, alone or with the data.
	ErrBadConfig = search.ErrBadConfig
	// ErrMemory: what the data imply (the heads of many classes, vectors
	// over many features) would pass FitConfig.MaxMemory; Fit refuses
	// before allocating it.
	ErrMemory = search.ErrMemory
	// ErrChanceLevel: the trained model learned nothing; Fit returns it
	// with the model.
	ErrChanceLevel = search.ErrChanceLevel
	// ErrNotExportable: the model has no LIBSVM form (Model.WriteLIBSVM)
	// or no ONNX form (package model/onnx).
	ErrNotExportable = model.ErrNotExportable
)

// Set returns a pointer to v, for the fields of FitConfig that are nil
// when not given: FitConfig{Epsilon: nsvm.Set(0.5)} (search.Set).
func Set[T any](v T) *T { return search.Set(v) }

// Fit trains a model on ds, choosing what cfg leaves open by validation on
// ds (search.Fit): the estimator, as LIBSVM's svm_train or scikit-learn's
// fit. A nil cfg chooses everything.
func Fit(ctx context.Context, ds *data.Dataset, cfg *FitConfig) (*Model, error) {
	return search.Fit(ctx, ds, cfg)
}

// Continue trains m on from the rows of ds (the same columns and classes)
// and returns the continued model, m unchanged: scikit-learn's
// partial_fit after a first Fit. An NSVM continues its network's steps
// and Pegasos over its support set, a kernel SVM budgeted kernel Pegasos,
// a linear SVM Pegasos from its weights; the support set stays within a
// budget (search.Continue).
func Continue(ctx context.Context, m *Model, ds *data.Dataset, cfg *ContinueConfig) (*Model, error) {
	return search.Continue(ctx, m, ds, cfg)
}

// FitStream is Fit on a stream of rows too large to hold (search.FitStream).
func FitStream(ctx context.Context, src RowStream, cfg *FitConfig) (*Model, error) {
	return search.FitStream(ctx, src, cfg)
}

// OpenFor reads a data file as model m takes its rows (search.OpenFor).
func OpenFor(m *Model, path string, o data.OpenOptions, labelled bool) (*data.Dataset, error) {
	return search.OpenFor(m, path, o, labelled)
}

// FitPrecomputed is Fit on rows of kernel values, LIBSVM's -t 4
// (search.FitPrecomputed).
func FitPrecomputed(ctx context.Context, ds *data.Dataset, cfg *FitConfig) (*Model, error) {
	return search.FitPrecomputed(ctx, ds, cfg)
}

// CrossValidate estimates how well Fit with cfg generalises by k-fold
// cross-validation, as svm-train -v (search.CrossValidate).
func CrossValidate(ctx context.Context, ds *data.Dataset, cfg *FitConfig, k int) (*CVResult, error) {
	return search.CrossValidate(ctx, ds, cfg, k)
}

// CrossValidateSelected cross-validates the configuration Fit's selection
// chooses on all of ds, alone (search.CrossValidateSelected).
func CrossValidateSelected(ctx context.Context, ds *data.Dataset, cfg *FitConfig, k int) (*CVResult, error) {
	return search.CrossValidateSelected(ctx, ds, cfg, k)
}

// NewSearch prepares Fit's selection on ds for an Executor
// (search.NewSearch).
func NewSearch(ds *data.Dataset, cfg *FitConfig) (*Search, error) {
	return search.NewSearch(ds, cfg)
}

// DatasetStream is a RowStream over the rows of ds.
func DatasetStream(ds *data.Dataset) RowStream { return search.DatasetStream(ds) }

// Load reads a model file: nsvm's, or svm-train's (model.Load).
func Load(path string) (*Model, error) { return model.Load(path) }

// Read reads a model file from r, as Load reads one from a file.
func Read(r io.Reader) (*Model, error) { return model.Read(r) }

// TrainAlg1 trains the paper's Algorithm 1 (paper.TrainAlg1).
func TrainAlg1(ctx context.Context, net *nn.Net, p Problem, cfg paper.Alg1Config, o Options) (*Model, error) {
	return paper.TrainAlg1(ctx, net, p, cfg, o)
}

// TrainAlg2 trains the paper's Algorithm 2 (paper.TrainAlg2).
func TrainAlg2(ctx context.Context, net *nn.Net, p Problem, cfg paper.Alg2Config, o Options) (*Model, error) {
	return paper.TrainAlg2(ctx, net, p, cfg, o)
}

// TrainAlg3 trains the paper's Algorithm 3 (paper.TrainAlg3).
func TrainAlg3(ctx context.Context, net *nn.Net, p Problem, cfg paper.Alg3Config, o Options) (*Model, error) {
	return paper.TrainAlg3(ctx, net, p, cfg, o)
}

// TrainAlg4 trains the paper's Algorithm 4 (paper.TrainAlg4).
func TrainAlg4(ctx context.Context, net *nn.Net, p Problem, cfg paper.Alg4Config, o Options) (*Model, error) {
	return paper.TrainAlg4(ctx, net, p, cfg, o)
}

// RingnormPreset is the paper's configuration of algorithm alg (1–4) on
// Ringnorm (paper.RingnormPreset).
func RingnormPreset(alg int) (Preset, error) { return paper.RingnormPreset(alg) }
