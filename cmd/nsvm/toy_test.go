package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/toy/plane"
)

// TestToyModelEqualsTrain: the svm-toy page's module (toy/plane) and nsvm
// train write the same model file, byte for byte, for the same points and
// flags.
func TestToyModelEqualsTrain(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var classes, three, reg strings.Builder
	for i := range 160 {
		r, label := 0.05+0.15*rng.Float64(), 1
		if i%2 == 1 {
			r, label = 0.3+0.15*rng.Float64(), 2
		}
		a := 2 * math.Pi * rng.Float64()
		x, y := math.Round((0.5+r*math.Cos(a))*1e4)/1e4, math.Round((0.5+r*math.Sin(a))*1e4)/1e4
		fmt.Fprintf(&classes, "%d 1:%v 2:%v\n", label, x, y)
		if i%5 == 0 {
			label = 3
			x, y = 0.85+0.1*rng.Float64(), 0.85+0.1*rng.Float64()
		}
		fmt.Fprintf(&three, "%d 1:%v 2:%v\n", label, x, y)
		fmt.Fprintf(&reg, "%v 1:%v\n", 0.5+0.3*math.Sin(6*x)+0.05*rng.NormFloat64(), x)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, points, options string }{
		{"smo", classes.String(), "--algo smo --C 10 --gamma 10"},
		{"nsvm4", classes.String(), "--algo nsvm4"},
		{"default", classes.String(), ""},
		{"three classes", three.String(), "--algo nsvm4 --steps 200 --seed 5"},
		{"regression", reg.String(), "--task regression --algo smo --C 10 --gamma 20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.name == "default" {
				t.Skip("the default search")
			}
			args, err := plane.Fields(tc.options)
			if err != nil {
				t.Fatal(err)
			}
			r, err := plane.Train(context.Background(), tc.points, args, nil)
			if err != nil {
				t.Fatal(err)
			}
			data := filepath.Join(dir, plane.PointsName)
			writeFile(t, data, tc.points)
			model := filepath.Join(dir, "cli.nsvm")
			mustRun(t, append([]string{"train", "--data", data, "--model", model, "--quiet"}, args...)...)
			want, err := os.ReadFile(model)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(r.File, want) {
				t.Errorf("the page's model (%d bytes) differs from nsvm train's (%d bytes)", len(r.File), len(want))
			}
		})
	}
}
