package search

import (
	"sync"
	"time"
)

// Phase is a part of a fit's wall time, as the last progress report of a
// fit (Stage "done") gives them: the phases follow one another, and their
// Seconds add up to the fit's wall time. Within a phase, CandidateSeconds
// is the time spent training and scoring its candidates — the Seconds of
// their progress reports (and of their Selection records) add up to it —
// and the rest went to the phase's own work: scaling the splits' rows,
// choosing the next candidates, waiting for a worker.
type Phase struct {
	// Name is one of "prepare" (labels, scaling, candidates, validation
	// splits), "linear C paths", "kernel probe", "SMO grid" (its kernel
	// matrices and the SMO runs on them), "classical C paths",
	// "refinement", "rescoring", "networks", "final fit" (or "keep": the
	// winner as the search trained it), "calibration" and "check" (the
	// model scored on its training rows, see ErrChanceLevel).
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	// Candidates counts the candidates reported in the phase.
	Candidates       int     `json:"candidates,omitempty"`
	CandidateSeconds float64 `json:"candidate_seconds,omitempty"`
	// Work is the arithmetic of the phase (a candidate's counted in the
	// phase in which it finishes); the phases' Work adds up to the fit's.
	Work Work `json:"work"`
	// RSSMB is the largest resident memory of the process seen during the
	// phase (sampled ten times a second and at its ends), and PeakRSSMB
	// the process's peak so far at its end (the kernel's high-water mark),
	// in MB: the phase in which PeakRSSMB grows set the peak.
	RSSMB     float64 `json:"rss_mb,omitempty"`
	PeakRSSMB float64 `json:"peak_rss_mb,omitempty"`
}

// clock accounts for the wall time of a fit: every moment goes to the
// phase it falls in and, within it, to the jobs running then, shared
// equally among them, or to the phase itself when none runs. So the jobs'
// seconds and the phases' own seconds add up to the wall time, whatever
// the number of workers and however the jobs overlap.
type clock struct {
	mu     sync.Mutex
	last   time.Time
	phases []Phase
	cur    int
	jobs   map[*clockJob]struct{}

	// work, if not nil, returns the fit's work so far; at is its value
	// when the current phase began (or was last accounted).
	work func() Work
	at   Work
	// memory: sampled while sampling is not nil (close it to stop).
	sampling chan struct{}
}

// clockJob is one job's share of the wall time so far.
type clockJob struct{ secs float64 }

// newClock starts a clock at start in the phase first.
func newClock(start time.Time, first string) *clock {
	return &clock{last: start, phases: []Phase{{Name: first}}, jobs: map[*clockJob]struct{}{}}
}

// count gives the work since the last accounting to the current phase
// and samples the memory (k.mu held).
func (k *clock) count() {
	if k.work != nil {
		w := k.work()
		k.phases[k.cur].Work = k.phases[k.cur].Work.Plus(w.Minus(k.at))
		k.at = w
	}
	k.sample()
}

// sample records the resident memory in the current phase (k.mu held).
func (k *clock) sample() {
	if k.sampling == nil {
		return
	}
	p := &k.phases[k.cur]
	p.RSSMB = max(p.RSSMB, rssMB())
	p.PeakRSSMB = max(p.PeakRSSMB, peakRSSMB())
}

// measure starts counting work with the function work (the fit's work so
// far) and sampling the memory every 100 ms until stop.
func (k *clock) measure(work func() Work) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.work, k.at = work, work()
	if k.sampling != nil {
		return
	}
	k.sampling = make(chan struct{})
	k.sample()
	go func(done chan struct{}) {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				k.mu.Lock()
				k.sample()
				k.mu.Unlock()
			}
		}
	}(k.sampling)
}

// stop ends the memory sampling.
func (k *clock) stopSampling() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.sampling != nil {
		close(k.sampling)
		k.sampling = nil
	}
}

// advance gives the time since the last event to the running jobs, or to
// the current phase when none runs (k.mu held).
func (k *clock) advance() {
	now := time.Now()
	dt := now.Sub(k.last).Seconds()
	k.last = now
	k.phases[k.cur].Seconds += dt
	if len(k.jobs) == 0 {
		return
	}
	share := dt / float64(len(k.jobs))
	for j := range k.jobs {
		j.secs += share
	}
}

// enter starts the phase name (or returns to it).
func (k *clock) enter(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.advance()
	k.count()
	for i, p := range k.phases {
		if p.Name == name {
			k.cur = i
			k.sample()
			return
		}
	}
	k.phases = append(k.phases, Phase{Name: name})
	k.cur = len(k.phases) - 1
	k.sample()
}

// start starts a job.
func (k *clock) start() *clockJob {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.advance()
	j := &clockJob{}
	k.jobs[j] = struct{}{}
	return j
}

// stop ends the job j and returns its seconds, which the current phase
// counts as candidates' time.
func (k *clock) stop(j *clockJob) float64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.advance()
	delete(k.jobs, j)
	k.phases[k.cur].CandidateSeconds += j.secs
	return j.secs
}

// reported counts a candidate's progress report in the current phase.
func (k *clock) reported() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.phases[k.cur].Candidates++
}

// report returns the phases so far, without those that took no time and
// had no candidate.
func (k *clock) report() []Phase {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.advance()
	k.count()
	var out []Phase
	for _, p := range k.phases {
		if p.Seconds > 0 || p.Candidates > 0 {
			out = append(out, p)
		}
	}
	return out
}
