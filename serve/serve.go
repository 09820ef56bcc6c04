// Package serve is an HTTP inference server for nsvm models. It speaks
// KServe's V1 protocol and the Open Inference Protocol (KServe V2), so that
// a model runs behind KServe as a custom predictor or behind any load
// balancer, and exports Prometheus metrics.
//
// # Endpoints
//
//	GET  /v1/models                      {"models": [name]}
//	GET  /v1/models/{name}               {"name": name, "ready": true}
//	POST /v1/models/{name}:predict       {"instances": [[x…], …]} → {"predictions": [...]}
//	GET  /v2                             server metadata
//	GET  /v2/health/live, /v2/health/ready
//	GET  /v2/models/{name}               model metadata (inputs, outputs)
//	GET  /v2/models/{name}/ready
//	POST /v2/models/{name}/infer         {"inputs": [{"name", "shape", "datatype", "data"}]}
//	GET  /metrics                        Prometheus text format
//
// V1 instances are rows of numbers, or nested arrays of a row's input
// shape (e.g. [1][28][28] per image); the predictions are class labels, or
// values for a regressor. "parameters": {"decision": true, "probabilities":
// true} adds "decision_values" (per head for multiclass models) and
// "probabilities" (calibrated models; "classes" names the columns). V2
// takes one input tensor of shape [n, …] (FP32, FP64 or integer data, flat
// or nested); its outputs are "label" (classifiers) or "value"
// (regressors), and on request ("outputs": [{"name": …}]) "decision" and
// "probabilities". A model trained on data with categorical columns also
// takes raw rows, one value per column, numbers or strings (V1 instances
// with a string in them; V2 a BYTES tensor of shape [n, columns]), encoded
// as the training data were. A model trained on named classes answers with the
// names: V1 "predictions" and "classes" are strings, V2's "label" output
// is BYTES.
//
// # Behaviour
//
// Concurrent requests are gathered into one forward pass (see batcher):
// answers are bit for bit those of unbatched calls. Bad requests get a 4xx
// answer with a JSON body {"error": "…"} and never stop the server;
// requests beyond MaxInFlight get 429. Reload swaps the model atomically:
// the old model serves until the new file has loaded and passed the checks
// (same input shape), and a file that fails them is refused while the old
// model keeps serving. Run shuts down gracefully when its context ends:
// it stops accepting connections and finishes the requests in flight.
package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/nsvm-go/nsvm"
)

// Config configures a Server. Zero values are the documented defaults.
type Config struct {
	// ModelPath is the model file (required).
	ModelPath string
	// Name is the model's name in the URLs (default: the file name without
	// its extension).
	Name string
	// Addr is the listening address (default 127.0.0.1:8080).
	Addr string
	// MaxBatch bounds the rows of one forward pass (default 1024);
	// MaxDelay is how long a worker waits for more requests when its batch
	// is not full (default 0: never; a lone request runs at once). Workers
	// is the number of forward passes at once (default GOMAXPROCS).
	MaxBatch int
	MaxDelay time.Duration
	Workers  int
	// MaxBodyBytes bounds a request body (default 64 MiB; 413 past it) and
	// MaxInstances the rows of one request (default 100000; 400 past it).
	MaxBodyBytes int64
	MaxInstances int
	// MaxInFlight bounds the requests being handled at once (default 4096;
	// 429 past it).
	MaxInFlight int
	// Server timeouts (defaults: read 30 s, write 60 s, idle 120 s).
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// Watch, if > 0, polls the model file at this interval and reloads it
	// when its modification time or size changes.
	Watch time.Duration
	// AccessLog logs one line per request.
	AccessLog bool
	// Logger receives the structured log (default: slog.Default()).
	Logger *slog.Logger
}

func (c *Config) defaults() {
	if c.Name == "" {
		base := filepath.Base(c.ModelPath)
		c.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if c.Addr == "" {
		c.Addr = "127.0.0.1:8080"
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = 1024
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 64 << 20
	}
	if c.MaxInstances <= 0 {
		c.MaxInstances = 100000
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 4096
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = 30 * time.Second
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 60 * time.Second
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 120 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Validate reports whether the configuration is usable.
func (c Config) Validate() error {
	if c.ModelPath == "" {
		return errors.New("serve: no model file")
	}
	if c.Name != "" && (strings.ContainsAny(c.Name, "/:?# ") || c.Name == "." || c.Name == "..") {
		return fmt.Errorf("serve: model name %q cannot appear in a URL path segment", c.Name)
	}
	if c.MaxDelay < 0 || c.Watch < 0 {
		return errors.New("serve: negative max delay or watch interval")
	}
	return nil
}

// modelState is one loaded model with what the handlers need of it.
type modelState struct {
	m       *nsvm.Model
	inShape []int // per row, e.g. [20] or [1 28 28]
	inSize  int
	classes []float64 // nil for a regressor
	mod     time.Time // the file's modification time and size when loaded
	size    int64
}

// Server serves one model.
type Server struct {
	cfg     Config
	log     *slog.Logger
	model   atomic.Pointer[modelState]
	batch   *batcher
	reg     *prometheus.Registry
	met     metrics
	flight  atomic.Int64
	reload  sync.Mutex
	handler http.Handler
}

// New loads the model and builds the server (not yet listening).
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.defaults()
	s := &Server{cfg: cfg, log: cfg.Logger, reg: prometheus.NewRegistry()}
	st, err := load(cfg.ModelPath)
	if err != nil {
		return nil, err
	}
	s.model.Store(st)
	s.met = newMetrics(s.reg, func() float64 { return float64(s.flight.Load()) })
	s.batch = newBatcher(cfg.Workers, cfg.MaxBatch, cfg.MaxDelay, func(rows int) { s.met.batchRows.Observe(float64(rows)) })
	s.handler = s.routes()
	return s, nil
}

// load reads a model file and prepares it for serving.
func load(path string) (*modelState, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	m, err := nsvm.Load(path)
	if err != nil {
		return nil, err
	}
	st := &modelState{m: m, inSize: m.InSize(), inShape: []int{m.InSize()}, mod: fi.ModTime(), size: fi.Size()}
	if m.Net != nil {
		st.inShape = m.Net.InShape()
	}
	if !m.Regression() {
		st.classes = m.Labels()
	}
	// One prediction, so that a model that cannot predict fails here and
	// the lazily built caches are ready before the first request.
	m.Predictions(make([]float32, st.inSize), 1, m.Platt != nil)
	return st, nil
}

// Handler returns the server's HTTP handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.handler }

// Registry returns the Prometheus registry of the server's metrics.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// Reload loads the model file again and swaps it in if it has the same
// input shape as the model being served; otherwise, or if the file cannot
// be read, the old model keeps serving and the error says why.
func (s *Server) Reload() error {
	s.reload.Lock()
	defer s.reload.Unlock()
	old := s.model.Load()
	st, err := load(s.cfg.ModelPath)
	if err == nil && !slices.Equal(st.inShape, old.inShape) {
		err = fmt.Errorf("serve: the new model takes inputs of shape %v, the served one %v", st.inShape, old.inShape)
	}
	if err != nil {
		s.met.reloads.WithLabelValues("refused").Inc()
		s.log.Error("reload refused; the old model keeps serving", "model", s.cfg.Name, "file", s.cfg.ModelPath, "error", err.Error())
		// Remember the refused file's state so that Watch does not retry it
		// every poll.
		if fi, serr := os.Stat(s.cfg.ModelPath); serr == nil {
			cp := *old
			cp.mod, cp.size = fi.ModTime(), fi.Size()
			s.model.Store(&cp)
		}
		return err
	}
	s.model.Store(st)
	s.met.reloads.WithLabelValues("ok").Inc()
	s.log.Info("model reloaded", "model", s.cfg.Name, "file", s.cfg.ModelPath, "algorithm", st.m.Algorithm)
	return nil
}

// Run listens on cfg.Addr and serves until ctx ends, then shuts down
// gracefully: no new connections, requests in flight finished (for at most
// grace, then connections are closed). ready, if not nil, receives the
// listening address once the server accepts connections.
func (s *Server) Run(ctx context.Context, grace time.Duration, ready func(addr string)) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return s.Serve(ctx, ln, grace, ready)
}

// Serve is Run on a listener the caller opened.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration, ready func(addr string)) error {
	hs := &http.Server{Handler: s.handler, ReadTimeout: s.cfg.ReadTimeout, WriteTimeout: s.cfg.WriteTimeout,
		IdleTimeout: s.cfg.IdleTimeout, ReadHeaderTimeout: s.cfg.ReadTimeout,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	st := s.model.Load()
	s.log.Info("serving", "model", s.cfg.Name, "file", s.cfg.ModelPath, "algorithm", st.m.Algorithm,
		"input_shape", fmt.Sprint(st.inShape), "addr", ln.Addr().String(), "workers", s.cfg.Workers,
		"max_batch", s.cfg.MaxBatch, "max_delay", s.cfg.MaxDelay.String())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	watchDone := make(chan struct{})
	wctx, stopWatch := context.WithCancel(ctx)
	go func() { s.watch(wctx); close(watchDone) }()
	var serveErr error
	select {
	case serveErr = <-errc:
	case <-ctx.Done():
	}
	stopWatch()
	<-watchDone
	s.log.Info("shutting down", "model", s.cfg.Name, "in_flight", s.flight.Load())
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	s.batch.close()
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", serveErr)
	}
	if err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	s.log.Info("stopped", "model", s.cfg.Name)
	return nil
}

// watch reloads the model when its file changes (cfg.Watch > 0).
func (s *Server) watch(ctx context.Context) {
	if s.cfg.Watch <= 0 {
		return
	}
	t := time.NewTicker(s.cfg.Watch)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fi, err := os.Stat(s.cfg.ModelPath)
			st := s.model.Load()
			if err == nil && (!fi.ModTime().Equal(st.mod) || fi.Size() != st.size) {
				s.Reload()
			}
		}
	}
}

// httpError is an error with its status code and kind (for the metrics).
type httpError struct {
	code int
	kind string
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func errorf(code int, kind, format string, args ...any) *httpError {
	return &httpError{code: code, kind: kind, msg: fmt.Sprintf(format, args...)}
}

// routes builds the handler: one function that parses the path, so that
// every error, unknown paths and wrong methods included, is a JSON body.
func (s *Server) routes() http.Handler {
	metricsH := promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if r.URL.Path == "/metrics" {
			if r.Method != http.MethodGet {
				s.fail(w, r, "other", start, errorf(http.StatusMethodNotAllowed, "method", "%s is not allowed on /metrics", r.Method))
				return
			}
			metricsH.ServeHTTP(w, r)
			return
		}
		proto := "other"
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			proto = "v1"
		} else if r.URL.Path == "/v2" || strings.HasPrefix(r.URL.Path, "/v2/") {
			proto = "v2"
		}
		if n := s.flight.Add(1); n > int64(s.cfg.MaxInFlight) {
			s.flight.Add(-1)
			s.fail(w, r, proto, start, errorf(http.StatusTooManyRequests, "overload", "too many requests in flight (limit %d); retry later", s.cfg.MaxInFlight))
			return
		}
		defer s.flight.Add(-1)
		body, herr := s.dispatch(w, r)
		if herr != nil {
			s.fail(w, r, proto, start, herr)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(body)
		s.done(r, proto, http.StatusOK, start, "")
	})
}

// dispatch routes a request and returns the JSON answer.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) ([]byte, *httpError) {
	path := r.URL.Path
	method := func(want string) *httpError {
		if r.Method != want {
			w.Header().Set("Allow", want)
			return errorf(http.StatusMethodNotAllowed, "method", "%s is not allowed on %s (use %s)", r.Method, path, want)
		}
		return nil
	}
	name := s.cfg.Name
	unknown := func(got string) *httpError {
		return errorf(http.StatusNotFound, "model", "model %q not found (this server serves %q)", got, name)
	}
	switch {
	case path == "/v1/models":
		if e := method(http.MethodGet); e != nil {
			return nil, e
		}
		return []byte(`{"models":[` + string(appendString(nil, name)) + `]}`), nil
	case strings.HasPrefix(path, "/v1/models/"):
		rest := strings.TrimPrefix(path, "/v1/models/")
		if m, ok := strings.CutSuffix(rest, ":predict"); ok {
			if e := method(http.MethodPost); e != nil {
				return nil, e
			}
			if m != name {
				return nil, unknown(m)
			}
			return s.predictV1(r)
		}
		if strings.Contains(rest, "/") || strings.Contains(rest, ":") {
			break
		}
		if e := method(http.MethodGet); e != nil {
			return nil, e
		}
		if rest != name {
			return nil, unknown(rest)
		}
		return []byte(`{"name":` + string(appendString(nil, name)) + `,"ready":true}`), nil
	case path == "/v2":
		if e := method(http.MethodGet); e != nil {
			return nil, e
		}
		return []byte(`{"name":"nsvm","version":` + string(appendString(nil, version)) + `,"extensions":[]}`), nil
	case path == "/v2/health/live":
		if e := method(http.MethodGet); e != nil {
			return nil, e
		}
		return []byte(`{"live":true}`), nil
	case path == "/v2/health/ready":
		if e := method(http.MethodGet); e != nil {
			return nil, e
		}
		return []byte(`{"ready":true}`), nil
	case strings.HasPrefix(path, "/v2/models/"):
		parts := strings.Split(strings.TrimPrefix(path, "/v2/models/"), "/")
		m := parts[0]
		// /v2/models/{name}[/versions/{v}][/ready|/infer]
		if len(parts) >= 3 && parts[1] == "versions" {
			parts = append([]string{m}, parts[3:]...)
		}
		if m != name {
			return nil, unknown(m)
		}
		switch {
		case len(parts) == 1:
			if e := method(http.MethodGet); e != nil {
				return nil, e
			}
			return s.metadataV2(), nil
		case len(parts) == 2 && parts[1] == "ready":
			if e := method(http.MethodGet); e != nil {
				return nil, e
			}
			return []byte(`{"name":` + string(appendString(nil, name)) + `,"ready":true}`), nil
		case len(parts) == 2 && parts[1] == "infer":
			if e := method(http.MethodPost); e != nil {
				return nil, e
			}
			return s.inferV2(r)
		}
	}
	return nil, errorf(http.StatusNotFound, "path", "no endpoint %s %s", r.Method, path)
}

// version is the server's version in the V2 metadata.
const version = "1"

// readBody reads a request body within the size limit.
func (s *Server) readBody(r *http.Request) ([]byte, *httpError) {
	// JSON under any of the types clients send it with (curl's -d says
	// form-urlencoded); other media types are refused.
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") &&
		!strings.HasPrefix(ct, "text/plain") && !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		return nil, errorf(http.StatusUnsupportedMediaType, "content", "content type %q: send application/json", ct)
	}
	b, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, errorf(http.StatusRequestEntityTooLarge, "body", "request body over %d bytes", s.cfg.MaxBodyBytes)
		}
		return nil, errorf(http.StatusBadRequest, "body", "reading the request: %v", err)
	}
	return b, nil
}

// rows checks a tensor against the model's input and returns the number of
// rows: shape [n, d…] with d… the row's shape or its size.
func (st *modelState) rows(vals []float32, shape []int) (int, *httpError) {
	if len(shape) == 0 || shape[0] == 0 {
		return 0, errorf(http.StatusBadRequest, "input", "no instances")
	}
	n := shape[0]
	per := 1
	for _, v := range shape[1:] {
		per *= v
	}
	ok := per == st.inSize && (len(shape) == 2 || slices.Equal(shape[1:], st.inShape))
	if !ok {
		return 0, errorf(http.StatusBadRequest, "input", "instances of shape %v; the model takes rows of %d values (shape %v)",
			shape[1:], st.inSize, st.inShape)
	}
	if len(vals) != n*per {
		return 0, errorf(http.StatusBadRequest, "input", "%d values for %d instances of %d", len(vals), n, per)
	}
	return n, nil
}

// predict runs rows through the batcher.
func (s *Server) predict(st *modelState, x []float32, rows int, probs bool) nsvm.Prediction {
	j := &job{st: st, x: x, rows: rows, probs: probs}
	s.batch.submit(j)
	s.met.instances.Add(float64(rows))
	return j.out
}

// v1Parameters are the options of a V1 predict request.
type v1Parameters struct {
	Decision      bool `json:"decision"`
	Probabilities bool `json:"probabilities"`
}

// predictV1 is POST /v1/models/{name}:predict.
func (s *Server) predictV1(r *http.Request) ([]byte, *httpError) {
	body, herr := s.readBody(r)
	if herr != nil {
		return nil, herr
	}
	var raw, params []byte
	err := scanObjectFast(body, []string{"instances", "inputs"}, func(key string, val []byte) error {
		switch key {
		case "instances", "inputs": // "inputs": TensorFlow-serving's columnar alias
			if raw == nil {
				raw = val
			}
		case "parameters":
			params = val
		}
		return nil
	})
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "json", "%v", err)
	}
	var par v1Parameters
	if params != nil {
		if err := json.Unmarshal(params, &par); err != nil {
			return nil, errorf(http.StatusBadRequest, "json", "parameters: %v", err)
		}
	}
	if raw == nil {
		return nil, errorf(http.StatusBadRequest, "input", `the request has no "instances"`)
	}
	st := s.model.Load()
	if sparseInstances(raw) {
		ds, err := parseSparse(raw, st.inSize)
		if err != nil {
			return nil, errorf(http.StatusBadRequest, "input", "instances: %v", err)
		}
		if ds.N > s.cfg.MaxInstances {
			return nil, errorf(http.StatusBadRequest, "limit", "%d instances; at most %d per request", ds.N, s.cfg.MaxInstances)
		}
		if par.Probabilities && (st.classes == nil || st.m.Platt == nil) {
			return nil, errorf(http.StatusBadRequest, "input", "the model has no probabilities (train it with --probability)")
		}
		p, err := st.m.PredictDataset(ds, par.Probabilities)
		if err != nil {
			return nil, errorf(http.StatusBadRequest, "input", "%v", err)
		}
		s.met.instances.Add(float64(ds.N))
		return st.v1Response(p, par, ds.N), nil
	}
	var vals []float32
	var shape []int
	if st.m.Columns != nil && (bytes.IndexByte(raw, '"') >= 0 || bytes.Contains(raw, []byte("null"))) {
		// Raw column values of a model with categorical columns.
		var n int
		vals, n, err = rawRows(raw, st.m.Columns, 0)
		shape = []int{n, st.inSize}
	} else {
		vals, shape, err = parseTensor(raw)
	}
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "input", "instances: %v", err)
	}
	if len(shape) == 1 && shape[0] == st.inSize && st.inSize > 1 {
		shape = []int{1, st.inSize} // one instance given flat
	}
	n, herr := st.rows(vals, shape)
	if herr != nil {
		return nil, herr
	}
	if n > s.cfg.MaxInstances {
		return nil, errorf(http.StatusBadRequest, "limit", "%d instances; at most %d per request", n, s.cfg.MaxInstances)
	}
	if par.Probabilities && (st.classes == nil || st.m.Platt == nil) {
		return nil, errorf(http.StatusBadRequest, "input", "the model has no probabilities (train it with --probability)")
	}
	p := s.predict(st, vals, n, par.Probabilities)
	return st.v1Response(p, par, n), nil
}

// v1Response writes the V1 answer for a prediction of n rows.
func (st *modelState) v1Response(p nsvm.Prediction, par v1Parameters, n int) []byte {
	b := make([]byte, 0, 64+24*n)
	b = append(b, `{"predictions":`...)
	b = st.appendLabels(b, p.Labels)
	if par.Decision {
		b = append(b, `,"decision_values":`...)
		b = appendFloats(b, p.Decisions, headCols(st.m))
	}
	if p.Probabilities != nil {
		b = append(b, `,"classes":`...)
		b = st.appendLabels(b, st.classes)
		b = append(b, `,"probabilities":`...)
		b = appendFloats(b, p.Probabilities, len(st.classes))
	}
	return append(b, '}')
}

// headCols is the width of a row of decision values (0: one per row).
func headCols(m *nsvm.Model) int {
	if m.Multiclass() {
		return m.NumHeads()
	}
	return 0
}

type v2Tensor struct {
	Name     string          `json:"name"`
	Shape    []int           `json:"shape"`
	Datatype string          `json:"datatype"`
	Data     json.RawMessage `json:"data"`
}

type v2Request struct {
	ID      string
	Inputs  []v2Tensor
	Outputs []struct {
		Name string `json:"name"`
	}
}

// decodeV2 reads an inference request; the tensors' data stay raw.
func decodeV2(body []byte) (v2Request, error) {
	var req v2Request
	err := scanObject(body, func(key string, val []byte) error {
		switch key {
		case "id":
			return json.Unmarshal(val, &req.ID)
		case "outputs":
			return json.Unmarshal(val, &req.Outputs)
		case "inputs":
			return scanArray(val, func(v []byte) error {
				var t v2Tensor
				err := scanObjectFast(v, []string{"data"}, func(k string, vv []byte) error {
					switch k {
					case "name":
						return json.Unmarshal(vv, &t.Name)
					case "shape":
						return json.Unmarshal(vv, &t.Shape)
					case "datatype":
						return json.Unmarshal(vv, &t.Datatype)
					case "data":
						t.Data = vv
					}
					return nil
				})
				req.Inputs = append(req.Inputs, t)
				return err
			})
		}
		return nil
	})
	return req, err
}

// inferV2 is POST /v2/models/{name}/infer.
func (s *Server) inferV2(r *http.Request) ([]byte, *httpError) {
	body, herr := s.readBody(r)
	if herr != nil {
		return nil, herr
	}
	req, err := decodeV2(body)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "json", "%v", err)
	}
	if len(req.Inputs) != 1 {
		return nil, errorf(http.StatusBadRequest, "input", "want exactly one input tensor, got %d", len(req.Inputs))
	}
	in := req.Inputs[0]
	st := s.model.Load()
	switch in.Datatype {
	case "FP32", "FP64", "FP16", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64":
	case "BYTES":
		if st.m.Columns == nil {
			return nil, errorf(http.StatusBadRequest, "input", "input datatype BYTES is for models with categorical columns; this one takes numbers")
		}
	default:
		return nil, errorf(http.StatusBadRequest, "input", "input datatype %q: want FP32, FP64 or an integer type", in.Datatype)
	}
	if in.Data == nil {
		return nil, errorf(http.StatusBadRequest, "input", "the input tensor has no data")
	}
	var vals []float32
	if in.Datatype == "BYTES" {
		// Raw column values, shape [n, columns]: encoded to [n, input size].
		if len(in.Shape) != 2 || in.Shape[1] != len(st.m.Columns) || in.Shape[0] < 0 {
			return nil, errorf(http.StatusBadRequest, "input", "BYTES input of shape %v; want [n, %d] (one value per column)", in.Shape, len(st.m.Columns))
		}
		vals, _, err = rawRows(in.Data, st.m.Columns, in.Shape[0])
		in.Shape = []int{in.Shape[0], st.inSize}
	} else {
		vals, _, err = parseTensor(in.Data)
	}
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "input", "input data: %v", err)
	}
	total := 1
	for _, v := range in.Shape {
		if v < 0 {
			return nil, errorf(http.StatusBadRequest, "input", "input shape %v has a negative dimension", in.Shape)
		}
		total *= v
	}
	if len(in.Shape) < 2 || total != len(vals) {
		return nil, errorf(http.StatusBadRequest, "input", "input shape %v does not hold the %d values given (want [n, …])", in.Shape, len(vals))
	}
	n, herr := st.rows(vals, in.Shape)
	if herr != nil {
		return nil, herr
	}
	if n > s.cfg.MaxInstances {
		return nil, errorf(http.StatusBadRequest, "limit", "%d instances; at most %d per request", n, s.cfg.MaxInstances)
	}
	main := "label"
	if st.classes == nil {
		main = "value"
	}
	want := []string{main}
	if len(req.Outputs) > 0 {
		want = want[:0]
		for _, o := range req.Outputs {
			switch {
			case o.Name == main, o.Name == "decision":
			case o.Name == "probabilities" && st.classes != nil && st.m.Platt != nil:
			default:
				return nil, errorf(http.StatusBadRequest, "input", "unknown output %q (this model has %s)", o.Name, strings.Join(s.outputNames(st), ", "))
			}
			want = append(want, o.Name)
		}
	}
	p := s.predict(st, vals, n, slices.Contains(want, "probabilities"))
	b := make([]byte, 0, 128+24*n)
	b = append(b, `{"model_name":`...)
	b = appendString(b, s.cfg.Name)
	b = append(b, `,"model_version":"1"`...)
	if req.ID != "" {
		b = append(b, `,"id":`...)
		b = appendString(b, req.ID)
	}
	b = append(b, `,"outputs":[`...)
	for i, o := range want {
		if i > 0 {
			b = append(b, ',')
		}
		var data []float64
		switch o {
		case main:
			if st.m.LabelNames != nil && st.classes != nil {
				b = st.appendOutput(b, o, n)
				b = append(b[:len(b)-1], `,"data":`...)
				b = st.appendLabels(b, p.Labels)
				b = append(b, '}')
				continue
			}
			data = p.Labels
		case "decision":
			data = p.Decisions
		case "probabilities":
			data = p.Probabilities
		}
		b = st.appendOutput(b, o, n)
		b = append(b[:len(b)-1], `,"data":`...)
		b = appendFloats(b, data, 0)
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}

// appendOutput appends the description of output name for n rows (n < 0:
// any number, as -1 in the metadata): {"name", "datatype", "shape"}.
func (st *modelState) appendOutput(b []byte, name string, n int) []byte {
	shape := []int{n}
	dtype := "FP64"
	switch name {
	case "label":
		if st.m.LabelNames != nil {
			dtype = "BYTES"
		} else if integral(st.classes) {
			dtype = "INT64"
		}
	case "decision":
		if c := headCols(st.m); c > 0 {
			shape = append(shape, c)
		}
	case "probabilities":
		shape = append(shape, len(st.classes))
	}
	b = append(b, `{"name":`...)
	b = appendString(b, name)
	b = append(b, `,"datatype":"`...)
	b = append(b, dtype...)
	b = append(b, `","shape":`...)
	b = appendInts(b, shape)
	return append(b, '}')
}

// appendLabels appends class labels as a JSON array: numbers, or the
// names of a model trained on named classes.
func (st *modelState) appendLabels(b []byte, labels []float64) []byte {
	if st.m.LabelNames == nil {
		return appendFloats(b, labels, 0)
	}
	b = append(b, '[')
	for i, v := range labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, st.m.LabelName(v))
	}
	return append(b, ']')
}

func integral(v []float64) bool {
	for _, x := range v {
		if x != float64(int64(x)) {
			return false
		}
	}
	return true
}

func appendInts(b []byte, v []int) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFloat(b, float64(x))
	}
	return append(b, ']')
}

// outputNames lists the outputs of the served model.
func (s *Server) outputNames(st *modelState) []string {
	if st.classes == nil {
		return []string{"value", "decision"}
	}
	out := []string{"label", "decision"}
	if st.m.Platt != nil {
		out = append(out, "probabilities")
	}
	return out
}

// metadataV2 is GET /v2/models/{name}.
func (s *Server) metadataV2() []byte {
	st := s.model.Load()
	b := []byte(`{"name":`)
	b = appendString(b, s.cfg.Name)
	b = append(b, `,"versions":["1"],"platform":"nsvm","inputs":[{"name":"input","datatype":"FP32","shape":`...)
	b = appendInts(b, append([]int{-1}, st.inShape...))
	b = append(b, `}],"outputs":[`...)
	for i, o := range s.outputNames(st) {
		if i > 0 {
			b = append(b, ',')
		}
		b = st.appendOutput(b, o, -1)
	}
	b = append(b, `],"parameters":{"algorithm":`...)
	b = appendString(b, st.m.Algorithm)
	if st.classes != nil {
		b = append(b, `,"classes":`...)
		b = st.appendLabels(b, st.classes)
	}
	return append(b, "}}"...)
}

// fail writes an error answer.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, proto string, start time.Time, e *httpError) {
	s.met.errors.WithLabelValues(e.kind).Inc()
	b := append([]byte(`{"error":`), appendString(nil, e.msg)...)
	b = append(b, "}\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.code)
	w.Write(b)
	s.done(r, proto, e.code, start, e.msg)
}

// done records a finished request.
func (s *Server) done(r *http.Request, proto string, code int, start time.Time, msg string) {
	d := time.Since(start)
	s.met.requests.WithLabelValues(proto, fmt.Sprint(code)).Inc()
	s.met.latency.WithLabelValues(proto).Observe(d.Seconds())
	if s.cfg.AccessLog {
		attrs := []any{"method", r.Method, "path", r.URL.Path, "code", code, "seconds", d.Seconds(), "remote", r.RemoteAddr}
		if msg != "" {
			attrs = append(attrs, "error", msg)
		}
		s.log.Info("request", attrs...)
	}
}
