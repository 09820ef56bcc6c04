package search

import (
	"fmt"
	"math"
	"slices"

	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
)

// The kernel probe's rounds: stratified samples of probeStart rows of the
// first split's training rows, then twice as many in each round, up to
// probeRows, each scored on as many of its validation rows.
const (
	probeStart = 250
	probeRows  = 1000
)

// probeKernels decides whether the RBF SVMs of grid, on sparse rows, get
// any time after the linear C paths, by a race on samples of the first
// split: each round trains the best linear candidate and the whole grid
// (every γ and C; one Gram matrix of the sample serves every γ) on m of
// the split's training rows (those the grid would train on) and scores
// them on m of its validation rows. If the grid's best score falls below
// the linear model's by more than two standard errors of a difference of
// two held-out scores (as a network that loses on the first fold, see
// outrun), a kernel SVM is out of the race: the grid's candidates are
// listed as pruned. If it reaches the linear model's score, or the rounds
// reach probeRows without a decision, the grid is returned to be scored
// as usual; otherwise the next round doubles m. The best of the twenty
// grid points against one linear model favours the grid: the probe errs
// towards scoring it. When the first split's rows are no more than
// probeRows, a round would cost what the grid costs, and the grid is
// scored without a probe.
func (s *search) probeKernels(grid []*recipe) []*recipe {
	var lin *candResult
	for _, cr := range s.res {
		if cr.r.solver == "linear" && cr.complete && (lin == nil || cr.mean() > lin.mean()) {
			lin = cr
		}
	}
	d := s.d
	if lin == nil || d.task != model.Classification || s.ctx.Err() != nil || len(s.svmRows[0]) <= probeRows {
		return grid
	}
	for _, r := range grid {
		if r.kern.Name != "rbf" || r.kern.Normalized || r.scaling != ScaleNone {
			return grid
		}
	}
	rng := randFor(s.c.Seed, "kernel-probe")
	var why error
	for m := probeStart; why == nil; m *= 2 {
		if m > probeRows || s.ctx.Err() != nil {
			return grid
		}
		train := d.sample(s.svmRows[0], m, rng)
		val := d.sample(s.splits[0].val, m, rng)
		t, err := lin.r.fit(s.ctx, d, train, seedFor(s.c.Seed, "kernel-probe "+lin.r.name, m), s.workers, nil)
		if err != nil {
			return grid
		}
		linScore, _ := d.scorePrediction(d.input(val).predict(t.m, false), val)
		rbf, best, err := s.probeGrid(grid, train, val)
		if err != nil || rbf >= linScore {
			return grid
		}
		if lowerByNoise(rbf, linScore, len(val), false) {
			why = fmt.Errorf("pruned: on %d of the first split's training rows and %d of its validation rows the best RBF SVM (%s) scored %s against %s for %s",
				len(train), len(val), best, FormatScore(s.metric(), s.display(rbf)), FormatScore(s.metric(), s.display(linScore)), lin.r.name)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cr := range s.add(grid) {
		cr.err, cr.missing = why, 0
		s.finish(cr)
	}
	return nil
}

// probeGrid scores the grid's RBF SVMs trained on the rows train on the
// rows val, from one Gram matrix of them, and returns the best score and
// the grid point that has it.
func (s *search) probeGrid(grid []*recipe, train, val []int) (float64, string, error) {
	d := s.d
	idx := append(append([]int(nil), train...), val...)
	n := len(idx)
	g := svm.NewSparseKernelMatrix(kernel.Linear{}, d.sparseRows(idx), d.d)
	norms := make([]float32, n)
	for i := range norms {
		norms[i] = g.At(i, i)
	}
	y := make([]int, n)
	for k, i := range idx {
		y[k] = d.cls[i]
	}
	fold := svm.Fold{Train: seq(len(train)), Validation: make([]int, len(val))}
	for k := range val {
		fold.Validation[k] = len(train) + k
	}
	cfg := svm.GridConfig{SMO: svm.SMOConfig{Eps: s.c.Tol}, Workers: s.workers}
	if d.metric != MetricAccuracy {
		cfg.Score = d.gridScore([][]int{val})
	}
	var cs []float64
	var gammas []float64
	for _, r := range grid {
		if !slices.Contains(cs, r.c) {
			cs = append(cs, r.c)
		}
		if !slices.Contains(gammas, r.kern.Gamma) {
			gammas = append(gammas, r.kern.Gamma)
		}
	}
	best, where := math.Inf(-1), ""
	kv := make([]float32, n*n)
	for _, gamma := range gammas {
		for i := range n {
			row := kv[i*n : (i+1)*n]
			copy(row, g.Row(i))
			vec.RBFArg(row, norms, norms[i], float32(gamma))
			vec.ExpTo(row, row)
		}
		km, err := svm.NewGramMatrix(kv, n)
		if err != nil {
			return 0, "", err
		}
		res, err := km.GridSMO(s.ctx, svm.ClassProblem{N: n, Y: y, C: d.nclass(), W: d.costs(idx)}, cs, []svm.Fold{fold}, cfg, nil)
		if err != nil {
			return 0, "", err
		}
		for ci, c := range res.Cs {
			if sc := res.FoldScore[res.Index(0, ci, 0)][0]; sc > best {
				best, where = sc, fmt.Sprintf("γ=%.3g C=%.3g", gamma, c)
			}
		}
	}
	return best, where, nil
}
