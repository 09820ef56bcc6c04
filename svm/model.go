package svm

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/safetensors"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm/libsvm"
)

// FormatVersion is the "format" metadata of files written by Model.Save.
const FormatVersion = "nsvm-svm/1"

// Model is a kernel expansion
//
//	decision(x) = Σ_i Coef[i]·K(SV_i, x) + Bias
//
// with class Pos where decision(x) ≥ 0 and Neg elsewhere. Solvers fill every
// field; Neg = Pos = 0 is read as the default labels −1 and +1. The support
// vectors are dense rows in SV, or sparse rows in SVSparse (SV nil) for a
// model trained on sparse rows, which are never densified.
//
// The exported fields must not change after the first call of Decision,
// DecisionVec, DecisionBatch, DecisionCSR or Predict: those build a cache
// (the kernel, ‖SV_i‖², and for a linear kernel w = Σ Coef[i]·SV_i) once,
// after which the model is safe for concurrent use.
type Model struct {
	Kernel kernel.Spec
	SV     []float32 // NSV×D, row-major; nil when SVSparse holds the support vectors
	// SVSparse, if not nil, holds the NSV support vectors as sparse rows
	// of width D instead of SV.
	SVSparse *data.CSR
	NSV, D   int
	Coef     []float64 // e.g. α_i·y_i (SMO) or α_i·y_i/(λT) (Pegasos)
	Bias     float64
	// Neg and Pos are the original class labels for decision < 0 and ≥ 0.
	Neg, Pos float64
	// Info describes the fit: solver, parameters, iterations, objective.
	// Save stores it as metadata.
	Info map[string]string
	// Inputs, if not nil, holds the NSV inputs (row-major, len(Inputs)/NSV
	// values each) whose features under a network are the support vectors:
	// a head that continues training recomputes its support vectors from
	// them when the network moves (see Budgeted). Prediction ignores them.
	Inputs []float32

	once  sync.Once
	ev    *evaluator
	evals atomic.Pointer[kernel.Counter] // CountEvals
}

// CountEvals makes the model count the kernel evaluations of its decision
// values into c (nil: stop counting): NSV per row, each costing D
// multiply-adds (a sparse support vector its nonzeros), or for a linear
// kernel one product with the weight vector per row.
func (m *Model) CountEvals(c *kernel.Counter) { m.evals.Store(c) }

// count counts the decision values of n dense rows (see CountEvals).
func (m *Model) count(n int) { m.countRows(n, m.D) }

// countRows counts the decision values of n rows of about cost values
// (their nonzeros) each.
func (m *Model) countRows(n, cost int) {
	c := m.evals.Load()
	if c == nil {
		return
	}
	switch {
	case m.ev != nil && m.ev.w != nil:
		c.Add(n, cost)
	case m.SVSparse != nil:
		c.Add(n*m.NSV, max(1, m.SVSparse.NNZ()/max(1, m.NSV)))
	default:
		c.Add(n*m.NSV, m.D)
	}
}

// newModel returns an empty model on d features whose support vectors
// will be sparse rows if sparse is set (see addSV).
func newModel(spec kernel.Spec, d int, sparse bool) *Model {
	m := &Model{Kernel: spec, D: d, Neg: -1, Pos: 1, Info: map[string]string{}}
	if sparse {
		m.SVSparse = &data.CSR{Ptr: []int64{0}}
	}
	return m
}

// addSV appends the support vector v, of either kind, with coefficient c,
// in the model's kind of rows.
func (m *Model) addSV(v data.Vec, c float64) {
	if s := m.SVSparse; s != nil {
		if v.Idx == nil {
			for j, x := range v.Val {
				if x != 0 {
					s.Idx = append(s.Idx, int32(j))
					s.Val = append(s.Val, x)
				}
			}
		} else {
			s.Idx = append(s.Idx, v.Idx...)
			s.Val = append(s.Val, v.Val...)
		}
		s.Ptr = append(s.Ptr, int64(len(s.Val)))
	} else {
		n := len(m.SV)
		m.SV = append(m.SV, make([]float32, m.D)...)
		v.Scatter(m.SV[n:])
	}
	m.Coef = append(m.Coef, c)
	m.NSV++
}

// svVec returns support vector i.
func (m *Model) svVec(i int) data.Vec { return pointVec(m.SV, m.SVSparse, m.D, i) }

// SupportVector returns support vector i, dense or sparse (not a copy).
func (m *Model) SupportVector(i int) data.Vec { return m.svVec(i) }

// svRows returns the support vectors with their squared norms.
func (m *Model) svRows() *rows { return pointRows(m.SV, m.SVSparse, m.NSV, m.D) }

// evaluator is the per-model cache built on first use, and a Group's: it
// computes the decisions of its heads (the model itself, or a Group's
// heads) from the kernel values of a query against the support vectors sv.
type evaluator struct {
	k     kernel.Kernel
	sv    *rows     // the support vectors with their norms
	w     []float64 // linear kernels: Σ Coef[i]·SV_i
	heads []*Model
	// idx is nil for one head, whose support vectors are sv; else head
	// h's support vector i is sv's row idx[h][i].
	idx    [][]int32
	rows   sync.Pool // *[]float32 of length sv.len()
	blocks sync.Pool // *[]float32 of capacity decisionBlock·sv.len()
	bufs   sync.Pool // *[]float32 of D zeros: a sparse query scattered
}

// newEvaluator returns the evaluator of heads over the points sv with the
// kernel k.
func newEvaluator(k kernel.Kernel, sv *rows, heads []*Model, idx [][]int32) *evaluator {
	ev := &evaluator{k: k, sv: sv, heads: heads, idx: idx}
	n, d := sv.len(), sv.d
	ev.rows.New = func() any { r := make([]float32, n); return &r }
	ev.bufs.New = func() any { r := make([]float32, d); return &r }
	return ev
}

func (m *Model) check() {
	if err := m.consistent(); err != nil {
		panic("svm: inconsistent model: " + err.Error())
	}
}

// consistent reports whether the sizes of the model's fields agree and
// sparse support vectors have increasing columns within [0, D).
func (m *Model) consistent() error {
	if m.NSV < 0 || m.D < 1 || len(m.Coef) != m.NSV {
		return fmt.Errorf("NSV=%d, D=%d, len(Coef)=%d", m.NSV, m.D, len(m.Coef))
	}
	s := m.SVSparse
	if s == nil {
		if len(m.SV) != m.NSV*m.D {
			return fmt.Errorf("NSV=%d, D=%d, len(SV)=%d", m.NSV, m.D, len(m.SV))
		}
		return nil
	}
	if m.SV != nil {
		return fmt.Errorf("both SV and SVSparse are set")
	}
	if len(s.Ptr) != m.NSV+1 || len(s.Idx) != len(s.Val) || s.Ptr[0] != 0 || s.Ptr[m.NSV] != int64(len(s.Val)) {
		return fmt.Errorf("NSV=%d: %d sparse row pointers over %d indices and %d values", m.NSV, len(s.Ptr), len(s.Idx), len(s.Val))
	}
	for i := 0; i < m.NSV; i++ {
		a, b := s.Ptr[i], s.Ptr[i+1]
		if b < a {
			return fmt.Errorf("sparse support vector %d: row pointers decrease", i)
		}
		prev := int32(-1)
		for _, j := range s.Idx[a:b] {
			if j <= prev || int(j) >= m.D {
				return fmt.Errorf("sparse support vector %d: column %d after %d, for D = %d", i, j, prev, m.D)
			}
			prev = j
		}
	}
	return nil
}

func (m *Model) eval() *evaluator {
	m.once.Do(func() {
		m.check()
		k, err := modelKernel(m.Kernel)
		if err != nil {
			panic("svm: model with invalid kernel: " + err.Error())
		}
		if k == (kernel.Linear{}) {
			ev := &evaluator{k: k, heads: []*Model{m}}
			ev.w = make([]float64, m.D)
			for i := 0; i < m.NSV; i++ {
				m.svVec(i).AddTo(ev.w, m.Coef[i])
			}
			m.ev = ev
			return
		}
		m.ev = newEvaluator(k, m.svRows(), []*Model{m}, nil)
	})
	return m.ev
}

// modelKernel returns the kernel a model's spec names: kernel.New's, or for
// kernel.Precomputed the linear kernel — a model trained on given kernel
// values has the indicator of a training point's column as support vector,
// so that its expansion is linear in a row of kernel values:
// Σ_i Coef_i·x[serial_i − 1] + Bias.
func modelKernel(s kernel.Spec) (kernel.Kernel, error) {
	if s.Name == kernel.Precomputed {
		if s.Normalized {
			return nil, fmt.Errorf("kernel: a precomputed kernel cannot be normalized")
		}
		return kernel.Linear{}, nil
	}
	return kernel.New(s)
}

// Serials returns the serial of each support vector of a model trained on
// given kernel values (kernel.Precomputed): the 1-based column of the
// training point in a row of kernel values, LIBSVM's "0:serial", which is
// the column of the support vector's nonzero plus 1. It returns nil for
// other models and −1 for a support vector that is not the indicator of
// one column.
func (m *Model) Serials() []int {
	if m.Kernel.Name != kernel.Precomputed {
		return nil
	}
	s := make([]int, m.NSV)
	for i := range s {
		s[i] = -1
		if r := libsvm.RowOf(m.svVec(i)); len(r.Index) == 1 && r.Value[0] == 1 {
			s[i] = int(r.Index[0]) // the column + 1
		}
	}
	return s
}

func sqNorm64(a []float32) float64 {
	var s float64
	for _, v := range a {
		s += float64(v) * float64(v)
	}
	return s
}

// Decision returns Σ_i Coef[i]·K(SV_i, x) + Bias.
func (m *Model) Decision(x []float32) float64 {
	ev := m.eval()
	if len(x) != m.D {
		panic(fmt.Sprintf("svm: Decision: len(x) = %d, want D = %d", len(x), m.D))
	}
	m.count(1)
	return m.decision(ev, data.Dense(x))
}

// DecisionVec returns Σ_i Coef[i]·K(SV_i, x) + Bias for a row x of
// either kind (D features dense, or sparse with columns below D). A linear
// kernel takes w·x over x's nonzeros; otherwise the kernel row against the
// support vectors, dense or sparse, is computed with their cached norms,
// a sparse x scattered once into a dense row. The dense and the sparse form
// of the same row get the same value, which is Decision's.
func (m *Model) DecisionVec(x data.Vec) float64 {
	ev := m.eval()
	if err := m.checkVec(x); err != nil {
		panic("svm: DecisionVec: " + err.Error())
	}
	m.count(1)
	return m.decision(ev, x)
}

// checkVec reports whether x is a row of the model's width.
func (m *Model) checkVec(x data.Vec) error {
	if x.Idx == nil {
		if len(x.Val) != m.D {
			return fmt.Errorf("dense row of %d features, want D = %d", len(x.Val), m.D)
		}
		return nil
	}
	if len(x.Idx) != len(x.Val) {
		return fmt.Errorf("sparse row of %d indices and %d values", len(x.Idx), len(x.Val))
	}
	if n := len(x.Idx); n > 0 && (x.Idx[0] < 0 || int(x.Idx[n-1]) >= m.D) {
		return fmt.Errorf("sparse row with columns %d … %d, want them in [0, %d)", x.Idx[0], x.Idx[n-1], m.D)
	}
	return nil
}

// decision is DecisionVec after the checks.
func (m *Model) decision(ev *evaluator, x data.Vec) float64 {
	if ev.w != nil {
		return linearVec(ev.w, x, m.Bias)
	}
	if m.NSV == 0 {
		return m.Bias
	}
	var out [1]float64
	ev.vecDecisions(out[:], x)
	return out[0]
}

// sums sets out[h] to head h's decision from row, the kernel values of a
// query against sv: Bias + Σ_i Coef[i]·K(SV_i, query), summed in the order
// of the head's support vectors whatever the evaluator.
func (ev *evaluator) sums(out []float64, row []float32) {
	for h, m := range ev.heads {
		var acc float64
		if ev.idx == nil {
			row := row[:len(m.Coef)]
			for i, c := range m.Coef {
				acc += c * float64(row[i])
			}
		} else {
			ix := ev.idx[h][:len(m.Coef)]
			for i, c := range m.Coef {
				acc += c * float64(row[ix[i]])
			}
		}
		out[h] = m.Bias + acc
	}
}

// vecDecisions sets out[h] to head h's decision on the row x of either
// kind: one kernel row against sv, x scattered once if sparse.
func (ev *evaluator) vecDecisions(out []float64, x data.Vec) {
	bd := x.Val
	if x.Idx != nil {
		bp := ev.bufs.Get().(*[]float32)
		bd = *bp
		x.Scatter(bd)
		defer func() { x.Clear(bd); ev.bufs.Put(bp) }()
	}
	var nx float64
	if ev.sv.sparse() {
		nx = x.SqNorm()
	}
	rp := ev.rows.Get().(*[]float32)
	row := *rp
	ev.sv.kernelRow(ev.k, row, 0, len(row), x, nx, bd)
	ev.sums(out, row)
	ev.rows.Put(rp)
}

// linearDecision returns bias + Σ_j w_j·x_j, summed in order.
func linearDecision(w []float64, x []float32, bias float64) float64 {
	w = w[:len(x)]
	for j, v := range x {
		bias += w[j] * float64(v)
	}
	return bias
}

// linearVec is linearDecision over a row of either kind: the same sum, as
// the zeros a sparse row leaves out add nothing.
func linearVec(w []float64, x data.Vec, bias float64) float64 {
	if x.Idx == nil {
		return linearDecision(w, x.Val, bias)
	}
	val := x.Val[:len(x.Idx)]
	for k, j := range x.Idx {
		bias += w[j] * float64(val[k])
	}
	return bias
}

// decisionBlock is the number of rows DecisionBatch evaluates per kernel
// matrix.
const decisionBlock = 64

// DecisionBatch sets dst[i] to the decision value of row i of the n×D
// row-major matrix x, splitting large batches across GOMAXPROCS goroutines.
func (m *Model) DecisionBatch(dst []float64, x []float32, n int) {
	ev := m.eval()
	if len(dst) < n || len(x) != n*m.D {
		panic(fmt.Sprintf("svm: DecisionBatch: len(dst) = %d, len(x) = %d for n = %d rows of D = %d", len(dst), len(x), n, m.D))
	}
	m.count(n)
	if m.NSV == 0 {
		for i := range dst[:n] {
			dst[i] = m.Bias
		}
		return
	}
	if ev.w != nil {
		m.linearBatch(dst, x, n)
		return
	}
	ev.batch(dst, x, n)
}

// batch sets dst[i·heads+h] to head h's decision on row i of the n×D
// row-major matrix x (a kernel that is not linear, sv not empty): one
// kernel row a query against sparse support vectors, else the kernel
// matrix of decisionBlock queries at a time against the dense ones;
// batches of at least 2¹⁸ values are split across GOMAXPROCS goroutines.
func (ev *evaluator) batch(dst []float64, x []float32, n int) {
	nh, w, d := len(ev.heads), ev.sv.len(), ev.sv.d
	if ev.sv.sparse() {
		rowsParallel(n, n*w*ev.sv.cost, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				ev.vecDecisions(dst[i*nh:(i+1)*nh], data.Dense(x[i*d:(i+1)*d]))
			}
		})
		return
	}
	blocks := (n + decisionBlock - 1) / decisionBlock
	workers := min(runtime.GOMAXPROCS(0), blocks)
	if n*w*d < 1<<18 {
		workers = 1
	}
	var next atomic.Int64
	work := func() {
		bp, _ := ev.blocks.Get().(*[]float32)
		if bp == nil {
			bp = new([]float32)
		}
		if cap(*bp) < min(n, decisionBlock)*w {
			*bp = make([]float32, min(n, decisionBlock)*w, decisionBlock*w)
		}
		buf := (*bp)[:cap(*bp)]
		defer ev.blocks.Put(bp)
		for {
			b := int(next.Add(1)) - 1
			if b >= blocks {
				return
			}
			lo, hi := b*decisionBlock, min((b+1)*decisionBlock, n)
			ev.k.Cross(buf, x[lo*d:hi*d], hi-lo, nil, ev.sv.x, w, ev.sv.norms, d)
			for r := lo; r < hi; r++ {
				ev.sums(dst[r*nh:(r+1)*nh], buf[(r-lo)*w:(r-lo+1)*w])
			}
		}
	}
	if workers == 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(work)
	}
	wg.Wait()
}

// rowsParallel runs f over the rows [0, n) in GOMAXPROCS blocks when the
// work (values touched) reaches 2¹⁸, else in one call.
func rowsParallel(n, work int, f func(lo, hi int)) {
	if work < 1<<18 {
		f(0, n)
		return
	}
	splitRows(n, min(runtime.GOMAXPROCS(0), n), f)
}

// splitRows runs f over the rows [0, n) in w blocks of equal size (the
// last shorter), the first on the calling goroutine; w < 2 is one call.
func splitRows(n, w int, f func(lo, hi int)) {
	if w < 2 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + w - 1) / w
	for lo := step; lo < n; lo += step {
		wg.Go(func() { f(lo, min(lo+step, n)) })
	}
	f(0, min(step, n))
	wg.Wait()
}

// DecisionCSR sets dst[i] to the decision value of row i of the sparse
// rows x (columns below D), in parallel as DecisionBatch: w·x_i for a
// linear kernel, one kernel row per x_i against sparse support vectors, and
// blocks of rows made dense for the kernel-matrix product of DecisionBatch
// against dense ones.
func (m *Model) DecisionCSR(dst []float64, x *data.CSR) {
	ev := m.eval()
	n := x.Rows()
	if len(dst) < n {
		panic(fmt.Sprintf("svm: DecisionCSR: len(dst) = %d for %d rows", len(dst), n))
	}
	for _, j := range x.Idx {
		if j < 0 || int(j) >= m.D {
			panic(fmt.Sprintf("svm: DecisionCSR: column %d outside [0, %d)", j, m.D))
		}
	}
	switch {
	case m.NSV == 0:
		for i := range dst[:n] {
			dst[i] = m.Bias
		}
	case ev.w != nil:
		m.countRows(n, max(1, x.NNZ()/max(1, n)))
		rowsParallel(n, x.NNZ(), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				dst[i] = linearVec(ev.w, x.Row(i), m.Bias)
			}
		})
	default:
		m.count(n)
		ev.csr(dst, x)
	}
}

// csr is batch on the sparse rows x: one kernel row a row against sparse
// support vectors, blocks of rows made dense for batch against dense ones.
func (ev *evaluator) csr(dst []float64, x *data.CSR) {
	n, nh, w, d := x.Rows(), len(ev.heads), ev.sv.len(), ev.sv.d
	if ev.sv.sparse() {
		rowsParallel(n, n*w*ev.sv.cost, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				ev.vecDecisions(dst[i*nh:(i+1)*nh], x.Row(i))
			}
		})
		return
	}
	step := min(n, max(decisionBlock, (1<<22)/d))
	slab := make([]float32, step*d)
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		for i := lo; i < hi; i++ {
			x.Row(i).Scatter(slab[(i-lo)*d:])
		}
		ev.batch(dst[lo*nh:hi*nh], slab[:(hi-lo)*d], hi-lo)
		for i := lo; i < hi; i++ {
			x.Row(i).Clear(slab[(i-lo)*d:])
		}
	}
}

// linearBatch is DecisionBatch for a linear kernel: w·x + b per row (as
// Decision), with batches of at least 2¹⁸ values split across GOMAXPROCS
// goroutines by blocks of rows.
func (m *Model) linearBatch(dst []float64, x []float32, n int) {
	w, d := m.ev.w, m.D
	rowsParallel(n, n*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = linearDecision(w, x[i*d:(i+1)*d], m.Bias)
		}
	})
}

func (m *Model) labels() (neg, pos float64) {
	if m.Neg == 0 && m.Pos == 0 {
		return -1, 1
	}
	return m.Neg, m.Pos
}

// Predict returns Pos if Decision(x) ≥ 0, else Neg.
func (m *Model) Predict(x []float32) float64 {
	neg, pos := m.labels()
	if m.Decision(x) >= 0 {
		return pos
	}
	return neg
}

// PredictVec returns Pos if DecisionVec(x) ≥ 0, else Neg.
func (m *Model) PredictVec(x data.Vec) float64 {
	neg, pos := m.labels()
	if m.DecisionVec(x) >= 0 {
		return pos
	}
	return neg
}

// Save writes the model to path in the safetensors layout: tensors "sv"
// (F32, NSV×D) and "coef" (F64, NSV); metadata "format" (FormatVersion),
// "kernel" (the spec as JSON), "bias", "label_neg", "label_pos" (as %.17g)
// and every Info entry under "info.<key>". Sparse support vectors are
// written as their CSR arrays instead of "sv": "sv_indptr" (I64, NSV+1),
// "sv_indices" (I32, 0-based columns) and "sv_values" (F32), with the
// width D in the metadata "dim". The write goes through a temporary file
// and a rename.
func (m *Model) Save(path string) error {
	m.check()
	ks, err := json.Marshal(m.Kernel)
	if err != nil {
		return fmt.Errorf("svm: %w", err)
	}
	neg, pos := m.labels()
	meta := map[string]string{
		"format":    FormatVersion,
		"kernel":    string(ks),
		"bias":      fmtF(m.Bias),
		"label_neg": fmtF(neg),
		"label_pos": fmtF(pos),
	}
	for k, v := range m.Info {
		meta["info."+k] = v
	}
	if m.SVSparse != nil {
		meta["dim"] = strconv.Itoa(m.D)
	}
	return safetensors.WriteFile(path, meta, m.EncodeSupport(nil, ""))
}

// EncodeSupport appends to ts the tensors of the support vectors and
// coefficients, their names prefixed by prefix: prefix+"coef" (F64, NSV)
// and prefix+"sv" (F32, NSV×D) or, for sparse support vectors, their CSR
// arrays prefix+"sv_indptr" (I64, NSV+1), prefix+"sv_indices" (I32,
// 0-based columns) and prefix+"sv_values" (F32). A file holding them
// must record D for sparse support vectors (DecodeSupport takes it).
func (m *Model) EncodeSupport(ts []safetensors.Tensor, prefix string) []safetensors.Tensor {
	n := m.SupportTensors()
	ts = append(ts, safetensors.F64(prefix+n[0], []int{m.NSV}, m.Coef))
	if s := m.SVSparse; s != nil {
		return append(ts,
			safetensors.I64(prefix+n[1], []int{m.NSV + 1}, s.Ptr),
			safetensors.I32(prefix+n[2], []int{len(s.Idx)}, s.Idx),
			safetensors.F32(prefix+n[3], []int{len(s.Val)}, s.Val))
	}
	ts = append(ts, safetensors.F32(prefix+n[1], []int{m.NSV, m.D}, m.SV))
	if m.Inputs != nil && m.NSV > 0 {
		ts = append(ts, safetensors.F32(prefix+n[2], []int{m.NSV, len(m.Inputs) / m.NSV}, m.Inputs))
	}
	return ts
}

// SupportTensors returns the names, before the prefix, of the tensors
// EncodeSupport writes for m: "coef" and "sv" (and "sv_input" for the
// Inputs of dense support vectors), or for sparse support vectors "coef",
// "sv_indptr", "sv_indices" and "sv_values".
func (m *Model) SupportTensors() []string {
	if m.SVSparse != nil {
		return []string{"coef", "sv_indptr", "sv_indices", "sv_values"}
	}
	if m.Inputs != nil && m.NSV > 0 {
		return []string{"coef", "sv", "sv_input"}
	}
	return []string{"coef", "sv"}
}

// DecodeSupport reads into m the support vectors and coefficients that
// EncodeSupport wrote with prefix, checking their shapes against the
// width m.D (0 takes a dense file's width; sparse support vectors need it
// given) and that they are finite.
func (m *Model) DecodeSupport(f *safetensors.File, prefix string) error {
	coef, ok := f.Tensors[prefix+"coef"]
	if !ok || len(coef.Shape) != 1 {
		return fmt.Errorf("tensor %scoef of one dimension is required", prefix)
	}
	var err error
	if m.Coef, err = coef.Float64s(); err != nil {
		return err
	}
	m.NSV = coef.Shape[0]
	for _, v := range m.Coef {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("coefficients hold %g", v)
		}
	}
	if _, ok := f.Tensors[prefix+"sv_indptr"]; ok {
		if m.D < 1 {
			return fmt.Errorf("sparse support vectors %ssv_* without their width", prefix)
		}
		return m.decodeSparse(f, prefix)
	}
	sv, ok := f.Tensors[prefix+"sv"]
	if !ok {
		return fmt.Errorf("tensor %ssv (or %ssv_indptr, sv_indices and sv_values) is required", prefix, prefix)
	}
	if len(sv.Shape) != 2 || sv.Shape[1] < 1 || sv.Shape[0] != m.NSV || m.D > 0 && sv.Shape[1] != m.D {
		return fmt.Errorf("%ssv of shape %v and %scoef of shape %v do not fit features of size %d", prefix, sv.Shape, prefix, coef.Shape, m.D)
	}
	if m.SV, err = sv.Float32s(); err != nil {
		return err
	}
	m.D = sv.Shape[1]
	if err := finite32(m.SV); err != nil {
		return err
	}
	if in, ok := f.Tensors[prefix+"sv_input"]; ok {
		if len(in.Shape) != 2 || in.Shape[0] != m.NSV || in.Shape[1] < 1 || m.NSV == 0 {
			return fmt.Errorf("%ssv_input of shape %v does not fit %d support vectors", prefix, in.Shape, m.NSV)
		}
		if m.Inputs, err = in.Float32s(); err != nil {
			return err
		}
		return finite32(m.Inputs)
	}
	return nil
}

// Load reads a model written by Save.
func Load(path string) (*Model, error) {
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := decode(f)
	if err != nil {
		return nil, fmt.Errorf("svm: %s: %w", path, err)
	}
	return m, nil
}

func decode(f *safetensors.File) (*Model, error) {
	md := f.Metadata
	if md["format"] != FormatVersion {
		return nil, fmt.Errorf("format %q, want %q", md["format"], FormatVersion)
	}
	m := &Model{Info: map[string]string{}}
	if err := json.Unmarshal([]byte(md["kernel"]), &m.Kernel); err != nil {
		return nil, fmt.Errorf("bad kernel %q: %v", md["kernel"], err)
	}
	if _, err := modelKernel(m.Kernel); err != nil {
		return nil, err
	}
	for _, v := range []struct {
		key string
		dst *float64
	}{{"bias", &m.Bias}, {"label_neg", &m.Neg}, {"label_pos", &m.Pos}} {
		x, err := strconv.ParseFloat(md[v.key], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("bad %s %q", v.key, md[v.key])
		}
		*v.dst = x
	}
	if m.Neg == m.Pos {
		return nil, fmt.Errorf("both classes have label %g", m.Neg)
	}
	if _, ok := f.Tensors["sv_indptr"]; ok {
		d, err := strconv.Atoi(md["dim"])
		if err != nil || d < 1 {
			return nil, fmt.Errorf("bad dim %q of sparse support vectors", md["dim"])
		}
		m.D = d
	}
	if err := m.DecodeSupport(f, ""); err != nil {
		return nil, err
	}
	for k, v := range md {
		if name, ok := strings.CutPrefix(k, "info."); ok {
			m.Info[name] = v
		}
	}
	return m, nil
}

// finite32 reports the first non-finite support vector entry.
func finite32(v []float32) error {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("support vectors hold %g", x)
		}
	}
	return nil
}

// decodeSparse reads the sparse support vectors written with prefix into
// m, whose D and NSV are set.
func (m *Model) decodeSparse(f *safetensors.File, prefix string) error {
	ptr, ok1 := f.Tensors[prefix+"sv_indptr"]
	idx, ok2 := f.Tensors[prefix+"sv_indices"]
	val, ok3 := f.Tensors[prefix+"sv_values"]
	if !ok1 || !ok2 || !ok3 {
		return fmt.Errorf("tensors %ssv_indptr, sv_indices and sv_values are required together", prefix)
	}
	var err error
	s := &data.CSR{}
	if s.Ptr, err = ptr.Int64s(); err != nil {
		return err
	}
	if s.Idx, err = idx.Int32s(); err != nil {
		return err
	}
	if s.Val, err = val.Float32s(); err != nil {
		return err
	}
	if len(s.Ptr) == 0 {
		return fmt.Errorf("empty sv_indptr")
	}
	m.SVSparse = s
	if err := m.consistent(); err != nil {
		return err
	}
	return finite32(s.Val)
}

// DualObjective returns ½·cᵀK_SV·c − Σ_i |c_i| for c = m.Coef and the
// kernel matrix of the support vectors. For a model whose coefficients are
// α_i·y_i (SMO, Chunking, lecture.DualSGA) this is the C-SVM dual objective
// f(α) = ½αᵀQα − eᵀα that SMO minimises (LIBSVM prints it as "obj"). It
// costs O(NSV²·D) (for sparse support vectors, NSV times
// their nonzeros).
func DualObjective(k kernel.Kernel, m *Model) float64 {
	m.check()
	row := make([]float32, m.NSV)
	sv := m.svRows()
	buf := make([]float32, m.D)
	var quad, lin float64
	for i := 0; i < m.NSV; i++ {
		sv.column(k, row, 0, m.NSV, i, 1, buf)
		var s float64
		for j, c := range m.Coef {
			s += c * float64(row[j])
		}
		quad += m.Coef[i] * s
		lin += math.Abs(m.Coef[i])
	}
	return quad/2 - lin
}

// Clone returns a deep copy of m's support vectors, coefficients and
// metadata; the evaluator and the evaluation counter start afresh.
func (m *Model) Clone() *Model {
	c := &Model{Kernel: m.Kernel, SV: slices.Clone(m.SV), NSV: m.NSV, D: m.D, Coef: slices.Clone(m.Coef), Bias: m.Bias,
		Neg: m.Neg, Pos: m.Pos, Info: maps.Clone(m.Info), Inputs: slices.Clone(m.Inputs)}
	if m.SVSparse != nil {
		c.SVSparse = &data.CSR{Ptr: slices.Clone(m.SVSparse.Ptr), Idx: slices.Clone(m.SVSparse.Idx), Val: slices.Clone(m.SVSparse.Val)}
	}
	return c
}
