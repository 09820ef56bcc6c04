package experiment

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/paper"
)

// TestRunRingnorm: a shortened reproduction of Algorithm 4 on generated
// Ringnorm trains and scores every seeded split, beside the paper's result.
func TestRunRingnorm(t *testing.T) {
	var runs []string
	cfg := Config{Task: Ringnorm, Algos: []int{4}, Seeds: 2, StepsScale: 0.05,
		Progress: func(run string, seed uint64) (paper.ProgressFunc, func()) {
			runs = append(runs, run)
			return nil, func() {}
		}}
	rs, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if len(r.Accuracies) != 2 || r.NTest != 740 || r.AccuracyMean < 0.85 || r.PaperAcc == nil || *r.PaperAcc != 0.982 {
		t.Fatalf("result %+v", r)
	}
	if len(runs) != 2 || runs[0] != "ringnorm alg 4 seed 1" {
		t.Errorf("runs %v", runs)
	}
}

func regEntropy() paper.RegConfig { return paper.RegConfig{Name: "entropy", Rho: 0.1} }

// TestPresetOverrides: the overrides reach the preset; what cannot run is
// ErrConfig.
func TestPresetOverrides(t *testing.T) {
	lr, drop := 0.5, 0.0
	pr, err := Preset(Config{Task: MNIST01, StepsScale: 0.5, LR: &lr, Dropout: &drop, Solver2: "smo"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := Preset(Config{Task: MNIST01}, 4)
	if pr.Alg4.Opt.LR != 0.5 || pr.Dropout != 0 || pr.Alg4.Part2.Solver != "smo" || pr.Alg4.Part2.C != 1 || pr.Alg4.T != (full.Alg4.T+1)/2 && pr.Alg4.T != full.Alg4.T/2 {
		t.Fatalf("preset %+v", pr.Alg4)
	}
	for name, c := range map[string]Config{
		"unknown task":      {Task: "iris"},
		"algorithm 5":       {Task: Ringnorm, Algos: []int{5}},
		"coord on MNIST":    {Task: MNIST01, Arch: CoordArch},
		"shape without net": {Task: Ringnorm, InputShape: []int{1, 20, 1}},
		"reg on 1":          {Task: Ringnorm, Algos: []int{1}, Reg: regEntropy()},
		"negative seeds":    {Task: Ringnorm, Seeds: -1},
		"bad arch":          {Task: Ringnorm, Arch: "conv(4,1"},
	} {
		if _, err := Splits(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, _, err := MNIST10Preset(MNIST10Config{StepsScale: -1}); !errors.Is(err, ErrConfig) {
		t.Errorf("mnist10, negative scale: %v", err)
	}
	arch, mc, err := MNIST10Preset(MNIST10Config{Steps: 100, StepsScale: 0.5, Scheme: "ovo"})
	if err != nil || arch == "" || mc.T != 50 || mc.Scheme != "ovo" {
		t.Errorf("mnist10 preset: %s %d %s %v", arch, mc.T, mc.Scheme, err)
	}
}

// TestSplitsFromFile: a Ringnorm file is read with its label where its
// header names it (nsvm data ringnorm --format csv writes it first,
// DELVE's file last as "Class"), and gives the generated data's splits.
func TestSplitsFromFile(t *testing.T) {
	ds := datasets.Ringnorm(7400, rand.New(rand.NewPCG(9, 9)))
	dir := t.TempDir()
	var first, last strings.Builder
	if err := data.WriteCSV(&first, ds, true); err != nil {
		t.Fatal(err)
	}
	last.WriteString("V1,V2,V3,V4,V5,V6,V7,V8,V9,V10,V11,V12,V13,V14,V15,V16,V17,V18,V19,V20,Class\n")
	for i := range ds.N {
		for _, v := range ds.Row(i) {
			fmt.Fprintf(&last, "%v,", v)
		}
		fmt.Fprintf(&last, "%v\n", ds.Y[i])
	}
	var splits [][]Split
	for name, text := range map[string]string{"first.csv": first.String(), "last.csv": last.String()} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		sp, err := Splits(Config{Task: Ringnorm, Data: path, Seeds: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sp[0].Train.D != 20 || sp[0].Train.N != 6660 || len(sp[0].Train.Classes()) != 2 {
			t.Fatalf("%s: %d×%d, classes %v", name, sp[0].Train.N, sp[0].Train.D, sp[0].Train.Classes())
		}
		splits = append(splits, sp)
	}
	if !slices.Equal(splits[0][0].Train.X, splits[1][0].Train.X) || !slices.Equal(splits[0][0].Test.Y, splits[1][0].Test.Y) {
		t.Error("the label-first and label-last files give different splits")
	}
}
