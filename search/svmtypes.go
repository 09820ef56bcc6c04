package search

import (
	"context"
	"fmt"
	"strconv"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
)

// LIBSVM's svm types (FitConfig.SVMType; svm-train -s 0 … 4).
const (
	SVMCSVC       = "c-svc"
	SVMNuSVC      = "nu-svc"
	SVMOneClass   = "one-class"
	SVMEpsilonSVR = "epsilon-svr"
	SVMNuSVR      = "nu-svr"
)

// SVMTypes lists the values FitConfig.SVMType accepts besides "".
func SVMTypes() []string {
	return []string{SVMCSVC, SVMNuSVC, SVMOneClass, SVMEpsilonSVR, SVMNuSVR}
}

// gridNu is the ν grid of the ν types when ν is not pinned.
var gridNu = []float64{0.1, 0.2, 0.3, 0.5, 0.7}

// nus returns the values of ν to try.
func (c *FitConfig) nus() []float64 {
	if c.Nu > 0 {
		return []float64{c.Nu}
	}
	return gridNu
}

// fitOneClass trains LIBSVM's one-class SVM on every row of ds, whatever
// its label: the inputs scaled (standardised unless cfg says otherwise;
// sparse rows unscaled), the kernel RBF with γ = 1/D unless pinned
// (sparse rows: one over the mean squared row norm), ν = cfg.Nu or 0.5.
// The model predicts +1 for inliers and −1 for outliers.
func fitOneClass(ctx context.Context, ds *data.Dataset, c *FitConfig) (*model.Model, error) {
	if ds == nil {
		return nil, fmt.Errorf("%w: no data set", model.ErrBadData)
	}
	if err := ds.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", model.ErrBadData, err)
	}
	if ds.W != nil {
		return nil, configErr("the one-class SVM takes no sample weights")
	}
	d := &fitData{x: ds.X, sp: ds.Sparse, n: ds.N, d: ds.D, shape: ds.InputShape(), columns: ds.Columns, task: model.Classification, metric: MetricAccuracy}
	if d.n < 2 {
		return nil, fmt.Errorf("%w: the one-class SVM needs at least 2 rows", model.ErrBadData)
	}
	scaling := c.Scaling
	if scaling == "" {
		scaling = ScaleStandardize
		if d.sp != nil {
			scaling = ScaleNone
		}
	}
	if d.sp != nil && scaling != ScaleNone {
		return nil, configErr("scaling %s would make sparse rows dense; sparse rows train unscaled", scaling)
	}
	spec, err := c.kernelSpec(d.gammaUnit())
	if err != nil {
		return nil, err
	}
	k, err := kernel.New(spec)
	if err != nil {
		return nil, configErr("%v", err)
	}
	sp := d.subProblem(string(scaling), d.all())
	nu := c.Nu
	if nu == 0 {
		nu = 0.5
	}
	p := svm.Problem{X: sp.x, Sparse: sp.sp, N: sp.n, D: d.d}
	h, err := svm.OneClass(ctx, p, k, svm.NuConfig{Nu: nu, Eps: c.Tol, CacheMB: c.cacheMB(c.Workers), Workers: c.Workers}, nil)
	if err != nil {
		return nil, fmt.Errorf("nsvm: fit: one-class SVM: %w", err)
	}
	h.Neg, h.Pos = -1, 1
	m := &model.Model{Algorithm: "smo", Head: h, Mean: sp.sc.mean, Std: sp.sc.std, Columns: ds.Columns, LabelColumn: ds.LabelColumn,
		Info: map[string]string{"svm_type": "one_class", "nu": strconv.FormatFloat(nu, 'g', -1, 64), "scaling": string(scaling)}}
	return m, nil
}
