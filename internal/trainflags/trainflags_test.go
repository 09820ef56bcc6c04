package trainflags

import (
	"errors"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/search"
)

func TestParseTrainArgs(t *testing.T) {
	c, err := ParseTrainArgs(strings.Fields("--algo smo --C 10 --gamma 5 --kernel rbf --seed 7"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Algorithm != "smo" || c.C != 10 || c.Gamma != 5 || c.Kernel != "rbf" || c.Seed != 7 {
		t.Errorf("config %+v", c)
	}
	c, err = ParseTrainArgs(strings.Fields("--algo nsvm4 --momentum 0.5 --epsilon 0 --task regression --reg entropy"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Momentum == nil || *c.Momentum != 0.5 || c.WeightDecay != nil || c.Epsilon != -1 || c.Reg.Name != "entropy" {
		t.Errorf("config %+v", c)
	}
	c, err = ParseTrainArgs(nil)
	if err != nil || c.Algorithm != "" || c.Seed != search.DefaultSeed || c.Reg.Name != "" {
		t.Errorf("no flags: %+v, %v", c, err)
	}
}

func TestParseTrainArgsErrors(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--C -1", "--C must be a finite number > 0, got -1"},
		{"--algo bogus", `unknown --algo "bogus"`},
		{"--momentum 1", "--momentum must be in [0, 1), got 1"},
		{"--data ring.libsvm", "flag provided but not defined: -data"},
		{"--kernel precomputed", "only nsvm train reads"},
		{"--reg-weight 2", "--reg-weight and --reg-target need --reg"},
		{"--algo smo --reg entropy", "--reg applies to nsvm3 and nsvm4, not smo"},
		{"--task regression --probability", "--probability applies to classification"},
		{"--algo smo extra", `unexpected argument "extra"`},
		{"--svm-type one-class --algo nsvm4", "one-class"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			_, err := ParseTrainArgs(strings.Fields(tc.args))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, search.ErrBadConfig) {
				t.Errorf("%v does not wrap ErrBadConfig", err)
			}
			if msg := Message(err); !strings.Contains(msg, tc.want) || strings.HasPrefix(msg, "nsvm") {
				t.Errorf("message %q, want %q without a prefix", msg, tc.want)
			}
		})
	}
}
