package nsvm

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nsvm-go/nsvm/nn"
)

// part1Arm is one variant of an image recipe's Part I: its objective and
// its augmentation.
type part1Arm struct {
	objective string
	augment   string // "none", "shift", "shift+flip"
}

func (a part1Arm) String() string { return a.objective + "/" + a.augment }

// augmenter returns the arm's Augmenter for images of the given shape.
func (a part1Arm) augmenter(shape []int) Augmenter {
	var augs []Augmenter
	for _, name := range strings.Split(a.augment, "+") {
		switch name {
		case "shift":
			augs = append(augs, RandomShift(shape[0], shape[1], shape[2], 1))
		case "flip":
			augs = append(augs, RandomFlip(shape[0], shape[1], shape[2]))
		}
	}
	return Augmenters(augs...)
}

// Augmentations are the values of FitConfig.Augment.
var Augmentations = []string{"none", "shift", "flip", "shift+flip"}

// imageArms returns the Part I variants an image recipe races, the
// preferred first (ties go to it): the softmax objective with one-pixel
// shifts, with shifts and mirror images, without augmentation, and the
// paper's alignment with shifts. Pinned fields of c keep only the arms
// that agree with them.
func imageArms(c *FitConfig) []part1Arm {
	all := []part1Arm{
		{ObjectiveSoftmax, "shift"},
		{ObjectiveSoftmax, "shift+flip"},
		{ObjectiveSoftmax, "none"},
		{ObjectiveAlign, "shift"},
	}
	var arms []part1Arm
	for _, a := range all {
		if c.Objective != "" && a.objective != c.Objective || c.Augment != "" && a.augment != c.Augment {
			continue
		}
		arms = append(arms, a)
	}
	if len(arms) == 0 {
		// A pinned pair the race does not hold: run it alone.
		a := part1Arm{objective: ObjectiveSoftmax, augment: "shift"}
		if c.Objective != "" {
			a.objective = c.Objective
		}
		if c.Augment != "" {
			a.augment = c.Augment
		}
		arms = []part1Arm{a}
	}
	return arms
}

// raceRungs are the fractions of Part I's T at which the race halves its
// arms.
var raceRungs = []float64{1.0 / 8, 1.0 / 4}

// armRun is one arm of a race in progress: its network, trained on its own
// goroutine, which stops at every rung until the race lets it go on.
type armRun struct {
	arm   part1Arm
	net   *nn.Net
	notes fitNotes
	mon   *monitor
	rung  []int        // the steps at which it reports
	at    chan float64 // its score at a rung
	cont  chan bool    // the race's answer: go on or stop
	done  chan error
	score float64
	ended bool
}

// racePart1 runs Part I of each arm of r from the same initial network
// (successive halving): every arm trains to the first rung and is scored
// on the held-out rows; the better half goes on to the next rung, and so
// on; the last arm trains to the end with early stopping. All arms follow
// the same schedule over the same T, so the winner's run is exactly the run
// it would have had alone: the race costs only the losers' steps. Arms
// run one at a time, so the result does not depend on timing. It returns
// the winner's network and arm and records the race in notes.
func (r *recipe) racePart1(ctx context.Context, net *nn.Net, fitPart, stop subProblem, w []float32, cfg Alg4Config, target part1Target, o Options, seed uint64, notes *fitNotes) (*nn.Net, part1Arm, error) {
	d := fitPart.d
	every := max(1, cfg.T/monitorChecks)
	var rungs []int
	for _, f := range raceRungs {
		// Rungs fall on the monitor's checks.
		if s := max(1, int(f*monitorChecks)) * every; s < cfg.T {
			rungs = append(rungs, s)
		}
	}
	base := r.monitor(ctx, net, fitPart, stop, seed, nil)
	runs := make([]*armRun, len(r.arms))
	for i, a := range r.arms {
		ar := &armRun{arm: a, net: net.Clone(), rung: rungs, at: make(chan float64), cont: make(chan bool), done: make(chan error, 1)}
		ar.notes = *notes
		mon := *base
		mon.net, mon.notes, mon.theta = ar.net, &ar.notes, nil
		ar.mon = &mon
		runs[i] = ar
	}
	started := make([]bool, len(runs))
	start := func(i int) {
		ar := runs[i]
		c := cfg
		c.Objective = ar.arm.objective
		oa := o
		oa.MonitorEvery = every
		oa.Monitor = func(t int) bool {
			if ar.mon.check(t) {
				return true
			}
			if len(ar.rung) > 0 && t == ar.rung[0] {
				ar.rung = ar.rung[1:]
				ar.at <- ar.mon.last
				return !<-ar.cont
			}
			return false
		}
		in := rows{x: fitPart.x, n: fitPart.n}
		go func() {
			ar.done <- trainPart1(ctx, ar.net, in, w, d.d, c, target, ar.arm.augmenter(d.shape), oa)
		}()
		started[i] = true
	}
	// step lets arm i run to its next rung (or its end) and records its
	// score there.
	step := func(i int) error {
		ar := runs[i]
		if !started[i] {
			start(i)
		} else {
			ar.cont <- true
		}
		select {
		case ar.score = <-ar.at:
			return nil
		case err := <-ar.done:
			ar.ended, ar.score = true, ar.mon.best
			return err
		}
	}
	// stopArm ends arm i's goroutine.
	stopArm := func(i int) {
		ar := runs[i]
		if !started[i] || ar.ended {
			return
		}
		ar.cont <- false
		<-ar.done
		ar.ended = true
	}
	alive := seq(len(runs))
	var err error
	var log []string
	defer func() {
		for i := range runs {
			stopArm(i)
		}
	}()
	for level := 0; level < len(rungs) && len(alive) > 1; level++ {
		for _, i := range alive {
			if err = step(i); err != nil {
				return nil, part1Arm{}, fmt.Errorf("part I %s: %w", runs[i].arm, err)
			}
			log = append(log, fmt.Sprintf("%s@%d=%.4f", runs[i].arm, rungs[level], runs[i].score))
		}
		// Keep the better half (at least one), ties to the earlier arm.
		keep := max(1, (len(alive)+1)/2)
		ranked := slices.Clone(alive)
		slices.SortStableFunc(ranked, func(a, b int) int { return cmp.Compare(runs[b].score, runs[a].score) })
		for _, i := range ranked[keep:] {
			stopArm(i)
		}
		alive = ranked[:keep]
		slices.Sort(alive)
	}
	win := runs[alive[0]]
	for {
		if err = step(alive[0]); err != nil {
			return nil, part1Arm{}, fmt.Errorf("part I %s: %w", win.arm, err)
		}
		if win.ended {
			break
		}
	}
	*notes = win.notes
	notes.race = strings.Join(log, " ")
	return win.net, win.arm, nil
}
