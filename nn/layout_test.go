package nn

import (
	"fmt"
	"slices"
	"testing"
)

// torchGrad returns p.G in PyTorch's layout.
func torchGrad(p *Param) []float32 {
	if !p.Transposed {
		return p.G
	}
	g := make([]float32, len(p.G))
	transpose(g, p.G, p.Shape[1], p.Shape[0])
	return g
}

// closeTo fails unless a and b agree to float rounding: max|a−b| at most
// tol·max|b|.
func closeTo(t *testing.T, what string, a, b []float32, tol float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d values, want %d", what, len(a), len(b))
	}
	if d := maxRelDiff(a, b); d > tol {
		t.Errorf("%s: relative difference %.3g > %.3g", what, d, tol)
	}
}

// TestTransposedGradients runs the dense-path gradient checks on the nets
// of gradCases that can take the transposed layout.
func TestTransposedGradients(t *testing.T) {
	for _, tc := range gradCases {
		n := newGradNet(t, tc.spec, tc.shape, tc.chunk1)
		if !n.SparseInput() {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			if err := n.SetSparseLayout(true); err != nil {
				t.Fatal(err)
			}
			checkInputGrads(t, n, tc.batch)
			x := fdInput(tc.batch*n.InSize(), 2)
			checkParamGrads(t, n, tc.batch, func() []float32 { return n.Forward(x, tc.batch, true) }, n.trainReps[0])
		})
	}
}

// TestSparseLayout checks that the transposed layout changes the order of
// the values only: Torch, SetTorch, the way back, Clone, and the dense path.
func TestSparseLayout(t *testing.T) {
	spec := "dense(7),relu,dense(3)"
	a, b := mustNew(t, spec, []int{11}, 1), mustNew(t, spec, []int{11}, 1)
	w0 := slices.Clone(a.Params()[0].W)
	x := uniform(newRand(2), 4*11, -1, 1)
	c := uniform(newRand(3), 4*3, -1, 1)
	a.Forward(x, 4, true)
	a.Backward(c)
	g0 := slices.Clone(a.Params()[0].G)
	if a.SparseLayout() {
		t.Fatal("a new Net is in the sparse layout")
	}
	if err := a.SetSparseLayout(true); err != nil {
		t.Fatal(err)
	}
	p := a.Params()[0]
	if !a.SparseLayout() || !p.Transposed || a.Params()[1].Transposed || a.Params()[2].Transposed {
		t.Fatal("only the first weight should be transposed")
	}
	if slices.Equal(p.W, w0) || !slices.Equal(p.Torch(), w0) || !slices.Equal(torchGrad(p), g0) {
		t.Fatal("the transposed weight or gradient does not hold the same values")
	}
	if p.W[1] != w0[11] || p.W[7] != w0[1] {
		t.Fatal("W is not stored as in×out")
	}
	// The dense path in the transposed layout.
	for _, train := range []bool{true, false} {
		closeTo(t, fmt.Sprintf("train=%v outputs", train), slices.Clone(a.Forward(x, 4, train)), b.Forward(x, 4, train), 1e-6)
	}
	a.ZeroGrad()
	b.ZeroGrad()
	a.Backward(c)
	b.Backward(c)
	closeTo(t, "gradient", torchGrad(p), b.Params()[0].G, 1e-6)
	za, zb := make([]float32, 4*3), make([]float32, 4*3)
	a.Features(za, x, 4)
	b.Features(zb, x, 4)
	closeTo(t, "Features", za, zb, 1e-6)
	// Clone keeps the layout and the values.
	cl := a.Clone()
	if !cl.SparseLayout() || !slices.Equal(cl.Params()[0].W, p.W) {
		t.Fatal("Clone lost the layout")
	}
	zc := make([]float32, 4*3)
	cl.Features(zc, x, 4)
	if !slices.Equal(zc, za) {
		t.Fatal("the clone's features differ")
	}
	// SetTorch takes PyTorch's layout.
	w1 := uniform(newRand(7), len(w0), -1, 1)
	p.SetTorch(w1)
	if !slices.Equal(p.Torch(), w1) {
		t.Fatal("SetTorch then Torch changed the values")
	}
	p.SetTorch(w0)
	// And back.
	if err := a.SetSparseLayout(false); err != nil {
		t.Fatal(err)
	}
	if a.SparseLayout() || p.Transposed || !slices.Equal(p.W, w0) {
		t.Fatal("the way back does not restore W")
	}
	if &p.Torch()[0] != &p.W[0] {
		t.Fatal("Torch copies a row-major weight")
	}
}

// TestTranspose checks transpose against the definition on shapes with
// partial blocks, a power-of-two row count and single rows and columns.
func TestTranspose(t *testing.T) {
	for _, sh := range [][2]int{{1, 1}, {1, 5}, {5, 1}, {37, 70}, {2048, 25}, {64, 64}} {
		rows, cols := sh[0], sh[1]
		src := make([]float32, rows*cols)
		for i := range src {
			src[i] = float32(i)
		}
		dst := make([]float32, rows*cols)
		transpose(dst, src, rows, cols)
		for i := range rows {
			for j := range cols {
				if dst[j*rows+i] != src[i*cols+j] {
					t.Fatalf("%d×%d: dst[%d][%d] = %g, want %g", rows, cols, j, i, dst[j*rows+i], src[i*cols+j])
				}
			}
		}
	}
}
