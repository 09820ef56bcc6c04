package search

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/internal/metric"
	"github.com/nsvm-go/nsvm/model"
)

// fitData is a data set as Fit sees it: the raw inputs, the input shape,
// and the labels as class indices (classification) or real targets
// (regression).
type fitData struct {
	x     []float32 // N×D, the caller's data (never modified); nil for sparse rows
	sp    *data.CSR // the caller's sparse rows (never modified), or nil
	n, d  int
	shape []int
	task  string
	// classification: classes holds the labels in increasing order and
	// cls[i] the class index of row i.
	classes []float64
	cls     []int
	// names, if not nil, are the names of the labels (data.Dataset.LabelNames).
	names []string
	// columns, if not nil, are the CSV columns (data.Dataset.Columns).
	columns []data.Column
	// labelColumn is the header name of the CSV label column
	// (data.Dataset.LabelColumn).
	labelColumn string
	// regression: the targets.
	y []float64
	// stream, if not nil, is the stream the rows are a sample of (FitStream).
	stream *streamRows
	// taskNote, if not "", says how the task was inferred from integral
	// labels that could be either classes or numbers (Selection.TaskNote,
	// and the errors of a fit the data refuse).
	taskNote string

	// w, if not nil, are the rows' sample weights (data.Dataset.W), and
	// cw, if not nil, the classes' weights (FitConfig.ClassWeight): row i
	// costs w[i]·cw[cls[i]] in training and counts w[i] in validation
	// scores.
	w  []float64
	cw []float64
	// metric is the validation metric (FitConfig.Metric, or the rule of
	// autoMetric), imbalanced whether the classes are imbalanced.
	metric     string
	imbalanced bool

	// near holds nearCopies' groups of the sparse rows, computed once for
	// the searches of a fit (see nearGroups).
	nearOnce sync.Once
	near     []int32
}

// nearGroups returns nearCopies' groups of d's sparse rows, computing them
// on the first call: the selection's splits and those of the cross-
// validation for the probability calibration take them from the same rows.
func (d *fitData) nearGroups(seed uint64, workers int) []int32 {
	d.nearOnce.Do(func() { d.near = nearCopies(d.sp, seed, workers) })
	return d.near
}

// prepare checks ds and cfg against each other and maps the labels.
func prepare(ds *data.Dataset, c *FitConfig) (*fitData, error) {
	if ds == nil {
		return nil, fmt.Errorf("%w: no data set", model.ErrBadData)
	}
	if err := ds.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrBadData, err)
	}
	d := &fitData{x: ds.X, sp: ds.Sparse, n: ds.N, d: ds.D, shape: ds.InputShape(), columns: ds.Columns, labelColumn: ds.LabelColumn, w: ds.W}
	if ds.W != nil && slices.Contains(unweightedSolvers, string(c.Algorithm)) {
		return nil, configErr("%s takes no sample weights; train without them or with another algorithm (smo, linear, pegasos, an NSVM)", c.Algorithm)
	}
	if c.InShape != nil {
		if prodInts(c.InShape) != ds.D {
			return nil, configErr("the input shape %v has %d values, the data has %d per row", c.InShape, prodInts(c.InShape), ds.D)
		}
		d.shape = slices.Clone(c.InShape)
	}
	d.task = string(c.Task)
	if ds.LabelNames != nil {
		// Named labels are classes.
		if d.task == model.Regression {
			return nil, fmt.Errorf("%w: the labels are names (%s); regression needs numeric targets", model.ErrBadData, errmsg.List(ds.LabelNames))
		}
		d.task = model.Classification
		d.names = ds.LabelNames
	}
	cls := ds.Classes()
	fractional, integral := -1, 0 // a row whose label is not an integer; the integral labels
	for _, v := range cls {
		switch {
		case v == math.Trunc(v):
			integral++
		case fractional < 0:
			fractional = slices.Index(ds.Y, v)
		}
	}
	if d.task == "" {
		few := len(cls) <= max(2, ds.N/5)
		switch {
		case few && fractional >= 0 && integral > 0:
			// As few distinct values as classes have, mostly integers but
			// one not: a typo in a class label as likely as a target.
			return nil, fmt.Errorf("%w: the labels look like classes (%d distinct values in %d rows), but row %d's label %g is not an integer; fix it, or set the task to regression (--task regression) to regress on them", model.ErrBadData, len(cls), ds.N, fractional+1, ds.Y[fractional])
		case few && fractional < 0:
			d.task = model.Classification
		default:
			d.task = model.Regression
		}
		d.taskNote = inferredTask(d.task, cls, ds.N, fractional < 0)
	}
	if d.task == model.Classification && (c.Epsilon != nil || c.Target != "") {
		return nil, configErr("ε and the regression target kernel apply to regression; the labels are class labels (set the task to regression to regress on them)")
	}
	if d.task == model.Regression {
		if ds.N < 2 {
			return nil, fmt.Errorf("%w: regression needs at least 2 points, the data has %d", model.ErrBadData, ds.N)
		}
		if len(cls) == 1 {
			return nil, fmt.Errorf("%w: all %d targets are %g; there is nothing to regress", model.ErrBadData, ds.N, cls[0])
		}
		for i, v := range ds.Y {
			if math.Abs(v) > math.MaxFloat32 {
				// The solvers compute in float32 where they can; their
				// squares and sums would overflow long before float64's end.
				return nil, fmt.Errorf("%w: row %d's target %g is too large: regression targets must lie within ±%.3g (float32's range); rescale them", model.ErrBadData, i+1, v, math.MaxFloat32)
			}
		}
		d.y = slices.Clone(ds.Y)
		if c.ClassWeight != "" {
			return nil, configErr("class weights apply to classification; the labels are regression targets")
		}
		if ds.W != nil {
			return nil, configErr("sample weights apply to classification here: the SVR solvers take no weights")
		}
		switch c.Metric {
		case "", MetricRMSE:
			d.metric = MetricRMSE
		default:
			return nil, configErr("the metric %s applies to classification; regression is scored by rmse", c.Metric)
		}
		return d, nil
	}
	if fractional >= 0 {
		return nil, fmt.Errorf("%w: label %v (row %d) is not an integer; a classifier needs integral class labels (or train a regressor)", model.ErrBadData, ds.Y[fractional], fractional+1)
	}
	if len(cls) < 2 {
		if d.names != nil {
			return nil, fmt.Errorf("%w: only one class (%q) in the data; a classifier needs two or more", model.ErrBadData, d.names[int(cls[0])])
		}
		return nil, fmt.Errorf("%w: only one class (label %v) in the data; a classifier needs two or more", model.ErrBadData, cls[0])
	}
	d.classes = cls
	d.cls = make([]int, ds.N)
	for i, v := range ds.Y {
		d.cls[i], _ = slices.BinarySearch(cls, v)
	}
	if err := d.weighClasses(c); err != nil {
		return nil, err
	}
	return d, nil
}

// inferredTask says how a task inferred from the labels read them when
// they were integers that could as well be classes as numbers (more than
// two distinct values: a rating, a count, a year), and how to read them
// the other way; "" otherwise.
func inferredTask(task string, cls []float64, n int, integral bool) string {
	if !integral || len(cls) <= 2 {
		return ""
	}
	if task == model.Classification {
		return fmt.Sprintf("the labels are taken as %d classes (integers from %g to %g, at most one value per 5 rows); --task regression fits them as numbers", len(cls), cls[0], cls[len(cls)-1])
	}
	return fmt.Sprintf("the labels are fitted as numbers (%d distinct integers from %g to %g in %d rows, more than one per 5 rows); --task classification takes them as classes", len(cls), cls[0], cls[len(cls)-1], n)
}

// imbalanceRatio is the share of its balanced size 1/K below which the
// smallest class makes a data set imbalanced when the largest class holds
// at least majorityShare of the rows (see weighClasses).
const (
	imbalanceRatio = 0.2
	majorityShare  = 0.5
)

// weighClasses resolves the class weights and the validation metric of a
// classification problem.
//
// The rule for imbalanced classes (for a solver that takes no weights,
// unweightedSolvers, an error unless ClassWeight is none): when the
// smallest class holds less than a fifth of its balanced share of the
// (weighted) rows, N/(5K), while the largest holds at least half of them —
// a majority that a classifier can learn to predict everywhere (two
// classes: the smaller under 10 %) — and the configuration leaves them
// open, the classes are weighed "balanced" (N/(K·N_c), as scikit-learn's
// class_weight="balanced") and the selection scores ROC AUC (two classes)
// or balanced accuracy (more): accuracy there rewards predicting the
// majority, which is what "learned nothing" means.
// Milder imbalance (a quarter positives, as in census income data) keeps
// equal weights and accuracy, whose models it serves well.
func (d *fitData) weighClasses(c *FitConfig) error {
	counts := make([]float64, d.nclass())
	for i, k := range d.cls {
		counts[k] += d.weight(i)
	}
	var total float64
	for _, v := range counts {
		total += v
	}
	d.imbalanced = slices.Min(counts) < imbalanceRatio*total/float64(len(counts)) && slices.Max(counts) >= majorityShare*total
	spec := c.ClassWeight
	if spec == "" && d.imbalanced {
		if slices.Contains(unweightedSolvers, string(c.Algorithm)) {
			return fieldErr("ClassWeight", "none trains %s on the rows as they are: give it, or another algorithm (the classes are imbalanced, the smallest holding %.1f %% of the rows, and %s takes no class weights)",
				c.Algorithm, 100*slices.Min(counts)/total, c.Algorithm)
		}
		spec = ClassWeightBalanced
	}
	var err error
	if d.cw, err = parseClassWeight(spec, d.classes, d.names, counts); err != nil {
		return err
	}
	d.metric = string(c.Metric)
	switch {
	case d.metric == MetricRMSE:
		return configErr("rmse scores regression; the labels are class labels (set the task to regression to regress on them)")
	case d.metric == MetricROCAUC && d.nclass() != 2:
		return configErr("roc_auc scores two classes; the data have %d (use balanced_accuracy, f1 or accuracy)", d.nclass())
	case d.metric != "":
	case d.imbalanced && d.nclass() == 2:
		d.metric = MetricROCAUC
	case d.imbalanced:
		d.metric = MetricBalancedAccuracy
	default:
		d.metric = MetricAccuracy
	}
	return nil
}

// weight returns row i's sample weight (1 without weights).
func (d *fitData) weight(i int) float64 {
	if d.w == nil {
		return 1
	}
	return d.w[i]
}

// cost returns row i's training weight: its sample weight times its
// class's weight.
func (d *fitData) cost(i int) float64 {
	w := d.weight(i)
	if d.cw != nil && d.cls != nil {
		w *= d.cw[d.cls[i]]
	}
	return w
}

// weighted reports whether training rows carry weights.
func (d *fitData) weighted() bool { return d.w != nil || d.cw != nil }

// costs returns the training weights of the rows idx (nil when unweighted).
func (d *fitData) costs(idx []int) []float32 {
	if !d.weighted() {
		return nil
	}
	w := make([]float32, len(idx))
	for k, i := range idx {
		w[k] = float32(d.cost(i))
	}
	return w
}

// evalRows returns the validation view of the rows idx: classes or
// targets and sample weights.
func (d *fitData) evalRows(idx []int) metric.Rows {
	e := metric.Rows{NC: d.nclass()}
	if d.task == model.Regression {
		e.Y = make([]float64, len(idx))
	} else {
		e.Cls = make([]int, len(idx))
	}
	if d.w != nil {
		e.W = make([]float64, len(idx))
	}
	for k, i := range idx {
		if e.Y != nil {
			e.Y[k] = d.y[i]
		} else {
			e.Cls[k] = d.cls[i]
		}
		if e.W != nil {
			e.W[k] = d.w[i]
		}
	}
	return e
}

// scoreModel scores m on the rows val of d, given as the model's inputs in
// r, by d's metric (larger is better; RMSE negated), and returns the
// per-row losses whose mean is 1 − the score (accuracy, balanced accuracy;
// nil for the others) for paired comparisons.
func (d *fitData) scoreModel(m *model.Model, val []int, r rows) (float64, []float32) {
	p := r.predict(m, false)
	return d.scorePrediction(p, val)
}

// scorePrediction scores a prediction of the rows val (see scoreModel).
func (d *fitData) scorePrediction(p model.Prediction, val []int) (float64, []float32) {
	e := d.evalRows(val)
	if d.task == model.Regression {
		return e.Score(MetricRMSE, nil, p.Labels, nil), rowLosses(d, val, p.Labels)
	}
	pred := make([]int, len(val))
	for k, v := range p.Labels {
		pred[k], _ = slices.BinarySearch(d.classes, v)
		if pred[k] >= len(d.classes) || d.classes[pred[k]] != v {
			pred[k] = -1
		}
	}
	var dec []float64
	if d.metric == MetricROCAUC {
		dec = p.Decisions[:len(val)]
	}
	sc := e.Score(d.metric, pred, nil, dec)
	if math.IsNaN(sc) {
		sc = math.Inf(-1)
	}
	var loss []float32
	switch d.metric {
	case MetricAccuracy, MetricBalancedAccuracy:
		loss = make([]float32, len(val))
		var tot []float64
		if d.metric == MetricBalancedAccuracy {
			tot = make([]float64, d.nclass())
			for k, c := range e.Cls {
				tot[c] += e.Weight(k)
			}
		}
		var sw float64
		for k := range val {
			sw += e.Weight(k)
		}
		present := 0
		for _, t := range tot {
			if t > 0 {
				present++
			}
		}
		for k, c := range e.Cls {
			if pred[k] == c {
				continue
			}
			if tot != nil {
				loss[k] = float32(e.Weight(k) / tot[c] * float64(len(val)) / float64(present))
			} else {
				loss[k] = float32(e.Weight(k) / sw * float64(len(val)))
			}
		}
	}
	return sc, loss
}

func prodInts(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}

// nclass returns the number of classes (0 for regression).
func (d *fitData) nclass() int { return len(d.classes) }

// image reports whether rows are images (C×H×W).
func (d *fitData) image() bool { return len(d.shape) == 3 }

// all returns 0..N−1.
func (d *fitData) all() []int {
	idx := make([]int, d.n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// rows copies the rows idx into a new N'×D matrix.
func (d *fitData) rows(idx []int) []float32 { return rowsAt(d.x, d.d, idx) }

// rowsAt copies the rows idx of the row-major matrix x (w values a row)
// into a new len(idx)×w matrix.
func rowsAt(x []float32, w int, idx []int) []float32 {
	out := make([]float32, len(idx)*w)
	for k, i := range idx {
		copy(out[k*w:(k+1)*w], x[i*w:(i+1)*w])
	}
	return out
}

// classCounts returns the number of rows of each class among idx.
func (d *fitData) classCounts(idx []int) []int {
	cnt := make([]int, d.nclass())
	for _, i := range idx {
		cnt[d.cls[i]]++
	}
	return cnt
}

// split is one validation split: the model is trained on train and scored
// on val.
type split struct{ train, val []int }

// validationSplits returns the splits of the selection: stratified k-fold
// (classification) or shuffled k-fold (regression) for small data, one
// stratified hold-out for large data (see FitConfig.Folds).
func (d *fitData) validationSplits(folds int, rng *rand.Rand) ([]split, string) {
	n := d.n
	if folds == 0 {
		switch {
		case n <= 2000:
			folds = 5
		case n <= 10000:
			folds = 3
		default:
			folds = 1
		}
	}
	// Every class needs a point in every training part and, where it can,
	// in every validation part.
	if d.task == model.Classification {
		minCount := slices.Min(d.classCounts(d.all()))
		if folds > 1 && minCount < folds {
			folds = max(2, minCount)
		}
		if minCount < 2 {
			// A class of one point cannot be validated on; it trains in
			// every split.
			folds = max(folds, 2)
		}
	}
	folds = min(folds, n)
	groups := d.strata(rng)
	if folds == 1 {
		hold := holdoutRows(n)
		var tr, va []int
		for _, g := range groups {
			k := int(math.Round(float64(len(g)) * float64(hold) / float64(n)))
			k = min(k, len(g)-1) // keep one to train on
			va = append(va, g[:k]...)
			tr = append(tr, g[k:]...)
		}
		slices.Sort(tr)
		slices.Sort(va)
		pct := strconv.Itoa(int(math.Round(100*float64(len(va))/float64(n)))) + " %"
		return []split{{tr, va}}, "hold-out " + pct
	}
	// Deal each stratum round-robin over the folds, continuing where the
	// previous stratum stopped, so that fold sizes differ by at most one.
	fold := make([]int, n)
	next := 0
	for _, g := range groups {
		for _, i := range g {
			fold[i] = next
			next = (next + 1) % folds
		}
	}
	out := make([]split, folds)
	for i := 0; i < n; i++ {
		for f := range out {
			if fold[i] == f {
				out[f].val = append(out[f].val, i)
			} else {
				out[f].train = append(out[f].train, i)
			}
		}
	}
	// Drop splits whose training part lacks a class (tiny classes).
	kept := out[:0]
	for _, s := range out {
		if len(s.val) > 0 && (d.task != model.Classification || !slices.Contains(d.classCounts(s.train), 0)) {
			kept = append(kept, s)
		}
	}
	return kept, strconv.Itoa(folds) + "-fold"
}

// holdoutRows is the size of the hold-out split of n rows: a fifth, at
// most 10000.
func holdoutRows(n int) int { return min(10000, max(1, n/5)) }

// strata returns the row indices grouped by class (classification) or as
// one group (regression), each group shuffled.
func (d *fitData) strata(rng *rand.Rand) [][]int {
	var groups [][]int
	if d.task == model.Classification {
		groups = make([][]int, d.nclass())
		for i, c := range d.cls {
			groups[c] = append(groups[c], i)
		}
	} else {
		groups = [][]int{d.all()}
	}
	for _, g := range groups {
		rng.Shuffle(len(g), func(a, b int) { g[a], g[b] = g[b], g[a] })
	}
	return groups
}

// sample returns at most k of idx, stratified by class, in increasing order.
func (d *fitData) sample(idx []int, k int, rng *rand.Rand) []int {
	if len(idx) <= k {
		return idx
	}
	var groups [][]int
	if d.task == model.Classification {
		groups = make([][]int, d.nclass())
		for _, i := range idx {
			groups[d.cls[i]] = append(groups[d.cls[i]], i)
		}
	} else {
		groups = [][]int{slices.Clone(idx)}
	}
	var out []int
	for _, g := range groups {
		rng.Shuffle(len(g), func(a, b int) { g[a], g[b] = g[b], g[a] })
		take := int(math.Round(float64(len(g)) * float64(k) / float64(len(idx))))
		take = min(len(g), max(take, min(len(g), 2)))
		out = append(out, g[:take]...)
	}
	slices.Sort(out)
	return out
}

// scaler maps inputs as the model will: (x − mean)/std per feature.
type scaler struct{ mean, std []float64 }

// fitScaler fits the scaling mode on rows idx.
func (d *fitData) fitScaler(mode string, idx []int) scaler {
	if mode == ScaleNone {
		return scaler{}
	}
	D := d.d
	if mode == ScaleGlobal {
		var s, ss float64
		for _, i := range idx {
			for _, v := range d.x[i*D : (i+1)*D] {
				s += float64(v)
			}
		}
		cnt := float64(len(idx) * D)
		mean := s / cnt
		for _, i := range idx {
			for _, v := range d.x[i*D : (i+1)*D] {
				ss += (float64(v) - mean) * (float64(v) - mean)
			}
		}
		sd := math.Sqrt(ss / cnt)
		if !(sd > 0) || math.IsInf(sd, 0) {
			sd = 1
		}
		sc := scaler{mean: make([]float64, D), std: make([]float64, D)}
		for j := range sc.mean {
			sc.mean[j], sc.std[j] = mean, sd
		}
		return sc
	}
	// The rows in place: a copy of them would be garbage as large as the
	// training rows, next to the scaled copy the caller makes.
	st := data.FitStandardizerRows(d.x, D, idx)
	return scaler{mean: st.Mean, std: st.Std}
}

// apply scales x (rows of D) in place.
func (s scaler) apply(x []float32, D int) {
	if s.mean == nil || D == 0 {
		return
	}
	for lo := 0; lo+D <= len(x); lo += D {
		row := x[lo : lo+D]
		for j, v := range row {
			row[j] = float32((float64(v) - s.mean[j]) / s.std[j])
		}
	}
}

// black returns a row of D zeros (a black image) scaled: the background a
// shifted image's uncovered pixels take; nil without scaling.
func (s scaler) black(D int) []float32 {
	if s.mean == nil {
		return nil
	}
	z := make([]float32, D)
	s.apply(z, D)
	return z
}

// unapply undoes apply on one row (up to rounding).
func (s scaler) unapply(row []float32) {
	if s.mean == nil {
		return
	}
	for j, v := range row {
		row[j] = float32(float64(v)*s.std[j] + s.mean[j])
	}
}

// chanceRows bounds the training rows the chance-level check predicts.
const chanceRows = 20000

// ErrChanceLevel is returned (wrapped) by Fit when the trained classifier is
// no better than always predicting the most frequent class on its own
// training data, or a regressor no better than predicting the mean
// (training R² ≤ 0): the model learned nothing.
var ErrChanceLevel = errors.New("nsvm: the model learned nothing")

// checkLearned scores m on its own training data (a sample of at most
// chanceRows rows) and refuses a model at chance level. On the metric
// accuracy, a classifier must beat always predicting the most frequent
// class, on its training rows and, when a selection scored it (val, on
// valRows rows; NaN and 0 when none did), on the validation rows too: a
// model that fits noise in training but not on held-out rows learned
// nothing. On the other metrics (imbalanced classes), its balanced
// accuracy must beat 1/K, or (two classes) its ROC AUC 1/2 — on the
// training rows, or on the selection's validation rows — by more than
// chance allows.
func (d *fitData) checkLearned(m *model.Model, val float64, valRows int) error {
	valAUC := math.NaN()
	if d.metric == MetricROCAUC {
		valAUC = val
	}
	idx := d.all()
	in := rows{x: d.x, sp: d.sp, n: d.n}
	if d.n > chanceRows {
		idx = d.sample(idx, chanceRows, rand.New(seedPCG(0x6368616e6365)))
		in = d.input(idx)
	}
	n := len(idx)
	p := in.predict(m, false)
	if d.task == model.Regression {
		var mean, ssTot, ssRes float64
		for _, i := range idx {
			mean += d.y[i]
		}
		mean /= float64(n)
		for k, i := range idx {
			ssTot += (d.y[i] - mean) * (d.y[i] - mean)
			ssRes += (d.y[i] - p.Labels[k]) * (d.y[i] - p.Labels[k])
		}
		if !(ssRes < ssTot) {
			return fmt.Errorf("%w: training R² %.3f ≤ 0 (%s); %s", ErrChanceLevel, 1-ssRes/ssTot, m.Algorithm, chanceAdvice(m.Algorithm))
		}
		return nil
	}
	cnt := d.classCounts(idx)
	e := metric.Rows{Cls: make([]int, n), NC: d.nclass()}
	pred := make([]int, n)
	for k, i := range idx {
		e.Cls[k] = d.cls[i]
		pred[k], _ = slices.BinarySearch(d.classes, p.Labels[k])
	}
	if d.metric == MetricAccuracy {
		acc := e.Score(MetricAccuracy, pred, nil, nil)
		major := float64(slices.Max(cnt)) / float64(n)
		if acc <= chanceMargin(major, n) {
			return fmt.Errorf("%w: training accuracy %.1f %% is no better than always predicting the most frequent class (%.1f %%) (%s); %s",
				ErrChanceLevel, 100*acc, 100*major, m.Algorithm, chanceAdvice(m.Algorithm))
		}
		if valRows > 0 && val <= chanceMargin(major, valRows) {
			return fmt.Errorf("%w: validation accuracy %.1f %% on %d held-out rows is no better than always predicting the most frequent class (%.1f %%), though training accuracy is %.1f %% (%s); %s",
				ErrChanceLevel, 100*val, valRows, 100*major, 100*acc, m.Algorithm, chanceAdvice(m.Algorithm))
		}
		return nil
	}
	k := float64(d.nclass())
	bal := e.Score(MetricBalancedAccuracy, pred, nil, nil)
	// Balanced accuracy of a chance classifier: 1/K, with a deviation of
	// about √((1/K)(1−1/K)/n_min)/√K.
	nmin := float64(max(slices.Min(cnt), 1))
	if bal > 1/k+max(0.005, 2*math.Sqrt((1/k)*(1-1/k)/nmin/k)) {
		return nil
	}
	msg := fmt.Sprintf("training balanced accuracy %.3f is no better than chance (%.3f)", bal, 1/k)
	if d.nclass() == 2 {
		auc := metric.AUC(p.Decisions[:n], e.Cls, nil)
		if auc > 0.5+2*metric.AUCNoise(float64(cnt[0]), float64(cnt[1])) {
			return nil
		}
		msg += fmt.Sprintf(", nor is its training ROC AUC %.3f", auc)
		if !math.IsNaN(valAUC) && valRows > 0 {
			// The validation rows' classes in the training proportions.
			n1 := float64(valRows) * float64(cnt[1]) / float64(n)
			if valAUC > 0.5+2*metric.AUCNoise(float64(valRows)-n1, n1) {
				return nil
			}
			msg += fmt.Sprintf(" or its validation ROC AUC %.3f", valAUC)
		}
	}
	return fmt.Errorf("%w: %s (%s); %s, or class weights", ErrChanceLevel, msg, m.Algorithm, chanceAdvice(m.Algorithm))
}

// chanceAdvice says what to try when a model of the algorithm learned
// nothing: for the paper's trainers their training length and rate, for a
// classical solver its kernel and parameters.
func chanceAdvice(algorithm string) string {
	if nsvmAlg(algorithm) > 0 {
		return "try another algorithm, a smaller learning rate or more steps"
	}
	return "try another kernel, C or γ (or leave them to the selection)"
}

// chanceMargin returns the training accuracy at or below which a classifier
// counts as having learned nothing: the majority rate p plus two binomial
// standard deviations √(p(1−p)/n), and at least half a point.
func chanceMargin(p float64, n int) float64 {
	return p + max(0.005, 2*math.Sqrt(p*(1-p)/float64(n)))
}
