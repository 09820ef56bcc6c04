package nsvm_test

import (
	"context"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/search"
	"github.com/nsvm-go/nsvm/svm"
)

var update = flag.Bool("update", false, "rewrite README.md's table of training parameters")

// TestREADMEParams: README.md's table of training parameters is the one
// search.ParamsTable makes from the parameters (go test -run READMEParams
// -update rewrites it).
func TestREADMEParams(t *testing.T) {
	const begin, end = "<!-- training parameters: begin -->\n", "<!-- training parameters: end -->"
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q", begin, end)
	}
	want := search.ParamsTable()
	if got := s[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile("README.md", []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README.md's table of training parameters is not search.ParamsTable()'s; run go test -run READMEParams -update")
	}
}

// TestFitConfigError: a bad value is an error that errors.As matches to
// *nsvm.ConfigError naming the field, and errors.Is to ErrBadConfig.
func TestFitConfigError(t *testing.T) {
	ds := datasets.Ringnorm(100, rand.New(rand.NewPCG(1, 1)))
	_, err := nsvm.Fit(context.Background(), ds, &nsvm.FitConfig{C: -1})
	var ce *nsvm.ConfigError
	if !errors.As(err, &ce) || ce.Field != "C" || !errors.Is(err, nsvm.ErrBadConfig) {
		t.Fatalf("C = -1: %v", err)
	}
	if err.Error() != "nsvm: bad configuration: C must be a finite number > 0, got -1" {
		t.Errorf("message %q", err)
	}
}

// TestErrorPrefixes: each package's errors start with its prefix
// (internal/errmsg's convention): "nsvm: " for the packages a user calls,
// the package's name below them.
func TestErrorPrefixes(t *testing.T) {
	dir := t.TempDir()
	bad := dir + "/bad.libsvm"
	os.WriteFile(bad, []byte("1 x:y\n"), 0o644)
	_, dataErr := data.Open(bad, data.OpenOptions{})
	_, archErr := nn.ParseArch("dense(")
	_, kernErr := kernel.New(kernel.Spec{Name: "cubic"})
	_, svmErr := svm.SMO(context.Background(), svm.Problem{}, kernel.RBF{Gamma: 1}, svm.SMOConfig{}, nil)
	_, loadErr := nsvm.Load(bad)
	_, fitErr := nsvm.Fit(context.Background(), nil, nil)
	for _, c := range []struct {
		err    error
		prefix string
	}{
		{dataErr, "data: "}, {archErr, "nn: "}, {kernErr, "kernel: "}, {svmErr, "svm: "},
		{loadErr, "nsvm: "}, {fitErr, "nsvm: "},
	} {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), c.prefix) || strings.Count(c.err.Error(), c.prefix) > 1 && c.prefix == "nsvm: " {
			t.Errorf("%v: want one prefix %q", c.err, c.prefix)
		}
	}
}
