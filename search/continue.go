package search

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/svm"
)

// ContinueConfig configures Continue. Its zero value continues as the
// model's own training chose: λ, the loss, the bias and, for an NSVM, the
// network's objective, optimizer, learning rate, batch size and
// augmentation come from the model.
type ContinueConfig struct {
	// Budget is the most support vectors a kernel model keeps, shared by
	// its heads (0: the budget of the model's last continuation, else
	// svm.DefaultBudget).
	Budget int
	// Maintenance is svm.BudgetMerge or svm.BudgetRemove ("": merge for
	// an RBF kernel, remove otherwise; see svm.Budgeted).
	Maintenance string
	// Lambda pins λ of the continued objective (0: the model's; see
	// Continue).
	Lambda float64
	// Epochs is the number of passes over the new rows (0: 1).
	Epochs int
	// LR pins the learning rate of an NSVM's network steps (0: see
	// Continue).
	LR float64
	// Window, if not 0, makes the model forget: the Pegasos step count is
	// capped at Window, so that each step keeps (1 − 1/Window) of the
	// function, an exponential average over about the last Window rows a
	// head saw (for data whose distribution drifts); an NSVM's network then
	// takes its steps on every chunk (see Continue).
	Window int
	// Seed makes the continuation deterministic (0: DefaultSeed); each
	// continuation of a model draws from it and the model's count of
	// continuations.
	Seed uint64
	// Progress, if not nil, receives reports (Stage "continue": Done of
	// Total rows stepped; Train set during an NSVM's network steps).
	Progress func(FitProgress)
}

// Validate reports whether the configuration is usable.
func (c *ContinueConfig) Validate() error {
	switch c.Maintenance {
	case "", svm.BudgetMerge, svm.BudgetRemove:
	default:
		return configErr("unknown budget maintenance %q (want %s or %s)", c.Maintenance, svm.BudgetMerge, svm.BudgetRemove)
	}
	if c.Budget < 0 || c.Epochs < 0 || c.Window < 0 {
		return configErr("budget, epochs and window must be ≥ 0, got %d, %d and %d", c.Budget, c.Epochs, c.Window)
	}
	if c.Lambda != 0 && (!(c.Lambda > 0) || math.IsInf(c.Lambda, 0)) || c.LR != 0 && (!(c.LR > 0) || math.IsInf(c.LR, 0)) {
		return configErr("lambda and the learning rate must be finite numbers > 0, got %g and %g", c.Lambda, c.LR)
	}
	return nil
}

// Keys of the metadata a continued model records (Model.Info).
const (
	// InfoSeenRows, InfoSeenChunks and InfoSeenUpdates count what the
	// model has seen: its rows (the first fit's and every continuation's),
	// its chunks (the first fit is one, every Continue one more) and the
	// stochastic updates of its continuations (one a row and pass, and
	// one a network step).
	InfoSeenRows    = "seen_rows"
	InfoSeenChunks  = "seen_chunks"
	InfoSeenUpdates = "seen_updates"
	// InfoContinued names how a continued model went on learning
	// ("budgeted kernel pegasos", "linear pegasos"); a model Fit made
	// has none.
	InfoContinued = "continued"
	// infoStreamT holds each head's Pegasos step count, infoStreamLambda
	// λ, infoBudget and infoMaintenance the support set's bound and how
	// it is kept.
	infoStreamT      = "stream_t"
	infoStreamLambda = "stream_lambda"
	infoBudget       = "budget"
	infoMaintenance  = "budget_maintenance"
	infoNetSteps     = "seen_net_steps"
)

// Continue trains m on the rows of ds, which must have the model's columns
// and classes (or be real targets for a regressor), and returns the
// continued model; m is not modified. It is partial_fit for a model
// trained by Fit (or continued before), for a stream that arrives in
// chunks: what the first fit chose (the model's family, scaling, kernel,
// network and hyper-parameters) is kept, and each kind continues its own
// training:
//
//   - a kernel SVM (SMO's, Pegasos', on the scaled inputs) continues by
//     budgeted kernel Pegasos (svm.Budgeted): the model is taken as the
//     Pegasos iterate of the objective λ/2·‖f‖² + 1/n·Σ loss after n₀
//     steps, n₀ the rows it was trained on and λ = 1/(C·n₀), which SMO's
//     solution minimises over those rows (one-vs-one heads count the
//     2n₀/K rows of a pair, as if the classes were balanced), or after
//     1/λ steps if that is more (Bottou's offset: no step moves f by more
//     than one kernel value); each new row
//     takes a step, and the support set is held to the budget by merging
//     (RBF) or removal. SMO itself has no incremental form: the continued
//     model is this Pegasos iterate, starting from SMO's solution.
//     The continued head is the mean of the iterates of the second half of
//     the continuation's steps (suffix averaging, as svm.SVRConfig.Average),
//     whose last iterate is noisy (on MNIST as a stream, over the last 20
//     chunks, the last iterate's test accuracy moved by up to 0.11 points
//     from chunk to chunk, the mean's by up to 0.06).
//   - a linear SVM warm-starts Pegasos from its weights (svm.LinearStream).
//   - an NSVM continues Part I, its network's steps on the new rows with
//     its own objective (the softmax objective's temporary head starts from
//     the nearest class means of the new rows' features) at a constant
//     learning rate chosen by validation on the first continuation's rows
//     (chooseLR), and Part II,
//     budgeted Pegasos over its support set and the new rows: the support
//     vectors keep the rows (inputs) they are features of, whose features
//     are recomputed under the moved network, and each pass steps over
//     them again as over the new rows (Algorithm 2's recomputed features,
//     on the support set). A model whose head holds only features (as Fit
//     writes one) restarts its head on the new rows. A classifier's
//     network stops taking steps once they stop paying: each continuation
//     first scores the model on its new rows, and when the errors of the
//     last five chunks are no lower than those of the five before by more
//     than a standard error, the network stays as it is (InfoNetworkFrozen)
//     and only its head learns, until the errors rise again by more than
//     two (see paying.go). With a Window the network never stops.
//
// The input scaling stays the first fit's. Memory and the time a row takes
// are bounded by the budget, not by the rows seen. The model records what
// it has seen (InfoSeenRows, InfoSeenChunks, InfoSeenUpdates) and the
// state the next continuation needs. A continued model no better than
// predicting the most frequent class of the new rows (a regressor: their
// mean) is returned with ErrChanceLevel.
func Continue(ctx context.Context, m *model.Model, ds *data.Dataset, cfg *ContinueConfig) (*model.Model, error) {
	start := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	var c ContinueConfig
	if cfg != nil {
		c = *cfg
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, configErr("no model to continue")
	}
	if err := continuable(m); err != nil {
		return nil, err
	}
	y, err := continueLabels(m, ds)
	if err != nil {
		return nil, err
	}
	out := m.Clone()
	chunks := infoInt(m, InfoSeenChunks, 1)
	seed := cmp.Or(c.Seed, DefaultSeed) ^ uint64(chunks)*0x636f6e74696e7565
	rng := rand.New(seedPCG(seed))
	n, din := ds.N, m.InSize()
	var x []float32
	if ds.Sparse == nil {
		x = make([]float32, n*din)
		out.ScaleInputs(x, ds.X[:n*din])
	}
	st, err := newStreamState(out, &c)
	if err != nil {
		return nil, err
	}
	netSteps := 0
	// A classifier's features of the new rows before any step: the model's
	// prequential errors, which stop the network's steps once they stop
	// paying (not with a window: drifting data keeps it learning).
	var z0, still []float32
	if out.Net != nil && x != nil && !out.Regression() && c.Window == 0 {
		z0 = make([]float32, n*out.Net.OutSize())
		out.Net.Features(z0, x, n)
		if st.prequential(out, z0, y) {
			still = z0
		}
	}
	if out.Net != nil && still == nil {
		if netSteps, err = continuePart1(ctx, out, x, n, y, &c, seed, start, z0); err != nil {
			return nil, err
		}
	}
	z, err := st.run(ctx, out, ds, x, y, &c, rng, start, still)
	if err != nil {
		return nil, err
	}
	st.store(out, &c)
	if out.Net != nil {
		// The caller keeps the model until the next chunk: its network's
		// parameters, not the workspaces this continuation grew.
		out.Net.Trim()
	}
	out.Info[InfoSeenRows] = strconv.Itoa(infoInt(m, InfoSeenRows, infoInt(m, "data_rows", 0)) + n)
	out.Info[InfoSeenChunks] = strconv.Itoa(chunks + 1)
	epochs := max(1, c.Epochs)
	out.Info[InfoSeenUpdates] = strconv.Itoa(infoInt(m, InfoSeenUpdates, 0) + epochs*n + netSteps)
	if out.Net != nil {
		out.Info[infoNetSteps] = strconv.Itoa(infoInt(m, infoNetSteps, 0) + netSteps)
	}
	if c.Window > 0 {
		out.Info["window"] = strconv.Itoa(c.Window)
	}
	return out, checkContinued(out, st, ds, z, y)
}

// continuable refuses the models Continue cannot continue.
func continuable(m *model.Model) error {
	switch {
	case m.OneClass():
		return configErr("a one-class SVM does not continue (its ν bounds the share of outliers in the rows it was trained on)")
	case m.Precomputed():
		return configErr("a model on a precomputed kernel does not continue (its support vectors are columns of the first fit's rows)")
	case m.Info["svm_type"] == "nu_svc" || m.Info["svm_type"] == "nu_svr":
		return configErr("a ν-SVM does not continue; train a C-SVM (svm type c-svc or epsilon-svr)")
	}
	for _, h := range heads(m) {
		if h.SVSparse != nil && h.Kernel.Name != "linear" {
			return configErr("a kernel SVM on sparse rows does not continue; the linear SVM does")
		}
	}
	return nil
}

func heads(m *model.Model) []*svm.Model {
	if m.Multiclass() {
		return m.Heads
	}
	return []*svm.Model{m.Head}
}

// continueLabels checks ds against m (width, columns, classes) and returns
// the rows' labels: class indices into m.Labels() for a classifier, the
// targets for a regressor.
func continueLabels(m *model.Model, ds *data.Dataset) ([]float64, error) {
	if ds == nil {
		return nil, fmt.Errorf("%w: no data set", model.ErrBadData)
	}
	if err := ds.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrBadData, err)
	}
	if ds.D != m.InSize() {
		return nil, fmt.Errorf("%w: the data has %d values a row, the model takes %d", model.ErrBadData, ds.D, m.InSize())
	}
	if ds.Sparse != nil && m.Net != nil {
		return nil, fmt.Errorf("%w: an NSVM continues on dense rows", model.ErrBadData)
	}
	if err := sameColumns(m.Columns, ds.Columns); err != nil {
		return nil, err
	}
	if m.Regression() {
		if ds.LabelNames != nil {
			return nil, fmt.Errorf("%w: the labels are names (%s); the model is a regressor", model.ErrBadData, errmsg.List(ds.LabelNames))
		}
		return ds.Y[:ds.N], nil
	}
	labels, err := m.DataLabels(ds)
	if err != nil {
		return nil, err
	}
	classes := m.Labels()
	y := make([]float64, ds.N)
	for i, v := range labels {
		k := slices.Index(classes, v)
		if k < 0 {
			return nil, fmt.Errorf("%w: row %d has label %s, which is not one of the model's classes (%s)", model.ErrBadData, i+1, m.LabelName(v), errmsg.List(m.ClassNames()))
		}
		y[i] = float64(k)
	}
	return y, nil
}

// sameColumns reports an error when the data's columns are not the
// model's: the same names in the same order, and for text columns the same
// categories (data read with data.CSVOptions.Columns = the model's).
func sameColumns(model_, got []data.Column) error {
	if model_ == nil || got == nil {
		return nil
	}
	if len(got) != len(model_) {
		return fmt.Errorf("%w: the data has %d columns, the model %d (%s)", model.ErrBadData, len(got), len(model_), columnNames(model_))
	}
	for j := range model_ {
		if got[j].Name != model_[j].Name {
			return fmt.Errorf("%w: column %d is %s in the data, %s in the model (the model's columns: %s)", model.ErrBadData, j+1, data.Quote(got[j].Name), data.Quote(model_[j].Name), columnNames(model_))
		}
		if !reflect.DeepEqual(got[j].Categories, model_[j].Categories) || got[j].Other != model_[j].Other || got[j].Dropped != model_[j].Dropped {
			return fmt.Errorf("%w: column %s is not encoded as the model's (read the data with the model's columns)", model.ErrBadData, data.Quote(got[j].Name))
		}
	}
	return nil
}

func columnNames(cols []data.Column) string {
	names := make([]string, len(cols))
	for j, c := range cols {
		names[j] = c.Name
	}
	return errmsg.List(names)
}

// infoInt returns the integer metadata key of m, or def.
func infoInt(m *model.Model, key string, def int) int {
	if v, err := strconv.Atoi(m.Info[key]); err == nil && v >= 0 {
		return v
	}
	return def
}

// infoFloat returns the positive number metadata key of m, or 0.
func infoFloat(m *model.Model, key string) float64 {
	if v, err := strconv.ParseFloat(m.Info[key], 64); err == nil && v > 0 && !math.IsInf(v, 0) {
		return v
	}
	return 0
}

// solverOf returns the solver of a model's head: a classical model's
// algorithm, an NSVM's Part II solver.
func solverOf(m *model.Model) string {
	if m.Net == nil {
		return m.Algorithm
	}
	if s := m.Info["part2_solver"]; s != "" {
		return s
	}
	if m.Algorithm == "nsvm4" {
		return "pegasos"
	}
	return m.Algorithm // nsvm1–3: their heads are Pegasos expansions
}

// streamState is the Part II state of a continuation: the heads' targets
// and a Budgeted set or a LinearStream over them.
type streamState struct {
	nh      int
	scheme  string
	nclass  int
	reg     bool
	yMean   float64 // regression: the targets are standardised
	ySD     float64
	lam     float64
	window  int
	kern    *svm.Budgeted
	lin     *svm.LinearStream
	din     int  // inputs the support vectors carry (NSVMs)
	restart bool // an NSVM head without inputs: restarted on the new rows
}

// newStreamState derives the continuation's objective from the model (see
// Continue) and loads its heads.
func newStreamState(m *model.Model, c *ContinueConfig) (*streamState, error) {
	hs := heads(m)
	st := &streamState{nh: len(hs), scheme: m.Scheme, nclass: len(m.Labels()), reg: m.Regression(), window: c.Window}
	if st.reg {
		st.yMean, st.ySD = infoFloat(m, "target_mean"), infoFloat(m, "target_std")
		if m.Info["target_mean"] == "0" {
			st.yMean = 0
		}
		if st.ySD == 0 {
			st.ySD = 1
		}
	}
	// n₀: the rows the head was trained on, per head.
	n0 := infoInt(m, "part2_rows", infoInt(m, "trained_rows", infoInt(m, "data_rows", 0)))
	if m.Net == nil && (m.Algorithm == "smo" || m.Algorithm == "chunking") {
		n0 = min(n0, svmRows)
	}
	if st.scheme == model.OneVsOne {
		n0 = 2 * n0 / st.nclass
	}
	lam := cmp.Or(c.Lambda, infoFloat(m, infoStreamLambda))
	if lam == 0 {
		if cc := infoFloat(m, "part2_C"); cc > 0 && m.Net != nil && n0 > 0 {
			lam = 1 / (cc * float64(n0))
		} else if cc := infoFloat(m, "C"); cc > 0 && n0 > 0 {
			lam = 1 / (cc * float64(n0))
		} else if l := infoFloat(m, "lambda"); l > 0 {
			lam = l
		}
	}
	if lam == 0 {
		return nil, configErr("the model records neither C and its training rows nor λ (an svm-train file?): set the continuation's lambda")
	}
	st.lam = lam
	steps := make([]int64, st.nh)
	if ts := strings.Split(m.Info[infoStreamT], ","); len(ts) == st.nh && m.Info[infoStreamT] != "" {
		for h, v := range ts {
			t, err := strconv.ParseInt(v, 10, 64)
			if err != nil || t < 0 {
				return nil, fmt.Errorf("nsvm: bad %s %q in the model's metadata", infoStreamT, m.Info[infoStreamT])
			}
			steps[h] = t
		}
	} else {
		t0 := int64(max(n0, 1))
		if T := infoInt(m, "T", 0); T > 0 && m.Net == nil && m.Algorithm == "pegasos" {
			t0 = int64(T)
		}
		for h := range steps {
			steps[h] = t0
		}
	}
	// Bottou's offset t₀ = 1/λ: a step moves f by at most 1/(λt) ≤ one
	// kernel value, however large C is (SMO's solution at a large C counts
	// as C·n₀ steps, not n₀, or its first continued steps would move f by C).
	off := int64(math.Ceil(1 / lam))
	for h := range steps {
		steps[h] = max(steps[h], off)
	}
	bias := learnsBias(m)
	loss, eps := svm.LossHinge, 0.0
	if st.reg {
		loss = svm.LossEpsInsensitive
		eps = infoFloat(m, "epsilon") / st.ySD
	}
	linear := hs[0].Kernel.Name == "linear" && !hs[0].Kernel.Normalized
	if linear && !st.reg {
		switch m.Info["loss"] {
		case "l2":
			loss = svm.LossSquaredHinge
		case "lr":
			loss = svm.LossLogistic
		}
	}
	bh := make([]svm.BudgetHead, st.nh)
	for h, hd := range hs {
		bh[h] = svm.BudgetHead{T: steps[h], Bias: hd.Bias, LearnBias: bias, Loss: loss, Epsilon: eps}
		if st.reg {
			bh[h].Bias = (hd.Bias - st.yMean) / st.ySD
		}
	}
	scaled := func(h int) float64 {
		if st.reg {
			return 1 / st.ySD
		}
		return 1
	}
	if linear {
		ms := make([]*svm.Model, st.nh)
		for h, hd := range hs {
			cp := &svm.Model{Kernel: hd.Kernel, SV: hd.SV, SVSparse: hd.SVSparse, NSV: hd.NSV, D: hd.D, Coef: slices.Clone(hd.Coef), Bias: bh[h].Bias}
			for i := range cp.Coef {
				cp.Coef[i] *= scaled(h)
			}
			ms[h] = cp
		}
		var err error
		st.lin, err = svm.NewLinearStream(ms, bh, lam)
		if err == nil {
			st.lin.Window = int64(c.Window)
		}
		return st, err
	}
	if m.Net != nil {
		st.din = m.InSize()
	}
	budget := cmp.Or(c.Budget, infoInt(m, infoBudget, 0), svm.DefaultBudget)
	var err error
	st.kern, err = svm.NewBudgeted(hs[0].Kernel, hs[0].D, st.din, bh, svm.BudgetConfig{Budget: budget, Maintenance: c.Maintenance, Lambda: lam, Window: c.Window})
	if err != nil {
		return nil, configErr("%v", errmsg.Strip(err))
	}
	if st.din > 0 {
		for _, hd := range hs {
			if hd.Inputs == nil && hd.NSV > 0 {
				st.restart = true
			}
		}
	}
	if st.restart {
		// The head holds features only: it cannot follow the network.
		for h := range bh {
			bh[h].T, bh[h].Bias = off, 0
		}
		st.kern, err = svm.NewBudgeted(hs[0].Kernel, hs[0].D, st.din, bh, svm.BudgetConfig{Budget: budget, Maintenance: c.Maintenance, Lambda: lam, Window: c.Window})
		return st, err
	}
	// The support vectors, each once, with a coefficient per head.
	type entry struct {
		p    int
		coef []float64
	}
	index := map[string]*entry{}
	var order []*entry
	var key []byte
	var zs, ins [][]float32
	var labels []int32
	for h, hd := range hs {
		for i := range hd.NSV {
			z := hd.SV[i*hd.D : (i+1)*hd.D]
			var in []float32
			src := z
			if st.din > 0 {
				in = hd.Inputs[i*st.din : (i+1)*st.din]
				src = in
			}
			key = key[:0]
			for _, v := range src {
				key = binary.LittleEndian.AppendUint32(key, math.Float32bits(v))
			}
			e := index[string(key)]
			if e == nil {
				e = &entry{p: len(order), coef: make([]float64, st.nh)}
				index[string(key)] = e
				order = append(order, e)
				zs, ins = append(zs, z), append(ins, in)
				labels = append(labels, -1)
			}
			e.coef[h] = hd.Coef[i] * scaled(h)
			if labels[e.p] < 0 {
				labels[e.p] = st.entryClass(h, hd.Coef[i])
			}
		}
	}
	st.kern.Grow(len(order) + 1) // and the point a step adds before maintenance
	for p, e := range order {
		st.kern.Add(zs[p], ins[p], labels[p], e.coef)
	}
	return st, nil
}

// entryClass returns the class a support vector with coefficient coef in
// head h belongs to (for merging points of one class), or −1 when the
// head does not tell it (a one-vs-rest head's other classes). A
// regressor's points are classed by their coefficient's sign.
func (st *streamState) entryClass(h int, coef float64) int32 {
	switch {
	case st.reg:
		return 0
	case st.nh == 1:
		if coef > 0 {
			return 1
		}
		return 0
	case st.scheme == model.OneVsOne:
		a, b := svm.PairClasses(h, st.nclass)
		if coef > 0 {
			return int32(a)
		}
		return int32(b)
	case coef > 0:
		return int32(h)
	}
	return -1
}

// learnsBias reports whether the model's heads have a bias that training
// moves: SMO's, the linear solver's and a Pegasos fitted with one.
func learnsBias(m *model.Model) bool {
	switch s := solverOf(m); {
	case s == "pegasos" || s == "pegasos-linear" || s == "perceptron" || s == "dual-sga" || nsvmAlg(s) > 0:
		return m.Info["bias"] == "true"
	}
	return true
}

// targets sets t[h] to head h's target for a row of label y (a class
// index, or a target): ±1, NaN for a head that does not see the row, or the
// standardised target.
func (st *streamState) targets(t []float64, y float64) {
	if st.reg {
		t[0] = (y - st.yMean) / st.ySD
		return
	}
	k := int(y)
	switch {
	case st.nh == 1:
		t[0] = -1
		if k == 1 {
			t[0] = 1
		}
	case st.scheme == model.OneVsOne:
		for h := range t {
			a, b := svm.PairClasses(h, st.nclass)
			switch k {
			case a:
				t[h] = 1
			case b:
				t[h] = -1
			default:
				t[h] = math.NaN()
			}
		}
	default:
		for h := range t {
			t[h] = -1
			if h == k {
				t[h] = 1
			}
		}
	}
}

// run steps the heads over the new rows: the scaled dense rows x (the
// network's features for an NSVM) or ds's sparse rows. An NSVM's support
// vectors are rows too: their features are recomputed under the moved
// network, and each pass steps over them as over the new rows (Algorithm
// 2's recomputed features, on the support set), so that their coefficients
// follow the new features. still, if not nil, holds the new rows' features
// under a network that took no steps: the support vectors' features have
// not moved either.
func (st *streamState) run(ctx context.Context, m *model.Model, ds *data.Dataset, x []float32, y []float64, c *ContinueConfig, rng *rand.Rand, start time.Time, still []float32) ([]float32, error) {
	n := ds.N
	z, zd := x, ds.D
	// The support vectors to step over again: their keys, features,
	// inputs and classes.
	var keys []int64
	var pz, pin []float32
	var pcls []int32
	if m.Net != nil {
		zd = m.Net.OutSize()
		z = still
		if z == nil {
			z = make([]float32, n*zd)
			m.Net.Features(z, x, n)
		}
		if k := st.kern; k != nil && k.Len() > 0 && still == nil {
			pz = make([]float32, k.Len()*zd)
			m.Net.Features(pz, k.Inputs(), k.Len())
			k.SetInputs(pz)
			if !st.reg {
				keys, pin, pcls = slices.Clone(k.Keys()), slices.Clone(k.Inputs()), slices.Clone(k.Labels())
			}
		}
		if nonFinite(z) || nonFinite(pz) {
			return nil, fmt.Errorf("nsvm: continue: the network's features are not finite after its steps on the new rows")
		}
	}
	if st.kern != nil {
		st.kern.Fit()
	}
	t := make([]float64, st.nh)
	epochs := max(1, c.Epochs)
	np := len(keys)
	total, done := epochs*(n+np), 0
	var rowKey []int64 // the key of each new row's support vector, if it is one
	if st.kern != nil {
		rowKey = make([]int64, n)
		for i := range rowKey {
			rowKey[i] = -1
		}
	}
	for range epochs {
		for _, i := range rng.Perm(n + np) {
			if st.kern != nil && done == total/2 {
				// The model is the mean of the second half's iterates.
				st.kern.StartAverage()
			}
			if done%256 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				if c.Progress != nil && done%4096 == 0 {
					c.Progress(FitProgress{Stage: "continue", Done: done, Total: total, Elapsed: time.Since(start)})
				}
			}
			done++
			if i >= n {
				// A support vector of the call's start, stepped again.
				p := i - n
				if pcls[p] < 0 {
					continue
				}
				st.targets(t, float64(pcls[p]))
				st.kern.Step(pz[p*zd:(p+1)*zd], pin[p*st.din:(p+1)*st.din], pcls[p], t, 1, keys[p])
				continue
			}
			st.targets(t, y[i])
			w := 1.0
			if ds.W != nil {
				w = ds.W[i]
			}
			if st.lin != nil {
				var v data.Vec
				if ds.Sparse != nil {
					v = ds.Sparse.Row(i)
				} else {
					v = data.Dense(z[i*zd : (i+1)*zd])
				}
				st.lin.Step(v, t, w)
				continue
			}
			var in []float32
			label := int32(y[i])
			if st.din > 0 {
				in = x[i*st.din : (i+1)*st.din]
			}
			if st.reg {
				label = 0
			}
			rowKey[i] = st.kern.Step(z[i*zd:(i+1)*zd], in, label, t, w, rowKey[i])
		}
	}
	if c.Progress != nil {
		c.Progress(FitProgress{Stage: "continue", Done: total, Total: total, Elapsed: time.Since(start)})
	}
	return z, nil
}

// store writes the continued heads and their state into m.
func (st *streamState) store(m *model.Model, c *ContinueConfig) {
	old := heads(m)
	hs := make([]*svm.Model, st.nh)
	ts := make([]string, st.nh)
	for h := range hs {
		var hm *svm.Model
		var hd svm.BudgetHead
		if st.lin != nil {
			hm, hd = st.lin.Model(h), st.lin.Head(h)
		} else {
			hm, hd = st.kern.Model(h), st.kern.Head(h)
		}
		hm.Kernel, hm.Neg, hm.Pos = old[h].Kernel, old[h].Neg, old[h].Pos
		hm.Info = old[h].Info
		if st.reg {
			for i := range hm.Coef {
				hm.Coef[i] *= st.ySD
			}
			hm.Bias = st.ySD*hm.Bias + st.yMean
		}
		hs[h] = hm
		ts[h] = strconv.FormatInt(hd.T, 10)
	}
	if m.Multiclass() {
		m.SetHeads(m.Classes, m.Scheme, hs)
	} else {
		m.Head = hs[0]
	}
	m.Info[infoStreamT] = strings.Join(ts, ",")
	m.Info[infoStreamLambda] = fmtG(st.lam)
	if st.kern != nil {
		m.Info[infoBudget] = strconv.Itoa(st.kern.Budget())
		m.Info[infoMaintenance] = svm.BudgetRemove
		if st.kern.Merging() {
			m.Info[infoMaintenance] = svm.BudgetMerge
		}
		m.Info[InfoContinued] = "budgeted kernel pegasos"
		delete(m.Info, "head_restarted")
		if st.restart {
			m.Info["head_restarted"] = "true"
		}
	} else {
		m.Info[InfoContinued] = "linear pegasos"
	}
}

// prototypeRows bounds the rows whose features start the softmax
// objective's temporary head (their class means).
const prototypeRows = 512

// continuePart1 takes the network's steps on the new rows (x scaled, y
// class indices or targets): one pass (ContinueConfig.Epochs) in batches of
// the model's batch size with its objective, optimizer and augmentation,
// at a constant learning rate: ContinueConfig.LR, else the one an earlier
// continuation chose, else the one chooseLR chooses now, whose winning copy
// of the network has taken its pass over four fifths of the rows already
// and takes it over the held-out fifth. It returns the steps taken.
func continuePart1(ctx context.Context, m *model.Model, x []float32, n int, y []float64, c *ContinueConfig, seed uint64, start time.Time, z0 []float32) (int, error) {
	lr := cmp.Or(c.LR, infoFloat(m, infoContinueLR))
	var won *lrTrial
	if lr == 0 {
		var err error
		if lr, won, err = chooseLR(ctx, m, x, n, y, c, seed); err != nil {
			return 0, err
		}
	}
	m.Info[infoContinueLR] = fmtG(lr)
	var progress paper.ProgressFunc
	if c.Progress != nil {
		progress = func(pr paper.Progress) {
			c.Progress(FitProgress{Stage: "continue", Elapsed: time.Since(start), Train: &pr})
		}
	}
	epochs := max(1, c.Epochs)
	if won == nil {
		return part1Steps(ctx, m, m.Net, x, n, y, lr, epochs, seed, progress, z0)
	}
	m.Net = won.net
	steps, err := part1Steps(ctx, m, m.Net, won.xv, len(won.yv), won.yv, lr, epochs, seed^0x76616c, progress, won.zv)
	return won.steps + steps, err
}

// infoContinueLR is the metadata key of the learning rate of an NSVM's
// continued network steps.
const infoContinueLR = "continue_lr"

// part1Steps trains net (m's network or a copy) on the rows x for epochs
// passes at the learning rate lr, as continuePart1 says.
func part1Steps(ctx context.Context, m *model.Model, net *nn.Net, x []float32, n int, y []float64, lr float64, epochs int, seed uint64, progress paper.ProgressFunc, z0 []float32) (int, error) {
	batch := min(infoInt(m, "batch", 64), n)
	if batch < 2 {
		return 0, nil
	}
	opt := cmp.Or(m.Info["optimizer"], "adam")
	if m.Info["optimizer"] == "" && (m.Regression() || nsvmAlg(m.Algorithm) != 4) {
		opt = "sgd"
	}
	oc := paper.OptConfig{Name: opt, LR: lr, WeightDecay: 1e-4}
	if opt == "sgd" {
		oc.Momentum = 0.9
	}
	steps := epochs * ((n + batch - 1) / batch)
	// Part II is the caller's (budgeted Pegasos); TrainPart1 runs Part I.
	cfg := paper.Alg4Config{Config: paper.Config{Lambda: 1e-4, T: steps, Kernel: m.Head.Kernel, Opt: oc}, Batch: batch,
		Objective: m.Info["part1_objective"], Part2: paper.Part2Config{Solver: "smo", C: 1}}
	p := paper.Part1{X: x, N: n, D: m.InSize()}
	if m.Regression() {
		target := cmp.Or(m.Info["target"], paper.TargetRBF)
		ys := make([]float64, n)
		sd := cmp.Or(infoFloat(m, "target_std"), 1)
		for i, v := range y {
			ys[i] = (v - infoFloat(m, "target_mean")) / sd
		}
		p.Target = paper.RegressionTarget(ys, target)
		cfg.Objective = ""
	} else {
		cls := classIndices(y)
		k := len(m.Labels())
		p.Target = paper.ClassTarget(cls, k)
		if cfg.Objective == paper.ObjectiveSoftmax {
			// The class means of the features of (a sample of) the rows.
			idx := rand.New(seedPCG(seed)).Perm(n)[:min(n, prototypeRows)]
			z, cs := sampleFeatures(net, x, m.InSize(), idx, cls, z0)
			p.SoftmaxW, p.SoftmaxB = paper.SoftmaxPrototypes(z, cs, k, net.OutSize())
		}
	}
	if a := m.Info["augment"]; a != "" && a != "none" && len(net.InShape()) == 3 {
		black := scaler{mean: m.Mean, std: m.Std}.black(m.InSize())
		p.Augment = part1Arm{augment: a}.augmenter(net.InShape(), black)
	}
	o := paper.Options{Seed: seed ^ 0x7061727431, Progress: progress}
	if err := paper.TrainPart1(ctx, net, p, cfg, o); err != nil {
		return 0, fmt.Errorf("nsvm: continue: the network's steps: %w", err)
	}
	return steps, nil
}

func classIndices(y []float64) []int {
	cls := make([]int, len(y))
	for i, v := range y {
		cls[i] = int(v)
	}
	return cls
}

// sampleFeatures returns the features under net of the rows idx of x (d
// values a row) and their classes; z0, if not nil, holds every row's
// features under net already.
func sampleFeatures(net *nn.Net, x []float32, d int, idx, cls []int, z0 []float32) ([]float32, []int) {
	cs := make([]int, len(idx))
	for j, i := range idx {
		cs[j] = cls[i]
	}
	if z0 != nil {
		return rowsAt(z0, net.OutSize(), idx), cs
	}
	z := make([]float32, len(idx)*net.OutSize())
	net.Features(z, rowsAt(x, d, idx), len(idx))
	return z, cs
}

// lrCandidates are the fractions of the first fit's learning rate that
// chooseLR tries, the first fit's own (the incumbent) first.
var lrCandidates = []float64{1, 0.1, 0.01}

// chooseLR chooses the learning rate of a classifier's continued network
// steps by validation on the first continuation's rows: a copy of the
// network takes the steps on four fifths of them at each candidate rate
// (the first fit's, a tenth and a hundredth of it: the first fit ran its
// schedule to its end, where its full rate may throw the network off the
// minimum it found), and the rate whose features give the held-out fifth
// the smallest mean loss of the softmax over their class means wins (the
// softmax objective's loss, paper.SoftmaxLoss; ties go to the larger rate).
// The loss, not the count of errors: on a fifth of a 2000-row chunk the
// rates' copies err on a handful of rows each (8, 10 and 14 of 400 on
// MNIST's second chunk), too few to tell them apart, where the loss
// weighs every row. It returns the rate and the winning copy (nil when it
// trains none: a regressor keeps the first fit's rate, and so do fewer
// than 50 rows).
func chooseLR(ctx context.Context, m *model.Model, x []float32, n int, y []float64, c *ContinueConfig, seed uint64) (float64, *lrTrial, error) {
	lr0 := cmp.Or(infoFloat(m, "lr"), 1e-3)
	if m.Regression() || n < 50 {
		return lr0, nil, nil
	}
	d, k := m.InSize(), len(m.Labels())
	perm := rand.New(seedPCG(seed ^ 0x6c72)).Perm(n)
	nv := n / 5
	val, fit := perm[:nv], perm[nv:]
	xf, yf := rowsAt(x, d, fit), labelsAt(y, fit)
	xv, yv := rowsAt(x, d, val), labelsAt(y, val)
	cf, cv := classIndices(yf), classIndices(yv)
	var best *lrTrial
	bestLR, bestLoss := lr0, math.Inf(1)
	for _, f := range lrCandidates {
		net := m.Net.Clone()
		net.SetRand(rand.New(seedPCG(seed ^ 0x6e6574)))
		steps, err := part1Steps(ctx, m, net, xf, len(fit), yf, lr0*f, max(1, c.Epochs), seed, nil, nil)
		if err != nil {
			return 0, nil, err
		}
		zf, zv := make([]float32, len(fit)*net.OutSize()), make([]float32, nv*net.OutSize())
		net.Features(zf, xf, len(fit))
		net.Features(zv, xv, nv)
		w, b := paper.SoftmaxPrototypes(zf, cf, k, net.OutSize())
		if loss := paper.SoftmaxLoss(zv, cv, w, b); loss < bestLoss {
			bestLR, bestLoss = lr0*f, loss
			best = &lrTrial{net: net, xv: xv, yv: yv, zv: zv, steps: steps}
		}
	}
	return bestLR, best, nil
}

// lrTrial is chooseLR's winning copy of the network: trained in steps
// steps on the rows not held out, the held-out rows xv of labels yv
// having the features zv under it.
type lrTrial struct {
	net    *nn.Net
	xv, zv []float32
	yv     []float64
	steps  int
}

// labelsAt returns the labels y[i] of the rows idx.
func labelsAt(y []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for j, i := range idx {
		out[j] = y[i]
	}
	return out
}

// checkContinued returns ErrChanceLevel when the continued model is no
// better on the new rows than predicting their most frequent class (a
// regressor: their mean). z holds the rows as the heads see them (an
// NSVM's features, the scaled rows of a classical model; nil for sparse
// rows).
func checkContinued(m *model.Model, st *streamState, ds *data.Dataset, z []float32, y []float64) error {
	n := ds.N
	pred := make([]float64, n)
	if z == nil {
		p, err := m.PredictDataset(ds, false)
		if err != nil {
			return err
		}
		copy(pred, p.Labels)
	} else {
		st.labels(pred, m, z, n)
	}
	for _, v := range pred {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("nsvm: continue: the continued model's decisions are not finite")
		}
	}
	if m.Regression() {
		var mean, ssTot, ssRes float64
		for _, v := range y {
			mean += v / float64(n)
		}
		for i, v := range y {
			ssTot += (v - mean) * (v - mean)
			ssRes += (v - pred[i]) * (v - pred[i])
		}
		if n > 2 && !(ssRes < ssTot) {
			return fmt.Errorf("%w: R² %.3f ≤ 0 on the new rows after continuing (%s)", ErrChanceLevel, 1-ssRes/ssTot, m.Algorithm)
		}
		return nil
	}
	classes := m.Labels()
	cnt := make([]int, len(classes))
	ok := 0
	for i, v := range y {
		cnt[int(v)]++
		if pred[i] == classes[int(v)] {
			ok++
		}
	}
	major := float64(slices.Max(cnt)) / float64(n)
	if major < 1 && float64(ok)/float64(n) <= chanceMargin(major, n) {
		return fmt.Errorf("%w: accuracy %.1f %% on the new rows after continuing is no better than always predicting their most frequent class (%.1f %%) (%s)",
			ErrChanceLevel, 100*float64(ok)/float64(n), 100*major, m.Algorithm)
	}
	return nil
}

// labels sets pred to the labels m's heads give the n feature rows z: a
// classifier's kernel heads as the stream state holds them (they share
// their support vectors, and one kernel row a row serves them all), else
// the model's heads one by one. Before the steps the state holds the
// model's heads; after them, the heads it stores into the model.
func (st *streamState) labels(pred []float64, m *model.Model, z []float32, n int) {
	if st.kern != nil && !st.reg && !st.restart {
		dec := make([]float64, n*st.nh)
		st.kern.Decisions(dec, z, n)
		m.LabelsFrom(pred, dec, n)
		return
	}
	dec := make([]float64, n*len(heads(m)))
	m.HeadDecisionsOn(dec, z, n)
	m.LabelsFrom(pred, dec, n)
}
