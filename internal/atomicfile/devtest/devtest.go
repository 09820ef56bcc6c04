// Package devtest gives tests devices to write to that are safe to hand
// to code that might wrongly rename a file over them.
package devtest

import (
	"os"
	"testing"
)

// Full returns the path of a "full" character device, on which every
// write fails with "no space left on device". Run as root, where a rename
// over /dev/full would replace the machine's device, it is a node made for
// the test in a temporary directory; otherwise /dev/full itself, which an
// unprivileged process cannot replace. It skips the test when neither is
// available.
func Full(t testing.TB) string {
	t.Helper()
	return node(t, "full", 1, 7)
}

// Null is Full for the null device, which discards what is written.
func Null(t testing.TB) string {
	t.Helper()
	return node(t, "null", 1, 3)
}

func node(t testing.TB, name string, major, minor uint32) string {
	t.Helper()
	if os.Geteuid() == 0 {
		path := t.TempDir() + "/" + name
		if err := mknod(path, major, minor); err != nil {
			t.Skipf("cannot make a %s device: %v", name, err)
		}
		return path
	}
	path := "/dev/" + name
	if fi, err := os.Stat(path); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("no %s device", path)
	}
	return path
}

// IsDevice reports whether path is still a character device.
func IsDevice(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
