package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/paper"
)

// logRecord is one line of a --log file: a progress report of the library
// in JSON. Every line carries every key, so that the file reads as a table.
type logRecord struct {
	// Run names the training run the line belongs to: the algorithm for
	// "nsvm train", "TASK alg A seed S" for "nsvm reproduce".
	Run       string `json:"run"`
	Algorithm int    `json:"algorithm"` // 1–4; 0 for a classical solver
	Seed      uint64 `json:"seed"`
	// Phase is "train" (NSVM steps; Part I of Algorithm 4), "features"
	// (Algorithm 4 computing the final features) or "svm" (a solver on fixed
	// features: Part II of Algorithm 4 or a classical SVM).
	Phase          string  `json:"phase"`
	Step           int     `json:"step"`
	Total          int     `json:"total"`
	ViolationRate  float64 `json:"violation_rate"`
	NSV            int     `json:"n_sv"`
	Alignment      float64 `json:"alignment"`
	Loss           float64 `json:"loss"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
}

// progressLog writes progress reports to a file as JSON lines. It is the
// command line's callback wrapper around the (silent) library. Each record
// is written out at once, so that the file can be followed while training
// runs; the trainers report about 200 times per run, which costs next to
// nothing.
type progressLog struct {
	path  string
	f     *os.File
	w     *bufio.Writer
	enc   *json.Encoder
	lines int
	err   error // first write error; reported by close
}

// openLog creates (or truncates) the log file at path.
func openLog(path string) (*progressLog, error) {
	if err := checkWritable(path, "log"); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("nsvm: cannot write log %s: %w", path, err)
	}
	w := bufio.NewWriterSize(f, 4<<10)
	return &progressLog{path: path, f: f, w: w, enc: json.NewEncoder(w)}, nil
}

// callback returns a progress function that records the reports of one run.
func (l *progressLog) callback(run string, seed uint64) paper.ProgressFunc {
	return func(p nsvm.Progress) {
		if l.err != nil {
			return
		}
		l.err = l.enc.Encode(logRecord{
			Run: run, Algorithm: p.Algorithm, Seed: seed, Phase: p.Phase, Step: p.Step, Total: p.Total,
			ViolationRate: finite(p.ViolationRate), NSV: p.NSV, Alignment: finite(p.Alignment),
			Loss: finite(p.Loss), ElapsedSeconds: p.Elapsed.Seconds(),
		})
		if l.err == nil {
			l.err = l.w.Flush()
		}
		l.lines++
	}
}

// finite maps NaN and ±Inf (which JSON cannot hold) to 0; the trainers stop
// with an error at the first non-finite value anyway.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// close flushes and closes the file. A log that received no record because
// the run failed before its first step is removed, so that a bad invocation
// leaves no file behind; a log of a run that stopped midway is kept (its
// curves show what happened).
func (l *progressLog) close(runErr error) error {
	if l == nil {
		return nil
	}
	err := l.err
	if ferr := l.w.Flush(); err == nil {
		err = ferr
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if runErr != nil && l.lines == 0 {
		os.Remove(l.path)
		return nil
	}
	if err != nil {
		return fmt.Errorf("nsvm: writing log %s: %w", l.path, err)
	}
	return nil
}

// tee returns a progress function calling every non-nil function of fs.
func tee(fs ...paper.ProgressFunc) paper.ProgressFunc {
	var live []paper.ProgressFunc
	for _, f := range fs {
		if f != nil {
			live = append(live, f)
		}
	}
	switch len(live) {
	case 0:
		return nil
	case 1:
		return live[0]
	}
	return func(p nsvm.Progress) {
		for _, f := range live {
			f(p)
		}
	}
}

// checkWritable fails early, before any training, when path cannot be
// written: its directory is missing, is not a directory or refuses new
// files, or path itself is a directory. It leaves nothing behind.
func checkWritable(path, what string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("nsvm: cannot write %s %s: it is a directory", what, path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("nsvm: cannot write %s %s: directory %s does not exist", what, path, dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("nsvm: cannot write %s %s: %s is not a directory", what, path, dir)
	}
	probe, err := os.CreateTemp(dir, "."+filepath.Base(path)+".probe*")
	if err != nil {
		return fmt.Errorf("nsvm: cannot write %s %s: directory %s is not writable", what, path, dir)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}
