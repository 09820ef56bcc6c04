package onnx

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// testModels returns models of every kind the export handles, built by
// hand (random support vectors and weights, no training) or read from
// model's golden files: binary, multiclass one-vs-one and one-vs-rest,
// regression and one-class; RBF, linear (dense and sparse support
// vectors), polynomial, sigmoid and normalized kernels; MLPs and CNNs
// with every layer kind; per-feature and global scaling; Platt slopes and
// LIBSVM's sigmoids; categorical CSV columns with filled values and named
// classes.
func testModels(t *testing.T) map[string]*model.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 5))
	vals := func(n int, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(scale * rng.NormFloat64())
		}
		return v
	}
	coefs := func(n int) []float64 {
		c := make([]float64, n)
		for i := range c {
			c[i] = rng.NormFloat64()
		}
		return c
	}
	head := func(n, d int, k kernel.Spec) *svm.Model {
		return &svm.Model{Kernel: k, SV: vals(n*d, 1), NSV: n, D: d, Coef: coefs(n), Bias: 0.1 * rng.NormFloat64(), Neg: -1, Pos: 1}
	}
	heads := func(nh, n, d int, k kernel.Spec) []*svm.Model {
		hs := make([]*svm.Model, nh)
		for i := range hs {
			hs[i] = head(n+i, d, k)
		}
		// A support vector shared by two heads, as one-vs-one heads share
		// the points of their common class.
		copy(hs[1].SV[:d], hs[0].SV[:d])
		return hs
	}
	net := func(arch string, shape []int) *nn.Net {
		n, err := nn.New(arch, shape, rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range n.Params() {
			if p.Buffer {
				for i := range p.W {
					p.W[i] = float32(0.5 + rng.Float64()) // running statistics
				}
			}
		}
		return n
	}
	rbf := kernel.Spec{Name: "rbf", Gamma: 0.3}
	out := map[string]*model.Model{}
	for _, name := range []string{"binary", "multiclass-ovo", "regression", "cnn", "selection"} {
		m, err := model.Load(filepath.Join("..", "testdata", "golden", name+".nsvm"))
		if err != nil {
			t.Fatal(err)
		}
		out["golden-"+name] = m
	}

	b := &model.Model{Algorithm: "smo", Head: head(30, 5, rbf), Mean: []float64{1, -1, 0, 2, 0.5}, Std: []float64{2, 1, 0.5, 1, 3},
		Platt: &svm.Platt{A: -1.7}, Info: map[string]string{}}
	b.Head.Neg, b.Head.Pos = 2, 4
	out["binary-rbf-platt"] = b

	ovr := &model.Model{Algorithm: "smo", Platt: &svm.Platt{A: -1.2}, Info: map[string]string{}}
	ovr.SetHeads([]float64{0, 1, 2, 3}, model.OneVsRest, heads(4, 12, 6, kernel.Spec{Name: "poly", Gamma: 0.2, Coef0: 1, Degree: 3}))
	out["ovr-poly-platt"] = ovr

	ovo := &model.Model{Algorithm: "smo", Info: map[string]string{}}
	ovo.SetHeads([]float64{-3, 1, 2, 7, 9}, model.OneVsOne, heads(10, 8, 4, kernel.Spec{Name: "sigmoid", Gamma: 0.1, Coef0: -0.2}))
	for range 10 {
		ovo.Sigmoids = append(ovo.Sigmoids, svm.Platt{A: -1 - rng.Float64(), B: 0.3 * rng.NormFloat64()})
	}
	out["ovo-sigmoid-libsvm-prob"] = ovo

	ovoRBF := &model.Model{Algorithm: "smo", Platt: &svm.Platt{A: -2}, Mean: []float64{0.5, 0.5, 0.5}, Std: []float64{2, 2, 2},
		Info: map[string]string{}}
	ovoRBF.SetHeads([]float64{1, 2, 3}, model.OneVsOne, heads(3, 10, 3, rbf))
	out["ovo-rbf-platt-global"] = ovoRBF

	// A linear head on sparse support vectors, with LIBSVM's sigmoid.
	sp := &svm.Model{Kernel: kernel.Spec{Name: "linear"}, NSV: 3, D: 40, Coef: []float64{0.5, -1, 0.25}, Bias: 0.2, Neg: -1, Pos: 1,
		SVSparse: &data.CSR{Ptr: []int64{0, 2, 3, 6}, Idx: []int32{1, 30, 7, 0, 7, 39}, Val: []float32{1, -2, 0.5, 3, 1, -1}}}
	out["binary-linear-sparse"] = &model.Model{Algorithm: "linear", Head: sp, Sigmoids: []svm.Platt{{A: -2, B: 0.4}}, Info: map[string]string{}}

	out["binary-normalized-poly"] = &model.Model{Algorithm: "smo", Head: head(20, 4, kernel.Spec{Name: "poly", Gamma: 0.5, Coef0: 1, Degree: 2, Normalized: true}),
		Info: map[string]string{}}

	oc := &model.Model{Algorithm: "smo", Head: head(15, 3, rbf), Info: map[string]string{"svm_type": "one_class"}}
	for i := range oc.Head.Coef {
		oc.Head.Coef[i] = 0.1 + rng.Float64()
	}
	oc.Head.Bias = -3
	out["one-class"] = oc

	reg := &model.Model{Algorithm: "linear", Task: model.Regression, Head: head(7, 4, kernel.Spec{Name: "linear"}),
		Mean: []float64{3, 3, 3, 3}, Std: []float64{0.5, 0.5, 0.5, 0.5}, Info: map[string]string{}}
	reg.ScaleOutput(10, 100)
	out["regression-linear"] = reg

	out["regression-rbf-mlp"] = &model.Model{Algorithm: "nsvm4", Task: model.Regression, Net: net("dense(8),tanh,batchnorm,dense(5),sigmoid,l2norm(0.001),scale(2)", []int{6}),
		Head: head(9, 5, rbf), Mean: []float64{0, 1, 2, 3, 4, 5}, Std: []float64{1, 2, 1, 2, 1, 2}, Info: map[string]string{}}

	cnn := &model.Model{Algorithm: "nsvm4", Net: net("conv(3,3),batchnorm,relu,maxpool(2),dropout2d(0.5),conv(4,2),meanpool,dense(6),relu,dropout(0.2)", []int{2, 9, 9}),
		Info: map[string]string{}, Platt: &svm.Platt{A: -1}}
	cnn.SetHeads([]float64{0, 1, 2}, model.OneVsRest, heads(3, 6, 6, kernel.Spec{Name: "rbf", Gamma: 0.5}))
	out["cnn-ovr-platt"] = cnn

	// Features averaged over shifted copies of each image (non-square,
	// two channels, global scaling), with one-vs-one linear heads as an
	// image search gives, and over two-pixel shifts with an RBF head.
	shifted := &model.Model{Algorithm: "nsvm4", Net: net("conv(3,3),batchnorm,relu,maxpool(2),flatten,dense(5),relu", []int{2, 7, 8}),
		Mean: slices.Repeat([]float64{0.3}, 112), Std: slices.Repeat([]float64{1.5}, 112), TestShift: 1, Info: map[string]string{}}
	shifted.SetHeads([]float64{0, 1, 2}, model.OneVsOne, heads(3, 1, 5, kernel.Spec{Name: "linear"}))
	out["cnn-ovo-testshift"] = shifted
	out["cnn-testshift2"] = &model.Model{Algorithm: "nsvm4", Net: net("conv(2,3),maxpool(2),relu,flatten", []int{1, 9, 10}),
		Head: head(6, 24, kernel.Spec{Name: "rbf", Gamma: 0.02}), TestShift: 2, Info: map[string]string{}}

	out["cnn-linear"] = &model.Model{Algorithm: "nsvm4", Net: net("conv(2,3),maxpool(3),relu", []int{1, 7, 8}),
		Head: head(5, 4, kernel.Spec{Name: "linear"}), Info: map[string]string{}}

	fill := 0.75
	cols := []data.Column{
		{Name: "age", Fill: &fill},
		{Name: "colour", Categories: []string{"blue", "green", "red"}},
		{Name: "id", Dropped: true, Distinct: 500},
		{Name: "town", Categories: []string{"Bonn", "Köln"}, Other: true},
		{Name: "height"},
	}
	cat := &model.Model{Algorithm: "smo", Columns: cols, LabelColumn: "kind", LabelNames: []string{"cat", "dog", "eel"},
		Mean: []float64{0.2, 0, 0, 0, 0, 0, 0, 1}, Std: []float64{1, 1, 1, 1, 1, 1, 1, 2}, Platt: &svm.Platt{A: -1.5}, Info: map[string]string{}}
	cat.SetHeads([]float64{0, 1, 2}, model.OneVsOne, heads(3, 10, data.Width(cols), rbf))
	out["categorical-named"] = cat

	num := &model.Model{Algorithm: "smo", Columns: []data.Column{{Name: "a", Fill: &fill}, {Name: "b"}, {Name: "c", Fill: &fill}},
		Head: head(6, 3, rbf), Info: map[string]string{}}
	out["numbers-filled"] = num

	dcols := []data.Column{{Dropped: true, RowIndex: true}, {Name: "signup", Dates: "YYYY-MM-DD", DateFill: []float64{18800.5, 2021, 6.5, 3}},
		{Name: "plan", Categories: []string{"basic", "pro"}}, {Name: "spend"}}
	dates := &model.Model{Algorithm: "smo", Columns: dcols, Mean: []float64{18800, 2021, 6, 3, 0, 0, 1}, Std: []float64{200, 1, 3, 2, 1, 1, 2},
		Head: head(6, data.Width(dcols), rbf), Info: map[string]string{}}
	out["dates"] = dates

	// A LIBSVM model whose one-vs-one votes tie on every row (a linear
	// kernel with zero coefficients: each decision is −rho, the three pairs
	// vote in a cycle): its label is the class its file lists first, 2.
	ties, err := model.ReadLIBSVMModel(strings.NewReader("svm_type c_svc\nkernel_type linear\nnr_class 3\ntotal_sv 3\nrho -1 1 -1\nlabel 2 0 1\nnr_sv 1 1 1\nSV\n0 0 1:1\n0 0 1:1\n0 0 1:1\n"))
	if err != nil {
		t.Fatal(err)
	}
	out["libsvm-vote-ties"] = ties
	// LIBSVM models whose decisions are all exactly 0 (zero coefficients,
	// rho 0): svm-predict counts a zero for the class its file lists later
	// (1 of three listed 2 0 1; −1 of two listed 1 −1; a one-class
	// model's −1), where nsvm's own models count it for the positive side.
	for name, file := range map[string]string{
		"libsvm-zero-votes":    "svm_type c_svc\nkernel_type linear\nnr_class 3\ntotal_sv 3\nrho 0 0 0\nlabel 2 0 1\nnr_sv 1 1 1\nSV\n0 0 1:1\n0 0 1:1\n0 0 1:1\n",
		"libsvm-zero-binary":   "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\nSV\n0 1:1\n0 1:1\n",
		"libsvm-zero-oneclass": "svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n0 1:1\n",
	} {
		z, err := model.ReadLIBSVMModel(strings.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = z
	}
	return out
}

// testRows returns n random rows for m: [n, InSize] floats for a model of
// numbers (some NaN where a column fills them), or the CSV text of n rows
// for a model of categorical columns, with values it has not seen.
func testRows(m *model.Model, n int, rng *rand.Rand) ([]float32, string) {
	if perColumn(m.Columns) {
		var b []byte
		for k, c := range m.Columns {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, columnName(c, k)...)
		}
		b = append(b, '\n')
		for range n {
			for k, c := range m.Columns {
				if k > 0 {
					b = append(b, ',')
				}
				switch {
				case c.Dropped:
					b = append(b, "id"+string(rune('a'+rng.IntN(26)))...)
				case c.Dates != "" && c.DateFill != nil && rng.IntN(4) == 0:
					b = append(b, "NA"...)
				case c.Dates != "":
					b = fmt.Appendf(b, "2021-%02d-%02dT%02d:30:00", 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24))
				case c.Categories != nil:
					if rng.IntN(5) == 0 {
						b = append(b, "unseen"...)
					} else {
						b = append(b, c.Categories[rng.IntN(len(c.Categories))]...)
					}
				case c.Fill != nil && rng.IntN(4) == 0:
					b = append(b, "NA"...)
				default:
					b = append(b, []byte(formatF(float32(2*rng.NormFloat64())))...)
				}
			}
			b = append(b, '\n')
		}
		return nil, string(b)
	}
	d := m.InSize()
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32(2 * rng.NormFloat64())
		if j := i % d; j < len(m.Columns) && m.Columns[j].Fill != nil && rng.IntN(4) == 0 {
			x[i] = float32(math.NaN())
		}
	}
	return x, ""
}

func formatF(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
