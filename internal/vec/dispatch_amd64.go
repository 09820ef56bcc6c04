//go:build amd64 && !noasm

package vec

import (
	"math"

	"golang.org/x/sys/cpu"
)

// hasAVX2FMA is fixed at start-up: the assembly kernels need AVX2 and FMA3
// (and the OS support for the YMM state that x/sys/cpu checks).
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasAVX512 selects the 16-lane forms of the kernel-row kernels (PanelDots,
// ExpTo and the one-pass PanelRBF), which run the same per-lane instruction
// sequence as the 8-lane ones and so give the same results. x/sys/cpu checks the OS support for the
// ZMM state.
var hasAVX512 = hasAVX2FMA && cpu.X86.HasAVX512F

func dot(a, b []float32) float32 {
	if hasAVX2FMA && len(a) >= 8 {
		b = b[:len(a)]
		return dotAVX(&a[0], &b[0], len(a))
	}
	return dotGo(a, b)
}

func dot64(a, b []float32) float64 {
	if hasAVX2FMA && len(a) >= 4 {
		b = b[:len(a)]
		return dot64AVX(&a[0], &b[0], len(a))
	}
	return dot64Go(a, b)
}

func sqDist(a, b []float32) float64 {
	if hasAVX2FMA && len(a) >= 4 {
		b = b[:len(a)]
		return sqDistAVX(&a[0], &b[0], len(a))
	}
	return sqDistGo(a, b)
}

func axpy(alpha float32, x, y []float32) {
	if hasAVX2FMA && len(x) >= 8 {
		y = y[:len(x)]
		axpyAVX(alpha, &x[0], &y[0], len(x))
		return
	}
	axpyGo(alpha, x, y)
}

func expTo(dst, src []float32) {
	if hasAVX512 && len(src) >= 16 {
		dst = dst[:len(src)]
		n := len(src) &^ 15
		expAVX512(&dst[0], &src[0], n)
		if n == len(src) {
			return
		}
		dst, src = dst[n:], src[n:]
	}
	if hasAVX2FMA && len(src) > 0 {
		dst = dst[:len(src)]
		expAVX(&dst[0], &src[0], len(src))
		return
	}
	expToGo(dst, src)
}

func panelDots(dst, pan, b []float32, np, d int) {
	if hasAVX512 {
		panelDotAVX512(&dst[0], &pan[0], &b[0], np, d)
		return
	}
	if hasAVX2FMA {
		panelDotAVX(&dst[0], &pan[0], &b[0], np, d)
		return
	}
	panelDotsGo(dst, pan, b, np, d)
}

func rbfArg(dst, norms []float32, nb, g float32) {
	if hasAVX2FMA && len(dst) > 0 {
		rbfArgAVX(&dst[0], &norms[0], nb, g, len(dst))
		return
	}
	rbfArgGo(dst, norms, nb, g)
}

func dotMixed(c []float64, x []float32) float64 {
	n := len(c) &^ 15
	if !hasAVX2FMA || n == 0 {
		return dotMixedGo(c, x)
	}
	x = x[:len(c)]
	s := dotMixedAVX(&c[0], &x[0], n)
	for i := n; i < len(c); i++ {
		s += c[i] * float64(x[i])
	}
	return s
}

// panelRBF runs PanelRBF (and the sum if c is not nil) in one pass if
// AVX-512 is there and reports whether it did.
func panelRBF(dst, pan, b, norms []float32, c []float64, nb, g float32, np, d int) (float64, bool) {
	if !hasAVX512 {
		return 0, false
	}
	var cp *float64
	if c != nil {
		cp = &c[0]
	}
	return panelRBFAVX512(&dst[0], &pan[0], &b[0], &norms[0], cp, nb, g, np, d), true
}

// adamAsm runs adamAVX over the leading multiple of 8 elements and returns
// how many it took.
func adamAsm(w, g, m, v []float32, c *AdamConsts) int {
	n := asmLen(len(w))
	if n == 0 {
		return 0
	}
	// The constant block: each constant eight times (asm/gen.go's
	// adamConst rows), then the mask that clears the sign bit.
	var k [11][8]float32
	for i, x := range [...]float32{c.WeightDecay, c.B1, c.C1, c.B2, c.C2, c.BC2S, c.Eps, c.Step, c.TinyGrad, c.TinyMoment, math.Float32frombits(0x7fffffff)} {
		for l := range k[i] {
			k[i][l] = x
		}
	}
	adamAVX(&w[0], &g[0], &m[0], &v[0], &k[0][0], n)
	return n
}
