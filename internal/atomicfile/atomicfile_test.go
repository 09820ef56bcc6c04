package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: a complete write replaces the file, readable by all; a
// failing one leaves the old contents and no temporary file; a directory
// that does not exist is a create *Error.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(path, func(w io.Writer) error { w.Write([]byte("half")); return boom }); err != boom {
		t.Fatalf("failing write: error %v, want it as it is", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("after a failed write: %q", b)
	}
	if err := Write(path, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "new" || err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("after a write: %q, mode %v, %v", b, fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("files left: %v", entries)
	}
	var ae *Error
	if err := Write(filepath.Join(dir, "no", "f"), func(io.Writer) error { return nil }); !errors.As(err, &ae) || ae.Op != "create" {
		t.Fatalf("missing directory: error %v", err)
	}
}
