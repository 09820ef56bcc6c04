package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/search"
)

// TestLog: a Log's records read back as written (non-finite values as 0);
// a line that is not a record is an error naming its line, and a log
// without records an error too.
func TestLog(t *testing.T) {
	var b bytes.Buffer
	l := NewLog(&b)
	p := l.Progress("nsvm4 seed 1", 1)
	p(paper.Progress{Algorithm: 4, Phase: "train", Step: 10, Total: 100, Alignment: 0.5, Loss: math.NaN(), Elapsed: time.Second})
	p(paper.Progress{Algorithm: 4, Phase: "svm", Step: 100, Total: 100, NSV: 7})
	if l.Lines() != 2 || l.Err() != nil {
		t.Fatalf("%d lines, %v", l.Lines(), l.Err())
	}
	recs, err := ReadLog(bytes.NewReader(b.Bytes()), "run.jsonl")
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if r := recs[0]; r.Run != "nsvm4 seed 1" || r.Step != 10 || r.Alignment != 0.5 || r.Loss != 0 || r.ElapsedSeconds != 1 || recs[1].NSV != 7 {
		t.Fatalf("records %+v", recs)
	}
	if _, err := ReadLog(strings.NewReader(b.String()+"{\"nope\": 1}\n"), "run.jsonl"); err == nil || !strings.Contains(err.Error(), "run.jsonl:3") {
		t.Errorf("a foreign line: %v", err)
	}
	if _, err := ReadLog(strings.NewReader("\n"), "empty"); err == nil || !strings.Contains(err.Error(), "no progress records") {
		t.Errorf("an empty log: %v", err)
	}
}

// TestFigures: training curves and a decision boundary render as PNG and
// SVG; a boundary of a model that is not 2-D is refused.
func TestFigures(t *testing.T) {
	var recs []Record
	for alg := 1; alg <= 4; alg += 3 {
		for s := 1; s <= 20; s++ {
			recs = append(recs, Record{Run: "r", Algorithm: alg, Phase: "train", Step: 10 * s, Total: 200, ViolationRate: 1 / float64(s), Alignment: 0.1 * float64(s), Loss: 1 / float64(s)})
		}
	}
	fig, summary, err := Curves(recs, 600, 0)
	if err != nil || !strings.Contains(summary, "40 records") {
		t.Fatalf("curves: %q, %v", summary, err)
	}
	var png bytes.Buffer
	if err := fig.Encode(&png, "png"); err != nil || !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) {
		t.Fatalf("PNG: %v", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ds := &data.Dataset{N: 200, D: 2, X: make([]float32, 400), Y: make([]float64, 200)}
	for i := range ds.N {
		ds.Y[i] = float64(1 + i%2)
		ds.X[2*i], ds.X[2*i+1] = float32(rng.NormFloat64()+2*ds.Y[i]), float32(rng.NormFloat64())
	}
	m, err := search.Fit(context.Background(), ds, &search.FitConfig{Algorithm: "smo", C: 1, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	fig, summary, err = Boundary(m, ds, "blobs", 400, 300, 40)
	if err != nil || !strings.Contains(summary, "support vectors marked") {
		t.Fatalf("boundary: %q, %v", summary, err)
	}
	var svg bytes.Buffer
	if err := fig.Encode(&svg, "svg"); err != nil || !strings.Contains(svg.String(), "<svg") || !strings.Contains(svg.String(), "class 2") {
		t.Fatalf("SVG: %v", err)
	}
	wide := &data.Dataset{N: 2, D: 3, X: make([]float32, 6), Y: []float64{1, 2}}
	if _, _, err := Boundary(m, wide, "", 0, 0, 10); err == nil {
		t.Error("a boundary of 3-D data drawn")
	}
}

// TestEvaluationReports: the text and the JSON of a classifier's and a
// regressor's scores.
func TestEvaluationReports(t *testing.T) {
	cls := model.Scores{N: 10, Accuracy: 0.8, Errors: 2, BalancedAccuracy: 0.75, F1: 0.7, ROCAUC: 0.9, Task: model.Classification,
		Labels: []float64{0, 1}, Names: []string{"no", "yes"}, Confusion: [][]int{{5, 1}, {1, 3}}}
	var b bytes.Buffer
	Evaluation(&b, cls)
	for _, want := range []string{"accuracy 80.0000% (8/10 correct, 2 errors)", "ROC AUC 0.9000", "confusion (rows: true, columns: predicted)", "yes"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	reg := model.Scores{N: 4, RMSE: 1.5, MAE: 1, R2: math.Inf(-1), Task: model.Regression}
	js, err := json.Marshal(EvaluationJSON(reg))
	if err != nil || string(js) != `{"rmse":1.5,"mae":1,"r2":null,"n":4}` {
		t.Errorf("regression JSON %s, %v", js, err)
	}
}

// TestFitLines: a candidate line counts against the plan and says why a
// candidate was pruned; the final fit's reports go to the bar and the log.
func TestFitLines(t *testing.T) {
	var b bytes.Buffer
	bar, log := 0, 0
	r := &FitLines{W: &b, Bar: func(paper.Progress) { bar++ }, Log: func(paper.Progress) { log++ }}
	r.Update(search.FitProgress{Stage: "select", Candidate: "smo rbf", Done: 1, Total: 3, Metric: "accuracy", Score: 0.9, Seconds: 0.5})
	r.Update(search.FitProgress{Stage: "select", Candidate: "nsvm4", Done: 2, Total: 3, Score: math.NaN(), Err: "pruned: first fold 80 %"})
	r.Update(search.FitProgress{Stage: "fit", Candidate: "smo rbf", Train: &paper.Progress{}})
	out := b.String()
	if !strings.Contains(out, "candidate   1 of 3") || !strings.Contains(out, "pruned") || !strings.Contains(out, "(first fold 80 %)") || bar != 1 || log != 1 {
		t.Errorf("lines %q, bar %d, log %d", out, bar, log)
	}
}

// TestFitLinesSameReason: candidates pruned one after another for one reason
// (a probe's verdict on a whole grid) give it once; another reason, or a
// scored candidate between, gives it again.
func TestFitLinesSameReason(t *testing.T) {
	var b bytes.Buffer
	r := &FitLines{W: &b}
	why := "pruned: the probe's best RBF SVM scored 42 % against 54 % for the linear SVM"
	for i, c := range []struct {
		err   string
		score float64
	}{{why, math.NaN()}, {why, math.NaN()}, {why, math.NaN()}, {"", 0.8}, {why, math.NaN()}, {"pruned: other", math.NaN()}} {
		r.Update(search.FitProgress{Stage: "select", Candidate: fmt.Sprintf("c%d", i), Done: i + 1, Total: 6, Metric: "accuracy", Score: c.score, Err: c.err})
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines: %q", len(lines), b.String())
	}
	full := "(" + strings.TrimPrefix(why, "pruned: ") + ")"
	for i, want := range []string{full, "(as above)", "(as above)", "accuracy 80.00 %", full, "(other)"} {
		if !strings.HasSuffix(strings.TrimSpace(lines[i]), want) && !strings.Contains(lines[i], want) {
			t.Errorf("line %d %q, want %q", i+1, lines[i], want)
		}
	}
}
