package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// shiftModel is fuzzModels' CNN (1×6×6 images) with a standardisation and
// TestShift 1.
func shiftModel(t testing.TB) *Model {
	m := fuzzModels(t)["cnn"]
	m.Mean, m.Std = make([]float64, 36), make([]float64, 36)
	for j := range m.Mean {
		m.Mean[j], m.Std[j] = 0.1*float64(j%5), 0.5+0.05*float64(j%7)
	}
	m.TestShift = 1
	return m
}

// TestTestShiftFeatures: a model with TestShift gives the mean of its
// network's features over the nine images moved by one pixel, each moved
// before it is standardised, in any block of rows and after a save and
// load; without TestShift its features are the network's of the image.
func TestTestShiftFeatures(t *testing.T) {
	m := shiftModel(t)
	const n = 5
	x := make([]float32, n*36)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	out := m.OutSize()
	want := make([]float32, n*out)
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			moved := make([]float32, len(x))
			for r := range n {
				for i := range 6 {
					for j := range 6 {
						if si, sj := i-dy, j-dx; si >= 0 && si < 6 && sj >= 0 && sj < 6 {
							moved[r*36+i*6+j] = x[r*36+si*6+sj]
						}
					}
				}
			}
			for k, v := range moved {
				moved[k] = float32((float64(v) - m.Mean[k%36]) / m.Std[k%36])
			}
			z := make([]float32, n*out)
			m.Net.Features(z, moved, n)
			for k := range z {
				want[k] += z[k] / 9
			}
		}
	}
	got := make([]float32, n*out)
	m.Features(got, x, n)
	for k := range got {
		if d := math.Abs(float64(got[k] - want[k])); d > 1e-5*(1+math.Abs(float64(want[k]))) {
			t.Fatalf("feature %d: %g, want the mean over the shifts %g", k, got[k], want[k])
		}
	}
	// Row by row gives the same values bit for bit.
	for r := range n {
		z := make([]float32, out)
		m.Features(z, x[r*36:(r+1)*36], 1)
		if !slices.Equal(z, got[r*out:(r+1)*out]) {
			t.Fatalf("row %d alone: %v, in a block: %v", r, z, got[r*out:(r+1)*out])
		}
	}
	_, l := saveLoad(t, m)
	if l.TestShift != 1 {
		t.Fatalf("loaded TestShift %d", l.TestShift)
	}
	lz := make([]float32, n*out)
	l.Features(lz, x, n)
	if !slices.Equal(lz, got) {
		t.Fatal("the loaded model's features differ")
	}
	if c := m.Clone(); c.TestShift != 1 {
		t.Fatalf("Clone's TestShift %d", c.TestShift)
	}
	m.TestShift = 0
	plain := make([]float32, n*out)
	m.Features(plain, x, n)
	if slices.Equal(plain, got) {
		t.Fatal("TestShift changed nothing")
	}
}

// A test_shift the model cannot predict with is refused at Load, and Save
// refuses a TestShift out of range or on a network without images.
func TestTestShiftRefused(t *testing.T) {
	b := encodeModel(t, shiftModel(t))
	for _, v := range []string{"0", "-1", "3", "x", "1.5", ""} {
		if _, err := loadBytes(rewriteHeader(t, b, setMeta("test_shift", v))); err == nil || !strings.Contains(err.Error(), "test_shift") {
			t.Errorf("test_shift %q: %v", v, err)
		}
	}
	mlp := encodeModel(t, fuzzModels(t)["mlp"])
	if _, err := loadBytes(rewriteHeader(t, mlp, setMeta("test_shift", "1"))); err == nil || !strings.Contains(err.Error(), "test_shift") {
		t.Errorf("test_shift on an MLP: %v", err)
	}
	small, err := nn.New("flatten", []int{1, 2, 2}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Model{
		{Algorithm: "nsvm4", Net: fuzzModels(t)["mlp"].Net, Head: fuzzModels(t)["mlp"].Head, TestShift: 1},
		{Algorithm: "nsvm4", Net: fuzzModels(t)["cnn"].Net, Head: fuzzModels(t)["cnn"].Head, TestShift: MaxTestShift + 1},
		{Algorithm: "nsvm4", Net: small, Head: &svm.Model{Kernel: kernel.Spec{Name: "linear"}, D: 4, Neg: -1, Pos: 1}, TestShift: 1},
	} {
		if _, _, err := m.encode(); err == nil || !strings.Contains(err.Error(), "TestShift") {
			t.Errorf("encode of TestShift %d on %s: %v", m.TestShift, m.Net.Spec(), err)
		}
	}
}

// A network on images whose first layer is dense takes sparse rows as they
// are, except with TestShift: its moved images are dense, and sparse rows
// predict as dense ones.
func TestTestShiftSparseRows(t *testing.T) {
	net, err := nn.New("dense(4),relu", []int{1, 6, 6}, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if !net.SparseInput() {
		t.Fatal("the network does not take sparse rows")
	}
	m := &Model{Algorithm: "nsvm4", Net: net, Head: &svm.Model{Kernel: kernel.Spec{Name: "linear"}, D: 4, SV: []float32{1, -1, 0.5, 2}, NSV: 1, Coef: []float64{1}, Neg: -1, Pos: 1},
		TestShift: 1, Info: map[string]string{}}
	const n = 8
	ds := &data.Dataset{X: make([]float32, n*36), N: n, D: 36, Shape: []int{1, 6, 6}}
	for i := range ds.X {
		if i%5 == 0 {
			ds.X[i] = float32(i%7) - 2
		}
	}
	dense, err := m.PredictDataset(ds, false)
	if err != nil {
		t.Fatal(err)
	}
	ds.Sparsify()
	sparse, err := m.PredictDataset(ds, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dense.Decisions, sparse.Decisions) {
		t.Fatalf("sparse rows %v, dense %v", sparse.Decisions, dense.Decisions)
	}
}
