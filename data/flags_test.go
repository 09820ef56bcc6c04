package data

import (
	"errors"
	"flag"
	"io"
	"testing"
)

// TestFlags maps command lines to OpenOptions and refuses bad values with
// a *FlagError that names the flag.
func TestFlags(t *testing.T) {
	parse := func(args ...string) (OpenOptions, error) {
		var f Flags
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Register(fs)
		if err := fs.Parse(args); err != nil {
			return OpenOptions{}, err
		}
		return f.Options(OpenOptions{CSV: CSVOptions{FillMissing: true}})
	}
	o, err := parse("--data", "x.csv", "--sep", "tab", "--header", "no", "--label-col", "0", "--dim", "7", "--digits", "0, 1", "--layout", "sparse", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if o.CSV.Comma != '\t' || o.CSV.Header != HeaderNo || o.CSV.LabelCol != LabelFirst || o.Dim != 7 || len(o.Digits) != 2 || o.Layout != LayoutSparse || o.Format != "csv" || !o.CSV.FillMissing {
		t.Errorf("options %+v", o)
	}
	if o, _ = parse("--label-col", "species"); o.CSV.LabelColumn != "species" || o.CSV.LabelCol != LabelAuto {
		t.Errorf("--label-col species: %+v", o.CSV)
	}
	for _, sep := range []string{"space", " "} {
		if o, err = parse("--sep", sep); err != nil || o.CSV.Comma != Spaces {
			t.Errorf("--sep %q: %q, %v", sep, o.CSV.Comma, err)
		}
	}
	if o, _ = parse("--label-col", "-1"); o.CSV.LabelCol != -1 {
		t.Errorf("--label-col -1: %+v", o.CSV)
	}
	for _, c := range []struct{ flag, value string }{{"sep", "ab"}, {"sep", "  "}, {"dim", "-2"}, {"digits", "1,x"}, {"digits", "12"}, {"label-col", "-3"}} {
		_, err := parse("--"+c.flag, c.value)
		var fe *FlagError
		if !errors.As(err, &fe) || fe.Flag != c.flag {
			t.Errorf("--%s %s: %v, want a *FlagError of %s", c.flag, c.value, err, c.flag)
		}
	}
	if _, err := parse("--header", "maybe"); err == nil {
		t.Error("--header maybe accepted")
	}
}
