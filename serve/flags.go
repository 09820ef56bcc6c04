package serve

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"
)

// Flags are the command line's settings of a server: its Config, and the
// grace of its shutdown (Run's) and its log's format.
type Flags struct {
	Config
	Grace      time.Duration
	memoryWait time.Duration
	logFormat  string
}

// Register defines on fs a flag for every setting of f (nsvm serve's),
// with Config's defaults.
func (f *Flags) Register(fs *flag.FlagSet) {
	c := &f.Config
	fs.StringVar(&c.ModelPath, "model", "", "model `file` written by nsvm train (required)")
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "listening address (host:port; :8080 for every interface)")
	fs.StringVar(&c.Name, "name", "", "model name in the URLs (default: the file name without extension)")
	fs.IntVar(&c.MaxBatch, "max-batch", 1024, "most rows gathered into one forward pass")
	fs.DurationVar(&c.MaxDelay, "max-delay", 0, "how long a forward pass waits for more requests when not full (0: never; a lone request runs at once)")
	fs.IntVar(&c.Workers, "workers", 0, "forward passes at once (default: the number of cores)")
	c.MaxBodyBytes = 64 << 20
	fs.Var(ByteSize{P: &c.MaxBodyBytes}, "max-body", "largest request body, a `size` in bytes or with a unit (64MiB, 1GB) (413 past it)")
	fs.Var(ByteSize{P: &c.MaxMemory}, "max-memory", "most bytes the requests in flight hold at once, a `size` (512MiB, 2GB): bodies, decoded rows, predictions, answers (429 past it after --memory-wait, 413 for a request that alone needs more); 0: a quarter of the cgroup's or the machine's memory, at most 1GiB")
	fs.DurationVar(&f.memoryWait, "memory-wait", time.Second, "how long a request waits for memory held by other requests before 429 (0: no wait)")
	fs.Var(ByteSize{P: &c.ReleaseAfter, Never: true}, "release-after", "after a burst of more than this `size` in flight, return the freed memory to the OS once idle, at most every 2s (0: 64MiB, or a quarter of --max-memory if less; never: keep it)")
	fs.StringVar(&c.Version, "model-version", "1", "the model's version in V2 URLs and answers (/v2/models/NAME/versions/VERSION/…; other versions are 404)")
	fs.IntVar(&c.MaxInstances, "max-instances", 100000, "most instances per request (400 past it)")
	fs.IntVar(&c.MaxInFlight, "max-in-flight", 4096, "most requests handled at once (429 past it)")
	fs.DurationVar(&c.ReadTimeout, "read-timeout", 30*time.Second, "time to read a request")
	fs.DurationVar(&c.WriteTimeout, "write-timeout", 60*time.Second, "time to handle and answer a request")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", 120*time.Second, "how long an idle keep-alive connection stays open")
	fs.DurationVar(&c.Watch, "watch", 0, "poll the model file at this interval and reload it when it changes (e.g. 2s; 0: off, SIGHUP still reloads)")
	fs.DurationVar(&f.Grace, "grace", 30*time.Second, "on SIGTERM/SIGINT, how long to wait for the requests in flight")
	fs.BoolVar(&c.AccessLog, "access-log", false, "log one line per request")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
}

// Finish checks the flags' values together and completes the Config: the
// memory wait (0 on the command line is no wait) and a logger writing to
// log in the format asked for.
func (f *Flags) Finish(log io.Writer) error {
	c := &f.Config
	switch {
	case c.ModelPath == "":
		return fmt.Errorf("serve: --model is required")
	case c.MaxBatch < 1, c.Workers < 0, c.MaxBodyBytes < 1, c.MaxInstances < 1, c.MaxInFlight < 1:
		return fmt.Errorf("serve: --max-batch, --max-body, --max-instances and --max-in-flight must be ≥ 1, --workers ≥ 0")
	case c.MaxDelay < 0, c.Watch < 0, f.Grace < 0, f.memoryWait < 0, c.ReadTimeout <= 0, c.WriteTimeout <= 0, c.IdleTimeout <= 0:
		return fmt.Errorf("serve: durations must be ≥ 0 (timeouts > 0)")
	}
	c.MemoryWait = f.memoryWait
	if f.memoryWait == 0 {
		c.MemoryWait = -1 // Config: negative is no wait, 0 the default
	}
	switch f.logFormat {
	case "text":
		c.Logger = slog.New(slog.NewTextHandler(log, nil))
	case "json":
		c.Logger = slog.New(slog.NewJSONHandler(log, nil))
	default:
		return fmt.Errorf("serve: unknown --log-format %q (want text or json)", f.logFormat)
	}
	return c.Validate()
}
