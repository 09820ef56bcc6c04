//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nsvm-go/nsvm/report"
)

// binary is the nsvm command built once for the tests that need a process.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildBinary builds the nsvm command (once per test run) and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	built.once.Do(func() {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "nsvm-test"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "nsvm")
		out, err := exec.Command(goCmd, "build", "-o", built.path, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// waitForStep polls a --log file (see readLog) until a record of the train phase reaches
// step, and reports whether it did before the process ended.
func waitForStep(t *testing.T, logPath string, step int, done <-chan struct{}) bool {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case <-done:
			return false
		case <-deadline:
			t.Fatal("the run reported no progress within 60 s")
		case <-time.After(5 * time.Millisecond):
		}
		b := readLog(logPath)
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			var r report.Record
			if json.Unmarshal(sc.Bytes(), &r) == nil && r.Phase == "train" && r.Step >= step {
				return true
			}
		}
	}
}

// readLog returns the records of a --log file so far: while the run lasts
// they are in a temporary file beside it, which takes its place at the end.
func readLog(logPath string) []byte {
	if b, err := os.ReadFile(logPath); err == nil {
		return b
	}
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(logPath), "."+filepath.Base(logPath)+".nsvm-tmp-*"))
	for _, p := range tmps {
		if b, err := os.ReadFile(p); err == nil {
			return b
		}
	}
	return nil
}

// interrupt starts the command, sends SIGINT once the run's log shows step,
// and returns the exit status, stdout and stderr.
func interrupt(t *testing.T, bin, logPath string, step int, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(done) }()
	if !waitForStep(t, logPath, step, done) {
		t.Fatalf("the run ended before the interrupt: %v\n%s", waitErr, stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the run did not stop within 30 s of SIGINT")
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		code = ee.ExitCode()
	} else if waitErr != nil {
		t.Fatal(waitErr)
	}
	return code, stdout.String(), stderr.String()
}

// TestInterruptAndResume stops "nsvm train --algo nsvm1" with SIGINT midway,
// resumes it from the checkpoint written on the interrupt, and checks that
// the model file equals an uninterrupted run's byte for byte.
func TestInterruptAndResume(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "ring.txt")
	if out, err := exec.Command(bin, "data", "ringnorm", "--n", "300", "--seed", "4", "--out", data).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	const steps = 60000
	train := func(model string, extra ...string) []string {
		return append([]string{"train", "--data", data, "--model", model, "--algo", "nsvm1", "--steps", "60000", "--seed", "7", "--quiet"}, extra...)
	}
	full := filepath.Join(dir, "full.nsvm")
	if out, err := exec.Command(bin, train(full)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v: %s", err, out)
	}

	model, ck, logPath := filepath.Join(dir, "m.nsvm"), filepath.Join(dir, "ck"), filepath.Join(dir, "log")
	code, stdout, stderr := interrupt(t, bin, logPath, steps/6,
		train(model, "--checkpoint", ck, "--checkpoint-every", "2000", "--log", logPath)...)
	if code == 0 {
		t.Fatal("the interrupted run exited with status 0")
	}
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "checkpoint at step") ||
		!strings.Contains(stderr, "written to "+ck) || !strings.Contains(stderr, "--resume "+ck) {
		t.Fatalf("stderr after SIGINT is not the one line about the checkpoint:\n%s", stderr)
	}
	if stdout != "" {
		t.Errorf("stdout after SIGINT: %q", stdout)
	}
	if _, err := os.Stat(model); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the interrupted run left a model file (%v)", err)
	}
	t.Log(strings.TrimSpace(stderr))

	out, err := exec.Command(bin, train(model, "--resume", ck)...).CombinedOutput()
	if err != nil {
		t.Fatalf("resumed run: %v: %s", err, out)
	}
	a, _ := os.ReadFile(full)
	b, _ := os.ReadFile(model)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("the resumed run's model (%d bytes) differs from the uninterrupted run's (%d bytes)", len(b), len(a))
	}
	names, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(names) != 0 {
		t.Errorf("temporary files left behind: %v", names)
	}
}

// TestInterruptReproduce: Ctrl-C ends a reproduction cleanly with one line.
func TestInterruptReproduce(t *testing.T) {
	bin := buildBinary(t)
	logPath := filepath.Join(t.TempDir(), "log")
	code, stdout, stderr := interrupt(t, bin, logPath, 500,
		"reproduce", "ringnorm", "--algo", "1,4", "--seeds", "2", "--quiet", "--log", logPath)
	if code == 0 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "nsvm reproduce: interrupted") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if stdout != "" || strings.Contains(stderr, "panic") {
		t.Fatalf("stdout %q, stderr %q", stdout, stderr)
	}
	t.Log(strings.TrimSpace(stderr))
}
