package vec

import (
	"fmt"
	"math"
	"testing"
)

// benchShapes are the products that matter to the rest of nsvm: the layers of
// the 20-40-30-20-20 MLP at batch 1 and 64 and over the 6660 Ringnorm
// training points, the two convolutions of the paper's CNN at batch 64
// (forward C = W·cols, weight gradient dY·colsᵀ, input gradient Wᵀ·dY) and
// square products.
var benchShapes = []struct {
	op      string
	m, n, k int
}{
	{"NT", 1, 40, 20}, {"NN", 1, 40, 20}, {"TN", 1, 40, 20}, {"TT", 1, 40, 20},
	{"NN", 1, 20, 40}, {"TN", 40, 20, 1},
	{"NT", 64, 40, 20}, {"NN", 64, 40, 20}, {"TN", 64, 40, 20}, {"TT", 64, 40, 20},
	{"NT", 6660, 40, 20}, {"NN", 6660, 40, 20},
	{"NN", 10, 64 * 576, 25}, {"NT", 10, 25, 64 * 576}, {"TN", 25, 64 * 576, 10},
	{"NN", 20, 64 * 64, 250}, {"NT", 20, 250, 64 * 64}, {"TN", 250, 64 * 64, 20},
	{"NN", 256, 256, 256}, {"NT", 256, 256, 256},
	{"NN", 1024, 1024, 1024},
}

func BenchmarkSgemm(b *testing.B) {
	impls := []struct {
		name string
		f    gemmFunc
	}{{"ref", SgemmRef}, {"fast", sgemm}}
	for _, im := range impls {
		for _, s := range benchShapes {
			name := fmt.Sprintf("%s/%s/%dx%dx%d", im.name, s.op, s.m, s.n, s.k)
			b.Run(name, func(b *testing.B) {
				if im.name == "ref" && testing.Short() && s.m*s.n*s.k > 1<<24 {
					b.Skip("slow reference")
				}
				tA, tB := s.op[0] == 'T', s.op[1] == 'T'
				lda, ldb := s.k, s.n
				if tA {
					lda = s.m
				}
				if tB {
					ldb = s.k
				}
				r := newRand(7)
				a, bb, c := randSlice(r, s.m*s.k), randSlice(r, s.k*s.n), randSlice(r, s.m*s.n)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					im.f(tA, tB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 1, c, s.n)
				}
				b.ReportMetric(2*float64(s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func BenchmarkExp(b *testing.B) {
	impls := []struct {
		name string
		f    func(dst, src []float32)
	}{{"ref", expToMath}, {"go", expToGo}, {"fast", ExpTo}}
	for _, im := range impls {
		for _, n := range []int{16, 1000, 100000} {
			b.Run(fmt.Sprintf("%s/%d", im.name, n), func(b *testing.B) {
				src := randSlice(newRand(8), n)
				dst := make([]float32, n)
				b.ReportAllocs()
				b.SetBytes(int64(4 * n))
				for b.Loop() {
					im.f(dst, src)
				}
			})
		}
	}
}

// expToMath is the float64 math.Exp loop that ExpTo replaced.
func expToMath(dst, src []float32) {
	for i, v := range src {
		dst[i] = float32(math.Exp(float64(v)))
	}
}

func BenchmarkDot(b *testing.B) {
	for _, im := range []struct {
		name string
		f    func(a, b []float32) float32
	}{{"ref", dotGo}, {"fast", Dot}} {
		for _, n := range []int{20, 256, 4096} {
			b.Run(fmt.Sprintf("%s/%d", im.name, n), func(b *testing.B) {
				r := newRand(9)
				x, y := randSlice(r, n), randSlice(r, n)
				b.ReportAllocs()
				b.SetBytes(int64(8 * n))
				var s float32
				for b.Loop() {
					s += im.f(x, y)
				}
				_ = s
			})
		}
	}
}

func BenchmarkSqDist(b *testing.B) {
	for _, im := range []struct {
		name string
		f    func(a, b []float32) float64
	}{{"ref", sqDistGo}, {"fast", SqDist}} {
		for _, n := range []int{20, 784} {
			b.Run(fmt.Sprintf("%s/%d", im.name, n), func(b *testing.B) {
				r := newRand(9)
				x, y := randSlice(r, n), randSlice(r, n)
				b.ReportAllocs()
				var s float64
				for b.Loop() {
					s += im.f(x, y)
				}
				_ = s
			})
		}
	}
}

// BenchmarkSgemv sweeps kernel-row shapes: #SV×d matrices times one point
// (y = Z·b), and the transposed product (Zᵀ·w) of the gradients.
func BenchmarkSgemv(b *testing.B) {
	ref := func(trans bool, m, n int, alpha float32, a []float32, lda int, x []float32, beta float32, y []float32) {
		if trans {
			SgemmRef(true, false, n, 1, m, alpha, a, lda, x, 1, beta, y, 1)
			return
		}
		for i := 0; i < m; i++ {
			y[i] = beta*y[i] + alpha*dotGo(a[i*lda:i*lda+n], x[:n])
		}
	}
	for _, im := range []struct {
		name string
		f    func(trans bool, m, n int, alpha float32, a []float32, lda int, x []float32, beta float32, y []float32)
	}{{"ref", ref}, {"fast", Sgemv}} {
		for _, s := range []struct {
			trans bool
			m, n  int
		}{{false, 2000, 20}, {true, 2000, 20}, {false, 1000, 784}} {
			op := "N"
			if s.trans {
				op = "T"
			}
			b.Run(fmt.Sprintf("%s/%s/%dx%d", im.name, op, s.m, s.n), func(b *testing.B) {
				r := newRand(12)
				a := randSlice(r, s.m*s.n)
				x, y := randSlice(r, max(s.m, s.n)), randSlice(r, max(s.m, s.n))
				b.ReportAllocs()
				for b.Loop() {
					im.f(s.trans, s.m, s.n, 1, a, s.n, x, 1, y)
				}
				b.ReportMetric(2*float64(s.m*s.n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkPanelRow times the kernel-row kernels over n points of d = 20
// in panels (ns/pt per point): PanelDots alone (256 points sit in L1, the
// others stream from L2), and the RBF row as one PanelRBF pass and as
// PanelDots, RBFArg and ExpTo in turn.
func BenchmarkPanelRow(b *testing.B) {
	const d = 20
	for _, n := range []int{256, 1000, 10000} {
		np := n / PanelWidth
		r := newRand(5)
		pan := randSlice(r, np*PanelWidth*d)
		x := randSlice(r, d)
		norms := make([]float32, np*PanelWidth)
		for i := range norms {
			norms[i] = 20 + float32(i%5)
		}
		dst := make([]float32, np*PanelWidth)
		perPoint := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(np*PanelWidth), "ns/pt")
		}
		b.Run(fmt.Sprintf("dots/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				PanelDots(dst, pan, x, np, d)
			}
			perPoint(b)
		})
		b.Run(fmt.Sprintf("rbf/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				PanelRBF(dst, pan, x, norms, 20, 0.05, np, d)
			}
			perPoint(b)
		})
		b.Run(fmt.Sprintf("rbf-in-turn/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				PanelDots(dst, pan, x, np, d)
				RBFArg(dst, norms, 20, 0.05)
				ExpTo(dst, dst)
			}
			perPoint(b)
		})
	}
}

// BenchmarkConv runs the implicit-im2col kernels on the two convolutions of
// the paper's CNN for 32 samples (one part of a batch of 64) and for one:
// conv1 (1×28×28 input in rows, 10 channels) and conv2 (10×12×12
// channel-first, 20 channels), both 5×5. The input gradient is that of conv2
// only, with its rows in (ky, kx, c) order as nn orders them.
func BenchmarkConv(b *testing.B) {
	for _, c := range []struct {
		name string
		g    convGeom
		m    int
	}{
		{"conv1", convGeom{32, 1, 28, 28, 5, false}, 10},
		{"conv2", convGeom{32, 10, 12, 12, 5, true}, 20},
		{"conv1-n1", convGeom{1, 1, 28, 28, 5, false}, 10},
		{"conv2-n1", convGeom{1, 10, 12, 12, 5, true}, 20},
	} {
		off, xo := c.g.tables()
		k, np := len(off), ConvVec*len(xo)
		r := newRand(8)
		x := randSlice(r, c.g.n*c.g.cin*c.g.h*c.g.w)
		w := randSlice(r, c.m*k)
		bias := randSlice(r, c.m)
		y := make([]float32, c.m*np)
		gr := make([]float32, c.m*k)
		flops := 2 * float64(c.m*k*np)
		report := func(b *testing.B) {
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		b.Run(c.name+"/forward", func(b *testing.B) {
			for b.Loop() {
				// One or two samples per call, as nn does.
				per := len(xo) / c.g.n
				step := max(1, 512/(per*ConvVec)) * per
				for v0 := 0; v0 < len(xo); v0 += step {
					v1 := min(len(xo), v0+step)
					ConvForward(c.m, w, k, bias, x, off, xo[v0:v1], y[ConvVec*v0:], np)
				}
			}
			report(b)
		})
		b.Run(c.name+"/weightgrad", func(b *testing.B) {
			for b.Loop() {
				ConvWeightGrad(c.m, y, np, x, off, xo, gr, k)
			}
			report(b)
		})
		if c.g.cin > 1 {
			// Rows by kernel position, then channel.
			var offp []int32
			for q := 0; q < c.g.k*c.g.k; q++ {
				for ci := 0; ci < c.g.cin; ci++ {
					offp = append(offp, off[ci*c.g.k*c.g.k+q])
				}
			}
			b.Run(c.name+"/inputgrad", func(b *testing.B) {
				for b.Loop() {
					ConvInputGrad(c.m, w, k, y, np, offp, xo, x)
				}
				report(b)
			})
		}
	}
}

// BenchmarkMaxPool2 runs the two passes of the 2×2 max-pool after conv1 of
// the paper's CNN for 32 samples: 320 planes of 24×24.
func BenchmarkMaxPool2(b *testing.B) {
	const w, pairs = 24, 320 * 12
	r := newRand(9)
	x := randSlice(r, 2*w*pairs)
	y := make([]float32, len(x)/4)
	dy := randSlice(r, len(y))
	dx := make([]float32, len(x))
	b.Run("forward", func(b *testing.B) {
		for b.Loop() {
			MaxPool2(y, x, w, true)
		}
	})
	b.Run("backward", func(b *testing.B) {
		for b.Loop() {
			MaxPool2Grad(dx, x, dy, w, true)
		}
	})
}
