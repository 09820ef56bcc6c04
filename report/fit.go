package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/search"
)

// FitSummary is what a fit made: the model, its training scores and how it
// was chosen, as nsvm train prints it (--json: these fields).
type FitSummary struct {
	Algo         string  `json:"algo"`
	Task         string  `json:"task"`
	N            int     `json:"n"`
	LoadSeconds  float64 `json:"load_seconds"`
	TrainSeconds float64 `json:"train_seconds"`
	// ScoreSeconds is the time SummarizeFit took to score the training
	// rows.
	ScoreSeconds    float64        `json:"score_seconds"`
	NSV             int            `json:"n_sv"`
	TrainAccuracy   *float64       `json:"train_accuracy,omitempty"`
	TrainRMSE       *float64       `json:"train_rmse,omitempty"`
	TrainR2         *float64       `json:"train_r2,omitempty"`
	Model           string         `json:"model"`
	Selected        string         `json:"selected,omitempty"`
	Validation      string         `json:"validation,omitempty"`
	ValidationScore *float64       `json:"validation_score,omitempty"`
	Metric          string         `json:"metric,omitempty"`
	SelectSeconds   float64        `json:"selection_seconds,omitempty"`
	FitSeconds      float64        `json:"final_fit_seconds,omitempty"`
	Notes           []string       `json:"notes,omitempty"`
	TaskNote        string         `json:"task_note,omitempty"`
	BudgetReached   bool           `json:"budget_reached,omitempty"`
	Candidates      []CandidateRow `json:"candidates,omitempty"`
	// Continued, for a model trained on by nsvm.Continue (nsvm train
	// --continue), names how it went on learning (search.InfoContinued);
	// Selected, Validation and Candidates are then the first fit's choice,
	// which the continuation kept, and SeenRows and SeenChunks count what
	// the model has seen.
	Continued  string `json:"continued,omitempty"`
	SeenRows   int    `json:"seen_rows,omitempty"`
	SeenChunks int    `json:"seen_chunks,omitempty"`
	// NetworkStopped: the continued NSVM's network has stopped taking
	// steps (search.InfoNetworkFrozen).
	NetworkStopped bool              `json:"network_stopped,omitempty"`
	PlattA         *float64          `json:"platt_a,omitempty"`
	Epsilon        *float64          `json:"epsilon,omitempty"`
	Info           map[string]string `json:"info"`

	// OutlierShare is, for a one-class SVM, the share of the training rows
	// it calls outliers (it has no training score).
	OutlierShare *float64 `json:"outlier_share,omitempty"`

	// Phases is where the fit's wall time went (FitLines.Phases): the
	// phases' seconds add up to the fit's, and within a phase the
	// candidates' seconds add up to its candidate_seconds.
	Phases []search.Phase `json:"phases,omitempty"`
}

// CandidateRow is one candidate of a selection in a FitSummary: what the
// model records of it (its hyper-parameters, scores per fold, whether it
// is the incumbent), its time, and whether it won.
type CandidateRow struct {
	model.CandidateScore
	Seconds float64 `json:"seconds"`
	Winner  bool    `json:"winner,omitempty"`
}

// SummaryRows bounds the training rows SummarizeFit scores: a larger data
// set is scored on an evenly spread sample of this many rows.
const SummaryRows = 20000

// SummarizeFit scores m on its training data ds (a sample of at most 20000
// rows, evenly spread) and gathers what the model records of its fit;
// trainSeconds is the fit's wall time, path where the model was written.
func SummarizeFit(m *model.Model, ds *data.Dataset, trainSeconds float64, path string) (r FitSummary, err error) {
	t0 := time.Now()
	defer func() { r.ScoreSeconds = time.Since(t0).Seconds() }()
	eval := ds
	if ds.N > SummaryRows {
		idx := make([]int, SummaryRows)
		for i := range idx {
			idx[i] = i * ds.N / SummaryRows
		}
		eval = ds.Subset(idx)
	}
	rows := ds.N
	if v, err := strconv.Atoi(m.Info["stream_rows"]); err == nil {
		rows = v // a stream: ds holds its first rows
	}
	r = FitSummary{Algo: m.Algorithm, N: rows, TrainSeconds: trainSeconds, NSV: m.NumSV(), Model: path, Info: m.Info}
	if m.OneClass() {
		p, err := m.PredictDataset(eval, false)
		if err != nil {
			return r, err
		}
		out := 0
		for _, v := range p.Labels {
			if v < 0 {
				out++
			}
		}
		share := float64(out) / float64(max(eval.N, 1))
		r.Algo, r.OutlierShare = "one-class", &share
		return r, nil
	}
	sc, err := m.Evaluate(eval)
	if err != nil {
		return r, err
	}
	r.Task = sc.Task
	if sc.Task == model.Regression {
		r.TrainRMSE, r.TrainR2 = &sc.RMSE, &sc.R2
		if v, err := strconv.ParseFloat(m.Info["epsilon"], 64); err == nil {
			r.Epsilon = &v
		}
	} else {
		r.TrainAccuracy = &sc.Accuracy
	}
	if m.Platt != nil {
		r.PlattA = &m.Platt.A
	}
	if s := m.Selection; s != nil {
		w := s.Candidates[s.Winner]
		r.Selected, r.Validation, r.ValidationScore, r.Metric = w.Name, s.Validation, &w.Score, s.Metric
		r.SelectSeconds, r.BudgetReached, r.Notes, r.TaskNote = s.Seconds, s.BudgetReached, s.Notes, s.TaskNote
		r.FitSeconds = max(0, trainSeconds-s.Seconds)
		for i, c := range s.Candidates {
			r.Candidates = append(r.Candidates, CandidateRow{CandidateScore: c, Seconds: c.Seconds, Winner: i == s.Winner})
		}
	}
	if c := m.Info[search.InfoContinued]; c != "" {
		// The selection was the first fit's: none of this run's time.
		r.Continued, r.SelectSeconds, r.FitSeconds = c, 0, trainSeconds
		if sn := seenOf(m); sn != nil {
			r.SeenRows, r.SeenChunks, r.NetworkStopped = sn.Rows, sn.Chunks, sn.NetworkStopped
		}
	}
	return r, nil
}

// WriteText writes the summary as nsvm train prints it.
func (r FitSummary) WriteText(w io.Writer) {
	if r.OutlierShare != nil {
		fmt.Fprintf(w, "trained one-class SVM on %d points in %.2fs: %d support vectors, %.2f%% of the training rows outliers; model written to %s\n",
			r.N, r.TrainSeconds, r.NSV, 100**r.OutlierShare, r.Model)
		return
	}
	if r.Continued != "" {
		fmt.Fprintf(w, "continued by %s: %s, as the first fit chose it", r.Continued, cmp.Or(r.Selected, r.Algo))
		if r.ValidationScore != nil {
			fmt.Fprintf(w, " (%s validation %s)", r.Validation, search.FormatScore(r.Metric, *r.ValidationScore))
		}
		fmt.Fprintf(w, "; %d rows seen in %d chunks", r.SeenRows, r.SeenChunks)
		if r.NetworkStopped {
			fmt.Fprint(w, "; the network has stopped (its errors on new chunks stopped falling), the head learns on")
		}
		fmt.Fprintln(w)
	} else if r.Selected != "" {
		fmt.Fprintf(w, "selected %s: %s validation %s of %d candidates in %.2fs",
			r.Selected, r.Validation, search.FormatScore(r.Metric, *r.ValidationScore), len(r.Candidates), r.SelectSeconds)
		if r.BudgetReached {
			fmt.Fprintf(w, " (budget reached)")
		}
		fmt.Fprintln(w)
		if r.TaskNote != "" {
			fmt.Fprintf(w, "  note: %s\n", r.TaskNote)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	}
	what := ""
	switch {
	case r.TrainAccuracy != nil:
		what = fmt.Sprintf("training accuracy %.2f%%", 100**r.TrainAccuracy)
	case r.TrainRMSE != nil:
		what = fmt.Sprintf("training RMSE %.4g, R² %.4f", *r.TrainRMSE, *r.TrainR2)
	}
	took, points := fmt.Sprintf("%.2fs", r.TrainSeconds), "points"
	if r.Continued != "" {
		points = "new points"
	} else if r.Selected != "" {
		took = fmt.Sprintf("%.2fs (after the selection's %.2fs)", r.FitSeconds, r.SelectSeconds)
	}
	fmt.Fprintf(w, "trained %s on %d %s in %s: %d support vectors, %s; model written to %s\n",
		r.Algo, r.N, points, took, r.NSV, what, r.Model)
}

// CrossValidation writes the result of search.CrossValidate.
func CrossValidation(w io.Writer, r *search.CVResult) {
	fmt.Fprintf(w, "%d-fold cross-validation %s (%.2fs)\n", r.Folds, search.FormatScore(r.Metric, r.Score), r.Seconds)
	for i, s := range r.FoldScores {
		fmt.Fprintf(w, "  fold %d: %s", i+1, search.FormatScore(r.Metric, s))
		if r.Selected[i] != "" {
			fmt.Fprintf(w, "  (%s)", r.Selected[i])
		}
		fmt.Fprintln(w)
	}
}

// FitLines renders the progress of a fit (search.FitConfig.Progress): a
// line per scored candidate on W, and the final fit's trainer reports to
// Bar (a progress bar) and Log. Quiet silences the lines; Folds keeps only
// what a cross-validation shows (no candidate lines, no bar).
type FitLines struct {
	W        io.Writer
	Quiet    bool
	Folds    bool
	Bar, Log paper.ProgressFunc
	// Phases is where the time of the last fit that selected its model
	// went (its "done" report), for FitSummary.Phases.
	Phases   []search.Phase
	sampling bool   // a "reading the stream" line is open
	lastWhy  string // the reason the line before gave, if it was a candidate's
}

// Update renders one report.
func (r *FitLines) Update(p search.FitProgress) {
	switch p.Stage {
	case "sample":
		if !r.Quiet {
			fmt.Fprintf(r.W, "\rreading the stream: %d rows (%.1fs)", p.Done, p.Elapsed.Seconds())
			r.sampling = true
		}
	case "select":
		r.endSampling()
		if r.Quiet || r.Folds {
			return
		}
		score, why := "failed", ""
		switch {
		case !math.IsNaN(p.Score):
			score = search.FormatScore(p.Metric, p.Score)
		case strings.HasPrefix(p.Err, "pruned"):
			score, why = "pruned", "  ("+strings.TrimPrefix(p.Err, "pruned: ")+")"
		default:
			why = "  (" + p.Err + ")"
		}
		shown := why
		if why != "" && why == r.lastWhy {
			// A probe prunes a whole grid for one reason: say it once.
			shown = "  (as above)"
		}
		r.lastWhy = why
		fmt.Fprintf(r.W, "candidate %3d of %-3d %-60s %-16s %6.2fs %9s%s\n", p.Done, p.Total, p.Candidate, score, p.Seconds, Count(float64(p.Work.Total())), shown)
		if p.RaceSeconds > 0 {
			fmt.Fprintf(r.W, "    its Part I race: %.2fs, %s multiply-adds\n", p.RaceSeconds, Count(float64(p.RaceWork.Total())))
		}
	case "done":
		r.Phases = p.Phases
		if !r.Quiet && !r.Folds {
			WritePhases(r.W, p.Phases)
		}
	case "keep":
		if !r.Quiet && !r.Folds {
			fmt.Fprintf(r.W, "keeping %s as the search trained it on %d rows\n", p.Candidate, p.Done)
		}
	case "fit":
		r.endSampling()
		if p.Train == nil {
			if !r.Quiet && !r.Folds {
				fmt.Fprintf(r.W, "training %s on all the data\n", p.Candidate)
			}
			return
		}
		if r.Bar != nil && !r.Folds {
			r.Bar(*p.Train)
		}
		if r.Log != nil {
			r.Log(*p.Train)
		}
	}
}

// WritePhases writes where a fit's time went: a line per phase with its
// seconds, its counted work (multiply-adds, search.Work) and the largest
// resident memory seen in it and, for a phase that scored candidates, how
// many and their seconds (the sum of their lines), then the rest of the
// phase's time; and the whole fit's work by kind.
func WritePhases(w io.Writer, phases []search.Phase) {
	var total float64
	var work search.Work
	for _, p := range phases {
		total += p.Seconds
		work = work.Plus(p.Work)
	}
	fmt.Fprintf(w, "where the time went (%.2fs, %s multiply-adds):\n", total, Count(float64(work.Total())))
	for _, p := range phases {
		fmt.Fprintf(w, "  %-18s %8.2fs %9s", p.Name, p.Seconds, Count(float64(p.Work.Total())))
		if p.RSSMB > 0 {
			fmt.Fprintf(w, " %6.0f MB", p.RSSMB)
		}
		if p.Candidates > 0 || p.CandidateSeconds > 0 {
			fmt.Fprintf(w, "  %d candidates %.2fs, the rest %.2fs", p.Candidates, p.CandidateSeconds, p.Seconds-p.CandidateSeconds)
		}
		fmt.Fprintln(w)
	}
	if work.Total() > 0 {
		fmt.Fprintf(w, "  multiply-adds by kind: conv %s forward, %s backward; dense %s forward, %s backward; kernel %s (%s evaluations)\n",
			Count(float64(work.ConvForward)), Count(float64(work.ConvBackward)), Count(float64(work.DenseForward)),
			Count(float64(work.DenseBackward)), Count(float64(work.KernelMACs)), Count(float64(work.KernelEvals)))
	}
}

// Count writes a count with an SI prefix and three significant digits:
// 987, 1.23k, 45.6M, 7.89T.
func Count(v float64) string {
	for _, u := range []struct {
		f float64
		p string
	}{{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.f {
			return strconv.FormatFloat(v/u.f, 'g', 3, 64) + u.p
		}
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func (r *FitLines) endSampling() {
	if r.sampling {
		fmt.Fprintln(r.W)
		r.sampling = false
	}
}
