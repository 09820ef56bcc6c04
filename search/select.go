package search

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nsvm-go/nsvm/model"
)

// defaultBudget bounds the search when FitConfig.Budget is 0.
const defaultBudget = 10 * time.Minute

// svmSearchRows caps the training rows of a classical SVM candidate during
// the search (a stratified sample of each split's training part): SMO's
// cost grows as N², and the ranking of (C, γ) settles long before. On a
// hold-out split (large data) the cap is holdoutSearchRows, so that the
// kernel matrix of the grid (its training and validation rows) stays near
// 150 MB.
const (
	svmSearchRows     = 6000
	holdoutSearchRows = 4000
)

// search scores candidates on validation splits.
type search struct {
	// kbuf is the storage of the kernel matrices of one round of grid
	// searches, shared by them (svm.GridConfig.Buffer) and dropped after.
	kbuf []float32

	ctx      context.Context
	d        *fitData
	c        *FitConfig
	start    time.Time
	clock    *clock // where the wall time goes
	deadline time.Time
	splits   []split
	svmRows  [][]int // per split: the training rows for classical candidates
	protocol string
	workers  int

	// remote, if not nil, scores the candidates elsewhere (Search.Run).
	remote *remote

	// raceBar is the bar of the networks' round on the first split (see
	// race); nil outside it. Set between rounds only.
	raceBar *bar

	// cnt counts the work done outside the candidates' jobs (the grid's
	// kernel matrices, the final fit); jobWork is the work of the jobs
	// done, each counted in its own counters (workMu held).
	cnt     *counters
	workMu  sync.Mutex
	jobWork Work

	mu   sync.Mutex
	res  []*candResult
	kept *model.Model // the winner as trained in the search, when it need not be refitted
	done int
	// notes are what the candidates' plan left out and why (Selection.Notes).
	notes []string
	// planned counts the candidates the search means to score: the initial
	// list and the refinements added to it.
	planned   int
	budgetHit bool
	best      *candResult
}

// candResult is a candidate's record.
type candResult struct {
	r        *recipe
	scores   []float64
	dec      [][]float64 // per split: decision values on its validation rows (Probability)
	secs     float64
	err      error
	missing  int // splits not run (budget)
	complete bool
	// sampled: scored by the grid on a sample of a hold-out (see
	// rescoreSampled).
	sampled bool
	// loss holds, on a single hold-out split, the loss of each validation
	// row (0/1 error, or squared error): paired comparisons row by row.
	loss []float32
	// pruned: scored on a linear C path, then pruned (see climb); its
	// scores are kept.
	pruned bool
	// firstLoss holds, for a linear candidate on several splits, the loss
	// of each validation row of the first split (see racedStep).
	firstLoss []float32
	// work is what its jobs counted; raceSecs and raceWork what their
	// Part I races took (included).
	work     Work
	raceSecs float64
	raceWork Work
	// model is the network candidate trained on the hold-out's training
	// part, kept on data so large that the hold-out is at most a twentieth
	// of it, and for an image recipe that raced its Part I variants on a
	// single hold-out: refitting on all the rows would cost another
	// training (another race) for little more data.
	model *model.Model
}

func (cr *candResult) mean() float64 {
	var s float64
	for _, v := range cr.scores {
		s += v
	}
	return s / float64(len(cr.scores))
}

func (cr *candResult) std() float64 {
	m := cr.mean()
	var s float64
	for _, v := range cr.scores {
		s += (v - m) * (v - m)
	}
	if len(cr.scores) < 2 {
		return 0
	}
	return math.Sqrt(s / float64(len(cr.scores)-1))
}

func newSearch(ctx context.Context, d *fitData, c *FitConfig, start time.Time) *search {
	b := c.Budget
	if b == 0 {
		b = defaultBudget
	}
	w := c.Workers
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	s := &search{d: d, c: c, start: start, deadline: start.Add(b), workers: w, clock: newClock(start, "prepare"), cnt: &counters{}}
	s.ctx = withCounters(ctx, s.cnt)
	return s
}

// work returns the work of the search so far.
func (s *search) work() Work {
	s.workMu.Lock()
	w := s.jobWork
	s.workMu.Unlock()
	return w.Plus(s.cnt.work())
}

// randFor returns a random stream for one purpose of the search.
func randFor(seed uint64, purpose string) *rand.Rand {
	return rand.New(seedPCG(seedFor(seed, purpose, -1)))
}

// seedFor derives the random stream of one fit from the run's seed, the
// candidate and the split, so that results do not depend on scheduling.
func seedFor(seed uint64, name string, split int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return seed ^ h.Sum64() ^ uint64(split+1)*0x9e3779b97f4a7c15
}

// makeSplits draws the validation splits (once).
func (s *search) makeSplits() {
	if s.splits != nil {
		return
	}
	rng := rand.New(seedPCG(s.c.Seed ^ 0x73706c697473))
	s.splits, s.protocol = s.d.validationSplits(s.c.Folds, rng)
	if s.dropsNearCopies() {
		if note := dropNearCopies(s.splits, s.d.nearGroups(s.c.Seed^0x6e656172, s.workers)); note != "" {
			s.notes = append(s.notes, note)
		}
	}
	s.svmRows = make([][]int, len(s.splits))
	for i, sp := range s.splits {
		rows := svmSearchRows
		if len(s.splits) == 1 {
			rows = holdoutSearchRows
		}
		s.svmRows[i] = s.d.sample(sp.train, rows, rng)
	}
}

// run scores the candidates and returns the winner, ready for the final
// fit, with its out-of-fold decision values when probabilities are asked
// for.
func (s *search) run(cands []*recipe) (*recipe, *outOfFold, error) {
	s.makeSplits()
	s.planned = len(cands)
	if len(s.splits) == 0 {
		single := 0
		for _, n := range s.d.classCounts(s.d.all()) {
			if n == 1 {
				single++
			}
		}
		return nil, nil, fmt.Errorf("%w: %d of the %d classes have a single row, and every validation split lacks one of them in its training part; merge or drop the rare classes, or pin the model (algorithm and parameters) to train without selection", model.ErrBadData, single, s.d.nclass())
	}
	if len(s.splits) == 1 && len(s.splits[0].val) == 0 {
		// A stratified hold-out gives each class its share of the
		// validation rows, rounded: none when every class is that small.
		return nil, nil, fmt.Errorf("%w: the hold-out split of %d rows left no validation rows: it takes from each class its share (%d of %d rows, rounded), and each of the %d classes has at most %d rows; merge or drop the rare classes (is the label column right?), or pin the model (algorithm and parameters) to train without selection",
			model.ErrBadData, s.d.n, holdoutRows(s.d.n), s.d.n, s.d.nclass(), slices.Max(s.d.classCounts(s.d.all())))
	}
	var classical, nets []*recipe
	for _, r := range cands {
		if r.solver != "" {
			classical = append(classical, r)
		} else {
			nets = append(nets, r)
		}
	}
	var grid, linear, paths []*recipe
	for _, r := range classical {
		switch {
		case s.gridable(r):
			grid = append(grid, r)
		case r.solver == "linear":
			linear = append(linear, r)
		default:
			paths = append(paths, r)
		}
	}
	if s.d.sp != nil && len(linear) > 0 && len(grid) > 0 {
		// Sparse rows (text): the linear SVM first, and the kernel SVMs
		// only if a probe on a sample says they could catch up with it.
		s.phase("linear C paths", linear, s.scoreLinearPaths)
		linear = nil
		s.phase("kernel probe", grid, func(rs []*recipe) { grid = s.probeKernels(rs) })
	}
	s.phase("SMO grid", grid, s.scoreGrid)
	s.phase("linear C paths", linear, s.scoreLinearPaths)
	s.phase("classical C paths", paths, s.scorePaths)
	s.phase("refinement", s.refine(classical), func(extra []*recipe) {
		s.mu.Lock()
		s.planned += len(extra)
		s.mu.Unlock()
		if s.gridable(extra[0]) {
			s.scoreGrid(extra)
		} else {
			s.score(extra)
		}
	})
	s.rescoreSampled()
	s.phase("networks", nets, s.race)
	if err := s.ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("nsvm: fit: stopped during the search: %w", err)
	}
	win := s.winner()
	if win == nil {
		return nil, nil, s.failure()
	}
	s.kept = win.model
	if s.remote != nil && s.keeps(win, 0) {
		// Scored elsewhere: the same training, here.
		if o, m := s.fitJob(win.r, 0, nil); o.err == nil {
			s.kept = m
		}
	}
	return win.r, s.outOfFold(win), nil
}

// phase scores the candidates rs, if any, with score, their time accounted
// to the phase name.
func (s *search) phase(name string, rs []*recipe, score func([]*recipe)) {
	if len(rs) > 0 {
		s.enter(name)
		score(rs)
	}
}

// enter starts the search's phase name. The phase before it is over, and
// with it its kernel matrices and caches: they go back to the OS now
// (debug.FreeOSMemory) instead of when the collector gets to them, so that
// the next phase's buffers do not come on top of them.
func (s *search) enter(name string) {
	s.clock.enter(name)
	debug.FreeOSMemory()
}

// failure explains why no candidate could be scored.
func (s *search) failure() error {
	for _, cr := range s.res {
		if cr.err != nil {
			return fmt.Errorf("nsvm: fit: every candidate failed; %s: %w", cr.r.name, cr.err)
		}
	}
	return fmt.Errorf("nsvm: fit: the budget ran out before one candidate was scored (raise it)")
}

// score runs every (candidate, split) pair on the workers.
func (s *search) score(rs []*recipe) {
	crs := s.add(rs)
	s.runJobs(crs, seq(len(s.splits)))
}

// rescoreSampled scores again, on the whole hold-out, the incumbent and
// the best rescoreTop candidates that the grid scored on a sample of it
// (a hold-out larger than gridRows), and leaves the others out of the
// running: every candidate that can win is then scored on the same rows.
func (s *search) rescoreSampled() {
	var sampled []*candResult
	for _, cr := range s.res {
		if cr.sampled && cr.complete {
			sampled = append(sampled, cr)
		}
	}
	if len(sampled) == 0 {
		return
	}
	slices.SortStableFunc(sampled, func(a, b *candResult) int { return cmp.Compare(b.mean(), a.mean()) })
	var again []*candResult
	for i, cr := range sampled {
		if i < rescoreTop || cr.r.incumbent {
			again = append(again, cr)
		}
		cr.complete = false // until scored on the whole hold-out
	}
	for _, cr := range again {
		cr.sampled, cr.missing, cr.err = false, len(s.splits), nil
	}
	s.enter("rescoring")
	s.best = nil
	for _, cr := range s.res {
		if cr.complete && (s.best == nil || cr.mean() > s.best.mean()) {
			s.best = cr
		}
	}
	s.runJobs(again, seq(len(s.splits)))
}

// rescoreTop is how many of the grid's best candidates rescoreSampled
// scores on the whole hold-out.
const rescoreTop = 3

// scorePaths scores the classical candidates along their regularisation
// paths: candidates that differ only in C form a path, scored from the
// smallest C up, and a path stops at the first C that scores below an
// earlier one. Past the best C the validation score falls as the SVM fits
// noise, and those larger C cost the most SMO iterations.
func (s *search) scorePaths(rs []*recipe) {
	type path struct {
		rs   []*recipe
		best float64
		done bool
	}
	var paths []*path
	for _, g := range cPaths(rs) {
		paths = append(paths, &path{rs: g, best: math.Inf(-1)})
	}
	for step := 0; ; step++ {
		var batch []*recipe
		var owner []*path
		for _, p := range paths {
			if !p.done && step < len(p.rs) {
				batch = append(batch, p.rs[step])
				owner = append(owner, p)
			}
		}
		if len(batch) == 0 {
			return
		}
		crs := s.add(batch)
		s.runJobs(crs, seq(len(s.splits)))
		for i, cr := range crs {
			p := owner[i]
			switch {
			case !cr.complete:
				p.done = true
			case cr.mean() < p.best:
				p.done = true
			default:
				p.best = cr.mean()
			}
		}
	}
}

// cPaths groups recipes that differ only in C into paths of increasing C,
// in the order of their first recipes.
func cPaths(rs []*recipe) [][]*recipe {
	paths := groupBy(rs, pathKey)
	for _, p := range paths {
		slices.SortStableFunc(p, func(a, b *recipe) int { return cmp.Compare(a.c, b.c) })
	}
	return paths
}

// pathKey is what the candidates of a C path share: all but C.
func pathKey(r *recipe) string {
	return fmt.Sprint(r.scaling, r.kern, r.eps, r.solver, r.loss, r.blend, r.nu)
}

// race scores costly candidates on the first split, then on the others
// only those whose first score is within the noise of the best
// candidate's first score (two standard errors of a difference of two
// held-out scores): a network that loses clearly on one fold is not
// trained on the others.
func (s *search) race(rs []*recipe) {
	crs := s.add(rs)
	// A network trains on its own copy of its split's rows and its
	// batches already keep every core busy: on large inputs the networks
	// train one at a time, so that memory holds one copy.
	w := s.workers
	if s.d.sp == nil && 4*len(s.splits[0].train)*s.d.d > netParallelBytes {
		w = 1
	}
	// On the first split each network is scored against the best
	// complete candidate before its round and the best network of the
	// rounds before on that split (monitor.hopeless).
	rounds := netRounds(crs, w)
	for i, rd := range rounds {
		s.mu.Lock()
		s.raceBar = nil
		if s.best != nil {
			s.raceBar = &bar{Score: s.best.scores[0], Name: s.best.r.name}
		}
		for _, cr := range slices.Concat(rounds[:i]...) {
			if cr.err == nil && (s.raceBar == nil || cr.scores[0] > s.raceBar.Score) {
				s.raceBar = &bar{Score: cr.scores[0], Name: cr.r.name}
			}
		}
		s.mu.Unlock()
		s.runJobsOn(rd, []int{0}, w)
	}
	s.raceBar = nil
	if len(s.splits) < 2 {
		return
	}
	var alive []*candResult
	for _, cr := range crs {
		if cr.err != nil {
			// Failed or pruned on the first split (monitor.hopeless):
			// done, not trained on the others.
			s.mu.Lock()
			if cr.missing > 0 {
				cr.missing = 0
				s.finish(cr)
			}
			s.mu.Unlock()
			continue
		}
		if why := s.outrun(cr); why != "" {
			s.mu.Lock()
			cr.err, cr.missing = fmt.Errorf("pruned: %s", why), 0
			s.done++
			s.report(cr)
			s.mu.Unlock()
			continue
		}
		alive = append(alive, cr)
	}
	s.runJobs(alive, seq(len(s.splits))[1:])
}

// netRounds groups the networks crs into the rounds of race, w training
// at once: one round, or with w = 1 one a round in their order. Networks on
// a schedule that anneals the rate, which monitor.hopeless never prunes, go
// first (a round of their own when the others train together), so that the
// networks that can be pruned are scored against them.
func netRounds(crs []*candResult, w int) [][]*candResult {
	annealing := func(cr *candResult) bool { return cr.r.preset.Alg4.Opt.Anneals() }
	var rounds [][]*candResult
	for _, group := range [][]*candResult{
		slices.DeleteFunc(slices.Clone(crs), func(cr *candResult) bool { return !annealing(cr) }),
		slices.DeleteFunc(slices.Clone(crs), annealing),
	} {
		switch {
		case len(group) == 0:
		case w == 1:
			for _, cr := range group {
				rounds = append(rounds, []*candResult{cr})
			}
		default:
			rounds = append(rounds, group)
		}
	}
	return rounds
}

// netParallelBytes bounds the dense training rows (float32) of a split
// on which networks train concurrently in the search.
const netParallelBytes = 64 << 20

// outrun says why cr, scored on the first split only, cannot catch up with
// the best complete candidate ("" if it can).
func (s *search) outrun(cr *candResult) string {
	best := s.best
	if best == nil {
		return ""
	}
	a, b := cr.scores[0], best.scores[0]
	if lowerByNoise(a, b, len(s.splits[0].val), s.d.task == model.Regression) {
		return fmt.Sprintf("first fold %s against the best's %s, lower by more than noise, so not trained on the other folds", FormatScore(s.metric(), s.display(a)), FormatScore(s.metric(), s.display(b)))
	}
	return ""
}

// lowerByNoise reports whether the held-out score a is below b by more
// than two standard errors of the difference of two scores on n rows: the
// standard error of b (an accuracy's binomial one, at least that of one
// row in n; or for a regression, whose score is −RMSE, RMSE/√(2n)) times
// √2.
func lowerByNoise(a, b float64, n int, regression bool) bool {
	fn := float64(n)
	var se float64
	if regression {
		se = -b / math.Sqrt(2*fn) // RMSE/√(2n)
	} else {
		p := min(1, max(0, b))
		se = math.Sqrt(max(p*(1-p), 1/fn) / fn)
	}
	return a < b-2*math.Sqrt2*se
}

// FormatScore formats a validation score of the metric for reports:
// "accuracy 97.50 %", "RMSE 3.21", "roc_auc 0.7412".
func FormatScore(metric string, v float64) string {
	switch metric {
	case MetricRMSE:
		return fmt.Sprintf("RMSE %.4g", v)
	case MetricAccuracy, "":
		return fmt.Sprintf("accuracy %.2f %%", 100*v)
	}
	return fmt.Sprintf("%s %.4f", metric, v)
}

// add registers candidates for scoring.
func (s *search) add(rs []*recipe) []*candResult {
	var crs []*candResult
	for _, r := range rs {
		cr := &candResult{r: r, scores: make([]float64, len(s.splits)),
			dec: make([][]float64, len(s.splits)), missing: len(s.splits)}
		s.res = append(s.res, cr)
		crs = append(crs, cr)
	}
	return crs
}

// runJobs trains and scores each candidate on each of the splits.
func (s *search) runJobs(crs []*candResult, splits []int) {
	s.runJobsOn(crs, splits, s.workers)
}

// runJobsOn is runJobs on at most workers goroutines.
func (s *search) runJobsOn(crs []*candResult, splits []int, workers int) {
	if len(crs) == 0 || len(splits) == 0 {
		return
	}
	if s.remote != nil {
		s.remoteJobs(crs, splits)
		return
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(crs)*len(splits)); w++ {
		wg.Go(func() {
			for j := range jobs {
				s.runJob(j.cr, j.split)
			}
		})
	}
	for _, cr := range crs {
		for _, sp := range splits {
			if s.admit(cr) {
				jobs <- job{cr, sp}
			}
		}
	}
	close(jobs)
	wg.Wait()
}

// job is one candidate's training and scoring on one split.
type job struct {
	cr    *candResult
	split int
}

// admit reports whether a job of cr may start: the first candidate always
// runs, so that there is a model; the others while the budget lasts; none
// once the context is done.
func (s *search) admit(cr *candResult) bool {
	if cr != s.res[0] && time.Now().After(s.deadline) {
		s.mu.Lock()
		s.budgetHit = true
		s.mu.Unlock()
		return false
	}
	return s.ctx.Err() == nil
}

// runJob trains one candidate on one split and scores it; its seconds are
// its share of the wall time while it ran (see clock).
func (s *search) runJob(cr *candResult, i int) {
	j := s.clock.start()
	o, m := s.fitJob(cr.r, i, s.raceBar)
	o.secs = s.clock.stop(j)
	s.book(cr, i, o, m)
}

// fitJob trains r on split i and scores the model on the split's
// validation rows; a network stops early if it cannot reach b (nil: no
// bar; see monitor.hopeless).
// The job counts its work in counters of its own (outcome.work).
func (s *search) fitJob(r *recipe, i int, b *bar) (outcome, *model.Model) {
	train := s.splits[i].train
	if r.solver != "" && !linearSolver(r.solver) {
		train = s.svmRows[i]
	}
	t0 := time.Now()
	jc := &counters{}
	ctx := withCounters(s.ctx, jc)
	if b != nil {
		ctx = withBar(ctx, b)
	}
	t, err := r.fit(ctx, s.d, train, seedFor(s.c.Seed, r.name, i), 1, nil)
	o := s.outcome(i, t.m, err, time.Since(t0).Seconds())
	o.work, o.raceSecs, o.raceWork = jc.work(), t.notes.raceSecs, t.notes.raceWork
	return o, t.m
}

// outcome is what a model trained on a split scored on its validation
// rows.
type outcome struct {
	score float64
	dec   []float64 // the decision values (Probability), else nil
	loss  []float32 // each row's loss (a single hold-out), else nil
	secs  float64
	work  Work // what the job counted
	// raceSecs and raceWork are those of an image recipe's Part I race.
	raceSecs float64
	raceWork Work
	err      error
}

// outcome scores the model m trained on split i (or takes the error that
// stopped its training) on the split's validation rows.
func (s *search) outcome(i int, m *model.Model, err error, secs float64) outcome {
	return s.outcomeRows(i, m, err, secs, len(s.splits) == 1)
}

// outcomeRows is outcome with each row's loss kept if rowLoss, whatever
// the number of splits.
func (s *search) outcomeRows(i int, m *model.Model, err error, secs float64, rowLoss bool) outcome {
	o := outcome{secs: secs, err: err}
	if err != nil {
		return o
	}
	t0 := time.Now()
	sp := s.splits[i]
	p := s.d.input(sp.val).predict(m, false)
	var l []float32
	o.score, l = s.d.scorePrediction(p, sp.val)
	if rowLoss {
		o.loss = l
	}
	if s.c.Probability && s.d.task == model.Classification {
		o.dec = p.Decisions
	}
	o.secs += time.Since(t0).Seconds()
	return o
}

// keeps reports whether the network candidate cr, trained on split i, is
// kept as the model should it win (see candResult.model).
func (s *search) keeps(cr *candResult, i int) bool {
	return len(s.splits) == 1 && cr.r.solver == "" && (len(s.splits[i].val)*20 <= s.d.n || len(cr.r.arms) > 0)
}

// book records the outcome o of candidate cr on split i, with the model m
// it scored (nil when trained elsewhere): when every split is in, the
// candidate is complete and reported.
func (s *search) book(cr *candResult, i int, o outcome, m *model.Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apply(cr, i, o, m)
	if cr.missing == 0 {
		s.finish(cr)
	}
}

// apply records the outcome o of candidate cr on split i, with the model m
// it scored (s.mu held).
func (s *search) apply(cr *candResult, i int, o outcome, m *model.Model) {
	cr.secs += o.secs
	cr.work = cr.work.Plus(o.work)
	cr.raceSecs += o.raceSecs
	cr.raceWork = cr.raceWork.Plus(o.raceWork)
	s.workMu.Lock()
	s.jobWork = s.jobWork.Plus(o.work)
	s.workMu.Unlock()
	cr.missing--
	if o.err != nil {
		if cr.err == nil {
			cr.err = o.err
		}
	} else {
		cr.scores[i], cr.dec[i] = o.score, o.dec
		if o.loss != nil {
			cr.loss = o.loss
		}
		if s.keeps(cr, i) {
			cr.model = m
		}
	}
}

// finish completes the candidate cr, scored on every split (or stopped by
// an error): it is counted, may lead, and is reported (s.mu held).
func (s *search) finish(cr *candResult) {
	cr.complete = cr.err == nil
	s.done++
	if cr.complete && (s.best == nil || cr.mean() > s.best.mean()) {
		s.best = cr
	}
	s.report(cr)
}

// report sends the progress report of a finished candidate (s.mu held).
func (s *search) report(cr *candResult) {
	s.clock.reported()
	if s.c.Progress == nil {
		return
	}
	p := FitProgress{Stage: "select", Metric: s.metric(), Candidate: cr.r.name, Done: s.done, Total: max(s.planned, s.done, len(s.res)),
		Score: s.display(cr.mean()), Seconds: cr.secs, Work: cr.work, RaceSeconds: cr.raceSecs, RaceWork: cr.raceWork, Elapsed: time.Since(s.start)}
	if cr.err != nil {
		p.Score, p.Err = math.NaN(), cr.err.Error()
	}
	if s.best != nil {
		p.Best, p.BestScore = s.best.r.name, s.display(s.best.mean())
	}
	s.c.Progress(p)
}

// metric names the validation score.
func (s *search) metric() string { return s.d.metric }

// display turns an internal score (larger is better) into what reports
// show: accuracy, or RMSE for regression.
func (s *search) display(v float64) float64 { return s.d.display(v) }

// display turns an internal score of d's task into what reports show.
func (d *fitData) display(v float64) float64 {
	if d.task == model.Regression {
		return -v
	}
	return v
}

// winner returns the complete candidate with the best mean score; ties go
// to the earlier (cheaper) one.
//
// The best mean score of many candidates is biased upwards by the noise of
// the folds, and more so the more candidates there are and the smaller the
// data. So the search has an incumbent, the classical default (an RBF SVM
// on standardised inputs with γ = 1/D and C = 1, as LIBSVM and
// scikit-learn's SVC()), and another candidate wins only when its scores
// beat the incumbent's on the same splits by more than noise: by more than
// incumbentZ standard errors of the mean of the per-split differences.
func (s *search) winner() *candResult {
	var best, inc *candResult
	for _, cr := range s.res {
		if !cr.complete {
			continue
		}
		if best == nil || cr.mean() > best.mean() {
			best = cr
		}
		if cr.r.incumbent && inc == nil {
			inc = cr
		}
	}
	if best == nil || inc == nil || best == inc || !s.beats(best, inc) {
		if inc != nil {
			return inc
		}
	}
	return best
}

// incumbentZ is how many standard errors a candidate must beat the
// incumbent by: one, the one-standard-error rule. On the sklearn data sets
// (iris, wine, breast_cancer, diabetes; 6–8 seeded splits each) two
// standard errors kept the default where a better γ was real (diabetes:
// test RMSE 57.9 against 55.3 with one), and no rule at all chose noise
// (wine, breast_cancer: 1–2 points below the default on some splits).
const incumbentZ = 1

// beats reports whether a's scores beat b's on the same splits by more
// than noise. With one split the noise of a difference of two held-out
// scores is estimated from the score itself (binomial, or RMSE/√(2n)).
func (s *search) beats(a, b *candResult) bool {
	mean, se := s.gain(a, b)
	return mean > 0 && mean > incumbentZ*se
}

// gain returns how much a scores above b on the same splits: the mean of
// the paired differences and its standard error.
func (s *search) gain(a, b *candResult) (mean, se float64) {
	k := len(a.scores)
	diff := make([]float64, k)
	for i := range diff {
		diff[i] = a.scores[i] - b.scores[i]
		mean += diff[i] / float64(k)
	}
	switch {
	case k > 1:
		var ss float64
		for _, d := range diff {
			ss += (d - mean) * (d - mean)
		}
		se = math.Sqrt(ss / float64(k-1) / float64(k))
	case a.loss != nil && b.loss != nil:
		// One hold-out: the standard error of the mean per-row difference
		// of the losses (for accuracy, √(discordant rows)/n, McNemar's),
		// scaled as the score (an RMSE's through its square).
		n := float64(len(a.loss))
		_, ss := pairedLoss(a.loss, b.loss)
		se = math.Sqrt(ss / (n - 1) / n)
		if s.d.task == model.Regression {
			// mean = RMSE_b − RMSE_a ≈ (MSE_b − MSE_a)/(2·RMSE)
			se /= 2 * max(-b.scores[0], 1e-12)
		}
	default:
		n := float64(len(s.splits[0].val))
		if s.d.task == model.Regression {
			se = -b.scores[0] / math.Sqrt(2*n)
		} else {
			p := min(1, max(0, b.scores[0]))
			se = math.Sqrt(2 * max(p*(1-p), 1/n) / n)
		}
	}
	return mean, se
}

// rowLosses returns the loss of each validation row: 0/1 error for a
// classifier, squared error for a regressor.
func rowLosses(d *fitData, val []int, pred []float64) []float32 {
	l := make([]float32, len(val))
	for k, i := range val {
		if d.task == model.Regression {
			e := pred[k] - d.y[i]
			l[k] = float32(e * e)
		} else if pred[k] != d.classes[d.cls[i]] {
			l[k] = 1
		}
	}
	return l
}

// refine returns the neighbours of the best classical candidate on a grid
// twice as fine, along one axis at a time (γ × 2^±1, C × 3^±1, for
// regression ε × 10^∓1 and × 3), for the parameters the configuration
// leaves open, and extends the grid where the best lies on its edge (C × 10
// past the largest C, γ × 4 past the smallest or largest γ). The linear
// SVM's C paths refine themselves (refineLinear).
func (s *search) refine(classical []*recipe) []*recipe {
	var best *candResult
	for _, cr := range s.res {
		if cr.r.solver != "" && cr.complete && (best == nil || cr.mean() > best.mean()) {
			best = cr
		}
	}
	if best == nil {
		return nil
	}
	b := best.r
	if b.solver == "linear" {
		return nil // refined with the C paths (scoreLinearPaths)
	}
	var gammas, cs []float64
	for _, r := range classical {
		if r.scaling == b.scaling {
			gammas = append(gammas, r.kern.Gamma)
			cs = append(cs, r.c)
		}
	}
	gs := []float64{1}
	if b.kern.Name != "linear" && b.kern.Name != "" && s.c.Gamma == 0 {
		gs = []float64{0.5, 1, 2}
		if b.kern.Gamma <= slices.Min(gammas) {
			gs = append(gs, 0.25)
		}
		if b.kern.Gamma >= slices.Max(gammas) {
			gs = append(gs, 4)
		}
	}
	cf := []float64{1}
	if s.c.C == 0 && len(classical) > 1 && b.solver != "perceptron" {
		cf = []float64{1.0 / 3, 1, 3}
		if b.c >= slices.Max(cs) {
			cf = append(cf, 10)
		}
	}
	seen := map[string]bool{}
	for _, cr := range s.res {
		seen[cr.r.name] = true
	}
	ef := []float64{1}
	if s.d.task == model.Regression && s.c.Epsilon == nil {
		ef = []float64{0.1, 1, 3}
	}
	var out []*recipe
	for _, g := range gs {
		for _, c := range cf {
			for _, e := range ef {
				// Along one axis at a time: γ at the best C and ε, C at the
				// best γ and ε, ε at the best (γ, C).
				moved := 0
				for _, f := range [...]float64{g, c, e} {
					if f != 1 {
						moved++
					}
				}
				if moved != 1 {
					continue
				}
				r := s.neighbour(b, b.kern.Gamma*g, b.c*c, b.eps*e)
				if !seen[r.name] {
					seen[r.name] = true
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// refineLinear returns the refinement of the linear C paths: at most one
// C, next to the candidate that wins the selection (the incumbent unless
// another beats it by more than noise), w, and only where a C there could
// beat w by more than noise. The parabola through the scores of w and of
// the Cs scored next to it on its path (pruned ones included), over
// log C, predicts the best score between them; if its gain over w is more
// than the noise of a difference between w and its better neighbour, the
// C at the parabola's vertex (at most half way to a neighbour, over log C)
// is scored. Where the scores around w are within noise of it, the curve
// is flat, and no C between them could win by more than noise. Past the
// largest C of the grid, when w is there and beats the C below it by more
// than noise, the path goes one decade further.
func (s *search) refineLinear() []*recipe {
	w := s.winner()
	if w == nil || w.r.solver != "linear" || s.c.C != 0 {
		return nil
	}
	key := pathKey(w.r)
	var below, above *candResult
	for _, cr := range s.res {
		if cr == w || !(cr.complete || cr.pruned) || pathKey(cr.r) != key {
			continue
		}
		if c := cr.r.c; c < w.r.c && (below == nil || c > below.r.c) {
			below = cr
		} else if c > w.r.c && (above == nil || c < above.r.c) {
			above = cr
		}
	}
	if above == nil && below != nil && s.beats(w, below) && !slices.ContainsFunc(s.res, func(cr *candResult) bool {
		return pathKey(cr.r) == key && cr.r.c > w.r.c
	}) {
		// The best C is the path's largest and still climbing: one
		// decade further, as the grid's refinement extends its edge.
		return []*recipe{s.neighbour(w.r, w.r.kern.Gamma, 10*w.r.c, w.r.eps)}
	}
	if below == nil || above == nil {
		return nil
	}
	x0, x1, x2 := math.Log(below.r.c), math.Log(w.r.c), math.Log(above.r.c)
	y0, y1, y2 := below.mean(), w.mean(), above.mean()
	if math.IsInf(y0+y1+y2, 0) || math.IsNaN(y0+y1+y2) {
		return nil // a score that no row could give (every validation row of weight 0)
	}
	// y = y1 + b·(x − x1) + a·(x − x1)², through the three points.
	d0, d2 := x0-x1, x2-x1
	a := ((y2-y1)/d2 - (y0-y1)/d0) / (d2 - d0)
	b := (y0-y1)/d0 - a*d0
	if a >= 0 {
		return nil
	}
	xv := -b / (2 * a)
	gain := b*xv + a*xv*xv
	closest := below
	if above.mean() > below.mean() {
		closest = above
	}
	// (Nor less than one validation row: a gain the scores cannot show.)
	if _, se := s.gain(w, closest); gain <= incumbentZ*se || gain < 1/float64(len(s.splits[0].val)) {
		return nil
	}
	half := min(-d0, d2) / 2
	c := w.r.c * math.Exp(min(max(xv, -half), half))
	for _, cr := range s.res {
		if cr.r.c == c && pathKey(cr.r) == key {
			return nil
		}
	}
	return []*recipe{s.neighbour(w.r, w.r.kern.Gamma, c, w.r.eps)}
}

// selection returns the record of the search.
func (s *search) selection() *model.Selection {
	sel := &model.Selection{Validation: s.protocol, Metric: s.metric(), BudgetReached: s.budgetHit,
		Seconds: time.Since(s.start).Seconds()}
	win := s.winner()
	var best *candResult
	for i, cr := range s.res {
		r := cr.r
		cs := model.CandidateScore{Name: r.name, Seconds: cr.secs, Solver: r.solver, Kernel: r.kern.Name, C: r.c,
			Gamma: r.kern.Gamma, Epsilon: r.eps, Nu: r.nu, Scaling: r.scaling, Arch: r.arch, Incumbent: r.incumbent}
		if r.solver == "" {
			cs.Solver = "nsvm" + strconv.Itoa(r.alg)
		}
		switch {
		case cr.err != nil:
			cs.Err = cr.err.Error()
		case cr.sampled:
			cs.Score, cs.Err = s.display(cr.mean()), "scored on a sample of the hold-out only"
		case !cr.complete:
			cs.Err = "not scored: budget reached"
		default:
			cs.Score, cs.Std = s.display(cr.mean()), cr.std()
			for _, v := range cr.scores {
				cs.Folds = append(cs.Folds, s.display(v))
			}
			if best == nil || cr.mean() > best.mean() {
				best = cr
			}
		}
		if cr == win {
			sel.Winner = i
		}
		sel.Candidates = append(sel.Candidates, cs)
	}
	if win != nil && best != nil && best != win && win.r.incumbent {
		mean, se := s.gain(best, win)
		unit, scale := "", 1.0
		if m := s.metric(); m == MetricAccuracy || m == MetricBalancedAccuracy {
			unit, scale = " points", 100
		}
		sel.Notes = append(sel.Notes, fmt.Sprintf("%s scored %s against the incumbent's %s: a gain of %.3g ± %.2g%s (one standard error of the paired differences over %s) is within noise, so the incumbent %s is kept",
			best.r.name, FormatScore(s.metric(), s.display(best.mean())), FormatScore(s.metric(), s.display(win.mean())),
			scale*mean, scale*se, unit, s.protocol, win.r.name))
	}
	sel.Notes = append(sel.Notes, s.notes...)
	sel.TaskNote = s.d.taskNote
	return sel
}

// outOfFold holds decision values of points a model was not trained on,
// with their class indices: the calibration data of probabilities.
type outOfFold struct {
	dec []float64 // rows × heads
	cls []int
	w   []float64 // the rows' sample weights (nil: 1 each)
}

// outOfFold gathers the winner's validation decision values (nil unless
// probabilities are asked for).
func (s *search) outOfFold(cr *candResult) *outOfFold {
	if !s.c.Probability || s.d.task != model.Classification {
		return nil
	}
	o := &outOfFold{}
	for i, sp := range s.splits {
		if cr.dec[i] == nil {
			return nil // scored by the grid search: no decision values kept
		}
		o.dec = append(o.dec, cr.dec[i]...)
		for _, j := range sp.val {
			o.cls = append(o.cls, s.d.cls[j])
			if s.d.w != nil {
				o.w = append(o.w, s.d.w[j])
			}
		}
	}
	return o
}

// crossDecisions runs a cross-validation of r (a pinned configuration) for
// out-of-fold decision values.
func (s *search) crossDecisions(r *recipe) (*outOfFold, error) {
	c := *s.c
	c.Probability = true
	if c.Folds == 0 {
		c.Folds = 5
	}
	sub := newSearch(s.ctx, s.d, &c, time.Now())
	sub.deadline = time.Now().Add(100 * 365 * 24 * time.Hour) // a pinned run is not budgeted
	sub.makeSplits()
	sub.score([]*recipe{r})
	cr := sub.res[0]
	if cr.err != nil {
		return nil, fmt.Errorf("nsvm: fit: cross-validation for the probability calibration: %w", cr.err)
	}
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	return sub.outOfFold(cr), nil
}
