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
	type refCase struct {
		name   string
		k      kernel.Kernel
		c      float64
		n, d   int
		unique bool // Q positive definite: α unique
	}
	cases := []refCase{
		{"rbf C=1", kernel.RBF{Gamma: 0.5}, 1, 24, 3, true},
		{"rbf C=0.1", kernel.RBF{Gamma: 0.2}, 0.1, 30, 4, true},
		{"rbf C=100", kernel.RBF{Gamma: 1}, 100, 20, 2, true},
		{"linear C=1", kernel.Linear{}, 1, 24, 3, false},
		{"poly C=0.5", kernel.Poly{Gamma: 0.5, Coef0: 1, Degree: 2}, 0.5, 24, 3, false},
	}
	cases = append(cases, refCase{"rbf duplicates", kernel.RBF{Gamma: 0.5}, 1, 24, 3, false})
	for ci, c := range cases {
		p := ringnorm(c.n, c.d, newRNG(uint64(ci+1)))
		if c.name == "rbf duplicates" {
			// Points 0–3 repeated, once with the same label and once with
			// the other: zero curvature along some pairs (the τ guard).
			copy(p.X[4*c.d:8*c.d], p.X[:4*c.d])
			copy(p.X[8*c.d:12*c.d], p.X[:4*c.d])
			copy(p.Y[4:8], p.Y[:4])
			for i := 8; i < 12; i++ {
				p.Y[i] = -p.Y[i-8]
			}
		}
		alphaRef, objRef := refDual(p, c.k, c.c, 4000)
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
			cfg := SMOConfig{C: 2, Eps: 1e-6, NoShrinking: !shrink}
			big := mustSMO(t, p, k, cfg)
			cfg.cacheValues = 1 // at least two columns are kept
			tiny := mustSMO(t, p, k, cfg)
			ab, at := alphaOf(big, p), alphaOf(tiny, p)
			for i := range ab {
				if math.Abs(ab[i]-at[i]) > 1e-6 {
					t.Fatalf("α_%d: big cache %.17g, tiny cache %.17g", i, ab[i], at[i])
				}
			}
			if math.Abs(big.Bias-tiny.Bias) > 1e-6 {
				t.Errorf("bias %.17g with a big cache, %.17g with a tiny one", big.Bias, tiny.Bias)
			}
		})
	}
}

// TestColCache exercises the LRU bookkeeping directly: prefixes are kept
// and extended, the least recently used column goes first, and swaps move
// entries within columns or drop columns that cover only one of the two.
func TestColCache(t *testing.T) {
	c := newColCache(4, 8) // room for 8 values: two full columns
	fill := func(i, n int) int {
		col, start := c.get(i, n)
		for j := start; j < n; j++ {
			col[j] = float32(10*i + j)
		}
		return start
	}
	fill(0, 4)
	fill(1, 2)
	if col, start := c.get(0, 3); start != 3 || col[2] != 2 {
		t.Fatalf("cached prefix: start %d, col %v", start, col)
	}
	if start := fill(1, 4); start != 2 {
		t.Fatalf("extension starts at %d, want 2", start)
	}
	fill(2, 4) // evicts column 0, the least recently used
	if len(c.cols[0]) != 0 || len(c.cols[1]) != 4 || c.free != 0 {
		t.Fatalf("after eviction: len0 %d, len1 %d, free %d", len(c.cols[0]), len(c.cols[1]), c.free)
	}
	c.swap(1, 3) // columns 1 and 3 trade places; rows 1 and 3 swap inside column 2
	if len(c.cols[3]) != 4 || c.cols[3][1] != 13 || c.cols[3][3] != 11 || c.cols[2][1] != 23 || c.cols[2][3] != 21 {
		t.Fatalf("after swap: col3 %v, col2 %v", c.cols[3], c.cols[2])
	}
	c.get(2, 2)  // no growth
	fill(0, 2)   // evicts column 3 (least recently used)
	c.swap(1, 3) // column 0 (length 2) covers row 1 but not 3: dropped
	if len(c.cols[0]) != 0 {
		t.Errorf("column covering one swapped row kept: %v", c.cols[0])
	}
	total := c.free
	for _, col := range c.cols {
		total += cap(col)
	}
	if total != 8 {
		t.Errorf("free + stored = %d, want 8", total)
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

// TestSMOWorkers: columns split across goroutines give the same solution.
func TestSMOWorkers(t *testing.T) {
	p := ringnorm(parallelRows+600, 5, newRNG(8))
	standardize(p)
	k := kernel.RBF{Gamma: 0.2}
	one := mustSMO(t, p, k, SMOConfig{Eps: 1e-5})
	two := mustSMO(t, p, k, SMOConfig{Eps: 1e-5, Workers: 3})
	a1, a2 := alphaOf(one, p), alphaOf(two, p)
	for i := range a1 {
		if math.Abs(a1[i]-a2[i]) > 1e-6 {
			t.Fatalf("α_%d: %g with one worker, %g with three", i, a1[i], a2[i])
		}
	}
	if _, ok := two.Info["workers"]; ok {
		t.Errorf("info records the worker count, which is not a property of the model: %v", two.Info)
	}
}
