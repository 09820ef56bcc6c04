package model

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/internal/safetensors"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

// Multiclass schemes: how the binary SVM heads of a multiclass model are
// arranged.
const (
	// OneVsRest fits one head per class c, class c (+1) against all others
	// (−1); the prediction is the class whose head gives the largest
	// decision value.
	OneVsRest = "ovr"
	// OneVsOne fits one head per pair of classes i < j (in the order
	// (0,1), (0,2), …, (1,2), …, as LIBSVM), class i (+1) against class j
	// (−1), on the points of those two classes only; the prediction is the
	// class with the most votes, ties going to the smaller class index (for
	// a model read from a LIBSVM file, to the class the file lists first,
	// as svm-predict: see VoteOrder).
	OneVsOne = "ovo"
)

// pairOf returns the classes (i, j), i < j, of one-vs-one head q
// (svm.PairClasses: LIBSVM's order).
func pairOf(q, c int) (int, int) { return svm.PairClasses(q, c) }

// SetHeads makes m a multiclass model with the given class labels (in
// increasing order), scheme and heads (numHeads(scheme, len(classes)) of
// them, all on features of the same size). Head is set to heads[0], so that
// the sizes and the kernel are at hand as for a binary model.
func (m *Model) SetHeads(classes []float64, scheme string, heads []*svm.Model) {
	if len(classes) < 2 || len(heads) != HeadCount(scheme, len(classes)) {
		panic(fmt.Sprintf("nsvm: SetHeads: %d heads for %d classes (%s)", len(heads), len(classes), scheme))
	}
	for _, h := range heads[1:] {
		if h.D != heads[0].D || h.Kernel != heads[0].Kernel {
			panic("nsvm: SetHeads: the heads differ in feature size or kernel")
		}
	}
	m.Classes, m.Scheme, m.Heads = classes, scheme, heads
	m.Head = heads[0]
}

// Multiclass reports whether m is a multiclass model (Heads set).
func (m *Model) Multiclass() bool { return m.Heads != nil }

// NumSV returns the number of distinct support vectors over all the heads,
// as svm-train's total_sv counts them: a point that is a support vector of
// several heads counts once.
func (m *Model) NumSV() int {
	if !m.Multiclass() {
		return m.Head.NSV
	}
	return svm.DistinctSupport(m.Heads)
}

// heads is the group of a multiclass model's heads (nil when grouping
// gains nothing) with the heads it was made for.
type heads struct {
	of []*svm.Model
	g  *svm.Group
}

// headGroup returns the svm.Group of m's heads, which evaluates each
// distinct support vector once a row (LIBSVM's prediction does the same),
// or nil when the heads share no support vector. It is made on first use
// and again if Heads has been replaced since.
func (m *Model) headGroup() *svm.Group {
	if c := m.group.Load(); c != nil && slices.Equal(c.of, m.Heads) {
		return c.g
	}
	c := &heads{of: slices.Clone(m.Heads), g: svm.NewGroup(m.Heads)}
	m.group.Store(c)
	return c.g
}

// Labels returns the class labels m predicts: Classes for a multiclass
// model, {Head.Neg, Head.Pos} for a binary one.
func (m *Model) Labels() []float64 {
	if m.Multiclass() {
		return m.Classes
	}
	return []float64{m.Head.Neg, m.Head.Pos}
}

// HeadDecisions sets dst (rows × len(Heads), row-major) to every head's
// decision value on the rows of x. For a binary model it is DecisionBatch.
func (m *Model) HeadDecisions(dst []float64, x []float32, rows int) {
	if !m.Multiclass() {
		m.DecisionBatch(dst[:rows], x, rows)
		return
	}
	nh := len(m.Heads)
	if len(dst) < rows*nh {
		panic(fmt.Sprintf("nsvm: HeadDecisions: len(dst) = %d, want %d", len(dst), rows*nh))
	}
	z := make([]float32, rows*m.OutSize())
	m.Features(z, x, rows)
	m.HeadDecisionsOn(dst, z, rows)
}

// HeadDecisionsOn sets dst (rows × heads) to the heads' decisions on the
// feature vectors z (rows × OutSize): HeadDecisions after the network.
func (m *Model) HeadDecisionsOn(dst []float64, z []float32, rows int) {
	if !m.Multiclass() {
		m.Head.DecisionBatch(dst[:rows], z, rows)
		return
	}
	if g := m.headGroup(); g != nil {
		g.Decisions(dst[:rows*len(m.Heads)], z[:rows*m.OutSize()], rows)
		return
	}
	nh := len(m.Heads)
	col := make([]float64, rows)
	for h, hd := range m.Heads {
		hd.DecisionBatch(col, z, rows)
		for i, v := range col {
			dst[i*nh+h] = v
		}
	}
}

// ClassScores sets dst (rows × len(Labels()), row-major) to the score of
// every class: the head's decision value for one-vs-rest, the number of
// votes for one-vs-one, and (−g, g) for a binary model. The predicted class
// is the first one with the largest score, except that a binary model
// predicts Pos at g = 0.
func (m *Model) ClassScores(dst []float64, x []float32, rows int) {
	m.scoresFrom(dst, m.classDecisions("ClassScores", dst, x, rows), rows)
}

// classDecisions returns the heads' decision values on the rows x for
// fn, which sets dst to a value per class and row: it panics, naming fn,
// when dst is shorter.
func (m *Model) classDecisions(fn string, dst []float64, x []float32, rows int) []float64 {
	if nc := len(m.Labels()); len(dst) < rows*nc {
		panic(fmt.Sprintf("nsvm: %s: len(dst) = %d, want %d", fn, len(dst), rows*nc))
	}
	dec := make([]float64, rows*m.numHeads())
	m.HeadDecisions(dec, x, rows)
	return dec
}

// scoresFrom sets dst (rows × classes) to the class scores of ClassScores
// from the head decisions dec (rows × heads).
func (m *Model) scoresFrom(dst, dec []float64, rows int) {
	if !m.Multiclass() {
		for i, v := range dec[:rows] {
			dst[2*i], dst[2*i+1] = -v, v
		}
		return
	}
	nh, nc := len(m.Heads), len(m.Classes)
	if m.Scheme != OneVsOne {
		copy(dst, dec[:rows*nh])
		return
	}
	clear(dst[:rows*nc])
	zn := m.ZeroToNegative()
	for i := 0; i < rows; i++ {
		for q := 0; q < nh; q++ {
			a, b := pairOf(q, nc)
			if positiveSide(dec[i*nh+q], zn != nil && zn[q]) {
				dst[i*nc+a]++
			} else {
				dst[i*nc+b]++
			}
		}
	}
}

// ZeroToNegative reports, head by head, whether a decision of exactly 0
// counts for the head's negative side (a binary model's Neg, the second
// class b of a one-vs-one pair (a, b)) instead of its positive side. For
// a model read from a LIBSVM model file it is the class the file lists
// later, as svm-predict counts a pair's vote for its first class only
// where the decision is > 0 (and a one-class model's +1 only there); nil
// (every zero for the positive side, ≥ 0) for nsvm's own models and for
// regression.
func (m *Model) ZeroToNegative() []bool {
	if !m.FromLIBSVM() || m.Regression() {
		return nil
	}
	if m.libsvmLabels == nil {
		// One-class: +1 where the decision is > 0.
		if m.Multiclass() {
			return nil
		}
		return []bool{true}
	}
	nc := len(m.Labels())
	pos := make([]int, nc) // pos[c]: class c's place in the file
	for k, c := range m.libsvmLabels {
		pos[c] = k
	}
	if !m.Multiclass() {
		return []bool{pos[1] < pos[0]}
	}
	if m.Scheme != OneVsOne {
		return nil
	}
	zn := make([]bool, len(m.Heads))
	for q := range zn {
		a, b := pairOf(q, nc)
		zn[q] = pos[a] < pos[b]
	}
	return zn
}

// positiveSide reports whether a head's decision v counts for its
// positive side: v > 0, or v = 0 unless zeroNeg (ZeroToNegative); NaN
// counts for the negative side.
func positiveSide(v float64, zeroNeg bool) bool { return v > 0 || v == 0 && !zeroNeg }

// PredictBatch sets dst[i] to the predicted class label of row i of x (the
// predicted value for a regressor).
func (m *Model) PredictBatch(dst []float64, x []float32, rows int) {
	dec := make([]float64, rows*m.numHeads())
	m.HeadDecisions(dec, x, rows)
	m.LabelsFrom(dst, dec, rows)
}

// LabelsFrom sets dst[i] to the prediction of row i from the head
// decisions dec (rows × heads).
func (m *Model) LabelsFrom(dst, dec []float64, rows int) {
	switch {
	case m.Regression():
		copy(dst[:rows], dec[:rows])
	case !m.Multiclass():
		zn := m.ZeroToNegative()
		zeroNeg := zn != nil && zn[0]
		for i, v := range dec[:rows] {
			dst[i] = m.Head.Neg
			if positiveSide(v, zeroNeg) {
				dst[i] = m.Head.Pos
			}
		}
	default:
		// Ties (one-vs-one votes) go to the class listed first: in a
		// LIBSVM model file's order for a model read from one, as
		// svm-predict breaks them, else the smaller class.
		nc := len(m.Classes)
		s := make([]float64, rows*nc)
		m.scoresFrom(s, dec, rows)
		order := m.libsvmOrder()
		for i := 0; i < rows; i++ {
			dst[i] = m.Classes[argmaxIn(s[i*nc:(i+1)*nc], order)]
		}
	}
}

// VoteOrder returns the indices of the classes (Labels()) in the order
// that breaks ties of the one-vs-one vote: the first listed wins. It is the
// order of the classes in the LIBSVM model file a model was read from (as
// svm-predict breaks ties), else the classes' own.
func (m *Model) VoteOrder() []int { return slices.Clone(m.libsvmOrder()) }

// Prediction is everything a model computes for a batch of rows, from one
// pass of the network and the heads (see Model.Predictions).
type Prediction struct {
	Rows int
	// Labels[i] is the predicted class label of row i (the predicted value
	// for a regressor).
	Labels []float64
	// Decisions holds rows × NumHeads() head decision values: g(x) for a
	// binary model or a regressor, one value per head otherwise.
	Decisions []float64
	// Scores holds rows × len(Labels()) class scores (see ClassScores);
	// nil for a regressor.
	Scores []float64
	// Probabilities holds rows × len(Labels()) class probabilities when
	// they were asked for and the model is calibrated, else nil.
	Probabilities []float64
}

// NumHeads returns the number of binary heads (1 for a binary model or a
// regressor).
func (m *Model) NumHeads() int { return m.numHeads() }

// Predictions computes the labels, head decisions, class scores and
// (when probabilities is set and the model is calibrated) the class
// probabilities of the rows of x in one pass. The values equal those of
// PredictBatch, HeadDecisions, ClassScores and Probabilities, and each row's
// values do not depend on the other rows.
func (m *Model) Predictions(x []float32, rows int, probabilities bool) Prediction {
	p := Prediction{Rows: rows, Labels: make([]float64, rows), Decisions: make([]float64, rows*m.numHeads())}
	m.HeadDecisions(p.Decisions, x, rows)
	m.LabelsFrom(p.Labels, p.Decisions, rows)
	if m.Regression() {
		return p
	}
	nc := len(m.Labels())
	p.Scores = make([]float64, rows*nc)
	m.scoresFrom(p.Scores, p.Decisions, rows)
	if probabilities && m.Calibrated() {
		p.Probabilities = make([]float64, rows*nc)
		m.probabilitiesFrom(p.Probabilities, p.Decisions, rows)
	}
	return p
}

// argmax returns the index of the first largest value (NaN never wins).
func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] || math.IsNaN(v[best]) && !math.IsNaN(x) {
			best = i
		}
	}
	return best
}

// argmaxIn is argmax with the indices of v taken in the given order: the
// first largest in that order wins.
func argmaxIn(v []float64, order []int) int {
	best := order[0]
	for _, i := range order[1:] {
		if v[i] > v[best] || math.IsNaN(v[best]) && !math.IsNaN(v[i]) {
			best = i
		}
	}
	return best
}

// maxHeads bounds the number of heads a model file may declare.
const maxHeads = 1 << 16

func isHeadKey(k string) bool {
	return k == "classes" || k == "multiclass" || k == "heads" || strings.HasPrefix(k, "head.")
}

// encodeHeads adds the heads of a multiclass model to a file's metadata
// and tensors.
func (m *Model) encodeHeads(meta map[string]string, ts []safetensors.Tensor) []safetensors.Tensor {
	delete(meta, "bias")
	delete(meta, "label_neg")
	delete(meta, "label_pos")
	cl, _ := json.Marshal(m.Classes)
	meta["classes"] = string(cl)
	meta["multiclass"] = m.Scheme
	meta["heads"] = strconv.Itoa(len(m.Heads))
	for h, hd := range m.Heads {
		p := "head." + strconv.Itoa(h) + "."
		meta[p+"bias"] = strconv.FormatFloat(hd.Bias, 'g', -1, 64)
		ts = hd.EncodeSupport(ts, p)
	}
	return ts
}

// decodeHeads reads the heads of a multiclass model file whose features
// have n values, into a new Model without network, standardisation or Info.
func decodeHeads(f *safetensors.File, ks kernel.Spec, n int) (*Model, error) {
	md := f.Metadata
	var classes []float64
	if err := json.Unmarshal([]byte(md["classes"]), &classes); err != nil {
		return nil, fmt.Errorf("nsvm: bad classes %q", md["classes"])
	}
	if len(classes) < 2 || len(classes) > maxHeads {
		return nil, fmt.Errorf("nsvm: a multiclass model needs 2 to %d classes, the file has %d", maxHeads, len(classes))
	}
	for i, c := range classes {
		if math.IsNaN(c) || math.IsInf(c, 0) || i > 0 && !(c > classes[i-1]) {
			return nil, fmt.Errorf("nsvm: classes %s must be finite and increasing", md["classes"])
		}
	}
	scheme := md["multiclass"]
	if scheme != OneVsRest && scheme != OneVsOne {
		return nil, fmt.Errorf("nsvm: unknown multiclass scheme %q", scheme)
	}
	nh := HeadCount(scheme, len(classes))
	if nh > maxHeads || md["heads"] != strconv.Itoa(nh) {
		return nil, fmt.Errorf("nsvm: %s with %d classes needs %d heads, the file declares %q", scheme, len(classes), nh, md["heads"])
	}
	heads := make([]*svm.Model, nh)
	for h := range heads {
		p := "head." + strconv.Itoa(h) + "."
		hd := &svm.Model{Kernel: ks, D: n, Neg: -1, Pos: 1}
		if err := hd.DecodeSupport(f, p); err != nil {
			return nil, fmt.Errorf("nsvm: head %d: %w", h, err)
		}
		var err error
		hd.Bias, err = strconv.ParseFloat(md[p+"bias"], 64)
		if err != nil || math.IsNaN(hd.Bias) || math.IsInf(hd.Bias, 0) {
			return nil, fmt.Errorf("nsvm: bad %sbias %q", p, md[p+"bias"])
		}
		heads[h] = hd
	}
	m := &Model{Info: map[string]string{}}
	m.SetHeads(classes, scheme, heads)
	return m, nil
}

// numHeads returns the number of binary heads (1 for a binary model).
func (m *Model) numHeads() int {
	if m.Multiclass() {
		return len(m.Heads)
	}
	return 1
}

// HeadCount returns the number of binary heads of a scheme for c classes.
func HeadCount(scheme string, c int) int {
	if scheme == OneVsOne {
		return c * (c - 1) / 2
	}
	return c
}
