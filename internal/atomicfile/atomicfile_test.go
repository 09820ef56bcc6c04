package atomicfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/internal/atomicfile/devtest"
)

// writeString is a write function of Write that writes s.
func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// noTemps fails the test if dir holds a temporary file of this package.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), tmpMark) {
			t.Fatalf("temporary file %s left behind", e.Name())
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWrite: a complete write replaces the file and keeps its mode; a
// failing one leaves the old contents and no temporary file; a new file is
// readable by all; a directory that does not exist is a create *Error.
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
	if b := readFile(t, path); b != "old" {
		t.Fatalf("after a failed write: %q", b)
	}
	noTemps(t, dir)
	if err := Write(path, writeString("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if b := readFile(t, path); b != "new" || err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("after a write: %q, mode %v (want 0600 kept), %v", b, fi.Mode(), err)
	}
	fresh := filepath.Join(dir, "g")
	if err := Write(fresh, writeString("g")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("a new file: mode %v, %v; want 0644", fi.Mode(), err)
	}
	noTemps(t, dir)
	var ae *Error
	if err := Write(filepath.Join(dir, "no", "f"), func(io.Writer) error { return nil }); !errors.As(err, &ae) || ae.Op != "create" {
		t.Fatalf("missing directory: error %v", err)
	}
	if err := Write(dir, writeString("x")); !errors.As(err, &ae) || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("a directory as target: error %v", err)
	}
}

// TestWriteSymlink: a write through a symbolic link writes its target, keeps
// the link and the target's mode; a dangling link creates its target.
func TestWriteSymlink(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.nsvm"), filepath.Join(dir, "link.nsvm")
	if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.nsvm", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, writeString("new")); err != nil {
		t.Fatal(err)
	}
	li, err := os.Lstat(link)
	if err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", li.Mode(), err)
	}
	ri, err := os.Stat(real)
	if err != nil || ri.Mode().Perm() != 0o600 || readFile(t, real) != "new" {
		t.Fatalf("target: mode %v, %q, %v; want 0600 and the new contents", ri.Mode(), readFile(t, real), err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join("sub", "created"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := Write(dangling, writeString("c")); err != nil {
		t.Fatal(err)
	}
	if li, err := os.Lstat(dangling); err != nil || li.Mode()&os.ModeSymlink == 0 || readFile(t, filepath.Join(sub, "created")) != "c" {
		t.Fatalf("dangling link: %v, %v", li.Mode(), err)
	}
	noTemps(t, dir)
	noTemps(t, sub)
}

// TestWriteDevice: a device is written in place: on a full device the
// write fails with "no space left on device" naming it, and it stays a
// device (a rename over it would replace it, as root).
func TestWriteDevice(t *testing.T) {
	full := devtest.Full(t)
	err := Write(full, writeString("model"))
	if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), full) {
		t.Fatalf("writing %s: %v, want no space left on device", full, err)
	}
	if !devtest.IsDevice(full) {
		t.Fatalf("%s is no longer a device", full)
	}
	if err := Check(full); err != nil {
		t.Fatalf("Check(%s): %v", full, err)
	}
	null := devtest.Null(t)
	if err := Write(null, writeString("x")); err != nil || !devtest.IsDevice(null) {
		t.Fatalf("writing %s: %v; a device still: %v", null, err, devtest.IsDevice(null))
	}
}

// TestWritePanicAndCancel: a panic in the write function and a cancelled
// context leave the target as it was and no temporary file.
func TestWritePanicAndCancel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic did not come through")
			}
		}()
		Write(path, func(w io.Writer) error { w.Write([]byte("half")); panic("boom") })
	}()
	noTemps(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	err := WriteContext(ctx, path, func(w io.Writer) error {
		if _, err := w.Write([]byte("half")); err != nil {
			return err
		}
		cancel()
		_, err := w.Write([]byte("more"))
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled write: %v", err)
	}
	if err := WriteContext(ctx, path, writeString("x")); !errors.Is(err, context.Canceled) {
		t.Fatalf("write on a cancelled context: %v", err)
	}
	// A write function that ignores its writer's errors: still not committed.
	ctx2, cancel2 := context.WithCancel(context.Background())
	if err := WriteContext(ctx2, path, func(w io.Writer) error { cancel2(); return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before commit: %v", err)
	}
	if b := readFile(t, path); b != "old" {
		t.Fatalf("after a panic and cancellations: %q", b)
	}
	noTemps(t, dir)
}

// TestErrorsNameTheTarget: failures of the writer's own steps name the
// target, not the temporary file.
func TestErrorsNameTheTarget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.nsvm")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.f.Close() // make the next write fail
	_, werr := f.Write([]byte("x"))
	cerr := f.Commit()
	for _, err := range []error{werr, cerr} {
		if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), tmpMark) {
			t.Fatalf("error %v: want it to name %s and no temporary file", err, path)
		}
	}
	noTemps(t, dir)

	// The target turned into a directory between Create and Commit: not
	// replaced.
	f, err = Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), tmpMark) {
		t.Fatalf("commit over a directory: %v", err)
	}
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		t.Fatalf("the directory was replaced: %v", err)
	}
	noTemps(t, dir)
}

// TestCheck: Check accepts what Create would write and refuses directories
// and missing directories, naming the target.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		path, want string
	}{
		{filepath.Join(dir, "new"), ""},
		{dir, "is a directory"},
		{filepath.Join(dir, "no", "f"), "does not exist"},
	} {
		err := Check(c.path)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path)) {
			t.Errorf("Check(%s) = %v, want %q", c.path, err, c.want)
		}
	}
	noTemps(t, dir)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("Check left %v", entries)
	}
}

// TestSame: the same file through a symbolic or a hard link is the same;
// two paths of files that do not exist are the same when they resolve alike.
func TestSame(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sym, hard := filepath.Join(dir, "sym"), filepath.Join(dir, "hard")
	if err := os.Symlink("a", sym); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(a, hard); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x, y string
		want bool
	}{
		{a, a, true}, {a, sym, true}, {a, hard, true}, {sym, hard, true}, {a, b, false},
		{filepath.Join(dir, "new"), filepath.Join(dir, ".", "new"), true},
		{filepath.Join(dir, "new"), filepath.Join(dir, "other"), false},
		{a, filepath.Join(dir, "new"), false},
	} {
		if got := Same(c.x, c.y); got != c.want {
			t.Errorf("Same(%s, %s) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

// TestClash: an output that is an input (by name or through a link) or
// another output is reported, naming both; "-" and "" are left out.
func TestClash(t *testing.T) {
	dir := t.TempDir()
	in, link := filepath.Join(dir, "in"), filepath.Join(dir, "link")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("in", link); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		outs, ins []Named
		want      string
	}{
		{[]Named{{"--out", out}}, []Named{{"--data", in}}, ""},
		{[]Named{{"--out", "-"}, {"--log", ""}}, []Named{{"--data", "-"}}, ""},
		{[]Named{{"--out", link}}, []Named{{"--model", out}, {"--data", in}}, "--out " + link + " is the same file as the input --data " + in},
		{[]Named{{"--model", out}, {"--log", filepath.Join(dir, ".", "out")}}, nil, "--model and --log name the same file " + out},
	} {
		err := Clash(c.outs, c.ins)
		var ce *ClashError
		if c.want == "" && err != nil || c.want != "" && (!errors.As(err, &ce) || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("Clash(%v, %v) = %v, want %q", c.outs, c.ins, err, c.want)
		}
	}
}
