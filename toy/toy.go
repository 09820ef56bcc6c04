// Package toy serves svm-toy in the browser: a page where clicks add
// points of up to three classes (or (x, y) pairs for regression), the
// options box takes nsvm train's flags, and Run trains nsvm's own
// trainers in WebAssembly, in a Web Worker, then colours the plane by the
// model's decision. No server code trains: the page's module (package
// toy/wasm over toy/plane) does, and the model file it offers is the one
// nsvm train writes for the same points, as "label 1:x 2:y" lines, and the
// same flags.
//
// The page (web/index.html, web/toy.js, web/worker.js) is embedded. The
// WebAssembly module is not: Build compiles it at startup with the go
// command on PATH (GOOS=js GOARCH=wasm go build ./toy/wasm, into a cache
// directory; Go's build cache makes later starts quick) from the source
// this package was compiled from, and copies that Go's wasm_exec.js.
//
// # The page's test interface
//
// window.nsvmToy, for tests and the console:
//
//	ready        Promise, resolved once the module runs in the page and in the worker
//	points()     the points, rows [x, y, label]: x to the right, y upward, in [0, 1]
//	setPoints(rows)  replaces them (label defaults to 1) and forgets the last run
//	pointsText() the points as the LIBSVM text the page trains on:
//	             "label 1:x 2:y" lines, or "y 1:x" in regression mode,
//	             numbers as JavaScript's String writes them
//	setRegression(on)  switches regression mode, as the checkbox does
//	run(options) sets #options (unless options is undefined) and trains,
//	             as #run does: a Promise of {trainAccuracy, supportVectors,
//	             seconds} (seconds: the fit's time in the worker; a
//	             regressor adds rmse and r2, with trainAccuracy null)
//	lastRun      the Promise of the latest run, whichever way it started
//	predict(x, y)  the trained model's label at (x, y); a regressor's value at x
//	modelFile()  the model file's bytes (a Uint8Array), or null before a run
//	statusLog    every line #status showed since the latest run started
//
// In regression mode the page adds --task regression to the options
// unless they name a task.
package toy

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"time"
)

//go:embed web
var web embed.FS

// Config configures Serve.
type Config struct {
	// Addr is the listening address, host:port.
	Addr string
	// CacheDir is where Build writes the module ("": the user's cache
	// directory, nsvm/toy in it).
	CacheDir string
	// Log receives a line as the module is built and one with the page's
	// address; nil discards them.
	Log io.Writer
}

// Serve listens on c.Addr, builds the module and serves the page until ctx
// ends, then shuts the server down and returns nil.
func Serve(ctx context.Context, c Config) error {
	logw := c.Log
	if logw == nil {
		logw = io.Discard
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("toy: %w", err)
	}
	defer ln.Close()
	fmt.Fprintln(logw, "nsvm toy: building the page's WebAssembly module (GOOS=js GOARCH=wasm go build ./toy/wasm; the first build takes a minute or two)")
	start := time.Now()
	a, err := Build(ctx, c.CacheDir)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	fmt.Fprintf(logw, "nsvm toy: built %s (%.1f MB) in %.1fs\n", a.Path, float64(len(a.WASM))/1e6, time.Since(start).Seconds())
	srv := &http.Server{Handler: Handler(a), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(logw, "nsvm toy: serving svm-toy on http://%s/ (Ctrl-C stops)\n", ln.Addr())
	select {
	case err := <-done:
		return fmt.Errorf("toy: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fmt.Errorf("toy: stopping: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("toy: %w", err)
	}
	return nil
}

// Handler serves the page: the embedded files, and the module and
// wasm_exec.js of a. The module is sent gzip-compressed to clients that
// accept it.
func Handler(a *Assets) http.Handler {
	static, err := fs.Sub(web, "web")
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /", http.FileServerFS(static))
	mux.Handle("GET /wasm_exec.js", newBlob(a.WasmExecJS, "text/javascript; charset=utf-8", false))
	mux.Handle("GET /nsvm-toy.wasm", newBlob(a.WASM, "application/wasm", true))
	return mux
}

// blob is one file held in memory, with its gzip form when that is worth
// sending.
type blob struct {
	plain, gz   []byte
	etag, ctype string
}

func newBlob(b []byte, ctype string, compress bool) *blob {
	sum := sha256.Sum256(b)
	bl := &blob{plain: b, ctype: ctype, etag: fmt.Sprintf(`"%x"`, sum[:12])}
	if compress {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		bl.gz = buf.Bytes()
	}
	return bl
}

func (b *blob) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", b.ctype)
	// The module changes when it is rebuilt: browsers ask again each time
	// and get 304 while the ETag holds.
	h.Set("Cache-Control", "no-cache")
	body, etag := b.plain, b.etag
	if b.gz != nil {
		h.Set("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, etag = b.gz, strings.TrimSuffix(b.etag, `"`)+`-gz"`
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// acceptsGzip reports whether an Accept-Encoding header accepts gzip.
func acceptsGzip(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			return strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0"
		}
	}
	return false
}
