package search

import (
	"cmp"
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

// scoreLinearPaths scores the linear solver's candidates along their C
// paths with warm starts, LIBLINEAR's way of searching C: the candidates
// that differ only in C form a path; on every split, each head of the path
// runs svm.LinearDCDPath, which starts each C from the solution of the
// previous one, and pauses after each C until every split has scored it.
// As in scorePaths, a path stops at the first C whose mean score falls
// below an earlier one's (but not before the incumbent, when it is on the
// path). The paths run one after the other, at most s.workers of a path's
// heads training at a time, so that one path's heads (a weight vector of
// D values each) are held at once; the paths of one scaling share each
// split's scaled rows.
func (s *search) scoreLinearPaths(rs []*recipe) {
	if s.remote != nil {
		s.remotePaths(cPaths(rs))
		return
	}
	sem := make(chan struct{}, s.workers)
	inputs := map[string][]subProblem{}
	for _, p := range cPaths(rs) {
		in, ok := inputs[p[0].scaling]
		if !ok {
			for _, sp := range s.splits {
				in = append(in, s.d.subProblem(p[0].scaling, sp.train))
			}
			inputs[p[0].scaling] = in
		}
		if !s.scoreLinearPath(p, in, sem) {
			return
		}
	}
}

// scoreLinearPath scores one path (increasing C) on the splits' rows in,
// and reports false when the budget or the context ended it.
func (s *search) scoreLinearPath(rs []*recipe, in []subProblem, sem chan struct{}) bool {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	cs := make([]float64, len(rs))
	for k, r := range rs {
		cs[k] = r.c
	}
	runs := make([]*linearRun, len(s.splits))
	for i := range s.splits {
		runs[i] = rs[0].startLinearPath(ctx, in[i], seedFor(s.c.Seed, rs[0].name, i), cs, sem)
	}
	defer func() {
		for _, r := range runs {
			r.stop()
		}
	}()
	best := math.Inf(-1)
	for k, r := range rs {
		if s.ctx.Err() != nil {
			return false
		}
		if k > 0 && time.Now().After(s.deadline) {
			s.mu.Lock()
			s.budgetHit = true
			s.mu.Unlock()
			return false
		}
		cr := s.add([]*recipe{r})[0]
		var wg sync.WaitGroup
		for i, run := range runs {
			wg.Go(func() {
				t0 := time.Now()
				m, err := run.next()
				s.record(cr, i, m, err, time.Since(t0).Seconds())
			})
		}
		wg.Wait()
		incumbentAhead := slices.ContainsFunc(rs[k+1:], func(r *recipe) bool { return r.incumbent })
		if !cr.complete || cr.mean() < best && !incumbentAhead {
			return true
		}
		best = max(best, cr.mean())
	}
	return true
}

// linearRun is a linear recipe's C path on one split's training rows: one
// goroutine per head, each in svm.LinearDCDPath, handing over its model
// after every C and waiting to be resumed.
type linearRun struct {
	r      *recipe
	d      *fitData
	sc     scaler
	heads  []*headRun
	k      int // models handed over so far
	single bool
}

// headRun is one head's path.
type headRun struct {
	models chan *svm.Model
	resume chan bool
	err    error
}

// errPathStop ends a head's path when the search needs no larger C.
var errPathStop = errors.New("nsvm: the C path is stopped")

// startLinearPath starts the C path cs (increasing) of r's loss on the
// scaled training rows sp: each head (one for two classes, one per class
// otherwise) trains with warm starts, at most cap(sem) heads at a time.
func (r *recipe) startLinearPath(ctx context.Context, sp subProblem, seed uint64, cs []float64, sem chan struct{}) *linearRun {
	d := sp.d
	lr := &linearRun{r: r, d: d, sc: sp.sc, single: d.nclass() == 2}
	var probs []svm.Problem
	if lr.single {
		probs = []svm.Problem{sp.problem(sp.x, d.d)}
	} else {
		cp := sp.classProblem(sp.x, d.d)
		cp.Sparse = sp.sp
		for h := range d.nclass() {
			probs = append(probs, cp.Head(model.OneVsRest, h))
		}
	}
	cfg := svm.LinearDCDConfig{Loss: r.loss, Eps: r.cfg.Tol}
	for h, p := range probs {
		hr := &headRun{models: make(chan *svm.Model), resume: make(chan bool)}
		lr.heads = append(lr.heads, hr)
		rng := rand.New(seedPCG(seed ^ (uint64(h+1) * 0xd1342543de82ef95)))
		go func() {
			defer close(hr.models)
			sem <- struct{}{}
			held := true
			err := svm.LinearDCDPath(ctx, p, cfg, cs, rng, func(_ int, m *svm.Model) error {
				<-sem
				held = false
				hr.models <- m
				if !<-hr.resume {
					return errPathStop
				}
				sem <- struct{}{}
				held = true
				return nil
			})
			if held {
				<-sem
			}
			if err != nil && !errors.Is(err, errPathStop) {
				hr.err = err
			}
		}()
	}
	return lr
}

// next returns the model of the next C (every head's, assembled as r.fit
// would), and resumes the heads towards the C after it.
func (lr *linearRun) next() (*model.Model, error) {
	if lr.k > 0 {
		for _, h := range lr.heads {
			h.resume <- true
		}
	}
	heads := make([]*svm.Model, len(lr.heads))
	var err error
	for i, h := range lr.heads {
		m, ok := <-h.models
		if !ok {
			err = cmp.Or(h.err, err, fmt.Errorf("nsvm: head %d of the C path ended early", i))
			continue
		}
		heads[i] = m
	}
	lr.k++
	if err != nil {
		lr.stop()
		return nil, err
	}
	d := lr.d
	m := &model.Model{Algorithm: "linear", Info: map[string]string{"scaling": lr.r.scaling}, Mean: lr.sc.mean, Std: lr.sc.std}
	if lr.single {
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
	return m, nil
}

// stop ends the path's goroutines: a head waiting to be resumed is told
// to stop, one still training hands over its model first, one that ended
// has closed its channel.
func (lr *linearRun) stop() {
	for _, h := range lr.heads {
	wait:
		for {
			select {
			case h.resume <- false:
				for range h.models {
				}
				break wait
			case _, ok := <-h.models:
				if !ok {
					break wait
				}
			}
		}
	}
	lr.heads = nil
}
