package main

import (
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/nsvm-go/nsvm/serve"
)

// serveCmd is "nsvm serve": the HTTP inference server of package serve.
// SIGTERM and SIGINT shut it down gracefully (exit 0); SIGHUP reloads the
// model file.
func (e *env) serveCmd(args []string) error {
	var c serve.Config
	var logFormat string
	var grace, memoryWait time.Duration
	fs := e.newFlags("serve", "serve --model FILE [--addr 127.0.0.1:8080] [--name NAME] [flags]")
	fs.StringVar(&c.ModelPath, "model", "", "model `file` written by nsvm train (required)")
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "listening address (host:port; :8080 for every interface)")
	fs.StringVar(&c.Name, "name", "", "model name in the URLs (default: the file name without extension)")
	fs.IntVar(&c.MaxBatch, "max-batch", 1024, "most rows gathered into one forward pass")
	fs.DurationVar(&c.MaxDelay, "max-delay", 0, "how long a forward pass waits for more requests when not full (0: never; a lone request runs at once)")
	fs.IntVar(&c.Workers, "workers", 0, "forward passes at once (default: the number of cores)")
	c.MaxBodyBytes = 64 << 20
	fs.Var(serve.ByteSize{P: &c.MaxBodyBytes}, "max-body", "largest request body, a `size` in bytes or with a unit (64MiB, 1GB) (413 past it)")
	fs.Var(serve.ByteSize{P: &c.MaxMemory}, "max-memory", "most bytes the requests in flight hold at once, a `size` (512MiB, 2GB): bodies, decoded rows, predictions, answers (429 past it after --memory-wait, 413 for a request that alone needs more); 0: a quarter of the cgroup's or the machine's memory, at most 1GiB")
	fs.DurationVar(&memoryWait, "memory-wait", time.Second, "how long a request waits for memory held by other requests before 429 (0: no wait)")
	fs.Var(serve.ByteSize{P: &c.ReleaseAfter, Never: true}, "release-after", "after a burst of more than this `size` in flight, return the freed memory to the OS once idle, at most every 2s (0: 64MiB, or a quarter of --max-memory if less; never: keep it)")
	fs.StringVar(&c.Version, "model-version", "1", "the model's version in V2 URLs and answers (/v2/models/NAME/versions/VERSION/…; other versions are 404)")
	fs.IntVar(&c.MaxInstances, "max-instances", 100000, "most instances per request (400 past it)")
	fs.IntVar(&c.MaxInFlight, "max-in-flight", 4096, "most requests handled at once (429 past it)")
	fs.DurationVar(&c.ReadTimeout, "read-timeout", 30*time.Second, "time to read a request")
	fs.DurationVar(&c.WriteTimeout, "write-timeout", 60*time.Second, "time to handle and answer a request")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", 120*time.Second, "how long an idle keep-alive connection stays open")
	fs.DurationVar(&c.Watch, "watch", 0, "poll the model file at this interval and reload it when it changes (e.g. 2s; 0: off, SIGHUP still reloads)")
	fs.DurationVar(&grace, "grace", 30*time.Second, "on SIGTERM/SIGINT, how long to wait for the requests in flight")
	fs.BoolVar(&c.AccessLog, "access-log", false, "log one line per request")
	fs.StringVar(&logFormat, "log-format", "text", "log format: text or json")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if c.ModelPath == "" {
		return usagef("nsvm serve: --model is required")
	}
	switch {
	case c.MaxBatch < 1, c.Workers < 0, c.MaxBodyBytes < 1, c.MaxInstances < 1, c.MaxInFlight < 1:
		return usagef("nsvm serve: --max-batch, --max-body, --max-instances and --max-in-flight must be ≥ 1, --workers ≥ 0")
	case c.MaxDelay < 0, c.Watch < 0, grace < 0, memoryWait < 0, c.ReadTimeout <= 0, c.WriteTimeout <= 0, c.IdleTimeout <= 0:
		return usagef("nsvm serve: durations must be ≥ 0 (timeouts > 0)")
	}
	c.MemoryWait = memoryWait
	if memoryWait == 0 {
		c.MemoryWait = -1 // Config: negative is no wait, 0 the default
	}
	switch logFormat {
	case "text":
		c.Logger = slog.New(slog.NewTextHandler(e.stderr, nil))
	case "json":
		c.Logger = slog.New(slog.NewJSONHandler(e.stderr, nil))
	default:
		return usagef("nsvm serve: unknown --log-format %q (want text or json)", logFormat)
	}
	if err := c.Validate(); err != nil {
		return usageError{"nsvm " + err.Error()}
	}
	s, err := serve.New(c)
	if err != nil {
		return err
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// Go's collector lets the heap grow to twice what is live before
		// it collects; a soft limit of the requests' budget plus what the
		// process held at start (the model, the runtime) makes it collect
		// before the resident memory passes the budget by much.
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		debug.SetMemoryLimit(s.MaxMemory() + max(32<<20, 2*int64(ms.Sys)))
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			s.Reload() // logs the outcome; a refused file leaves the old model serving
		}
	}()
	return s.Run(e.ctx, grace, nil)
}
