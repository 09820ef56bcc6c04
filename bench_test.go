package nsvm

import (
	"context"
	"testing"
)

// BenchmarkTrain measures whole training runs on generated Ringnorm (6660
// training points, the paper's networks and presets) at a fraction of the
// paper's step counts; the time per op is one run.
func BenchmarkTrain(b *testing.B) {
	p, _ := ringnormProblem(b, 6660, 740, 1)
	for _, c := range []struct {
		name       string
		alg, steps int
		steps2     int
	}{
		{"Alg1/T=20000", 1, 20000, 0},
		{"Alg2/T=7000", 2, 7000, 0},
		{"Alg3/T=460", 3, 460, 0},
		{"Alg4/T=4200+33500", 4, 4200, 33500},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				pr, _ := RingnormPreset(c.alg)
				pr.Config().T = c.steps
				pr.Alg4.Part2.T = c.steps2
				net := newNet(b, pr.Arch, p.D, 3)
				if _, err := trainPreset(context.Background(), pr, net, p, Options{Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
