package svm

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteLIBSVM writes the model as a LIBSVM model file (svm_type c_svc,
// two classes) that svm-predict reads and classifies exactly as Predict does.
//
// LIBSVM evaluates dec = Σ_i sv_coef_i·K(SV_i, x) − rho and predicts
// label[0] when dec > 0 and label[1] otherwise. The file therefore lists the
// labels as "Neg Pos" with sv_coef = −Coef and rho = Bias, so that
// dec = −decision(x): dec > 0 ⇔ decision < 0 ⇔ Neg, and a decision of
// exactly 0 gives Pos on both sides. Support vectors are written grouped by
// class (those with Coef < 0, which LIBSVM counts for label[0], first),
// sparse (from dense and sparse support vectors alike), with 1-based
// indices; float32 features are written as the exact decimal of their
// value, coefficients with 17 significant digits.
//
// LIBSVM has no normalised kernels: for those WriteLIBSVM returns an error.
func (m *Model) WriteLIBSVM(w io.Writer) error {
	m.check()
	s := m.Kernel
	if s.Normalized {
		return fmt.Errorf("svm: LIBSVM has no normalized kernels (model kernel %s)", s)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "svm_type c_svc")
	switch s.Name {
	case "linear":
		fmt.Fprintln(bw, "kernel_type linear")
	case "poly", "polynomial":
		fmt.Fprintf(bw, "kernel_type polynomial\ndegree %d\ngamma %s\ncoef0 %s\n", s.Degree, fmtF(s.Gamma), fmtF(s.Coef0))
	case "rbf", "gaussian":
		fmt.Fprintf(bw, "kernel_type rbf\ngamma %s\n", fmtF(s.Gamma))
	case "sigmoid", "tanh":
		fmt.Fprintf(bw, "kernel_type sigmoid\ngamma %s\ncoef0 %s\n", fmtF(s.Gamma), fmtF(s.Coef0))
	default:
		return fmt.Errorf("svm: kernel %q has no LIBSVM equivalent", s.Name)
	}
	neg, pos := m.labels()
	var nNeg int
	for _, c := range m.Coef {
		if c < 0 {
			nNeg++
		}
	}
	fmt.Fprintf(bw, "nr_class 2\ntotal_sv %d\nrho %s\n", m.NSV, fmtF(m.Bias))
	fmt.Fprintf(bw, "label %s %s\nnr_sv %d %d\nSV\n", fmtF(neg), fmtF(pos), nNeg, m.NSV-nNeg)
	var buf []byte
	for pass := 0; pass < 2; pass++ {
		for i, c := range m.Coef {
			if (c < 0) != (pass == 0) {
				continue
			}
			buf = strconv.AppendFloat(buf[:0], -c, 'g', 17, 64)
			sv := m.svVec(i)
			for k, v := range sv.Val {
				if v == 0 {
					continue
				}
				j := k
				if sv.Idx != nil {
					j = int(sv.Idx[k])
				}
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(j+1), 10)
				buf = append(buf, ':')
				buf = strconv.AppendFloat(buf, float64(v), 'g', -1, 64)
			}
			buf = append(buf, ' ', '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
