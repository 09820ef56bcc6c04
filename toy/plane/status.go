package plane

import (
	"fmt"
	"strings"

	"github.com/nsvm-go/nsvm/search"
)

// Status words a progress report of search.Fit as one short line for the
// page's status: the candidates scored, or the trainer's steps.
func Status(p search.FitProgress) string {
	secs := fmt.Sprintf("%.1fs", p.Elapsed.Seconds())
	switch p.Stage {
	case "select":
		var b strings.Builder
		fmt.Fprintf(&b, "selecting: candidate %d of %d", p.Done, p.Total)
		if p.Candidate != "" {
			fmt.Fprintf(&b, " (%s", p.Candidate)
			if p.Err == "" {
				fmt.Fprintf(&b, ": %s", score(p.Metric, p.Score))
			}
			b.WriteString(")")
		}
		if p.Best != "" {
			fmt.Fprintf(&b, "; best %s, %s", p.Best, score(p.Metric, p.BestScore))
		}
		return b.String() + ", " + secs
	case "fit":
		t := p.Train
		if t == nil {
			return fmt.Sprintf("training %s, %s", p.Candidate, secs)
		}
		phase := map[string]string{"train": "network", "features": "features", "svm": "SVM"}[t.Phase]
		if phase == "" {
			phase = t.Phase
		}
		if t.Algorithm == 4 && t.Phase == "train" {
			phase = "Part I (network)"
		}
		s := fmt.Sprintf("training %s: %s step %d", p.Candidate, phase, t.Step)
		if t.Total > 0 {
			s += fmt.Sprintf(" of %d", t.Total)
		}
		if t.Alignment != 0 {
			s += fmt.Sprintf(", alignment %.3f", t.Alignment)
		}
		if t.NSV > 0 {
			s += fmt.Sprintf(", %d support vectors", t.NSV)
		}
		return s + ", " + secs
	case "calibrate":
		return "calibrating probabilities, " + secs
	case "keep", "done":
		return "finishing, " + secs
	}
	return p.Stage + ", " + secs
}

// score words a validation score in metric.
func score(metric string, v float64) string {
	if metric == search.MetricRMSE {
		return fmt.Sprintf("RMSE %.4g", v)
	}
	if metric == "" {
		metric = "score"
	}
	return fmt.Sprintf("%s %.2f %%", strings.ReplaceAll(metric, "_", " "), 100*v)
}

// Fields splits the text of the page's options box into arguments as a
// shell would for plain words: at spaces, with single or double quotes
// around an argument that holds spaces or commas (--arch "dense(8), relu").
func Fields(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("options: a %c quote is not closed", quote)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}
