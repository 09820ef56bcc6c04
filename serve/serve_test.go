package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
)

// trainModel fits a small model of the given kind and saves it.
func trainModel(t testing.TB, dir, kind string) (string, *nsvm.Model, *data.Dataset) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	var ds *data.Dataset
	cfg := &nsvm.FitConfig{Algorithm: "smo", C: 1, Gamma: 0.05, Scaling: nsvm.ScaleStandardize, Seed: 1}
	switch kind {
	case "binary":
		ds = datasets.Ringnorm(400, rng)
		cfg.Probability = true
	case "nsvm":
		ds = datasets.Ringnorm(400, rng)
		cfg = &nsvm.FitConfig{Algorithm: "nsvm4", Arch: "dense(16),relu,dense(8),relu", Steps: 300, C: 1, Seed: 1}
	case "multiclass":
		ds = datasets.Ringnorm(450, rng)
		for i := range ds.Y {
			ds.Y[i] = float64(10 * (i%3 + 1))
			ds.X[i*ds.D] += float32(3 * (i % 3))
		}
		cfg.Probability = true
	case "named":
		ds = datasets.Ringnorm(450, rng)
		for i := range ds.Y {
			ds.Y[i] = float64(i % 3)
			ds.X[i*ds.D] += float32(3 * (i % 3))
		}
		ds.LabelNames = []string{"ant", "bee", "cat"}
		cfg.Probability = true
	case "regression":
		ds = datasets.Friedman1(300, 0.5, rng)
		cfg.Gamma = 0.1
	case "wide":
		ds = datasets.Ringnorm(200, rng)
		ds2 := &data.Dataset{N: ds.N, D: 21, Y: ds.Y, X: make([]float32, ds.N*21)}
		for i := 0; i < ds.N; i++ {
			copy(ds2.X[i*21:], ds.X[i*20:(i+1)*20])
		}
		ds = ds2
	}
	m, err := nsvm.Fit(context.Background(), ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, kind+".nsvm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path, m, ds
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newTestServer(t *testing.T, path string, mod func(*Config)) (*Server, *httptest.Server) {
	t.Helper()
	c := Config{ModelPath: path, Name: "m", Logger: quietLogger()}
	if mod != nil {
		mod(&c)
	}
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.batch.close() })
	return s, ts
}

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("answer %q is not JSON: %v", b, err)
	}
	return resp.StatusCode, out
}

func rowsJSON(ds *data.Dataset, lo, hi int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := lo; i < hi; i++ {
		if i > lo {
			b.WriteString(",")
		}
		b.WriteString("[")
		for j, v := range ds.Row(i) {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprint(&b, v)
		}
		b.WriteString("]")
	}
	b.WriteString("]")
	return b.String()
}

func floats(v any) []float64 {
	var out []float64
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case float64:
			out = append(out, x)
		}
	}
	walk(v)
	return out
}

// TestPredictMatchesLibrary: every model kind answers both protocols with
// exactly the library's values, whatever the batch.
func TestPredictMatchesLibrary(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"binary", "nsvm", "multiclass", "regression"} {
		t.Run(kind, func(t *testing.T) {
			path, _, ds := trainModel(t, dir, kind)
			m, err := nsvm.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			_, ts := newTestServer(t, path, nil)
			n := 37
			want := m.Predictions(ds.X[:n*ds.D], n, m.Platt != nil)
			code, out := post(t, ts.URL+"/v1/models/m:predict", `{"instances":`+rowsJSON(ds, 0, n)+`,"parameters":{"decision":true,"probabilities":`+fmt.Sprint(m.Platt != nil)+`}}`)
			if code != 200 {
				t.Fatalf("v1: %d %v", code, out)
			}
			if got := floats(out["predictions"]); !slices.Equal(got, want.Labels) {
				t.Errorf("v1 predictions %v, want %v", got[:5], want.Labels[:5])
			}
			if got := floats(out["decision_values"]); !slices.Equal(got, want.Decisions) {
				t.Errorf("v1 decision values differ")
			}
			if m.Platt != nil && !slices.Equal(floats(out["probabilities"]), want.Probabilities) {
				t.Errorf("v1 probabilities differ")
			}
			flat := strings.NewReplacer("[", "", "]", "").Replace(rowsJSON(ds, 0, n))
			body := fmt.Sprintf(`{"inputs":[{"name":"input","shape":[%d,%d],"datatype":"FP32","data":[%s]}],"outputs":[{"name":"%s"},{"name":"decision"}]}`,
				n, ds.D, flat, map[bool]string{true: "value", false: "label"}[m.Regression()])
			code, out = post(t, ts.URL+"/v2/models/m/infer", body)
			if code != 200 {
				t.Fatalf("v2: %d %v", code, out)
			}
			outs := out["outputs"].([]any)
			if got := floats(outs[0].(map[string]any)["data"]); !slices.Equal(got, want.Labels) {
				t.Errorf("v2 labels differ")
			}
			if got := floats(outs[1].(map[string]any)["data"]); !slices.Equal(got, want.Decisions) {
				t.Errorf("v2 decisions differ")
			}
		})
	}
}

// TestConcurrentClients: 32 clients sending batches of 1–9 rows at once
// (so that the micro-batcher gathers them) each get exactly the values of
// the library on their rows.
func TestConcurrentClients(t *testing.T) {
	dir := t.TempDir()
	path, m, ds := trainModel(t, dir, "nsvm")
	_, ts := newTestServer(t, path, func(c *Config) { c.MaxDelay = 2 * time.Millisecond; c.Workers = 1 })
	want := m.Predictions(ds.X, ds.N, false)
	var wg sync.WaitGroup
	var bad atomic.Int32
	for c := 0; c < 32; c++ {
		wg.Go(func() {
			for r := 0; r < 5; r++ {
				lo := (c*37 + r*11) % (ds.N - 10)
				hi := lo + 1 + (c+r)%9
				resp, err := http.Post(ts.URL+"/v1/models/m:predict", "application/json",
					strings.NewReader(`{"instances":`+rowsJSON(ds, lo, hi)+`,"parameters":{"decision":true}}`))
				if err != nil {
					bad.Add(1)
					return
				}
				var out map[string]any
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if !slices.Equal(floats(out["decision_values"]), want.Decisions[lo:hi]) {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() > 0 {
		t.Fatalf("%d answers differ from the library's", bad.Load())
	}
}

// TestBadRequests: every kind of bad request gets its 4xx and a JSON error,
// and the server answers normally afterwards.
func TestBadRequests(t *testing.T) {
	dir := t.TempDir()
	path, _, ds := trainModel(t, dir, "binary")
	_, ts := newTestServer(t, path, func(c *Config) { c.MaxBodyBytes = 4096; c.MaxInstances = 5 })
	row := rowsJSON(ds, 0, 1)
	for _, c := range []struct {
		name, method, path, body, ctype string
		code                            int
		want                            string
	}{
		{"malformed JSON", "POST", "/v1/models/m:predict", `{"instances":[[1,2`, "", 400, "malformed"},
		{"not an object", "POST", "/v1/models/m:predict", `[1,2,3]`, "", 400, "malformed"},
		{"no instances", "POST", "/v1/models/m:predict", `{}`, "", 400, "instances"},
		{"empty instances", "POST", "/v1/models/m:predict", `{"instances":[]}`, "", 400, "no instances"},
		{"wrong width", "POST", "/v1/models/m:predict", `{"instances":[[1,2,3]]}`, "", 400, "20 values"},
		{"ragged", "POST", "/v1/models/m:predict", `{"instances":[[1,2],[3]]}`, "", 400, "ragged"},
		{"string value", "POST", "/v1/models/m:predict", `{"instances":[["a"]]}`, "", 400, "number"},
		{"NaN", "POST", "/v1/models/m:predict", `{"instances":[[NaN]]}`, "", 400, `"NaN" is not a number`},
		{"NaN elsewhere", "POST", "/v1/models/m:predict", `{"instances":[[1]],"x":NaN}`, "", 400, "malformed"},
		{"overflow", "POST", "/v1/models/m:predict", `{"instances":[[1e39]]}`, "", 400, "finite"},
		{"too many instances", "POST", "/v1/models/m:predict", `{"instances":` + rowsJSON(ds, 0, 6) + `}`, "", 400, "at most 5"},
		{"body too large", "POST", "/v1/models/m:predict", `{"instances":` + rowsJSON(ds, 0, 5) + strings.Repeat(" ", 4096) + `}`, "", 413, "over 4096"},
		{"unknown model", "POST", "/v1/models/other:predict", `{"instances":` + row + `}`, "", 404, "not found"},
		{"unknown model v2", "GET", "/v2/models/other", "", "", 404, "not found"},
		{"unknown path", "GET", "/v3/models", "", "", 404, "no endpoint"},
		{"wrong method", "GET", "/v1/models/m:predict", "", "", 405, "not allowed"},
		{"wrong method v2", "PUT", "/v2/models/m/infer", "", "", 405, "not allowed"},
		{"wrong content type", "POST", "/v1/models/m:predict", `{"instances":` + row + `}`, "application/xml", 415, "content type"},
		{"probabilities of an uncalibrated output", "POST", "/v2/models/m/infer", `{"inputs":[{"name":"x","shape":[1,20],"datatype":"FP32","data":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}],"outputs":[{"name":"nope"}]}`, "", 400, "unknown output"},
		{"v2 two inputs", "POST", "/v2/models/m/infer", `{"inputs":[{"name":"a"},{"name":"b"}]}`, "", 400, "exactly one"},
		{"v2 bad datatype", "POST", "/v2/models/m/infer", `{"inputs":[{"name":"x","shape":[1,1],"datatype":"BYTES","data":["a"]}]}`, "", 400, "datatype"},
		{"v2 shape mismatch", "POST", "/v2/models/m/infer", `{"inputs":[{"name":"x","shape":[2,20],"datatype":"FP32","data":[1,2,3]}]}`, "", 400, "does not hold"},
		{"v2 negative shape", "POST", "/v2/models/m/infer", `{"inputs":[{"name":"x","shape":[-1,20],"datatype":"FP32","data":[1]}]}`, "", 400, "negative"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(c.body))
			if c.ctype != "" {
				req.Header.Set("Content-Type", c.ctype)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var out map[string]string
			if resp.StatusCode != c.code || json.Unmarshal(b, &out) != nil || !strings.Contains(out["error"], c.want) {
				t.Errorf("%s %s: %d %s; want %d and an error containing %q", c.method, c.path, resp.StatusCode, b, c.code, c.want)
			}
		})
	}
	// Still serving.
	if code, out := post(t, ts.URL+"/v1/models/m:predict", `{"instances":`+row+`}`); code != 200 {
		t.Fatalf("after the bad requests: %d %v", code, out)
	}
	// The errors are counted by kind.
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`nsvm_request_errors_total{kind="json"}`, `nsvm_request_errors_total{kind="input"}`,
		`nsvm_request_errors_total{kind="body"}`, `nsvm_requests_total{code="200",protocol="v1"}`, "nsvm_batch_rows_bucket",
		"nsvm_request_duration_seconds_bucket", "nsvm_requests_in_flight"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestEndpoints: metadata, health and readiness answers.
func TestEndpoints(t *testing.T) {
	dir := t.TempDir()
	path, _, _ := trainModel(t, dir, "multiclass")
	_, ts := newTestServer(t, path, nil)
	for _, c := range []struct{ path, want string }{
		{"/v1/models", `{"models":["m"]}`},
		{"/v1/models/m", `{"name":"m","ready":true}`},
		{"/v2", `"name":"nsvm"`},
		{"/v2/health/live", `{"live":true}`},
		{"/v2/health/ready", `{"ready":true}`},
		{"/v2/models/m/ready", `{"name":"m","ready":true}`},
		{"/v2/models/m", `"shape":[-1,20]`},
		{"/v2/models/m", `{"name":"probabilities","datatype":"FP64","shape":[-1,3]}`},
		{"/v2/models/m/versions/1", `"inputs"`},
	} {
		resp, err := http.Get(ts.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), c.want) {
			t.Errorf("GET %s: %d %s; want %s", c.path, resp.StatusCode, b, c.want)
		}
	}
}

// TestTooManyInFlight: past MaxInFlight requests get 429.
func TestTooManyInFlight(t *testing.T) {
	dir := t.TempDir()
	path, _, ds := trainModel(t, dir, "binary")
	s, ts := newTestServer(t, path, func(c *Config) { c.MaxInFlight = 1 })
	s.flight.Add(1) // one request "in flight"
	code, out := post(t, ts.URL+"/v1/models/m:predict", `{"instances":`+rowsJSON(ds, 0, 1)+`}`)
	if code != 429 || !strings.Contains(fmt.Sprint(out["error"]), "too many") {
		t.Fatalf("%d %v", code, out)
	}
	s.flight.Add(-1)
	if code, _ := post(t, ts.URL+"/v1/models/m:predict", `{"instances":`+rowsJSON(ds, 0, 1)+`}`); code != 200 {
		t.Fatalf("after: %d", code)
	}
}

// TestReload: a good new file replaces the model; a corrupt file or one of
// another input width is refused while the old model keeps serving; Watch
// notices a changed file.
func TestReload(t *testing.T) {
	dir := t.TempDir()
	path, _, ds := trainModel(t, dir, "binary")
	mcPath, mc, _ := trainModel(t, dir, "multiclass")
	widePath, _, _ := trainModel(t, dir, "wide")
	served := filepath.Join(dir, "served.nsvm")
	copyFile(t, path, served)
	s, ts := newTestServer(t, served, nil)
	body := `{"instances":` + rowsJSON(ds, 0, 3) + `}`
	_, before := post(t, ts.URL+"/v1/models/m:predict", body)

	os.WriteFile(served, []byte("not a model"), 0o644)
	if err := s.Reload(); err == nil {
		t.Fatal("a corrupt file was loaded")
	}
	if _, out := post(t, ts.URL+"/v1/models/m:predict", body); !slices.Equal(floats(out["predictions"]), floats(before["predictions"])) {
		t.Fatal("the old model stopped serving after a refused reload")
	}
	copyFile(t, widePath, served)
	if err := s.Reload(); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Fatalf("a model of another width: %v", err)
	}
	copyFile(t, mcPath, served)
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	want := mc.Predictions(ds.X[:3*ds.D], 3, false)
	if _, out := post(t, ts.URL+"/v1/models/m:predict", body); !slices.Equal(floats(out["predictions"]), want.Labels) {
		t.Fatalf("after the reload: %v, want %v", out["predictions"], want.Labels)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	tmp := to + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, to); err != nil {
		t.Fatal(err)
	}
	// A later mtime, so that the watcher sees the change even on coarse
	// file-system clocks.
	later := time.Now().Add(time.Duration(rand.IntN(1000)+1) * time.Second)
	os.Chtimes(to, later, later)
}

// TestWatch: with Watch set, a changed file is reloaded without a signal.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	path, _, ds := trainModel(t, dir, "binary")
	mcPath, mc, _ := trainModel(t, dir, "multiclass")
	served := filepath.Join(dir, "served.nsvm")
	copyFile(t, path, served)
	s, err := New(Config{ModelPath: served, Name: "m", Logger: quietLogger(), Watch: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, time.Second, nil) }()
	copyFile(t, mcPath, served)
	want := mc.Predictions(ds.X[:ds.D], 1, false).Labels
	url := "http://" + ln.Addr().String() + "/v1/models/m:predict"
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, out := post(t, url, `{"instances":`+rowsJSON(ds, 0, 1)+`}`)
		if slices.Equal(floats(out["predictions"]), want) && len(s.model.Load().classes) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the watcher did not reload the changed file")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestGracefulShutdown: ending the context while clients send requests
// loses no request the server accepted: each gets its full answer, and the
// others fail to connect.
func TestGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	path, _, ds := trainModel(t, dir, "nsvm")
	s, err := New(Config{ModelPath: path, Name: "m", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, 10*time.Second, nil) }()
	url := "http://" + ln.Addr().String() + "/v1/models/m:predict"
	body := `{"instances":` + rowsJSON(ds, 0, 50) + `}`
	var ok, refused, broken atomic.Int32
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for c := 0; c < 16; c++ {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: c%2 == 0}}
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Post(url, "application/json", strings.NewReader(body))
				if err != nil {
					refused.Add(1)
					continue
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				var out map[string]any
				if err != nil || resp.StatusCode != 200 || json.Unmarshal(b, &out) != nil || len(floats(out["predictions"])) != 50 {
					broken.Add(1)
					continue
				}
				ok.Add(1)
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	close(stop)
	wg.Wait()
	if broken.Load() > 0 || ok.Load() == 0 {
		t.Fatalf("%d complete answers, %d broken, %d refused", ok.Load(), broken.Load(), refused.Load())
	}
}

// TestNamedClasses: a model trained on named classes answers with the
// names: V1 predictions and classes, and V2's label output as BYTES.
func TestNamedClasses(t *testing.T) {
	path, m, ds := trainModel(t, t.TempDir(), "named")
	_, ts := newTestServer(t, path, nil)
	want := make([]float64, 6)
	m.PredictBatch(want, ds.X[:6*ds.D], 6)
	code, out := post(t, ts.URL+"/v1/models/m:predict", `{"instances":`+rowsJSON(ds, 0, 6)+`,"parameters":{"probabilities":true}}`)
	if code != 200 {
		t.Fatalf("V1: status %d: %v", code, out)
	}
	preds, _ := out["predictions"].([]any)
	if len(preds) != 6 {
		t.Fatalf("V1 predictions %v", out["predictions"])
	}
	for i, p := range preds {
		if p != m.LabelName(want[i]) {
			t.Errorf("V1 row %d: %v, want %q", i, p, m.LabelName(want[i]))
		}
	}
	if fmt.Sprint(out["classes"]) != "[ant bee cat]" {
		t.Errorf("V1 classes %v", out["classes"])
	}
	body := fmt.Sprintf(`{"inputs":[{"name":"input","shape":[6,%d],"datatype":"FP32","data":%s}]}`, ds.D, rowsJSON(ds, 0, 6))
	code, out = post(t, ts.URL+"/v2/models/m/infer", body)
	if code != 200 {
		t.Fatalf("V2: status %d: %v", code, out)
	}
	o := out["outputs"].([]any)[0].(map[string]any)
	if o["name"] != "label" || o["datatype"] != "BYTES" {
		t.Fatalf("V2 output %v", o)
	}
	for i, p := range o["data"].([]any) {
		if p != m.LabelName(want[i]) {
			t.Errorf("V2 row %d: %v, want %q", i, p, m.LabelName(want[i]))
		}
	}
}

// TestCategoricalColumns: a model trained on data with a text column
// takes raw rows (V1 instances with strings or keyed by column name, V2
// BYTES) and answers as on the rows encoded; encoded rows still work; a row
// of the wrong length, an unknown, missing or repeated column name is a
// 400.
func TestCategoricalColumns(t *testing.T) {
	path, m := categoricalModel(t, t.TempDir())
	_, ts := newTestServer(t, path, nil)
	enc := make([]float32, 3*m.InSize())
	for i, row := range [][]string{{"0.1", "blue"}, {"0.2", "red"}, {"-1", "violet"}} {
		if err := data.EncodeRow(m.Columns, row, enc[i*m.InSize():(i+1)*m.InSize()]); err != nil {
			t.Fatal(err)
		}
	}
	want := make([]float64, 3)
	m.PredictBatch(want, enc, 3)
	check := func(what string, code int, got []float64) {
		t.Helper()
		if code != 200 || !slices.Equal(got, want) {
			t.Errorf("%s: status %d, predictions %v, want %v", what, code, got, want)
		}
	}
	code, out := post(t, ts.URL+"/v1/models/m:predict", `{"instances":[[0.1,"blue"],[0.2,"red"],[-1,"violet"]]}`)
	check("V1 raw", code, floats(out["predictions"]))
	encJSON := "["
	for i := range 3 {
		if i > 0 {
			encJSON += ","
		}
		b, _ := json.Marshal(enc[i*m.InSize() : (i+1)*m.InSize()])
		encJSON += string(b)
	}
	code, out = post(t, ts.URL+"/v1/models/m:predict", `{"instances":`+encJSON+"]}")
	check("V1 encoded", code, floats(out["predictions"]))
	code, out = post(t, ts.URL+"/v2/models/m/infer", `{"inputs":[{"name":"input","shape":[3,2],"datatype":"BYTES","data":["0.1","blue","0.2","red","-1","violet"]}]}`)
	if code == 200 {
		check("V2 BYTES", code, floats(out["outputs"].([]any)[0].(map[string]any)["data"]))
	} else {
		t.Errorf("V2 BYTES: status %d: %v", code, out)
	}
	if code, out = post(t, ts.URL+"/v1/models/m:predict", `{"instances":[[0.1,"blue",3]]}`); code != 400 || !strings.Contains(fmt.Sprint(out["error"]), "instance 0 has 3 values; want 2 column values") {
		t.Errorf("wrong length: status %d, %v", code, out)
	}
	// Instances keyed by column name, in any order, answer as the rows.
	code, out = post(t, ts.URL+"/v1/models/m:predict", `{"instances":[{"size":0.1,"color":"blue"},{"color":"red","size":0.2},{"size":-1,"color":"violet"}]}`)
	check("V1 named", code, floats(out["predictions"]))
	for _, c := range []struct{ body, want string }{
		{`[{"size":0.1,"colour":"blue"}]`, `instance 0: no column is named "colour"`},
		{`[{"size":0.1}]`, `instance 0 has no value for column "color"`},
		{`[{"size":0.1,"color":"red","size":2}]`, `instance 0: the key "size" appears twice in an object`},
		{`[{"size":0.1,"color":"red"},[0.1,"red"]]`, `instance 1 is an array`},
		{`[{"size":"big","color":"red"}]`, `column "size": "big" is not a finite number`},
	} {
		code, out := post(t, ts.URL+"/v1/models/m:predict", `{"instances":`+c.body+`}`)
		if code != 400 || !strings.Contains(fmt.Sprint(out["error"]), c.want) {
			t.Errorf("%s: status %d, %v; want 400 and %q", c.body, code, out, c.want)
		}
	}
}

// TestSparseInstances: V1 instances given as sparse rows predict as the
// same rows given dense, for a binary and a multiclass model; malformed
// sparse rows are refused with 400.
func TestSparseInstances(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"binary", "multiclass"} {
		path, _, ds := trainModel(t, dir, kind)
		_, hs := newTestServer(t, path, nil)
		url := hs.URL + "/v1/models/m:predict"
		var sb strings.Builder
		sb.WriteString(`{"parameters": {"decision": true}, "instances": [`)
		for i := 0; i < 20; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			var idx, val []string
			for j, v := range ds.Row(i) {
				if v != 0 && j%3 != 0 {
					idx = append(idx, fmt.Sprint(j))
					val = append(val, fmt.Sprint(v))
				}
			}
			fmt.Fprintf(&sb, `{"indices": [%s], "values": [%s]}`, strings.Join(idx, ","), strings.Join(val, ","))
		}
		sb.WriteString("]}")
		// The same rows dense, with every third feature 0.
		dense := ds.Subset(seqInts(20))
		for i := 0; i < 20; i++ {
			for j := 0; j < ds.D; j += 3 {
				dense.X[i*ds.D+j] = 0
			}
		}
		code, sparse := post(t, url, sb.String())
		if code != 200 {
			t.Fatalf("%s: sparse instances: %d %v", kind, code, sparse)
		}
		code, want := post(t, url, `{"parameters": {"decision": true}, "instances": `+rowsJSON(dense, 0, 20)+`}`)
		if code != 200 {
			t.Fatalf("%s: dense instances: %d %v", kind, code, want)
		}
		if fmt.Sprint(sparse["predictions"]) != fmt.Sprint(want["predictions"]) {
			t.Fatalf("%s: sparse %v, dense %v", kind, sparse["predictions"], want["predictions"])
		}
		sd, dd := floats(sparse["decision_values"]), floats(want["decision_values"])
		for i := range dd {
			if d := sd[i] - dd[i]; d > 1e-5 || d < -1e-5 {
				t.Fatalf("%s: decision %d: sparse %v, dense %v", kind, i, sd[i], dd[i])
			}
		}
		for _, bad := range []string{
			`{"instances": [{"indices": [1, 0], "values": [1, 2]}]}`,
			`{"instances": [{"indices": [0, 99], "values": [1, 2]}]}`,
			`{"instances": [{"indices": [0], "values": [1, 2]}]}`,
			`{"instances": [{"indices": [0], "values": [1], "extra": 1}]}`,
		} {
			if code, _ := post(t, url, bad); code != 400 {
				t.Fatalf("%s: %s: status %d, want 400", kind, bad, code)
			}
		}
	}
}

func seqInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestRawColumnsDiscoverable: the V2 metadata lists the raw columns (their
// names, types and categories) beside the encoded input; positional rows
// and BYTES tensors may leave out the columns the model does not use.
func TestRawColumnsDiscoverable(t *testing.T) {
	var text strings.Builder
	text.WriteString("id,size,color,label\n")
	colors := []string{"red", "green", "blue"}
	for i := range 300 {
		fmt.Fprintf(&text, "c%04d,%.3f,%s,%d\n", i, float64(i%17)/5, colors[i%3], min(i%3, 1))
	}
	ds, err := data.ReadCSV(strings.NewReader(text.String()), "c.csv", data.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !ds.Columns[0].Dropped {
		t.Fatal("the id column is not left out")
	}
	m, err := nsvm.Fit(context.Background(), ds, &nsvm.FitConfig{Algorithm: "smo", C: 1, Gamma: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.nsvm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, path, nil)
	resp, err := http.Get(ts.URL + "/v2/models/m")
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`{"name":"columns","datatype":"BYTES","shape":[-1,3]}`,
		`"columns":[{"name":"id","type":"left out"},{"name":"size","type":"number"},{"name":"color","type":"category","categories":["blue","green","red"]}]`} {
		if !strings.Contains(string(meta), want) {
			t.Errorf("metadata %s lacks %s", meta, want)
		}
	}
	var answers []string
	for _, body := range []string{
		`{"instances":[["c0001",0.2,"green"],["c0002",0.4,"blue"]]}`,
		`{"instances":[[0.2,"green"],[0.4,"blue"]]}`,
		`{"instances":[{"size":0.2,"color":"green"},{"size":0.4,"color":"blue"}]}`,
	} {
		code, out := post(t, ts.URL+"/v1/models/m:predict", body)
		if code != 200 {
			t.Fatalf("%s: %d %v", body, code, out)
		}
		answers = append(answers, fmt.Sprint(out["predictions"]))
	}
	code, out := post(t, ts.URL+"/v2/models/m/infer", `{"inputs":[{"name":"columns","shape":[2,2],"datatype":"BYTES","data":[0.2,"green","0.4","blue"]}]}`)
	if code != 200 {
		t.Fatalf("V2 BYTES without the left-out column: %d %v", code, out)
	}
	if answers[0] != answers[1] || answers[0] != answers[2] {
		t.Errorf("the same rows answered %q", answers)
	}
}
