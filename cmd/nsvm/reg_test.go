package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
)

// TestRegFlags: bad --reg values are usage errors (exit 2, one line), and
// good ones train nsvm3/nsvm4 and reach the reproduction's configuration.
func TestRegFlags(t *testing.T) {
	dir := t.TempDir()
	ring := filepath.Join(dir, "ring.txt")
	f, err := os.Create(ring)
	if err != nil {
		t.Fatal(err)
	}
	if err := data.WriteLIBSVM(f, datasets.Ringnorm(120, rand.New(rand.NewPCG(1, 2)))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	model := filepath.Join(dir, "m.nsvm")
	train := func(extra ...string) []string {
		return append([]string{"train", "--data", ring, "--model", model, "--quiet"}, extra...)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown reg", train("--algo", "nsvm4", "--reg", "bogus"), "unknown --reg"},
		{"negative weight", train("--algo", "nsvm4", "--reg", "entropy", "--reg-weight", "-1"), "weight"},
		{"NaN weight", train("--algo", "nsvm3", "--reg", "frob-i", "--reg-weight", "NaN"), "weight"},
		{"entropy target 1", train("--algo", "nsvm4", "--reg", "entropy", "--reg-target", "1"), "target"},
		{"frob target > 1", train("--algo", "nsvm4", "--reg", "frob-ones", "--reg-target", "2"), "target"},
		{"weight without reg", train("--algo", "nsvm4", "--reg-weight", "0.1"), "--reg-weight needs a regulariser (--reg)"},
		{"reg with nsvm1", train("--algo", "nsvm1", "--reg", "entropy"), "nsvm3 and nsvm4"},
		{"reg with smo", train("--algo", "smo", "--reg", "frob"), "nsvm3 and nsvm4"},
		{"reproduce: unknown reg", []string{"reproduce", "ringnorm", "--algo", "4", "--reg", "x"}, "unknown --reg"},
		{"reproduce: reg with alg 1", []string{"reproduce", "ringnorm", "--algo", "1,4", "--reg", "entropy"}, "algorithms 3 and 4"},
		{"reproduce: target without reg", []string{"reproduce", "ringnorm", "--algo", "4", "--reg-target", "0.3"}, "need --reg"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, c.args...)
			if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and a line containing %q", code, stdout, stderr, c.want)
			}
		})
	}
	for _, algo := range []string{"nsvm3", "nsvm4"} {
		for _, reg := range []string{"entropy", "frob-i", "frob-ones", "frob"} {
			t.Run(algo+"/"+reg, func(t *testing.T) {
				// Enough steps to learn something: a model at chance level is an error.
				args := train("--algo", algo, "--reg", reg, "--reg-weight", "0.1", "--steps", "1000")
				if algo == "nsvm4" {
					args = append(args, "--steps2", "200")
				}
				mustRun(t, args...)
			})
		}
	}
	out := mustRun(t, "reproduce", "ringnorm", "--algo", "3,4", "--seeds", "1", "--steps-scale", "0.005",
		"--reg", "entropy", "--reg-weight", "0.3", "--reg-target", "0.4", "--json", "--quiet")
	if n := strings.Count(out, `"Reg":{"Name":"entropy","Rho":0.3,"Target":0.4}`); n != 2 {
		t.Errorf("the regulariser appears %d times in the reproduction's configurations, want 2:\n%s", n, out)
	}
	out = mustRun(t, "reproduce", "ringnorm", "--algo", "4", "--seeds", "1", "--steps-scale", "0.005", "--json", "--quiet")
	if strings.Contains(out, `"Reg"`) {
		t.Errorf("the configuration mentions Reg without --reg:\n%s", out)
	}
}
