package vec

import "math"

// sameLen panics unless na = nb, the lengths of two slices given to fn.
func sameLen(fn string, na, nb int) {
	if na != nb {
		panic("vec: length mismatch in " + fn)
	}
}

// asmLen returns how many leading elements of an n-element slice the 8-lane
// assembly kernels take: n rounded down to a multiple of 8 where they run, 0
// elsewhere. The pure-Go loop does the rest.
func asmLen(n int) int {
	if hasAVX2FMA {
		return n &^ 7
	}
	return 0
}

// Dot returns Σ a[i]·b[i], accumulated in float32. The order of the
// additions depends on the implementation (several partial sums), so results
// may differ from a sequential loop in the last bits.
func Dot(a, b []float32) float32 {
	sameLen("Dot", len(a), len(b))
	return dot(a, b)
}

// dotGo is the reference for Dot: four partial sums over interleaved lanes.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// Dot64 returns Σ a[i]·b[i] accumulated in float64.
func Dot64(a, b []float32) float64 {
	sameLen("Dot64", len(a), len(b))
	return dot64(a, b)
}

// Axpy computes y += alpha·x.
func Axpy(alpha float32, x, y []float32) {
	sameLen("Axpy", len(x), len(y))
	axpy(alpha, x, y)
}

// axpyGo is the reference for Axpy.
func axpyGo(alpha float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

// Scale computes x *= alpha.
func Scale(alpha float32, x []float32) {
	for i := range x {
		x[i] *= alpha
	}
}

// SqNorm returns ‖a‖², accumulated in float64.
func SqNorm(a []float32) float64 { return dot64(a, a) }

// SqDist returns ‖a−b‖², accumulated in float64.
func SqDist(a, b []float32) float64 {
	sameLen("SqDist", len(a), len(b))
	return sqDist(a, b)
}

// dot64Go and sqDistGo are the references for Dot64 and SqDist.
func dot64Go(a, b []float32) float64  { return sum64Go(a, b, false) }
func sqDistGo(a, b []float32) float64 { return sum64Go(a, b, true) }

// sum64Go returns Σ a[i]·b[i], or with diff Σ (a[i]−b[i])², with the
// differences, products and sums in float64. It inlines, so that diff is a
// constant in each loop.
func sum64Go(a, b []float32, diff bool) float64 {
	b = b[:len(a)]
	var s float64
	for i, v := range a {
		x, y := float64(v), float64(b[i])
		if diff {
			x -= y
			y = x
		}
		s += x * y
	}
	return s
}

// SqNormsTo sets dst[i] = ‖row i of X‖² for the n×d row-major matrix X.
func SqNormsTo(dst []float32, x []float32, n, d int) {
	if len(dst) < n || len(x) < n*d {
		panic("vec: short slice in SqNormsTo")
	}
	for i := 0; i < n; i++ {
		dst[i] = float32(SqNorm(x[i*d : i*d+d]))
	}
}

// HasNaNInf reports whether any element of x is NaN or ±Inf.
func HasNaNInf(x []float32) bool {
	n := asmLen(len(x))
	if n > 0 && nonFiniteAVX(&x[0], n) {
		return true
	}
	for _, v := range x[n:] {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return true
		}
	}
	return false
}
