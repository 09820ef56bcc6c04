package report

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/search"
)

// ModelInfo is what a model file holds, for a person (WriteText, nsvm
// info) or a program (nsvm info --json: these fields).
type ModelInfo struct {
	Path  string `json:"path,omitempty"`
	Bytes int64  `json:"bytes,omitempty"`
	// Kind is "binary classifier", "multiclass classifier (one-vs-one)",
	// "regressor" or "one-class SVM"; Source "nsvm" or "libsvm" (an
	// svm-train model file).
	Kind      string   `json:"kind"`
	Source    string   `json:"source"`
	Algorithm string   `json:"algorithm"`
	Classes   []string `json:"classes,omitempty"`
	// Inputs is the number of input values a row, Columns the CSV columns
	// they come from (names, and the categories of text columns),
	// LabelColumn the CSV label column's name.
	Inputs      int           `json:"inputs"`
	Columns     []data.Column `json:"columns,omitempty"`
	LabelColumn string        `json:"label_column,omitempty"`
	Scaling     string        `json:"scaling"`
	// Network is the feature map's architecture ("" for a classical SVM);
	// Features the size of its output, which the heads see.
	Network  string `json:"network,omitempty"`
	Features int    `json:"features"`
	// TestShift is the model's: its features are the mean over the
	// images moved by up to TestShift pixels (0: the image's own).
	TestShift int    `json:"test_shift,omitempty"`
	Kernel    string `json:"kernel"`
	// C is the box constraint of the (final) SVM head, when recorded.
	C              string `json:"C,omitempty"`
	Heads          int    `json:"heads"`
	SupportVectors int    `json:"support_vectors"`
	Probabilities  bool   `json:"probabilities"`
	TrainingData   string `json:"training_data,omitempty"`
	TrainingRows   int    `json:"training_rows,omitempty"`
	// Seen, for a model whose training went on (search.Continue), counts
	// what it has seen since its first fit, and the support-vector budget.
	Seen      *Seen             `json:"seen,omitempty"`
	Selection *model.Selection  `json:"selection,omitempty"`
	Info      map[string]string `json:"info"`
}

// Seen is what a continued model has seen: rows, chunks (the first fit
// and each continuation) and stochastic updates, and how its support set
// is held ("" for a linear model).
type Seen struct {
	Rows        int    `json:"rows"`
	Chunks      int    `json:"chunks"`
	Updates     int    `json:"updates"`
	Budget      int    `json:"budget,omitempty"`
	Maintenance string `json:"maintenance,omitempty"`
	// NetworkStopped is set when an NSVM's network has stopped taking
	// steps (search.InfoNetworkFrozen): its errors on new chunks stopped
	// falling, and only its head learns.
	NetworkStopped bool `json:"network_stopped,omitempty"`
}

// DescribeModel gathers what m holds; path, if not "", names its file (its
// size is read from the file system).
func DescribeModel(m *model.Model, path string) ModelInfo {
	r := ModelInfo{Path: path, Source: "nsvm", Algorithm: m.Algorithm, Inputs: m.InSize(), Features: m.OutSize(),
		Kernel: m.Head.Kernel.String(), Heads: m.NumHeads(), SupportVectors: m.NumSV(), Probabilities: m.Calibrated(),
		Columns: m.Columns, LabelColumn: m.LabelColumn, Selection: m.Selection, Info: m.Info, Scaling: "none"}
	if fi, err := os.Stat(path); err == nil && path != "" {
		r.Bytes = fi.Size()
	}
	if m.FromLIBSVM() {
		r.Source = "libsvm"
	}
	switch {
	case m.Regression():
		r.Kind = "regressor"
	case m.OneClass():
		r.Kind = "one-class SVM"
	case m.Multiclass():
		r.Kind = fmt.Sprintf("multiclass classifier (%s)", map[string]string{model.OneVsOne: "one-vs-one", model.OneVsRest: "one-vs-rest"}[m.Scheme])
	default:
		r.Kind = "binary classifier"
	}
	if !m.Regression() && !m.OneClass() {
		for _, c := range m.Labels() {
			r.Classes = append(r.Classes, m.LabelName(c))
		}
	}
	if m.Mean != nil {
		r.Scaling = m.Info["scaling"]
		if r.Scaling == "" {
			r.Scaling = "standardize"
		}
	}
	if m.Net != nil {
		r.Network, r.TestShift = m.Net.Spec(), m.TestShift
	}
	for _, k := range []string{"part2_C", "C"} {
		if v := m.Info[k]; v != "" {
			r.C = v
			break
		}
	}
	r.TrainingData = m.Info["data_fingerprint"]
	r.TrainingRows, _ = strconv.Atoi(m.Info["data_rows"])
	r.Seen = seenOf(m)
	return r
}

// seenOf returns what a continued model has seen since its first fit, or
// nil for a model never continued.
func seenOf(m *model.Model) *Seen {
	v := m.Info[search.InfoSeenChunks]
	if v == "" {
		return nil
	}
	sn := &Seen{Maintenance: m.Info["budget_maintenance"]}
	sn.Rows, _ = strconv.Atoi(m.Info[search.InfoSeenRows])
	sn.Chunks, _ = strconv.Atoi(v)
	sn.Updates, _ = strconv.Atoi(m.Info[search.InfoSeenUpdates])
	sn.Budget, _ = strconv.Atoi(m.Info["budget"])
	_, sn.NetworkStopped = m.Info[search.InfoNetworkFrozen]
	return sn
}

// WriteText writes the description as nsvm info prints it.
func (r ModelInfo) WriteText(w io.Writer) {
	line := func(k, format string, a ...any) {
		fmt.Fprintf(w, "%-16s "+format+"\n", append([]any{k + ":"}, a...)...)
	}
	if r.Path != "" {
		line("model", "%s (%d bytes, %s model file)", r.Path, r.Bytes, r.Source)
	}
	line("kind", "%s", r.Kind)
	if r.Classes != nil {
		line("classes", "%s", strings.Join(r.Classes, ", "))
	}
	line("algorithm", "%s", r.Algorithm)
	line("inputs", "%d values a row, scaling %s", r.Inputs, r.Scaling)
	if r.Columns != nil {
		var cols []string
		for j, c := range r.Columns {
			name := c.Name
			if name == "" {
				name = "column " + strconv.Itoa(j)
			}
			switch {
			case c.RowIndex:
				name += " (left out: a pandas index)"
			case c.Empty:
				name += " (left out: empty)"
			case c.Dropped:
				name += " (left out: an identifier)"
			case c.Dates != "":
				name += fmt.Sprintf(" (dates, %s: %s)", c.Dates, strings.Join(data.DateFeatures[:], ", "))
			case c.Categories != nil:
				name += fmt.Sprintf(" (%d categories)", len(c.Categories))
			}
			cols = append(cols, name)
		}
		line("columns", "%s", strings.Join(cols, ", "))
		if r.LabelColumn != "" {
			line("label column", "%s", r.LabelColumn)
		}
	}
	if r.Network != "" {
		line("network", "%s → %d features", r.Network, r.Features)
	}
	if s := r.TestShift; s > 0 {
		line("features", "the mean over %d copies of each image, moved by up to %d pixel(s) along each axis", (2*s+1)*(2*s+1), s)
	}
	head := r.Kernel
	if r.C != "" {
		head += ", C = " + r.C
	}
	line("kernel", "%s", head)
	line("support vectors", "%d (distinct, over %d head(s))", r.SupportVectors, r.Heads)
	line("probabilities", "%s", map[bool]string{true: "calibrated", false: "no"}[r.Probabilities])
	if r.TrainingData != "" {
		line("training data", "%s, %d rows", r.TrainingData, r.TrainingRows)
	}
	if s := r.Seen; s != nil {
		line("seen", "%d rows in %d chunks, %d updates since the first fit", s.Rows, s.Chunks, s.Updates)
		if s.Budget > 0 {
			line("budget", "%d support vectors, kept by %s", s.Budget, s.Maintenance)
		}
		if s.NetworkStopped {
			line("network", "stopped: its errors on new chunks stopped falling; the head learns on")
		}
	}
	if s := r.Selection; s != nil {
		w0 := s.Candidates[s.Winner]
		line("selection", "%s of %d candidates by %s validation: %s", w0.Name, len(s.Candidates), s.Validation, search.FormatScore(s.Metric, w0.Score))
		for _, n := range s.Notes {
			fmt.Fprintf(w, "%-16s %s\n", "", n)
		}
		for i, c := range s.Candidates {
			mark := " "
			switch {
			case i == s.Winner:
				mark = "*"
			case c.Incumbent:
				mark = "i"
			}
			score := search.FormatScore(s.Metric, c.Score)
			if c.Err != "" {
				score = c.Err
			}
			fmt.Fprintf(w, "  %s %-62s %s\n", mark, c.Name, score)
		}
		fmt.Fprintln(w, "  (* the winner, i the incumbent)")
	}
	skip := map[string]bool{"selected": true, "validation": true, "validation_score": true, "data_fingerprint": true, "data_rows": true, "source": true,
		search.InfoSeenRows: true, search.InfoSeenChunks: true, search.InfoSeenUpdates: true, search.InfoNetworkFrozen: true}
	var rest []string
	for _, k := range slices.Sorted(maps.Keys(r.Info)) {
		if !skip[k] {
			rest = append(rest, k+"="+r.Info[k])
		}
	}
	if len(rest) > 0 {
		line("info", "%s", strings.Join(rest, " "))
	}
}
