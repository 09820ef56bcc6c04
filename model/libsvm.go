package model

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
	"github.com/nsvm-go/nsvm/svm/libsvm"
)

// libsvmSource is Model.Info["source"] of a model read from a LIBSVM model
// file: its inputs are LIBSVM's unbounded sparse index space (see
// WidenInput).
const libsvmSource = "libsvm"

// isLIBSVMModel reports whether b begins like a LIBSVM model file.
func isLIBSVMModel(b []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("svm_type"))
}

// ReadLIBSVMModel reads a model file written by LIBSVM's svm-train (any
// svm_type but a precomputed kernel) as a Model: a classifier of two
// classes, or of more as one-vs-one heads over the labels in increasing
// order (LIBSVM's pairs reordered, and flipped where LIBSVM's pair has its
// classes the other way round); a one-class model predicting +1 and −1; a
// regressor. Its input width is the largest feature index of its support
// vectors (for a precomputed kernel, the largest serial: rows of kernel
// values, see ReadPrecomputed); WidenInput widens it for data with larger
// indices, which LIBSVM allows. Info["source"] is "libsvm" and Info["svm_type"] LIBSVM's type.
// A model whose decisions cannot be finite (a hand-edited degree of 10⁹, …)
// is refused.
func ReadLIBSVMModel(r io.Reader) (*Model, error) {
	lm, err := libsvm.ReadModel(r)
	if err != nil {
		return nil, err
	}
	heads, err := svm.HeadsOf(lm, 0)
	if err != nil {
		return nil, err
	}
	m := &Model{Algorithm: "smo", Info: map[string]string{"source": libsvmSource, "svm_type": lm.SVMType}}
	switch {
	case lm.SVMType == "epsilon_svr" || lm.SVMType == "nu_svr":
		m.Task, m.Head = Regression, heads[0]
	case lm.SVMType == "one_class":
		m.Head = heads[0]
	case lm.NrClass == 2:
		// Head.Pos is LIBSVM's first label, Labels() is (Neg, Pos).
		m.Head = heads[0]
		m.libsvmLabels = []int{1, 0}
		if lm.ProbA != nil {
			m.Sigmoids = []svm.Platt{{A: lm.ProbA[0], B: lm.ProbB[0]}}
		}
	default:
		labels := make([]float64, lm.NrClass)
		for i, l := range lm.Label {
			labels[i] = float64(l)
		}
		classes := slices.Clone(labels)
		slices.Sort(classes)
		ours := make([]*svm.Model, len(heads))
		var sig []svm.Platt
		if lm.ProbA != nil {
			sig = make([]svm.Platt, len(heads))
		}
		for p, h := range heads {
			i, j := svm.PairClasses(p, lm.NrClass)
			a, _ := slices.BinarySearch(classes, labels[i])
			b, _ := slices.BinarySearch(classes, labels[j])
			flip := a > b
			if flip {
				a, b = b, a
				for k := range h.Coef {
					h.Coef[k] = -h.Coef[k]
				}
				h.Bias = -h.Bias
			}
			q := pairIndex(a, b, lm.NrClass)
			ours[q] = h
			if sig != nil {
				// P(class i of LIBSVM's pair) = 1/(1 + exp(A·f + B)); with
				// the head negated, P(its first class) = 1/(1 + exp(A·f − B)).
				sig[q] = svm.Platt{A: lm.ProbA[p], B: lm.ProbB[p]}
				if flip {
					sig[q].B = -sig[q].B
				}
			}
		}
		m.Sigmoids = sig
		m.libsvmLabels = make([]int, lm.NrClass)
		for k, l := range labels {
			m.libsvmLabels[k], _ = slices.BinarySearch(classes, l)
		}
		for _, h := range ours {
			h.Neg, h.Pos = -1, 1
		}
		m.SetHeads(classes, OneVsOne, ours)
	}
	if err := m.checkFinite(); err != nil {
		return nil, err
	}
	return m, nil
}

// pairIndex is the inverse of pairOf: the head of classes a < b of c.
func pairIndex(a, b, c int) int {
	return a*c - a*(a+1)/2 + (b - a - 1)
}

// libsvmOrder returns the indices of m's classes (Labels()) in the order a
// LIBSVM model file lists them: the file's for a model read from one, the
// order WriteLIBSVM writes otherwise (the classes' own).
func (m *Model) libsvmOrder() []int {
	if m.libsvmLabels != nil {
		return m.libsvmLabels
	}
	order := make([]int, len(m.Labels()))
	for i := range order {
		order[i] = i
	}
	return order
}

// FromLIBSVM reports whether m was read from a LIBSVM model file.
func (m *Model) FromLIBSVM() bool { return m.Info["source"] == libsvmSource }

// WidenInput makes a model read from a LIBSVM model file take rows of d
// features (d ≥ InSize()): features its support vectors do not hold are 0
// there, as in LIBSVM. Other models keep their width (an error).
func (m *Model) WidenInput(d int) error {
	switch {
	case d == m.InSize():
		return nil
	case !m.FromLIBSVM():
		return fmt.Errorf("nsvm: the model takes %d features a row, not %d", m.InSize(), d)
	case d < m.InSize():
		return fmt.Errorf("nsvm: cannot narrow the model's %d features to %d", m.InSize(), d)
	}
	heads := m.Heads
	if heads == nil {
		heads = []*svm.Model{m.Head}
	}
	for _, h := range heads {
		if h.SVSparse == nil {
			return fmt.Errorf("nsvm: the model's support vectors are dense")
		}
		h.D = d
	}
	return nil
}

// ErrNotExportable marks a model that a LIBSVM model file cannot hold, or
// (package model/onnx) an ONNX graph.
var ErrNotExportable = errors.New("nsvm: the model has no LIBSVM form")

// WriteLIBSVM writes m as a LIBSVM model file that svm-predict reads and
// that gives m's labels (regression values): a binary classifier, a
// one-vs-one multiclass model (LIBSVM's pairs over m's classes in
// increasing order), a one-class model or an SVR — a classical model on the
// inputs. Its probability calibration becomes LIBSVM's probA and probB
// (svm-predict -b 1). What a LIBSVM model file cannot say goes beside it:
// inputs m standardises need svm-scale with the range file of WriteSVMScale
// (NeedsSVMScale) — a global scaling of an RBF model is folded into γ
// instead, exactly —, and named classes are written as their class
// indices, with the names in WriteLabelNames. Networks and one-vs-rest
// heads have no LIBSVM form (ErrNotExportable).
func (m *Model) WriteLIBSVM(w io.Writer) error {
	switch {
	case m.Net != nil:
		return fmt.Errorf("%w: it has a network (%s); LIBSVM models take the inputs as they are", ErrNotExportable, m.Algorithm)
	case m.Multiclass() && m.Scheme != OneVsOne:
		return fmt.Errorf("%w: its heads are one-vs-rest; LIBSVM's multiclass models are one-vs-one", ErrNotExportable)
	}
	heads := m.Heads
	if !m.Multiclass() {
		heads = []*svm.Model{m.Head}
	}
	if s, ok := m.foldedScale(); ok {
		heads = unscaledHeads(heads, m.Mean[0], s)
	}
	var lm *libsvm.Model
	var err error
	if m.Multiclass() {
		lm, err = svm.NewLIBSVMOneVsOne(heads, m.Classes)
	} else {
		lm, err = svm.NewLIBSVMModel(heads[0])
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotExportable, err)
	}
	if m.Calibrated() && !m.Regression() && !m.OneClass() {
		// Binary: LIBSVM's classes are (Neg, Pos) and its decision −g, so
		// P(Neg) = 1/(1 + exp(A·(−g) − B)). One-vs-one: its pairs and
		// decisions are the heads'.
		for h := range heads {
			sg := m.sigmoid(h)
			if !m.Multiclass() {
				sg.B = -sg.B
			}
			lm.ProbA, lm.ProbB = append(lm.ProbA, sg.A), append(lm.ProbB, sg.B)
		}
	}
	return lm.Write(w)
}

// foldedScale reports whether m's input scaling folds exactly into its
// kernel, and its scale: a global scaling (one mean and one deviation s
// for every input) of an RBF kernel, whose distances it only divides by s.
func (m *Model) foldedScale() (float64, bool) {
	if m.Mean == nil || m.Head.Kernel.Name != "rbf" || m.Head.Kernel.Normalized {
		return 0, false
	}
	for j := range m.Mean {
		if m.Mean[j] != m.Mean[0] || m.Std[j] != m.Std[0] {
			return 0, false
		}
	}
	return m.Std[0], true
}

// unscaledHeads returns copies of RBF heads on inputs scaled as
// (x − mean)/s that take the inputs as they are: γ/s², and support vectors
// s·z + mean.
func unscaledHeads(heads []*svm.Model, mean, s float64) []*svm.Model {
	out := make([]*svm.Model, len(heads))
	for h, hd := range heads {
		c := &svm.Model{Kernel: hd.Kernel, NSV: hd.NSV, D: hd.D, Coef: hd.Coef, Bias: hd.Bias, Neg: hd.Neg, Pos: hd.Pos, Info: hd.Info}
		c.Kernel.Gamma = hd.Kernel.Gamma / (s * s)
		c.SV = make([]float32, hd.NSV*hd.D)
		for i := range hd.NSV {
			z := make([]float32, hd.D)
			hd.SupportVector(i).Scatter(z)
			for j, v := range z {
				c.SV[i*hd.D+j] = float32(float64(v)*s + mean)
			}
		}
		out[h] = c
	}
	return out
}

// NeedsSVMScale reports whether the LIBSVM form of m (WriteLIBSVM) takes
// inputs scaled by svm-scale with the range file WriteSVMScale writes: m
// scales its inputs in a way its LIBSVM model cannot say.
func (m *Model) NeedsSVMScale() bool {
	_, folded := m.foldedScale()
	return m.Mean != nil && !folded
}

// WriteSVMScale writes the range file with which svm-scale -r scales inputs
// as m does ((x − mean)/std for every feature: the range [mean − std,
// mean + std] mapped to [−1, 1]), for the LIBSVM form of a model that
// NeedsSVMScale.
func (m *Model) WriteSVMScale(w io.Writer) error {
	if m.Mean == nil {
		return errors.New("nsvm: the model does not scale its inputs")
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "x\n-1 1\n")
	for j := range m.Mean {
		fmt.Fprintf(bw, "%d %.17g %.17g\n", j+1, m.Mean[j]-m.Std[j], m.Mean[j]+m.Std[j])
	}
	return bw.Flush()
}

// WriteLabelNames writes the names of a model's classes, one line a class:
// the label its LIBSVM form uses (the class index), a tab and the name.
func (m *Model) WriteLabelNames(w io.Writer) error {
	if m.LabelNames == nil {
		return errors.New("nsvm: the model's classes have no names")
	}
	bw := bufio.NewWriter(w)
	for i, n := range m.LabelNames {
		fmt.Fprintf(bw, "%d\t%s\n", i, n)
	}
	return bw.Flush()
}

// loadLIBSVMModel reads the LIBSVM model file path.
func loadLIBSVMModel(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("nsvm: %w", err)
	}
	defer f.Close()
	m, err := ReadLIBSVMModel(f)
	if err != nil {
		return nil, fmt.Errorf("nsvm: %s: %w", path, errmsg.Strip(err))
	}
	return m, nil
}

// WidenFor makes ds and a model read from a LIBSVM model file agree on the
// width of their rows: the wider of the two (ds's rows become sparse if it
// must widen; see WidenInput). For other models it does nothing.
func (m *Model) WidenFor(ds *data.Dataset) error {
	if !m.FromLIBSVM() || ds.D == m.InSize() {
		return nil
	}
	if ds.D < m.InSize() {
		if ds.Sparse == nil {
			ds.Sparsify()
		}
		ds.D = m.InSize()
		ds.Shape = nil
		return nil
	}
	return m.WidenInput(ds.D)
}

// Precomputed reports whether m takes rows of kernel values (a model of
// FitPrecomputed, or a LIBSVM model of kernel_type precomputed).
func (m *Model) Precomputed() bool { return m.Head != nil && m.Head.Kernel.Name == kernel.Precomputed }
