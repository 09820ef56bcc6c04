package svm

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// SMO counts the kernel columns it computes into the Counter of its
// context, at least one per support vector and at most the whole matrix
// per iteration; a model given a Counter counts NSV evaluations per
// decision, D multiply-adds each.
func TestKernelCounter(t *testing.T) {
	p := blobs(300, 5, 1, rand.New(rand.NewPCG(1, 2)))
	var c kernel.Counter
	m, err := SMO(kernel.NewContext(context.Background(), &c), p, kernel.RBF{Gamma: 0.2}, SMOConfig{C: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := c.Evals()
	if n < int64(m.NSV)*int64(p.N) || c.MACs() != 5*n {
		t.Fatalf("SMO counted %d evaluations (%d multiply-adds) for %d support vectors of %d points", n, c.MACs(), m.NSV, p.N)
	}
	var d kernel.Counter
	m.CountEvals(&d)
	dst := make([]float64, 10)
	m.DecisionBatch(dst, p.X[:10*p.D], 10)
	m.Decision(p.X[:p.D])
	if got, want := d.Evals(), int64(11*m.NSV); got != want || d.MACs() != 5*want {
		t.Fatalf("decisions counted %d evaluations, want %d", got, want)
	}
	if c.Evals() != n {
		t.Fatal("the model's decisions counted into the solver's Counter")
	}
}
