package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

// gemmCase is one Sgemm call; the stored shapes and strides follow from the
// flags and the extra padding of each leading dimension.
type gemmCase struct {
	transA, transB   bool
	m, n, k          int
	padA, padB, padC int
	alpha, beta      float32
}

func (g gemmCase) String() string {
	op := func(t bool) string {
		if t {
			return "T"
		}
		return "N"
	}
	return fmt.Sprintf("%s%s/%dx%dx%d/pad%d,%d,%d/a%g/b%g", op(g.transA), op(g.transB), g.m, g.n, g.k, g.padA, g.padB, g.padC, g.alpha, g.beta)
}

// operands builds A, B and C (with sentinel padding) for the case.
func (g gemmCase) operands(r *rand.Rand) (a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	ar, ac := g.m, g.k
	if g.transA {
		ar, ac = g.k, g.m
	}
	br, bc := g.k, g.n
	if g.transB {
		br, bc = g.n, g.k
	}
	lda, ldb, ldc = max(1, ac)+g.padA, max(1, bc)+g.padB, max(1, g.n)+g.padC
	a = randSlice(r, ar*lda)
	b = randSlice(r, br*ldb)
	c = randSlice(r, g.m*ldc)
	if g.beta == 0 {
		for i := range c {
			c[i] = float32(math.NaN())
		}
	}
	// Padding columns of C carry a sentinel that must survive.
	for i := 0; i < g.m; i++ {
		for j := g.n; j < ldc; j++ {
			c[i*ldc+j] = 12345
		}
	}
	return a, lda, b, ldb, c, ldc
}

// checkGemm compares got with C computed in float64, allowing the rounding
// error of a float32 sum of k products scaled by the magnitude of the terms.
func checkGemmResult(t *testing.T, g gemmCase, a []float32, lda int, b []float32, ldb int, c0, got []float32, ldc int) {
	t.Helper()
	at := func(i, p int) float64 {
		if g.transA {
			return float64(a[p*lda+i])
		}
		return float64(a[i*lda+p])
	}
	bt := func(p, j int) float64 {
		if g.transB {
			return float64(b[j*ldb+p])
		}
		return float64(b[p*ldb+j])
	}
	bad := 0
	for i := 0; i < g.m; i++ {
		for j := 0; j < ldc; j++ {
			v := got[i*ldc+j]
			if j >= g.n {
				if v != 12345 {
					t.Fatalf("C[%d,%d] outside the %d×%d block changed to %g", i, j, g.m, g.n, v)
				}
				continue
			}
			var s, mag float64
			if g.alpha != 0 {
				for p := 0; p < g.k; p++ {
					s += at(i, p) * bt(p, j)
					mag += math.Abs(at(i, p) * bt(p, j))
				}
			}
			want := float64(g.alpha) * s
			mag *= math.Abs(float64(g.alpha))
			if g.beta != 0 {
				want += float64(g.beta) * float64(c0[i*ldc+j])
				mag += math.Abs(float64(g.beta) * float64(c0[i*ldc+j]))
			}
			tol := 4e-7*float64(g.k+2)*mag + 1e-30
			if math.IsNaN(float64(v)) || math.Abs(float64(v)-want) > tol {
				if bad++; bad <= 3 {
					t.Errorf("C[%d,%d] = %g, want %g (tol %.2g)", i, j, v, want, tol)
				}
			}
		}
	}
}

// gemmCases returns the fixed and random cases shared by the Sgemm tests.
func gemmCases(short bool) []gemmCase {
	r := newRand(1)
	var cs []gemmCase
	dims := []int{0, 1, 2, 3, 5, 6, 7, 8, 9, 13, 16, 17, 24, 31, 33}
	ab := [][2]float32{{1, 0}, {1, 1}, {-0.5, 0.3}, {0, 0.5}, {0, 0}, {2, -1}}
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			for i := 0; i < 120; i++ {
				g := gemmCase{transA: tA, transB: tB,
					m: dims[r.IntN(len(dims))], n: dims[r.IntN(len(dims))], k: dims[r.IntN(len(dims))],
					padA: r.IntN(3) * r.IntN(4), padB: r.IntN(3) * r.IntN(4), padC: r.IntN(3) * r.IntN(4)}
				p := ab[r.IntN(len(ab))]
				g.alpha, g.beta = p[0], p[1]
				cs = append(cs, g)
			}
			// Shapes of the nn layers and kernel rows, edges of every
			// blocking parameter, and products large enough to run in
			// parallel.
			for _, s := range [][3]int{
				{1, 40, 20}, {1, 20, 40}, {40, 20, 1}, {64, 40, 20}, {40, 20, 64},
				{1, 1, 300}, {300, 1, 7}, {1, 300, 7}, {7, 1, 300},
				{10, 70, 25}, {5, 9, 1100}, {13, 70, 150}, {150, 37, 300},
				{70, 80, 60}, {3, 4100, 3}, {200, 30, 3}, {9, 300, 260}, {5, 83, 600}, {2, 99, 700},
				{30, 50, 100}, {7, 37, 90}, {300, 10, 100}, {6, 4100, 70},
			} {
				if short && s[0]*s[1]*s[2] > 1<<18 {
					continue
				}
				for _, p := range ab[:3] {
					cs = append(cs, gemmCase{transA: tA, transB: tB, m: s[0], n: s[1], k: s[2], padA: 1, padC: 3, alpha: p[0], beta: p[1]})
				}
			}
		}
	}
	return cs
}

// guarded adds the early returns that Sgemm performs before calling an
// implementation (which may assume m, n, k ≥ 1 and alpha ≠ 0).
func guarded(f gemmFunc) gemmFunc {
	return func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
		if m == 0 || n == 0 {
			return
		}
		if alpha == 0 || k == 0 {
			scaleC(m, n, beta, c, ldc)
			return
		}
		f(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

func TestSgemm(t *testing.T) {
	impls := fastGemms()
	impls["ref"] = SgemmRef
	cases := gemmCases(testing.Short())
	for name, f := range impls {
		t.Run(name, func(t *testing.T) {
			r := newRand(2)
			for _, g := range cases {
				a, lda, b, ldb, c, ldc := g.operands(r)
				a0, b0 := append([]float32(nil), a...), append([]float32(nil), b...)
				got := append([]float32(nil), c...)
				f(g.transA, g.transB, g.m, g.n, g.k, g.alpha, a, lda, b, ldb, g.beta, got, ldc)
				ok := t.Run(g.String(), func(t *testing.T) {
					checkGemmResult(t, g, a, lda, b, ldb, c, got, ldc)
					for i := range a {
						if a[i] != a0[i] {
							t.Fatal("A was modified")
						}
					}
					for i := range b {
						if b[i] != b0[i] {
							t.Fatal("B was modified")
						}
					}
				})
				if !ok {
					return
				}
			}
		})
	}
}

// TestSgemmSliceEnds runs products whose operands end exactly at the last
// element each kernel may touch, so that an over-read would panic or fault
// under the race detector's checks of slice bounds in the callers.
func TestSgemmSliceEnds(t *testing.T) {
	r := newRand(3)
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			for _, s := range [][3]int{{7, 9, 5}, {1, 3, 11}, {13, 1, 9}, {6, 17, 300}, {5, 33, 2}} {
				m, n, k := s[0], s[1], s[2]
				ar, ac := m, k
				if tA {
					ar, ac = k, m
				}
				br, bc := k, n
				if tB {
					br, bc = n, k
				}
				lda, ldb, ldc := ac+2, bc+3, n+1
				a := randSlice(r, (ar-1)*lda+ac)
				b := randSlice(r, (br-1)*ldb+bc)
				want := randSlice(r, (m-1)*ldc+n)
				got := append([]float32(nil), want...)
				SgemmRef(tA, tB, m, n, k, 1.5, a, lda, b, ldb, 0.5, want, ldc)
				Sgemm(tA, tB, m, n, k, 1.5, a, lda, b, ldb, 0.5, got, ldc)
				for i := range want {
					if d := math.Abs(float64(got[i] - want[i])); d > 1e-4*(1+math.Abs(float64(want[i]))) {
						t.Fatalf("%v%v %dx%dx%d: C[%d] = %g, want %g", tA, tB, m, n, k, i, got[i], want[i])
					}
				}
			}
		}
	}
}

func TestSgemmPanics(t *testing.T) {
	a := make([]float32, 6)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"negative", func() { Sgemm(false, false, -1, 2, 3, 1, a, 3, a, 2, 0, a, 2) }},
		{"lda", func() { Sgemm(false, false, 2, 2, 3, 1, a, 2, a, 2, 0, a, 2) }},
		{"short", func() { Sgemm(false, false, 2, 2, 3, 1, a, 3, a, 2, 0, a[:3], 2) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil {
					t.Fatal("no panic")
				}
			}()
			tc.f()
		})
	}
}

func TestSgemv(t *testing.T) {
	r := newRand(4)
	for _, trans := range []bool{false, true} {
		for _, s := range [][2]int{{0, 3}, {1, 1}, {3, 0}, {7, 5}, {40, 20}, {33, 129}} {
			m, n := s[0], s[1]
			lda := n + 2
			a := randSlice(r, max(0, m*lda))
			xl, yl := n, m
			if trans {
				xl, yl = m, n
			}
			x, y := randSlice(r, xl), randSlice(r, yl)
			for _, beta := range []float32{0, 1, -2} {
				got := append([]float32(nil), y...)
				Sgemv(trans, m, n, 0.7, a, lda, x, beta, got)
				for i := range got {
					var s float64
					for j := range x {
						if trans {
							s += float64(a[j*lda+i]) * float64(x[j])
						} else {
							s += float64(a[i*lda+j]) * float64(x[j])
						}
					}
					want := 0.7 * s
					if beta != 0 {
						want += float64(beta) * float64(y[i])
					}
					if math.Abs(float64(got[i])-want) > 1e-5*(1+math.Abs(want)+math.Sqrt(float64(len(x)))) {
						t.Errorf("trans=%v %dx%d beta=%g: y[%d] = %g, want %g", trans, m, n, beta, i, got[i], want)
					}
				}
			}
		}
	}
}

// TestSgemmNoAlloc checks that the small products of a batch-1 MLP step and
// of small batches allocate nothing.
func TestSgemmNoAlloc(t *testing.T) {
	r := newRand(5)
	a, b, c := randSlice(r, 64*64), randSlice(r, 64*64), randSlice(r, 64*64)
	for _, s := range [][3]int{{1, 40, 20}, {1, 20, 40}, {40, 20, 1}, {64, 40, 20}, {40, 20, 64}, {20, 40, 64}} {
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				m, n, k := s[0], s[1], s[2]
				f := func() { Sgemm(tA, tB, m, n, k, 1, a, 64, b, 64, 1, c, 64) }
				f()
				if allocs := testing.AllocsPerRun(50, f); allocs != 0 {
					t.Errorf("%v%v %dx%dx%d: %v allocs per call", tA, tB, m, n, k, allocs)
				}
			}
		}
	}
	// A kernel row against 200 stored features of dimension 20, both ways.
	for _, trans := range []bool{false, true} {
		f := func() { Sgemv(trans, 200, 20, 1, a, 20, b, 0, c) }
		if allocs := testing.AllocsPerRun(50, f); allocs != 0 {
			t.Errorf("Sgemv trans=%v: %v allocs per call", trans, allocs)
		}
	}
}

// Every element of SgemmDots is the same whatever the number of rows of B
// it is computed with and its column among them: B's rows one at a time
// give the same values, bit for bit, for column counts that leave every
// remainder of the blocks (the pure-Go path summed the leftover columns in
// another order once).
func TestSgemmDotsColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, k := range []int{1, 5, 33} {
		for _, n := range []int{1, 3, 4, 5, 7, 13} {
			a := make([]float32, 2*k)
			b := make([]float32, n*k)
			for i := range a {
				a[i] = float32(rng.NormFloat64())
			}
			for i := range b {
				b[i] = float32(rng.NormFloat64())
			}
			c := make([]float32, 2*n)
			SgemmDots(2, n, k, 1, a, k, b, k, 0, c, n)
			for j := range n {
				one := make([]float32, 2)
				SgemmDots(2, 1, k, 1, a, k, b[j*k:(j+1)*k], k, 0, one, 1)
				if c[j] != one[0] || c[n+j] != one[1] {
					t.Fatalf("k=%d n=%d: column %d = %v, %v; alone %v, %v", k, n, j, c[j], c[n+j], one[0], one[1])
				}
			}
		}
	}
}
