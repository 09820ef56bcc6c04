package onnx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
)

// TestMarshal decodes every model's ONNX bytes back: the IR version and
// operator sets, the graph's inputs and outputs (names, types, shapes),
// initializers whose data fill their shapes, and nodes whose inputs are
// defined before them. The bytes do not depend on the run.
func TestMarshal(t *testing.T) {
	for name, m := range testModels(t) {
		t.Run(name, func(t *testing.T) {
			b, err := Marshal(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := Marshal(m, nil)
			if !bytes.Equal(b, again) {
				t.Error("two exports differ")
			}
			top, err := decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := num(top, modelIRVersion); v != irVersion {
				t.Errorf("ir_version %d", v)
			}
			sets := map[string]int64{}
			for _, o := range msgs(top, modelOpsetImport) {
				v, _ := num(o, opsetVersion)
				sets[str(o, opsetDomain)] = v
			}
			if sets[""] != opset {
				t.Errorf("opsets %v", sets)
			}
			graph := msgs(top, modelGraph)[0]
			defined := map[string]bool{}
			for _, in := range msgs(graph, graphInitializer) {
				checkTensor(t, in)
				defined[str(in, tensorName)] = true
			}
			var inputs, outputs []string
			for _, v := range msgs(graph, graphInput) {
				inputs = append(inputs, str(v, valueName))
				defined[str(v, valueName)] = true
			}
			checkNodes(t, graph, defined, sets)
			for _, v := range msgs(graph, graphOutput) {
				n := str(v, valueName)
				outputs = append(outputs, n)
				if !defined[n] {
					t.Errorf("output %s is not computed", n)
				}
			}
			want := []string{"label", "scores"}
			switch {
			case m.Regression():
				want = []string{"value"}
			case m.Calibrated():
				want = append(want, "probabilities")
			}
			if !slices.Equal(outputs, want) {
				t.Errorf("outputs %v, want %v", outputs, want)
			}
			if perColumn(m.Columns) {
				var used []string
				for k, c := range m.Columns {
					if !c.Dropped {
						used = append(used, columnName(c, k))
					}
				}
				if !slices.Equal(inputs, used) {
					t.Errorf("inputs %v, want one per CSV column used, %v", inputs, used)
				}
			} else if !slices.Equal(inputs, []string{"X"}) {
				t.Errorf("inputs %v, want X", inputs)
			}
		})
	}
}

// checkTensor checks that an initializer's data fill its shape.
func checkTensor(t *testing.T, fs []field) {
	t.Helper()
	size := int64(1)
	for _, d := range packedInts(fs, tensorDims) {
		size *= d
	}
	typ, _ := num(fs, tensorDataType)
	width := map[int64]int64{int64(tFloat): 4, int64(tDouble): 8, int64(tInt64): 8, int64(tBool): 1}[typ]
	switch {
	case typ == int64(tString):
		if n := int64(len(strs(fs, tensorStringData))); n != size {
			t.Errorf("initializer %s: %d strings for %d", str(fs, tensorName), n, size)
		}
	case width == 0:
		t.Errorf("initializer %s of type %d", str(fs, tensorName), typ)
	default:
		var raw []byte
		for _, f := range fs {
			if f.num == tensorRawData {
				raw = f.bytes
			}
		}
		if int64(len(raw)) != size*width {
			t.Errorf("initializer %s: %d bytes for %d values of %d", str(fs, tensorName), len(raw), size, width)
		}
	}
}

// checkNodes checks that every node's inputs are defined before it (in
// the graph or, for a loop's body, the graphs around it), that outputs
// are defined once, and that its domain is imported.
func checkNodes(t *testing.T, graph []field, defined map[string]bool, sets map[string]int64) {
	t.Helper()
	for _, n := range msgs(graph, graphNode) {
		op, dom := str(n, nodeOpType), str(n, nodeDomain)
		if _, ok := sets[dom]; !ok {
			t.Errorf("%s of domain %q, not imported", op, dom)
		}
		for _, in := range strs(n, nodeInput) {
			if in != "" && !defined[in] {
				t.Errorf("%s reads %s before it is defined", op, in)
			}
		}
		for _, a := range msgs(n, nodeAttribute) {
			for _, body := range msgs(a, attrG) {
				inner := maps(defined)
				for _, in := range msgs(body, graphInitializer) {
					checkTensor(t, in)
					inner[str(in, tensorName)] = true
				}
				for _, v := range msgs(body, graphInput) {
					inner[str(v, valueName)] = true
				}
				checkNodes(t, body, inner, sets)
			}
		}
		for _, out := range strs(n, nodeOutput) {
			if defined[out] {
				t.Errorf("%s defines %s again", op, out)
			}
			defined[out] = true
		}
	}
}

func maps(m map[string]bool) map[string]bool {
	c := make(map[string]bool, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// TestRefused: a model of kernel values has no ONNX form, and the error
// says so, wrapping model.ErrNotExportable.
func TestRefused(t *testing.T) {
	pre := &model.Model{Algorithm: "smo", Info: map[string]string{},
		Head: &svm.Model{Kernel: kernel.Spec{Name: kernel.Precomputed}, NSV: 1, D: 3, SV: []float32{0, 1, 0}, Coef: []float64{1}, Neg: -1, Pos: 1}}
	err := Write(&bytes.Buffer{}, pre, nil)
	if !errors.Is(err, model.ErrNotExportable) || !strings.HasPrefix(err.Error(), "nsvm: ") || !strings.Contains(err.Error(), "precomputed") {
		t.Errorf("precomputed kernel: %v", err)
	}
	norm := &model.Model{Algorithm: "smo", Info: map[string]string{},
		Head: &svm.Model{Kernel: kernel.Spec{Name: "poly", Gamma: 1, Degree: 2, Normalized: true}, NSV: 1, D: 3, SV: []float32{0, 1, 0}, Coef: []float64{1}, Neg: -1, Pos: 1}}
	if err := Write(&bytes.Buffer{}, norm, &Options{Operators: ML}); !errors.Is(err, model.ErrNotExportable) {
		t.Errorf("normalized kernel with ai.onnx.ml: %v", err)
	}
	if err := Write(&bytes.Buffer{}, norm, &Options{Operators: "fast"}); err == nil || !strings.HasPrefix(err.Error(), "nsvm: ") {
		t.Errorf("unknown operators: %v", err)
	}
}

// TestChecker runs onnx.checker.check_model (full_check: with type and
// shape inference) of Python's onnx on every model, standard and ML.
func TestChecker(t *testing.T) {
	py := pythonWithONNX()
	if py == "" {
		t.Skip("no python3 with onnx (Debian's python3-onnx) is installed")
	}
	dir := t.TempDir()
	var paths []string
	for name, m := range testModels(t) {
		for _, ops := range []Operators{Standard, ML} {
			b, err := Marshal(m, &Options{Operators: ops})
			if errors.Is(err, model.ErrNotExportable) && ops == ML {
				continue
			}
			if err != nil {
				t.Fatalf("%s (%s): %v", name, ops, err)
			}
			p := filepath.Join(dir, name+"-"+string(ops)+".onnx")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	script := "import onnx, sys\nfor p in sys.argv[1:]:\n    onnx.checker.check_model(onnx.load(p), full_check=True)\n    print('ok', p)\n"
	out, err := exec.Command(py, append([]string{"-c", script}, paths...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("onnx.checker: %v\n%s", err, out)
	}
}

// pythonWithONNX returns a Python that imports onnx: the one on the PATH
// or Debian's, or "".
func pythonWithONNX() string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(py); err == nil && exec.Command(p, "-c", "import onnx").Run() == nil {
			return p
		}
	}
	return ""
}

// runtimeDir returns the node_modules directory holding onnxruntime-node
// ($NSVM_ONNXRUNTIME), skipping the test without it or without node.
func runtimeDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("NSVM_ONNXRUNTIME")
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed:", err)
	}
	if dir == "" {
		t.Skip("NSVM_ONNXRUNTIME names no node_modules directory with onnxruntime-node (npm install --ignore-scripts onnxruntime-node@1.30.0)")
	}
	if _, err := os.Stat(filepath.Join(dir, "onnxruntime-node")); err != nil {
		t.Skip("no onnxruntime-node in NSVM_ONNXRUNTIME:", err)
	}
	return dir
}

type tensorJSON struct {
	Type string `json:"type"`
	Dims []int  `json:"dims"`
	Data []any  `json:"data"`
}

// TestRuntime runs every model, with standard and with ai.onnx.ml
// operators, in onnxruntime-node on random rows, and compares its outputs
// with the model's own predictions (Predictions, or PredictDataset on the
// CSV rows of a model of categorical columns): labels equal except within
// 1e-4 of a decision boundary, decision values within 1e-4 (relative),
// probabilities within 1e-4, regression values within 1e-4 (relative).
func TestRuntime(t *testing.T) {
	dir := runtimeDir(t)
	tmp := t.TempDir()
	rng := rand.New(rand.NewPCG(11, 13))
	type job struct {
		Model string                    `json:"model"`
		Feeds map[string]map[string]any `json:"feeds"`
	}
	type check struct {
		name string
		m    *model.Model
		want model.Prediction
	}
	var jobs []job
	var checks []check
	models := testModels(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range models {
			if !yield(k) {
				return
			}
		}
	})
	const n = 200
	for _, name := range names {
		m := models[name]
		x, csv := testRows(m, n, rng)
		feeds := map[string]map[string]any{}
		var want model.Prediction
		if csv != "" {
			ds, err := data.ReadCSV(strings.NewReader(csv), "rows.csv", data.CSVOptions{Columns: m.Columns, LabelColumn: m.LabelColumn, Header: data.HeaderYes})
			if err != nil {
				t.Fatal(err)
			}
			if want, err = m.PredictDataset(ds, true); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(csv), "\n")[1:]
			for k, c := range m.Columns {
				if c.Dropped {
					continue
				}
				var vals []any
				for _, l := range lines {
					f := strings.Split(l, ",")[k]
					switch {
					case c.Dates != "" && f == "NA":
						vals = append(vals, nil, nil, nil, nil)
					case c.Dates != "":
						v := make([]float32, data.DateWidth)
						if err := data.EncodeRow([]data.Column{{Dates: c.Dates}}, []string{f}, v); err != nil {
							t.Fatal(err)
						}
						for _, x := range v {
							vals = append(vals, float64(x))
						}
					case c.Categories != nil:
						vals = append(vals, f)
					case f == "NA":
						vals = append(vals, nil)
					default:
						var v float64
						fmt.Sscan(f, &v)
						vals = append(vals, v)
					}
				}
				typ := "float32"
				if c.Categories != nil {
					typ = "string"
				}
				feeds[columnName(c, k)] = map[string]any{"type": typ, "dims": []int{n, len(vals) / n}, "data": vals}
			}
		} else {
			vals := make([]any, len(x))
			filled := slices.Clone(x)
			for i, v := range x {
				vals[i] = float64(v)
				if math.IsNaN(float64(v)) {
					vals[i] = nil
					filled[i] = float32(*m.Columns[i%m.InSize()].Fill)
				}
			}
			feeds["X"] = map[string]any{"type": "float32", "dims": []int{n, m.InSize()}, "data": vals}
			want = m.Predictions(filled, n, true)
		}
		for _, ops := range []Operators{Standard, ML} {
			b, err := Marshal(m, &Options{Operators: ops})
			if errors.Is(err, model.ErrNotExportable) && ops == ML {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(tmp, name+"-"+string(ops)+".onnx")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, job{Model: p, Feeds: feeds})
			checks = append(checks, check{name: name + " (" + string(ops) + ")", m: m, want: want})
		}
	}
	jb, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	jobPath, outPath := filepath.Join(tmp, "jobs.json"), filepath.Join(tmp, "out.json")
	if err := os.WriteFile(jobPath, jb, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("testdata", "run.cjs"), jobPath, outPath)
	cmd.Env = append(os.Environ(), "NSVM_ONNXRUNTIME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	ob, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var results []map[string]tensorJSON
	if err := json.Unmarshal(ob, &results); err != nil {
		t.Fatal(err)
	}
	for i, c := range checks {
		t.Run(c.name, func(t *testing.T) { compare(t, c.m, c.want, results[i]) })
	}
}

// compare checks ONNX Runtime's outputs got against the model's prediction
// want.
func compare(t *testing.T, m *model.Model, want model.Prediction, got map[string]tensorJSON) {
	t.Helper()
	floats := func(name string) []float64 {
		out := make([]float64, len(got[name].Data))
		for i, v := range got[name].Data {
			out[i], _ = v.(float64)
		}
		return out
	}
	close := func(what string, g, w []float64, tol float64, rel bool) {
		if len(g) != len(w) {
			t.Fatalf("%s: %d values, want %d", what, len(g), len(w))
		}
		for i := range g {
			scale := 1.0
			if rel {
				scale = max(1, math.Abs(w[i]))
			}
			if math.Abs(g[i]-w[i]) > tol*scale {
				t.Errorf("%s[%d] = %.9g, want %.9g", what, i, g[i], w[i])
				return
			}
		}
	}
	if m.Regression() {
		close("value", floats("value"), want.Labels, 1e-4, true)
		return
	}
	dec := floats("scores")
	close("scores", dec, want.Decisions, 1e-4, true)
	nh := m.NumHeads()
	for i, w := range want.Labels {
		name := m.LabelName(w)
		var g string
		switch v := got["label"].Data[i].(type) {
		case string:
			g = v
		case float64:
			g = m.LabelName(v)
		}
		if g == name {
			continue
		}
		// Rounding may put a decision near 0 on the other side; a
		// decision the runtime computes exactly as the model does (a zero
		// of a LIBSVM model, Model.ZeroToNegative) must give its label.
		near := false
		for q, d := range want.Decisions[i*nh : (i+1)*nh] {
			near = near || math.Abs(d) < 1e-4 && dec[i*nh+q] != d
		}
		if !near {
			t.Errorf("label[%d] = %s, want %s (decisions %v)", i, g, name, want.Decisions[i*nh:(i+1)*nh])
		}
	}
	if m.Calibrated() {
		close("probabilities", floats("probabilities"), want.Probabilities, 1e-4, false)
	}
}
