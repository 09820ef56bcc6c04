package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

// sparsePoints draws n rows of d features with about a fraction dens of
// them nonzero, as CSR and as the same rows dense.
func sparsePoints(rng *rand.Rand, n, d int, dens float64) (*data.CSR, []float32) {
	x := make([]float32, n*d)
	for i := range x {
		if rng.Float64() < dens {
			x[i] = float32(rng.NormFloat64() * 0.5)
		}
	}
	return data.ToCSR(x, n, d), x
}

// TestEvalVecAndRowVec checks the row-kind-free entry points against Eval
// on dense rows, for every kernel and every pairing of dense and sparse
// rows.
func TestEvalVecAndRowVec(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, d = 37, 29
	sp, x := sparsePoints(rng, n, d, 0.3)
	dense := func(i int) data.Vec { return data.Dense(x[i*d : (i+1)*d]) }
	norms := make([]float32, n)
	for i := range norms {
		norms[i] = float32(dense(i).SqNorm())
	}
	for name, k := range testKernels() {
		t.Run(name, func(t *testing.T) {
			if !OnRows(k) {
				t.Fatal("OnRows is false")
			}
			bd := make([]float32, d)
			dst := make([]float32, n)
			for _, zSparse := range []bool{false, true} {
				z := make([]data.Vec, n)
				for i := range z {
					z[i] = dense(i)
					if zSparse {
						z[i] = sp.Row(i)
					}
				}
				for _, bSparse := range []bool{false, true} {
					for q := 0; q < n; q += 5 {
						b := dense(q)
						if bSparse {
							b = sp.Row(q)
						}
						bview := b.Val
						if bSparse {
							b.Scatter(bd)
							bview = bd
						}
						nb := b.SqNorm()
						zn := norms
						if q%2 == 1 {
							zn = nil // computed by RowVec
						}
						RowVec(k, dst, z, zn, b, nb, bview)
						if bSparse {
							b.Clear(bd)
						}
						for j := range z {
							want := k.Eval(x[j*d:(j+1)*d], x[q*d:(q+1)*d])
							got := EvalVec(k, z[j], b, dense(j).SqNorm(), nb)
							if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
								t.Fatalf("z sparse %v, b sparse %v: EvalVec(z_%d, x_%d) = %.17g, Eval %.17g", zSparse, bSparse, j, q, got, want)
							}
							if math.Abs(float64(dst[j])-want) > 2e-6*(1+math.Abs(want)) {
								t.Fatalf("z sparse %v, b sparse %v: RowVec[%d] for x_%d = %g, Eval %g", zSparse, bSparse, j, q, dst[j], want)
							}
						}
					}
				}
			}
			for _, i := range []int{0, 3} {
				want := k.Eval(x[i*d:(i+1)*d], x[i*d:(i+1)*d])
				if got := SelfVec(k, sp.Row(i), dense(i).SqNorm()); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
					t.Errorf("SelfVec(x_%d) = %.17g, Eval %.17g", i, got, want)
				}
			}
			for i := range bd {
				if bd[i] != 0 {
					t.Fatalf("scratch not cleared at %d", i)
				}
			}
		})
	}
}

// TestRowVecSameForEitherQuery checks that a query gives bit-identical
// kernel rows over sparse rows whether it is passed dense or sparse: the
// gathers read the same values.
func TestRowVecSameForEitherQuery(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, d = 50, 200
	sp, x := sparsePoints(rng, n, d, 0.05)
	z := make([]data.Vec, n)
	for i := range z {
		z[i] = sp.Row(i)
	}
	bd := make([]float32, d)
	a, b := make([]float32, n), make([]float32, n)
	for _, k := range testKernels() {
		for q := 0; q < n; q++ {
			dq := data.Dense(x[q*d : (q+1)*d])
			sq := sp.Row(q)
			RowVec(k, a, z, nil, dq, dq.SqNorm(), dq.Val)
			sq.Scatter(bd)
			RowVec(k, b, z, nil, sq, sq.SqNorm(), bd)
			sq.Clear(bd)
			for j := range a {
				if a[j] != b[j] {
					t.Fatalf("%v: K(z_%d, x_%d) = %g from the dense query, %g from the sparse one", k.Spec(), j, q, a[j], b[j])
				}
			}
		}
	}
}

// notDot is a kernel outside OnRows (the linear kernel behind the
// general interface only).
type notDot struct{}

func (notDot) Eval(a, b []float32) float64              { return Linear{}.Eval(a, b) }
func (notDot) Row(dst, z, norms, b []float32)           { Linear{}.Row(dst, z, norms, b) }
func (notDot) GradB(dst, a, b []float32, scale float64) { Linear{}.GradB(dst, a, b, scale) }
func (notDot) Spec() Spec                               { return Spec{Name: "custom"} }
func (notDot) Cross(dst, a []float32, na int, an []float32, b []float32, nb int, bn []float32, d int) {
	Linear{}.Cross(dst, a, na, an, b, nb, bn, d)
}

func TestOnRowsRefusesOtherKernels(t *testing.T) {
	if OnRows(notDot{}) || OnRows(Normalized{K: notDot{}}) {
		t.Error("OnRows accepts a kernel that is not a function of dot products")
	}
	a := data.Vec{Idx: []int32{1}, Val: []float32{2}}
	if got := EvalVec(notDot{}, data.Dense([]float32{1, 2}), data.Dense([]float32{3, 4}), 5, 25); got != 11 {
		t.Errorf("EvalVec on dense rows with a general kernel = %g, want 11", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("EvalVec on a sparse row with a general kernel did not panic")
		}
	}()
	EvalVec(notDot{}, a, a, 4, 4)
}

// BenchmarkRowVecSparse: an RBF row over 20000 sparse rows of 50 nonzeros
// in 50000 features (a kernel column of the sparse SMO benchmark).
func BenchmarkRowVecSparse(b *testing.B) {
	const n, d, nnz = 20000, 50000, 50
	rng := rand.New(rand.NewPCG(1, 1))
	m := &data.CSR{Ptr: []int64{0}}
	for i := 0; i < n; i++ {
		c := int32(0)
		for k := 0; k < nnz; k++ {
			c += 1 + int32(rng.IntN(2*d/nnz-1))
			if c >= d {
				break
			}
			m.Idx = append(m.Idx, c)
			m.Val = append(m.Val, float32(rng.Float64()))
		}
		m.Ptr = append(m.Ptr, int64(len(m.Val)))
	}
	z := make([]data.Vec, n)
	zn := make([]float32, n)
	for i := range z {
		z[i] = m.Row(i)
		zn[i] = float32(z[i].SqNorm())
	}
	dst := make([]float32, n)
	buf := make([]float32, d)
	k := RBF{Gamma: 0.03}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := z[i%n]
		q.Scatter(buf)
		RowVec(k, dst, z, zn, q, float64(zn[i%n]), buf)
		q.Clear(buf)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m.NNZ()), "ns/nonzero")
}
