package search

import (
	"errors"
	"reflect"
	"strings"
	"testing"
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
