package toy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, h http.Handler, method, path string, header ...string) *http.Response {
	t.Helper()
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func TestHandler(t *testing.T) {
	wasm := bytes.Repeat([]byte("\x00asm module "), 1000)
	h := Handler(&Assets{WASM: wasm, WasmExecJS: []byte("// wasm_exec\n")})

	res := get(t, h, "GET", "/")
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("/: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for _, want := range []string{`<canvas id="plane"`, `id="class-1"`, `id="class-2"`, `id="class-3"`, `id="options"`,
		`id="run"`, `id="clear"`, `id="status"`, `src="wasm_exec.js"`, `src="toy.js"`} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, path := range []string{"/toy.js", "/worker.js", "/wasm_exec.js"} {
		res := get(t, h, "GET", path)
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
			t.Errorf("%s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}

	res = get(t, h, "GET", "/nsvm-toy.wasm")
	plain, _ := io.ReadAll(res.Body)
	if res.Header.Get("Content-Type") != "application/wasm" || res.Header.Get("Content-Encoding") != "" || !bytes.Equal(plain, wasm) {
		t.Errorf("module without gzip: %s %q, %d bytes", res.Header.Get("Content-Type"), res.Header.Get("Content-Encoding"), len(plain))
	}
	res = get(t, h, "GET", "/nsvm-toy.wasm", "Accept-Encoding", "br, gzip")
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("module with gzip: %q, Vary %q", res.Header.Get("Content-Encoding"), res.Header.Get("Vary"))
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, wasm) {
		t.Error("the gzip body is not the module")
	}
	etag := res.Header.Get("ETag")
	if res := get(t, h, "GET", "/nsvm-toy.wasm", "Accept-Encoding", "gzip", "If-None-Match", etag); res.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match %s: %d", etag, res.StatusCode)
	}
	if res := get(t, h, "GET", "/nope.js"); res.StatusCode != 404 {
		t.Errorf("/nope.js: %d", res.StatusCode)
	}
	if res := get(t, h, "POST", "/nsvm-toy.wasm"); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", res.StatusCode)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for in, want := range map[string]bool{
		"": false, "gzip": true, "br, gzip, deflate": true, "GZIP;q=0.5": true, "gzip;q=0": false, "deflate": false, "x-gzip": false,
	} {
		if got := acceptsGzip(in); got != want {
			t.Errorf("acceptsGzip(%q) = %v", in, got)
		}
	}
}

func TestIsSource(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if !isSource(root) {
		t.Errorf("%s is not the module's source", root)
	}
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644)
	os.MkdirAll(filepath.Join(other, "toy", "wasm"), 0o755)
	os.WriteFile(filepath.Join(other, "toy", "wasm", "main.go"), nil, 0o644)
	if isSource(other) || isSource(t.TempDir()) {
		t.Error("another module passed for the source")
	}
}

// TestServe builds the module with the go command and serves it until the
// context ends.
func TestServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the WebAssembly module")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Config{Addr: "127.0.0.1:0", CacheDir: t.TempDir(), Log: pw})
		pw.Close()
	}()
	var url string
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "serving svm-toy on "); ok {
			url, _, _ = strings.Cut(after, " ")
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" {
		t.Fatalf("no address logged: %v", <-done)
	}
	res, err := http.Get(url + "nsvm-toy.wasm")
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 4)
	io.ReadFull(res.Body, head)
	res.Body.Close()
	if res.StatusCode != 200 || string(head) != "\x00asm" {
		t.Errorf("module: %d, starts %q", res.StatusCode, head)
	}
	res, err = http.Get(url + "wasm_exec.js")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Contains(js, []byte("globalThis.Go = class")) {
		t.Error("wasm_exec.js is not Go's")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not stop")
	}
}
