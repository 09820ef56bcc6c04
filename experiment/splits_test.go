package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteSplits writes Ringnorm's seeded splits as CSV files: 6660
// training and 740 test rows each, a header first, the same rows for the
// same seed.
func TestWriteSplits(t *testing.T) {
	dir := t.TempDir()
	if err := WriteSplits(context.Background(), dir, Config{Task: Ringnorm, Seeds: 2}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		rows int
	}{{"split1/train.csv", 6660}, {"split1/test.csv", 740}, {"split2/test.csv", 740}} {
		b, err := os.ReadFile(filepath.Join(dir, c.name))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n != c.rows+1 {
			t.Errorf("%s: %d lines, want %d rows and a header", c.name, n, c.rows)
		}
	}
	again := t.TempDir()
	if err := WriteSplits(context.Background(), again, Config{Task: Ringnorm, Seeds: 1}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "split1/test.csv"))
	b, _ := os.ReadFile(filepath.Join(again, "split1/test.csv"))
	if string(a) != string(b) {
		t.Error("the same seed wrote other rows")
	}
	if err := WriteSplits(context.Background(), filepath.Join(dir, "split1/train.csv", "x"), Config{Task: Ringnorm, Seeds: 1}); err == nil {
		t.Error("a directory under a file: no error")
	}
}
