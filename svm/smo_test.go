package svm

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// TestSMOMatchesReference compares SMO with a long projected-gradient run on
// tiny problems: the objectives agree, and where Q is positive definite
// (RBF on distinct points) so do the α.
func TestSMOMatchesReference(t *testing.T) {
	cases := []struct {
		name   string
		k      kernel.Kernel
		c      float64
		n, d   int
		unique bool // Q positive definite: α unique
	}{
		{"rbf C=1", kernel.RBF{Gamma: 0.5}, 1, 24, 3, true},
		{"rbf C=0.1", kernel.RBF{Gamma: 0.2}, 0.1, 30, 4, true},
		{"rbf C=100", kernel.RBF{Gamma: 1}, 100, 20, 2, true},
		{"linear C=1", kernel.Linear{}, 1, 24, 3, false},
		{"poly C=0.5", kernel.Poly{Gamma: 0.5, Coef0: 1, Degree: 2}, 0.5, 24, 3, false},
	}
	for ci, c := range cases {
		p := ringnorm(c.n, c.d, newRNG(uint64(ci+1)))
		alphaRef, objRef := refDual(p, c.k, c.c, 20000)
		for _, shrink := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/shrinking=%v", c.name, shrink), func(t *testing.T) {
				m := mustSMO(t, p, c.k, SMOConfig{C: c.c, Eps: 1e-9, NoShrinking: !shrink})
				obj, _ := strconv.ParseFloat(m.Info["objective"], 64)
				if d := relDiff(obj, objRef); d > 1e-5 {
					t.Errorf("objective %.10g, reference %.10g (rel. diff %.2g)", obj, objRef, d)
				}
				if d := relDiff(DualObjective(c.k, m), objRef); d > 1e-5 {
					t.Errorf("DualObjective %.10g, reference %.10g", DualObjective(c.k, m), objRef)
				}
				alpha := alphaOf(m, p)
				var ya float64
				for i, a := range alpha {
					if a < 0 || a > c.c*(1+1e-12) {
						t.Fatalf("α_%d = %g outside [0, %g]", i, a, c.c)
					}
					ya += a * float64(p.Y[i])
				}
				if math.Abs(ya) > 1e-9*c.c*float64(p.N) {
					t.Errorf("yᵀα = %g", ya)
				}
				if c.unique {
					for i := range alpha {
						if math.Abs(alpha[i]-alphaRef[i]) > 1e-3*c.c {
							t.Errorf("α_%d = %.6g, reference %.6g", i, alpha[i], alphaRef[i])
						}
					}
				}
			})
		}
	}
}

// TestSMOCache checks that a cache of two columns, which forces constant
// evictions and, with shrinking, column swaps, gives the same α as a cache
// holding the whole matrix.
func TestSMOCache(t *testing.T) {
	p := ringnorm(300, 10, newRNG(7))
	standardize(p)
	k := kernel.RBF{Gamma: 0.1}
	for _, shrink := range []bool{true, false} {
		t.Run(fmt.Sprintf("shrinking=%v", shrink), func(t *testing.T) {
			big := mustSMO(t, p, k, SMOConfig{C: 2, NoShrinking: !shrink})
			tiny := mustSMO(t, p, k, SMOConfig{C: 2, NoShrinking: !shrink, cacheValues: 1})
			ab, at := alphaOf(big, p), alphaOf(tiny, p)
			for i := range ab {
				if math.Abs(ab[i]-at[i]) > 1e-12 {
					t.Fatalf("α_%d: big cache %.17g, tiny cache %.17g", i, ab[i], at[i])
				}
			}
			if big.Bias != tiny.Bias || big.Info["iterations"] != tiny.Info["iterations"] {
				t.Errorf("bias %g/%g, iterations %s/%s", big.Bias, tiny.Bias, big.Info["iterations"], tiny.Info["iterations"])
			}
		})
	}
}

// TestSMOShrinkingSameSolution: shrinking changes the path, not the answer.
func TestSMOShrinkingSameSolution(t *testing.T) {
	p := ringnorm(400, 20, newRNG(3))
	standardize(p)
	k := kernel.RBF{Gamma: 0.05}
	a := mustSMO(t, p, k, SMOConfig{})
	b := mustSMO(t, p, k, SMOConfig{NoShrinking: true})
	oa, _ := strconv.ParseFloat(a.Info["objective"], 64)
	ob, _ := strconv.ParseFloat(b.Info["objective"], 64)
	if relDiff(oa, ob) > 1e-3 {
		t.Errorf("objective with shrinking %g, without %g", oa, ob)
	}
	if math.Abs(a.Bias-b.Bias) > 1e-2 {
		t.Errorf("bias with shrinking %g, without %g", a.Bias, b.Bias)
	}
}

func TestSMOContext(t *testing.T) {
	p := ringnorm(200, 5, newRNG(1))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SMO(ctx, p, kernel.RBF{Gamma: 0.1}, SMOConfig{}, nil); err == nil {
		t.Error("cancelled context: no error")
	}
}

func TestSMOMaxIter(t *testing.T) {
	p := ringnorm(200, 5, newRNG(1))
	m := mustSMO(t, p, kernel.RBF{Gamma: 0.1}, SMOConfig{MaxIter: 5})
	if m.Info["max_iter_reached"] != "true" || m.Info["iterations"] != "5" {
		t.Errorf("info %v", m.Info)
	}
}
