package paper

import (
	"math/rand/v2"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// TestAlignBatchWeights: Part I's batches follow the rows' weights: a row
// of weight 0 is never drawn, and a row of weight 3 about three times as
// often as one of weight 1.
func TestAlignBatchWeights(t *testing.T) {
	a := &alignTrainer{cfg: Alg4Config{Batch: 8}, r: &runState{rng: rand.New(rand.NewPCG(1, 2))}}
	a.setWeights([]float32{1, 0, 3, 1, 0})
	count := make([]int, 5)
	for range 5000 {
		for _, i := range a.batch(8) {
			count[i]++
		}
	}
	if count[1] != 0 || count[4] != 0 {
		t.Fatalf("rows of weight 0 drawn: %v", count)
	}
	if r := float64(count[2]) / float64(count[0]); r < 2.8 || r > 3.2 {
		t.Fatalf("weight 3 against 1 drawn %.2f times as often (%v)", r, count)
	}
	b := &alignTrainer{cfg: Alg4Config{Batch: 4}}
	b.setWeights(nil)
	if b.cum != nil {
		t.Fatal("no weights set weights")
	}
}

// classAlignment computes by blocks exactly (bit for bit) what gram and
// targetAlignment compute on whole matrices.
func TestClassAlignment(t *testing.T) {
	for _, n := range []int{1, 63, 64, 150} {
		const d, c = 40, 3
		rng := rand.New(rand.NewPCG(uint64(n), 5))
		z := make([]float32, n*d)
		for i := range z {
			z[i] = float32(rng.NormFloat64())
		}
		y := make([]int, n)
		for i := range y {
			y[i] = rng.IntN(c)
		}
		for _, k := range []kernel.Kernel{kernel.MustNew(kernel.Spec{Name: "rbf", Gamma: 0.3}), kernel.MustNew(kernel.Spec{Name: "linear"})} {
			kmat, tgt := make([]float64, n*n), make([]float64, n*n)
			gram(kmat, k, z, n, d, make([]float32, n*n))
			classTarget(y, c)(tgt, seq(n))
			want := targetAlignment(kmat, tgt, nil, 0)
			if got := ClassAlignment(k, z, n, d, y, c); got != want {
				t.Errorf("n = %d, %T: classAlignment %.17g, gram and targetAlignment %.17g", n, k, got, want)
			}
		}
	}
}
