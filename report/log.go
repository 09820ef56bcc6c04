package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/nsvm-go/nsvm/paper"
)

// Record is one line of a training log: a progress report of a trainer
// (paper.Progress) in JSON. Every line carries every key, so that the file
// reads as a table.
type Record struct {
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

// Log writes trainers' progress reports to w as JSON lines (Records), for
// Curves. Each record is flushed at once, so that the file can be followed
// while training runs; the trainers report about 200 times per run, which
// costs next to nothing. A Log is not safe for concurrent use.
type Log struct {
	w     *bufio.Writer
	enc   *json.Encoder
	lines int
	err   error // the first write error
}

// NewLog returns a Log writing to w.
func NewLog(w io.Writer) *Log {
	bw := bufio.NewWriterSize(w, 4<<10)
	return &Log{w: bw, enc: json.NewEncoder(bw)}
}

// Progress returns a progress function that records the reports of one run.
func (l *Log) Progress(run string, seed uint64) paper.ProgressFunc {
	return func(p paper.Progress) {
		if l.err != nil {
			return
		}
		l.err = l.enc.Encode(Record{
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

// Lines returns the number of records written.
func (l *Log) Lines() int { return l.lines }

// Err returns the first error of writing the log, if any.
func (l *Log) Err() error { return l.err }

// finite maps NaN and ±Inf (which JSON cannot hold) to 0; the trainers stop
// with an error at the first non-finite value anyway.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// Tee returns a progress function calling every non-nil function of fs.
func Tee(fs ...paper.ProgressFunc) paper.ProgressFunc {
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
	return func(p paper.Progress) {
		for _, f := range live {
			f(p)
		}
	}
}

// maxLogLine bounds one line of a log ReadLog accepts.
const maxLogLine = 1 << 20

// ReadLog reads the Records of a log (as Log writes it), naming the source
// name in errors. Blank lines are skipped; any other line that is not a
// Record is an error.
func ReadLog(r io.Reader, name string) ([]Record, error) {
	var recs []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLogLine)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var r Record
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || dec.More() {
			return nil, fmt.Errorf("nsvm: %s:%d: not a progress record of nsvm train --log", name, line)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("nsvm: reading %s: %w", name, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("nsvm: %s holds no progress records", name)
	}
	return recs, nil
}
