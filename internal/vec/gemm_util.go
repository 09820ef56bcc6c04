package vec

import (
	"runtime"
	"sync"
)

// gemmFunc is the signature shared by the Sgemm implementations.
type gemmFunc func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

// parMinWork is the m·n·k above which Sgemm splits the work across
// goroutines; below it the goroutine start-up costs more than it saves.
const parMinWork = 1 << 18

// gemmWorkers returns how many goroutines a product of m·n·k should use.
func gemmWorkers(m, n, k int) int {
	work := m * n * k
	if work < parMinWork {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), work/(parMinWork/2)))
}

// gemmSplit runs f over nw disjoint blocks of C: blocks of rows (multiples of
// rstep) when op(A) has more row tiles than op(B) has column tiles, blocks
// of columns (multiples of cstep) otherwise. Part 0 runs on the caller.
func gemmSplit(f gemmFunc, nw, rstep, cstep int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	var wg sync.WaitGroup
	if (m+rstep-1)/rstep >= (n+cstep-1)/cstep {
		chunk := ((m+nw-1)/nw + rstep - 1) / rstep * rstep
		for i0 := chunk; i0 < m; i0 += chunk {
			mi := min(chunk, m-i0)
			aoff := i0 * lda
			if transA {
				aoff = i0
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				f(transA, transB, mi, n, k, alpha, a[aoff:], lda, b, ldb, beta, c[i0*ldc:], ldc)
			}()
		}
		f(transA, transB, min(chunk, m), n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	} else {
		chunk := ((n+nw-1)/nw + cstep - 1) / cstep * cstep
		for j0 := chunk; j0 < n; j0 += chunk {
			nj := min(chunk, n-j0)
			boff := j0
			if transB {
				boff = j0 * ldb
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				f(transA, transB, m, nj, k, alpha, a, lda, b[boff:], ldb, beta, c[j0:], ldc)
			}()
		}
		f(transA, transB, m, min(chunk, n), k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
	wg.Wait()
}

// scaleC sets C = beta·C for the m×n block of c (C = 0 when beta is 0, even
// where C held NaN).
func scaleC(m, n int, beta float32, c []float32, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(ci)
			continue
		}
		for j := range ci {
			ci[j] *= beta
		}
	}
}

// bufPool recycles packing buffers so that Sgemm does not allocate in steady
// state.
var bufPool = sync.Pool{New: func() any { return new([]float32) }}

// getBuf returns a pooled buffer of at least n floats; give it back with
// bufPool.Put.
func getBuf(n int) *[]float32 {
	p := bufPool.Get().(*[]float32)
	if cap(*p) < n {
		*p = make([]float32, max(n, 1<<14))
	}
	*p = (*p)[:cap(*p)]
	return p
}
