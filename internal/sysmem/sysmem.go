// Package sysmem tells how much memory the process may use: its cgroup's
// limit, else the machine's memory. The bounds nsvm puts on what data imply
// (search.FitConfig.MaxMemory, serve.Config.MaxMemory) default to a share
// of it.
package sysmem

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Limit returns the memory limit of the process's cgroup (v2, then v1) or,
// without one, the machine's memory; 0 if unknown.
func Limit() int64 {
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 {
			return v
		}
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory/memory.limit_in_bytes"); err == nil {
		// v1 says "no limit" with a number near 2⁶³.
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && v < 1<<60 {
			return v
		}
	}
	return MemTotal("/proc/meminfo")
}

// MemTotal reads MemTotal from a Linux meminfo file; 0 if absent.
func MemTotal(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || kb <= 0 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// RSS returns the resident set size of the process in bytes, from
// /proc/self/statm (Linux); 0 if unknown.
func RSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// PeakRSS returns the largest resident set size of the process so far in
// bytes (VmHWM of /proc/self/status, Linux); 0 if unknown.
func PeakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
