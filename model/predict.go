package model

import (
	"fmt"
	"math"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/svm"
)

// rows is a block of n model inputs: dense (x, row-major n×D) or sparse
// (sp).
type rows struct {
	x  []float32
	sp *data.CSR
	n  int
}

// sparseBlockValues bounds the dense values of the block of sparse rows
// made dense at a time for a model that needs dense inputs (a network, or
// a standardiser): 2²² float32 values, 16 MB, at most 256 rows.
const sparseBlockValues = 1 << 22

// headDecisionsRows sets dst (r.n × heads) to the head decisions on the
// rows r. Sparse rows go straight to heads on the inputs (no network, no
// centring) or to a network whose first layer is dense (nn.Net's sparse
// input); otherwise they are made dense a block of at most
// sparseBlockValues values at a time, so that memory stays bounded by the
// block.
func (m *Model) headDecisionsRows(dst []float64, r rows) {
	if r.sp == nil {
		m.HeadDecisions(dst, r.x, r.n)
		return
	}
	nh := m.numHeads()
	if m.Net != nil && m.Mean == nil && m.TestShift == 0 && m.Net.SparseInput() {
		// A network whose first layer is dense takes the sparse rows
		// (unless it averages moved images, which are dense).
		z := make([]float32, r.n*m.OutSize())
		m.Net.FeaturesSparse(z, r.sp)
		m.HeadDecisionsOn(dst, z, r.n)
		return
	}
	if m.Net == nil && m.Mean == nil {
		if m.Multiclass() {
			if g := m.headGroup(); g != nil {
				g.DecisionsCSR(dst[:r.n*nh], r.sp)
				return
			}
		}
		heads := m.Heads
		if heads == nil {
			heads = []*svm.Model{m.Head}
		}
		col := make([]float64, r.n)
		for h, hd := range heads {
			hd.DecisionCSR(col, r.sp)
			for i, v := range col {
				dst[i*nh+h] = v
			}
		}
		return
	}
	d := m.InSize()
	block := max(1, min(256, sparseBlockValues/max(d, 1)))
	buf := make([]float32, block*d)
	for lo := 0; lo < r.n; lo += block {
		hi := min(lo+block, r.n)
		x := buf[:(hi-lo)*d]
		clear(x)
		for i := lo; i < hi; i++ {
			r.sp.Row(i).Scatter(x[(i-lo)*d : (i-lo+1)*d])
		}
		m.HeadDecisions(dst[lo*nh:hi*nh], x, hi-lo)
	}
}

// predictRows is Predictions on rows of either kind.
func (m *Model) predictRows(r rows, probabilities bool) Prediction {
	if r.sp == nil {
		return m.Predictions(r.x, r.n, probabilities)
	}
	p := Prediction{Rows: r.n, Labels: make([]float64, r.n), Decisions: make([]float64, r.n*m.numHeads())}
	m.headDecisionsRows(p.Decisions, r)
	m.LabelsFrom(p.Labels, p.Decisions, r.n)
	if m.Regression() {
		return p
	}
	nc := len(m.Labels())
	p.Scores = make([]float64, r.n*nc)
	m.scoresFrom(p.Scores, p.Decisions, r.n)
	if probabilities && m.Calibrated() {
		p.Probabilities = make([]float64, r.n*nc)
		m.probabilitiesFrom(p.Probabilities, p.Decisions, r.n)
	}
	return p
}

// PredictDataset is Predictions on the rows of ds, dense or sparse (its
// labels are not used). A decision that is not finite (a kernel that
// overflows on a row) is an error. Sparse rows reach a model without a network or
// input centring as they are, in memory bounded by their own size; for
// other models they are made dense a block of rows at a time.
func (m *Model) PredictDataset(ds *data.Dataset, probabilities bool) (Prediction, error) {
	if ds.D != m.InSize() {
		return Prediction{}, fmt.Errorf("nsvm: the data have %d features per row, the model takes %d", ds.D, m.InSize())
	}
	p := m.predictRows(rows{x: ds.X, sp: ds.Sparse, n: ds.N}, probabilities)
	nh := m.numHeads()
	for i, v := range p.Decisions {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Prediction{}, fmt.Errorf("nsvm: the decision on row %d is %g, not finite: the model overflows on it", i/nh+1, v)
		}
	}
	return p, nil
}
