package search

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
)

// part1Arm is one variant of an image recipe's Part I: its objective and
// its augmentation.
type part1Arm struct {
	objective string
	augment   string // "none", "shift", "flip", "shift+flip"
}

func (a part1Arm) String() string { return a.objective + "/" + a.augment }

// augmenter returns the arm's Augmenter for images of the given shape
// whose background (a black pixel as the rows are scaled) is border.
func (a part1Arm) augmenter(shape []int, border []float32) paper.Augmenter {
	var augs []paper.Augmenter
	for _, name := range strings.Split(a.augment, "+") {
		switch name {
		case "shift":
			augs = append(augs, paper.RandomShift(shape[0], shape[1], shape[2], 1, border))
		case "flip":
			augs = append(augs, paper.RandomFlip(shape[0], shape[1], shape[2]))
		}
	}
	return paper.Augmenters(augs...)
}

// Augmentations are the values of FitConfig.Augment.
var Augmentations = []string{"none", "shift", "flip", "shift+flip"}

// imageArms returns the Part I variants an image recipe races, the
// incumbent first: the softmax objective with one-pixel shifts, with
// shifts and mirror images, without augmentation, and the paper's
// alignment with shifts. Pinned fields of c keep only the arms that agree
// with them.
func imageArms(c *FitConfig) []part1Arm {
	all := []part1Arm{
		{paper.ObjectiveSoftmax, "shift"},
		{paper.ObjectiveSoftmax, "shift+flip"},
		{paper.ObjectiveSoftmax, "none"},
		{paper.ObjectiveAlign, "shift"},
	}
	var arms []part1Arm
	for _, a := range all {
		if c.Objective != "" && a.objective != string(c.Objective) || c.Augment != "" && a.augment != string(c.Augment) {
			continue
		}
		arms = append(arms, a)
	}
	if len(arms) == 0 {
		// A pinned pair the race does not hold: run it alone.
		a := part1Arm{objective: paper.ObjectiveSoftmax, augment: "shift"}
		if c.Objective != "" {
			a.objective = string(c.Objective)
		}
		if c.Augment != "" {
			a.augment = string(c.Augment)
		}
		arms = []part1Arm{a}
	}
	return arms
}

// The race's proxy runs: raceRows of the rows (at least raceMinRows) for
// raceEpochs epochs.
const (
	raceRows    = 0.25
	raceMinRows = 4000
	raceEpochs  = 7
)

// raceShare is the most of Part I's work the race may cost (its arms'
// steps times their batch, against Part I's): with four arms on a quarter
// of the rows it costs 0.35 of it. On fewer rows than four times
// raceMinRows the proxy is a larger share of them, up to all of them (on a
// first chunk of 2000 images, 1.4 times the training it chooses for, and
// the paired rule rarely tells arms apart on its few held-out rows);
// beyond raceShare the incumbent arm trains without a race. A variable so
// that a test can race on small data.
var raceShare = 0.5

// raceAffordable reports whether arms proxy runs of steps batches of
// batch rows cost at most raceShare of Part I's t steps of tb rows.
func raceAffordable(arms, steps, batch, t, tb int) bool {
	return float64(arms*steps*batch) <= raceShare*float64(t*tb)
}

// racePart1 chooses the arm of r's Part I by validation and returns it.
// Each arm trains a copy of the initial network on a stratified quarter of
// the training rows for raceEpochs epochs, its one-cycle schedule complete
// (a short training, not the prefix of a long one: early in a long schedule
// augmentation and regularisation only cost, and their gain shows once a
// network starts to overfit, which on a quarter of the rows it does within
// a few epochs; see raceShare for data too small for a proxy). Each is
// scored on all the held-out rows with a quick head
// (SMO, C = 1, on the features of 2000 training rows). The first arm is the
// incumbent: another wins only when it beats it by more than one standard
// error of the paired per-row differences (as the search's incumbent rule),
// and then the best such arm wins. The race costs about a third of the
// full training with four arms. The scores go to notes.race.
func (r *recipe) racePart1(ctx context.Context, net *nn.Net, fitPart, stop subProblem, cfg paper.Alg4Config, target func(subProblem) paper.Target, o paper.Options, seed uint64, notes *fitNotes) (part1Arm, error) {
	if len(r.arms) == 1 {
		return r.arms[0], nil
	}
	d := fitPart.d
	proxyN := min(fitPart.n, max(raceMinRows, int(raceRows*float64(fitPart.n))))
	pc := cfg
	pc.Batch = min(cfg.Batch, proxyN)
	pc.T = min(cfg.T, max(100, raceEpochs*proxyN/pc.Batch))
	if !raceAffordable(len(r.arms), pc.T, pc.Batch, cfg.T, cfg.Batch) {
		// Too few rows for a quarter to be a proxy: the race would cost
		// more than the training it chooses for.
		notes.race = fmt.Sprintf("not run: %d arms × %d steps of %d rows would cost more than %g of Part I's %d steps of %d; %s, the incumbent",
			len(r.arms), pc.T, pc.Batch, raceShare, cfg.T, cfg.Batch, r.arms[0])
		return r.arms[0], nil
	}
	t0 := time.Now()
	var w0 Work
	if c := countersFrom(ctx); c != nil {
		w0 = c.work()
		defer func() { notes.raceWork = c.work().Minus(w0) }()
	}
	defer func() { notes.raceSecs = time.Since(t0).Seconds() }()
	proxy := fitPart.atMost(proxyN, rand.New(seedPCG(seed^0x72616365)))
	pc.Opt.Horizon = 0
	// The quick head's training rows: a monitor's sample.
	ts := monitorSample(proxy, monitorRand(seed))
	type result struct {
		score float64
		loss  []float32
	}
	res := make([]result, len(r.arms))
	var log []string
	for i, a := range r.arms {
		an := net.Clone()
		c := pc
		c.Objective = a.objective
		oa := o
		oa.Monitor, oa.MonitorEvery = nil, 0
		p1 := paper.Part1{Target: target(proxy), Weights: d.costs(proxy.idx), Augment: a.augmenter(d.shape, proxy.sc.black(d.d))}
		proxy.part1Rows(&p1)
		if err := paper.TrainPart1(ctx, an, p1, c, oa); err != nil {
			return part1Arm{}, fmt.Errorf("part I %s: %w", a, err)
		}
		res[i].score, res[i].loss, _ = r.quickScore(ctx, an, ts, stop, seed)
		log = append(log, fmt.Sprintf("%s=%.4f", a, res[i].score))
	}
	best := 0
	for i := 1; i < len(res); i++ {
		if pairedWin(res[i].loss, res[0].loss, 1) && (best == 0 || res[i].score > res[best].score) {
			best = i
		}
	}
	notes.race = fmt.Sprintf("%d rows × %d steps: %s", proxy.n, pc.T, strings.Join(log, " "))
	// The proxy rows and the arms' networks and workspaces are garbage
	// now: they go back to the OS before the full training's buffers come
	// on top of them (as a search phase's memory does, search.enter), and
	// the collector's next target follows what the training keeps, not
	// what the race kept.
	debug.FreeOSMemory()
	return r.arms[best], nil
}

// pairedWin reports whether the per-row losses a beat b by more than z
// standard errors of their mean paired difference.
func pairedWin(a, b []float32, z float64) bool {
	if len(a) == 0 || len(a) != len(b) {
		return false
	}
	n := float64(len(a))
	m, ss := pairedLoss(a, b)
	return m > 0 && m > z*math.Sqrt(ss/max(n-1, 1)/n)
}

// pairedLoss returns the mean of the per-row differences b − a of two
// models' losses on the same rows and the sum of their squared deviations
// from it.
func pairedLoss(a, b []float32) (mean, ss float64) {
	n := float64(len(a))
	for i := range a {
		mean += float64(b[i]-a[i]) / n
	}
	for i := range a {
		d := float64(b[i]-a[i]) - mean
		ss += d * d
	}
	return mean, ss
}
