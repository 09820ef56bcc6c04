package vec

// Sgemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices, where
// op(A) is m×k, op(B) is k×n and C is m×n with leading dimension ldc.
// op(X) is X when the matching trans flag is false and Xᵀ otherwise; lda and
// ldb are the row strides of A and B as stored. When beta is 0, C need not be
// initialised (NaNs in C are overwritten).
//
// Sgemm dispatches to the fastest implementation available on this CPU; see
// SgemmRef for the reference semantics. Fast paths sum the k products in a
// different order (and with fused multiply-adds), so results agree with
// SgemmRef to rounding, not bit for bit. Products with m·n·k ≥ 2^18 are split
// across up to GOMAXPROCS goroutines by blocks of rows or columns of C; smaller
// ones run on the calling goroutine without allocating.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gemm(false, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemm is Sgemm, or SgemmDots when dots is set (and transB): it checks the
// arguments, does the products that need no kernel (none when C is empty,
// C = beta·C when alpha or k is 0) and hands the others to the
// implementation.
func gemm(dots, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	switch {
	case m == 0 || n == 0:
	case alpha == 0 || k == 0:
		scaleC(m, n, beta, c, ldc)
	case dots:
		sgemmDots(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	default:
		sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

func checkGemm(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic("vec: negative dimension in Sgemm")
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	if lda < max(1, ac) || ldb < max(1, bc) || ldc < max(1, n) {
		panic("vec: bad leading dimension in Sgemm")
	}
	if (ar > 0 && ac > 0 && len(a) < (ar-1)*lda+ac) || (br > 0 && bc > 0 && len(b) < (br-1)*ldb+bc) || (m > 0 && n > 0 && len(c) < (m-1)*ldc+n) {
		panic("vec: short slice in Sgemm")
	}
}

// SgemmRef is the pure-Go reference for Sgemm: the straightforward triple
// loop, ordered so that the innermost loop runs over contiguous memory.
func SgemmRef(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(ci)
		} else if beta != 1 {
			for j := range ci {
				ci[j] *= beta
			}
		}
	}
	if alpha == 0 || k == 0 {
		return
	}
	switch {
	case !transB && !transA:
		refRowsAxpy(m, n, k, alpha, a, lda, 1, b, ldb, c, ldc)
	case !transB:
		refRowsAxpy(m, n, k, alpha, a, 1, lda, b, ldb, c, ldc)
	case !transA && transB:
		for i := 0; i < m; i++ {
			ai := a[i*lda : i*lda+k]
			for j := 0; j < n; j++ {
				c[i*ldc+j] += alpha * dotGo(ai, b[j*ldb:j*ldb+k])
			}
		}
	default:
		for i := 0; i < m; i++ {
			ci := c[i*ldc : i*ldc+n]
			for j := 0; j < n; j++ {
				var s float32
				for p := 0; p < k; p++ {
					s += a[p*lda+i] * b[j*ldb+p]
				}
				ci[j] += alpha * s
			}
		}
	}
}

// refRowsAxpy adds alpha·op(A)·B to C for SgemmRef, where op(A)[i, p] is
// a[i·rsa + p·csa]: row i of C gets the rows of B scaled by op(A)[i, p], p
// ascending.
func refRowsAxpy(m, n, k int, alpha float32, a []float32, rsa, csa int, b []float32, ldb int, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		for p := 0; p < k; p++ {
			s := alpha * a[i*rsa+p*csa]
			if s == 0 {
				continue
			}
			bp := b[p*ldb : p*ldb+n]
			for j, v := range bp {
				ci[j] += s * v
			}
		}
	}
}

// Sgemv computes y = alpha·op(A)·x + beta·y for the row-major m×n matrix A
// (op(A) = Aᵀ when trans is true). When beta is 0, y need not be
// initialised.
func Sgemv(trans bool, m, n int, alpha float32, a []float32, lda int, x []float32, beta float32, y []float32) {
	if trans {
		Sgemm(true, false, n, 1, m, alpha, a, lda, x, 1, beta, y, 1)
		return
	}
	if len(x) < n || len(y) < m || (m > 0 && len(a) < (m-1)*lda+n) {
		panic("vec: short slice in Sgemv")
	}
	// yᵀ = xᵀ·Aᵀ: one row of inner products against the rows of A, which
	// the NT path computes four rows of A at a time.
	Sgemm(false, true, 1, m, n, alpha, x, max(n, 1), a, lda, beta, y, max(m, 1))
}

// SgemmDots computes C = alpha·A·Bᵀ + beta·C for the row-major m×k matrix A
// and n×k matrix B by inner products, on the calling goroutine. Unlike
// Sgemm, whose strategy (and so the order in which it sums the k products)
// depends on the shape, every element of C is computed the same way
// whatever m and n: row i of C depends on row i of A and on B only, bit for
// bit. Inference uses it so that a row's prediction does not depend on the
// rows batched with it.
func SgemmDots(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gemm(true, false, true, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
