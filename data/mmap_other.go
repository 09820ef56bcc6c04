//go:build !unix

package data

import (
	"errors"
	"os"
)

// mapFile fails where there is no mmap; the callers then read the file.
func mapFile(f *os.File, off, length int64) (region, data []byte, err error) {
	return nil, nil, errors.New("memory mapping is not supported on this system")
}

func unmap(region []byte) error { return nil }

// allocSegment returns n bytes of zeroed memory.
func allocSegment(n int) []byte { return make([]byte, n) }

func freeSegment(b []byte) {}
