package nn

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

// randomCSR returns rows×d sparse rows with about density·d nonzeros each,
// |v| in [0.1, 1]: row 1 is empty and row 2 stores an explicit zero.
func randomCSR(rng *rand.Rand, rows, d int, density float64) *data.CSR {
	x := &data.CSR{Ptr: []int64{0}}
	for i := range rows {
		for j := range d {
			if i == 1 || rng.Float64() >= density {
				continue
			}
			v := float32(0.1 + 0.9*rng.Float64())
			if rng.IntN(2) == 0 {
				v = -v
			}
			if i == 2 && len(x.Val) == int(x.Ptr[i]) {
				v = 0
			}
			x.Idx = append(x.Idx, int32(j))
			x.Val = append(x.Val, v)
		}
		x.Ptr = append(x.Ptr, int64(len(x.Val)))
	}
	return x
}

// denseRows returns the rows rows of x as dense rows of d features.
func denseRows(x *data.CSR, rows []int, d int) []float32 {
	out := make([]float32, len(rows)*d)
	for s, i := range rows {
		x.Row(i).Scatter(out[s*d : (s+1)*d])
	}
	return out
}

var sparseCases = []struct {
	name  string
	spec  string
	shape []int
}{
	{"dense", "dense(5)", []int{30}},
	{"dense-relu", "dense(16),relu", []int{40}},
	{"dropout-after", "dense(16),relu,dropout(0.3),dense(8),relu", []int{40}},
	{"dropout-before-relu", "dense(24),dropout(0.5),relu,dense(3)", []int{35}},
	{"layers", "dense(24),relu,dense(12),tanh,dense(6),sigmoid,dense(4),l2norm", []int{40}},
	{"image-flatten", "flatten,dense(12),relu,dense(4)", []int{2, 4, 5}},
	{"image-implicit", "dense(9),relu", []int{1, 6, 6}},
}

// sparseModes are the ways the sparse path may run: either layout, one
// part or forced splits of the batch and of the gradient.
var sparseModes = []struct {
	name     string
	layout   bool
	maxParts int
	split    bool
}{
	{"rowmajor", false, 1, false},
	{"transposed", true, 1, false},
	{"rowmajor-split", false, 2, true},
	{"transposed-split", true, 2, true},
	{"transposed-split3", true, 3, true},
}

func setMode(t *testing.T, n *Net, layout bool, maxParts int, split bool) {
	t.Helper()
	if err := n.SetSparseLayout(layout); err != nil {
		t.Fatal(err)
	}
	n.maxParts = maxParts
	if split {
		n.splitWork = 0
	}
}

// TestSparseMatchesDense checks that ForwardSparse, Backward after it, an
// optimizer step, and FeaturesSparse agree with the dense path on the same
// rows made dense, for either layout and split.
func TestSparseMatchesDense(t *testing.T) {
	for _, tc := range sparseCases {
		for _, m := range sparseModes {
			t.Run(tc.name+"/"+m.name, func(t *testing.T) {
				a := mustNew(t, tc.spec, tc.shape, 5)
				b := mustNew(t, tc.spec, tc.shape, 5)
				if !a.SparseInput() {
					t.Fatal("SparseInput is false")
				}
				setMode(t, a, m.layout, m.maxParts, m.split)
				d := a.InSize()
				x := randomCSR(newRand(6), 23, d, 0.15)
				rows := []int{4, 1, 17, 9, 22, 2, 11, 5}
				xd := denseRows(x, rows, d)
				batch := len(rows)
				oa := NewSGD(a.Params(), 0.05, 0.9, 1e-3, false)
				ob := NewSGD(b.Params(), 0.05, 0.9, 1e-3, false)
				for step := range 3 {
					a.SetRand(newRand(uint64(9 + step)))
					b.SetRand(newRand(uint64(9 + step)))
					ya := slices.Clone(a.ForwardSparse(x, rows, true))
					yb := b.Forward(xd, batch, true)
					closeTo(t, fmt.Sprintf("step %d: train outputs", step), ya, yb, 1e-5)
					c := uniform(newRand(uint64(20+step)), batch*a.OutSize(), -1, 1)
					oa.ZeroGrad()
					ob.ZeroGrad()
					a.Backward(c)
					b.Backward(c)
					for i, p := range a.Params() {
						closeTo(t, fmt.Sprintf("step %d: %s gradient", step, p.Name), torchGrad(p), b.Params()[i].G, 1e-5)
					}
					oa.Step()
					ob.Step()
				}
				for i, p := range a.Params() {
					closeTo(t, p.Name+" after 3 SGD steps", p.Torch(), b.Params()[i].W, 1e-5)
				}
				ya := slices.Clone(a.ForwardSparse(x, rows, false))
				closeTo(t, "inference outputs", ya, b.Forward(xd, batch, false), 1e-5)
				za := make([]float32, x.Rows()*a.OutSize())
				zb := make([]float32, len(za))
				a.FeaturesSparse(za, x)
				b.Features(zb, x.Dense(d), x.Rows())
				closeTo(t, "FeaturesSparse", za, zb, 1e-5)
				// Every row's features are those of the row alone.
				for i := range x.Rows() {
					zi := a.ForwardSparse(x, []int{i}, false)
					if !slices.Equal(zi, za[i*a.OutSize():(i+1)*a.OutSize()]) {
						t.Fatalf("row %d: FeaturesSparse differs from ForwardSparse of the row alone", i)
					}
				}
			})
		}
	}
}

// TestSparseAdam checks an Adam run on sparse rows in the transposed layout
// against the dense run.
func TestSparseAdam(t *testing.T) {
	spec := "dense(16),relu,dense(8),relu"
	a, b := mustNew(t, spec, []int{50}, 3), mustNew(t, spec, []int{50}, 3)
	setMode(t, a, true, 0, false)
	x := randomCSR(newRand(4), 12, 50, 0.1)
	xd := x.Dense(50)
	oa := NewAdam(a.Params(), 0.01, 0.9, 0.999, 1e-8, 1e-4)
	ob := NewAdam(b.Params(), 0.01, 0.9, 0.999, 1e-8, 1e-4)
	for step := range 5 {
		c := uniform(newRand(uint64(step)), 12*8, -1, 1)
		oa.ZeroGrad()
		ob.ZeroGrad()
		a.ForwardSparse(x, nil, true)
		b.Forward(xd, 12, true)
		a.Backward(c)
		b.Backward(c)
		oa.Step()
		ob.Step()
	}
	for i, p := range a.Params() {
		closeTo(t, p.Name, p.Torch(), b.Params()[i].W, 1e-4)
	}
}

// TestSparseParamGradients checks the gradients after ForwardSparse and
// Backward against central differences, in either layout.
func TestSparseParamGradients(t *testing.T) {
	for _, spec := range []string{"dense(5)", "dense(6),relu,dense(3)", "dense(6),tanh,dropout(0.4),dense(4),l2norm"} {
		for _, m := range sparseModes {
			t.Run(spec+"/"+m.name, func(t *testing.T) {
				n := mustNew(t, spec, []int{9}, 1)
				setMode(t, n, m.layout, m.maxParts, m.split)
				x := randomCSR(newRand(2), 6, 9, 0.4)
				rows := []int{3, 0, 5, 2}
				n.ForwardSparse(x, rows, true) // builds the sparse replicas
				checkParamGrads(t, n, len(rows), func() []float32 { return n.ForwardSparse(x, rows, true) }, n.sparseReps[0])
			})
		}
	}
}

// TestSparseDeterminism checks that sparse training is reproducible, that
// the batch is copied (x may change before Backward), and that
// FeaturesSparse does not depend on its chunks or split.
func TestSparseDeterminism(t *testing.T) {
	spec := "dense(32),relu,dropout(0.2),dense(16),relu"
	x := randomCSR(newRand(1), 300, 500, 0.02)
	rows := []int{7, 250, 3, 99, 1, 2, 180, 44, 45, 46}
	run := func(par bool, mutate bool) ([]float32, [][]float32) {
		n := mustNew(t, spec, []int{500}, 2)
		setMode(t, n, true, 2, par)
		xx := &data.CSR{Ptr: x.Ptr, Idx: x.Idx, Val: slices.Clone(x.Val)}
		opt := NewSGD(n.Params(), 0.1, 0.9, 0, false)
		var out []float32
		for step := range 3 {
			out = slices.Clone(n.ForwardSparse(xx, rows, true))
			if mutate {
				clear(xx.Val)
			}
			opt.ZeroGrad()
			n.Backward(uniform(newRand(uint64(step)), len(out), -1, 1))
			if mutate {
				copy(xx.Val, x.Val)
			}
			opt.Step()
		}
		var ws [][]float32
		for _, p := range n.Params() {
			ws = append(ws, slices.Clone(p.W))
		}
		return out, ws
	}
	for _, par := range []bool{false, true} {
		o1, w1 := run(par, false)
		o2, w2 := run(par, true)
		if !slices.Equal(o1, o2) {
			t.Fatalf("split=%v: outputs differ between runs", par)
		}
		for i := range w1 {
			if !slices.Equal(w1[i], w2[i]) {
				t.Fatalf("split=%v: parameter %d differs between runs", par, i)
			}
		}
	}
	n := mustNew(t, spec, []int{500}, 2)
	setMode(t, n, true, 0, false)
	want := make([]float32, x.Rows()*16)
	n.FeaturesSparse(want, x)
	for _, m := range []struct {
		chunk, parts int
		split        bool
	}{{1, 1, false}, {7, 2, true}, {64, 3, true}} {
		n.featChunk, n.maxParts = m.chunk, m.parts
		if m.split {
			n.splitWork = 0
		}
		got := make([]float32, len(want))
		n.FeaturesSparse(got, x)
		if !slices.Equal(got, want) {
			t.Fatalf("chunk %d, %d parts: FeaturesSparse differs", m.chunk, m.parts)
		}
	}
}

// TestSparseRefused checks the errors: nets that do not start with a dense
// layer, and bad rows.
func TestSparseRefused(t *testing.T) {
	mustPanic := func(t *testing.T, want string, f func()) {
		t.Helper()
		defer func() {
			t.Helper()
			r := recover()
			if r == nil {
				t.Fatalf("no panic, want %q", want)
			}
			if msg := fmt.Sprint(r); !strings.Contains(msg, want) {
				t.Fatalf("panic %q, want %q", msg, want)
			}
		}()
		f()
	}
	for _, tc := range []struct {
		spec  string
		shape []int
	}{
		{"conv(2,3),relu,dense(4)", []int{1, 5, 5}},
		{"dropout(0.2),dense(3)", []int{10}},
		{"relu,dense(3)", []int{10}},
		{"l2norm,dense(3)", []int{10}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			n := mustNew(t, tc.spec, tc.shape, 1)
			if n.SparseInput() || n.SparseLayout() {
				t.Fatal("SparseInput is true")
			}
			x := randomCSR(newRand(1), 3, n.InSize(), 0.2)
			want := "does not start with a dense layer, so it cannot take sparse rows"
			mustPanic(t, want, func() { n.ForwardSparse(x, nil, true) })
			mustPanic(t, want, func() { n.FeaturesSparse(make([]float32, 3*n.OutSize()), x) })
			if err := n.SetSparseLayout(true); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("SetSparseLayout: %v", err)
			}
		})
	}
	n := mustNew(t, "dense(4)", []int{10}, 1)
	x := randomCSR(newRand(1), 3, 10, 0.3)
	bad := &data.CSR{Ptr: []int64{0, 1, 2}, Idx: []int32{3, 10}, Val: []float32{1, 1}}
	mustPanic(t, "sparse row 1 has column 10, outside [0, 10)", func() { n.ForwardSparse(bad, nil, true) })
	mustPanic(t, "sparse row 1 has column 10, outside [0, 10)", func() { n.FeaturesSparse(make([]float32, 8), bad) })
	mustPanic(t, "row 3 of 3 sparse rows", func() { n.ForwardSparse(x, []int{0, 3}, true) })
	mustPanic(t, "an empty batch", func() { n.ForwardSparse(x, []int{}, true) })
	mustPanic(t, "6 outputs for 3 rows of 4", func() { n.FeaturesSparse(make([]float32, 6), x) })
	mustPanic(t, "2 column indices and 1 values", func() {
		n.ForwardSparse(&data.CSR{Ptr: []int64{0, 1}, Idx: []int32{1, 2}, Val: []float32{1}}, nil, false)
	})
	mustPanic(t, "without a preceding train-mode Forward", func() {
		n.ForwardSparse(x, nil, false)
		n.Backward(make([]float32, 3*4))
	})
	// No rows at all is fine for FeaturesSparse.
	n.FeaturesSparse(nil, &data.CSR{Ptr: []int64{0}})
}

// TestSparseArch: the spec-level check agrees with a built net's.
func TestSparseArch(t *testing.T) {
	for spec, want := range map[string]bool{
		"dense(8),relu":                   true,
		"flatten,dense(8),relu":           true,
		"relu,dense(8)":                   false,
		"conv(4,3),relu,flatten,dense(4)": false,
	} {
		shape := []int{1, 8, 8}
		got, err := SparseArch(spec, shape)
		if err != nil {
			t.Fatal(err)
		}
		n := mustNew(t, spec, shape, 1)
		if got != want || n.SparseInput() != want {
			t.Errorf("%s: SparseArch %v, SparseInput %v, want %v", spec, got, n.SparseInput(), want)
		}
	}
}
