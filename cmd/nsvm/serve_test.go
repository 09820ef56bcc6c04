//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the server's log goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls the log until re matches, and returns the match.
func waitFor(t *testing.T, log *syncBuffer, re *regexp.Regexp) []string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(log.String()); m != nil {
			return m
		}
	}
	t.Fatalf("log never matched %s:\n%s", re, log.String())
	return nil
}

// TestServeCommand: nsvm serve answers, reloads the model on SIGHUP (and
// refuses a corrupt file while the old model serves), and returns cleanly
// (exit 0) when its context ends, as it does on SIGTERM or SIGINT.
func TestServeCommand(t *testing.T) {
	dir := t.TempDir()
	ring, model := filepath.Join(dir, "ring.txt"), filepath.Join(dir, "m.nsvm")
	mustRun(t, "data", "ringnorm", "--n", "300", "--seed", "2", "--out", ring)
	mustRun(t, "train", "--data", ring, "--model", model, "--algo", "smo", "--C", "1", "--gamma", "0.05", "--quiet")
	ctx, cancel := context.WithCancel(context.Background())
	var log syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--model", model, "--addr", "127.0.0.1:0", "--name", "ring"}, strings.NewReader(""), io.Discard, &log)
	}()
	addr := waitFor(t, &log, regexp.MustCompile(`msg=serving .*addr=(127\.0\.0\.1:\d+)`))[1]
	row := strings.Repeat("0.5,", 19) + "0.5"
	resp, err := http.Post("http://"+addr+"/v1/models/ring:predict", "application/json", strings.NewReader(`{"instances":[[`+row+`]]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"predictions":[`) {
		t.Fatalf("predict: %d %s", resp.StatusCode, b)
	}
	// A corrupt file: refused on SIGHUP, the old model keeps serving.
	if err := os.WriteFile(model, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	waitFor(t, &log, regexp.MustCompile(`reload refused`))
	resp, err = http.Post("http://"+addr+"/v1/models/ring:predict", "application/json", strings.NewReader(`{"instances":[[`+row+`]]}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after a refused reload: %v %v", err, resp)
	}
	resp.Body.Close()
	// A good file: reloaded on SIGHUP.
	mustRun(t, "train", "--data", ring, "--model", model, "--algo", "smo", "--C", "10", "--gamma", "0.05", "--quiet")
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	waitFor(t, &log, regexp.MustCompile(`model reloaded`))
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(log.String(), "msg=stopped") {
		t.Errorf("no shutdown line in the log:\n%s", log.String())
	}
}

// TestServeLimits: nsvm serve's memory and version flags reach the server
// (a request past --max-memory is a 413, other versions are 404s, the
// metrics show the limit); bad values are usage errors that name the flag.
func TestServeLimits(t *testing.T) {
	dir := t.TempDir()
	ring, model := filepath.Join(dir, "ring.txt"), filepath.Join(dir, "m.nsvm")
	mustRun(t, "data", "ringnorm", "--n", "300", "--seed", "2", "--out", ring)
	mustRun(t, "train", "--data", ring, "--model", model, "--algo", "smo", "--C", "1", "--gamma", "0.05", "--quiet")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-memory", "lots"}, `--max-memory: serve: "lots" is not a byte count`},
		{[]string{"--max-body", "-5"}, `--max-body: `},
		{[]string{"--release-after", "sometimes"}, `--release-after: `},
		{[]string{"--memory-wait", "-1s"}, `durations must be ≥ 0`},
		{[]string{"--model-version", "a/b"}, `model version "a/b" cannot appear in a URL path segment`},
		{[]string{"--max-memory", "1000"}, `a memory limit of 1000 bytes; want at least 65536`},
	} {
		_, stderr, code := runCLI(t, append([]string{"serve", "--model", model}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var log syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--model", model, "--addr", "127.0.0.1:0", "--name", "ring", "--max-memory", "256KiB",
			"--memory-wait", "0", "--release-after", "never", "--model-version", "7"}, strings.NewReader(""), io.Discard, &log)
	}()
	addr := waitFor(t, &log, regexp.MustCompile(`msg=serving .*addr=(127\.0\.0\.1:\d+).* max_memory=262144`))[1]
	row := "[" + strings.Repeat("0.5,", 19) + "0.5]"
	get := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	infer := `{"inputs":[{"name":"x","shape":[1,20],"datatype":"FP32","data":` + row + `}]}`
	for _, c := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"GET", "/v2/models/ring", "", 200, `"versions":["7"]`},
		{"POST", "/v2/models/ring/versions/7/infer", infer, 200, `"model_version":"7"`},
		{"POST", "/v2/models/ring/versions/1/infer", infer, 404, `has no version`},
		{"POST", "/v1/models/ring:predict", `{"instances":[` + row + strings.Repeat(","+row, 3000) + `]}`, 413, `memory limit is 262144 bytes`},
		{"GET", "/metrics", "", 200, "nsvm_memory_limit_bytes 262144"},
	} {
		if code, b := get(c.method, c.path, c.body); code != c.code || !strings.Contains(b, c.want) {
			t.Errorf("%s %s: %d %.300s; want %d and %s", c.method, c.path, code, b, c.code, c.want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
