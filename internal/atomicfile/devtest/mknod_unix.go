//go:build linux

package devtest

import "golang.org/x/sys/unix"

func mknod(path string, major, minor uint32) error {
	return unix.Mknod(path, unix.S_IFCHR|0o666, int(unix.Mkdev(major, minor)))
}
