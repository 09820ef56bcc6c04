package datasets

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRingnormStatistics checks the class shares, means and variances of
// a large draw against Breiman's definition, and that a seed repeats.
func TestRingnormStatistics(t *testing.T) {
	const n = 40000
	d := Ringnorm(n, rand.New(rand.NewPCG(42, 42^0x9e3779b97f4a7c15)))
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.D != 20 || d.N != n {
		t.Fatalf("size %d×%d", d.N, d.D)
	}
	a := 2 / math.Sqrt(20)
	var cnt [3]float64
	var sum, sq [3]float64
	for i := range n {
		c := int(d.Y[i])
		cnt[c]++
		for _, v := range d.Row(i) {
			sum[c] += float64(v)
			sq[c] += float64(v) * float64(v)
		}
	}
	if frac := cnt[1] / n; math.Abs(frac-0.5) > 0.01 {
		t.Fatalf("class 1 fraction %v, want 0.5", frac)
	}
	for c, want := range map[int][2]float64{1: {0, 4}, 2: {a, 1}} {
		m := sum[c] / (cnt[c] * 20)
		v := sq[c]/(cnt[c]*20) - m*m
		// ~400000 values per class: standard errors ≈ 0.003 (mean), 0.01 (variance).
		if math.Abs(m-want[0]) > 0.015 || math.Abs(v-want[1]) > 0.05*want[1] {
			t.Errorf("class %d: mean %.4f variance %.4f, want %.4f %.4f", c, m, v, want[0], want[1])
		}
	}
	// The same seed draws the same points: the first ten of a longer draw.
	d2 := Ringnorm(10, rand.New(rand.NewPCG(42, 42^0x9e3779b97f4a7c15)))
	if !slices.Equal(d2.X, d.X[:10*RingnormDim]) || !slices.Equal(d2.Y, d.Y[:10]) {
		t.Fatal("a draw of 10 points is not the first 10 points of a longer draw with the same seed")
	}
}
