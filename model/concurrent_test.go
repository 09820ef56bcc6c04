package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// concurrentModels are models of every kind, built by hand: binary MLP
// with a scaler and probabilities, one-vs-rest and one-vs-one multiclass
// NSVMs, a regressor, the paper's MNIST CNN (with its channel dropout, off
// in inference), a meanpool network and a classical SVM without network.
func concurrentModels(t *testing.T) map[string]*Model {
	t.Helper()
	out := goldenModels(t)
	rng := rand.New(rand.NewPCG(9, 9))
	head := func(n, d int) *svm.Model {
		h := &svm.Model{Kernel: kernel.Spec{Name: "rbf", Gamma: 1 / float64(d)}, NSV: n, D: d, Neg: -1, Pos: 1,
			SV: make([]float32, n*d), Coef: make([]float64, n)}
		for i := range h.SV {
			h.SV[i] = float32(rng.NormFloat64())
		}
		for i := range h.Coef {
			h.Coef[i] = rng.NormFloat64()
		}
		return h
	}
	net := func(arch string, shape []int) *nn.Net {
		n, err := nn.New(arch, shape, rng)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	cnn := net(nn.MNISTArchNoNorm, []int{1, 28, 28})
	out["mnist-cnn"] = &Model{Algorithm: "nsvm4", Net: cnn, Head: head(40, cnn.OutSize()), Info: map[string]string{}}
	mp := net("conv(4,3),relu,meanpool", []int{2, 6, 6})
	out["meanpool"] = &Model{Algorithm: "nsvm4", Net: mp, Head: head(7, 4), Info: map[string]string{}}
	ovr := &Model{Algorithm: "nsvm4", Net: net("dense(8),relu", []int{5}), Info: map[string]string{}}
	ovr.SetHeads([]float64{1, 2, 3, 4}, OneVsRest, []*svm.Model{head(6, 8), head(5, 8), head(4, 8), head(3, 8)})
	ovr.Platt = &svm.Platt{A: -2}
	out["ovr"] = ovr
	out["ovo-shared"] = sharedOvO(6, 3) // its heads evaluated as a group
	return out
}

// predictAll runs every prediction method of m on the rows of x.
func predictAll(m *Model, x []float32, rows int) [][]float64 {
	var out [][]float64
	dec := make([]float64, rows*m.numHeads())
	m.HeadDecisions(dec, x, rows)
	out = append(out, dec)
	pred := make([]float64, rows)
	m.PredictBatch(pred, x, rows)
	out = append(out, pred)
	nc := len(m.Labels())
	if !m.Regression() {
		sc := make([]float64, rows*nc)
		m.ClassScores(sc, x, rows)
		out = append(out, sc)
	}
	if m.Platt != nil {
		p := make([]float64, rows*nc)
		m.Probabilities(p, x, rows)
		out = append(out, p)
	}
	if !m.Multiclass() {
		g := make([]float64, rows)
		m.DecisionBatch(g, x, rows)
		out = append(out, g, []float64{m.Decision(x[:m.InSize()]), m.Predict(x[:m.InSize()])})
	}
	return out
}

// TestConcurrentPrediction: many goroutines predicting with one model at
// once, with batches of 1, 7, 64 and 1000 rows, get bit for bit what
// sequential calls get (run with -race: no shared state).
func TestConcurrentPrediction(t *testing.T) {
	sizes := []int{1, 7, 64, 1000}
	if testing.Short() {
		sizes = []int{1, 7, 64}
	}
	for name, m := range concurrentModels(t) {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 3))
			inputs := make([][]float32, len(sizes))
			want := make([][][]float64, len(sizes))
			for i, rows := range sizes {
				if name == "mnist-cnn" {
					rows = min(rows, 200) // a CNN forward costs more
				}
				inputs[i] = make([]float32, rows*m.InSize())
				for j := range inputs[i] {
					inputs[i][j] = float32(rng.NormFloat64())
				}
				want[i] = predictAll(m, inputs[i], rows)
			}
			var wg sync.WaitGroup
			errs := make(chan string, 64)
			for g := 0; g < 16; g++ {
				wg.Go(func() {
					for r := 0; r < 3; r++ {
						i := (g + r) % len(sizes)
						rows := len(inputs[i]) / m.InSize()
						got := predictAll(m, inputs[i], rows)
						for k := range got {
							if !slices.Equal(got[k], want[i][k]) {
								errs <- name
								return
							}
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Errorf("%s: a concurrent call differs from the sequential one", e)
			}
		})
	}
}

// BenchmarkPredictConcurrent measures prediction throughput against the
// number of goroutines calling one model at once: the paper's Ringnorm
// Algorithm 4 network (MLP 20-40-30-20-20, 2000 support vectors) and its
// MNIST CNN (1000 support vectors), batches of 1 and 64 rows. rows/s is the
// throughput over all goroutines.
func BenchmarkPredictConcurrent(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	mk := func(arch string, shape []int, nsv int) *Model {
		net, err := nn.New(arch, shape, rng)
		if err != nil {
			b.Fatal(err)
		}
		d := net.OutSize()
		h := &svm.Model{Kernel: kernel.Spec{Name: "rbf", Gamma: 1 / float64(d)}, NSV: nsv, D: d, Neg: -1, Pos: 1,
			SV: make([]float32, nsv*d), Coef: make([]float64, nsv)}
		for i := range h.SV {
			h.SV[i] = float32(rng.NormFloat64())
		}
		for i := range h.Coef {
			h.Coef[i] = rng.NormFloat64()
		}
		return &Model{Algorithm: "nsvm4", Net: net, Head: h, Info: map[string]string{}}
	}
	models := []struct {
		name string
		m    *Model
	}{
		{"ringnorm", mk(nn.RingnormArchNoNorm, []int{20}, 2000)},
		{"mnist-cnn", mk(nn.MNISTArchNoNorm, []int{1, 28, 28}, 1000)},
	}
	for _, mm := range models {
		for _, batch := range []int{1, 64} {
			x := make([]float32, batch*mm.m.InSize())
			for i := range x {
				x[i] = float32(rng.Float64())
			}
			for _, g := range []int{1, 2, 4, 8, 64} {
				b.Run(fmt.Sprintf("%s/batch=%d/goroutines=%d", mm.name, batch, g), func(b *testing.B) {
					b.ReportAllocs()
					var next atomic.Int64
					var wg sync.WaitGroup
					b.ResetTimer()
					for w := 0; w < g; w++ {
						wg.Go(func() {
							pred := make([]float64, batch)
							for next.Add(1) <= int64(b.N) {
								mm.m.PredictBatch(pred, x, batch)
							}
						})
					}
					wg.Wait()
					b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		}
	}
}

// TestBatchInvariance: a row's prediction does not depend on the rows
// predicted with it: every model kind gives, bit for bit, the same values
// for rows predicted all at once, one at a time and in batches of 7. (The
// server's micro-batching relies on it.)
func TestBatchInvariance(t *testing.T) {
	models := concurrentModels(t)
	rng := rand.New(rand.NewPCG(4, 4))
	coord, err := nn.New(nn.RingnormCoordArch, []int{1, 20, 1}, rng)
	if err != nil {
		t.Fatal(err)
	}
	h := &svm.Model{Kernel: kernel.Spec{Name: "rbf", Gamma: 0.05}, NSV: 9, D: coord.OutSize(), Neg: -1, Pos: 1,
		SV: make([]float32, 9*coord.OutSize()), Coef: make([]float64, 9)}
	for i := range h.SV {
		h.SV[i] = float32(rng.NormFloat64())
	}
	for i := range h.Coef {
		h.Coef[i] = rng.NormFloat64()
	}
	models["coord"] = &Model{Algorithm: "nsvm4", Net: coord, Head: h, Info: map[string]string{}}
	for name, m := range models {
		t.Run(name, func(t *testing.T) {
			rows := 150
			x := make([]float32, rows*m.InSize())
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			all := predictAll(m, x, rows)
			for _, bs := range []int{1, 7} {
				for lo := 0; lo < rows; lo += bs {
					hi := min(rows, lo+bs)
					part := predictAll(m, x[lo*m.InSize():hi*m.InSize()], hi-lo)
					for k := range part[:2] { // head decisions and predictions
						per := len(all[k]) / rows
						if !slices.Equal(part[k], all[k][lo*per:hi*per]) {
							t.Fatalf("batch %d, rows %d–%d: output %d differs from the rows predicted at once", bs, lo, hi, k)
						}
					}
				}
			}
		})
	}
}
