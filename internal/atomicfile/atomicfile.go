// Package atomicfile writes files so that they never hold partial
// contents: through a temporary file in the same directory, renamed over
// the destination once complete.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Error is a failure of one of Write's own steps: Op is "create",
// "chmod", "sync", "close" or "rename".
type Error struct {
	Op, Path string
	Err      error
}

func (e *Error) Error() string { return e.Op + " " + e.Path + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// Write writes path through a temporary file in its directory: write
// fills it; then it is made readable by all (0644; temporary files are
// private), synced, closed and renamed over path, and the directory is
// synced (best effort) to make the rename durable. On any failure the
// temporary file is removed and path is left as it was. An error of write
// is returned as it is, the others as *Error.
func Write(path string, write func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return &Error{"create", path, err}
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return &Error{"chmod", path, err}
	}
	if err = f.Sync(); err != nil {
		return &Error{"sync", path, err}
	}
	if err = f.Close(); err != nil {
		return &Error{"close", path, err}
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return &Error{"rename", path, err}
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
