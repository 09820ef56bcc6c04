package svm

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// BenchmarkSMORingnorm6660 trains the paper's Ringnorm training split size
// (generated, standardised, 20-d) with RBF γ = 0.05, C = 1, ε = 1e-3 and the
// default 200 MB cache.
func BenchmarkSMORingnorm6660(b *testing.B) {
	p := ringnorm(6660, 20, newRNG(1))
	standardize(p)
	k := kernel.RBF{Gamma: 0.05}
	b.ReportAllocs()
	var m *Model
	for b.Loop() {
		var err error
		if m, err = SMO(context.Background(), p, k, SMOConfig{C: 1}, nil); err != nil {
			b.Fatal(err)
		}
	}
	obj, _ := strconv.ParseFloat(m.Info["objective"], 64)
	it, _ := strconv.Atoi(m.Info["iterations"])
	b.ReportMetric(float64(m.NSV), "nSV")
	b.ReportMetric(-obj, "-obj")
	b.ReportMetric(float64(it), "iters")
}

// BenchmarkPegasosStep times one step of Algorithm 0 at a fixed number of
// support vectors (20-d, RBF): one kernel row over them and the sum.
func BenchmarkPegasosStep(b *testing.B) {
	for _, c := range []struct{ nsv, workers int }{{1000, 1}, {3000, 1}, {10000, 1}, {10000, 2}, {30000, 1}, {30000, 2}} {
		nsv := c.nsv
		name := fmt.Sprintf("nsv=%d", nsv)
		if c.workers > 1 {
			name += fmt.Sprintf("/workers=%d", c.workers)
		}
		b.Run(name, func(b *testing.B) {
			p := ringnorm(nsv, 20, newRNG(1))
			s := newPegasos(p, kernel.RBF{Gamma: 0.05}, 1e-4, 1)
			s.e.pts.Parallel = c.workers > 1
			defer s.e.pts.Close()
			for i := 0; i < nsv; i++ {
				s.e.add(i, p.row(i), s.norms[i], float64(p.Y[i]))
			}
			t := 1_000_000
			b.ReportAllocs()
			for b.Loop() {
				t++
				s.step(t, t%nsv)
			}
		})
	}
}

// BenchmarkPegasosBatchStep times one mini-batch step (k = 16) at a fixed
// number of support vectors.
func BenchmarkPegasosBatchStep(b *testing.B) {
	const nsv = 1000
	p := ringnorm(nsv, 20, newRNG(1))
	s := newPegasos(p, kernel.RBF{Gamma: 0.05}, 1e-4, 16)
	for i := 0; i < nsv; i++ {
		s.e.add(i, p.row(i), s.norms[i], float64(p.Y[i]))
	}
	rng := newRNG(2)
	t := 1_000_000
	b.ReportAllocs()
	for b.Loop() {
		t++
		s.batchStep(t, rng)
	}
}

// BenchmarkLinearDCDRingnorm trains LinearDCD (squared hinge, C = 1, bias
// feature, ε = 0.1, LIBLINEAR's defaults) on 10⁶ generated Ringnorm points
// of 20 features, standardised, and reports the time per epoch.
func BenchmarkLinearDCDRingnorm(b *testing.B) {
	for _, loss := range []DCDLoss{SquaredHinge, Hinge} {
		b.Run(loss.String(), func(b *testing.B) {
			p := ringnorm(1_000_000, 20, newRNG(1))
			standardize(p)
			b.ReportAllocs()
			var m *Model
			epochs := 0
			for b.Loop() {
				var err error
				if m, err = LinearDCD(context.Background(), p, LinearDCDConfig{Loss: loss}, newRNG(1), nil); err != nil {
					b.Fatal(err)
				}
				e, _ := strconv.Atoi(m.Info["epochs"])
				epochs += e
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(epochs)/1e6, "ms/epoch")
			b.ReportMetric(float64(epochs)/float64(b.N), "epochs")
			b.ReportMetric(100*accuracy(m, p), "train-acc-%")
		})
	}
}
