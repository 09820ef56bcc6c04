package nn

import (
	"fmt"
	"testing"

	"github.com/nsvm-go/nsvm/internal/vec"
)

// TestGemmBlocks compares the blocked gemm with vec.SgemmRef on products
// large enough to be blocked along every dimension.
func TestGemmBlocks(t *testing.T) {
	for _, sz := range [][3]int{{3, 4, 5}, {10, 36864, 25}, {20, 250, 4096}, {300, 40, 30}, {5, 7, 20000}, {600, 600, 2}, {17, 33, 1000}} {
		for _, tr := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			m, n, k := sz[0], sz[1], sz[2]
			t.Run(fmt.Sprintf("%dx%dx%d/%v", m, n, k, tr), func(t *testing.T) {
				rng := newRand(1)
				lda, ldb, ldc := k+1, n+2, n+3
				if tr[0] {
					lda = m + 1
				}
				if tr[1] {
					ldb = k + 2
				}
				ar, br := m, k
				if tr[0] {
					ar = k
				}
				if tr[1] {
					br = n
				}
				a := uniform(rng, ar*lda, -1, 1)
				b := uniform(rng, br*ldb, -1, 1)
				c0 := uniform(rng, m*ldc, -1, 1)
				want := append([]float32(nil), c0...)
				got := append([]float32(nil), c0...)
				vec.SgemmRef(tr[0], tr[1], m, n, k, 0.5, a, lda, b, ldb, 0.25, want, ldc)
				gemm(tr[0], tr[1], m, n, k, 0.5, a, lda, b, ldb, 0.25, got, ldc)
				if d := maxRelDiff(got, want); d > 1e-5 {
					t.Errorf("differs from SgemmRef by %g", d)
				}
			})
		}
	}
}
