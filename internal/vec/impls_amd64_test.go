//go:build amd64 && !noasm

package vec

import (
	"math"
	"testing"
	"unsafe"
)

// fastGemms lists the implementations that the tests check against SgemmRef
// on this build.
func fastGemms() map[string]gemmFunc {
	m := map[string]gemmFunc{"Sgemm": Sgemm, "go": guarded(sgemmGo)}
	if hasAVX2FMA {
		m["avx2"] = guarded(sgemm)
		// Without the split across goroutines every blocking edge of
		// the single-threaded strategies is reached.
		m["avx2-serial"] = guarded(sgemmAVXSerial)
	}
	return m
}

// TestKernArgsLayout checks kernArgs against the offsets that asm/gen.go
// compiles into the kernels.
func TestKernArgsLayout(t *testing.T) {
	var ka kernArgs
	want := map[string][2]uintptr{
		"a": {unsafe.Offsetof(ka.a), 0}, "b": {unsafe.Offsetof(ka.b), 8}, "c": {unsafe.Offsetof(ka.c), 16},
		"nt": {unsafe.Offsetof(ka.nt), 24}, "k": {unsafe.Offsetof(ka.k), 32}, "rsa": {unsafe.Offsetof(ka.rsa), 40},
		"csa": {unsafe.Offsetof(ka.csa), 48}, "ldb": {unsafe.Offsetof(ka.ldb), 56}, "bts": {unsafe.Offsetof(ka.bts), 64},
		"ldc": {unsafe.Offsetof(ka.ldc), 72}, "loadC": {unsafe.Offsetof(ka.loadC), 80}, "rem": {unsafe.Offsetof(ka.rem), 88},
		"alpha": {unsafe.Offsetof(ka.alpha), 96}, "beta": {unsafe.Offsetof(ka.beta), 100},
		"ku": {unsafe.Offsetof(ka.ku), 104},
	}
	for name, o := range want {
		if o[0] != o[1] {
			t.Errorf("kernArgs.%s at offset %d, kernels expect %d", name, o[0], o[1])
		}
	}
}

// TestConvArgsLayout checks convArgs against the offsets that asm/gen.go
// compiles into the convolution kernels.
func TestConvArgsLayout(t *testing.T) {
	var ca convArgs
	want := map[string][2]uintptr{
		"w": {unsafe.Offsetof(ca.w), 0}, "x": {unsafe.Offsetof(ca.x), 8}, "y": {unsafe.Offsetof(ca.y), 16},
		"off": {unsafe.Offsetof(ca.off), 24}, "xo": {unsafe.Offsetof(ca.xo), 32}, "g": {unsafe.Offsetof(ca.g), 40},
		"nt": {unsafe.Offsetof(ca.nt), 48}, "k": {unsafe.Offsetof(ca.k), 56}, "ldw": {unsafe.Offsetof(ca.ldw), 64},
		"ldy": {unsafe.Offsetof(ca.ldy), 72}, "ldg": {unsafe.Offsetof(ca.ldg), 80},
	}
	for name, o := range want {
		if o[0] != o[1] {
			t.Errorf("convArgs.%s at offset %d, kernels expect %d", name, o[0], o[1])
		}
	}
}

// TestAVX512SameAsAVX2 checks that the 16-lane kernels give bit for bit the
// results of the 8-lane ones (same per-lane instructions), so that a model
// trains the same on machines with and without AVX-512.
func TestAVX512SameAsAVX2(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this machine")
	}
	r := newRand(31)
	for _, d := range []int{1, 2, 7, 20, 33} {
		for _, np := range []int{1, 2, 7, 8, 9, 17, 40} {
			pan := randSlice(r, np*PanelWidth*d)
			b := randSlice(r, d)
			want := make([]float32, np*PanelWidth)
			got := make([]float32, np*PanelWidth)
			panelDotAVX(&want[0], &pan[0], &b[0], np, d)
			panelDotAVX512(&got[0], &pan[0], &b[0], np, d)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("PanelDots d=%d np=%d [%d]: AVX-512 %g, AVX2 %g", d, np, i, got[i], want[i])
				}
			}
			// The fused row against PanelDots, RBFArg and exp on AVX2.
			norms := make([]float32, len(want))
			for i := range norms {
				norms[i] = float32(math.Abs(r.NormFloat64())) * float32(d)
			}
			if np > 2 {
				norms[3] = float32(math.NaN())
				norms[5] = -1e3 // a negative distance, clipped to 0
			}
			nb, g := float32(d)/2, float32(0.3)
			rbfArgAVX(&want[0], &norms[0], nb, g, len(want))
			expAVX(&want[0], &want[0], len(want))
			c := make([]float64, len(want))
			for i := range c {
				c[i] = r.NormFloat64() * 1e3
			}
			c[len(c)-1] = 1e-9
			sum := panelRBFAVX512(&got[0], &pan[0], &b[0], &norms[0], &c[0], nb, g, np, d)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("PanelRBF d=%d np=%d [%d]: AVX-512 %g, AVX2 %g", d, np, i, got[i], want[i])
				}
			}
			if s2 := dotMixedAVX(&c[0], &want[0], len(want)); math.Float64bits(sum) != math.Float64bits(s2) {
				t.Fatalf("PanelRBF d=%d np=%d: sum %v, dotMixedAVX %v", d, np, sum, s2)
			}
			if s0 := panelRBFAVX512(&got[0], &pan[0], &b[0], &norms[0], nil, nb, g, np, d); s0 != 0 {
				t.Fatalf("PanelRBF without c returned %v", s0)
			}
		}
	}
	// exp over the whole float32 range that matters, specials included.
	src := make([]float32, 0, 1<<16+32)
	for i := 0; i < 1<<16; i++ {
		src = append(src, -120+220*float32(i)/(1<<16))
	}
	src = append(src, 0, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), -104, 89, -1e30, 1e30)
	for len(src)%16 != 0 {
		src = append(src, float32(r.NormFloat64()))
	}
	want := make([]float32, len(src))
	got := make([]float32, len(src))
	expAVX(&want[0], &src[0], len(src))
	expAVX512(&got[0], &src[0], len(src))
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("exp(%g): AVX-512 %g (%#x), AVX2 %g (%#x)", src[i], got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestSgemmAVX512SameAsAVX2 checks that the AVX-512 GEMM kernel (12-row
// panels) gives bit for bit what the AVX2 kernels give, on every path
// (in-place B, packed B, shallow and deep), with and without β.
func TestSgemmAVX512SameAsAVX2(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512 on this machine")
	}
	defer func(v bool) { hasAVX512 = v }(hasAVX512)
	r := newRand(37)
	for _, m := range []int{11, 12, 13, 24, 37, 150} {
		for _, n := range []int{16, 17, 40, 64} {
			for _, k := range []int{1, 5, 63, 64, 300} {
				for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
					a, b := randSlice(r, m*k), randSlice(r, k*n)
					lda, ldb := k, n
					if tr[0] {
						lda = m
					}
					if tr[1] {
						ldb = k
					}
					c0 := randSlice(r, m*n)
					run := func(z bool, beta float32) []float32 {
						hasAVX512 = z
						c := append([]float32(nil), c0...)
						sgemmAVXSerial(tr[0], tr[1], m, n, k, 0.7, a, lda, b, ldb, beta, c, n)
						return c
					}
					for _, beta := range []float32{0, 0.5} {
						want, got := run(false, beta), run(true, beta)
						for i := range want {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("m=%d n=%d k=%d trans=%v β=%g [%d]: AVX-512 %g, AVX2 %g", m, n, k, tr, beta, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}
