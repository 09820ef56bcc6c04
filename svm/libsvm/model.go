// Package libsvm reads, checks, writes and evaluates LIBSVM's model files
// and rows as svm-train, svm-predict and svm-scale have them: Model is a
// model file's content (svm_type, kernel, classes, ρ, probA/probB, the
// support vectors and their coefficients), ReadModel and Model.Write its
// text, Model.PredictValues what svm-predict computes, in float64; Row is
// one row of index:value nodes, ReadRows LIBSVM's data format. Package svm
// converts its models to and from these (svm.HeadsOf, NewLIBSVMModel).
package libsvm

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/countio"
	"github.com/nsvm-go/nsvm/internal/numparse"
	"github.com/nsvm-go/nsvm/kernel"
)

// Model is a LIBSVM model file (svm-train's output, svm.cpp's
// svm_model) as it stands: every svm_type, every kernel_type, k classes
// with k(k−1)/2 one-vs-one pairs, support vectors of float64 values. It
// predicts as svm-predict does (PredictValues), converts to and from this
// package's models (Heads, NewLIBSVMModel, NewLIBSVMOneVsOne), and reads
// and writes the file (ReadModel, Write).
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
type Model struct {
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
	SV []Row
}

// KernelNames maps LIBSVM's kernel_type names to kernel.Spec names.
var KernelNames = map[string]string{
	"linear": "linear", "polynomial": "poly", "rbf": "rbf", "sigmoid": "sigmoid", "precomputed": kernel.Precomputed,
}

// KernelType returns LIBSVM's kernel_type name of a spec name.
func KernelType(name string) (string, bool) {
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

// IsClassifier reports whether an svm_type has classes.
func IsClassifier(svmType string) bool { return svmType == "c_svc" || svmType == "nu_svc" }

func KnownSVMType(t string) bool {
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
func (m *Model) Pairs() int { return m.NrClass * (m.NrClass - 1) / 2 }

// Validate reports whether the model is consistent: a known svm_type and
// kernel with finite parameters, the counts of rho, label, nr_sv, probA,
// probB and of the coefficients fitting nr_class and the support vectors,
// distinct labels, finite numbers, support vectors of increasing indices
// (for a precomputed kernel the single node 0:serial, an integer ≥ 1).
func (m *Model) Validate() error {
	if !KnownSVMType(m.SVMType) {
		return fmt.Errorf("unknown svm_type %s (want c_svc, nu_svc, one_class, epsilon_svr or nu_svr)", data.Quote(m.SVMType))
	}
	ks := m.Kernel
	if _, ok := KernelType(ks.Name); !ok || ks.Normalized {
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
	if IsClassifier(m.SVMType) {
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
		if err := sv.Check(); err != nil {
			return fmt.Errorf("support vector %d: %v", s+1, err)
		}
		if ks.Name == kernel.Precomputed {
			if _, err := PrecomputedSerial(sv); err != nil {
				return fmt.Errorf("support vector %d: %v", s+1, err)
			}
		}
	}
	return nil
}

// PrecomputedSerial returns the serial of a precomputed kernel's support
// vector, the single node 0:serial.
func PrecomputedSerial(sv Row) (int, error) {
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

// ReadModel reads a LIBSVM model file as svm-train writes it
// (svm.cpp's svm_save_model): the header lines svm_type, kernel_type,
// degree, gamma, coef0 (those the kernel has), nr_class, total_sv, rho,
// label, probA, probB, prob_density_marks, nr_sv (those the model has),
// then "SV" and total_sv lines of k−1 coefficients and index:value nodes.
// Unlike LIBSVM's loader it checks everything Validate checks and refuses
// unknown or repeated keywords, missing kernel parameters, short or extra
// support vector lines; errors name the line. It never panics on bad
// input.
//
// The file's size bounds what it may ask for: a support vector's largest
// index at most data.MaxWidth of the bytes read (a model of one support
// vector at index 2³⁰ would make every input a vector of 2³⁰ values), a
// line at most data.MaxLineBytes; a leading byte-order mark is dropped.
func ReadModel(r io.Reader) (*Model, error) {
	cr := &countio.Reader{R: data.NewTextReader(r)}
	m, err := parseLIBSVMModel(bufio.NewReader(cr))
	if err == nil {
		err = m.checkWidth(cr.N)
	}
	if err != nil {
		return nil, fmt.Errorf("svm: LIBSVM model: %w", err)
	}
	return m, nil
}

// checkWidth refuses support vectors whose largest index exceeds
// data.MaxWidth of the model file's size.
func (m *Model) checkWidth(size int64) error {
	if m.Kernel.Name == kernel.Precomputed {
		return nil
	}
	for s, sv := range m.SV {
		if w := sv.MaxIndex(); w > data.MaxWidth(size) {
			return fmt.Errorf("support vector %d has feature index %d, which would make every input %d features wide out of a model file of %d bytes (at most %d)", s+1, w, w, size, data.MaxWidth(size))
		}
	}
	return nil
}

func parseLIBSVMModel(br *bufio.Reader) (*Model, error) {
	m := &Model{}
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
			return nil, fmt.Errorf("line %d: %s given twice", line, data.Quote(key))
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
	m.SV = make([]Row, 0, min(totalSV, 1<<16))
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
			v, err := numparse.String64(f[j])
			if err != nil {
				return nil, fmt.Errorf("line %d: bad coefficient %s", line, data.Quote(f[j]))
			}
			m.SVCoef[j] = append(m.SVCoef[j], v)
		}
		var sv Row
		if err := parseNodes(&sv, f[k-1:]); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if m.Kernel.Name == kernel.Precomputed {
			if _, err := PrecomputedSerial(sv); err != nil {
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
func (m *Model) header(key string, vals []string, totalSV *int) error {
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
			return 0, fmt.Errorf("%s %s is not an integer", key, data.Quote(s))
		}
		return v, nil
	}
	floats := func() ([]float64, error) {
		v := make([]float64, len(vals))
		for i, s := range vals {
			x, err := numparse.String64(s)
			if err != nil {
				return nil, fmt.Errorf("%s: bad number %s", key, data.Quote(s))
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
				return nil, fmt.Errorf("%s: %s is not an integer", key, data.Quote(s))
			}
			v[i] = x
		}
		return v, nil
	}
	var err error
	switch key {
	case "svm_type":
		var s string
		if s, err = one(); err == nil && !KnownSVMType(s) {
			err = fmt.Errorf("unknown svm_type %s (want c_svc, nu_svc, one_class, epsilon_svr or nu_svr)", data.Quote(s))
		}
		m.SVMType = s
	case "kernel_type":
		var s string
		if s, err = one(); err == nil {
			name, ok := KernelNames[s]
			if !ok {
				err = fmt.Errorf("unknown kernel_type %s (want linear, polynomial, rbf, sigmoid or precomputed)", data.Quote(s))
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
	default:
		lines := m.listLines()
		i := slices.IndexFunc(lines, func(l listLine) bool { return l.key == key })
		switch {
		case i < 0:
			err = fmt.Errorf("unknown keyword %s", data.Quote(key))
		case lines[i].f != nil:
			*lines[i].f, err = floats()
		default:
			*lines[i].i, err = ints()
		}
	}
	return err
}

// listLine is a header line that holds a list, of numbers (f) or of
// integers (i).
type listLine struct {
	key string
	f   *[]float64
	i   *[]int
}

// listLines returns m's list lines in the order svm_save_model writes them.
func (m *Model) listLines() []listLine {
	return []listLine{
		{"rho", &m.Rho, nil}, {"label", nil, &m.Label}, {"probA", &m.ProbA, nil},
		{"probB", &m.ProbB, nil}, {"prob_density_marks", &m.ProbDensityMarks, nil}, {"nr_sv", nil, &m.NrSV},
	}
}

// appendTo appends the line — key, values, newline; numbers to 17
// significant digits — to buf; a nil list has no line.
func (l listLine) appendTo(buf []byte) []byte {
	switch {
	case l.f != nil && *l.f != nil:
		buf = append(buf, l.key...)
		for _, x := range *l.f {
			buf = strconv.AppendFloat(append(buf, ' '), x, 'g', 17, 64)
		}
	case l.i != nil && *l.i != nil:
		buf = append(buf, l.key...)
		for _, x := range *l.i {
			buf = strconv.AppendInt(append(buf, ' '), int64(x), 10)
		}
	default:
		return buf
	}
	return append(buf, '\n')
}

// checkHeader reports a required header line that is missing.
func (m *Model) checkHeader(seen map[string]bool, totalSV int) error {
	need := []string{"svm_type", "kernel_type", "nr_class", "total_sv", "rho"}
	switch m.Kernel.Name {
	case "poly":
		need = append(need, "degree", "gamma", "coef0")
	case "rbf":
		need = append(need, "gamma")
	case "sigmoid":
		need = append(need, "gamma", "coef0")
	}
	if IsClassifier(m.SVMType) {
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
	if IsClassifier(m.SVMType) && (len(m.Label) != m.NrClass || len(m.NrSV) != m.NrClass) {
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
func (m *Model) Write(w io.Writer) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("svm: LIBSVM model: %w", err)
	}
	bw := bufio.NewWriter(w)
	kt, _ := KernelType(m.Kernel.Name)
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
	for _, l := range m.listLines() {
		buf = l.appendTo(buf[:0])
		bw.Write(buf)
	}
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

// fmtF formats a number with every digit a float64 needs.
func fmtF(v float64) string { return fmt.Sprintf("%.17g", v) }
