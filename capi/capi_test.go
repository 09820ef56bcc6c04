package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/search"
)

// ring returns n rows of generated Ringnorm (20 features, labels 1 and 2).
func ring(n int, seed uint64) *data.Dataset {
	return datasets.Ringnorm(n, rand.New(rand.NewPCG(seed, 1)))
}

// denseInput describes x (n×d float32, row-major) as C memory would.
func denseInput(x []float32, n, d int) *input {
	return &input{kind: kindDense, dtype: typeF32, rows: n, cols: d, values: unsafe.Pointer(&x[0])}
}

// fortran64 returns x (n×d row-major) as float64 values in column-major order.
func fortran64(x []float32, n, d int) []float64 {
	f := make([]float64, n*d)
	for i := range n {
		for j := range d {
			f[j*n+i] = float64(x[i*d+j])
		}
	}
	return f
}

// fileOf returns the model file of m.
func fileOf(t *testing.T, m *nsvm.Model) []byte {
	t.Helper()
	b, err := modelBytes(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// libraryFit is nsvm.Fit on ds with the configuration text.
func libraryFit(t *testing.T, ds *data.Dataset, config string) *nsvm.Model {
	t.Helper()
	cfg, err := parseConfig([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	m, err := nsvm.Fit(context.Background(), ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFitSameModelAsLibrary: the ABI's inputs — float32 rows, float64
// columns (Fortran order), CSR, CSV text — train the model nsvm.Fit trains
// on the same data, byte for byte; the default configuration selects.
func TestFitSameModelAsLibrary(t *testing.T) {
	ds := ring(300, 1)
	n, d := ds.N, ds.D
	configs := []string{`{"algorithm": "smo", "C": 2, "gamma": 0.05, "seed": 3}`}
	if !testing.Short() {
		configs = append(configs, `{}`)
	}
	f64 := fortran64(ds.X, n, d)
	csr := data.ToCSR(ds.X, n, d)
	ptr32 := make([]int32, len(csr.Ptr))
	for i, p := range csr.Ptr {
		ptr32[i] = int32(p)
	}
	idx64 := make([]int64, len(csr.Idx))
	for i, j := range csr.Idx {
		idx64[i] = int64(j)
	}
	val64 := make([]float64, len(csr.Val))
	for i, v := range csr.Val {
		val64[i] = float64(v)
	}
	var csv bytes.Buffer
	if err := data.WriteCSV(&csv, ds, true); err != nil {
		t.Fatal(err)
	}
	// The CSV text the ABI takes: the label column last (and ignored).
	var last bytes.Buffer
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	for _, l := range lines {
		label, rest, _ := strings.Cut(l, ",")
		last.WriteString(rest + "," + label + "\n")
	}
	// What nsvm train reads from that text (with its labels): the reference
	// for the CSV input, whose columns the reader may describe.
	fromText, err := data.OpenReader(bytes.NewReader(last.Bytes()), "ring.csv", data.OpenOptions{CSV: data.CSVOptions{LabelCol: data.LabelLast}})
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]*input{
		"float32 rows":      denseInput(ds.X, n, d),
		"float64 columns":   {kind: kindDense, dtype: typeF64, fortran: true, rows: n, cols: d, values: unsafe.Pointer(&f64[0])},
		"csr int64 float32": {kind: kindCSR, dtype: typeF32, indexType: typeI64, rows: n, cols: d, values: unsafe.Pointer(&csr.Val[0]), indptr: unsafe.Pointer(&csr.Ptr[0]), indices: unsafe.Pointer(&idx64[0]), nnz: len(csr.Val)},
		"csr int32 float64": {kind: kindCSR, dtype: typeF64, indexType: typeI32, rows: n, cols: d, values: unsafe.Pointer(&val64[0]), indptr: unsafe.Pointer(&ptr32[0]), indices: unsafe.Pointer(&csr.Idx[0]), nnz: len(csr.Val)},
		"csv":               {kind: kindCSV, rows: n, values: unsafe.Pointer(&last.Bytes()[0]), nnz: last.Len()},
	}
	for _, config := range configs {
		want := fileOf(t, libraryFit(t, ds, config))
		for name, in := range inputs {
			if config == `{}` && name != "float32 rows" && name != "csv" {
				continue
			}
			ref := want
			if in.kind == kindCSV {
				ref = fileOf(t, libraryFit(t, fromText, config))
			}
			// CSR rows of 20 features are laid out dense, as the LIBSVM
			// reader lays them out: the dense rows' model.
			m, warn, err := fit(fitArgs{in: in, y: ds.Y, config: []byte(config)})
			if err != nil || warn != "" {
				t.Fatalf("%s, %s: %v %q", config, name, err, warn)
			}
			if got := fileOf(t, m); !bytes.Equal(got, ref) {
				t.Errorf("%s, %s: the model file differs from nsvm.Fit's (%d and %d bytes)", config, name, len(got), len(ref))
			}
		}
	}
}

// TestFitNamedLabelsAndWeights: label names and sample weights reach Fit
// as a data set's LabelNames and W.
func TestFitNamedLabelsAndWeights(t *testing.T) {
	ds := ring(200, 2)
	y := make([]float64, ds.N)
	w := make([]float64, ds.N)
	for i, v := range ds.Y {
		y[i] = 0 // "neg"
		if v == 2 {
			y[i] = 1 // "pos"
		}
		w[i] = 1 + float64(i%3)
	}
	config := `{"algorithm": "smo", "C": 1, "gamma": 0.05}`
	m, _, err := fit(fitArgs{in: denseInput(ds.X, ds.N, ds.D), y: y, names: []string{"neg", "pos"}, w: w, config: []byte(config)})
	if err != nil {
		t.Fatal(err)
	}
	ref := &data.Dataset{X: ds.X, N: ds.N, D: ds.D, Y: y, W: w, LabelNames: []string{"neg", "pos"}}
	if !bytes.Equal(fileOf(t, m), fileOf(t, libraryFit(t, ref, config))) {
		t.Error("the model differs from nsvm.Fit's on the same named labels and weights")
	}
	if !slices.Equal(m.ClassNames(), []string{"neg", "pos"}) {
		t.Errorf("class names %v", m.ClassNames())
	}
	_, _, err = fit(fitArgs{in: denseInput(ds.X, ds.N, ds.D), y: y, names: []string{"pos", "neg"}, config: []byte(config)})
	if !errors.Is(err, nsvm.ErrBadData) {
		t.Errorf("names out of order: %v, want ErrBadData", err)
	}
}

// TestBadInput: every inconsistency of an input is one error wrapping
// ErrBadData, before its memory is read.
func TestBadInput(t *testing.T) {
	x := []float32{1, 2, 3, float32(math.NaN())}
	f64 := []float64{1, 2, math.Inf(1), 4}
	big := []float64{1, 2, 1e300, 4}
	for _, c := range []struct {
		name string
		in   input
		want string
	}{
		{"negative rows", input{kind: kindDense, rows: -1, cols: 2}, "negative sizes"},
		{"huge", input{kind: kindDense, rows: 1 << 30, cols: 1 << 30, values: unsafe.Pointer(&x[0])}, "too large"},
		{"dtype", input{kind: kindDense, dtype: typeI32, rows: 2, cols: 2, values: unsafe.Pointer(&x[0])}, "float32 or float64"},
		{"no values", input{kind: kindDense, rows: 2, cols: 2}, "no values"},
		{"kind", input{kind: 7, rows: 2, cols: 2}, "unknown kind"},
		{"NaN", input{kind: kindDense, rows: 2, cols: 2, values: unsafe.Pointer(&x[0])}, "row 1, feature 1: value is NaN"},
		{"Inf", input{kind: kindDense, dtype: typeF64, rows: 2, cols: 2, values: unsafe.Pointer(&f64[0])}, "row 1, feature 0: value is +Inf; the input must be finite (no NaN or infinity)"},
		{"beyond float32", input{kind: kindDense, dtype: typeF64, rows: 2, cols: 2, values: unsafe.Pointer(&big[0])}, "row 1, feature 0: value 1e+300 is too large"},
		{"csr index type", input{kind: kindCSR, dtype: typeF32, indexType: typeF32, rows: 2, cols: 2, indptr: unsafe.Pointer(&x[0])}, "int32 or int64"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.in.dataset(nil)
			if !errors.Is(err, nsvm.ErrBadData) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want ErrBadData with %q", err, c.want)
			}
		})
	}
	// CSR: a column out of range, columns not increasing.
	ptr := []int32{0, 2, 3}
	val := []float64{1, 2, 3}
	for _, c := range []struct {
		idx  []int32
		want string
	}{{[]int32{0, 5, 1}, "column 5 is outside [0, 3)"}, {[]int32{1, 0, 1}, "columns must increase"}} {
		in := input{kind: kindCSR, dtype: typeF64, indexType: typeI32, rows: 2, cols: 3, values: unsafe.Pointer(&val[0]),
			indptr: unsafe.Pointer(&ptr[0]), indices: unsafe.Pointer(&c.idx[0]), nnz: 3}
		ds, err := in.dataset(nil)
		if err == nil {
			err = ds.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestConfig: the JSON keys reach FitConfig's fields; unknown keys and bad
// values are ErrBadConfig.
func TestConfig(t *testing.T) {
	c, err := parseConfig([]byte(`{"algorithm": "nsvm4", "C": 3, "epsilon": 0, "budget": 1.5, "momentum": 0.5,
		"reg": "entropy", "class_weight": "balanced", "seed": 7, "workers": 1, "input_shape": [20]}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Algorithm != "nsvm4" || c.C != 3 || c.Epsilon == nil || *c.Epsilon != 0 || c.Budget != 1500*time.Millisecond || *c.Momentum != 0.5 ||
		c.Reg.Name != "entropy" || c.Reg.Rho != 0 || c.ClassWeight != "balanced" || c.Seed != 7 || c.Workers != 1 ||
		!slices.Equal(c.InShape, []int{20}) {
		t.Errorf("config %+v", c)
	}
	if c, err := parseConfig(nil); err != nil || c.Seed != 0 || c.Algorithm != "" {
		t.Errorf("empty config: %+v, %v", c, err)
	}
	for _, bad := range []string{`{"algo": "smo"}`, `{"C": -1}`, `{"epsilon": -1}`, `{"budget": -2}`, `{"kernel": "cubic"}`,
		`{"reg_weight": 1}`, `{"C": "one"}`, `{} {}`, `[1]`} {
		if _, err := parseConfig([]byte(bad)); !errors.Is(err, nsvm.ErrBadConfig) {
			t.Errorf("%s: error %v, want ErrBadConfig", bad, err)
		}
	}
	// A bad value's error is a *ConfigError naming the field, worded with
	// its key.
	_, err = parseConfig([]byte(`{"cache_mb": -3}`))
	var ce *nsvm.ConfigError
	if !errors.As(err, &ce) || ce.Field != "CacheMB" || err.Error() != "nsvm: bad configuration: cache_mb must be ≥ 1, got -3" {
		t.Errorf("cache_mb -3: %v", err)
	}
}

// TestPredict: the ABI's predictions are Model.Predictions' on dense rows
// of either type and order and on sparse rows, and a row of the wrong
// width or a NaN is an error.
func TestPredict(t *testing.T) {
	train, test := ring(200, 3), ring(50, 4)
	m, _, err := fit(fitArgs{in: denseInput(train.X, train.N, train.D), y: train.Y, config: []byte(`{"algorithm": "smo", "C": 1, "gamma": 0.05, "probability": true}`)})
	if err != nil {
		t.Fatal(err)
	}
	n, d := test.N, test.D
	want := m.Predictions(test.X, n, true)
	f64 := fortran64(test.X, n, d)
	csr := data.ToCSR(test.X, n, d)
	idx64 := make([]int64, len(csr.Idx))
	for i, j := range csr.Idx {
		idx64[i] = int64(j)
	}
	for name, in := range map[string]*input{
		"float32":  denseInput(test.X, n, d),
		"float64F": {kind: kindDense, dtype: typeF64, fortran: true, rows: n, cols: d, values: unsafe.Pointer(&f64[0])},
		"csr":      {kind: kindCSR, dtype: typeF32, indexType: typeI64, rows: n, cols: d, values: unsafe.Pointer(&csr.Val[0]), indptr: unsafe.Pointer(&csr.Ptr[0]), indices: unsafe.Pointer(&idx64[0]), nnz: len(csr.Val)},
	} {
		nl, nd, nc := outputSizes(m, n)
		out := outputs{labels: make([]float64, nl), decisions: make([]float64, nd), scores: make([]float64, nc), probabilities: make([]float64, nc)}
		if err := predict(m, in, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		near := func(a, b []float64) bool {
			for i := range a {
				if math.Abs(a[i]-b[i]) > 1e-12*(1+math.Abs(b[i])) {
					return false
				}
			}
			return len(a) == len(b)
		}
		if !slices.Equal(out.labels, want.Labels) || !near(out.decisions, want.Decisions) || !near(out.scores, want.Scores) || !near(out.probabilities, want.Probabilities) {
			t.Errorf("%s: predictions differ from Model.Predictions", name)
		}
	}
	narrow := denseInput(test.X, n*2, d/2)
	if err := predict(m, narrow, outputs{labels: make([]float64, 2*n)}); !errors.Is(err, nsvm.ErrBadData) || !strings.Contains(err.Error(), "10 features per row, the model takes 20") {
		t.Errorf("wrong width: %v", err)
	}
	x := slices.Clone(test.X)
	x[5*d+3] = float32(math.Inf(-1))
	if err := predict(m, denseInput(x, n, d), outputs{labels: make([]float64, n)}); !errors.Is(err, nsvm.ErrBadData) || !strings.Contains(err.Error(), "row 5, feature 3") {
		t.Errorf("infinite value: %v", err)
	}
	reg, _, err := fit(fitArgs{in: denseInput(train.X, train.N, train.D), y: train.Y, config: []byte(`{"task": "regression", "algorithm": "smo", "C": 1, "gamma": 0.05}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := predict(reg, denseInput(test.X, n, d), outputs{scores: make([]float64, 2*n)}); !errors.Is(err, nsvm.ErrBadConfig) {
		t.Errorf("class scores of a regressor: %v", err)
	}
}

// TestFitStops: a nonzero stop flag and a progress callback returning false
// each stop a fit with an error wrapping context.Canceled.
func TestFitStops(t *testing.T) {
	if testing.Short() {
		t.Skip("trains networks")
	}
	ds := ring(1500, 5)
	config := []byte(`{"algorithm": "nsvm4", "steps": 1000000}`)
	var stop int32
	go func() {
		time.Sleep(300 * time.Millisecond)
		atomic.StoreInt32(&stop, 1)
	}()
	start := time.Now()
	_, _, err := fit(fitArgs{in: denseInput(ds.X, ds.N, ds.D), y: ds.Y, config: config, stop: &stop})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 20*time.Second {
		t.Errorf("stop flag: error %v after %v, want context.Canceled soon", err, time.Since(start))
	}
	var reports []progressJSON
	_, _, err = fit(fitArgs{in: denseInput(ds.X, ds.N, ds.D), y: ds.Y, config: config, progress: func(b []byte) bool {
		var p progressJSON
		if err := json.Unmarshal(b, &p); err != nil {
			t.Error(err)
		}
		reports = append(reports, p)
		return len(reports) < 3
	}})
	if !errors.Is(err, context.Canceled) || len(reports) != 3 || reports[0].Stage == "" {
		t.Errorf("callback stop: error %v, %d reports %+v", err, len(reports), reports)
	}
}

// TestChanceLevelWarns: a model that learned nothing comes back with a
// warning instead of an error.
func TestChanceLevelWarns(t *testing.T) {
	n, d := 100, 2
	x := make([]float32, n*d)
	y := make([]float64, n)
	for i := range n {
		x[i*d], x[i*d+1] = float32(i%7), float32(i%5)
		y[i] = 1
		if i%10 == 0 {
			y[i] = -1
		}
	}
	m, warn, err := fit(fitArgs{in: denseInput(x, n, d), y: y, config: []byte(`{"algorithm": "smo", "C": 0.001, "gamma": 0.001, "class_weight": "none", "metric": "accuracy"}`)})
	if err != nil || m == nil || !strings.Contains(warn, "learned nothing") {
		t.Errorf("model %v, warning %q, error %v", m != nil, warn, err)
	}
}

// TestModelInfoAndBytes: the description carries the classes, sizes and
// selection; the bytes read back into the same model.
func TestModelInfoAndBytes(t *testing.T) {
	ds := ring(200, 6)
	m, _, err := fit(fitArgs{in: denseInput(ds.X, ds.N, ds.D), y: ds.Y, config: []byte(`{"algorithm": "smo", "folds": 3}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := modelInfo(m)
	if err != nil {
		t.Fatal(err)
	}
	var info infoJSON
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	if info.Task != nsvm.Classification || !slices.Equal(info.Classes, []float64{1, 2}) || info.Inputs != 20 || info.Heads != 1 ||
		info.Selection == nil || len(info.Selection.Candidates) < 2 || info.Selection.Seconds <= 0 || info.Selection.Validation != "3-fold" {
		t.Errorf("info %s", b)
	}
	file := fileOf(t, m)
	back, err := readModel(file)
	if err != nil || !bytes.Equal(fileOf(t, back), file) {
		t.Errorf("read back: %v", err)
	}
	if _, err := readModel(file[:len(file)/2]); !errors.Is(err, nsvm.ErrBadData) {
		t.Errorf("truncated model: %v", err)
	}
}

// TestGuard: an exported function that panics (here on an invalid handle)
// returns NSVM_ERR_INTERNAL instead of crashing its caller.
func TestGuard(t *testing.T) {
	if s := nsvm_model_info(0, nil, nil); s != statusInternal {
		t.Errorf("status %d, want %d", s, statusInternal)
	}
	if s := nsvm_model_free(12345, nil); s != statusInternal {
		t.Errorf("status %d, want %d", s, statusInternal)
	}
}

// TestReporterClosed: after close, no report reaches the caller's callback
// (a goroutine that outlives the fit cannot call into freed memory).
func TestReporterClosed(t *testing.T) {
	sent := 0
	report, closeReports := reporter(func([]byte) bool { sent++; return true }, func() {})
	report(nsvm.FitProgress{Stage: "select", Score: math.NaN()})
	closeReports()
	report(nsvm.FitProgress{Stage: "select"})
	if sent != 1 {
		t.Errorf("%d reports sent, want 1", sent)
	}
}

// parseConfig is parseFitConfig's configuration alone.
func parseConfig(text []byte) (*nsvm.FitConfig, error) {
	c, _, err := parseFitConfig(text)
	return c, err
}

// TestExportONNX: the ONNX export writes a file (an ONNX ModelProto, whose
// first field is the IR version) and refuses unknown operators as a bad
// configuration.
func TestExportONNX(t *testing.T) {
	ds := ring(200, 6)
	m, _, err := fit(fitArgs{in: denseInput(ds.X, ds.N, ds.D), y: ds.Y, config: []byte(`{"algorithm": "smo", "folds": 3}`)})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.onnx")
	for _, ops := range []string{"", "standard", "ml"} {
		if err := exportONNX(m, path, ops); err != nil {
			t.Fatalf("operators %q: %v", ops, err)
		}
		if b, err := os.ReadFile(path); err != nil || len(b) < 100 || b[0] != 0x08 {
			t.Fatalf("operators %q: %d bytes (%v)", ops, len(b), err)
		}
	}
	if err := exportONNX(m, path, "gpu"); !errors.Is(err, nsvm.ErrBadConfig) {
		t.Errorf("unknown operators: %v", err)
	}
}

// TestConfigKeysFromParams: every training parameter's key is a key of the
// configuration nsvm_fit takes.
func TestConfigKeysFromParams(t *testing.T) {
	for _, p := range search.Params {
		if _, err := parseConfig([]byte(`{"` + p.Key + `": null}`)); err != nil {
			t.Errorf("key %s (FitConfig.%s): %v", p.Key, p.Field, err)
		}
	}
}
