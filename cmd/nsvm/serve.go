package main

import (
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/nsvm-go/nsvm/serve"
)

// serveCmd is "nsvm serve": the HTTP inference server of package serve.
// SIGTERM and SIGINT shut it down gracefully (exit 0); SIGHUP reloads the
// model file.
func (e *env) serveCmd(args []string) error {
	var f serve.Flags
	fs := e.newFlags("serve", "serve --model FILE [--addr 127.0.0.1:8080] [--name NAME] [flags]")
	f.Register(fs)
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if err := f.Finish(e.stderr); err != nil {
		return usageError{"nsvm " + err.Error()}
	}
	s, err := serve.New(f.Config)
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
	return s.Run(e.ctx, f.Grace, nil)
}
