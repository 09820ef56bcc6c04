package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// send posts body to url and returns the status, the Retry-After header
// and the body.
func send(t *testing.T, url, body string) (int, string, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Retry-After"), b
}

// errorOf returns the message of a JSON error answer ("" if it is not one).
func errorOf(b []byte) string {
	var out struct{ Error string }
	if json.Unmarshal(b, &out) != nil {
		return ""
	}
	return out.Error
}

// zeros is a JSON row of n zeros (without brackets).
func zeros(n int) string { return strings.TrimSuffix(strings.Repeat("0,", n), ",") }

// TestRepeatedOutputs: a V2 request that names an output many times (a
// 564 KB request repeating "decision" 20 000 times got a 681 MB answer) is a
// 400 that names it; an unknown output is a 400 that quotes its name short.
func TestRepeatedOutputs(t *testing.T) {
	path, _, ds := trainModel(t, t.TempDir(), "binary")
	s, ts := newTestServer(t, path, nil)
	outputs := strings.TrimSuffix(strings.Repeat(`{"name": "decision"}, `, 20000), ", ")
	body := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,20],"datatype":"FP32","data":%s}],"outputs":[%s]}`, rowsJSON(ds, 0, 1), outputs)
	code, _, b := send(t, ts.URL+"/v2/models/m/infer", body)
	if code != 400 || errorOf(b) != `output "decision" asked for twice` {
		t.Fatalf("%d %.200s", code, b)
	}
	for _, c := range []struct {
		name, want string
	}{
		{strings.Repeat("x", 4000), `unknown output "xxxx`},
		{strings.Repeat("x", 100000), `outputs[1].name of 100000 bytes; at most 4096`},
	} {
		body = fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,20],"datatype":"FP32","data":%s}],"outputs":[{"name":"label"},{"name":%q}]}`, rowsJSON(ds, 0, 1), c.name)
		code, _, b = send(t, ts.URL+"/v2/models/m/infer", body)
		if msg := errorOf(b); code != 400 || !strings.HasPrefix(msg, c.want) || len(msg) > 200 {
			t.Fatalf("%d %.300s", code, b)
		}
		if msg := errorOf(b); len(c.name) == 4000 && (!strings.Contains(msg, "(4000 bytes)") || !strings.Contains(msg, "this model has label, decision, probabilities")) {
			t.Fatalf("%s", msg)
		}
	}
	// Each output at most once is fine, and the answer has each once.
	body = fmt.Sprintf(`{"id":"a","inputs":[{"name":"x","shape":[1,20],"datatype":"FP32","data":%s}],"outputs":[{"name":"probabilities"},{"name":"label","parameters":{}},{"name":"decision"}]}`, rowsJSON(ds, 0, 1))
	code, _, b = send(t, ts.URL+"/v2/models/m/infer", body)
	if code != 200 || bytes.Count(b, []byte(`"name":`)) != 3 {
		t.Fatalf("%d %s", code, b)
	}
	if s.mem.inUse() != 0 {
		t.Fatalf("%d bytes still reserved after the requests", s.mem.inUse())
	}
}

// TestMemoryLimit: a request that needs more than MaxMemory alone gets 413;
// one that finds the memory held by others waits for it (MemoryWait) or,
// when it is not released in time, gets 429 with Retry-After; every
// answer is a JSON error; the memory comes back when requests end.
func TestMemoryLimit(t *testing.T) {
	path, m, ds := trainModel(t, t.TempDir(), "binary")
	s, ts := newTestServer(t, path, func(c *Config) { c.MaxMemory = 1 << 20; c.MemoryWait = 50 * time.Millisecond })
	url := ts.URL + "/v1/models/m:predict"
	small := `{"instances":` + rowsJSON(ds, 0, 10) + `}`
	// Over the limit alone: a body of 1.5 MiB.
	big := `{"instances":[[` + strings.Repeat("0,", 19) + "0]" + strings.Repeat(",["+zeros(20)+"]", 1<<20*3/2/42) + `]}`
	code, _, b := send(t, url, big)
	if code != 413 || !strings.Contains(errorOf(b), "memory limit is 1048576 bytes") {
		t.Fatalf("over the limit: %d %s", code, b)
	}
	// Over what the rows and the answer need: 20 000 rows of "0," take
	// 800 kB of body, 320 kB decoded, more to predict and answer.
	rows := `{"instances":[[` + zeros(20) + "]" + strings.Repeat(",["+zeros(20)+"]", 19999) + `]}`
	code, _, b = send(t, url, rows)
	if code != 413 || !strings.Contains(errorOf(b), "memory limit") {
		t.Fatalf("rows over the limit: %d %.300s", code, b)
	}
	// Memory held by others: 429 after the wait.
	if err := s.mem.acquire(context.Background(), 1<<20-1000, 0, false); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, retry, b := send(t, url, small)
	if code != 429 || retry != "1" || !strings.Contains(errorOf(b), "retry later") || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("busy: %d %q %s after %v", code, retry, b, time.Since(start))
	}
	// Released while the request waits: it is answered.
	s.cfg.MemoryWait = 5 * time.Second
	go func() { time.Sleep(100 * time.Millisecond); s.mem.release(1<<20 - 1000) }()
	code, _, b = send(t, url, small)
	want := m.Predictions(ds.X[:10*ds.D], 10, false)
	var out struct{ Predictions []float64 }
	if json.Unmarshal(b, &out); code != 200 || !slices.Equal(out.Predictions, want.Labels) {
		t.Fatalf("after the wait: %d %s", code, b)
	}
	if s.mem.inUse() != 0 {
		t.Fatalf("%d bytes still reserved", s.mem.inUse())
	}
	// The metrics show the limit, the memory in flight and the errors.
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, w := range []string{"nsvm_memory_limit_bytes 1.048576e+06", "nsvm_memory_in_flight_bytes 0", `nsvm_request_errors_total{kind="memory"} 3`} {
		if !bytes.Contains(mb, []byte(w)) {
			t.Errorf("/metrics lacks %s", w)
		}
	}
}

// TestConcurrentBodies: 40 concurrent bodies of 1 MB against a budget of
// 12 MiB (the scaled-down case of 40 bodies of 60 MB, which reached 7.2 GB
// and were all dropped without an answer): each gets an answer, 200 or
// 429; the reserved bytes never pass the limit; they are all given back;
// no goroutine is left behind.
func TestConcurrentBodies(t *testing.T) {
	path, _, ds := trainModel(t, t.TempDir(), "nsvm")
	const limit = 12 << 20
	s, ts := newTestServer(t, path, func(c *Config) { c.MaxMemory = limit; c.MemoryWait = 20 * time.Millisecond })
	before := runtime.NumGoroutine()
	body := `{"instances":` + manyRows(ds, 5000) + `}`
	if len(body) < 1e6 {
		t.Fatalf("a body of %d bytes", len(body))
	}
	codes := make(chan int, 40)
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			resp, err := http.Post(ts.URL+"/v1/models/m:predict", "application/json", strings.NewReader(body))
			if err != nil {
				codes <- 0
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 && errorOf(b) == "" {
				codes <- -resp.StatusCode
				return
			}
			codes <- resp.StatusCode
		})
	}
	wg.Wait()
	close(codes)
	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	if count[200]+count[429] != 40 || count[200] == 0 {
		t.Fatalf("answers by status: %v (want 200s and 429s only)", count)
	}
	if s.mem.most > limit || s.mem.most < 1e6 || s.mem.inUse() != 0 {
		t.Fatalf("most reserved %d (limit %d), in use after %d", s.mem.most, limit, s.mem.inUse())
	}
	t.Logf("answers %v; most reserved %d of %d bytes", count, s.mem.most, limit)
	ts.CloseClientConnections()
	http.DefaultClient.CloseIdleConnections()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before+2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before the requests", runtime.NumGoroutine(), before)
		}
	}
}

// discardWriter is a ResponseWriter that keeps nothing of the answer.
type discardWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }

// TestAccounting: what a request allocates, measured by the runtime, stays
// within what it reserved (plus a fixed allowance), for dense, sparse and
// raw-column instances, V1 and V2, at 5 000 rows; and the answers fit the
// bound they were built in.
func TestAccounting(t *testing.T) {
	dir := t.TempDir()
	path, _, ds := trainModel(t, dir, "multiclass")
	s, _ := newTestServer(t, path, nil)
	colPath, _ := categoricalModel(t, dir)
	sc, _ := newTestServer(t, colPath, nil)
	const n = 5000
	dense := manyRows(ds, n)
	var sparse, raw, rawBytes strings.Builder
	for i := range n {
		if i > 0 {
			sparse.WriteByte(',')
			raw.WriteByte(',')
			rawBytes.WriteByte(',')
		}
		color := []string{"red", "green", "blue"}[i%3]
		fmt.Fprintf(&sparse, `{"indices":[1,5,19],"values":[%g,-1.5,0.25]}`, float64(i%7)/3)
		fmt.Fprintf(&raw, `[%g,"%s"]`, float64(i%7)/3, color)
		fmt.Fprintf(&rawBytes, `"%g","%s"`, float64(i%7)/3, color)
	}
	flat := strings.NewReplacer("[", "", "]", "").Replace(dense)
	for _, c := range []struct {
		name string
		s    *Server
		url  string
		body string
	}{
		{"v1 dense", s, "/v1/models/m:predict", `{"instances":` + dense + `,"parameters":{"decision":true,"probabilities":true}}`},
		{"v1 sparse", s, "/v1/models/m:predict", `{"instances":[` + sparse.String() + `],"parameters":{"decision":true}}`},
		{"v1 raw columns", sc, "/v1/models/m:predict", `{"instances":[` + raw.String() + `]}`},
		{"v2 FP64", s, "/v2/models/m/infer", fmt.Sprintf(`{"id":"x","inputs":[{"name":"x","shape":[%d,20],"datatype":"FP64","data":[%s]}],"outputs":[{"name":"label"},{"name":"decision"},{"name":"probabilities"}]}`, n, flat)},
		{"v2 BYTES", sc, "/v2/models/m/infer", fmt.Sprintf(`{"inputs":[{"name":"x","shape":[%d,2],"datatype":"BYTES","data":[%s]}]}`, n, rawBytes.String())},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := []byte(c.body)
			h := c.s.Handler()
			serveOnce := func() *discardWriter {
				w := &discardWriter{h: http.Header{}}
				req := httptest.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
				h.ServeHTTP(w, req)
				return w
			}
			if w := serveOnce(); w.code != 200 {
				t.Fatalf("status %d", w.code)
			}
			c.s.mem.most = 0
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			w := serveOnce()
			runtime.ReadMemStats(&m1)
			alloc, reserved := int64(m1.TotalAlloc-m0.TotalAlloc), c.s.mem.most
			t.Logf("body %d bytes, answer %d: allocated %d, reserved %d", len(body), w.n, alloc, reserved)
			if w.code != 200 || alloc > reserved+256<<10 {
				t.Fatalf("status %d: allocated %d bytes, reserved %d", w.code, alloc, reserved)
			}
		})
	}
}

// manyRows is a JSON array of n rows of ds, taken in turn.
func manyRows(ds *data.Dataset, n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		r := rowsJSON(ds, i%ds.N, i%ds.N+1)
		b.WriteString(r[1 : len(r)-1])
	}
	b.WriteByte(']')
	return b.String()
}

// categoricalModel trains a model on a CSV with a number and a text column
// (red, green or blue) and saves it.
func categoricalModel(t testing.TB, dir string) (string, *nsvm.Model) {
	t.Helper()
	var text strings.Builder
	text.WriteString("size,color,label\n")
	colors := []string{"red", "green", "blue"}
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range 150 {
		fmt.Fprintf(&text, "%.3f,%s,%d\n", rng.NormFloat64(), colors[i%3], min(i%3, 1))
	}
	ds, err := data.ReadCSV(strings.NewReader(text.String()), "c.csv", data.CSVOptions{LabelCol: data.LabelAuto})
	if err != nil {
		t.Fatal(err)
	}
	m, err := nsvm.Fit(context.Background(), ds, &nsvm.FitConfig{Algorithm: "smo", C: 1, Gamma: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.nsvm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path, m
}

// TestAnswerBounds: the answers of every model kind, every V1 parameter
// and every set of V2 outputs fit the bound they are built in.
func TestAnswerBounds(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []string{"binary", "multiclass", "named", "regression"} {
		path, m, ds := trainModel(t, dir, kind)
		s, _ := newTestServer(t, path, func(c *Config) { c.Name = strings.Repeat("<", 50) })
		st := s.model.Load()
		for _, n := range []int{1, 7, 100} {
			p := m.Predictions(ds.X[:n*ds.D], n, m.Platt != nil)
			// Extreme values print longest.
			for i := range p.Decisions {
				p.Decisions[i] = -2.2250738585072014e-308
			}
			for i := range p.Probabilities {
				p.Probabilities[i] = 1.2345678901234567e-300
			}
			if m.Regression() {
				for i := range p.Labels {
					p.Labels[i] = -1.7976931348623157e+308
				}
			}
			for _, par := range []v1Parameters{{}, {Decision: true}, {Decision: true, Probabilities: m.Platt != nil}} {
				if !par.Probabilities {
					p.Probabilities = nil
				}
				c := st.v1Cost(n, par)
				if b := st.v1Response(make([]byte, 0, c), p, par, n); int64(len(b)) > c || !json.Valid(b) {
					t.Errorf("%s V1 %+v: %d bytes, bound %d", kind, par, len(b), c)
				}
			}
			names := s.outputNames(st)
			for k := 1; k <= len(names); k++ {
				want := names[:k]
				id := strings.Repeat("\x01", 30)
				c := s.v2Cost(st, n, id, want)
				if b := s.v2Response(make([]byte, 0, c), st, p, id, want); int64(len(b)) > c || !json.Valid(b) {
					t.Errorf("%s V2 %v: %d bytes, bound %d", kind, want, len(b), c)
				}
			}
		}
	}
}

// TestUnsizedBody: a body without Content-Length is read as far as the
// budget allows and no further: 413 for one past the whole limit, 429 while
// others hold the memory; a small one is answered.
func TestUnsizedBody(t *testing.T) {
	path, _, ds := trainModel(t, t.TempDir(), "binary")
	s, ts := newTestServer(t, path, func(c *Config) { c.MaxMemory = 1 << 20; c.MemoryWait = -1 })
	huge := strings.NewReader(`{"instances":[` + strings.Repeat("["+zeros(20)+"],", 1<<17))
	var read countingReader
	read.r = huge
	req := httptest.NewRequest(http.MethodPost, "/v1/models/m:predict", &read)
	req.ContentLength = -1
	res := &reservation{b: s.mem, ctx: context.Background(), wait: -1}
	_, herr := s.readBody(req, res)
	if herr == nil || herr.code != 413 || read.n > 1<<20 {
		t.Fatalf("%v; read %d bytes", herr, read.n)
	}
	res.done()
	// Through HTTP: an unsized small body is answered.
	r, w := io.Pipe()
	go func() { io.WriteString(w, `{"instances":`+rowsJSON(ds, 0, 3)+`}`); w.Close() }()
	resp, err := http.Post(ts.URL+"/v1/models/m:predict", "application/json", r)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	// Memory held by others: 429 before the budget is spent.
	if err := s.mem.acquire(context.Background(), 1<<20-100<<10, 0, false); err != nil {
		t.Fatal(err)
	}
	read = countingReader{r: strings.NewReader(`{"instances":[` + strings.Repeat("["+zeros(20)+"],", 1<<15))}
	req = httptest.NewRequest(http.MethodPost, "/v1/models/m:predict", &read)
	req.ContentLength = -1
	res = &reservation{b: s.mem, ctx: context.Background(), wait: -1}
	_, herr = s.readBody(req, res)
	if herr == nil || herr.code != 429 || read.n > 100<<10 {
		t.Fatalf("%v; read %d bytes", herr, read.n)
	}
	res.done()
	s.mem.release(1<<20 - 100<<10)
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestV2Datatypes: each declared datatype's range and integrality are
// enforced with a 400 that names the index and the value; valid data of
// every type predict as the same float32 rows do; an unknown datatype is
// a 400.
func TestV2Datatypes(t *testing.T) {
	path, m, _ := trainModel(t, t.TempDir(), "binary")
	_, ts := newTestServer(t, path, nil)
	url := ts.URL + "/v2/models/m/infer"
	req := func(dtype, first string) string {
		return fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,20],"datatype":%q,"data":[1,%s,%s]}]}`, dtype, first, zeros(18))
	}
	for _, c := range []struct {
		dtype, value, err string
	}{
		{"INT8", "300", `data[1]: "300" is outside INT8's range -128..127`},
		{"INT8", "-129", `outside INT8's range`},
		{"INT8", "1.5", `data[1]: "1.5" is not an integer (INT8)`},
		{"UINT8", "-5", `data[1]: "-5" is outside UINT8's range 0..255`},
		{"UINT8", "256", `outside UINT8's range`},
		{"INT16", "32768", `outside INT16's range -32768..32767`},
		{"UINT16", "65536", `outside UINT16's range 0..65535`},
		{"INT32", "2147483648", `outside INT32's range`},
		{"UINT32", "4294967296", `outside UINT32's range`},
		{"INT64", "9223372036854775808", `outside INT64's range -9223372036854775808..9223372036854775807`},
		{"INT64", "1e19", `outside INT64's range`},
		{"UINT64", "18446744073709551616", `outside UINT64's range 0..18446744073709551615`},
		{"UINT64", "-1", `outside UINT64's range`},
		{"FP16", "65536", `outside FP16's range (±65504)`},
		{"FP32", "1e39", `outside FP32's range`},
		{"FP64", "1e300", `outside float32's range (the model's inputs are float32)`},
		{"FP64", "1e309", `outside FP64's range`},
		{"FP32", "null", `data[1]: null is not a number`},
		{"FP32", `"7"`, `data[1]: a string is not a number`},
		{"BOOL", "1", `data[0]: "1" is not true or false (BOOL)`},
		{"FLOAT", "1", `unknown input datatype "FLOAT"`},
		{"BYTES", "1", `BYTES is for models with categorical columns`},
	} {
		code, _, b := send(t, url, req(c.dtype, c.value))
		if code != 400 || !strings.Contains(errorOf(b), c.err) {
			t.Errorf("%s %s: %d %s; want 400 and %q", c.dtype, c.value, code, b, c.err)
		}
	}
	x := make([]float32, 20)
	x[0] = 1
	for _, c := range []struct {
		dtype, value string
		v            float32
	}{
		{"INT8", "-128", -128}, {"INT8", "127", 127}, {"INT8", "3.0", 3}, {"INT8", "-0", 0}, {"UINT8", "255", 255},
		{"INT16", "-32768", -32768}, {"UINT16", "65535", 65535}, {"INT32", "-2147483648", -2147483648},
		{"UINT32", "4294967295", 4294967295}, {"INT64", "-9223372036854775808", -9223372036854775808},
		{"UINT64", "18446744073709551615", 18446744073709551615}, {"UINT64", "1e19", 1e19},
		{"FP16", "-65504", -65504}, {"FP32", "3.4e38", 3.4e38}, {"FP64", "0.1", 0.1}, {"FP64", "1e-320", 0},
	} {
		x[1] = c.v
		want := m.Predictions(x, 1, false)
		code, _, b := send(t, url, req(c.dtype, c.value))
		var out struct{ Outputs []struct{ Data []float64 } }
		if json.Unmarshal(b, &out); code != 200 || len(out.Outputs) != 1 || !slices.Equal(out.Outputs[0].Data, want.Labels) {
			t.Errorf("%s %s: %d %s; want labels %v", c.dtype, c.value, code, b, want.Labels)
		}
	}
	// BOOL: true and false are 1 and 0.
	body := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,20],"datatype":"BOOL","data":[true,false,%s]}],"outputs":[{"name":"decision"}]}`,
		strings.TrimSuffix(strings.Repeat("false,", 18), ","))
	x[1] = 0
	code, _, b := send(t, url, body)
	var out struct{ Outputs []struct{ Data []float64 } }
	if json.Unmarshal(b, &out); code != 200 || !slices.Equal(out.Outputs[0].Data, m.Predictions(x, 1, false).Decisions) {
		t.Errorf("BOOL: %d %s", code, b)
	}
	// BYTES takes numbers as their text, and refuses anything else (null,
	// true) with its index.
	cpath, _ := categoricalModel(t, t.TempDir())
	_, cts := newTestServer(t, cpath, nil)
	code, _, withNumber := send(t, cts.URL+"/v2/models/m/infer", `{"inputs":[{"name":"x","shape":[2,2],"datatype":"BYTES","data":["1","red",2,"blue"]}]}`)
	_, _, withText := send(t, cts.URL+"/v2/models/m/infer", `{"inputs":[{"name":"x","shape":[2,2],"datatype":"BYTES","data":["1","red","2","blue"]}]}`)
	if code != 200 || !bytes.Equal(withNumber, withText) {
		t.Errorf("BYTES with a number: %d %s, with its text %s", code, withNumber, withText)
	}
	code, _, b = send(t, cts.URL+"/v2/models/m/infer", `{"inputs":[{"name":"x","shape":[2,2],"datatype":"BYTES","data":["1","red",null,"blue"]}]}`)
	if code != 400 || !strings.Contains(errorOf(b), `data[2]: want a number or a string, got null`) {
		t.Errorf("BYTES with null: %d %s", code, b)
	}
	code, _, b = send(t, cts.URL+"/v2/models/m/infer", `{"inputs":[{"name":"x","shape":[2,2],"datatype":"BYTES","data":["1","red","2","blue"]}]}`)
	if code != 200 {
		t.Errorf("BYTES: %d %s", code, b)
	}
}

// TestModelVersions: V2 URLs with a version answer only for the version the
// server serves ("1" unless Config.Version says otherwise); others are 404.
func TestModelVersions(t *testing.T) {
	path, _, ds := trainModel(t, t.TempDir(), "binary")
	infer := fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,20],"datatype":"FP32","data":%s}]}`, rowsJSON(ds, 0, 1))
	for _, version := range []string{"", "2024-06"} {
		_, ts := newTestServer(t, path, func(c *Config) { c.Version = version })
		v := version
		if v == "" {
			v = "1"
		}
		get := func(path string) (int, string) {
			resp, err := http.Get(ts.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return resp.StatusCode, string(b)
		}
		for _, c := range []struct {
			path string
			code int
			want string
		}{
			{"/v2/models/m", 200, `"versions":["` + v + `"]`},
			{"/v2/models/m/versions/" + v, 200, `"inputs"`},
			{"/v2/models/m/versions/" + v + "/ready", 200, `"ready":true`},
			{"/v2/models/m/versions/99", 404, `model "m" has no version "99" (this server serves version "` + v + `")`},
			{"/v2/models/m/versions/99/ready", 404, `no version "99"`},
		} {
			code, b := get(c.path)
			if code != 200 {
				b = errorOf([]byte(b))
			}
			if code != c.code || !strings.Contains(b, c.want) {
				t.Errorf("GET %s: %d %s; want %d and %s", c.path, code, b, c.code, c.want)
			}
		}
		if code, _, b := send(t, ts.URL+"/v2/models/m/versions/"+v+"/infer", infer); code != 200 || !strings.Contains(string(b), `"model_version":"`+v+`"`) {
			t.Errorf("infer version %s: %d %s", v, code, b)
		}
		if code, _, b := send(t, ts.URL+"/v2/models/m/versions/99/infer", infer); code != 404 || !strings.Contains(errorOf(b), `no version "99"`) {
			t.Errorf("infer version 99: %d %s", code, b)
		}
	}
	if _, err := New(Config{ModelPath: path, Version: "a/b"}); err == nil {
		t.Error("a version with a slash was accepted")
	}
}

// TestNullInstances: null, numbers, strings and misplaced arrays where an
// instance is are 400s that give the instance's index; a null sparse row
// predicted as a row of zeros before.
func TestNullInstances(t *testing.T) {
	path, _, ds := trainModel(t, t.TempDir(), "binary")
	_, ts := newTestServer(t, path, nil)
	row := rowsJSON(ds, 0, 1)
	row = row[1 : len(row)-1]
	sp := `{"indices":[0,3],"values":[1,2]}`
	for _, c := range []struct{ instances, want string }{
		{`[` + sp + `,null]`, `instance 1 is null; want a sparse row`},
		{`[` + sp + `,` + sp + `,5]`, `instance 2 is "5"; want a sparse row`},
		{`[` + sp + `,"x"]`, `instance 1 is a string; want a sparse row`},
		{`[` + sp + `,[1,2]]`, `instance 1 is an array; want a sparse row`},
		{`[` + sp + `,{}]`, `instance 1: want a sparse row`},
		{`[` + sp + `,{"indices":[0],"values":[null]}]`, `instance 1: values: value 0: null is not a number`},
		{`[null]`, `instance 0 is null; want an array of numbers`},
		{`[` + row + `,null]`, `instance 1 is null; want an array of numbers`},
		{`[` + row + `,` + row + `,"x"]`, `instance 2 is a string; want an array of numbers`},
		{`[[` + row + `],[null]]`, `instance 1: null where an array was`},
		{`[null,` + row + `]`, `instance 0 is null`},
		{`[true]`, `instance 0 is true`},
		{`[1,null]`, `value 1: null is not a number`},
	} {
		code, _, b := send(t, ts.URL+"/v1/models/m:predict", `{"instances":`+c.instances+`}`)
		if code != 400 || !strings.Contains(errorOf(b), c.want) {
			t.Errorf("%.60s: %d %s; want 400 and %q", c.instances, code, b, c.want)
		}
	}
}

// TestShortErrors: error answers quote at most about 80 characters of an
// offending value, whatever its size (a 100 KB value was echoed whole).
func TestShortErrors(t *testing.T) {
	dir := t.TempDir()
	path, _, _ := trainModel(t, dir, "binary")
	_, ts := newTestServer(t, path, nil)
	cpath, _ := categoricalModel(t, dir)
	_, cts := newTestServer(t, cpath, nil)
	long := strings.Repeat("7", 100000)
	longS := strings.Repeat("q", 100000)
	v2 := func(dtype, data string) string {
		return fmt.Sprintf(`{"inputs":[{"name":"x","shape":[1,20],"datatype":%q,"data":[%s]}]}`, dtype, data)
	}
	for _, c := range []struct {
		name, url, method, body string
	}{
		{"long number", "/v1/models/m:predict", "POST", `{"instances":[[` + long + `]]}`},
		{"long bad number", "/v1/models/m:predict", "POST", `{"instances":[[1,-` + long + `x]]}`},
		{"long token", "/v1/models/m:predict", "POST", `{"instances":[[1,` + longS + `]]}`},
		{"long JSON number", "/v1/models/m:predict", "POST", `{"instances":[[1]],"x":0` + long + `}`},
		{"long key", "/v1/models/m:predict", "POST", `{"` + longS + `" 1}`},
		{"long sparse key", "/v1/models/m:predict", "POST", `{"instances":[{"` + longS + `":1}]}`},
		{"long index", "/v1/models/m:predict", "POST", `{"instances":[{"indices":[` + long + `],"values":[1]}]}`},
		{"long int", "/v2/models/m/infer", "POST", v2("INT8", long)},
		{"long float", "/v2/models/m/infer", "POST", v2("FP64", long)},
		{"long datatype", "/v2/models/m/infer", "POST", v2(longS[:4000], "1")},
		{"long header string", "/v2/models/m/infer", "POST", `{"id":"` + longS + `"}`},
		{"long shape", "/v2/models/m/infer", "POST", `{"inputs":[{"name":"x","shape":"` + longS + `","datatype":"FP32","data":[1]}]}`},
		{"long model", "/v1/models/" + longS[:50000] + ":predict", "POST", `{}`},
		{"long path", "/v2/models/m/" + longS[:50000], "GET", ""},
		{"long version", "/v2/models/m/versions/" + longS[:50000], "GET", ""},
		{"long category", "/v1/models/m:predict", "POST", `{"instances":[["` + longS + `","red"]]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := ts.URL
			if c.name == "long category" {
				base = cts.URL
			}
			req, _ := http.NewRequest(c.method, base+c.url, strings.NewReader(c.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			msg := errorOf(b)
			if resp.StatusCode/100 != 4 || msg == "" || len(b) > 400 || longestRun(msg) > 80 {
				t.Fatalf("%d, %d bytes: %.400s", resp.StatusCode, len(b), b)
			}
			t.Logf("%d %s", resp.StatusCode, msg)
		})
	}
}

// longestRun is the length of the longest run of one repeated byte in s.
func longestRun(s string) int {
	most, run := 0, 0
	for i := range len(s) {
		if i > 0 && s[i] == s[i-1] {
			run++
		} else {
			run = 1
		}
		most = max(most, run)
	}
	return most
}

// TestReleaseMemory: after a burst past ReleaseAfter, the server returns
// the freed memory to the OS once no request holds memory, at most every
// freeEvery (2 s; here 300 ms); the heap it keeps idle afterwards is small.
func TestReleaseMemory(t *testing.T) {
	path, _, ds := trainModel(t, t.TempDir(), "binary")
	s, ts := newTestServer(t, path, func(c *Config) { c.ReleaseAfter = 1 << 20 })
	s.freeEvery = 300 * time.Millisecond
	body := `{"instances":` + manyRows(ds, 5000) + `}`
	if code, _, b := send(t, ts.URL+"/v1/models/m:predict", body); code != 200 {
		t.Fatalf("%d %.200s", code, b)
	}
	waitReleases(t, s, 1)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if idle := ms.HeapIdle - ms.HeapReleased; idle > 8<<20 {
		t.Errorf("%d bytes of heap idle and not returned after the release", idle)
	}
	// A second burst right away: released once freeEvery after the first.
	start := time.Now()
	if code, _, _ := send(t, ts.URL+"/v1/models/m:predict", body); code != 200 {
		t.Fatal(code)
	}
	waitReleases(t, s, 2)
	// The first release was seen at most a poll before start; without the
	// rate limit the second would follow the burst at once.
	if d := time.Since(start); d < s.freeEvery/3 {
		t.Errorf("second release after %v, want about %v", d, s.freeEvery)
	}
	// A small request does not trigger one.
	if code, _, _ := send(t, ts.URL+"/v1/models/m:predict", `{"instances":`+rowsJSON(ds, 0, 1)+`}`); code != 200 {
		t.Fatal(code)
	}
	time.Sleep(2 * s.freeEvery)
	if got := counterValue(t, s, "nsvm_memory_releases_total"); got != 2 {
		t.Errorf("%v releases after a small request, want 2", got)
	}
}

func waitReleases(t *testing.T, s *Server, n float64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); counterValue(t, s, "nsvm_memory_releases_total") < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no release %v after the burst", n)
		}
	}
}

func counterValue(t *testing.T, s *Server, name string) float64 {
	t.Helper()
	mfs, err := s.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestHugeTokensNotCopied: a number, index or raw value of 1 MB is refused
// without being copied (strconv's errors copy their input, and so did the
// messages that quoted it).
func TestHugeTokensNotCopied(t *testing.T) {
	_, m := categoricalModel(t, t.TempDir())
	huge := strings.Repeat("7", 1<<20)
	number, int64s := []byte("[["+huge+"]]"), []byte("["+huge+"]")
	index := []byte(`[{"indices":[` + huge + `],"values":[1]}]`)
	rawString, rawNumber := []byte(`[["`+huge+`","red"]]`), []byte(`[[`+huge+`,"red"]]`)
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"number", func() error { _, _, err := parseTensor(number, v1Numbers, anyAlloc); return err }},
		{"INT64", func() error { _, _, err := parseTensor(int64s, dtypes["INT64"], anyAlloc); return err }},
		{"index", func() error { _, err := parseSparse(index, 20, anyAlloc); return err }},
		{"raw value", func() error { _, _, err := rawRows(rawString, m.Columns, 0, 0, false, anyAlloc); return err }},
		{"raw number", func() error { _, _, err := rawRows(rawNumber, m.Columns, 0, 0, false, anyAlloc); return err }},
	} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		err := c.f()
		runtime.ReadMemStats(&m1)
		if alloc := m1.TotalAlloc - m0.TotalAlloc; err == nil || alloc > 64<<10 || len(clipMessage(err.Error())) > 200 {
			t.Errorf("%s: %.200v; allocated %d bytes", c.name, err, alloc)
		}
	}
}

// TestStalledBodies: connections that declare large bodies and then send
// nothing, or a few bytes now and then, hold the memory of what they sent
// and no more: an ordinary request beside 17 of them is answered at once,
// with the default budget and a small one; a body that sends nothing for
// bodyStall ends with 408.
func TestStalledBodies(t *testing.T) {
	defer func(d time.Duration) { bodyStall = d }(bodyStall)
	bodyStall = time.Second
	path, _, ds := trainModel(t, t.TempDir(), "binary")
	for _, limit := range []int64{0, 1 << 20} {
		s, ts := newTestServer(t, path, func(c *Config) {
			if limit > 0 {
				c.MaxMemory = limit
			}
		})
		addr := ts.Listener.Addr().String()
		var conns []net.Conn
		stop := make(chan struct{})
		for i := range 17 {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			fmt.Fprintf(c, "POST /v1/models/m:predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"instances\":[", 63<<20)
			if i%2 == 0 {
				// A trickle: a few bytes every 300 ms, never a stall.
				go func() {
					for {
						select {
						case <-stop:
							return
						case <-time.After(300 * time.Millisecond):
							if _, err := c.Write([]byte("[0,0],")); err != nil {
								return
							}
						}
					}
				}()
			}
		}
		time.Sleep(200 * time.Millisecond)
		start := time.Now()
		resp, err := http.Post(ts.URL+"/v1/models/m:predict", "application/json", strings.NewReader(`{"instances":`+rowsJSON(ds, 0, 3)+`}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if took := time.Since(start); resp.StatusCode != 200 || took > 3*time.Second {
			t.Fatalf("limit %d: an ordinary request beside 17 stalled bodies: %d in %v: %s", limit, resp.StatusCode, took, b)
		}
		if held := s.mem.inUse(); held > 17*(requestBase+64<<10) {
			t.Errorf("limit %d: the stalled bodies hold %d bytes", limit, held)
		}
		// The silent ones are cut after bodyStall.
		for i := 1; i < len(conns); i += 2 {
			conns[i].SetReadDeadline(time.Now().Add(5 * time.Second))
			line, err := bufio.NewReader(conns[i]).ReadString('\n')
			if err != nil || !strings.Contains(line, "408") {
				t.Errorf("limit %d: a silent body: %q, %v", limit, line, err)
			}
		}
		close(stop)
		for _, c := range conns {
			c.Close()
		}
	}
}

// TestDuplicateKeys: a key twice in one object of a request is a 400
// naming it, at the top level and inside tensors, never answered from one
// of the two.
func TestDuplicateKeys(t *testing.T) {
	path, _, ds := trainModel(t, t.TempDir(), "binary")
	_, ts := newTestServer(t, path, nil)
	rows := rowsJSON(ds, 0, 2)
	flat := strings.NewReplacer("[", "", "]", "").Replace(rows)
	for _, c := range []struct{ url, body, want string }{
		{"/v1/models/m:predict", `{"instances":` + rows + `,"instances":` + rows + `}`, `the key \"instances\" appears twice`},
		{"/v1/models/m:predict", `{"instances":` + rows + `,"inputs":` + rows + `}`, `both \"instances\" and \"inputs\"`},
		{"/v1/models/m:predict", `{"instances":` + rows + `,"parameters":{},"parameters":{"decision":true}}`, `the key \"parameters\" appears twice`},
		{"/v2/models/m/infer", `{"id":"a","id":"b","inputs":[{"name":"x","shape":[2,20],"datatype":"FP32","data":[` + flat + `]}]}`, `the key \"id\" appears twice`},
		{"/v2/models/m/infer", `{"inputs":[{"name":"x","shape":[2,20],"shape":[1,40],"datatype":"FP32","data":[` + flat + `]}]}`, `the key \"shape\" appears twice`},
	} {
		resp, err := http.Post(ts.URL+c.url, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(b), c.want) {
			t.Errorf("%.60s…: %d %s; want 400 with %s", c.body, resp.StatusCode, b, c.want)
		}
	}
}
