package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
)

// result is what the table says of one kind.
type result struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Data      string `json:"data"`
	TrainRows int    `json:"train_rows"`
	TestRows  int    `json:"test_rows"`
	// Regression and Calibrated say what the model outputs.
	Regression bool `json:"regression"`
	Calibrated bool `json:"calibrated"`
	// Sizes of the ONNX files: standard operators, ai.onnx.ml's (0: the
	// model has no such form, see MLRefused), and the nsvm model file.
	Size      int64  `json:"onnx_bytes"`
	SizeML    int64  `json:"onnx_ml_bytes,omitempty"`
	SizeModel int64  `json:"model_bytes"`
	MLRefused string `json:"ml_refused,omitempty"`
	// Agreement with nsvm predict on the held-out rows.
	Std agreement  `json:"standard"`
	ML  *agreement `json:"ml,omitempty"`
	Web *agreement `json:"web,omitempty"`
	// Rows per second on the timed rows: ONNX Runtime in Node (standard
	// and ai.onnx.ml operators), nsvm predict (the process: read, predict,
	// write) and the library's PredictDataset (rows in memory).
	ORT       float64 `json:"ort_rows_per_s"`
	ORTML     float64 `json:"ort_ml_rows_per_s,omitempty"`
	Predict   float64 `json:"nsvm_predict_rows_per_s"`
	Library   float64 `json:"library_rows_per_s"`
	TimedRows int     `json:"timed_rows"`
	// Err is the largest error of the decision values on the held-out
	// rows against float64 arithmetic (exactDecisions), relative to
	// max(1, |value|): nsvm predict's, the standard graph's, the
	// ai.onnx.ml graph's.
	Err      [3]float64 `json:"decision_error_vs_float64"`
	Problems []string   `json:"problems,omitempty"`
	Notes    []string   `json:"notes,omitempty"`
}

// agreement compares one runtime's outputs with nsvm predict's.
type agreement struct {
	Rows  int `json:"rows"`
	Agree int `json:"labels_agree"`
	// Near counts the rows whose labels differ within 1e-4 of a decision
	// boundary.
	Near     int      `json:"near_boundary"`
	MaxScore float64  `json:"max_score_diff"` // relative to max(1, |score|)
	MaxProb  float64  `json:"max_probability_diff"`
	MaxValue float64  `json:"max_value_rel_diff"` // relative to max(1, |value|)
	Problems []string `json:"problems,omitempty"`
	// Notes are differences beyond the bounds that nsvm predict's own
	// rounding explains: its decision values are further from float64
	// arithmetic than twice the graph's (see result.Err).
	Notes []string `json:"notes,omitempty"`
}

// input is one ONNX input of a job for ort.cjs and web.cjs.
type input struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Cols    int      `json:"cols"`
	File    string   `json:"file,omitempty"`
	Strings []string `json:"strings,omitempty"`
}

type job struct {
	Model    string  `json:"model"`
	Rows     int     `json:"rows"`
	Inputs   []input `json:"inputs"`
	TimeRows int     `json:"timeRows"`
	Batch    int     `json:"batch"`
}

type tensorOut struct {
	Type string `json:"type"`
	Dims []int  `json:"dims"`
	Data []any  `json:"data"`
}

type jobResult struct {
	Outputs map[string]tensorOut `json:"outputs"`
	Seconds float64              `json:"seconds"`
}

func runKind(c *config, k kind, ds *dataSet, web bool) (*result, error) {
	r := &result{ID: k.id, Name: k.name, Data: ds.name, TrainRows: ds.trainRows, TestRows: ds.testRow, TimedRows: c.rows}
	file := func(suffix string) string { return filepath.Join(c.out, k.id+suffix) }
	mp := file(".nsvm")
	if _, err := nsvmRun(c, append([]string{"train", "--data", ds.train, "--model", mp, "--quiet", "--seed", "1"}, k.args...)...); err != nil {
		return nil, err
	}
	m, err := loadModel(mp)
	if err != nil {
		return nil, err
	}
	r.Regression, r.Calibrated = m.Regression(), m.Calibrated()
	std, ml := file(".onnx"), file("-ml.onnx")
	if _, err := nsvmRun(c, "export", "--format", "onnx", "--model", mp, "--out", std); err != nil {
		return nil, err
	}
	if _, err := nsvmRun(c, "export", "--format", "onnx", "--onnx-operators", "ml", "--model", mp, "--out", ml); err != nil {
		if !strings.Contains(err.Error(), "cannot export") {
			return nil, err
		}
		r.MLRefused, ml = firstLine(err.Error()), ""
	}
	r.Size, r.SizeModel = fileSize(std), fileSize(mp)
	if ml != "" {
		r.SizeML = fileSize(ml)
	}
	dec, prob := file("-decisions.txt"), file("-probabilities.txt")
	if _, err := nsvmRun(c, "predict", "--model", mp, "--data", ds.test, "--decision-values", "--out", dec); err != nil {
		return nil, err
	}
	if m.Calibrated() {
		if _, err := nsvmRun(c, "predict", "--model", mp, "--data", ds.test, "--probability", "--out", prob); err != nil {
			return nil, err
		}
	}
	want, err := readPredictions(m, dec, prob)
	if err != nil {
		return nil, err
	}
	inputs, n, err := onnxInputs(m, ds.test, file("-input"))
	if err != nil {
		return nil, err
	}
	jobs := []job{{Model: std, Rows: n, Inputs: inputs, TimeRows: c.rows, Batch: c.batch}}
	if ml != "" {
		jobs = append(jobs, job{Model: ml, Rows: n, Inputs: inputs, TimeRows: c.rows, Batch: c.batch})
	}
	res, err := node(c, "ort.cjs", file("-ort"), jobs)
	if err != nil {
		return nil, err
	}
	test, err := data.Open(ds.test, openOptions(m))
	if err != nil {
		return nil, err
	}
	if err := m.WidenFor(test); err != nil {
		return nil, err
	}
	exact := exactDecisions(m, test)
	nh := m.NumHeads()
	var mine []float64
	for _, d := range want.decisions {
		mine = append(mine, d[:nh]...)
	}
	r.Err[0] = maxRelErr(mine, exact)
	excuse := func(out map[string]tensorOut, slot int) float64 {
		r.Err[slot] = maxRelErr(decisionsOf(m, out), exact)
		if r.Err[0] > 2*r.Err[slot] {
			return r.Err[0] // nsvm predict's rounding dominates
		}
		return 0
	}
	r.Std = compare(m, want, res[0].Outputs, excuse(res[0].Outputs, 1))
	r.ORT = float64(c.rows) / res[0].Seconds
	if ml != "" {
		a := compare(m, want, res[1].Outputs, excuse(res[1].Outputs, 2))
		r.ML, r.ORTML = &a, float64(c.rows)/res[1].Seconds
	}
	// nsvm predict on the timed rows, the process as a user runs it.
	args := []string{"predict", "--model", mp, "--data", ds.big, "--out", file("-timed.txt")}
	if m.Calibrated() {
		args = append(args, "--probability")
	}
	wall, err := nsvmRun(c, args...)
	if err != nil {
		return nil, err
	}
	r.Predict = float64(c.rows) / wall.Seconds()
	// The library on the same rows, read beforehand.
	big, err := data.Open(ds.big, openOptions(m))
	if err != nil {
		return nil, err
	}
	if err := m.WidenFor(big); err != nil {
		return nil, err
	}
	start := time.Now()
	if _, err := m.PredictDataset(big, m.Calibrated()); err != nil {
		return nil, err
	}
	r.Library = float64(c.rows) / time.Since(start).Seconds()
	if web {
		wj := []job{{Model: std, Rows: n, Inputs: inputs}}
		res, err := node(c, "web.cjs", file("-web"), wj)
		if err != nil {
			return nil, err
		}
		a := compare(m, want, res[0].Outputs, 0)
		if maxRelErr(decisionsOf(m, res[0].Outputs), exact)*2 < r.Err[0] {
			a = compare(m, want, res[0].Outputs, r.Err[0])
		}
		r.Web = &a
	}
	for what, a := range map[string]*agreement{"node": &r.Std, "node, ai.onnx.ml": r.ML, "Chromium": r.Web} {
		if a != nil {
			for _, p := range a.Problems {
				r.Problems = append(r.Problems, what+": "+p)
			}
			for _, p := range a.Notes {
				r.Notes = append(r.Notes, what+": "+p)
			}
		}
	}
	slices.Sort(r.Problems)
	slices.Sort(r.Notes)
	return r, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// openOptions reads data for m as nsvm predict does.
func openOptions(m *model.Model) data.OpenOptions {
	return data.OpenOptions{Dim: m.InSize(), CSV: data.CSVOptions{Columns: m.Columns, LabelColumn: m.LabelColumn}}
}

// perColumn reports whether m takes one ONNX input per CSV column (see
// package model/onnx).
func perColumn(m *model.Model) bool {
	for _, c := range m.Columns {
		if c.Categories != nil || c.Dropped {
			return true
		}
	}
	return false
}

// onnxInputs returns the ONNX inputs of the rows of path for m, written
// beside prefix: X, the rows as nsvm's readers make them, or one input
// per CSV column (numbers, NaN where missing; categories as text).
func onnxInputs(m *model.Model, path, prefix string) ([]input, int, error) {
	if !perColumn(m) {
		ds, err := data.Open(path, openOptions(m))
		if err != nil {
			return nil, 0, err
		}
		if err := m.WidenFor(ds); err != nil {
			return nil, 0, err
		}
		x := ds.X
		if ds.Sparse != nil {
			x = make([]float32, ds.N*ds.D)
			for i := range ds.N {
				ds.Sparse.Row(i).Scatter(x[i*ds.D : (i+1)*ds.D])
			}
		}
		p := prefix + "-X.f32"
		if err := writeF32(p, x); err != nil {
			return nil, 0, err
		}
		return []input{{Name: "X", Type: "float32", Cols: ds.D, File: p}}, ds.N, nil
	}
	lines, err := readLines(path)
	if err != nil {
		return nil, 0, err
	}
	header := strings.Split(lines[0], ",")
	var ins []input
	for k, col := range m.Columns {
		if col.Dropped {
			continue
		}
		name := col.Name
		if name == "" {
			name = "x" + strconv.Itoa(k+1)
		}
		j := slices.Index(header, name)
		if j < 0 {
			return nil, 0, fmt.Errorf("%s has no column %s", path, name)
		}
		in := input{Name: name, Type: "float32", Cols: 1}
		var x []float32
		for _, l := range lines[1:] {
			f := strings.Split(l, ",")[j]
			if col.Categories != nil {
				in.Strings = append(in.Strings, f)
				continue
			}
			v, err := strconv.ParseFloat(f, 32)
			if err != nil {
				v = math.NaN() // a missing value, filled by the graph
			}
			x = append(x, float32(v))
		}
		if col.Categories != nil {
			in.Type = "string"
		} else {
			in.File = prefix + "-" + name + ".f32"
			if err := writeF32(in.File, x); err != nil {
				return nil, 0, err
			}
		}
		ins = append(ins, in)
	}
	return ins, len(lines) - 1, nil
}

func writeF32(path string, x []float32) error {
	b := make([]byte, 0, 4*len(x))
	for _, v := range x {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return os.WriteFile(path, b, 0o644)
}

// node runs a script of bench/onnx on jobs, through files beside prefix.
func node(c *config, script, prefix string, jobs []job) ([]jobResult, error) {
	jb, err := json.Marshal(jobs)
	if err != nil {
		return nil, err
	}
	in, out := prefix+"-jobs.json", prefix+"-out.json"
	if err := os.WriteFile(in, jb, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("node", filepath.Join("bench", "onnx", script), in, out)
	cmd.Env = append(os.Environ(), "NSVM_ONNXRUNTIME="+c.modules, "NSVM_CHROMIUM="+c.chromium)
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("node %s: %v\n%s", script, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	var res struct {
		Versions map[string]string `json:"versions"`
		Results  []jobResult       `json:"results"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, err
	}
	if len(res.Results) != len(jobs) {
		return nil, fmt.Errorf("node %s: %d results for %d jobs", script, len(res.Results), len(jobs))
	}
	return res.Results, nil
}

// predictions is what nsvm predict printed for the held-out rows.
type predictions struct {
	labels    []string
	decisions [][]float64 // per row, every head's (a regressor's value)
	probs     [][]float64 // per row, every class's; nil uncalibrated
}

// readPredictions reads nsvm predict's --decision-values output and, for a
// calibrated model, its --probability output (the last K fields).
func readPredictions(m *model.Model, dec, prob string) (*predictions, error) {
	p := &predictions{}
	rows, err := fieldsOf(dec)
	if err != nil {
		return nil, err
	}
	for _, f := range rows {
		if m.Regression() {
			f = append([]string{""}, f...)
		}
		p.labels = append(p.labels, f[0])
		p.decisions = append(p.decisions, floats(f[1:]))
	}
	if !m.Calibrated() {
		return p, nil
	}
	rows, err = fieldsOf(prob)
	if err != nil {
		return nil, err
	}
	k := len(m.Labels())
	for _, f := range rows {
		p.probs = append(p.probs, floats(f[len(f)-k:]))
	}
	return p, nil
}

func fieldsOf(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, strings.Fields(sc.Text()))
	}
	return out, sc.Err()
}

func floats(f []string) []float64 {
	v := make([]float64, len(f))
	for i, s := range f {
		v[i], _ = strconv.ParseFloat(s, 64)
	}
	return v
}

// margin is how far nsvm's decisions on a row are from a boundary where
// its label changes: |g| for one head, the gap between the two largest
// decisions for one-vs-rest, the smallest |g| of the pair heads for
// one-vs-one.
func margin(m *model.Model, d []float64) float64 {
	if !m.Multiclass() {
		return math.Abs(d[0])
	}
	if m.Scheme == model.OneVsOne {
		lo := math.Inf(1)
		for _, v := range d {
			lo = math.Min(lo, math.Abs(v))
		}
		return lo
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)-1] - s[len(s)-2]
}

// decisionsOf returns a runtime's decision values, rows × heads: the
// scores, or a regressor's values.
func decisionsOf(m *model.Model, out map[string]tensorOut) []float64 {
	t, ok := out["scores"]
	if m.Regression() {
		t, ok = out["value"]
	}
	if !ok {
		return nil
	}
	v := make([]float64, len(t.Data))
	for i, x := range t.Data {
		v[i], _ = x.(float64)
	}
	return v
}

// compare holds one runtime's outputs got against nsvm predict's want.
// A positive excuse is nsvm predict's own decision error against float64
// arithmetic where it dominates the runtime's: a difference beyond the
// bounds is then a note, not a problem, and labels may differ within it
// of a boundary.
func compare(m *model.Model, want *predictions, got map[string]tensorOut, excuse float64) agreement {
	a := agreement{Rows: len(want.labels)}
	flag := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if excuse > 0 {
			a.Notes = append(a.Notes, msg+fmt.Sprintf(" (nsvm predict's decision values are %.2g from float64 arithmetic, the graph's less than half as far)", excuse))
			return
		}
		a.Problems = append(a.Problems, msg)
	}
	num := func(name string, i int) float64 {
		v, _ := got[name].Data[i].(float64)
		return v
	}
	if m.Regression() {
		for i, d := range want.decisions {
			a.MaxValue = math.Max(a.MaxValue, math.Abs(num("value", i)-d[0])/math.Max(1, math.Abs(d[0])))
		}
		a.Agree = a.Rows
		if a.MaxValue > 1e-3 {
			flag("values differ by %.3g relative", a.MaxValue)
		}
		return a
	}
	nh, nc := m.NumHeads(), len(m.Labels())
	for i, l := range want.labels {
		var g string
		switch v := got["label"].Data[i].(type) {
		case string:
			g = v
		case float64:
			g = strconv.FormatFloat(v, 'g', -1, 64)
		}
		d := want.decisions[i]
		for h := range nh {
			a.MaxScore = math.Max(a.MaxScore, math.Abs(num("scores", i*nh+h)-d[h])/math.Max(1, math.Abs(d[h])))
		}
		if want.probs != nil {
			for c := range nc {
				a.MaxProb = math.Max(a.MaxProb, math.Abs(num("probabilities", i*nc+c)-want.probs[i][c]))
			}
		}
		switch {
		case g == l:
			a.Agree++
		case margin(m, d) < math.Max(1e-4, 2*excuse):
			a.Near++
		default:
			a.Problems = append(a.Problems, fmt.Sprintf("row %d: label %s, nsvm predict %s (decisions %v)", i+1, g, l, d))
		}
	}
	if a.Agree+a.Near < a.Rows || float64(a.Agree) < 0.999*float64(a.Rows) {
		a.Problems = append(a.Problems, fmt.Sprintf("labels agree on %d of %d rows", a.Agree, a.Rows))
	}
	if a.MaxProb > 1e-3 {
		flag("probabilities differ by %.3g", a.MaxProb)
	}
	if a.MaxScore > 1e-3 {
		flag("decision values differ by %.3g relative", a.MaxScore)
	}
	return a
}
