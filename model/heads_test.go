package model

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

func TestPairOf(t *testing.T) {
	for c := 2; c <= 6; c++ {
		q := 0
		for i := 0; i < c; i++ {
			for j := i + 1; j < c; j++ {
				if a, b := pairOf(q, c); a != i || b != j {
					t.Fatalf("pairOf(%d, %d) = (%d, %d), want (%d, %d)", q, c, a, b, i, j)
				}
				q++
			}
		}
		if q != HeadCount(OneVsOne, c) {
			t.Fatalf("%d pairs for %d classes, numHeads says %d", q, c, HeadCount(OneVsOne, c))
		}
	}
}

// TestShortRow: a row of the wrong length is a panic that names the method
// and both lengths, not an index out of range deep inside.
func TestShortRow(t *testing.T) {
	m := &Model{Head: &svm.Model{Kernel: kernel.Spec{Name: "linear"}, D: 4, Neg: -1, Pos: 1}}
	for name, f := range map[string]func(){"Predict": func() { m.Predict([]float32{1, 2, 3}) }, "Decision": func() { m.Decision(make([]float32, 5)) }} {
		func() {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, "Model."+name+": the row has") || !strings.Contains(msg, "the model takes 4") {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			f()
		}()
	}
}

// sharedOvO returns a one-vs-one model of three classes on d features whose
// heads share their classes' support vectors, as trained ones do: head
// (i, j) holds points of classes i and j, drawn from one pool per class.
func sharedOvO(d int, seed uint64) *Model {
	rng := rand.New(rand.NewPCG(seed, seed))
	pools := make([][]float32, 3)
	for c := range pools {
		pools[c] = make([]float32, 8*d)
		for i := range pools[c] {
			pools[c][i] = float32(rng.NormFloat64()) + float32(c)
		}
	}
	rbf := kernel.Spec{Name: "rbf", Gamma: 1 / float64(d)}
	heads := make([]*svm.Model, 3)
	for q := range heads {
		i, j := pairOf(q, 3)
		h := &svm.Model{Kernel: rbf, D: d, Neg: -1, Pos: 1, Bias: rng.NormFloat64()}
		for _, c := range []int{i, j} {
			for p := range 8 {
				if rng.IntN(3) > 0 {
					h.SV = append(h.SV, pools[c][p*d:(p+1)*d]...)
					h.Coef = append(h.Coef, rng.NormFloat64())
					h.NSV++
				}
			}
		}
		heads[q] = h
	}
	m := &Model{Algorithm: "smo", Info: map[string]string{}}
	m.SetHeads([]float64{0, 1, 2}, OneVsOne, heads)
	return m
}

// perHead returns every head's own decisions on the rows x, row-major.
func perHead(m *Model, x []float32, rows int) []float64 {
	out := make([]float64, rows*len(m.Heads))
	col := make([]float64, rows)
	for h, hd := range m.Heads {
		hd.DecisionBatch(col, x, rows)
		for i, v := range col {
			out[i*len(m.Heads)+h] = v
		}
	}
	return out
}

// TestHeadGroup checks that a multiclass model whose heads share support
// vectors evaluates each once a row and still gets every head's own
// decisions bit for bit, dense rows and sparse, and that replacing the
// heads replaces what it evaluates.
func TestHeadGroup(t *testing.T) {
	const d, rows = 6, 300
	m := sharedOvO(d, 1)
	if g := m.headGroup(); g == nil || g.Distinct() >= g.Total() {
		t.Fatalf("no group for heads sharing support vectors: %v", g)
	}
	if m.NumSV() != m.headGroup().Distinct() {
		t.Errorf("NumSV %d, the group's distinct support vectors %d", m.NumSV(), m.headGroup().Distinct())
	}
	rng := rand.New(rand.NewPCG(2, 2))
	x := make([]float32, rows*d)
	for i := range x {
		if rng.IntN(4) > 0 {
			x[i] = float32(rng.NormFloat64())
		}
	}
	check := func(what string) {
		t.Helper()
		want := perHead(m, x, rows)
		got := make([]float64, rows*len(m.Heads))
		m.HeadDecisions(got, x, rows)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: dense rows' decisions differ from the heads' own", what)
		}
		p, err := m.PredictDataset(&data.Dataset{N: rows, D: d, Sparse: data.ToCSR(x, rows, d)}, false)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.Decisions, want) {
			t.Fatalf("%s: sparse rows' decisions differ from the heads' own", what)
		}
	}
	check("first heads")
	other := sharedOvO(d, 7)
	m.SetHeads(m.Classes, OneVsOne, other.Heads)
	check("replaced heads")
}

// TestLIBSVMVoteTies: a model read from a LIBSVM file breaks a tie of
// one-vs-one votes as svm-predict does, for the class listed first in the
// file (2 of "label 2 0 1"), not the smallest; the same heads trained here
// give the tie to the smallest class. The three pairs vote in a cycle: each
// decision is −rho on the row 0.
func TestLIBSVMVoteTies(t *testing.T) {
	const file = "svm_type c_svc\nkernel_type linear\nnr_class 3\ntotal_sv 3\nrho -1 1 -1\nlabel 2 0 1\nnr_sv 1 1 1\nSV\n1 1 1:1\n1 1 1:1\n1 1 1:1\n"
	m, err := ReadLIBSVMModel(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	dec := make([]float64, 3)
	m.HeadDecisions(dec, []float32{0}, 1)
	scores := make([]float64, 3)
	m.scoresFrom(scores, dec, 1)
	if !slices.Equal(scores, []float64{1, 1, 1}) {
		t.Fatalf("votes %v, want a three-way tie (decisions %v)", scores, dec)
	}
	got := make([]float64, 1)
	m.LabelsFrom(got, dec, 1)
	if got[0] != 2 {
		t.Errorf("a LIBSVM model predicts %v on a tie, want 2 (listed first in its file)", got[0])
	}
	own := m.Clone()
	own.libsvmLabels = nil
	own.LabelsFrom(got, dec, 1)
	if got[0] != 0 {
		t.Errorf("a model of our own predicts %v on a tie, want 0 (the smallest class)", got[0])
	}
}

// A LIBSVM model counts a decision of exactly 0 as svm-predict does, for
// the class its file lists later (svm-predict votes for a pair's first
// class only where the decision is > 0, and a one-class model's +1 only
// there): the files below, whose decisions are all 0, predict 1, −1, 1
// and −1 in svm-predict 3.x. nsvm's own models count a zero for the positive
// side.
func TestLIBSVMZeroDecisions(t *testing.T) {
	for _, c := range []struct {
		file      string
		want, own float64
	}{
		{"svm_type c_svc\nkernel_type linear\nnr_class 3\ntotal_sv 3\nrho 0 0 0\nlabel 2 0 1\nnr_sv 1 1 1\nSV\n0 0 1:1\n0 0 1:1\n0 0 1:1\n", 1, 0},
		{"svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\nSV\n0 1:1\n0 1:1\n", -1, 1},
		{"svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nlabel -1 1\nnr_sv 1 1\nSV\n0 1:1\n0 1:1\n", 1, -1},
		{"svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n0 1:1\n", -1, 1},
	} {
		m, err := ReadLIBSVMModel(strings.NewReader(c.file))
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, 2)
		m.PredictBatch(got, []float32{0, 3}, 2)
		if got[0] != c.want || got[1] != c.want {
			t.Errorf("%q: predicts %v on zero decisions, want %v as svm-predict", c.file, got, c.want)
		}
		own := m.Clone()
		own.libsvmLabels = nil
		delete(own.Info, "source")
		if own.ZeroToNegative() != nil {
			t.Fatalf("a model of our own counts zeros for the negative side: %v", own.ZeroToNegative())
		}
		own.PredictBatch(got, []float32{0, 3}, 2)
		if got[0] != c.own {
			t.Errorf("%q as our own model: predicts %v on zero decisions, want %v", c.file, got[0], c.own)
		}
	}
}
