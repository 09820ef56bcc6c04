package svm

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
)

// LIBSVMModel is a LIBSVM model file (svm-train's output, svm.cpp's
// svm_model) as it stands: every svm_type, every kernel_type, k classes
// with k(k−1)/2 one-vs-one pairs, support vectors of float64 values. It
// predicts as svm-predict does (PredictValues), converts to and from this
// package's models (Heads, NewLIBSVMModel, NewLIBSVMOneVsOne), and reads
// and writes the file (ReadLIBSVMModel, Write).
//
// The support vectors come grouped by class in Label's order (NrSV[c] of
// class c), each with k−1 coefficients: in pair (i, j), i < j, the
// decision value is
//
//	dec_ij(x) = Σ_{s of class i} SVCoef[j−1][s]·K(SV_s, x) + Σ_{s of class j} SVCoef[i][s]·K(SV_s, x) − Rho[p]
//
// with p the pair's index in the order (0,1), (0,2), …, (1,2), … of
// PairClasses; x gets a vote for class i when dec_ij(x) > 0 and for class
// j otherwise, and the class with the most votes wins, a tie going to the
// one first in Label. For one_class and the regressions there are no
// classes (NrClass is 2, one Rho, one row of SVCoef) and the prediction is
// Σ SVCoef[0][s]·K(SV_s, x) − Rho[0] itself, or for one_class +1 where it
// is > 0 and −1 elsewhere.
type LIBSVMModel struct {
	// SVMType is "c_svc", "nu_svc", "one_class", "epsilon_svr" or "nu_svr".
	SVMType string
	// Kernel is the kernel in this package's names: "linear", "poly"
	// (LIBSVM's polynomial, (γ·u·v + coef0)^degree), "rbf", "sigmoid" or
	// kernel.Precomputed, with LIBSVM's Degree, Gamma and Coef0.
	Kernel kernel.Spec
	// NrClass is the number of classes k (2 for one_class and the
	// regressions, as LIBSVM writes).
	NrClass int
	// Rho holds ρ of each of the k(k−1)/2 pairs in LIBSVM's order.
	Rho []float64
	// Label holds the class labels in LIBSVM's order, and NrSV the number
	// of support vectors of each class; both nil for one_class and the
	// regressions.
	Label []int
	NrSV  []int
	// ProbA and ProbB hold the parameters of Platt's sigmoid per pair for
	// a classifier trained with -b 1; for a regression ProbA alone holds
	// the scale of the Laplace distribution of the residuals. nil without.
	ProbA, ProbB []float64
	// ProbDensityMarks holds a one-class model's density marks (written by
	// LIBSVM from 3.30 with -b 1); nil without.
	ProbDensityMarks []float64
	// SVCoef[j][s] is support vector s's coefficient in the j-th of its
	// k−1 pairs (LIBSVM's sv_coef): k−1 rows of len(SV).
	SVCoef [][]float64
	// SV holds the support vectors; for a precomputed kernel each is the
	// single node 0:serial.
	SV []LIBSVMRow
}

// libsvmKernelNames maps LIBSVM's kernel_type names to kernel.Spec names.
var libsvmKernelNames = map[string]string{
	"linear": "linear", "polynomial": "poly", "rbf": "rbf", "sigmoid": "sigmoid", "precomputed": kernel.Precomputed,
}

// libsvmKernelType returns LIBSVM's kernel_type name of a spec name.
func libsvmKernelType(name string) (string, bool) {
	switch strings.ToLower(name) {
	case "linear":
		return "linear", true
	case "poly", "polynomial":
		return "polynomial", true
	case "rbf", "gaussian":
		return "rbf", true
	case "sigmoid", "tanh":
		return "sigmoid", true
	case kernel.Precomputed:
		return "precomputed", true
	}
	return "", false
}

// isClassifier reports whether an svm_type has classes.
func isClassifier(svmType string) bool { return svmType == "c_svc" || svmType == "nu_svc" }

func knownSVMType(t string) bool {
	switch t {
	case "c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr":
		return true
	}
	return false
}

// maxLIBSVMClasses bounds nr_class (LIBSVM has no bound; k(k−1)/2 pairs
// of a larger k could not be held anyway).
const maxLIBSVMClasses = 1 << 16

// Pairs returns the number of one-vs-one pairs, k(k−1)/2.
func (m *LIBSVMModel) Pairs() int { return m.NrClass * (m.NrClass - 1) / 2 }

// Validate reports whether the model is consistent: a known svm_type and
// kernel with finite parameters, the counts of rho, label, nr_sv, probA,
// probB and of the coefficients fitting nr_class and the support vectors,
// distinct labels, finite numbers, support vectors of increasing indices
// (for a precomputed kernel the single node 0:serial, an integer ≥ 1).
func (m *LIBSVMModel) Validate() error {
	if !knownSVMType(m.SVMType) {
		return fmt.Errorf("unknown svm_type %q (want c_svc, nu_svc, one_class, epsilon_svr or nu_svr)", m.SVMType)
	}
	ks := m.Kernel
	if _, ok := libsvmKernelType(ks.Name); !ok || ks.Normalized {
		return fmt.Errorf("kernel %s has no LIBSVM kernel_type", ks)
	}
	if !finite(ks.Gamma) || !finite(ks.Coef0) || ks.Degree < 0 {
		return fmt.Errorf("kernel %s: parameters must be finite, the degree ≥ 0", ks)
	}
	k := m.NrClass
	if k < 2 || k > maxLIBSVMClasses {
		return fmt.Errorf("nr_class %d is not in 2 … %d", k, maxLIBSVMClasses)
	}
	pairs := m.Pairs()
	if len(m.Rho) != pairs {
		return fmt.Errorf("%d rho values for nr_class %d (want %d)", len(m.Rho), k, pairs)
	}
	if err := allFinite("rho", m.Rho); err != nil {
		return err
	}
	l := len(m.SV)
	if isClassifier(m.SVMType) {
		if len(m.Label) != k || len(m.NrSV) != k {
			return fmt.Errorf("%s: %d labels and %d nr_sv counts for nr_class %d", m.SVMType, len(m.Label), len(m.NrSV), k)
		}
		seen := make(map[int]bool, k)
		total := 0
		for c, lab := range m.Label {
			if seen[lab] {
				return fmt.Errorf("label %d appears twice", lab)
			}
			seen[lab] = true
			if m.NrSV[c] < 0 || m.NrSV[c] > l {
				return fmt.Errorf("nr_sv %d of class %d is not in 0 … total_sv = %d", m.NrSV[c], lab, l)
			}
			total += m.NrSV[c]
		}
		if total != l {
			return fmt.Errorf("nr_sv adds up to %d, but there are %d support vectors", total, l)
		}
		if (m.ProbA == nil) != (m.ProbB == nil) || m.ProbA != nil && (len(m.ProbA) != pairs || len(m.ProbB) != pairs) {
			return fmt.Errorf("%d probA and %d probB values for %d pairs", len(m.ProbA), len(m.ProbB), pairs)
		}
		if m.ProbDensityMarks != nil {
			return fmt.Errorf("%s: prob_density_marks belong to one_class", m.SVMType)
		}
	} else {
		if k != 2 || m.Label != nil || m.NrSV != nil {
			return fmt.Errorf("%s: nr_class must be 2 and there are no label and nr_sv lines", m.SVMType)
		}
		if m.ProbB != nil || m.ProbA != nil && (m.SVMType == "one_class" || len(m.ProbA) != 1) {
			return fmt.Errorf("%s: %d probA and %d probB values (a regression has at most one probA)", m.SVMType, len(m.ProbA), len(m.ProbB))
		}
		if m.ProbDensityMarks != nil && m.SVMType != "one_class" {
			return fmt.Errorf("%s: prob_density_marks belong to one_class", m.SVMType)
		}
	}
	for _, v := range [][]float64{m.ProbA, m.ProbB, m.ProbDensityMarks} {
		if err := allFinite("probability parameters", v); err != nil {
			return err
		}
	}
	if len(m.SVCoef) != k-1 {
		return fmt.Errorf("%d rows of coefficients for nr_class %d (want %d)", len(m.SVCoef), k, k-1)
	}
	for _, row := range m.SVCoef {
		if len(row) != l {
			return fmt.Errorf("a row of %d coefficients for %d support vectors", len(row), l)
		}
		if err := allFinite("coefficients", row); err != nil {
			return err
		}
	}
	for s, sv := range m.SV {
		if err := sv.check(); err != nil {
			return fmt.Errorf("support vector %d: %v", s+1, err)
		}
		if ks.Name == kernel.Precomputed {
			if _, err := precomputedSerial(sv); err != nil {
				return fmt.Errorf("support vector %d: %v", s+1, err)
			}
		}
	}
	return nil
}

// precomputedSerial returns the serial of a precomputed kernel's support
// vector, the single node 0:serial.
func precomputedSerial(sv LIBSVMRow) (int, error) {
	if len(sv.Index) != 1 || sv.Index[0] != 0 {
		return 0, fmt.Errorf("a precomputed kernel's support vector is the single node 0:serial")
	}
	s := sv.Value[0]
	if s != math.Trunc(s) || s < 1 || s > math.MaxInt32 {
		return 0, fmt.Errorf("serial %g is not an integer ≥ 1", s)
	}
	return int(s), nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func allFinite(what string, v []float64) error {
	for _, x := range v {
		if !finite(x) {
			return fmt.Errorf("%s hold %g", what, x)
		}
	}
	return nil
}

// ReadLIBSVMModel reads a LIBSVM model file as svm-train writes it
// (svm.cpp's svm_save_model): the header lines svm_type, kernel_type,
// degree, gamma, coef0 (those the kernel has), nr_class, total_sv, rho,
// label, probA, probB, prob_density_marks, nr_sv (those the model has),
// then "SV" and total_sv lines of k−1 coefficients and index:value nodes.
// Unlike LIBSVM's loader it checks everything Validate checks and refuses
// unknown or repeated keywords, missing kernel parameters, short or extra
// support vector lines; errors name the line. It never panics on bad
// input.
func ReadLIBSVMModel(r io.Reader) (*LIBSVMModel, error) {
	m, err := parseLIBSVMModel(bufio.NewReader(r))
	if err != nil {
		return nil, fmt.Errorf("svm: LIBSVM model: %w", err)
	}
	return m, nil
}

func parseLIBSVMModel(br *bufio.Reader) (*LIBSVMModel, error) {
	m := &LIBSVMModel{}
	seen := map[string]bool{}
	totalSV := -1
	line := 0
	next := func() (string, bool, error) {
		s, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return "", false, err
		}
		line++
		return s, err == io.EOF, nil
	}
	for {
		s, eof, err := next()
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		f := strings.Fields(s)
		if len(f) == 0 {
			if eof {
				return nil, fmt.Errorf("no SV line: the file ends in the header")
			}
			continue
		}
		key, vals := f[0], f[1:]
		if seen[key] {
			return nil, fmt.Errorf("line %d: %s given twice", line, key)
		}
		seen[key] = true
		if key == "SV" {
			if len(vals) > 0 {
				return nil, fmt.Errorf("line %d: text after SV", line)
			}
			break
		}
		if err := m.header(key, vals, &totalSV); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if eof {
			return nil, fmt.Errorf("no SV line: the file ends in the header")
		}
	}
	if err := m.checkHeader(seen, totalSV); err != nil {
		return nil, err
	}
	k := m.NrClass
	m.SVCoef = make([][]float64, k-1)
	for j := range m.SVCoef {
		m.SVCoef[j] = make([]float64, 0, min(totalSV, 1<<16))
	}
	m.SV = make([]LIBSVMRow, 0, min(totalSV, 1<<16))
	for s := 0; s < totalSV; s++ {
		str, eof, err := next()
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		f := strings.Fields(str)
		if len(f) == 0 {
			return nil, fmt.Errorf("line %d: support vector %d of total_sv = %d missing", line, s+1, totalSV)
		}
		if len(f) < k-1 {
			return nil, fmt.Errorf("line %d: %d fields, want %d coefficients and the nodes", line, len(f), k-1)
		}
		for j := 0; j < k-1; j++ {
			v, err := strconv.ParseFloat(f[j], 64)
			if err != nil || !finite(v) {
				return nil, fmt.Errorf("line %d: bad coefficient %q", line, f[j])
			}
			m.SVCoef[j] = append(m.SVCoef[j], v)
		}
		var sv LIBSVMRow
		if err := parseNodes(&sv, f[k-1:]); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if m.Kernel.Name == kernel.Precomputed {
			if _, err := precomputedSerial(sv); err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
		}
		m.SV = append(m.SV, sv)
		if eof && s+1 < totalSV {
			return nil, fmt.Errorf("the file ends after %d of total_sv = %d support vectors", s+1, totalSV)
		}
	}
	for {
		s, eof, err := next()
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if strings.TrimSpace(s) != "" {
			return nil, fmt.Errorf("line %d: more support vectors than total_sv = %d", line, totalSV)
		}
		if eof {
			break
		}
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// header parses one header line.
func (m *LIBSVMModel) header(key string, vals []string, totalSV *int) error {
	one := func() (string, error) {
		if len(vals) != 1 {
			return "", fmt.Errorf("%s takes one value, got %d", key, len(vals))
		}
		return vals[0], nil
	}
	oneInt := func() (int, error) {
		s, err := one()
		if err != nil {
			return 0, err
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("%s %q is not an integer", key, s)
		}
		return v, nil
	}
	floats := func() ([]float64, error) {
		v := make([]float64, len(vals))
		for i, s := range vals {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || !finite(x) {
				return nil, fmt.Errorf("%s: bad number %q", key, s)
			}
			v[i] = x
		}
		return v, nil
	}
	ints := func() ([]int, error) {
		v := make([]int, len(vals))
		for i, s := range vals {
			x, err := strconv.Atoi(s)
			if err != nil || x < math.MinInt32 || x > math.MaxInt32 {
				return nil, fmt.Errorf("%s: %q is not an integer", key, s)
			}
			v[i] = x
		}
		return v, nil
	}
	var err error
	switch key {
	case "svm_type":
		var s string
		if s, err = one(); err == nil && !knownSVMType(s) {
			err = fmt.Errorf("unknown svm_type %q (want c_svc, nu_svc, one_class, epsilon_svr or nu_svr)", s)
		}
		m.SVMType = s
	case "kernel_type":
		var s string
		if s, err = one(); err == nil {
			name, ok := libsvmKernelNames[s]
			if !ok {
				err = fmt.Errorf("unknown kernel_type %q (want linear, polynomial, rbf, sigmoid or precomputed)", s)
			}
			m.Kernel.Name = name
		}
	case "degree":
		if m.Kernel.Degree, err = oneInt(); err == nil && m.Kernel.Degree < 0 {
			err = fmt.Errorf("degree %d < 0", m.Kernel.Degree)
		}
	case "gamma", "coef0":
		var v []float64
		if _, err = one(); err == nil {
			if v, err = floats(); err == nil {
				if key == "gamma" {
					m.Kernel.Gamma = v[0]
				} else {
					m.Kernel.Coef0 = v[0]
				}
			}
		}
	case "nr_class":
		if m.NrClass, err = oneInt(); err == nil && (m.NrClass < 2 || m.NrClass > maxLIBSVMClasses) {
			err = fmt.Errorf("nr_class %d is not in 2 … %d", m.NrClass, maxLIBSVMClasses)
		}
	case "total_sv":
		if *totalSV, err = oneInt(); err == nil && *totalSV < 0 {
			err = fmt.Errorf("total_sv %d < 0", *totalSV)
		}
	case "rho":
		m.Rho, err = floats()
	case "probA":
		m.ProbA, err = floats()
	case "probB":
		m.ProbB, err = floats()
	case "prob_density_marks":
		m.ProbDensityMarks, err = floats()
	case "label":
		m.Label, err = ints()
	case "nr_sv":
		m.NrSV, err = ints()
	default:
		err = fmt.Errorf("unknown keyword %q", key)
	}
	return err
}

// checkHeader reports a required header line that is missing.
func (m *LIBSVMModel) checkHeader(seen map[string]bool, totalSV int) error {
	need := []string{"svm_type", "kernel_type", "nr_class", "total_sv", "rho"}
	switch m.Kernel.Name {
	case "poly":
		need = append(need, "degree", "gamma", "coef0")
	case "rbf":
		need = append(need, "gamma")
	case "sigmoid":
		need = append(need, "gamma", "coef0")
	}
	if isClassifier(m.SVMType) {
		need = append(need, "label", "nr_sv")
	}
	for _, k := range need {
		if !seen[k] {
			return fmt.Errorf("no %s line before SV", k)
		}
	}
	if len(m.Rho) != m.Pairs() {
		return fmt.Errorf("%d rho values for nr_class %d (want %d)", len(m.Rho), m.NrClass, m.Pairs())
	}
	if isClassifier(m.SVMType) && (len(m.Label) != m.NrClass || len(m.NrSV) != m.NrClass) {
		return fmt.Errorf("%d labels and %d nr_sv counts for nr_class %d", len(m.Label), len(m.NrSV), m.NrClass)
	}
	if m.NrSV != nil {
		sum := 0
		for _, n := range m.NrSV {
			if n < 0 {
				return fmt.Errorf("nr_sv holds %d", n)
			}
			sum += n
		}
		if sum != totalSV {
			return fmt.Errorf("nr_sv adds up to %d, total_sv is %d", sum, totalSV)
		}
	}
	return nil
}

// Write writes the model in LIBSVM's format, as svm_save_model does, with
// the coefficients, ρ and the kernel parameters to 17 significant digits
// and the support vectors' values in the shortest form that reads back
// exactly (float32 values exactly as they are). It reports an invalid
// model (Validate) instead of writing it.
func (m *LIBSVMModel) Write(w io.Writer) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("svm: LIBSVM model: %w", err)
	}
	bw := bufio.NewWriter(w)
	kt, _ := libsvmKernelType(m.Kernel.Name)
	fmt.Fprintf(bw, "svm_type %s\nkernel_type %s\n", m.SVMType, kt)
	ks := m.Kernel
	switch kt {
	case "polynomial":
		fmt.Fprintf(bw, "degree %d\ngamma %s\ncoef0 %s\n", ks.Degree, fmtF(ks.Gamma), fmtF(ks.Coef0))
	case "rbf":
		fmt.Fprintf(bw, "gamma %s\n", fmtF(ks.Gamma))
	case "sigmoid":
		fmt.Fprintf(bw, "gamma %s\ncoef0 %s\n", fmtF(ks.Gamma), fmtF(ks.Coef0))
	}
	fmt.Fprintf(bw, "nr_class %d\ntotal_sv %d\n", m.NrClass, len(m.SV))
	var buf []byte
	list := func(key string, v []float64) {
		if v == nil {
			return
		}
		buf = append(buf[:0], key...)
		for _, x := range v {
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, x, 'g', 17, 64)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	intList := func(key string, v []int) {
		if v == nil {
			return
		}
		buf = append(buf[:0], key...)
		for _, x := range v {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(x), 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	list("rho", m.Rho)
	intList("label", m.Label)
	list("probA", m.ProbA)
	list("probB", m.ProbB)
	list("prob_density_marks", m.ProbDensityMarks)
	intList("nr_sv", m.NrSV)
	bw.WriteString("SV\n")
	for s, sv := range m.SV {
		buf = buf[:0]
		for _, row := range m.SVCoef {
			buf = strconv.AppendFloat(buf, row[s], 'g', 17, 64)
			buf = append(buf, ' ')
		}
		for k, i := range sv.Index {
			buf = strconv.AppendInt(buf, int64(i), 10)
			buf = append(buf, ':')
			if kt == "precomputed" {
				buf = strconv.AppendInt(buf, int64(sv.Value[k]), 10)
			} else {
				buf = strconv.AppendFloat(buf, sv.Value[k], 'g', -1, 64)
			}
			buf = append(buf, ' ')
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// kernelValue returns K(x, sv) as svm.cpp's Kernel::k_function computes
// it, in float64 over the nodes: dot products and RBF's squared distance
// summed over the merged indices in increasing order, powers by repeated
// squaring; for a precomputed kernel x's value at the support vector's
// serial (0 if x has none there).
func (m *LIBSVMModel) kernelValue(x, sv LIBSVMRow) float64 {
	ks := m.Kernel
	switch ks.Name {
	case kernel.Precomputed:
		return x.At(int(sv.Value[0]))
	case "rbf":
		return math.Exp(-ks.Gamma * sqDist64(x, sv))
	}
	dot := dot64(x, sv)
	switch ks.Name {
	case "poly":
		return powi(ks.Gamma*dot+ks.Coef0, ks.Degree)
	case "sigmoid":
		return math.Tanh(ks.Gamma*dot + ks.Coef0)
	}
	return dot
}

// dot64 returns Σ x_i·y_i over the indices both rows hold.
func dot64(x, y LIBSVMRow) float64 {
	var s float64
	a, b := 0, 0
	for a < len(x.Index) && b < len(y.Index) {
		switch {
		case x.Index[a] == y.Index[b]:
			s += x.Value[a] * y.Value[b]
			a++
			b++
		case x.Index[a] > y.Index[b]:
			b++
		default:
			a++
		}
	}
	return s
}

// sqDist64 returns ‖x − y‖² summed over the merged indices.
func sqDist64(x, y LIBSVMRow) float64 {
	var s float64
	a, b := 0, 0
	for a < len(x.Index) && b < len(y.Index) {
		switch {
		case x.Index[a] == y.Index[b]:
			d := x.Value[a] - y.Value[b]
			s += d * d
			a++
			b++
		case x.Index[a] > y.Index[b]:
			s += y.Value[b] * y.Value[b]
			b++
		default:
			s += x.Value[a] * x.Value[a]
			a++
		}
	}
	for ; a < len(x.Index); a++ {
		s += x.Value[a] * x.Value[a]
	}
	for ; b < len(y.Index); b++ {
		s += y.Value[b] * y.Value[b]
	}
	return s
}

// powi returns x^n by repeated squaring (svm.cpp's powi).
func powi(x float64, n int) float64 {
	r := 1.0
	for t := n; t > 0; t /= 2 {
		if t%2 == 1 {
			r *= x
		}
		x *= x
	}
	return r
}

// PredictValues returns what svm-predict predicts for x (with -b 0) —
// the label for a classifier, +1 or −1 for one_class, the value for a
// regression — and, when dec is not nil, sets dec[p] to the decision value
// of pair p in LIBSVM's order (dec[0] the single decision value of
// one_class and the regressions), by svm.cpp's svm_predict_values: the
// kernel values in float64 and the sums in its order, so that the values
// are svm-predict's. dec needs room for Pairs() values. The model must be
// valid (ReadLIBSVMModel's are; see Validate).
func (m *LIBSVMModel) PredictValues(x LIBSVMRow, dec []float64) float64 {
	kv := make([]float64, len(m.SV))
	for s, sv := range m.SV {
		kv[s] = m.kernelValue(x, sv)
	}
	if !isClassifier(m.SVMType) {
		var sum float64
		for s, c := range m.SVCoef[0] {
			sum += c * kv[s]
		}
		sum -= m.Rho[0]
		if dec != nil {
			dec[0] = sum
		}
		if m.SVMType == "one_class" {
			if sum > 0 {
				return 1
			}
			return -1
		}
		return sum
	}
	k := m.NrClass
	start := make([]int, k)
	for c := 1; c < k; c++ {
		start[c] = start[c-1] + m.NrSV[c-1]
	}
	vote := make([]int, k)
	p := 0
	for i := 0; i < k; i++ {
		for j := i + 1; j < k; j++ {
			var sum float64
			c1, c2 := m.SVCoef[j-1], m.SVCoef[i]
			for s := start[i]; s < start[i]+m.NrSV[i]; s++ {
				sum += c1[s] * kv[s]
			}
			for s := start[j]; s < start[j]+m.NrSV[j]; s++ {
				sum += c2[s] * kv[s]
			}
			sum -= m.Rho[p]
			if dec != nil {
				dec[p] = sum
			}
			if sum > 0 {
				vote[i]++
			} else {
				vote[j]++
			}
			p++
		}
	}
	return float64(m.Label[VoteOneVsOne(vote)])
}

// Predict returns PredictValues(x, nil).
func (m *LIBSVMModel) Predict(x LIBSVMRow) float64 { return m.PredictValues(x, nil) }

// VoteOneVsOne returns the class with the most votes, a tie going to the
// smallest index (LIBSVM's rule, in LIBSVM's order of the labels).
func VoteOneVsOne(votes []int) int {
	best := 0
	for c, v := range votes {
		if v > votes[best] {
			best = c
		}
	}
	return best
}

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
func (m *LIBSVMModel) Heads(d int) ([]*Model, error) {
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
			serial, _ := precomputedSerial(sv)
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
		need = max(need, sv.maxIndex())
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
	if !isClassifier(m.SVMType) {
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
	if t := m.Info["svm_type"]; knownSVMType(t) {
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
func libsvmSV(m *Model, i int, serials []int) (LIBSVMRow, error) {
	if serials != nil {
		if serials[i] < 1 {
			return LIBSVMRow{}, fmt.Errorf("svm: support vector %d of a precomputed-kernel model is not the indicator of one column", i)
		}
		return LIBSVMRow{Index: []int32{0}, Value: []float64{float64(serials[i])}}, nil
	}
	return LIBSVMRowOf(m.svVec(i)), nil
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
func NewLIBSVMModel(m *Model) (*LIBSVMModel, error) {
	if err := m.consistent(); err != nil {
		return nil, fmt.Errorf("svm: inconsistent model: %w", err)
	}
	lm, err := newLIBSVMHeader(m.Kernel, libsvmType(m))
	if err != nil {
		return nil, err
	}
	serials := m.Serials()
	if !isClassifier(lm.SVMType) {
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
func newLIBSVMHeader(s kernel.Spec, svmType string) (*LIBSVMModel, error) {
	if s.Normalized {
		return nil, fmt.Errorf("svm: LIBSVM has no normalized kernels (model kernel %s)", s)
	}
	kt, ok := libsvmKernelType(s.Name)
	if !ok {
		return nil, fmt.Errorf("svm: kernel %q has no LIBSVM equivalent", s.Name)
	}
	s.Name = libsvmKernelNames[kt]
	switch s.Name {
	case "linear", kernel.Precomputed:
		s.Gamma, s.Coef0, s.Degree = 0, 0, 0
	case "rbf":
		s.Coef0, s.Degree = 0, 0
	case "sigmoid":
		s.Degree = 0
	}
	return &LIBSVMModel{SVMType: svmType, Kernel: s, NrClass: 2}, nil
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
func NewLIBSVMOneVsOne(heads []*Model, labels []float64) (*LIBSVMModel, error) {
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
	if !isClassifier(svmType) {
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
		row  LIBSVMRow
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
