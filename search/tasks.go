package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"slices"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/paper"
)

// Search is Fit's model selection with the training and scoring of its
// candidates handed out, so that they can run on other machines: Run
// drives the search as Fit does and hands each round of it — the kernel
// matrices of the SVM grid, the C paths of the linear SVM, the candidates
// that train one at a time on each validation split, networks among them
// — to an Executor as tasks; whatever runs a task calls Score on a Search
// made from the same data and configuration, and Run merges the results
// in the order Fit books them. The model Run returns is then Fit's, byte
// for byte once saved, as long as the budget is not reached: the budget
// is checked between rounds, and a round's tasks run to their end.
//
// The candidates, the validation splits and every task's random stream
// follow from the data, the configuration and FitConfig.Seed alone, so
// that any process that reads the same data with the same configuration
// makes the same Search; a task made by another search is refused.
type Search struct {
	ds    *data.Dataset
	c     FitConfig
	d     *fitData // nil for a one-class SVM, which has no search
	cands []*recipe
	base  *search // the validation splits
	plan  uint64  // the fingerprint of the data, configuration, candidates and splits
}

// Executor runs one round of a search's tasks and returns their results
// in the tasks' order: each task is given to Score of a Search made from
// the same data and configuration, in any process and in any order.
// Tasks and results are opaque bytes (see Search.Score), carried as they
// are. An error ends the search.
type Executor func(ctx context.Context, tasks [][]byte) ([][]byte, error)

// NewSearch prepares the selection that Fit(ctx, ds, cfg) runs: the data
// are checked, the candidates listed and the validation splits drawn. ds
// must not be modified while the Search is in use.
func NewSearch(ds *data.Dataset, cfg *FitConfig) (*Search, error) {
	_, c, err := fitArgs(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	s := &Search{ds: ds, c: c}
	if c.SVMType == SVMOneClass {
		return s, nil
	}
	if s.d, err = prepareFit(ds, &s.c); err != nil {
		return nil, err
	}
	if s.cands, err = candidates(s.d, &s.c); err != nil {
		return nil, err
	}
	s.base = newSearch(context.Background(), s.d, &s.c, time.Now())
	s.base.makeSplits()
	s.plan = planOf(s.d, &s.c, s.cands, s.base)
	return s, nil
}

// Candidates returns the names of the candidates the search starts from,
// cheapest first, as Fit's Selection names them: the same list for the
// same data and configuration. The refinement around the best classical
// candidate adds neighbours during the search. A pinned configuration
// has one candidate and no search; a one-class SVM has none.
func (s *Search) Candidates() []string {
	names := make([]string, len(s.cands))
	for i, r := range s.cands {
		names[i] = r.name
	}
	return names
}

// Run runs the selection with every round's tasks handed to exec, then
// trains the winner here: the model equals Fit's on the same data and
// configuration (see Search). With a single candidate, or a one-class
// SVM, there is nothing to hand out and exec is not called.
func (s *Search) Run(ctx context.Context, exec Executor) (*model.Model, error) {
	if exec == nil {
		return nil, configErr("no executor for the search's tasks")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	c := s.c
	if s.d == nil {
		m, err := fitOneClass(ctx, s.ds, &c)
		recordData(m, s.ds)
		return m, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r := &remote{ctx: ctx, exec: exec, cancel: cancel, plan: s.plan}
	m, err := fitSearch(ctx, s.d, &c, r, time.Now())
	if r.failed != nil {
		return nil, fmt.Errorf("nsvm: fit: scoring the candidates: %w", r.failed)
	}
	recordData(m, s.ds)
	return m, err
}

// Score runs one task of a Run of a Search made from the same data and
// configuration, and returns its result for the Executor to return. It
// is safe for concurrent use; the random streams of a task do not depend
// on the process, the order or the concurrency of the tasks.
func (s *Search) Score(ctx context.Context, task []byte) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	var t wireTask
	if err := gob.NewDecoder(bytes.NewReader(task)).Decode(&t); err != nil {
		return nil, fmt.Errorf("nsvm: search task: %w", err)
	}
	if s.d == nil || t.Plan != s.plan {
		return nil, fmt.Errorf("nsvm: search task: made by a search of other data or another configuration than this one")
	}
	ws := s.fork(ctx)
	rs := make([]*recipe, len(t.Recipes))
	for i, w := range t.Recipes {
		r, err := s.recipe(ws, w)
		if err != nil {
			return nil, err
		}
		rs[i] = r
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("nsvm: search task: no candidates")
	}
	var res wireResult
	switch t.Kind {
	case taskFit:
		if len(rs) != 1 || t.Split < 0 || t.Split >= len(ws.splits) {
			return nil, fmt.Errorf("nsvm: search task: a fit takes one candidate and a split in [0, %d)", len(ws.splits))
		}
		o, _ := ws.fitJob(rs[0], t.Split, t.Bar)
		res.Records = []wireRecord{{Scores: []float64{o.score}, Dec: [][]float64{o.dec}, Loss: o.loss, Seconds: o.secs, Err: errText(o.err)}}
	case taskGrid:
		ws.scoreGridGroup(rs[0].scaling, rs)
		res.Records = ws.records(rs)
	case taskPath:
		ws.scoreLinearPaths(rs)
		res.Records = ws.records(rs)
	default:
		return nil, fmt.Errorf("nsvm: search task: unknown kind %q", t.Kind)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("nsvm: search task: %w", err)
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&res); err != nil {
		return nil, fmt.Errorf("nsvm: search result: %w", err)
	}
	return b.Bytes(), nil
}

// fork returns a search on the splits of s.base that scores tasks under
// ctx, without a budget of its own (the driving search has it).
func (s *Search) fork(ctx context.Context) *search {
	ws := newSearch(ctx, s.d, &s.c, time.Now())
	ws.deadline = ws.start.Add(100 * 365 * 24 * time.Hour)
	ws.splits, ws.svmRows, ws.protocol = s.base.splits, s.base.svmRows, s.base.protocol
	return ws
}

// recipe finds the candidate a task names.
func (s *Search) recipe(ws *search, w wireRecipe) (*recipe, error) {
	if w.Index < 0 || w.Index >= len(s.cands) {
		return nil, fmt.Errorf("nsvm: search task: candidate %d of %d", w.Index, len(s.cands))
	}
	r := s.cands[w.Index]
	if w.Moved {
		r = ws.neighbour(r, w.Gamma, w.C, w.Eps)
	}
	if r.name != w.Name {
		return nil, fmt.Errorf("nsvm: search task: candidate %q is %q here", w.Name, r.name)
	}
	return r, nil
}

// records returns what a search scored, in its order, naming the
// candidates by their place in rs; a neighbour the search added (the
// linear refinement) by the place of a candidate of its C path, with its C.
func (s *search) records(rs []*recipe) []wireRecord {
	at := make(map[*recipe]int, len(rs))
	for i, r := range rs {
		at[r] = i
	}
	out := make([]wireRecord, len(s.res))
	for i, cr := range s.res {
		out[i] = wireRecord{Recipe: at[cr.r], Scores: cr.scores, Dec: cr.dec, Loss: cr.loss, Seconds: cr.secs,
			Err: errText(cr.err), Missing: cr.missing, Complete: cr.complete, Sampled: cr.sampled, Pruned: cr.pruned}
		if _, ok := at[cr.r]; !ok {
			out[i].Recipe = slices.IndexFunc(rs, func(r *recipe) bool { return pathKey(r) == pathKey(cr.r) })
			out[i].Moved, out[i].C = true, cr.r.c
		}
	}
	return out
}

// neighbour returns b with γ, C and ε set: a candidate of the refinement.
func (s *search) neighbour(b *recipe, gamma, c, eps float64) *recipe {
	r := *b
	r.kern.Gamma, r.c, r.eps = gamma, c, eps
	r.incumbent = false
	r.name = r.describe()
	if s.remote != nil {
		s.remote.origin[&r] = b
	}
	return &r
}

// The kinds of tasks.
const (
	taskFit  = "fit"  // one candidate on one split (search.runJobs)
	taskGrid = "grid" // one group of SMO candidates (search.scoreGridGroup)
	taskPath = "path" // the C paths of the linear SVM (search.scoreLinearPaths)
)

// wireTask is a task as Executors carry it (gob-encoded).
type wireTask struct {
	Plan    uint64
	Kind    string
	Recipes []wireRecipe
	Split   int
	// Bar is a fit's bar, if it has one (see search.race).
	Bar *bar
}

// wireRecipe names a candidate: the initial candidate Index, or its
// neighbour with γ, C and ε moved (search.refine).
type wireRecipe struct {
	Index         int
	Name          string
	Moved         bool
	Gamma, C, Eps float64
}

// wireResult is a task's result as Executors carry it (gob-encoded).
type wireResult struct {
	Records []wireRecord
}

// wireRecord is a candResult (Recipe: its place in the task), or for a
// fit task the outcome on the task's split.
type wireRecord struct {
	Recipe            int
	Scores            []float64
	Dec               [][]float64
	Loss              []float32
	Seconds           float64
	Err               string
	Missing           int
	Complete, Sampled bool
	Pruned            bool
	// Moved: the record is of the neighbour of candidate Recipe with
	// cost C, which the task's search added (see records).
	Moved bool
	C     float64
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func textErr(s string) error {
	if s == "" {
		return nil
	}
	return errors.New(s)
}

// remote hands a search's rounds to an Executor.
type remote struct {
	ctx    context.Context
	exec   Executor
	cancel context.CancelCauseFunc
	plan   uint64
	failed error // the first failure of a round; the search then stops

	index  map[*recipe]int     // the initial candidates
	origin map[*recipe]*recipe // a neighbour's candidate (search.neighbour)
}

// bind indexes the candidates that tasks name.
func (rm *remote) bind(cands []*recipe) *remote {
	rm.index = make(map[*recipe]int, len(cands))
	for i, r := range cands {
		rm.index[r] = i
	}
	rm.origin = map[*recipe]*recipe{}
	return rm
}

// ref names r in a task.
func (rm *remote) ref(r *recipe) wireRecipe {
	if i, ok := rm.index[r]; ok {
		return wireRecipe{Index: i, Name: r.name}
	}
	b := rm.origin[r]
	return wireRecipe{Index: rm.index[b], Name: r.name, Moved: true, Gamma: r.kern.Gamma, C: r.c, Eps: r.eps}
}

// refs names the candidates rs in a task.
func (rm *remote) refs(rs []*recipe) []wireRecipe {
	out := make([]wireRecipe, len(rs))
	for i, r := range rs {
		out[i] = rm.ref(r)
	}
	return out
}

// run hands tasks to the executor and returns their results, or nil
// when the round failed (the search's context is then cancelled).
func (rm *remote) run(tasks []wireTask) []wireResult {
	if len(tasks) == 0 || rm.failed != nil {
		return nil
	}
	fail := func(err error) []wireResult {
		rm.fail(err)
		return nil
	}
	in := make([][]byte, len(tasks))
	for i := range tasks {
		tasks[i].Plan = rm.plan
		var b bytes.Buffer
		if err := gob.NewEncoder(&b).Encode(&tasks[i]); err != nil {
			return fail(err)
		}
		in[i] = b.Bytes()
	}
	out, err := rm.exec(rm.ctx, in)
	if err != nil {
		return fail(err)
	}
	if len(out) != len(tasks) {
		return fail(fmt.Errorf("%d results for %d tasks", len(out), len(tasks)))
	}
	res := make([]wireResult, len(out))
	for i, b := range out {
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&res[i]); err != nil {
			return fail(fmt.Errorf("result %d: %w", i, err))
		}
		if len(res[i].Records) == 0 || tasks[i].Kind == taskFit && len(res[i].Records) != 1 {
			return fail(fmt.Errorf("result %d: %d records", i, len(res[i].Records)))
		}
		for _, rec := range res[i].Records {
			if rec.Recipe < 0 || rec.Recipe >= len(tasks[i].Recipes) {
				return fail(fmt.Errorf("result %d: candidate %d of %d", i, rec.Recipe, len(tasks[i].Recipes)))
			}
		}
	}
	return res
}

// fail ends the search with err.
func (rm *remote) fail(err error) {
	if rm.failed == nil {
		rm.failed = err
		rm.cancel(err)
	}
}

// remoteJobs is runJobs with the jobs run as tasks, booked in their
// order.
func (s *search) remoteJobs(crs []*candResult, splits []int) {
	var jobs []job
	var tasks []wireTask
	for _, cr := range crs {
		for _, sp := range splits {
			if s.admit(cr) {
				jobs = append(jobs, job{cr, sp})
				tasks = append(tasks, wireTask{Kind: taskFit, Recipes: []wireRecipe{s.remote.ref(cr.r)}, Split: sp, Bar: s.raceBar})
			}
		}
	}
	res, scale := s.remoteRound(tasks)
	if res == nil {
		return
	}
	for k, j := range jobs {
		rec := res[k].Records[0]
		if len(rec.Scores) != 1 || len(rec.Dec) > 1 {
			s.remote.fail(fmt.Errorf("result %d: not the outcome of a fit", k))
			return
		}
		o := outcome{score: rec.Scores[0], loss: nilIfEmpty(rec.Loss), secs: rec.Seconds * scale, err: textErr(rec.Err)}
		if len(rec.Dec) == 1 {
			o.dec = nilIfEmpty(rec.Dec[0])
		}
		s.book(j.cr, j.split, o, nil)
	}
}

// remoteGrid is scoreGrid with each group scored as a task: the groups
// the budget leaves out are listed, not scored, as scoreGrid lists them.
func (s *search) remoteGrid(groups [][]*recipe) {
	var tasks []wireTask
	scored := make([]bool, len(groups))
	for i, g := range groups {
		if s.ctx.Err() != nil || (i > 0 || len(s.res) > 0) && time.Now().After(s.deadline) {
			continue
		}
		scored[i] = true
		tasks = append(tasks, wireTask{Kind: taskGrid, Recipes: s.remote.refs(g)})
	}
	res, scale := s.remoteRound(tasks)
	k := 0
	for i, g := range groups {
		if !scored[i] || res == nil {
			s.budgetHit = s.budgetHit || s.ctx.Err() == nil
			s.add(g)
			continue
		}
		s.merge(g, res[k], scale)
		k++
	}
}

// remotePaths is scoreLinearPaths as one task: a path after the first
// starts from the best of the paths before it.
func (s *search) remotePaths(rs []*recipe) {
	if len(rs) == 0 || !s.linearBudget(true) {
		return
	}
	res, scale := s.remoteRound([]wireTask{{Kind: taskPath, Recipes: s.remote.refs(rs)}})
	if res == nil {
		return
	}
	s.merge(rs, res[0], scale)
}

// remoteRound runs a round of tasks on the executor and returns their
// results (nil when the round failed) with the factor that turns the
// seconds the tasks measured into shares of the round's wall time here.
func (s *search) remoteRound(tasks []wireTask) ([]wireResult, float64) {
	j := s.clock.start()
	res := s.remote.run(tasks)
	wall := s.clock.stop(j)
	var measured float64
	for _, r := range res {
		for _, rec := range r.Records {
			measured += rec.Seconds
		}
	}
	if measured <= 0 {
		return res, 0
	}
	return res, wall / measured
}

// merge books the records of a grid or path task on the candidates rs,
// as the search that scored them booked them, their seconds scaled by
// scale (see remoteRound).
func (s *search) merge(rs []*recipe, res wireResult, scale float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range res.Records {
		r := rs[rec.Recipe]
		if rec.Moved {
			r = s.neighbour(r, r.kern.Gamma, rec.C, r.eps)
		}
		cr := &candResult{r: r, scores: rec.Scores, dec: make([][]float64, len(s.splits)),
			loss: nilIfEmpty(rec.Loss), secs: rec.Seconds * scale, err: textErr(rec.Err), missing: rec.Missing,
			complete: rec.Complete, sampled: rec.Sampled, pruned: rec.Pruned}
		for i := range min(len(rec.Dec), len(cr.dec)) {
			cr.dec[i] = nilIfEmpty(rec.Dec[i])
		}
		s.res = append(s.res, cr)
		s.done++
		if cr.complete && (s.best == nil || cr.mean() > s.best.mean()) {
			s.best = cr
		}
		s.report(cr)
	}
}

// nilIfEmpty undoes gob's encoding of nil and empty slices alike: the
// search tells "none" by nil.
func nilIfEmpty[T any](v []T) []T {
	if len(v) == 0 {
		return nil
	}
	return v
}

// planOf fingerprints what a search's tasks depend on: the data, the
// configuration, the candidates and the splits.
func planOf(d *fitData, c *FitConfig, cands []*recipe, s *search) uint64 {
	h := fnv.New64a()
	var buf []byte
	put := func(u uint64) {
		if buf = binary.LittleEndian.AppendUint64(buf, u); len(buf) >= 1<<16 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	ints := func(v ...int) {
		put(uint64(len(v)))
		for _, x := range v {
			put(uint64(x))
		}
	}
	floats := func(v []float64) {
		put(uint64(len(v)))
		for _, x := range v {
			put(math.Float64bits(x))
		}
	}
	floats32 := func(v []float32) {
		put(uint64(len(v)))
		for _, x := range v {
			put(uint64(math.Float32bits(x)))
		}
	}
	ints(d.n, d.d)
	floats32(d.x)
	if d.sp != nil {
		for _, p := range d.sp.Ptr {
			put(uint64(p))
		}
		for _, j := range d.sp.Idx {
			put(uint64(j))
		}
		floats32(d.sp.Val)
	}
	floats(d.classes)
	ints(d.cls...)
	floats(d.y)
	floats(d.w)
	floats(d.cw)
	for i, sp := range s.splits {
		ints(sp.train...)
		ints(sp.val...)
		ints(s.svmRows[i]...)
	}
	h.Write(buf)
	fmt.Fprintf(h, "%s|%s|%v|%q|", d.task, d.metric, d.shape, d.names)
	configPrint(h, c)
	for _, r := range cands {
		fmt.Fprintf(h, "%s|", r.name)
	}
	return h.Sum64()
}

// configPrint writes the fields of c that the search's tasks depend on.
func configPrint(h hash.Hash, c *FitConfig) {
	k := *c
	k.Progress, k.Train, k.Workers, k.Budget, k.SampleRows = nil, paper.Options{}, 0, 0, 0
	deref := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	var balanced any
	if k.Balanced != nil {
		balanced = *k.Balanced
	}
	mom, wd := deref(k.Momentum), deref(k.WeightDecay)
	k.Momentum, k.WeightDecay, k.Balanced = nil, nil, nil
	fmt.Fprintf(h, "%+v|%v|%v|%v|", k, mom, wd, balanced)
}
