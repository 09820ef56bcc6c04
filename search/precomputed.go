package search

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
	"github.com/nsvm-go/nsvm/svm/libsvm"
)

// ReadPrecomputed reads kernel values in LIBSVM's precomputed format
// (svm-train -t 4): a row per point, "label 0:serial 1:K(x,x₁) … n:K(x,xₙ)",
// into a dense data set whose row i holds K(x_i, x_j) in column j−1 (the
// serial is left out: training rows are taken in file order). width is the
// number of training points n (0: the largest index).
func ReadPrecomputed(r io.Reader, name string, width int) (*data.Dataset, error) {
	labels, rows, err := libsvm.ReadRows(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", model.ErrBadData, name, errmsg.Strip(err))
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: %s: no rows", model.ErrBadData, name)
	}
	if width == 0 {
		for _, r := range rows {
			if k := len(r.Index); k > 0 {
				width = max(width, int(r.Index[k-1]))
			}
		}
	}
	if width < 1 {
		return nil, fmt.Errorf("%w: %s: no kernel values", model.ErrBadData, name)
	}
	if len(rows) > (1<<30)/width {
		return nil, fmt.Errorf("%w: %s: %d rows of %d kernel values are too many", model.ErrBadData, name, len(rows), width)
	}
	ds := &data.Dataset{X: make([]float32, len(rows)*width), Y: labels, N: len(rows), D: width}
	for i, r := range rows {
		for k, j := range r.Index {
			switch {
			case j == 0:
				continue
			case int(j) > width:
				return nil, fmt.Errorf("%w: %s: row %d has the kernel value of point %d, the training set has %d", model.ErrBadData, name, i+1, j, width)
			}
			v := r.Value[k]
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxFloat32 {
				return nil, fmt.Errorf("%w: %s: row %d: kernel value %v is not a finite float32", model.ErrBadData, name, i+1, v)
			}
			ds.X[i*width+int(j)-1] = float32(v)
		}
	}
	return ds, nil
}

// FitPrecomputed trains LIBSVM's C-SVC on a precomputed kernel (svm-train
// -t 4): ds holds the n×n kernel values of the training points (row i,
// column j: K(x_i, x_j); see ReadPrecomputed). C is cfg.C or, when it is
// 0, chosen by validation (see selectPrecomputedC); the other SMO settings
// are cfg's; more than two classes get one-vs-one heads, and class weights
// apply as in Fit. The model takes rows of n kernel values against the
// training points.
func FitPrecomputed(ctx context.Context, ds *data.Dataset, cfg *FitConfig) (*model.Model, error) {
	var pc FitConfig
	if cfg != nil {
		pc = *cfg
	}
	if pc.Kernel == KernelPrecomputed {
		pc.Kernel = "" // the rows are the kernel's values
	}
	ctx, c, err := fitArgs(ctx, &pc)
	if err != nil {
		return nil, err
	}
	if ds == nil || ds.Sparse != nil {
		return nil, fmt.Errorf("%w: a precomputed kernel needs the n×n kernel values of the n training points", model.ErrBadData)
	}
	if ds.N != ds.D {
		return nil, fmt.Errorf("%w: %d rows hold %d kernel values each; a precomputed kernel's training data hold K(x_i, x_j) for every pair, n values in each of its n rows", model.ErrBadData, ds.N, ds.D)
	}
	c.Task = model.Classification
	d, err := prepare(ds, &c)
	if err != nil {
		return nil, err
	}
	km, err := svm.NewGramMatrix(ds.X, ds.N)
	if err != nil {
		return nil, err
	}
	if d.w != nil {
		return nil, configErr("sample weights with a precomputed kernel are not supported (class weights are)")
	}
	C := c.C
	var sel *model.Selection
	val, valRows := math.NaN(), 0
	if C == 0 {
		var s *search
		if C, s, err = selectPrecomputedC(ctx, d, km, &c); err != nil {
			return nil, err
		}
		sel = s.selection()
		val, valRows = s.validationScore(sel)
	}
	scfg := svm.SMOConfig{C: C, Eps: c.Tol, CacheMB: c.CacheMB}
	train := func(idx []int, pos int, a, b int) (*svm.Model, error) {
		y := make([]float32, len(idx))
		for k, i := range idx {
			y[k] = -1
			if d.cls[i] == pos {
				y[k] = 1
			}
		}
		cf := scfg
		if d.cw != nil {
			// LIBSVM's -wi: the class weights bound α per class.
			cf.WeightPos, cf.WeightNeg = d.cw[a], d.cw[b]
		}
		return km.SMO(ctx, idx, y, cf, nil)
	}
	m := &model.Model{Algorithm: "smo", Info: map[string]string{"C": fmtG(C), "kernel": kernel.Precomputed}}
	if d.nclass() == 2 {
		h, err := train(d.all(), 1, 1, 0)
		if err != nil {
			return nil, fmt.Errorf("nsvm: fit: precomputed kernel: %w", err)
		}
		h.Neg, h.Pos = d.classes[0], d.classes[1]
		m.Head = h
	} else {
		k := d.nclass()
		heads := make([]*svm.Model, k*(k-1)/2)
		for q := range heads {
			a, b := svm.PairClasses(q, k)
			var idx []int
			for i, cl := range d.cls {
				if cl == a || cl == b {
					idx = append(idx, i)
				}
			}
			h, err := train(idx, a, a, b)
			if err != nil {
				return nil, fmt.Errorf("nsvm: fit: precomputed kernel, head %d: %w", q, err)
			}
			h.Neg, h.Pos = -1, 1
			heads[q] = h
		}
		m.SetHeads(slices.Clone(d.classes), model.OneVsOne, heads)
	}
	recordSelection(m, sel)
	m.LabelNames = slices.Clone(d.names)
	m.Info["trained_rows"] = strconv.Itoa(ds.N)
	recordData(m, ds)
	if err := d.checkLearned(m, val, valRows); err != nil {
		return m, err
	}
	return m, nil
}

// selectPrecomputedC chooses C for FitPrecomputed by validation on the
// rows of the Gram matrix, as the search of Fit chooses it for the RBF
// SVM: Fit's splits (stratified k-fold, or a hold-out on large data; the
// training rows of a split sampled as there), every fit reading the
// kernel values of its training rows and scoring its validation rows by
// their values against the support vectors — nothing is recomputed. The
// values of C are the search's coarse grid, 0.1, 1, 10, 100, then the
// neighbours of the best on a grid three times finer (C × 3^±1) and, when
// the best lies on an edge, one step of ten beyond it (both edges: the
// scale of given kernel values is the caller's, so C's may be anything).
// The scores are the metric of Fit (class weights honoured), and C = 1,
// svm-train's default, is the incumbent that another C must beat by more
// than noise (see search.winner).
func selectPrecomputedC(ctx context.Context, d *fitData, km *svm.KernelMatrix, c *FitConfig) (float64, *search, error) {
	s := newSearch(ctx, d, c, time.Now())
	s.makeSplits()
	if len(s.splits) == 0 {
		return 0, nil, fmt.Errorf("%w: no validation split holds every class in its training part; pin C", model.ErrBadData)
	}
	folds := make([]svm.Fold, len(s.splits))
	vals := make([][]int, len(s.splits))
	for i, sp := range s.splits {
		folds[i] = svm.Fold{Train: s.svmRows[i], Validation: sp.val}
		vals[i] = sp.val
	}
	p := svm.ClassProblem{N: d.n, Y: d.cls, C: d.nclass(), W: d.costs(d.all())}
	gcfg := svm.GridConfig{SMO: svm.SMOConfig{Eps: c.Tol}, Workers: s.workers}
	if d.metric != MetricAccuracy {
		gcfg.Score = d.gridScore(vals)
	}
	tried := map[float64]bool{}
	score := func(cs []float64) error {
		var todo []float64
		for _, v := range cs {
			if !tried[v] {
				tried[v] = true
				todo = append(todo, v)
			}
		}
		if len(todo) == 0 {
			return nil
		}
		t0 := time.Now()
		res, err := km.GridSMO(ctx, p, todo, folds, gcfg, nil)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("nsvm: fit: stopped during the search: %w", err)
			}
			return fmt.Errorf("nsvm: fit: precomputed kernel: grid search: %w", err)
		}
		secs := time.Since(t0).Seconds() / float64(len(todo))
		s.mu.Lock()
		defer s.mu.Unlock()
		crs := make([]*candResult, len(todo))
		for ci, v := range todo {
			r := &recipe{name: fmt.Sprintf("smo precomputed C=%.3g", v), scaling: ScaleNone, solver: "smo", kern: km.Kernel, c: v, incumbent: v == 1}
			crs[ci] = &candResult{r: r, scores: slices.Clone(res.FoldScore[res.Index(0, ci, 0)]), secs: secs, complete: true}
		}
		s.res = append(s.res, crs...)
		for _, cr := range crs {
			s.done++
			if s.best == nil || cr.mean() > s.best.mean() {
				s.best = cr
			}
			s.report(cr)
		}
		return nil
	}
	if err := score(gridC); err != nil {
		return 0, nil, err
	}
	best := s.best.r.c
	next := []float64{best / 3, best * 3}
	if best <= slices.Min(gridC) {
		next = append(next, best/10)
	}
	if best >= slices.Max(gridC) {
		next = append(next, best*10)
	}
	if err := score(next); err != nil {
		return 0, nil, err
	}
	return s.winner().r.c, s, nil
}
