package vec

// sgemmGo is the pure-Go Sgemm used where the assembly is not available
// (other architectures, the noasm tag, CPUs without AVX2/FMA): the loops of
// SgemmRef reorganised so that each pass over a row of C applies four rows
// of op(B) (or computes four inner products), Aᵀ·Bᵀ goes through a packed
// copy of Bᵀ, and large products are split across goroutines. It expects
// m, n, k ≥ 1 and alpha ≠ 0 (Sgemm handles the rest).
func sgemmGo(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if nw := gemmWorkers(m, n, k); nw > 1 {
		gemmSplit(sgemmGoSerial, nw, 4, 4, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	sgemmGoSerial(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func sgemmGoSerial(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	scaleC(m, n, beta, c, ldc)
	switch {
	case !transB:
		goRowsAxpy(transA, m, n, k, alpha, a, lda, b, ldb, c, ldc)
	case !transA:
		goRowsDot(m, n, k, alpha, a, lda, b, ldb, c, ldc)
	default:
		// Cᵀ-free route: copy Bᵀ (k×n, row-major) once, then as TN.
		bufp := getBuf(k * n)
		bt := (*bufp)[:k*n]
		for j := 0; j < n; j++ {
			row := b[j*ldb : j*ldb+k]
			for p, v := range row {
				bt[p*n+j] = v
			}
		}
		goRowsAxpy(true, m, n, k, alpha, a, lda, bt, n, c, ldc)
		bufPool.Put(bufp)
	}
}

// goRowsAxpy adds alpha·op(A)·B to C row by row, four rows of B per pass.
func goRowsAxpy(transA bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	at := func(i, p int) float32 {
		if transA {
			return a[p*lda+i]
		}
		return a[i*lda+p]
	}
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		p := 0
		for ; p+4 <= k; p += 4 {
			s0, s1, s2, s3 := alpha*at(i, p), alpha*at(i, p+1), alpha*at(i, p+2), alpha*at(i, p+3)
			b0 := b[p*ldb : p*ldb+n]
			b1 := b[(p+1)*ldb : (p+1)*ldb+n]
			b2 := b[(p+2)*ldb : (p+2)*ldb+n]
			b3 := b[(p+3)*ldb : (p+3)*ldb+n]
			for j := range ci {
				ci[j] += s0*b0[j] + s1*b1[j] + s2*b2[j] + s3*b3[j]
			}
		}
		for ; p < k; p++ {
			s := alpha * at(i, p)
			bp := b[p*ldb : p*ldb+n]
			for j, v := range bp {
				ci[j] += s * v
			}
		}
	}
}

// goRowsDot adds alpha·A·Bᵀ to C, four inner products per pass over a row
// of A.
func goRowsDot(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		ai := a[i*lda : i*lda+k]
		ci := c[i*ldc : i*ldc+n]
		j := 0
		for ; j+4 <= n; j += 4 {
			b0 := b[j*ldb : j*ldb+k]
			b1 := b[(j+1)*ldb : (j+1)*ldb+k]
			b2 := b[(j+2)*ldb : (j+2)*ldb+k]
			b3 := b[(j+3)*ldb : (j+3)*ldb+k]
			var s0, s1, s2, s3 float32
			for p, v := range ai {
				s0 += v * b0[p]
				s1 += v * b1[p]
				s2 += v * b2[p]
				s3 += v * b3[p]
			}
			ci[j] += alpha * s0
			ci[j+1] += alpha * s1
			ci[j+2] += alpha * s2
			ci[j+3] += alpha * s3
		}
		// The columns left over sum as the blocks do, one product after
		// another, so that an element's value does not depend on its
		// column (SgemmDots' promise: a kernel value is the same whatever
		// the rows it is computed with).
		for ; j < n; j++ {
			bj := b[j*ldb : j*ldb+k]
			var s float32
			for p, v := range ai {
				s += v * bj[p]
			}
			ci[j] += alpha * s
		}
	}
}
