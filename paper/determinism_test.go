package paper

import (
	"bytes"
	"context"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/nn"
)

// TestDeterministicAcrossGOMAXPROCS trains every algorithm with the same seed
// and data under GOMAXPROCS 1 and 2 and checks that the model files are
// byte-identical: splitting batches across goroutines (the network's
// Forward, Backward and Features, the GEMMs, the SVM's DecisionBatch) must not
// change a single bit. The training set is large enough (800 points of the
// 20-40-30-20-20 MLP, about 2.5 million multiply-adds per pass over it) that
// feature passes over it are split when two procs are allowed.
func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	ds := datasets.Ringnorm(800, rng)
	st := data.FitStandardizer(ds)
	st.Apply(ds)
	y, _, err := ds.BinaryLabels()
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{X: ds.X, N: ds.N, D: ds.D, Y: y}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range []struct {
		alg, steps, steps2 int
	}{
		{1, 1500, 0},
		{2, 600, 0},
		{3, 60, 0},
		{4, 60, 2000},
	} {
		t.Run("alg"+strconv.Itoa(c.alg), func(t *testing.T) {
			var files [][]byte
			for _, procs := range []int{1, 2} {
				runtime.GOMAXPROCS(procs)
				pr, err := RingnormPreset(c.alg)
				if err != nil {
					t.Fatal(err)
				}
				pr.Config().T = c.steps
				pr.Alg4.Part2.T = c.steps2
				net, err := nn.New(pr.Arch, []int{p.D}, rand.New(rand.NewPCG(5, 6)))
				if err != nil {
					t.Fatal(err)
				}
				m, err := trainPreset(context.Background(), pr, net, p, Options{Seed: 17})
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, modelBytes(t, m))
				t.Logf("GOMAXPROCS %d: %d support vectors", procs, m.Head.NSV)
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Fatalf("algorithm %d: the model files differ between GOMAXPROCS 1 and 2", c.alg)
			}
		})
	}
}
