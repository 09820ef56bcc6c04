package vec

import (
	"math"
	"testing"
)

// TestPanelDots checks PanelDots and its reference against float64 dot
// products for every panel count around the 8-panel blocks and several d.
func TestPanelDots(t *testing.T) {
	r := newRand(11)
	for _, d := range []int{0, 1, 2, 7, 20, 33} {
		for _, np := range []int{0, 1, 2, 7, 8, 9, 16, 17, 40} {
			pan := randSlice(r, np*PanelWidth*d+3)
			b := randSlice(r, d)
			got := randSlice(r, np*PanelWidth+1) // one extra value that must stay
			ref := make([]float32, np*PanelWidth)
			last := got[len(got)-1]
			PanelDots(got, pan, b, np, d)
			if d > 0 {
				panelDotsGo(ref, pan, b, np, d)
			}
			if got[len(got)-1] != last {
				t.Fatalf("d=%d np=%d: wrote past np·8", d, np)
			}
			for q := 0; q < np; q++ {
				for l := 0; l < PanelWidth; l++ {
					var want, mag float64
					for f := 0; f < d; f++ {
						v := float64(pan[q*PanelWidth*d+f*PanelWidth+l]) * float64(b[f])
						want += v
						mag += math.Abs(v)
					}
					i := q*PanelWidth + l
					tol := 1e-6*float64(d+1)*mag + 1e-30
					if math.Abs(float64(got[i])-want) > tol || math.Abs(float64(ref[i])-want) > tol {
						t.Fatalf("d=%d np=%d point %d: got %g, reference %g, want %g", d, np, i, got[i], ref[i], want)
					}
				}
			}
		}
	}
}

// TestRBFArg checks RBFArg against its reference bit for bit (the fused
// subtraction rounds as the scalar one because 2·dot is exact), including
// clipping at 0 and NaN propagation.
func TestRBFArg(t *testing.T) {
	r := newRand(12)
	for _, n := range lengths {
		dots := randSlice(r, n)
		norms := randSlice(r, n)
		for i := range norms {
			norms[i] = float32(math.Abs(float64(norms[i]))) * 3
		}
		if n > 2 {
			dots[1] = float32(math.NaN())
			dots[2] = 100 // negative distance: clipped to 0
		}
		got := append([]float32(nil), dots...)
		want := append([]float32(nil), dots...)
		RBFArg(got, norms, 0.7, 0.05)
		rbfArgGo(want, norms, 0.7, 0.05)
		for i := range got {
			g, w := got[i], want[i]
			if g != w && !(math.IsNaN(float64(g)) && math.IsNaN(float64(w))) {
				t.Fatalf("n=%d: dst[%d] = %g, reference %g", n, i, g, w)
			}
		}
		if n > 2 {
			if !math.IsNaN(float64(got[1])) {
				t.Errorf("n=%d: NaN dot gave %g", n, got[1])
			}
			if got[2] != 0 {
				t.Errorf("n=%d: negative distance gave %g, want 0", n, got[2])
			}
		}
	}
}

// TestDotMixed checks DotMixed against a float64 sum for every tail length.
func TestDotMixed(t *testing.T) {
	r := newRand(13)
	for _, n := range lengths {
		x := randSlice(r, n)
		c := make([]float64, n)
		var want, mag float64
		for i := range c {
			c[i] = float64(i%7) - 3.5
			v := c[i] * float64(x[i])
			want += v
			mag += math.Abs(v)
		}
		if got := DotMixed(c, x); math.Abs(got-want) > 1e-13*mag+1e-300 {
			t.Errorf("n=%d: %g, want %g", n, got, want)
		}
		if got := dotMixedGo(c, x); math.Abs(got-want) > 1e-13*mag+1e-300 {
			t.Errorf("reference n=%d: %g, want %g", n, got, want)
		}
	}
}

// TestMaxToPairMax checks MaxTo and PairMax against scalar loops, with NaNs
// in either operand and negative values for the relu.
func TestMaxToPairMax(t *testing.T) {
	r := newRand(14)
	same := func(a, b float32) bool { return a == b || (math.IsNaN(float64(a)) && math.IsNaN(float64(b))) }
	nan := float32(math.NaN())
	for _, n := range lengths {
		a, b := randSlice(r, n), randSlice(r, n)
		for i := 0; i < n; i += 7 {
			if i%2 == 0 {
				a[i] = nan
			} else {
				b[i] = nan
			}
		}
		got := make([]float32, n)
		MaxTo(got, a, b)
		for i := range got {
			if want := max(a[i], b[i]); !same(got[i], want) {
				t.Fatalf("MaxTo n=%d: dst[%d] = %g, want %g (a %g, b %g)", n, i, got[i], want, a[i], b[i])
			}
		}
		src := randSlice(r, 2*n)
		for i := 0; i < 2*n; i += 11 {
			src[i] = nan
		}
		for _, relu := range []bool{false, true} {
			got := make([]float32, n)
			PairMax(got, src, relu)
			for i := range got {
				want := max(src[2*i], src[2*i+1])
				if relu && want < 0 {
					want = 0
				}
				if !same(got[i], want) || (relu && math.Signbit(float64(got[i])) && got[i] == 0 && want == 0 && !math.Signbit(float64(want))) {
					t.Fatalf("PairMax n=%d relu=%v: dst[%d] = %g, want %g", n, relu, i, got[i], want)
				}
			}
		}
	}
}

// TestRelu checks Relu against the scalar relu bit for bit: negative
// values (−Inf too) become +0, NaN, −0, +Inf and positive values stay; in
// place and into another slice.
func TestRelu(t *testing.T) {
	r := newRand(15)
	nan := float32(math.NaN())
	special := []float32{nan, float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1)), -1e-30}
	for _, n := range lengths {
		src := randSlice(r, n)
		for i := 0; i < n; i += 5 {
			src[i] = special[(i/5)%len(special)]
		}
		want := make([]float32, n)
		for i, v := range src {
			want[i] = v
			if v < 0 {
				want[i] = 0
			}
		}
		got := make([]float32, n)
		Relu(got, src)
		Relu(src, src)
		for i := range got {
			for _, g := range []float32{got[i], src[i]} {
				if math.Float32bits(g) != math.Float32bits(want[i]) && !(math.IsNaN(float64(g)) && math.IsNaN(float64(want[i]))) {
					t.Fatalf("Relu n=%d: dst[%d] = %g (bits %x), want %g (bits %x)", n, i, g, math.Float32bits(g), want[i], math.Float32bits(want[i]))
				}
			}
		}
	}
}

// TestHasNaNInf puts one NaN, +Inf or −Inf at every position of slices of
// several lengths (the vector loop, its unrolled part and the scalar tail)
// and checks that it is found, and that large finite values are not.
func TestHasNaNInf(t *testing.T) {
	r := newRand(16)
	for _, n := range lengths {
		x := randSlice(r, n)
		if n > 0 {
			x[0], x[n-1] = math.MaxFloat32, -math.MaxFloat32
		}
		if HasNaNInf(x) {
			t.Fatalf("n=%d: finite slice reported non-finite", n)
		}
		for i := 0; i < n; i++ {
			for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				old := x[i]
				x[i] = float32(v)
				if !HasNaNInf(x) {
					t.Fatalf("n=%d: %g at %d not found", n, v, i)
				}
				x[i] = old
			}
		}
	}
}

// TestReluGrad checks ReluGrad bit for bit against the scalar rule: g where
// y > 0, +0 where y ≤ 0, y = −0 or y NaN; NaN and −0 in g are kept where
// y > 0; in place too.
func TestReluGrad(t *testing.T) {
	r := newRand(17)
	nan := float32(math.NaN())
	negz := float32(math.Copysign(0, -1))
	special := []float32{nan, negz, 0, float32(math.Inf(1)), float32(math.Inf(-1)), 1e-30, -1e-30}
	for _, n := range lengths {
		g, y := randSlice(r, n), randSlice(r, n)
		for i := 0; i < n; i += 3 {
			y[i] = special[(i/3)%len(special)]
		}
		for i := 1; i < n; i += 4 {
			g[i] = special[(i/4)%len(special)]
		}
		want := make([]float32, n)
		for i := range want {
			if y[i] > 0 {
				want[i] = g[i]
			}
		}
		got := make([]float32, n)
		ReluGrad(got, g, y)
		ReluGrad(g, g, y)
		for i := range got {
			for _, v := range []float32{got[i], g[i]} {
				if math.Float32bits(v) != math.Float32bits(want[i]) {
					t.Fatalf("ReluGrad n=%d: dst[%d] = %g (bits %x), want %g (bits %x), y %g", n, i, v, math.Float32bits(v), want[i], math.Float32bits(want[i]), y[i])
				}
			}
		}
	}
}

// TestPanelRBF checks the one-pass RBF row bit for bit against PanelDots,
// RBFArg and ExpTo in turn, and loosely against float64 arithmetic.
func TestPanelRBF(t *testing.T) {
	r := newRand(13)
	for _, d := range []int{0, 1, 3, 20, 33} {
		for _, np := range []int{0, 1, 2, 7, 8, 9, 17, 40} {
			n := np * PanelWidth
			pan := randSlice(r, n*d)
			b := randSlice(r, d)
			norms := make([]float32, n)
			for i := range norms {
				var s float32
				for f := 0; f < d; f++ {
					v := pan[(i/PanelWidth)*PanelWidth*d+f*PanelWidth+i%PanelWidth]
					s += v * v
				}
				norms[i] = s
			}
			nb := float32(0)
			for _, v := range b {
				nb += v * v
			}
			const g = 0.1
			got := make([]float32, n+1)
			got[n] = 7 // must stay
			c := randSlice64(r, n)
			sum := PanelRBFSum(got, pan, b, norms, c, nb, g, np, d)
			want := make([]float32, n)
			PanelDots(want, pan, b, np, d)
			RBFArg(want, norms, nb, g)
			ExpTo(want, want)
			if s2 := DotMixed(c, want); math.Float64bits(sum) != math.Float64bits(s2) {
				t.Fatalf("d=%d np=%d: PanelRBFSum sum %v, DotMixed %v", d, np, sum, s2)
			}
			got2 := make([]float32, n)
			PanelRBF(got2, pan, b, norms, nb, g, np, d)
			for i := range got2 {
				if math.Float32bits(got2[i]) != math.Float32bits(got[i]) {
					t.Fatalf("d=%d np=%d [%d]: PanelRBF %g, PanelRBFSum %g", d, np, i, got2[i], got[i])
				}
			}
			if got[n] != 7 {
				t.Fatalf("d=%d np=%d: wrote past np·16", d, np)
			}
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("d=%d np=%d [%d]: PanelRBF %g, in turn %g", d, np, i, got[i], want[i])
				}
				var d2 float64
				for f := 0; f < d; f++ {
					v := float64(pan[(i/PanelWidth)*PanelWidth*d+f*PanelWidth+i%PanelWidth]) - float64(b[f])
					d2 += v * v
				}
				if e := math.Exp(-g * d2); math.Abs(float64(got[i])-e) > 1e-5 {
					t.Fatalf("d=%d np=%d [%d]: PanelRBF %g, exp(−g‖z−b‖²) %g", d, np, i, got[i], e)
				}
			}
		}
	}
}

func randSlice64(r interface{ NormFloat64() float64 }, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.NormFloat64()
	}
	return s
}
