package sysmem

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMemTotal: MemTotal read from a meminfo file, 0 without one.
func TestMemTotal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meminfo")
	os.WriteFile(path, []byte("MemTotal:       2048000 kB\nMemFree:  1 kB\n"), 0o644)
	if got := MemTotal(path); got != 2048000<<10 {
		t.Fatalf("MemTotal %d", got)
	}
	os.WriteFile(path, []byte("MemFree: 1 kB\n"), 0o644)
	if got := MemTotal(path); got != 0 {
		t.Fatalf("no MemTotal: %d", got)
	}
	if Limit() <= 0 {
		t.Error("Limit: no memory known on this machine")
	}
}
