package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestProbabilityCLI: train --probability stores a calibration fitted on
// out-of-fold decision values (a 5-fold cross-validation of the pinned
// configuration); predict --probability prints every class's probability: P(larger label | x) is
// at least 1/2 exactly on the rows predicted as the larger label.
func TestProbabilityCLI(t *testing.T) {
	dir := t.TempDir()
	ring, model := filepath.Join(dir, "ring.txt"), filepath.Join(dir, "m.nsvm")
	mustRun(t, "data", "ringnorm", "--n", "600", "--seed", "4", "--out", ring)
	js := decodeOne(t, mustRun(t, "train", "--data", ring, "--model", model, "--algo", "nsvm4", "--steps", "200", "--steps2", "3000", "--probability", "--quiet", "--json"))
	if js["n"].(float64) != 600 || !(js["platt_a"].(float64) < 0) {
		t.Errorf("n = %v, platt_a = %v", js["n"], js["platt_a"])
	}
	lines := strings.Split(strings.TrimSpace(mustRun(t, "predict", "--model", model, "--data", ring, "--probability")), "\n")
	if len(lines) != 600 {
		t.Fatalf("%d lines", len(lines))
	}
	var sure int
	for _, l := range lines {
		f := strings.Fields(l) // label, decision, P(1), P(2)
		if len(f) != 4 {
			t.Fatalf("line %q", l)
		}
		p, err := strconv.ParseFloat(f[3], 64)
		if err != nil || p < 0 || p > 1 {
			t.Fatalf("probability in %q", l)
		}
		if (p >= 0.5) != (f[0] == "2") {
			t.Fatalf("line %q: probability and label disagree", l)
		}
		if p > 0.9 || p < 0.1 {
			sure++
		}
	}
	if sure < 300 {
		t.Errorf("only %d of 600 probabilities below 0.1 or above 0.9", sure)
	}
	// Multiclass (one-vs-one, the default, and one-vs-rest): the class and
	// its probability.
	three := filepath.Join(dir, "three.txt")
	blobs3(t, three, 300, 5)
	for _, scheme := range []string{"ovo", "ovr"} {
		mm := filepath.Join(dir, "mc-"+scheme+".nsvm")
		mustRun(t, "train", "--data", three, "--model", mm, "--algo", "smo", "--multiclass", scheme, "--probability", "--quiet")
		lines := strings.Split(strings.TrimSpace(mustRun(t, "predict", "--model", mm, "--data", three, "--probability", "--out-header")), "\n")
		if want := "label\t" + map[string]string{"ovo": "votes", "ovr": "score"}[scheme] + "\tp(1)\tp(5)\tp(9)"; lines[0] != want {
			t.Fatalf("%s: header %q, want %q", scheme, lines[0], want)
		}
		for _, l := range lines[1:] {
			// label, votes or score, P(1), P(5), P(9): the predicted
			// class is likely.
			f := strings.Fields(l)
			c := map[string]int{"1": 2, "5": 3, "9": 4}[f[0]]
			p, err := strconv.ParseFloat(f[c], 64)
			if len(f) != 5 || c == 0 || err != nil || !(p > 1.0/3) || p > 1 {
				t.Fatalf("%s: line %q", scheme, l)
			}
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"predict", "--model", filepath.Join(dir, "plain.nsvm"), "--data", ring, "--probability"}, 1, "--probability"},
		{[]string{"train", "--data", ring, "--model", filepath.Join(dir, "x.nsvm"), "--task", "regression", "--probability"}, 2, "--probability"},
	} {
		if strings.Contains(c.args[2], "plain") {
			mustRun(t, "train", "--data", ring, "--model", c.args[2], "--algo", "smo", "--quiet")
		}
		_, errs, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, errs)
		}
	}
}
