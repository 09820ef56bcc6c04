package cliflag

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	newFS := func(n *int, q *bool) *flag.FlagSet {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(Count{Dst: n, Name: "n"}, "n", "")
		fs.BoolVar(q, "quiet", false, "")
		return fs
	}
	var n int
	var q bool
	pos, err := Parse(newFS(&n, &q), []string{"a", "--n", "3", "b", "--quiet", "c", "--", "-x"}, "svm-train", nil)
	if err != nil || n != 3 || !q || !slices.Equal(pos, []string{"a", "b", "c", "-x"}) {
		t.Fatalf("Parse: %v %v n=%d quiet=%v", pos, err, n, q)
	}
	hints := map[string]string{"c": "--C"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-c", "4"}, "-c is svm-train's; use --C"},
		{[]string{"-w1", "2"}, "--class-weight 1:W"},
		{[]string{"-h", "0"}, "shrinking switch"},
		{[]string{"--nope"}, "no flag --nope"},
		{[]string{"--n", "0"}, "--n must be ≥ 1, got 0"},
	} {
		_, err := Parse(newFS(&n, &q), c.args, "svm-train", hints)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	_, err = Parse(newFS(&n, &q), []string{"--n", "0"}, "", nil)
	var ve *ValueError
	if !errors.As(err, &ve) || ve.Flag != "n" {
		t.Errorf("a refused value: %v, want a *ValueError of n", err)
	}
	if _, err := Parse(newFS(&n, &q), []string{"-h"}, "", nil); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}
