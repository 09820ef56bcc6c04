package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nsvm-go/nsvm/model"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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
	// MaxMemory bounds the bytes that the requests in flight hold at once:
	// their bodies as they are read, their decoded rows, their predictions
	// and their answers, each reserved before it is allocated (default: a
	// quarter of the memory limit of the process's cgroup or, without one,
	// of the machine's memory, at most 1 GiB; 1 GiB when neither is known).
	// A request that needs more than MaxMemory alone gets 413; one that
	// would exceed it while others hold memory waits up to MemoryWait for
	// them, then gets 429 (as past MaxInFlight: the server is busy, the
	// client should retry, with Retry-After: 1).
	MaxMemory int64
	// MemoryWait is how long a request waits for memory held by others
	// (default 1 s; negative: no wait).
	MemoryWait time.Duration
	// ReleaseAfter: after a burst of more than ReleaseAfter bytes in flight,
	// the server returns the freed memory to the operating system
	// (debug.FreeOSMemory) once no request holds memory, at most every
	// 2 s (default: 64 MiB, or a quarter of MaxMemory if less; negative:
	// never).
	ReleaseAfter int64
	// Version is the version of the model in V2 URLs and answers
	// (/v2/models/{name}/versions/{Version}/…; default "1"). Other
	// versions are 404s: the server serves one model file.
	Version string
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
	if c.MaxMemory <= 0 {
		c.MaxMemory = defaultMaxMemory()
	}
	if c.MemoryWait == 0 {
		c.MemoryWait = time.Second
	}
	if c.ReleaseAfter == 0 {
		c.ReleaseAfter = min(64<<20, c.MaxMemory/4)
	}
	if c.Version == "" {
		c.Version = "1"
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
	if c.Name != "" && !pathSegment(c.Name) {
		return fmt.Errorf("serve: model name %s cannot appear in a URL path segment", quote(c.Name))
	}
	if c.Version != "" && !pathSegment(c.Version) {
		return fmt.Errorf("serve: model version %s cannot appear in a URL path segment", quote(c.Version))
	}
	if c.MaxMemory < 0 || c.MaxMemory > 0 && c.MaxMemory < minMemory {
		return fmt.Errorf("serve: a memory limit of %d bytes; want at least %d (a request holds %d before its body)", c.MaxMemory, minMemory, requestBase)
	}
	if c.MaxDelay < 0 || c.Watch < 0 {
		return errors.New("serve: negative max delay or watch interval")
	}
	return nil
}

// minMemory is the smallest MaxMemory.
const minMemory = 64 << 10

// pathSegment reports whether s can be a segment of a URL path as it is.
func pathSegment(s string) bool {
	return !strings.ContainsAny(s, "/:?# ") && s != "." && s != ".."
}

// modelState is one loaded model with what the handlers need of it.
type modelState struct {
	m          *model.Model
	inShape    []int // per row, e.g. [20] or [1 28 28]
	inSize     int
	classes    []float64      // nil for a regressor
	labelBytes int64          // bound on one label's JSON text with its comma
	colIndex   map[string]int // the model's columns by name, for V1 instances keyed by name
	mod        time.Time      // the file's modification time and size when loaded
	size       int64
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
	mem     *budget
	reload  sync.Mutex
	handler http.Handler

	freeMu    sync.Mutex
	freeTimer *time.Timer // a pending return of memory to the OS
	lastFree  time.Time
	freeEvery time.Duration // the shortest time between two returns
}

// New loads the model and builds the server (not yet listening).
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.defaults()
	s := &Server{cfg: cfg, log: cfg.Logger, reg: prometheus.NewRegistry(), freeEvery: 2 * time.Second}
	st, err := load(cfg.ModelPath)
	if err != nil {
		return nil, err
	}
	s.model.Store(st)
	s.mem = &budget{limit: cfg.MaxMemory, idle: s.freeOSMemory, idleAfter: cfg.ReleaseAfter}
	s.met = newMetrics(s.reg, func() float64 { return float64(s.flight.Load()) },
		func() float64 { return float64(s.mem.inUse()) }, float64(cfg.MaxMemory))
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
	m, err := model.Load(path)
	if err != nil {
		return nil, err
	}
	st := &modelState{m: m, inSize: m.InSize(), inShape: []int{m.InSize()}, labelBytes: labelBytes(m), colIndex: columnIndex(m.Columns), mod: fi.ModTime(), size: fi.Size()}
	if m.Net != nil {
		st.inShape = m.Net.InShape()
	}
	if !m.Regression() {
		st.classes = m.Labels()
	}
	// One prediction, so that a model that cannot predict fails here and
	// the lazily built caches are ready before the first request.
	m.Predictions(make([]float32, st.inSize), 1, m.Calibrated())
	return st, nil
}

// Handler returns the server's HTTP handler (for tests and embedding).
func (s *Server) Handler() http.Handler { return s.handler }

// MaxMemory returns the bound on the memory of the requests in flight
// (Config.MaxMemory, or its default).
func (s *Server) MaxMemory() int64 { return s.cfg.MaxMemory }

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
		IdleTimeout: s.cfg.IdleTimeout, ReadHeaderTimeout: s.cfg.ReadTimeout, MaxHeaderBytes: maxHeaderBytes,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	st := s.model.Load()
	s.log.Info("serving", "model", s.cfg.Name, "file", s.cfg.ModelPath, "algorithm", st.m.Algorithm,
		"input_shape", fmt.Sprint(st.inShape), "addr", ln.Addr().String(), "workers", s.cfg.Workers,
		"max_batch", s.cfg.MaxBatch, "max_delay", s.cfg.MaxDelay.String(), "max_memory", s.cfg.MaxMemory)
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
				s.fail(w, r, "other", start, errorf(http.StatusMethodNotAllowed, "method", "%s is not allowed on /metrics", quote(r.Method)))
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
		// The memory a request holds (see budget) is reserved by the
		// inference endpoints; the others allocate little.
		res := &reservation{b: s.mem, ctx: r.Context(), wait: s.cfg.MemoryWait, deadline: http.NewResponseController(w).SetReadDeadline}
		defer res.done()
		body, herr := s.dispatch(w, r, res)
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
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, res *reservation) ([]byte, *httpError) {
	path := r.URL.Path
	method := func(want string) *httpError {
		if r.Method != want {
			w.Header().Set("Allow", want)
			return errorf(http.StatusMethodNotAllowed, "method", "%s is not allowed on %s (use %s)", quote(r.Method), quote(path), want)
		}
		return nil
	}
	name := s.cfg.Name
	unknown := func(got string) *httpError {
		return errorf(http.StatusNotFound, "model", "model %s not found (this server serves %s)", quote(got), quote(name))
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
			return s.predictV1(r, res)
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
		if m != name {
			return nil, unknown(m)
		}
		if len(parts) >= 3 && parts[1] == "versions" {
			if v := parts[2]; v != s.cfg.Version {
				return nil, errorf(http.StatusNotFound, "model", "model %s has no version %s (this server serves version %s)",
					quote(name), quote(v), quote(s.cfg.Version))
			}
			parts = append([]string{m}, parts[3:]...)
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
			return s.inferV2(r, res)
		}
	}
	return nil, errorf(http.StatusNotFound, "path", "no endpoint %s %s", quote(r.Method), quote(path))
}

// maxHeaderBytes bounds a request's headers (431 past it).
const maxHeaderBytes = 64 << 10

// freeOSMemory returns the memory freed after a burst to the operating
// system, now or, if it did so less than s.freeEvery ago, when that time
// has passed; then only if no request holds memory (else the next idle
// moment tries again).
func (s *Server) freeOSMemory() {
	s.freeMu.Lock()
	defer s.freeMu.Unlock()
	if s.freeTimer != nil {
		return // one is pending
	}
	wait := max(0, s.freeEvery-time.Since(s.lastFree))
	s.freeTimer = time.AfterFunc(wait, func() {
		s.freeMu.Lock()
		s.freeTimer = nil
		s.lastFree = time.Now()
		s.freeMu.Unlock()
		if s.mem.idleReset() {
			debug.FreeOSMemory()
			s.met.memReleases.Inc()
		}
	})
}

// fail writes an error answer.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, proto string, start time.Time, e *httpError) {
	s.met.errors.WithLabelValues(e.kind).Inc()
	e.msg = clipMessage(e.msg)
	b := append([]byte(`{"error":`), appendString(nil, e.msg)...)
	b = append(b, "}\n"...)
	if e.code == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
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
