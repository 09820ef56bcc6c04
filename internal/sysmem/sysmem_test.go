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

// TestParseBytes: counts with and without units; what is not one is refused.
func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1073741824": 1 << 30, "512MiB": 512 << 20, " 64 KiB ": 64 << 10,
		"2GB": 2e9, "10B": 10, "3TiB": 3 << 40} {
		if got, ok := ParseBytes(in); !ok || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "lots", "-1", "1.5GiB", "1 GiBs", "99999999999TiB", "GiB"} {
		if n, ok := ParseBytes(bad); ok {
			t.Errorf("%q: read as %d", bad, n)
		}
	}
}
