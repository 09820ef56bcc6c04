package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
)

// linearProbeEpochs bounds a run that climbs a linear C path, in multiples
// of the epochs the same head took at the C before (see climb). On the
// hold-out of the Debian descriptions' words and word pairs (bench/sparse)
// a run from C = 1 to C = 10 bounded at the epochs of C = 1 scored
// 87.70 %, and the run to the stopping rule, 4.7 times the epochs,
// 87.67 %: the bounded run shows where the path goes at a fifth of the
// cost (twice the epochs: 87.77 %).
const linearProbeEpochs = 1

// scoreLinearPaths scores the linear solver's candidates along their C
// paths, LIBLINEAR's warm-started search of C with the search's paired
// noise rule: the candidates that differ only in C form a path, whose
// heads on each split run svm.LinearPath, each C starting from the
// solution the heads are at. A path starts at the incumbent (LIBLINEAR's
// default C = 1; without it, the C nearest 1), goes up in C while each C
// beats the best so far by more than the noise of the validation score
// (search.beats), and, when no larger C did, down the same way; a path
// after the first (the other loss) starts where the paths before it were
// best, from the heads they left (see walkLinearPath). Then the C that
// refineLinear finds, if any, is scored on those heads. The paths run one
// after the other, at most s.workers of their heads training at a time,
// and those of one scaling share each split's scaled rows.
func (s *search) scoreLinearPaths(rs []*recipe) {
	if s.remote != nil {
		s.remotePaths(rs)
		return
	}
	defer s.replan(rs)
	inputs := map[string][]subProblem{}
	heads := map[string][]*linearSplit{}
	var rival *candResult
	for _, p := range cPaths(rs) {
		sc := p[0].scaling
		in, ok := inputs[sc]
		if !ok {
			for _, sp := range s.splits {
				in = append(in, s.d.subProblem(sc, sp.train))
			}
			inputs[sc] = in
		}
		best, ls, ok := s.walkLinearPath(p, in, rival, heads[sc])
		heads[sc] = ls
		if !ok {
			return
		}
		if best != nil && best.complete && (rival == nil || best.mean() > rival.mean()) {
			rival = best
		}
	}
	for _, r := range s.refineLinear() {
		s.mu.Lock()
		s.planned++
		s.mu.Unlock()
		if !s.linearBudget(false) {
			return
		}
		ls := heads[r.scaling]
		if ls == nil {
			ls = s.linearSplits(r, inputs[r.scaling], r.name)
		}
		s.climb(r, ls, nil)
	}
}

// walkLinearPath scores the path rs (increasing C) on the splits' rows in,
// starting from the heads ls when not nil (fresh heads otherwise), and
// returns its best candidate and the heads it left, or false when the
// budget or the context ended it.
//
// A path after the first (another loss) starts at the C of the best
// candidate of the paths before it, rival, and goes on only if it beats
// rival there by more than noise: the losses' paths peak at about the same
// C, and their scores there seldom differ by more than noise. The first
// path starts at the incumbent, or without one at the C nearest 1. From
// its start the path goes up in C as long as each C beats the best C so
// far by more than noise (see climb): the first C that does not ends the
// climb (past the best C the validation score falls or stays flat as the
// SVM fits noise, and the larger Cs cost the most epochs). When no larger
// C beat the start, the path goes down from the start (the heads moving
// down from where the climb left them) until a C scores below the best by
// more than noise: a smaller C costs less, so there the path stops on
// evidence that it is past the peak, not on the lack of evidence that it
// gains.
//
// The best candidate returned is the best by mean score of those the path
// climbed to (each beat the one before by more than noise) or went down to.
func (s *search) walkLinearPath(rs []*recipe, in []subProblem, rival *candResult, ls []*linearSplit) (*candResult, []*linearSplit, bool) {
	name := rs[0].name // the path's random streams follow its first candidate
	k0 := slices.IndexFunc(rs, func(r *recipe) bool { return r.incumbent })
	if k0 < 0 {
		target := 1.0
		if rival != nil {
			target = rival.r.c
		}
		k0 = 0
		for k, r := range rs {
			if math.Abs(math.Log(r.c/target)) < math.Abs(math.Log(rs[k0].c/target)) {
				k0 = k
			}
		}
	}
	if !s.linearBudget(true) {
		return nil, ls, false
	}
	var start *candResult
	if ls != nil && rival != nil {
		// From the heads the paths before left: a bounded run first.
		start = s.climb(rs[k0], ls, rival)
	} else {
		if ls == nil {
			ls = s.linearSplits(rs[k0], in, name)
		}
		start = s.add([]*recipe{rs[k0]})[0]
		s.linearStep(start, ls, false, nil)
		s.settle(start, "")
	}
	best := start
	if !start.complete || rival != nil && !s.beats(start, rival) {
		return best, ls, true
	}
	for k := k0 + 1; k < len(rs); k++ {
		if !s.linearBudget(false) {
			return best, ls, false
		}
		cr := s.climb(rs[k], ls, best)
		if !cr.complete || !s.beats(cr, best) {
			break
		}
		best = cr
	}
	if best != start || k0 == 0 {
		return best, ls, true
	}
	for k := k0 - 1; k >= 0; k-- {
		if !s.linearBudget(false) {
			return best, ls, false
		}
		cr := s.add([]*recipe{rs[k]})[0]
		if _, lost := s.racedStep(cr, ls, false, best); lost {
			s.settle(cr, s.lostFirst(cr, best))
			break
		}
		s.settle(cr, "")
		if !cr.complete || s.beats(best, cr) {
			break
		}
		if cr.mean() > best.mean() {
			best = cr
		}
	}
	return best, ls, true
}

// climb scores r on the heads ls, which are at another C or loss: each
// head's run is first bounded at linearProbeEpochs times the epochs of the
// head's last run to its stopping rule, at the C before (LIBLINEAR caps its
// C search's iterations too). A C that does not beat best (the winner so
// far, for best nil) by more than noise is pruned — unfinished, if its
// bounded run stopped early, its score being a partly trained model's: a
// C that needs more than the work of its neighbour to gain nothing is
// where the path stops, and
// within noise of a smaller C it does not win either (the one-standard-
// error rule the incumbent has). One whose bounded run does beat best is
// trained on to its stopping rule (the heads continue where they were) and
// scored again. Pruned candidates keep their scores (candResult.pruned).
func (s *search) climb(r *recipe, ls []*linearSplit, best *candResult) *candResult {
	if best == nil {
		best = s.winner()
	}
	cr := s.add([]*recipe{r})[0]
	capped, lost := s.racedStep(cr, ls, true, best)
	if lost {
		s.settle(cr, s.lostFirst(cr, best))
		return cr
	}
	if cr.err == nil && best != nil && !s.beats(cr, best) {
		how := "trained to its stopping rule"
		if capped {
			how = fmt.Sprintf("bounded at %d× the epochs of the C before", linearProbeEpochs)
		}
		cr.pruned = true
		s.settle(cr, fmt.Sprintf("pruned: %s (%s), not above %s's %s by more than noise",
			FormatScore(s.metric(), s.display(cr.mean())), how, best.r.name, FormatScore(s.metric(), s.display(best.mean()))))
		return cr
	}
	if capped && cr.err == nil {
		s.linearStep(cr, ls, false, nil)
		if best != nil && !s.beats(cr, best) {
			cr.pruned = true
			s.settle(cr, fmt.Sprintf("pruned: %s, not above %s's %s by more than noise",
				FormatScore(s.metric(), s.display(cr.mean())), best.r.name, FormatScore(s.metric(), s.display(best.mean()))))
			return cr
		}
	}
	s.settle(cr, "")
	return cr
}

// linearBudget reports whether a path may score another C: not once the
// context is done, nor past the deadline unless first (a path's first C
// when no candidate has been scored yet, so that there is a model).
func (s *search) linearBudget(first bool) bool {
	if s.ctx.Err() != nil {
		return false
	}
	if (!first || len(s.res) > 0) && time.Now().After(s.deadline) {
		s.mu.Lock()
		s.budgetHit = true
		s.mu.Unlock()
		return false
	}
	return true
}

// settle completes the candidate cr, whose outcomes linearStep applied,
// pruned with the reason why if why is not "".
func (s *search) settle(cr *candResult, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if why != "" && cr.err == nil {
		cr.err = errors.New(why)
	}
	s.finish(cr)
}

// linearSplit is a linear path's state on one split: the split's scaled
// training rows and a svm.LinearPath per head (one for two classes, one
// per class otherwise, one-vs-rest as LIBLINEAR), with the epochs each
// head's last run to its stopping rule took (the unit of climb's bounds).
type linearSplit struct {
	sp     subProblem
	heads  []*svm.LinearPath
	epochs []int
	err    error // why the heads could not be made (every row of weight 0)
}

// linearSplits makes the heads of r's path on each split's rows in, their
// random streams drawn from the path's name.
func (s *search) linearSplits(r *recipe, in []subProblem, name string) []*linearSplit {
	out := make([]*linearSplit, len(in))
	for i, sp := range in {
		d := sp.d
		var probs []svm.Problem
		if d.nclass() == 2 {
			probs = []svm.Problem{sp.problem(sp.x, d.d)}
		} else {
			cp := sp.classProblem(sp.x, d.d)
			cp.Sparse = sp.sp
			for h := range d.nclass() {
				probs = append(probs, cp.Head(model.OneVsRest, h))
			}
		}
		seed := seedFor(s.c.Seed, name, i)
		ls := &linearSplit{sp: sp, epochs: make([]int, len(probs))}
		for h, p := range probs {
			rng := rand.New(seedPCG(seed ^ (uint64(h+1) * 0xd1342543de82ef95)))
			lp, err := svm.NewLinearPath(p, svm.LinearDCDConfig{Loss: r.loss, Eps: r.cfg.Tol}, rng)
			if err != nil {
				ls.heads, ls.err = nil, err
				break
			}
			ls.heads = append(ls.heads, lp)
		}
		out[i] = ls
	}
	return out
}

// linearStep trains the heads of the splits idx (nil: every split) at
// cr's C and loss (if bounded, each run bounded at linearProbeEpochs times
// the epochs of the head's last run to its stopping rule; else to its
// stopping rule), scores the models on the splits' validation rows and
// applies the outcomes to cr (not settled: see settle). It reports
// whether a bounded run stopped before its stopping rule. Its time is one
// clock job, shared among the splits' outcomes.
func (s *search) linearStep(cr *candResult, ls []*linearSplit, bounded bool, idx []int) (capped bool) {
	r := cr.r
	if idx == nil {
		idx = seq(len(ls))
	}
	job := s.clock.start()
	type task struct{ i, h int }
	var tasks []task
	for _, i := range idx {
		for h := range ls[i].heads {
			tasks = append(tasks, task{i, h})
		}
	}
	heads := make([][]*svm.Model, len(ls))
	errs := make([]error, len(ls))
	for i, l := range ls {
		heads[i] = make([]*svm.Model, len(l.heads))
		errs[i] = l.err
	}
	var mu sync.Mutex
	next := make(chan task)
	var wg sync.WaitGroup
	for range min(s.workers, len(tasks)) {
		wg.Go(func() {
			for t := range next {
				l := ls[t.i]
				bound := 0
				if bounded && l.epochs[t.h] > 0 {
					bound = linearProbeEpochs * l.epochs[t.h]
				}
				lp := l.heads[t.h]
				var m *svm.Model
				var err error
				short := false
				if r.blend {
					m, short, err = trainBlend(s.ctx, lp, r.c, bound)
				} else {
					m, err = lp.Train(s.ctx, r.c, r.loss, bound)
					short = err == nil && !lp.Converged()
				}
				mu.Lock()
				heads[t.i][t.h] = m
				if err != nil && errs[t.i] == nil {
					errs[t.i] = err
				}
				if short {
					capped = true
				}
				mu.Unlock()
				if err == nil && lp.Converged() {
					l.epochs[t.h] = lp.Epochs()
				}
			}
		})
	}
	for _, t := range tasks {
		next <- t
	}
	close(next)
	wg.Wait()
	outs := make([]outcome, len(ls))
	models := make([]*model.Model, len(ls))
	var sw sync.WaitGroup
	for _, i := range idx {
		sw.Go(func() {
			if errs[i] == nil {
				models[i] = linearModel(r, ls[i].sp, heads[i])
			}
			outs[i] = s.outcomeRows(i, models[i], errs[i], 0, true)
		})
	}
	sw.Wait()
	secs := s.clock.stop(job)
	s.mu.Lock()
	defer s.mu.Unlock()
	if cr.missing == 0 {
		cr.missing = len(idx) // scored again: a bounded run trained on
	}
	for _, i := range idx {
		o := outs[i]
		o.secs = secs / float64(len(idx))
		if len(s.splits) > 1 {
			if i == 0 {
				cr.firstLoss = o.loss
			}
			o.loss = nil
		}
		s.apply(cr, i, o, models[i])
	}
	return capped
}

// racedStep is linearStep raced on the splits, as the networks race (see
// search.race): on several splits it trains cr on the first split alone
// and, unless cr loses to best there by more than two standard errors of
// the paired per-row differences, on the others; it reports whether a
// bounded run stopped early and whether cr lost on the first split.
func (s *search) racedStep(cr *candResult, ls []*linearSplit, bounded bool, best *candResult) (capped, lost bool) {
	if len(ls) == 1 || best == nil || best.firstLoss == nil {
		return s.linearStep(cr, ls, bounded, nil), false
	}
	capped = s.linearStep(cr, ls, bounded, []int{0})
	if cr.err == nil && pairedWin(best.firstLoss, cr.firstLoss, 2) {
		return capped, true
	}
	if s.linearStep(cr, ls, bounded, seq(len(ls))[1:]) {
		capped = true
	}
	return capped, false
}

// lostFirst says why cr, scored on the first split only, is pruned.
func (s *search) lostFirst(cr, best *candResult) string {
	return fmt.Sprintf("pruned: %s on the first split, below %s's %s there by more than noise",
		FormatScore(s.metric(), s.display(cr.scores[0])), best.r.name, FormatScore(s.metric(), s.display(best.scores[0])))
}

// linearModel assembles the heads of r trained on the rows sp into a
// model, as r.fit would.
func linearModel(r *recipe, sp subProblem, heads []*svm.Model) *model.Model {
	d := sp.d
	m := &model.Model{Algorithm: "linear", Info: map[string]string{"scaling": r.scaling}, Mean: sp.sc.mean, Std: sp.sc.std}
	if len(heads) == 1 {
		heads[0].Neg, heads[0].Pos = d.classes[0], d.classes[1]
		m.Head = heads[0]
	} else {
		for _, h := range heads {
			h.Neg, h.Pos = -1, 1
		}
		m.SetHeads(d.classes, model.OneVsRest, heads)
	}
	for key, v := range m.Head.Info {
		switch key {
		case "solver", "C", "eps", "epochs", "bias":
			m.Info[key] = v
		}
	}
	return m
}

// replan takes out of the plan's count the recipes of rs that the linear
// paths stopped before, so that the counters ("candidate 7 of 26") count
// what is scored.
func (s *search) replan(rs []*recipe) {
	s.mu.Lock()
	defer s.mu.Unlock()
	scored := map[*recipe]bool{}
	for _, cr := range s.res {
		scored[cr.r] = true
	}
	for _, r := range rs {
		if !scored[r] {
			s.planned--
		}
	}
}

// blendLinear fits the blend of the l2- and l1-loss linear SVMs at cfg.C
// on p (recipe.blend, FitConfig.LinearLoss "l2+l1"): the l1 run starts
// from the l2 run's solution (svm.LinearPath), and the model's weights are
// the means of theirs (svm.MeanLinear), so that its decisions are the
// means of theirs: an ensemble of two linear heads that costs one head's
// prediction. The search tries it only when asked: as a candidate scored
// from the two losses' decision values at C = 1 it validated above the l2
// loss on all five Debian splits of bench/sparse, and tested 0.07 to 0.22
// points above it on three and 0.04 and 0.05 below on the other two
// (where the l1 loss was 0.3 points below the l2 loss), below LinearSVC().
func blendLinear(ctx context.Context, p svm.Problem, cfg svm.LinearDCDConfig, rng *rand.Rand) (*svm.Model, error) {
	lp, err := svm.NewLinearPath(p, cfg, rng)
	if err != nil {
		return nil, err
	}
	m, _, err := trainBlend(ctx, lp, cfg.C, 0)
	return m, err
}

// trainBlend trains the blend at cost c on the path lp: the l2 run, then
// the l1 run from its solution, each bounded at maxEpochs (0: the path's
// bound), and returns the mean of their models and whether either run
// stopped before its stopping rule.
func trainBlend(ctx context.Context, lp *svm.LinearPath, c float64, maxEpochs int) (m *svm.Model, short bool, err error) {
	l2, err := lp.Train(ctx, c, svm.SquaredHinge, maxEpochs)
	if err != nil {
		return nil, false, err
	}
	short = !lp.Converged()
	l1, err := lp.Train(ctx, c, svm.Hinge, maxEpochs)
	if err != nil {
		return nil, false, err
	}
	m, err = svm.MeanLinear(l2, l1)
	return m, short || !lp.Converged(), err
}
