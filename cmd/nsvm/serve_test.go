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
