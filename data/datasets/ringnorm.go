package datasets

import (
	"math"
	"math/rand/v2"

	"github.com/nsvm-go/nsvm/data"
)

// RingnormDim is the number of features of Ringnorm data.
const RingnormDim = 20

// Ringnorm draws n points of Breiman's Ringnorm problem (Breiman 1996): each
// point is of class 1 or 2 with probability 1/2; class 1 is N(0, 4·I₂₀)
// (standard deviation 2 in every coordinate) and class 2 is N(a·1, I₂₀) with
// a = 2/√20. Labels are 1 and 2 as in the DELVE file. The Bayes error of this
// distribution is about 1.24 %.
func Ringnorm(n int, rng *rand.Rand) *data.Dataset {
	if n < 0 {
		panic("data: Ringnorm: negative n")
	}
	a := 2 / math.Sqrt(RingnormDim)
	d := &data.Dataset{X: make([]float32, n*RingnormDim), Y: make([]float64, n), N: n, D: RingnormDim}
	for i := range n {
		row := d.X[i*RingnormDim : (i+1)*RingnormDim]
		if rng.Float64() < 0.5 {
			d.Y[i] = 1
			for j := range row {
				row[j] = float32(2 * rng.NormFloat64())
			}
		} else {
			d.Y[i] = 2
			for j := range row {
				row[j] = float32(a + rng.NormFloat64())
			}
		}
	}
	return d
}
