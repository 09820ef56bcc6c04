package main

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

// fitArgs are the arguments of nsvm_fit in Go's types.
type fitArgs struct {
	in *input
	// y holds a label or target per row: a class label, or with names the
	// index of the row's class name.
	y     []float64
	names []string
	// w, if not nil, holds the rows' sample weights.
	w      []float64
	config []byte
	// progress, if not nil, receives each report as JSON and returns
	// false to stop the fit.
	progress func(report []byte) bool
	// stop, if not nil, stops the fit when it becomes nonzero.
	stop *int32
}

// stopPoll is how often a fit looks at its stop flag.
const stopPoll = 50 * time.Millisecond

// fit trains a model as nsvm.Fit does on the data set the arguments
// describe. A model that learned nothing (nsvm.ErrChanceLevel) is returned
// with the error's message as a warning.
func fit(a fitArgs) (m *nsvm.Model, warning string, err error) {
	cfg, names, err := parseFitConfig(a.config)
	if err != nil {
		return nil, "", err
	}
	ds, err := a.in.dataset(nil)
	if err != nil {
		return nil, "", err
	}
	if f := names.FeatureNames; f != nil && ds.Columns == nil {
		// A numeric DataFrame's columns, as nsvm train records a CSV
		// file's header.
		if len(f) != ds.D {
			return nil, "", badData("%d feature names for %d columns", len(f), ds.D)
		}
		ds.Columns = make([]data.Column, ds.D)
		for j, n := range f {
			ds.Columns[j].Name = n
		}
		ds.LabelColumn = names.LabelName
	}
	if len(a.y) != ds.N {
		return nil, "", badData("%d labels for %d rows", len(a.y), ds.N)
	}
	if a.w != nil && len(a.w) != ds.N {
		return nil, "", badData("%d sample weights for %d rows", len(a.w), ds.N)
	}
	if a.names != nil {
		if !slices.IsSorted(a.names) || len(slices.Compact(slices.Clone(a.names))) != len(a.names) {
			return nil, "", badData("the label names must be distinct and in increasing order")
		}
		ds.LabelNames = a.names
	}
	// Copies: the caller's memory is not the library's to keep.
	ds.Y, ds.W = slices.Clone(a.y), slices.Clone(a.w)
	return watched(a, func(ctx context.Context, progress func(nsvm.FitProgress)) (*nsvm.Model, error) {
		cfg.Progress = progress
		return nsvm.Fit(ctx, ds, cfg)
	})
}

// watchStop cancels the fit when *stop becomes nonzero, until ctx ends.
func watchStop(ctx context.Context, stop *int32, cancel func()) {
	t := time.NewTicker(stopPoll)
	defer t.Stop()
	for {
		if atomic.LoadInt32(stop) != 0 {
			cancel()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// trainEvery is the least time between two reports of the final fit's
// trainer (its first and last reports of a phase always go).
const trainEvery = 100 * time.Millisecond

// reporter returns the Progress of a fit: each report goes to send as JSON,
// one at a time; the trainer's reports at most every trainEvery. When send
// returns false the fit is cancelled. After end returns, send is not
// called again.
func reporter(send func([]byte) bool, cancel func()) (progress func(nsvm.FitProgress), end func()) {
	var mu sync.Mutex
	var last time.Time
	stopped := false
	end = func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
	return func(p nsvm.FitProgress) {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		if t := p.Train; t != nil && t.Step > 0 && t.Step < t.Total {
			if time.Since(last) < trainEvery {
				return
			}
			last = time.Now()
		}
		b, err := json.Marshal(progressReport(p))
		if err != nil {
			return
		}
		if !send(b) {
			stopped = true
			cancel()
		}
	}, end
}

// progressJSON is a FitProgress as the progress callback receives it.
type progressJSON struct {
	Stage     string     `json:"stage"`
	Candidate string     `json:"candidate,omitempty"`
	Done      int        `json:"done"`
	Total     int        `json:"total"`
	Metric    string     `json:"metric,omitempty"`
	Score     *float64   `json:"score,omitempty"`
	Seconds   float64    `json:"seconds"`
	Best      string     `json:"best,omitempty"`
	BestScore *float64   `json:"best_score,omitempty"`
	Elapsed   float64    `json:"elapsed"`
	Error     string     `json:"error,omitempty"`
	Train     *trainJSON `json:"train,omitempty"`
}

// trainJSON is a trainer's report (nsvm.Progress).
type trainJSON struct {
	Algorithm     int      `json:"algorithm"`
	Phase         string   `json:"phase"`
	Step          int      `json:"step"`
	Total         int      `json:"total"`
	ViolationRate *float64 `json:"violation_rate,omitempty"`
	NSV           int      `json:"n_sv"`
	Alignment     *float64 `json:"alignment,omitempty"`
	Loss          *float64 `json:"loss,omitempty"`
	Elapsed       float64  `json:"elapsed"`
}

// finite returns &v, or nil for NaN and infinities (which JSON cannot
// hold).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func progressReport(p nsvm.FitProgress) progressJSON {
	r := progressJSON{Stage: p.Stage, Candidate: p.Candidate, Done: p.Done, Total: p.Total, Metric: p.Metric,
		Score: finite(p.Score), Seconds: p.Seconds, Best: p.Best, Elapsed: p.Elapsed.Seconds(), Error: p.Err}
	if p.Best != "" {
		r.BestScore = finite(p.BestScore)
	}
	if t := p.Train; t != nil {
		r.Train = &trainJSON{Algorithm: t.Algorithm, Phase: t.Phase, Step: t.Step, Total: t.Total,
			ViolationRate: finite(t.ViolationRate), NSV: t.NSV, Alignment: finite(t.Alignment), Loss: finite(t.Loss),
			Elapsed: t.Elapsed.Seconds()}
	}
	return r
}

// continueFit trains m on from the data set the arguments describe
// (nsvm.Continue); the configuration is nsvm_continue's. A model that
// learned nothing is returned with the error's message as a warning.
func continueFit(m *nsvm.Model, a fitArgs) (out *nsvm.Model, warning string, err error) {
	cfg, j, err := parseContinueConfig(a.config)
	if err != nil {
		return nil, "", err
	}
	ds, err := a.in.dataset(m.Columns)
	if err != nil {
		return nil, "", err
	}
	if f := j.FeatureNames; f != nil && ds.Columns == nil && m.Columns != nil {
		if len(f) != ds.D {
			return nil, "", badData("%d feature names for %d columns", len(f), ds.D)
		}
		ds.Columns = make([]data.Column, ds.D)
		for k, n := range f {
			ds.Columns[k].Name = n
		}
	}
	if len(a.y) != ds.N || a.w != nil && len(a.w) != ds.N {
		return nil, "", badData("%d labels and %d weights for %d rows", len(a.y), len(a.w), ds.N)
	}
	if a.names != nil {
		ds.LabelNames = a.names
	}
	ds.Y, ds.W = slices.Clone(a.y), slices.Clone(a.w)
	return watched(a, func(ctx context.Context, progress func(nsvm.FitProgress)) (*nsvm.Model, error) {
		cfg.Progress = progress
		return nsvm.Continue(ctx, m, ds, cfg)
	})
}

// watched runs train, nsvm_fit's or nsvm_continue's call into the library,
// with a's stop flag and progress callback: the stop flag cancels train's
// context, and progress reaches the callback. A model that learned nothing
// comes back with the error's text as the warning.
func watched(a fitArgs, train func(ctx context.Context, progress func(nsvm.FitProgress)) (*nsvm.Model, error)) (*nsvm.Model, string, error) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait() // the stop flag is the caller's memory: not read after the call
	}()
	if a.stop != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			watchStop(ctx, a.stop, cancel)
		}()
	}
	var progress func(nsvm.FitProgress)
	if a.progress != nil {
		report, closeReports := reporter(a.progress, cancel)
		progress = report
		// The callback is the caller's, valid during the call only: a
		// report a straggling goroutine makes later is dropped.
		defer closeReports()
	}
	// The library runs on a goroutine of its own, as it does in nsvm
	// train: the caller's goroutine is locked to the caller's thread (a cgo
	// call), so each time the search waited for its workers that very
	// thread would have to be woken, instead of any.
	var m *nsvm.Model
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		m, err = train(ctx, progress)
	}()
	<-done
	if err != nil && m != nil && errors.Is(err, nsvm.ErrChanceLevel) {
		return m, err.Error(), nil
	}
	if err != nil && ctx.Err() != nil {
		err = errors.Join(context.Canceled, err)
	}
	return m, "", err
}
