package model

import (
	"path/filepath"
	"testing"
)

// saveLoad saves m to a file in a temporary directory and loads it back; it
// returns the file's path and the loaded model.
func saveLoad(t testing.TB, m *Model) (string, *Model) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.nsvm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, l
}
