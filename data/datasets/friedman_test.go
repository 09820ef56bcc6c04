package datasets

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFriedman1 checks the shape, the feature range, the target's moments
// (the noise-free target has mean 14.41 and standard deviation 4.88, from
// a NumPy Monte Carlo estimate over 4·10⁶ points) and that the residual y − Friedman1Mean(x) is the
// requested noise.
func TestFriedman1(t *testing.T) {
	for _, c := range []struct {
		name  string
		noise float64
	}{{"noise0", 0}, {"noise1", 1}, {"noise3", 3}} {
		t.Run(c.name, func(t *testing.T) {
			const n = 20000
			ds := Friedman1(n, c.noise, rand.New(rand.NewPCG(1, 2)))
			if err := ds.Validate(); err != nil {
				t.Fatal(err)
			}
			if ds.N != n || ds.D != Friedman1Dim {
				t.Fatalf("N, D = %d, %d", ds.N, ds.D)
			}
			for _, v := range ds.X {
				if v < 0 || v >= 1 {
					t.Fatalf("feature %g outside [0, 1)", v)
				}
			}
			var sm, ss, rs float64
			x := make([]float64, Friedman1Dim)
			for i := 0; i < n; i++ {
				for j, v := range ds.Row(i) {
					x[j] = float64(v)
				}
				f := Friedman1Mean(x)
				sm += f
				ss += f * f
				r := ds.Y[i] - f
				rs += r * r
			}
			mean := sm / n
			sd := math.Sqrt(ss/n - mean*mean)
			noise := math.Sqrt(rs / n)
			t.Logf("mean %.3f, sd %.3f, residual sd %.3f", mean, sd, noise)
			if math.Abs(mean-14.41) > 0.15 || math.Abs(sd-4.88) > 0.1 {
				t.Errorf("noise-free target mean %.3f, sd %.3f; want 14.41, 4.88", mean, sd)
			}
			if math.Abs(noise-c.noise) > 0.03*c.noise+1e-12 {
				t.Errorf("residual sd %.4f, want %g", noise, c.noise)
			}
		})
	}
	a := Friedman1(50, 1, rand.New(rand.NewPCG(7, 8)))
	b := Friedman1(50, 1, rand.New(rand.NewPCG(7, 8)))
	for i := range a.Y {
		if a.Y[i] != b.Y[i] {
			t.Fatal("same seed, different data")
		}
	}
}
