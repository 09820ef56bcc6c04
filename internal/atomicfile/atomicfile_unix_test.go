//go:build unix

package atomicfile

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestWriteFIFO: a FIFO is written in place (a reader gets the bytes) and
// stays a FIFO.
func TestWriteFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := Write(path, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Fatalf("the reader got %q", s)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
}

// TestStaleTemporaries: a write removes the temporary files of its target
// that dead processes left, and keeps those of running processes and of
// other targets.
func TestStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	dead := cmd.Process.Pid
	if running(dead) {
		t.Skip("the pid was reused")
	}
	stale := filepath.Join(dir, ".m.nsvm"+tmpMark+strconv.Itoa(dead)+"-0123456789ab")
	live := filepath.Join(dir, ".m.nsvm"+tmpMark+strconv.Itoa(os.Getppid())+"-0123456789ab")
	other := filepath.Join(dir, ".n.nsvm"+tmpMark+strconv.Itoa(dead)+"-0123456789ab")
	for _, p := range []string{stale, live, other} {
		if err := os.WriteFile(p, []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(filepath.Join(dir, "m.nsvm"), writeString("m")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the dead process's temporary file is still there: %v", err)
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}
