package svm

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// BenchmarkSMORingnorm6660 trains the paper's Ringnorm training split size
// (generated, standardised, 20-d) with RBF γ = 0.05, C = 1, ε = 1e-3 and the
// default cache (DefaultCacheMB).
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

// BenchmarkSMOSparse trains an RBF C-SVM on 4000 generated sparse rows of
// 20000 features at 0.2 % density (γ = 1/(2·mean ‖x‖²), C = 1, a 100 MB
// cache); svm/testdata/sparsebench runs the 20000 × 50000 problem that is
// compared with svm-train.
func BenchmarkSMOSparse(b *testing.B) {
	p := sparseRandom(4000, 20000, 40, newRNG(1))
	var sq float64
	for i := 0; i < p.N; i++ {
		sq += p.vec(i).SqNorm()
	}
	k := kernel.RBF{Gamma: float64(p.N) / (2 * sq)}
	b.ReportAllocs()
	var m *Model
	for b.Loop() {
		var err error
		if m, err = SMO(context.Background(), p, k, SMOConfig{C: 1, CacheMB: 100}, nil); err != nil {
			b.Fatal(err)
		}
	}
	it, _ := strconv.Atoi(m.Info["iterations"])
	b.ReportMetric(float64(m.NSV), "nSV")
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
				s.e.Add(i, p.row(i), s.norms[i], float64(p.Y[i]))
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
		s.e.Add(i, p.row(i), s.norms[i], float64(p.Y[i]))
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

// BenchmarkGridSMODigits runs the (γ, C) grid of scikit-learn's
// GridSearchCV(SVC(), {C: [0.1, 1, 10, 100], gamma: [scale, 0.003, 0.01,
// 0.03, 0.1, 0.3]}, cv=5) on sklearn's digits (standardised) with one
// worker: GridSMO as it runs by default, without warm starts, and without
// the kernel matrix. bench/cmd/svmbench -mode grid adds independent SMO
// fits and scikit-learn itself.
func BenchmarkGridSMODigits(b *testing.B) {
	rows := readGzFloats(b, filepath.Join(diabetesDir, "digits.csv.gz"))
	p := ClassProblem{N: len(rows), D: 64, C: 10, Y: make([]int, len(rows))}
	for i, r := range rows {
		for _, v := range r[:64] {
			p.X = append(p.X, float32(v))
		}
		p.Y[i] = int(r[64])
	}
	var ss float64
	for j := 0; j < p.D; j++ { // StandardScaler: population sd, constant columns stay 0
		var m, v float64
		for i := 0; i < p.N; i++ {
			m += float64(p.X[i*p.D+j])
		}
		m /= float64(p.N)
		for i := 0; i < p.N; i++ {
			v += (float64(p.X[i*p.D+j]) - m) * (float64(p.X[i*p.D+j]) - m)
		}
		sd := math.Sqrt(v / float64(p.N))
		if sd == 0 {
			sd = 1
		}
		for i := 0; i < p.N; i++ {
			z := (float64(p.X[i*p.D+j]) - m) / sd
			p.X[i*p.D+j] = float32(z)
			ss += z * z
		}
	}
	scale := float64(p.N) / ss // 1/(D·Var X)
	var ks []kernel.Kernel
	for _, g := range []float64{scale, 0.003, 0.01, 0.03, 0.1, 0.3} {
		ks = append(ks, kernel.RBF{Gamma: g})
	}
	folds, err := StratifiedKFold(p.Y, 5, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  GridConfig
	}{
		{"default", GridConfig{Workers: 1}},
		{"no-warm-start", GridConfig{Workers: 1, NoWarmStart: true}},
		{"no-matrix", GridConfig{Workers: 1, NoWarmStart: true, MatrixMB: -1}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var r *GridResult
			for b.Loop() {
				if r, err = GridSMO(context.Background(), p, ks, []float64{0.1, 1, 10, 100}, folds, c.cfg, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Iterations), "updates")
			b.ReportMetric(r.Score[r.Best], "cv-acc")
		})
	}
}
