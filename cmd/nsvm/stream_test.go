package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainStream: --stream trains from the file through a sample of
// --sample-rows rows, and the network's Part I reads the whole file.
func TestTrainStream(t *testing.T) {
	dir := t.TempDir()
	train, test, model := filepath.Join(dir, "r.csv"), filepath.Join(dir, "t.libsvm"), filepath.Join(dir, "m.nsvm")
	mustRun(t, "data", "ringnorm", "--n", "6000", "--seed", "3", "--format", "csv", "--out", train)
	mustRun(t, "data", "ringnorm", "--n", "1000", "--seed", "4", "--out", test)
	out := mustRun(t, "train", "--data", train, "--model", model, "--stream", "--sample-rows", "1500", "--algo", "nsvm4", "--json", "--quiet")
	var r struct {
		N    int               `json:"n"`
		Info map[string]string `json:"info"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.N != 6000 || r.Info["sample_rows"] != "1500" || r.Info["part1_windows"] == "" {
		t.Fatalf("report n=%d info %v", r.N, r.Info)
	}
	var ev struct {
		Accuracy float64 `json:"accuracy"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "eval", "--model", model, "--data", test, "--json")), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Accuracy < 0.9 {
		t.Errorf("test accuracy %.3f, want ≥ 0.9", ev.Accuracy)
	}
	_, errs, code := runCLI(t, "train", "--data", train, "--model", model, "--stream", "--cv", "3")
	if code != 2 || !strings.Contains(errs, "does not stream") {
		t.Errorf("--stream --cv: exit %d, %s", code, errs)
	}
}
