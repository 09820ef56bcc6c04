package svm

import (
	"fmt"
	"math"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm/libsvm"
)

// A precomputed kernel (LIBSVM's svm-train -t 4) gives the kernel values
// with the data instead of a function to compute them: each training row
// is "label 0:serial 1:K(x, x_1) 2:K(x, x_2) …" against the l training
// points, and so is each row to predict. Such a kernel sits beside the
// kernel.Kernel interface rather than behind it: there are no feature
// vectors to evaluate it on, only rows of values against points fixed at
// training time. The solvers need no kernel either, only the entries of
// Q, which a KernelMatrix supplies: NewGramMatrix and PrecomputedMatrix
// build one from the given values, and its SMO, SMOSVR, NuSVC, OneClass
// and NuSVR train on it as on a computed one.
//
// The models keep LIBSVM's form. Support vector i is the indicator of its
// training point's column in a row of kernel values (its serial s_i minus
// 1; Model.Serials returns them), the model's kernel is
// kernel.Spec{Name: kernel.Precomputed} and its width D that of the rows, so
// that the expansion is linear in a row x of kernel values,
//
//	decision(x) = Σ_i Coef_i·x[s_i − 1] + Bias,
//
// which Decision, DecisionVec, DecisionBatch and DecisionCSR evaluate, Save
// and Load keep, and WriteLIBSVM writes as LIBSVM's "0:serial" support
// vectors.

// NewGramMatrix returns the KernelMatrix of given kernel values of n
// training points: k[i·n+j] = K(x_i, x_j) (copied; finite, symmetric as a
// kernel's though this is not checked: the solvers read row i for point i,
// as LIBSVM does). Point i has serial i + 1 and the models' width D is n,
// so that a row to predict holds K(x, x_j) at column j.
func NewGramMatrix(k []float32, n int) (*KernelMatrix, error) {
	if n < 1 || len(k) != n*n {
		return nil, fmt.Errorf("svm: NewGramMatrix: %d values for %d points", len(k), n)
	}
	for i, v := range k {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("svm: NewGramMatrix: K(x_%d, x_%d) = %g", i/n, i%n, v)
		}
	}
	m := &KernelMatrix{Kernel: kernel.Spec{Name: kernel.Precomputed}, N: n, D: n, cols: n, k: append([]float32(nil), k...), serial: make([]int32, n)}
	for i := range m.serial {
		m.serial[i] = int32(i)
	}
	return m, nil
}

// PrecomputedMatrix returns the KernelMatrix of LIBSVM's precomputed-kernel
// training rows (svm-train -t 4, read by libsvm.ReadRows): row i starts with
// 0:s_i, its serial, an integer ≥ 1, and holds K(x_i, x_j) at index s_j
// for every row j, so that K_ij = row i's value at index s_j (LIBSVM's
// kernel_precomputed, with the value looked up by index rather than by
// position, which is the same for complete rows). The values are rounded to
// float32. The models' width D is the largest index or serial of the rows,
// and their support vectors' serials are the rows' own.
func PrecomputedMatrix(rows []libsvm.Row) (*KernelMatrix, error) {
	n := len(rows)
	if n < 1 {
		return nil, fmt.Errorf("svm: PrecomputedMatrix: no rows")
	}
	serial := make([]int32, n)
	d := 0
	for i, r := range rows {
		if err := r.Check(); err != nil {
			return nil, fmt.Errorf("svm: PrecomputedMatrix: row %d: %v", i+1, err)
		}
		if len(r.Index) == 0 || r.Index[0] != 0 {
			return nil, fmt.Errorf("svm: PrecomputedMatrix: row %d does not start with 0:serial", i+1)
		}
		s := r.Value[0]
		if s != math.Trunc(s) || s < 1 || s > math.MaxInt32 {
			return nil, fmt.Errorf("svm: PrecomputedMatrix: row %d: serial %g is not an integer ≥ 1", i+1, s)
		}
		serial[i] = int32(s) - 1
		d = max(d, int(s), r.MaxIndex())
	}
	k := make([]float32, n*n)
	for i, r := range rows {
		for j, s := range serial {
			pos := r.Find(s + 1)
			if pos < 0 {
				return nil, fmt.Errorf("svm: PrecomputedMatrix: row %d has no kernel value at index %d (the serial of row %d)", i+1, s+1, j+1)
			}
			k[i*n+j] = float32(r.Value[pos])
		}
	}
	return &KernelMatrix{Kernel: kernel.Spec{Name: kernel.Precomputed}, N: n, D: d, cols: n, k: k, serial: serial}, nil
}
