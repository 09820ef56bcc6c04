package search

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
)

// gridRows caps the validation rows of a hold-out split that the SMO grid
// scores on (the kernel matrix holds the training sample and these).
const gridRows = 2000

// gridable reports whether r is scored by the shared-matrix grid search
// (SMO with any kernel) rather than one fit at a time.
func (s *search) gridable(r *recipe) bool {
	return r.solver == "smo" && (s.d.task == model.Classification || s.d.sp == nil)
}

// scoreGrid scores SMO candidates with svm.GridSMO / svm.GridSMOSVR: per
// scaling, one kernel matrix per γ over the rows of every split serves all
// folds, one-vs-one pairs, C and ε, and the values of C run upwards from
// warm starts. The inputs are scaled with a scaler fitted on all those
// rows, not per fold (the folds' means and deviations differ by noise).
func (s *search) scoreGrid(rs []*recipe) {
	if len(rs) == 0 {
		return
	}
	if s.remote != nil {
		s.remoteGrid(gridGroups(rs))
		return
	}
	for _, g := range gridGroups(rs) {
		if s.ctx.Err() != nil || len(s.res) > 0 && time.Now().After(s.deadline) {
			// Listed, not scored.
			s.budgetHit = s.budgetHit || s.ctx.Err() == nil
			s.add(g)
			continue
		}
		s.scoreGridGroup(g[0].scaling, g)
	}
	// The groups of this round share the matrix storage; the networks
	// scored next should not hold it.
	s.kbuf = nil
}

// gridGroups groups SMO candidates by scaling, ε and kernel, in the order
// of their first candidates: a group is one kernel matrix and the path of
// its Cs, so that no grid point is computed that no candidate asked for
// (the refinement moves one axis at a time).
func gridGroups(rs []*recipe) [][]*recipe {
	return groupBy(rs, func(r *recipe) string { return fmt.Sprint(r.scaling, r.eps, r.kern) })
}

// groupBy groups rs by key, the groups in the order of their first recipes
// and each in the order of rs.
func groupBy(rs []*recipe, key func(*recipe) string) [][]*recipe {
	var groups [][]*recipe
	at := map[string]int{}
	for _, r := range rs {
		k, ok := at[key(r)]
		if !ok {
			k = len(groups)
			at[key(r)] = k
			groups = append(groups, nil)
		}
		groups[k] = append(groups[k], r)
	}
	return groups
}

// scoreGridGroup runs one grid search over the candidates rs of one scaling.
func (s *search) scoreGridGroup(scaling string, rs []*recipe) {
	d := s.d
	// The rows the grid sees: every split's (sampled) training rows and its
	// validation rows (at most gridRows of a hold-out).
	var rows []int
	seen := map[int]bool{}
	addRows := func(idx []int) {
		for _, i := range idx {
			if !seen[i] {
				seen[i] = true
				rows = append(rows, i)
			}
		}
	}
	vals := make([][]int, len(s.splits))
	sampledVal := false
	for i, sp := range s.splits {
		addRows(s.svmRows[i])
		vals[i] = sp.val
		if len(s.splits) == 1 && len(sp.val) > gridRows {
			vals[i] = d.sample(sp.val, gridRows, randFor(s.c.Seed, "grid-validation"))
			sampledVal = true
		}
		addRows(vals[i])
	}
	slices.Sort(rows)
	// The grid's points: those some split trains on first, so that the
	// kernel matrix needs no column for the others (svm.GridConfig.MatrixMB).
	trained := map[int]bool{}
	for _, idx := range s.svmRows {
		for _, i := range idx {
			trained[i] = true
		}
	}
	order := make([]int, 0, len(rows))
	for _, first := range []bool{true, false} {
		for _, i := range rows {
			if trained[i] == first {
				order = append(order, i)
			}
		}
	}
	pos := make(map[int]int, len(order))
	for k, i := range order {
		pos[i] = k
	}
	folds := make([]svm.Fold, len(s.splits))
	for i := range s.splits {
		for _, j := range s.svmRows[i] {
			folds[i].Train = append(folds[i].Train, pos[j])
		}
		for _, j := range vals[i] {
			folds[i].Validation = append(folds[i].Validation, pos[j])
		}
	}
	sc := d.fitScaler(scaling, rows)
	in := d.input(order)
	x := in.x
	sc.apply(x, d.d)

	// The axes of the grid.
	var specs []kernel.Spec
	var cs, eps []float64
	for _, r := range rs {
		if !slices.Contains(specs, r.kern) {
			specs = append(specs, r.kern)
		}
		if !slices.Contains(cs, r.c) {
			cs = append(cs, r.c)
		}
		if !slices.Contains(eps, r.eps) {
			eps = append(eps, r.eps)
		}
	}
	slices.Sort(cs)
	kernels := make([]kernel.Kernel, len(specs))
	for i, sp := range specs {
		kernels[i] = kernel.MustNew(sp)
	}
	// One matrix within the kernel memory; without it, a cache per fit
	// running at once.
	cfg := svm.GridConfig{SMO: svm.SMOConfig{Eps: s.c.Tol, CacheMB: s.c.cacheMB(1)}, Workers: s.workers, Buffer: &s.kbuf, MatrixMB: s.c.kernelMB()}
	if d.task == model.Classification && d.metric != MetricAccuracy {
		cfg.Score = d.gridScore(vals)
	}
	job := s.clock.start()
	var res *svm.GridResult
	var err error
	if d.task == model.Regression {
		// Targets standardised with the grid rows' statistics; ε is in
		// those units, as in the recipes.
		mean, sd := meanSD(d.y, rows)
		y := make([]float64, len(order))
		for k, i := range order {
			y[k] = (d.y[i] - mean) / sd
		}
		ge := make([]float64, len(eps))
		for i, e := range eps {
			ge[i] = e
			if e == 0 {
				ge[i] = -1
			}
			if s.c.Epsilon != nil {
				ge[i] = *s.c.Epsilon / sd
				if ge[i] == 0 {
					ge[i] = -1
				}
			}
		}
		res, err = svm.GridSMOSVR(s.ctx, svm.RegProblem{X: x, N: len(rows), D: d.d, Y: y}, kernels, cs, ge, folds, cfg, nil)
		if err == nil {
			// back to the RMSE of the targets' units, negated (larger is better)
			for i, fs := range res.FoldScore {
				for f, mse := range fs {
					res.FoldScore[i][f] = -math.Sqrt(mse) * sd
				}
			}
		}
	} else {
		y := make([]int, len(order))
		for k, i := range order {
			y[k] = d.cls[i]
		}
		// The rows' costs (sample weight × class weight) bound their α.
		res, err = svm.GridSMO(s.ctx, svm.ClassProblem{X: x, Sparse: in.sp, N: len(rows), D: d.d, Y: y, C: d.nclass(), W: d.costs(order)}, kernels, cs, folds, cfg, nil)
	}
	secs := s.clock.stop(job) / float64(len(rs))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rs {
		cr := &candResult{r: r, secs: secs, dec: make([][]float64, len(s.splits))}
		s.res = append(s.res, cr)
		s.done++
		if err != nil {
			cr.err = fmt.Errorf("grid search: %w", err)
			s.report(cr)
			continue
		}
		ki := slices.Index(specs, r.kern)
		ci := slices.Index(cs, r.c)
		ei := 0
		if d.task == model.Regression {
			ei = slices.Index(eps, r.eps)
		}
		cr.scores = slices.Clone(res.FoldScore[res.Index(ki, ci, ei)])
		cr.complete = true
		cr.sampled = sampledVal
		if s.best == nil || cr.mean() > s.best.mean() {
			s.best = cr
		}
		s.report(cr)
	}
}

// gridScore returns svm.GridConfig.Score for the validation rows vals[f]
// of fold f: the heads' votes (one-vs-one) give the labels, a binary
// head's decision the ranking, and d's metric scores them.
func (d *fitData) gridScore(vals [][]int) func(f int, dec [][]float64) float64 {
	nc := d.nclass()
	return func(f int, dec [][]float64) float64 {
		val := vals[f]
		p := model.Prediction{Labels: make([]float64, len(val)), Decisions: make([]float64, len(val)*len(dec))}
		for v := range val {
			for q := range dec {
				p.Decisions[v*len(dec)+q] = dec[q][v]
			}
			if nc == 2 {
				// The pair head's +1 is class 0; a binary model's is
				// class 1.
				p.Decisions[v] = -p.Decisions[v]
			}
		}
		m := &model.Model{Classes: d.classes, Scheme: model.OneVsOne, Heads: make([]*svm.Model, len(dec)), Head: &svm.Model{Neg: d.classes[0], Pos: d.classes[nc-1]}}
		if nc == 2 {
			m.Classes, m.Heads = nil, nil
		}
		m.LabelsFrom(p.Labels, p.Decisions, len(val))
		sc, _ := d.scorePrediction(p, val)
		return sc
	}
}

// sortByCost orders recipes cheapest first (stable).
func sortByCost(rs []*recipe) {
	slices.SortStableFunc(rs, func(a, b *recipe) int { return cmp.Compare(a.cost, b.cost) })
}
