//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalsLeaveNoTemporaries: SIGTERM cancels the command's context, the
// run writes its checkpoint and log and leaves no temporary file; kill -9
// leaves the log's temporary file (and perhaps the checkpoint's), and the
// next writes of the log and the checkpoint remove them.
func TestSignalsLeaveNoTemporaries(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	ring := filepath.Join(dir, "ring.txt")
	if out, err := exec.Command(bin, "data", "ringnorm", "--n", "300", "--seed", "4", "--out", ring).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	logPath, ck := filepath.Join(dir, "log"), filepath.Join(dir, "ck")
	start := func(logPath string) (*exec.Cmd, chan struct{}, *bytes.Buffer) {
		cmd := exec.Command(bin, "train", "--data", ring, "--model", filepath.Join(dir, "m.nsvm"), "--algo", "nsvm1",
			"--steps", "60000", "--quiet", "--checkpoint", ck, "--checkpoint-every", "2000", "--log", logPath)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		if !waitForStep(t, logPath, 4000, done) {
			t.Fatalf("the run ended early: %s", stderr.String())
		}
		return cmd, done, &stderr
	}
	wait := func(cmd *exec.Cmd, done chan struct{}) {
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatal("the run did not stop within 30 s")
		}
	}

	cmd, done, stderr := start(logPath)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	wait(cmd, done)
	if cmd.ProcessState.ExitCode() == 0 || !strings.Contains(stderr.String(), "checkpoint at step") {
		t.Fatalf("after SIGTERM: exit %d, %s", cmd.ProcessState.ExitCode(), stderr.String())
	}
	if names := tempsIn(t, dir); len(names) != 0 {
		t.Fatalf("SIGTERM left temporary files: %v", names)
	}
	for _, p := range []string{logPath, ck} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Fatalf("%s after SIGTERM: %v", p, err)
		}
	}

	// A second log, so that the wait sees this run's records.
	logPath = filepath.Join(dir, "log2")
	cmd, done, _ = start(logPath)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	wait(cmd, done)
	if names := tempsIn(t, dir); len(names) == 0 {
		t.Fatal("kill -9 left no temporary file (the log's was expected)")
	} else {
		t.Logf("kill -9 left %d temporary files", len(names))
	}
	if out, err := exec.Command(bin, "train", "--data", ring, "--model", filepath.Join(dir, "m2.nsvm"), "--algo", "nsvm4",
		"--steps", "5", "--steps2", "50", "--quiet", "--log", logPath, "--checkpoint", ck, "--checkpoint-every", "1").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if names := tempsIn(t, dir); len(names) != 0 {
		t.Fatalf("the next write of the log left the dead run's temporary files: %v", names)
	}
}
