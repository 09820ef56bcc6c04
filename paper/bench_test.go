package paper

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
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

// BenchmarkAlg1Step times one step of Algorithm 1 on the paper's Ringnorm
// network at a fixed number of stored support vectors: the forward pass, the
// kernel row over the support vectors and, since all their weights are 0
// here (g̃ = 0 < 1, a margin violation every step), the θ-gradient through
// the kernel row, the backward pass and the SGD step — the most expensive
// step there is. The support vector added by the step is dropped again.
func BenchmarkAlg1Step(b *testing.B) {
	p, _ := ringnormProblem(b, 6660, 740, 1)
	pr, _ := RingnormPreset(1)
	for _, nsv := range []int{1000, 3000, 10000, 30000} {
		b.Run(fmt.Sprintf("nsv=%d", nsv), func(b *testing.B) {
			net := newNet(b, pr.Arch, p.D, 3)
			cfg := pr.Alg1
			_, r, _ := setup(1, net, cfg.Config, Options{Seed: 1})
			a := newAlg1(net, p, cfg, r, hasDropout(net))
			rng := rand.New(rand.NewPCG(5, 6))
			z := make([]float32, net.OutSize())
			for range nsv {
				var s float64
				for f := range z {
					z[f] = float32(rng.NormFloat64())
					s += float64(z[f] * z[f])
				}
				for f := range z { // the network ends in l2norm
					z[f] /= float32(math.Sqrt(s))
				}
				a.sv.add(z, 0)
			}
			t := 2
			b.ReportAllocs()
			for b.Loop() {
				if err := a.step(t); err != nil {
					b.Fatal(err)
				}
				a.sv.pts.Truncate(nsv)
				a.sv.w = a.sv.w[:nsv]
				t++
			}
		})
	}
}
