package vec

// sgemmGo is the pure-Go Sgemm used where the assembly is not available.
func sgemmGo(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	SgemmRef(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
