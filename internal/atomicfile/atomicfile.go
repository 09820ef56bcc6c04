// Package atomicfile is the one writer of every output file: it never
// leaves a partial file, and never destroys what it replaces.
//
// A regular file (or one that does not exist yet) is written through a
// temporary file beside it, which is synced and renamed over it only once
// complete; the rename happens only if the target is still a regular file
// or absent. A symbolic link is followed: its target is written and the link
// kept. An existing file keeps its permission bits (and, for root, its
// owner); a new one is readable by all (0644). Devices, FIFOs and other
// files that are not regular (/dev/full, /dev/stdout on a pipe) are written
// directly, never replaced: a write error there is the caller's error.
//
// Temporary files are named .NAME.nsvm-tmp-PID-RANDOM, private (0600), and
// removed on every exit path: an error of the caller's write function, a
// panic in it, a cancelled context, a failed sync or rename. A process
// killed outright leaves its temporary behind; the next write of the same
// target removes those of processes that no longer run.
//
// Errors name the target as the caller gave it, never the temporary file.
package atomicfile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Error is a failure of one of the writer's own steps: Op is "create",
// "write", "sync", "close" or "rename". Path is the target as the caller
// named it; Err is the underlying cause without the path of any temporary
// file.
type Error struct {
	Op, Path string
	Err      error
}

func (e *Error) Error() string { return e.Op + " " + e.Path + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// fail returns an *Error for op on path, stripping the path of an
// *fs.PathError or *os.LinkError (a temporary file's) from err.
func fail(op, path string, err error) *Error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &Error{op, path, err}
}

// tmpMark sits between a temporary file's target name and its owner's
// process id.
const tmpMark = ".nsvm-tmp-"

// File is an output being written: Write to it, then Commit (the file takes
// its place) or Discard (the target is left as it was). Discard after Commit
// does nothing, so that a deferred Discard covers every exit path.
type File struct {
	path   string   // as the caller named it, for errors
	target string   // where the bytes end up: path with symbolic links resolved
	tmp    string   // the temporary file; "" when writing target directly
	f      *os.File // tmp, or target itself
	mode   fs.FileMode
	owner  *owner // the target's owner, to keep (root only); nil for none
	err    error  // the first write error
	done   bool
}

// Create starts writing path: through a temporary file beside a regular
// (or absent) target, directly into a device or FIFO. It fails if path is a
// directory, its directory does not exist, or a temporary file cannot be
// created there.
func Create(path string) (*File, error) {
	target, fi, special, err := targetOf(path)
	if err != nil {
		return nil, err
	}
	if special {
		// A device, FIFO or socket: write it in place, never rename over it.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fail("create", path, err)
		}
		return &File{path: path, target: path, f: f}, nil
	}
	out := &File{path: path, target: target, mode: 0o644}
	if fi != nil {
		out.mode = fi.Mode().Perm()
		out.owner = ownerOf(fi)
	}
	dir, base := filepath.Split(out.target)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	for range 100 {
		name := filepath.Join(dir, "."+base+tmpMark+strconv.Itoa(os.Getpid())+"-"+randomHex())
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fail("create", path, err)
		}
		out.tmp, out.f = name, f
		return out, nil
	}
	return nil, &Error{"create", path, fs.ErrExist}
}

// targetOf is what Create and Check find at path: an error for a
// directory; special for a device, FIFO or socket, written in place;
// otherwise the file a write replaces or creates, target (path with its
// symbolic links followed, to the end of a dangling chain), and its info
// fi when it exists (else nil).
func targetOf(path string) (target string, fi fs.FileInfo, special bool, err error) {
	fi, err = os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return "", nil, false, &Error{"create", path, syscall.EISDIR}
	case err == nil && !fi.Mode().IsRegular():
		return path, fi, true, nil
	case err == nil:
		target, err = filepath.EvalSymlinks(path)
	case errors.Is(err, fs.ErrNotExist):
		fi = nil
		target, err = danglingTarget(path)
	}
	if err != nil {
		return "", nil, false, fail("create", path, err)
	}
	return target, fi, false, nil
}

// danglingTarget returns where a write to path, which does not exist,
// creates the file: path itself, or the end of the chain of symbolic links
// path starts.
func danglingTarget(path string) (string, error) {
	p := path
	for range 255 {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			// Stat said it does not exist; Lstat finds something: a race.
			return p, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", syscall.ELOOP
}

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// removeStale removes the temporary files of base in dir that processes no
// longer running left behind (killed before they could clean up).
func removeStale(dir, base string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	prefix := "." + base + tmpMark
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, prefix)
		if !ok {
			continue
		}
		pid, _, ok := strings.Cut(rest, "-")
		p, err := strconv.Atoi(pid)
		if !ok || err != nil || p <= 0 || p == os.Getpid() || running(p) {
			continue
		}
		os.Remove(filepath.Join(dir, n))
	}
}

// Name returns the target as the caller named it.
func (f *File) Name() string { return f.path }

// Write writes p to the file. Its errors name the target.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.done {
		return 0, &Error{"write", f.path, fs.ErrClosed}
	}
	n, err := f.f.Write(p)
	if err != nil {
		f.err = fail("write", f.path, err)
		return n, f.err
	}
	return n, nil
}

// Commit completes the file: a temporary file gets the target's mode, is
// synced, closed and renamed over the target (if that is still a regular
// file or absent), and the directory is synced; a device or FIFO is closed.
// On failure the target is left as it was and the temporary file removed.
func (f *File) Commit() (err error) {
	if f.done {
		return &Error{"close", f.path, fs.ErrClosed}
	}
	if f.err != nil {
		f.Discard()
		return f.err
	}
	f.done = true
	if f.tmp == "" {
		if err := f.f.Close(); err != nil {
			return fail("close", f.path, err)
		}
		return nil
	}
	defer func() {
		if err != nil {
			f.f.Close()
			os.Remove(f.tmp)
		}
	}()
	if err := f.f.Chmod(f.mode); err != nil {
		return fail("write", f.path, err)
	}
	f.owner.apply(f.f)
	if err := f.f.Sync(); err != nil {
		return fail("sync", f.path, err)
	}
	if err := f.f.Close(); err != nil {
		return fail("close", f.path, err)
	}
	// The target may have changed since Create: never rename over anything
	// but a regular file.
	if fi, err := os.Lstat(f.target); err == nil && !fi.Mode().IsRegular() {
		return &Error{"rename", f.path, errors.New("it is no longer a regular file")}
	}
	if err := os.Rename(f.tmp, f.target); err != nil {
		return fail("rename", f.path, err)
	}
	if d, derr := os.Open(filepath.Dir(f.target)); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Discard abandons the file: the temporary file is removed and the target
// left as it was (a device or FIFO is closed). After Commit it does nothing.
func (f *File) Discard() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	if f.tmp != "" {
		os.Remove(f.tmp)
	}
}

// Write writes path with write, as Create, Commit and Discard do: the
// target takes the new contents only if write returns nil, and the
// temporary file is gone when Write returns or panics. An error of write is
// returned as it is, the writer's own as *Error.
func Write(path string, write func(w io.Writer) error) error {
	return WriteContext(context.Background(), path, write)
}

// WriteContext is Write that stops when ctx is done: writes fail with
// ctx.Err() and the target is left as it was.
func WriteContext(ctx context.Context, path string, write func(w io.Writer) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Discard()
	if err := write(ctxWriter{ctx, f}); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return f.Commit()
}

// ctxWriter fails its writes once ctx is done.
type ctxWriter struct {
	ctx context.Context
	f   *File
}

func (w ctxWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	return w.f.Write(p)
}

// Check reports, without writing anything, whether Create(path) would
// succeed: path is not a directory, a device or FIFO is writable, and the
// directory of a regular target exists and accepts a new file. Commands
// call it before long work whose result would otherwise be lost.
func Check(path string) error {
	target, _, special, err := targetOf(path)
	if err != nil {
		return err
	}
	if special {
		if err := writable(path); err != nil {
			return fail("create", path, err)
		}
		return nil
	}
	dir := filepath.Dir(target)
	di, err := os.Stat(dir)
	if err != nil {
		return &Error{"create", path, errors.New("directory " + dir + " does not exist")}
	}
	if !di.IsDir() {
		return &Error{"create", path, errors.New(dir + " is not a directory")}
	}
	f, err := Create(path)
	if err != nil {
		return &Error{"create", path, errors.New("directory " + dir + " is not writable")}
	}
	f.Discard()
	return nil
}

// Same reports whether the files a and b exist and are the same file
// (through symbolic and hard links), or, when either does not exist, whether
// they name the same path.
func Same(a, b string) bool {
	fa, erra := os.Stat(a)
	fb, errb := os.Stat(b)
	if erra == nil && errb == nil {
		return os.SameFile(fa, fb)
	}
	return resolve(a) == resolve(b)
}

// resolve returns an absolute form of path with the symbolic links of its
// existing part resolved.
func resolve(path string) string {
	if t, err := danglingTarget(path); err == nil {
		path = t
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	dir, base := filepath.Split(abs)
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(d, base)
	}
	return abs
}

// Named is a file: the name the user gave it by (a flag or an argument),
// then its path.
type Named = [2]string

// ClashError reports an output that is an input of the same command, or
// another of its outputs.
type ClashError struct {
	Output, Other Named
	Input         bool // Other is an input
}

func (e *ClashError) Error() string {
	if e.Input {
		return e.Output[0] + " " + e.Output[1] + " is the same file as the input " + e.Other[0] + " " + e.Other[1] +
			"; writing it would destroy the input (give another file)"
	}
	return e.Output[0] + " and " + e.Other[0] + " name the same file " + e.Output[1] + "; give each its own"
}

// Clash returns a *ClashError for the first output that is the same file
// (Same) as one of inputs or as another output, and nil if there is none.
// Empty paths and "-" (stdout) are left out.
func Clash(outputs, inputs []Named) error {
	skip := func(p string) bool { return p == "" || p == "-" }
	for i, o := range outputs {
		if skip(o[1]) {
			continue
		}
		for _, in := range inputs {
			if !skip(in[1]) && Same(o[1], in[1]) {
				return &ClashError{o, in, true}
			}
		}
		for _, p := range outputs[i+1:] {
			if !skip(p[1]) && Same(o[1], p[1]) {
				return &ClashError{o, p, false}
			}
		}
	}
	return nil
}
