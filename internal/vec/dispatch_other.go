//go:build !amd64 || noasm

package vec

// hasAVX2FMA is false where the assembly is not built.
const hasAVX2FMA = false

func dot(a, b []float32) float32         { return dotGo(a, b) }
func dot64(a, b []float32) float64       { return dot64Go(a, b) }
func sqDist(a, b []float32) float64      { return sqDistGo(a, b) }
func axpy(alpha float32, x, y []float32) { axpyGo(alpha, x, y) }
func expTo(dst, src []float32)           { expToGo(dst, src) }
func sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemmGo(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
func panelDots(dst, pan, b []float32, np, d int) { panelDotsGo(dst, pan, b, np, d) }
func rbfArg(dst, norms []float32, nb, g float32) { rbfArgGo(dst, norms, nb, g) }
func panelRBF(dst, pan, b, norms []float32, c []float64, nb, g float32, np, d int) (float64, bool) {
	return 0, false
}
func dotMixed(c []float64, x []float32) float64 { return dotMixedGo(c, x) }

func maxToAVX(dst, a, b *float32, n int)             { panic("vec: no assembly") }
func pairMaxAVX(dst, src *float32, n int, relu bool) { panic("vec: no assembly") }
func reluAVX(dst, src *float32, n int)               { panic("vec: no assembly") }
func reluGradAVX(dst, dy, y *float32, n int)         { panic("vec: no assembly") }
func nonFiniteAVX(x *float32, n int) bool            { panic("vec: no assembly") }

func sgemmDots(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemmGoSerial(false, true, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func scale64AVX(dst, src *float32, s float64, n int)              { panic("vec: no assembly") }
func maxPool2AVX(y, x *float32, pairs, w int, relu bool)          { panic("vec: no assembly") }
func maxPool2GradAVX(dx, x, dy *float32, pairs, w int, relu bool) { panic("vec: no assembly") }

func convForward(m, k int, w []float32, ldw int, bias, x []float32, off, xo []int32, y []float32, ldy int) {
	convForwardGo(m, k, w, ldw, bias, x, off, xo, y, ldy)
}

func convWeightGrad(m, k int, dy []float32, ldy int, x []float32, off, xo []int32, g []float32, ldg int) {
	convWeightGradGo(m, k, dy, ldy, x, off, xo, g, ldg)
}

func convInputGrad(m, k int, w []float32, ldw int, dy []float32, ldy int, off, xo []int32, dx []float32) {
	convInputGradGo(m, k, w, ldw, dy, ldy, off, xo, dx)
}

func adamAsm(w, g, m, v []float32, c *AdamConsts) int { return 0 }
