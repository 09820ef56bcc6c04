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
	// winner as the search trained it, with the model's checks) and
	// "calibration".
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	// Candidates counts the candidates reported in the phase.
	Candidates       int     `json:"candidates,omitempty"`
	CandidateSeconds float64 `json:"candidate_seconds,omitempty"`
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
}

// clockJob is one job's share of the wall time so far.
type clockJob struct{ secs float64 }

// newClock starts a clock at start in the phase first.
func newClock(start time.Time, first string) *clock {
	return &clock{last: start, phases: []Phase{{Name: first}}, jobs: map[*clockJob]struct{}{}}
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
	for i, p := range k.phases {
		if p.Name == name {
			k.cur = i
			return
		}
	}
	k.phases = append(k.phases, Phase{Name: name})
	k.cur = len(k.phases) - 1
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
	var out []Phase
	for _, p := range k.phases {
		if p.Seconds > 0 || p.Candidates > 0 {
			out = append(out, p)
		}
	}
	return out
}
