//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// running reports whether process pid exists (it may belong to another
// user).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// owner is the user and group of a file that a replacement must keep.
type owner struct{ uid, gid int }

// ownerOf returns the owner of fi when this process runs as root and could
// otherwise replace another user's file by one of its own; else nil.
func ownerOf(fi fs.FileInfo) *owner {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 {
		return nil
	}
	return &owner{int(st.Uid), int(st.Gid)}
}

// apply gives f the owner (best effort).
func (o *owner) apply(f *os.File) {
	if o != nil {
		_ = f.Chown(o.uid, o.gid)
	}
}

// writable reports whether this process may write the existing file path.
func writable(path string) error {
	const wOK = 2
	return syscall.Access(path, wOK)
}
