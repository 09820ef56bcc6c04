package model

import (
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
	lm, err := svm.ReadLIBSVMModel(r)
	if err != nil {
		return nil, err
	}
	heads, err := lm.Heads(0)
	if err != nil {
		return nil, err
	}
	m := &Model{Algorithm: "smo", Info: map[string]string{"source": libsvmSource, "svm_type": lm.SVMType}}
	switch {
	case lm.SVMType == "epsilon_svr" || lm.SVMType == "nu_svr":
		m.Task, m.Head = Regression, heads[0]
	case lm.SVMType == "one_class" || lm.NrClass == 2:
		m.Head = heads[0]
	default:
		labels := make([]float64, lm.NrClass)
		for i, l := range lm.Label {
			labels[i] = float64(l)
		}
		classes := slices.Clone(labels)
		slices.Sort(classes)
		ours := make([]*svm.Model, len(heads))
		for p, h := range heads {
			i, j := svm.PairClasses(p, lm.NrClass)
			a, _ := slices.BinarySearch(classes, labels[i])
			b, _ := slices.BinarySearch(classes, labels[j])
			if a > b {
				a, b = b, a
				for k := range h.Coef {
					h.Coef[k] = -h.Coef[k]
				}
				h.Bias = -h.Bias
			}
			ours[pairIndex(a, b, lm.NrClass)] = h
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

// ErrNotExportable marks a model that a LIBSVM model file cannot hold.
var ErrNotExportable = errors.New("nsvm: the model has no LIBSVM form")

// WriteLIBSVM writes m as a LIBSVM model file that svm-predict reads and
// that gives m's labels (regression values): a binary classifier, a
// one-vs-one multiclass model (LIBSVM's pairs over m's classes in
// increasing order), a one-class model or an SVR — a classical model on
// unscaled inputs with integral labels. Networks, input scaling and
// one-vs-rest heads have no LIBSVM form (ErrNotExportable).
func (m *Model) WriteLIBSVM(w io.Writer) error {
	switch {
	case m.Net != nil:
		return fmt.Errorf("%w: it has a network (%s); LIBSVM models take the inputs as they are", ErrNotExportable, m.Algorithm)
	case m.Mean != nil:
		return fmt.Errorf("%w: it scales its inputs (%s), which a LIBSVM model file cannot say; train it with scaling none", ErrNotExportable, m.Info["scaling"])
	case m.LabelNames != nil:
		return fmt.Errorf("%w: its classes are names (%s); LIBSVM's labels are integers", ErrNotExportable, errmsg.List(m.LabelNames))
	case m.Multiclass() && m.Scheme != OneVsOne:
		return fmt.Errorf("%w: its heads are one-vs-rest; LIBSVM's multiclass models are one-vs-one", ErrNotExportable)
	}
	var lm *svm.LIBSVMModel
	var err error
	if m.Multiclass() {
		lm, err = svm.NewLIBSVMOneVsOne(m.Heads, m.Classes)
	} else {
		lm, err = svm.NewLIBSVMModel(m.Head)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotExportable, err)
	}
	return lm.Write(w)
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
