package search

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
)

// monitor scores the network every few steps of Part I on held-out rows
// with a quickly fitted head, keeps the parameters of the best score and
// stops when the score has not improved for a while.
type monitor struct {
	ctx      context.Context
	r        *recipe
	net      *nn.Net
	ts       subProblem // the rows the quick head trains on (at most 2000)
	vs       subProblem // the held-out rows it is scored on (at most 2000)
	seed     uint64
	notes    *fitNotes
	best     float64
	bestT    int
	theta    [][]float32
	patience int
	since    int
	// bar, if not nil, is the score to beat (see hopeless); bests holds
	// the best score after each check.
	bar   *bar
	bests []float64
	// lastT and last: the step and score of the latest scored check.
	lastT int
	last  float64
}

// annealChecks is the share of a schedule that anneals the rate to zero
// (cosine, one-cycle) over which Part I's checks score the network: its
// last quarter. The rate is high before it, the held-out score noisy and
// below the annealed end's (on MNIST's first 2000 images the CNN's score
// rose from 95.5 % at a fifth of Part I to 98.0 % at its end), and such
// a run is never stopped early, so earlier checks would only be points to
// go back to.
const annealChecks = 0.25

// What a check does: score the network, skip (an annealing schedule
// before its last quarter), or take the latest score again (the end of an
// annealing schedule right after a check: nearly the same parameters).
const (
	checkScore = iota
	checkSkip
	checkReuse
)

// plan says what the check at step t does.
func (mo *monitor) plan(t int) int {
	if !mo.r.preset.Alg4.Opt.Anneals() {
		return checkScore
	}
	T := mo.r.preset.Alg4.T
	switch {
	case t < T && float64(T-t) >= annealChecks*float64(T):
		return checkSkip
	case t >= T && mo.lastT > 0 && T-mo.lastT < max(1, T/monitorChecks)/2:
		return checkReuse
	}
	return checkScore
}

func (r *recipe) monitor(ctx context.Context, net *nn.Net, train, held subProblem, seed uint64, notes *fitNotes) *monitor {
	rng := monitorRand(seed)
	ts := monitorSample(train, rng)
	b, _ := ctx.Value(barKey{}).(*bar)
	return &monitor{ctx: ctx, r: r, net: net, ts: ts, vs: monitorSample(held, rng), seed: seed, notes: notes,
		best: math.Inf(-1), patience: 4, bar: b}
}

// bar is what a candidate of the search must beat on its split: the best
// complete candidate's score there and its name, as they stood when the
// candidate's round began (see search.race), so that a fit is the same
// whatever finishes first, here or on an Executor (a fit's task carries
// it: wireTask.Bar).
type bar struct {
	Score float64
	Name  string
}

type barKey struct{}

// withBar returns ctx carrying b, for the monitors of the candidate's
// Part I.
func withBar(ctx context.Context, b *bar) context.Context {
	return context.WithValue(ctx, barKey{}, b)
}

// monitorRand is the random stream of a monitor's samples.
func monitorRand(seed uint64) *rand.Rand { return rand.New(seedPCG(seed ^ 0x6d6f6e69746f72)) }

// monitorSample returns a stratified sample of at most 2000 rows of s: the
// rows a monitor's quick head trains on, or is scored on.
func monitorSample(s subProblem, rng *rand.Rand) subProblem {
	return s.atMost(2000, rng)
}

// check is the Options.Monitor of an auto recipe's Part I. A checkpoint
// whose score is within the noise of the best so far (one standard error
// of the held-out score) counts as good, and the latest good parameters are
// kept: on small hold-outs the score moves by a few points between
// checkpoints by chance, and training longer at no measurable loss is the
// better bet. Part I stops after mo.patience checkpoints in a row below
// that band, except on a schedule that anneals the rate to zero (cosine,
// one-cycle): there the scores dip while the rate is high and the
// annealing brings most of the gain, so Part I runs to its end and only
// goes back to earlier parameters if its last ones score below the band;
// there only the checks of the last quarter score the network (plan).
func (mo *monitor) check(t int) bool {
	switch mo.plan(t) {
	case checkSkip:
		return false
	case checkReuse:
		return mo.update(t, mo.last)
	}
	score := mo.score()
	mo.lastT, mo.last = t, score
	return mo.update(t, score)
}

// update is check's decision on the score of step t.
func (mo *monitor) update(t int, score float64) bool {
	T := mo.r.preset.Alg4.T
	mo.best = max(mo.best, score)
	mo.bests = append(mo.bests, mo.best)
	if why := mo.hopeless(t); why != "" {
		mo.notes.pruned = why
		return true
	}
	if score >= mo.best-mo.noise(mo.best) {
		mo.bestT, mo.since = t, 0
		mo.theta = mo.theta[:0]
		for _, p := range mo.net.Params() {
			mo.theta = append(mo.theta, slices.Clone(p.W))
		}
	} else {
		mo.since++
	}
	if t < T && (mo.since < mo.patience || mo.r.preset.Alg4.Opt.Anneals()) && mo.ctx.Err() == nil {
		return false
	}
	// Go back to the latest good parameters and end Part I.
	for i, p := range mo.net.Params() {
		copy(p.W, mo.theta[i])
	}
	mo.notes.steps = mo.bestT
	return true
}

// hopeless says why a candidate of the search whose Part I is at step t
// cannot win ("" if it may): even if its best held-out score went on
// gaining at its pace over the later half of its checks (the mean gain a
// check; learning curves flatten, so this is generous) until Part I's end,
// it would stay below the best complete candidate's score on the split by
// more than noise (lowerByNoise on the monitor's held-out rows). It judges
// from the third check on, and never on a schedule that anneals the rate
// (cosine, one-cycle), whose largest gains come at its end. Such a network
// (an MLP against a CNN on images, say) then stops instead of training to
// its end to lose; its search reports it pruned.
func (mo *monitor) hopeless(t int) string {
	k := len(mo.bests)
	if mo.bar == nil || k < 3 || mo.r.preset.Alg4.Opt.Anneals() {
		return ""
	}
	b, name := mo.bar.Score, mo.bar.Name
	if math.IsInf(mo.best, 0) {
		return ""
	}
	T := mo.r.preset.Alg4.T
	h := k / 2
	gain := max(0, (mo.bests[k-1]-mo.bests[k-1-h])/float64(h))
	left := float64(max(0, T-t)) / float64(max(1, T/monitorChecks))
	reach := mo.best + gain*left
	d := mo.ts.d
	if !lowerByNoise(reach, b, mo.vs.n, d.task == model.Regression) {
		return ""
	}
	show := func(v float64) string { return FormatScore(d.metric, d.display(v)) }
	return fmt.Sprintf("at step %d of %d its hold-out %s, gaining %.2g a check: at best %s by the end, short of %s's %s by more than noise",
		t, T, show(mo.best), gain, show(reach), name, show(b))
}

// noise returns one standard error of a held-out score near best: the
// binomial √(p(1−p)/n) of an accuracy, RMSE/√(2n) of an RMSE.
func (mo *monitor) noise(best float64) float64 {
	n := float64(mo.vs.n)
	if math.IsInf(best, 0) {
		return 0
	}
	if mo.ts.d.task == model.Regression {
		return -best / math.Sqrt(2*n)
	}
	p := min(1, max(0, best))
	return math.Sqrt(p * (1 - p) / n)
}

// score fits a quick head (SMO, C = 1, ε = 0.1) on the features of the
// training sample and scores the held-out sample. On small hold-outs
// accuracy moves in coarse steps, so a classifier's score adds 10⁻³ times
// the kernel-target alignment of the held-out features (in [−1, 1]) as a
// tie-breaker.
func (mo *monitor) score() float64 {
	sc, _, zv := mo.r.quickScore(mo.ctx, mo.net, mo.ts, mo.vs, mo.seed)
	if zv != nil && mo.ts.d.task == model.Classification {
		k := kernel.MustNew(mo.r.preset.Alg4.Kernel)
		sc += 1e-3 * paper.ClassAlignment(k, zv, mo.vs.n, mo.net.OutSize(), mo.vs.classProblem(nil, 0).Y, mo.ts.d.nclass())
	}
	return sc
}

// quickScore scores net's features on the held-out rows vs with a head
// fitted quickly on the rows ts (SMO, C = 1, ε = 0.1), and returns the
// per-row losses and the held-out features too (nil when the features are
// not finite or the head fails, the score then −∞).
func (r *recipe) quickScore(ctx context.Context, net *nn.Net, ts, vs subProblem, seed uint64) (float64, []float32, []float32) {
	z, zv := features(net, ts), features(net, vs)
	if nonFinite(z) || nonFinite(zv) {
		return math.Inf(-1), nil, nil
	}
	hm, err := r.fitHeads(ctx, ts, z, net.OutSize(), "smo", r.preset.Alg4.Kernel, 1, 0.1, 0, seed, 1, nil)
	if err != nil {
		return math.Inf(-1), nil, nil
	}
	sc, loss := vs.d.scoreModel(hm, vs.idx, denseRows(zv, vs.n))
	return sc, loss, zv
}
