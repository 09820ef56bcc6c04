//go:build unix

package data

import (
	"os"
	"syscall"
)

// mapFile maps length > 0 bytes of f from offset off, copy-on-write: the
// pages are shared with the page cache until written, and writes stay in
// this process. It returns the whole mapping (for unmap) and the bytes
// asked for.
func mapFile(f *os.File, off, length int64) (region, data []byte, err error) {
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	region, err = syscall.Mmap(int(f.Fd()), start, int(off+length-start), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return region, region[off-start : off-start+length], nil
}

func unmap(region []byte) error { return syscall.Munmap(region) }

// allocSegment returns n bytes of zeroed memory outside the Go heap, which
// freeSegment gives back to the system at once.
func allocSegment(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n) // the heap, then
	}
	return b
}

// freeSegment unmaps a segment (a heap one, which Munmap does not know,
// is left to the collector).
func freeSegment(b []byte) { syscall.Munmap(b) }
