package svm

import (
	"io"
)

// WriteLIBSVM writes the model as a LIBSVM model file that svm-predict reads
// and predicts from exactly as Predict does (NewLIBSVMModel, then
// LIBSVMModel.Write). Its svm_type is the model's: c_svc for SMO's and the
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
