package nn

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// newConvPair returns two conv layers with the same random weights for
// inputs of cin×h×w, one of them running Winograd's algorithm in training.
func newConvPair(cin, h, w, cout, k int, cf, relu bool) (direct, wino *conv) {
	rng := newRand(uint64(cin*1000 + h*10 + k))
	wt := uniform(rng, cout*cin*k*k, -0.3, 0.3)
	b := uniform(rng, cout, -0.3, 0.3)
	mk := func() *conv {
		ho, wo := h-k+1, w-k+1
		return &conv{relu: relu, cin: cin, h: h, w: w, cout: cout, k: k, ho: ho, wo: wo, ow: wo, cfIn: cf,
			implicit: implicitConv(wo), chunk: 4, colsAt: -1, tabN: -1,
			wt: append([]float32(nil), wt...), b: append([]float32(nil), b...),
			gw: make([]float32, len(wt)), gb: make([]float32, cout)}
	}
	direct, wino = mk(), mk()
	wino.wino = &winoConv{m: winoFor(k, h-k+1, w-k+1)}
	return direct, wino
}

// relErr returns max|a−b| / max|b|.
func relErr(a, b []float32) float64 {
	var d, m float64
	for i := range b {
		d = math.Max(d, math.Abs(float64(a[i])-float64(b[i])))
		m = math.Max(m, math.Abs(float64(b[i])))
	}
	return d / math.Max(m, 1e-30)
}

// Winograd's forward pass, weight, bias and input gradients match the
// direct convolution's to float32 rounding (the transforms' error is a few
// 10⁻⁶ of the largest value), on channel-first and sample-major inputs,
// with and without a fused relu, for 5×5 and 3×3 kernels.
func TestWinogradMatchesDirect(t *testing.T) {
	for _, c := range []struct {
		cin, h, w, cout, k, n int
		cf, relu              bool
	}{
		{32, 12, 12, 64, 5, 3, true, false},
		{32, 12, 12, 64, 5, 2, true, true},
		{8, 8, 10, 5, 5, 2, false, false},
		{16, 10, 6, 7, 3, 3, true, true},
		{9, 6, 6, 4, 3, 1, false, true},
	} {
		t.Run(fmt.Sprintf("%dx%dx%d-k%d-n%d-cf%v-relu%v", c.cin, c.h, c.w, c.k, c.n, c.cf, c.relu), func(t *testing.T) {
			d, w := newConvPair(c.cin, c.h, c.w, c.cout, c.k, c.cf, c.relu)
			x := uniform(newRand(5), c.n*c.cin*c.h*c.w, -1, 1)
			yd := append([]float32(nil), d.forward(x, c.n, true)...)
			yw := w.forward(x, c.n, true)
			if !w.usedWino || d.usedWino {
				t.Fatal("the layers did not take the paths under test")
			}
			if e := relErr(yw, yd); e > 2e-5 {
				t.Fatalf("forward: relative error %.2g", e)
			}
			dy := uniform(newRand(6), len(yd), -1, 1)
			dxd := append([]float32(nil), d.backward(dy, c.n, true)...)
			dxw := w.backward(dy, c.n, true)
			for _, g := range []struct {
				name string
				a, b []float32
			}{{"input", dxw, dxd}, {"weight", w.gw, d.gw}, {"bias", w.gb, d.gb}} {
				if e := relErr(g.a, g.b); e > 2e-5 {
					t.Errorf("%s gradient: relative error %.2g", g.name, e)
				}
			}
			// Without the input gradient, the same parameter gradients
			// are added again.
			gw := append([]float32(nil), w.gw...)
			w.forward(x, c.n, true)
			if w.backward(dy, c.n, false) != nil {
				t.Fatal("an input gradient without needDx")
			}
			for i := range gw {
				if math.Abs(float64(w.gw[i]-2*gw[i])) > 1e-5*math.Abs(float64(gw[i]))+1e-6 {
					t.Fatalf("weight gradient %d: %g after two passes, %g after one", i, w.gw[i], gw[i])
				}
			}
		})
	}
}

// Inference keeps the direct convolution: the same layer gives bit-identical
// outputs in inference whether or not its training passes are Winograd's.
func TestWinogradInference(t *testing.T) {
	d, w := newConvPair(32, 12, 12, 16, 5, true, true)
	x := uniform(newRand(7), 2*32*144, -1, 1)
	yd := append([]float32(nil), d.forward(x, 2, false)...)
	yw := w.forward(x, 2, false)
	if w.usedWino {
		t.Fatal("inference took the Winograd path")
	}
	for i := range yd {
		if yd[i] != yw[i] {
			t.Fatalf("output %d: %g, want %g", i, yw[i], yd[i])
		}
	}
}

// The image CNN's second convolution trains by Winograd's algorithm, its
// first directly (one input channel); the paper's MNIST CNN's both directly
// (1 and 10 input channels).
func TestWinogradChoice(t *testing.T) {
	for _, c := range []struct{ arch, want string }{
		{imageArch, "[false true]"},
		{MNISTArch, "[false false]"},
	} {
		n := mustNew(t, c.arch, []int{1, 28, 28}, 1)
		var got []bool
		for _, l := range n.trainReps[0].layers {
			if cv, ok := l.(*conv); ok {
				got = append(got, cv.wino != nil)
				if cv.wino != nil && cv.wino.m != wino45 {
					t.Errorf("%s: the 8×8 output of a 5×5 convolution trains with F(%d, %d), want F(4, 5)", c.arch, cv.wino.m.m, cv.wino.m.r)
				}
			}
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s: Winograd on the convolutions: %v, want %s", c.arch, got, c.want)
		}
	}
}

// BenchmarkConvTrain is the forward and backward pass of the image CNN's
// second convolution (32 → 64 channels, 5×5, on 12×12) for a part of 32
// samples, direct and by Winograd's algorithm.
func BenchmarkConvTrain(b *testing.B) {
	for _, name := range []string{"direct", "winograd"} {
		b.Run(name, func(b *testing.B) {
			d, w := newConvPair(32, 12, 12, 64, 5, true, false)
			l := d
			if name == "winograd" {
				l = w
			}
			const n = 32
			x := uniform(newRand(5), n*32*144, -1, 1)
			dy := uniform(newRand(6), n*64*64, -1, 1)
			l.forward(x, n, true)
			l.backward(dy, n, true)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				l.forward(x, n, true)
				l.backward(dy, n, true)
			}
		})
	}
}

// TestPermute checks permuteIn and permuteOut against their definition,
// channel-first and sample-major, with channel counts that leave a tail
// of fewer than eight and pixel counts that leave a partial block.
func TestPermute(t *testing.T) {
	for _, tc := range []struct{ nc, n, hw int }{{1, 3, 5}, {8, 2, 8}, {11, 3, 13}, {32, 4, 144}} {
		for _, cf := range []bool{true, false} {
			cs, ns := tc.n*tc.hw, tc.hw
			if !cf {
				cs, ns = tc.hw, tc.nc*tc.hw
			}
			size := tc.nc * tc.n * tc.hw
			src := make([]float32, size)
			for i := range src {
				src[i] = float32(i + 1)
			}
			rows := make([]float32, size)
			permuteIn(rows, src, tc.nc, tc.n, tc.hw, cs, ns)
			for c := range tc.nc {
				for s := range tc.n {
					for p := range tc.hw {
						if got, want := rows[p*tc.n*tc.nc+s*tc.nc+c], src[c*cs+s*ns+p]; got != want {
							t.Fatalf("%+v cf=%v: permuteIn at c=%d s=%d p=%d: %g, want %g", tc, cf, c, s, p, got, want)
						}
					}
				}
			}
			back := make([]float32, size)
			permuteOut(back, rows, tc.nc, tc.n, tc.hw, cs, ns)
			if !slices.Equal(back, src) {
				t.Fatalf("%+v cf=%v: permuteOut does not undo permuteIn", tc, cf)
			}
		}
	}
}

// TestTiles checks tilesOut and tilesIn against their definition on a
// non-square output, with 2×2 and 4×4 tiles, and that tileOffsets follows
// a change of batch size.
func TestTiles(t *testing.T) {
	for _, c := range []struct {
		m      *winoMats
		ho, wo int
	}{{wino5, 6, 4}, {wino45, 8, 4}} {
		l := &conv{ho: c.ho, wo: c.wo, wino: &winoConv{m: c.m}}
		wc := l.tilesFor()
		mt := c.m.m
		th, tw := c.ho/mt, c.wo/mt
		for _, n := range []int{3, 2} {
			const nk = 5
			tiles, hw := th*tw, c.ho*c.wo
			tn := tiles * n
			y4 := make([]float32, mt*mt*nk*tn)
			for i := range y4 {
				y4[i] = float32(i + 1)
			}
			bias := []float32{0.5, 1.5, 2.5, 3.5, 4.5}
			y := make([]float32, nk*n*hw)
			tilesOut(y, y4, nk, n, tn, wc.tileOffsets(nk, n), bias)
			back := make([]float32, len(y4))
			tilesIn(back, y, nk, n, tn, wc.tileOffsets(nk, n))
			for k := range nk {
				for s := range n {
					for ty := range th {
						for tx := range tw {
							for ij := range mt * mt {
								p := (mt*ty+ij/mt)*c.wo + mt*tx + ij%mt
								v := y4[(ij*nk+k)*tn+(ty*tw+tx)*n+s]
								if got := y[(k*n+s)*hw+p]; got != v+bias[k] {
									t.Fatalf("m=%d n=%d: tilesOut at k=%d s=%d p=%d: %g, want %g", mt, n, k, s, p, got, v+bias[k])
								}
							}
						}
					}
				}
			}
			for i, v := range back {
				if v != y4[i]+bias[(i/tn)%nk] {
					t.Fatalf("m=%d n=%d: tilesIn does not invert tilesOut at %d: %g, want %g", mt, n, i, v, y4[i]+bias[(i/tn)%nk])
				}
			}
		}
	}
}

// Every set of matrices computes the 1-D correlation y_i = Σ_k g_k·d_{i+k}
// of m outputs as Aᵀ[(G g) ⊙ (Bᵀ d)], in float64 up to the float32 rounding
// of the stored matrices: the hand-entered
// F(2, 3) and F(2, 5) and toomCook's F(4, 3) and F(4, 5); a wrong point or
// sign in a construction fails here before it reaches a network.
func TestWinogradMatrices(t *testing.T) {
	rng := newRand(11)
	for _, c := range []struct {
		name string
		m    *winoMats
		mt   int
		r    int
	}{{"F(2,3)", wino3, 2, 3}, {"F(2,5)", wino5, 2, 5}, {"F(4,3)", wino43, 4, 3}, {"F(4,5)", wino45, 4, 5}} {
		m := c.m
		if m.m != c.mt || m.r != c.r || m.a != c.mt+c.r-1 {
			t.Fatalf("%s: m=%d r=%d α=%d", c.name, m.m, m.r, m.a)
		}
		for range 5 {
			g := uniform(rng, m.r, -1, 1)
			d := uniform(rng, m.a, -1, 1)
			for i := 0; i < m.m; i++ {
				var want, got float64
				for k := 0; k < m.r; k++ {
					want += float64(g[k]) * float64(d[i+k])
				}
				for xi := 0; xi < m.a; xi++ {
					var gg, dd float64
					for k := 0; k < m.r; k++ {
						gg += float64(m.g[xi*m.r+k]) * float64(g[k])
					}
					for j := 0; j < m.a; j++ {
						dd += float64(m.bt[xi*m.a+j]) * float64(d[j])
					}
					got += float64(m.at[i*m.a+xi]) * gg * dd
				}
				// G is stored in float32: its rounding bounds the agreement.
				if math.Abs(got-want) > 1e-6*(1+math.Abs(want)) {
					t.Fatalf("%s: output %d = %.9g, want %.9g", c.name, i, got, want)
				}
			}
		}
	}
}
