package svm

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm/libsvm"
)

// Heads returns the model as this package's models: for a classifier one
// binary head per pair in LIBSVM's order, head p of pair (i, j) with
// decision(x) = dec_ij(x), Pos = Label[i] and Neg = Label[j] (Predict
// gives Pos where dec_ij ≥ 0, LIBSVM votes for i where it is > 0); for
// one_class one model with Neg = −1 and Pos = +1; for a regression one
// model whose decision is the prediction. The support vectors are sparse
// rows of width d, the largest index (or serial) if d is 0, with index i
// at column i − 1 and values rounded to float32; a precomputed kernel's
// is the indicator of column serial − 1 (see NewGramMatrix). Info records
// "svm_type" and "solver" = "libsvm".
func HeadsOf(m *libsvm.Model, d int) ([]*Model, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("svm: LIBSVM model: %w", err)
	}
	if _, err := modelKernel(m.Kernel); err != nil {
		return nil, fmt.Errorf("svm: LIBSVM model: %w", err)
	}
	need := 1
	rows := make([]data.Vec, len(m.SV))
	for s, sv := range m.SV {
		if m.Kernel.Name == kernel.Precomputed {
			serial, _ := libsvm.PrecomputedSerial(sv)
			rows[s] = data.Vec{Idx: []int32{int32(serial - 1)}, Val: []float32{1}}
			need = max(need, serial)
			continue
		}
		if len(sv.Index) > 0 && sv.Index[0] < 1 {
			return nil, fmt.Errorf("svm: LIBSVM model: support vector %d has index %d; features start at 1", s+1, sv.Index[0])
		}
		v := sv.Vec()
		for k, x := range sv.Value {
			if math.IsInf(float64(v.Val[k]), 0) {
				return nil, fmt.Errorf("svm: LIBSVM model: support vector %d: %g overflows float32", s+1, x)
			}
		}
		rows[s] = v
		need = max(need, sv.MaxIndex())
	}
	if d == 0 {
		d = need
	} else if d < need {
		return nil, fmt.Errorf("svm: LIBSVM model: support vectors of index up to %d do not fit width %d", need, d)
	}
	head := func(pos, neg float64, rho float64) *Model {
		h := newModel(m.Kernel, d, true)
		h.Bias = -rho
		h.Neg, h.Pos = neg, pos
		h.Info["svm_type"] = m.SVMType
		h.Info["solver"] = "libsvm"
		return h
	}
	if !libsvm.IsClassifier(m.SVMType) {
		h := head(1, -1, m.Rho[0])
		for s, c := range m.SVCoef[0] {
			h.addSV(rows[s], c)
		}
		return []*Model{h}, nil
	}
	k := m.NrClass
	start := make([]int, k)
	for c := 1; c < k; c++ {
		start[c] = start[c-1] + m.NrSV[c-1]
	}
	heads := make([]*Model, 0, m.Pairs())
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			h := head(float64(m.Label[i]), float64(m.Label[j]), m.Rho[len(heads)])
			for _, part := range []struct{ class, row int }{{i, j - 1}, {j, i}} {
				for s := start[part.class]; s < start[part.class]+m.NrSV[part.class]; s++ {
					if c := m.SVCoef[part.row][s]; c != 0 {
						h.addSV(rows[s], c)
					}
				}
			}
			heads = append(heads, h)
		}
	}
	return heads, nil
}

// libsvmType returns the svm_type of a model of this package:
// Info["svm_type"] when it names one (NuSVC, OneClass, NuSVR and Heads set
// it), epsilon_svr for the ε-SVR solvers, c_svc otherwise.
func libsvmType(m *Model) string {
	if t := m.Info["svm_type"]; libsvm.KnownSVMType(t) {
		return t
	}
	switch m.Info["solver"] {
	case "smo-svr", "pegasos-svr", "linear-dcd-svr":
		return "epsilon_svr"
	}
	return "c_svc"
}

// libsvmSV returns support vector i of m as LIBSVM nodes: 0:serial for a
// precomputed kernel, else its nonzeros at index column + 1.
func libsvmSV(m *Model, i int, serials []int) (libsvm.Row, error) {
	if serials != nil {
		if serials[i] < 1 {
			return libsvm.Row{}, fmt.Errorf("svm: support vector %d of a precomputed-kernel model is not the indicator of one column", i)
		}
		return libsvm.Row{Index: []int32{0}, Value: []float64{float64(serials[i])}}, nil
	}
	return libsvm.RowOf(m.svVec(i)), nil
}

// libsvmLabel returns v as a LIBSVM label, an integer.
func libsvmLabel(v float64) (int, error) {
	if v != math.Trunc(v) || v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("svm: label %g is not an integer; LIBSVM's labels are", v)
	}
	return int(v), nil
}

// NewLIBSVMModel returns the LIBSVM form of one model of this package, of
// the svm_type libsvmType gives: Info["svm_type"] (NuSVC: nu_svc,
// OneClass: one_class, NuSVR: nu_svr), epsilon_svr for SMOSVR and the
// other ε-SVR solvers, c_svc otherwise.
//
// A classifier becomes LIBSVM's two classes in the order Neg, Pos, with
// SVCoef = −Coef and Rho = Bias: LIBSVM's decision value is −decision(x),
// which is > 0 (label Neg) exactly where Predict says Neg, so that
// svm-predict and Predict agree even on the boundary. The support vectors
// with Coef < 0 come first, as class Neg's. The labels must be integers,
// as LIBSVM's are. For one_class and the regressions SVCoef = Coef and
// Rho = −Bias. LIBSVM has no normalised kernels: for those NewLIBSVMModel
// returns an error.
func NewLIBSVMModel(m *Model) (*libsvm.Model, error) {
	if err := m.consistent(); err != nil {
		return nil, fmt.Errorf("svm: inconsistent model: %w", err)
	}
	lm, err := newLIBSVMHeader(m.Kernel, libsvmType(m))
	if err != nil {
		return nil, err
	}
	serials := m.Serials()
	if !libsvm.IsClassifier(lm.SVMType) {
		lm.Rho = []float64{-m.Bias}
		lm.SVCoef = [][]float64{append([]float64(nil), m.Coef...)}
		for i := 0; i < m.NSV; i++ {
			sv, err := libsvmSV(m, i, serials)
			if err != nil {
				return nil, err
			}
			lm.SV = append(lm.SV, sv)
		}
		return lm, nil
	}
	neg, pos := m.labels()
	ln, err := libsvmLabel(neg)
	if err != nil {
		return nil, err
	}
	lp, err := libsvmLabel(pos)
	if err != nil {
		return nil, err
	}
	if ln == lp {
		return nil, fmt.Errorf("svm: both classes have label %d", ln)
	}
	lm.NrClass, lm.Label, lm.NrSV = 2, []int{ln, lp}, []int{0, 0}
	lm.Rho = []float64{m.Bias}
	lm.SVCoef = [][]float64{nil}
	for pass := 0; pass < 2; pass++ {
		for i, c := range m.Coef {
			if (c < 0) != (pass == 0) {
				continue
			}
			sv, err := libsvmSV(m, i, serials)
			if err != nil {
				return nil, err
			}
			lm.SV = append(lm.SV, sv)
			lm.SVCoef[0] = append(lm.SVCoef[0], -c)
			lm.NrSV[pass]++
		}
	}
	return lm, nil
}

// newLIBSVMHeader returns an empty LIBSVM model of the kernel and type.
func newLIBSVMHeader(s kernel.Spec, svmType string) (*libsvm.Model, error) {
	if s.Normalized {
		return nil, fmt.Errorf("svm: LIBSVM has no normalized kernels (model kernel %s)", s)
	}
	kt, ok := libsvm.KernelType(s.Name)
	if !ok {
		return nil, fmt.Errorf("svm: kernel %q has no LIBSVM equivalent", s.Name)
	}
	s.Name = libsvm.KernelNames[kt]
	switch s.Name {
	case "linear", kernel.Precomputed:
		s.Gamma, s.Coef0, s.Degree = 0, 0, 0
	case "rbf":
		s.Coef0, s.Degree = 0, 0
	case "sigmoid":
		s.Degree = 0
	}
	return &libsvm.Model{SVMType: svmType, Kernel: s, NrClass: 2}, nil
}

// NewLIBSVMOneVsOne returns the LIBSVM form of a one-vs-one set of binary
// heads over the classes labels (integers, distinct; LIBSVM's label order
// is theirs): heads[p] is the head of pair (a, b) = PairClasses(p, k), as
// FitOneVsOne and NuSVCOneVsOne return them, separating class a
// (decision ≥ 0) from class b, with Coef > 0 on class a's support vectors
// and Coef < 0 on class b's. Its svm_type is the heads' (c_svc, or nu_svc
// for NuSVC's heads), which must agree, as must their kernels.
//
// LIBSVM keeps each support vector once, with one coefficient per pair of
// its class: the heads' support vectors of one class that are the same row
// become one, in the order the heads first list them, with the
// coefficients of the heads that hold them (added up, should one head
// hold a row twice) and 0 in the others. Rho[p] = −Bias of head p, so
// that LIBSVM's decision values are the heads' decision values in
// LIBSVM's pair order and svm-predict's labels are the vote of the heads
// with LIBSVM's rule (a vote for a where the decision is > 0; a tie
// between classes to the first in labels) — the same as a vote for a
// where it is ≥ 0 except on a head's boundary itself.
func NewLIBSVMOneVsOne(heads []*Model, labels []float64) (*libsvm.Model, error) {
	k := len(labels)
	if k < 2 || len(heads) != k*(k-1)/2 {
		return nil, fmt.Errorf("svm: NewLIBSVMOneVsOne: %d heads for %d classes (want k(k−1)/2)", len(heads), k)
	}
	for p, h := range heads {
		if h == nil {
			return nil, fmt.Errorf("svm: NewLIBSVMOneVsOne: head %d is nil", p)
		}
		if err := h.consistent(); err != nil {
			return nil, fmt.Errorf("svm: NewLIBSVMOneVsOne: head %d: %w", p, err)
		}
	}
	svmType := libsvmType(heads[0])
	if !libsvm.IsClassifier(svmType) {
		return nil, fmt.Errorf("svm: NewLIBSVMOneVsOne: the heads are %s models, not classifiers", svmType)
	}
	for p, h := range heads {
		if t := libsvmType(h); t != svmType {
			return nil, fmt.Errorf("svm: NewLIBSVMOneVsOne: head %d is %s, head 0 %s", p, t, svmType)
		}
		if h.Kernel != heads[0].Kernel {
			return nil, fmt.Errorf("svm: NewLIBSVMOneVsOne: head %d has kernel %s, head 0 %s", p, h.Kernel, heads[0].Kernel)
		}
	}
	lm, err := newLIBSVMHeader(heads[0].Kernel, svmType)
	if err != nil {
		return nil, err
	}
	lm.NrClass = k
	lm.Label = make([]int, k)
	for c, v := range labels {
		if lm.Label[c], err = libsvmLabel(v); err != nil {
			return nil, err
		}
		for _, u := range lm.Label[:c] {
			if u == lm.Label[c] {
				return nil, fmt.Errorf("svm: NewLIBSVMOneVsOne: label %d appears twice", u)
			}
		}
	}
	// Collect each class's distinct support vectors with their
	// coefficient in each pair: coef[c][s][other class].
	type sv struct {
		row  libsvm.Row
		coef []float64 // by the other class of the pair
	}
	byClass := make([][]*sv, k)
	ids := make([]map[string]*sv, k)
	for c := range ids {
		ids[c] = map[string]*sv{}
	}
	var key []byte
	for p, h := range heads {
		a, b := PairClasses(p, k)
		lm.Rho = append(lm.Rho, -h.Bias)
		serials := h.Serials()
		for i, c := range h.Coef {
			if c == 0 {
				continue
			}
			class, other := a, b
			if c < 0 {
				class, other = b, a
			}
			row, err := libsvmSV(h, i, serials)
			if err != nil {
				return nil, err
			}
			key = key[:0]
			for t, idx := range row.Index {
				key = binary.LittleEndian.AppendUint32(key, uint32(idx))
				key = binary.LittleEndian.AppendUint64(key, math.Float64bits(row.Value[t]))
			}
			s := ids[class][string(key)]
			if s == nil {
				s = &sv{row: row, coef: make([]float64, k)}
				ids[class][string(key)] = s
				byClass[class] = append(byClass[class], s)
			}
			s.coef[other] += c
		}
	}
	lm.NrSV = make([]int, k)
	lm.SVCoef = make([][]float64, k-1)
	for c, list := range byClass {
		lm.NrSV[c] = len(list)
		for _, s := range list {
			lm.SV = append(lm.SV, s.row)
			// Row j−1 holds the pair (c, j) for j > c, row j the pair (j, c) for j < c.
			for other := 0; other < k; other++ {
				if other == c {
					continue
				}
				r := other
				if other > c {
					r = other - 1
				}
				lm.SVCoef[r] = append(lm.SVCoef[r], s.coef[other])
			}
		}
	}
	return lm, nil
}

// WriteLIBSVM writes the model as a LIBSVM model file that svm-predict reads
// and predicts from exactly as Predict does (NewLIBSVMModel, then
// libsvm.Model.Write). Its svm_type is the model's: c_svc for SMO's and the
// other classifiers, nu_svc for NuSVC's, one_class for OneClass's,
// epsilon_svr for SMOSVR's, nu_svr for NuSVR's.
//
// A classifier is written as two classes: LIBSVM evaluates
// dec = Σ_i sv_coef_i·K(SV_i, x) − rho and predicts label[0] when dec > 0
// and label[1] otherwise. The file therefore lists the labels as "Neg Pos"
// with sv_coef = −Coef and rho = Bias, so that dec = −decision(x):
// dec > 0 ⇔ decision < 0 ⇔ Neg, and a decision of exactly 0 gives Pos on
// both sides. Support vectors are written grouped by class (those with
// Coef < 0, which LIBSVM counts for label[0], first), sparse (from dense
// and sparse support vectors alike), with 1-based indices; float32
// features are written as the exact decimal of their value, coefficients
// with 17 significant digits. The labels must be integers. One-class
// models and regressions are written with sv_coef = Coef and rho = −Bias
// (a one-class model's boundary itself is an outlier to LIBSVM, an inlier
// to Predict). A model trained on given kernel values (kernel.Precomputed)
// is written with kernel_type precomputed and its support vectors as
// 0:serial.
//
// LIBSVM has no normalised kernels: for those WriteLIBSVM returns an error.
func (m *Model) WriteLIBSVM(w io.Writer) error {
	m.check()
	lm, err := NewLIBSVMModel(m)
	if err != nil {
		return err
	}
	return lm.Write(w)
}
