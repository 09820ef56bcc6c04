package search

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

// TestParamsCoverFitConfig: every field of FitConfig (but the callbacks and
// checkpoints) has one parameter, and each parameter a field, a flag and a
// key of its own; a parameter set from text reads back as it was given.
func TestParamsCoverFitConfig(t *testing.T) {
	seen := map[string]bool{}
	flags, keys, pys := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range Params {
		if seen[p.Field] || flags[p.Flag] || keys[p.Key] || p.Python != "" && pys[p.Python] {
			t.Errorf("%s: a field, flag, key or Python name given twice", p.Field)
		}
		seen[p.Field], flags[p.Flag], keys[p.Key], pys[p.Python] = true, true, true, true
		if p.Flag == "" || p.Key == "" || p.Doc == "" || p.Default == "" {
			t.Errorf("%s: no flag, key, doc or default", p.Field)
		}
		if !(&p).value(&FitConfig{}).IsValid() {
			t.Errorf("%s is not a field of FitConfig", p.Field)
		}
	}
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			name := prefix + f.Name
			switch {
			case name == "Progress" || name == "Train":
			case name == "Reg":
				walk("Reg.", f.Type)
			case !seen[name]:
				t.Errorf("FitConfig.%s has no parameter in Params: the front ends cannot set it", name)
			}
		}
	}
	walk("", reflect.TypeOf(FitConfig{}))
}

// TestConfigErrorField: a bad value's error is a *ConfigError naming the
// field, however it is set.
func TestConfigErrorField(t *testing.T) {
	for _, c := range []struct {
		cfg   FitConfig
		field string
	}{
		{FitConfig{C: -1}, "C"},
		{FitConfig{Gamma: -2}, "Gamma"},
		{FitConfig{SVMType: SVMNuSVC, Nu: 2}, "Nu"},
		{FitConfig{Algorithm: "nope"}, "Algorithm"},
		{FitConfig{Epochs: -3}, "Epochs"},
		{FitConfig{Scaling: "bogus"}, "Scaling"},
		{FitConfig{Momentum: Set(1.0)}, "Momentum"},
		{FitConfig{Nu: 0.5}, "Nu"},
	} {
		err := c.cfg.Validate()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field || !errors.Is(err, ErrBadConfig) {
			t.Errorf("%+v: %v, want a *ConfigError about %s", c.cfg, err, c.field)
		}
	}
	var c FitConfig
	for _, in := range []struct{ flag, value string }{{"C", "3"}, {"algo", "nsvm4"}, {"epsilon", "0"}, {"input-shape", "1x8x8"},
		{"budget", "90s"}, {"max-memory", "2GiB"}, {"balanced", "false"}, {"reg", "entropy"}} {
		p := ParamByFlag(in.flag)
		if err := p.Set(&c, in.value); err != nil {
			t.Fatalf("--%s %s: %v", in.flag, in.value, err)
		}
	}
	if c.C != 3 || c.Algorithm != "nsvm4" || c.Epsilon == nil || *c.Epsilon != 0 || len(c.InShape) != 3 ||
		c.Budget.Seconds() != 90 || c.MaxMemory != 2<<30 || c.Balanced == nil || *c.Balanced || c.Reg.Name != "entropy" {
		t.Errorf("set from text: %+v", c)
	}
	if err := ParamByFlag("epochs").Set(&c, "-3"); err == nil {
		t.Error("--epochs -3: no error")
	}
}

// TestParseArgs: nsvm train's training flags as text, as another front
// end (svm-toy's options box) takes them.
func TestParseArgs(t *testing.T) {
	c, err := ParseArgs([]string{"--algo", "smo", "--C", "10", "--gamma=5", "--kernel", "rbf"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Algorithm != "smo" || c.C != 10 || c.Gamma != 5 || c.Kernel != "rbf" {
		t.Errorf("config %+v", c)
	}
	if c, err := ParseArgs(nil); err != nil || c.Algorithm != "" {
		t.Errorf("no flags: %+v, %v", c, err)
	}
	for _, tc := range []struct {
		args  []string
		field string // the *ConfigError's, or "" for another error
		want  string
	}{
		{[]string{"--C", "-1"}, "C", "--C must be"},
		{[]string{"--algo", "nope"}, "Algorithm", "--algo"},
		{[]string{"--svm-type", "nu-svc", "--nu", "2"}, "Nu", "--nu"},
		{[]string{"--kernel", "precomputed"}, "Kernel", "--kernel precomputed"},
		{[]string{"-c", "10"}, "", "-c is svm-train's; use --C"},
		{[]string{"--data", "x.csv"}, "", "no flag --data"},
		{[]string{"points.txt"}, "", "unexpected argument"},
	} {
		_, err := ParseArgs(tc.args)
		var ce *ConfigError
		if tc.field != "" {
			if !errors.As(err, &ce) || ce.Field != tc.field || !strings.Contains(ce.Text(FlagOf), tc.want) {
				t.Errorf("%v: %v, want a *ConfigError of %s saying %q", tc.args, err, tc.field, tc.want)
			}
			continue
		}
		if err == nil || errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestParamAlgos: a parameter given with an algorithm it does not apply to
// is an error naming the algorithms it applies to, and so is one that
// applies to none the selection tries when no algorithm is given; one that
// applies is accepted.
func TestParamAlgos(t *testing.T) {
	one := 1
	for _, tc := range []struct {
		cfg  FitConfig
		want string // "" accepted
	}{
		{FitConfig{Algorithm: "smo", Arch: "dense(8)"}, "Arch applies to nsvm1, nsvm2, nsvm3 and nsvm4, not smo"},
		{FitConfig{Algorithm: "smo", LR: 0.1}, "LR applies to nsvm1, nsvm2, nsvm3 and nsvm4, not smo"},
		{FitConfig{Algorithm: "nsvm4", Mu: 2}, "Mu applies to nsvm3, not nsvm4"},
		{FitConfig{Mu: 2}, "Mu applies to nsvm3, which the selection does not try: give Algorithm nsvm3"},
		{FitConfig{Epochs: 3}, "Epochs applies to perceptron and dual-sga, which the selection does not try"},
		{FitConfig{Algorithm: "nsvm3", Loss: "neg"}, "Loss applies to nsvm4, not nsvm3"},
		{FitConfig{Algorithm: "linear", Steps: one}, "Steps applies to nsvm1, nsvm2, nsvm3, nsvm4, pegasos and pegasos-linear, not linear"},
		{FitConfig{Algorithm: "smo", LinearLoss: "l1"}, "LinearLoss applies to linear, not smo"},
		{FitConfig{Algorithm: "nsvm3", Mu: 2, Steps: 100, Lambda: 1e-4, Batch: 8}, ""},
		{FitConfig{Algorithm: "pegasos", Lambda: 1e-3, Steps: 100, Batch: 8, Bias: true}, ""},
		{FitConfig{Algorithm: "chunking", Chunk: 50}, ""},
		{FitConfig{Algorithm: "perceptron", Epochs: 3}, ""},
		{FitConfig{LR: 1e-3, Lambda: 1e-4, Steps: 100}, ""}, // the selection's nsvm4
	} {
		err := tc.cfg.Validate()
		var ce *ConfigError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v, want it accepted", tc.cfg, err)
		case tc.want != "" && (!errors.As(err, &ce) || !strings.Contains(ce.Text(func(f string) string { return f }), tc.want)):
			t.Errorf("%+v: %v, want a ConfigError containing %q", tc.cfg, err, tc.want)
		}
	}
}

// TestUnweightedSolvers: the solvers that take no weights (perceptron,
// dual-sga, chunking) refuse class and sample weights up front, and on
// imbalanced classes, which other solvers weigh "balanced" by default,
// ask for ClassWeight none instead of failing inside the fit.
func TestUnweightedSolvers(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	n := 300
	ds := &data.Dataset{N: n, D: 2, X: make([]float32, 2*n), Y: make([]float64, n)}
	for i := range n {
		if i%20 == 0 { // 5 % positives
			ds.Y[i] = 1
		}
		ds.X[2*i] = float32(rng.NormFloat64() + 2*ds.Y[i])
		ds.X[2*i+1] = float32(rng.NormFloat64())
	}
	ctx := context.Background()
	for _, algo := range unweightedSolvers {
		a := Algorithm(algo)
		var ce *ConfigError
		if _, err := Fit(ctx, ds, &FitConfig{Algorithm: a, Folds: 2}); !errors.As(err, &ce) || ce.Field != "ClassWeight" || !strings.Contains(err.Error(), "imbalanced") {
			t.Errorf("%s on imbalanced classes: %v, want a ConfigError on ClassWeight", algo, err)
		}
		if err := (&FitConfig{Algorithm: a, ClassWeight: ClassWeightBalanced}).Validate(); !errors.As(err, &ce) || ce.Field != "ClassWeight" {
			t.Errorf("%s with balanced class weights: %v, want a ConfigError on ClassWeight", algo, err)
		}
		w := &data.Dataset{N: ds.N, D: ds.D, X: ds.X, Y: ds.Y, W: make([]float64, n)}
		for i := range w.W {
			w.W[i] = 1
		}
		if _, err := Fit(ctx, w, &FitConfig{Algorithm: a, ClassWeight: ClassWeightNone}); !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), "sample weights") {
			t.Errorf("%s with sample weights: %v, want a configuration error", algo, err)
		}
	}
	m, err := Fit(ctx, ds, &FitConfig{Algorithm: "perceptron", ClassWeight: ClassWeightNone, Folds: 2})
	if err != nil || m.Algorithm != "perceptron" {
		t.Fatalf("perceptron with class weights none: %v", err)
	}
}
