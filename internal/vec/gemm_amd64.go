//go:build amd64 && !noasm

package vec

import "unsafe"

// Blocking of the AVX2 GEMM. The micro-kernel keeps a 6×16 block of C in
// twelve YMM registers. For each kcBlk-deep slice of op(B) a panel of at most
// ncBlk columns is packed into 16-wide strips (kc×16, contiguous); op(A) is
// read in place, six rows at a time, mcBlk rows per pass over the strips, so
// that a strip stays in L1 and the mcBlk×kc block of A in L2.
const (
	mrK   = 6
	nrK   = 16
	kcBlk = 256
	mcBlk = 144
	ncBlk = 4096

	// directMaxB bounds k·n (floats) for which a non-transposed B is read in
	// place instead of packed; directMaxK bounds k for that path.
	directMaxB = 1 << 16
	directMaxK = 512

	// The inner-product path (NT) works on kcDot-deep slices and ncDot rows
	// of B at a time so that they stay in L2.
	kcDot = 1024
	ncDot = 64
)

// kernFn is the signature of the outer-product micro-kernels.
type kernFn func(nt, k int, a *float32, rsa, csa int, b *float32, ldb, bts int, c *float32, ldc int, alpha, beta float32, loadC, rem int)

// kernTab[mr-1] holds the 8-column, masked 8-column, 16-column and masked
// 16-column kernels for mr rows. Read-only.
var kernTab = [mrK][4]kernFn{
	{kern1x8, kern1x8m, kern1x16, kern1x16m},
	{kern2x8, kern2x8m, kern2x16, kern2x16m},
	{kern3x8, kern3x8m, kern3x16, kern3x16m},
	{kern4x8, kern4x8m, kern4x16, kern4x16m},
	{kern5x8, kern5x8m, kern5x16, kern5x16m},
	{kern6x8, kern6x8m, kern6x16, kern6x16m},
}

// dotFn is the signature of the inner-product kernels.
type dotFn func(nt, k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32, loadC int)

// dotTab[mr-1][nr-1] is the mr×nr inner-product kernel. Read-only.
var dotTab = [3][4]dotFn{
	{dotk1x1, dotk1x2, dotk1x3, dotk1x4},
	{dotk2x1, dotk2x2, dotk2x3, dotk2x4},
	{dotk3x1, dotk3x2, dotk3x3, dotk3x4},
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func addp(p *float32, n int) *float32 {
	return (*float32)(unsafe.Add(unsafe.Pointer(p), 4*n))
}

// sgemmAVX is Sgemm on AVX2+FMA; arguments are already checked.
func sgemmAVX(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if alpha == 0 || k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	if n == 1 && m > 1 && ldc == 1 && transA {
		// A contiguous column of C: compute its transpose, the row
		// Cᵀ = op(B)ᵀ·op(A)ᵀ, which the row kernels handle well.
		transA, transB = !transB, !transA
		m, n = 1, m
		a, b = b, a
		lda, ldb = ldb, lda
		ldc = n
	}
	if nw := gemmWorkers(m, n, k); nw > 1 {
		gemmSplit(sgemmAVXSerial, nw, mrK, nrK, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	sgemmAVXSerial(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// sgemmAVXSerial picks one of three single-threaded strategies.
func sgemmAVXSerial(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	switch {
	case !transB && k <= directMaxK && k*n <= directMaxB:
		gemmDirect(transA, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	case !transA && transB && useDot(m, n, k):
		gemmDot(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	default:
		gemmPacked(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

// useDot reports whether C = A·Bᵀ is better done as blocks of inner
// products (no packing; a horizontal sum per element of C) than by packing
// Bᵀ for the outer-product kernels.
func useDot(m, n, k int) bool {
	return m < 4 || n < 4 || k >= 128
}

// panel runs the outer-product kernels over one row panel of mr ≤ 6 rows and
// n columns: full 16-column tiles in one call, the edge in another. B tile t
// starts bts floats after tile t−1; the edge tile is read masked.
func panel(mr, n, k int, ap *float32, rsa, csa int, bp *float32, ldb, bts int, cp *float32, ldc int, alpha, beta float32, loadC int) {
	kt := &kernTab[mr-1]
	nt := n / nrK
	if nt > 0 {
		kt[2](nt, k, ap, rsa, csa, bp, ldb, bts, cp, ldc, alpha, beta, loadC, 0)
	}
	rem := n % nrK
	if rem == 0 {
		return
	}
	bp = addp(bp, nt*bts)
	cp = addp(cp, nt*nrK)
	switch {
	case rem < 8:
		kt[1](1, k, ap, rsa, csa, bp, ldb, 0, cp, ldc, alpha, beta, loadC, rem)
	case rem == 8:
		kt[0](1, k, ap, rsa, csa, bp, ldb, 0, cp, ldc, alpha, beta, loadC, 0)
	default:
		kt[3](1, k, ap, rsa, csa, bp, ldb, 0, cp, ldc, alpha, beta, loadC, rem-8)
	}
}

// gemmDirect reads both operands in place: op(B) = B with contiguous rows,
// op(A) through element strides. For products whose B fits in cache.
func gemmDirect(transA bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	rsa, csa := lda, 1
	if transA {
		rsa, csa = 1, lda
	}
	loadC := b2i(beta != 0)
	for i := 0; i < m; i += mrK {
		mr := min(mrK, m-i)
		panel(mr, n, k, &a[i*rsa], rsa, csa, &b[0], ldb, nrK, &c[i*ldc], ldc, alpha, beta, loadC)
	}
}

// packB copies op(B)[p0:p0+kc, j0:j0+nc] into dst as ⌈nc/16⌉ strips of kc×16
// floats (strip t, row p, column j at dst[t·kc·16 + p·16 + j]). Columns past
// nc in the last strip are left as they are: the kernels never read them.
func packB(dst []float32, transB bool, b []float32, ldb, p0, kc, j0, nc int) {
	for t := 0; t*nrK < nc; t++ {
		w := min(nrK, nc-t*nrK)
		s := dst[t*kc*nrK : (t+1)*kc*nrK]
		jt := j0 + t*nrK
		if !transB {
			for p := 0; p < kc; p++ {
				o := (p0+p)*ldb + jt
				copy(s[p*nrK:p*nrK+w], b[o:o+w])
			}
			continue
		}
		for j := 0; j < w; j++ {
			o := (jt+j)*ldb + p0
			src := b[o : o+kc]
			for p, v := range src {
				s[p*nrK+j] = v
			}
		}
	}
}

// gemmPacked is the blocked path: op(B) packed per kc×nc block, op(A) read
// in place.
func gemmPacked(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	rsa, csa := lda, 1
	if transA {
		rsa, csa = 1, lda
	}
	kcMax := min(k, kcBlk)
	ncMax := min(n, ncBlk)
	bufp := getBuf(kcMax * ((ncMax + nrK - 1) / nrK) * nrK)
	buf := *bufp
	for jc := 0; jc < n; jc += ncBlk {
		nc := min(ncBlk, n-jc)
		for pc := 0; pc < k; pc += kcBlk {
			kc := min(kcBlk, k-pc)
			packB(buf, transB, b, ldb, pc, kc, jc, nc)
			be, loadC := beta, b2i(beta != 0)
			if pc > 0 {
				be, loadC = 1, 1
			}
			if kc < 64 {
				// Shallow products: whole row panels per call.
				for i := 0; i < m; i += mrK {
					mr := min(mrK, m-i)
					panel(mr, nc, kc, &a[i*rsa+pc*csa], rsa, csa, &buf[0], nrK, kc*nrK, &c[i*ldc+jc], ldc, alpha, be, loadC)
				}
				continue
			}
			for ic := 0; ic < m; ic += mcBlk {
				mc := min(mcBlk, m-ic)
				for jr := 0; jr < nc; jr += nrK {
					w := min(nrK, nc-jr)
					bp := &buf[(jr/nrK)*kc*nrK]
					for ir := ic; ir < ic+mc; ir += mrK {
						mr := min(mrK, ic+mc-ir)
						panel(mr, w, kc, &a[ir*rsa+pc*csa], rsa, csa, bp, nrK, kc*nrK, &c[ir*ldc+jc+jr], ldc, alpha, be, loadC)
					}
				}
			}
		}
	}
	bufPool.Put(bufp)
}

// gemmDot computes C = alpha·A·Bᵀ + beta·C from inner products of rows of A
// and rows of B, in blocks of 3×4 elements of C.
func gemmDot(m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for pc := 0; pc < k; pc += kcDot {
		kc := min(kcDot, k-pc)
		be, loadC := beta, b2i(beta != 0)
		if pc > 0 {
			be, loadC = 1, 1
		}
		for jc := 0; jc < n; jc += ncDot {
			nc := min(ncDot, n-jc)
			nt, rem := nc/4, nc%4
			for i := 0; i < m; i += 3 {
				mr := min(3, m-i)
				ap := &a[i*lda+pc]
				if nt > 0 {
					dotTab[mr-1][3](nt, kc, ap, lda, &b[jc*ldb+pc], ldb, &c[i*ldc+jc], ldc, alpha, be, loadC)
				}
				if rem > 0 {
					j := jc + nt*4
					dotTab[mr-1][rem-1](1, kc, ap, lda, &b[j*ldb+pc], ldb, &c[i*ldc+j], ldc, alpha, be, loadC)
				}
			}
		}
	}
}
