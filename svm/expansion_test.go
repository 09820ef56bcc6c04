package svm

import (
	"math"
	"slices"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// TestExpansion: the exported expansion agrees with Σ_j c_j·K(x_j, b)
// computed point by point through adds, sets and removals, and its model
// lists the stored points in training-index order.
func TestExpansion(t *testing.T) {
	p := ringnorm(30, 4, newRNG(5))
	k := kernel.RBF{Gamma: 0.3}
	norms := p.SqNorms()
	e := NewExpansion(p.N, p.D)
	want := make([]float64, p.N) // the coefficients c_i
	check := func(stage string) {
		t.Helper()
		var n int
		var total float64
		for i, c := range want {
			if e.Get(i) != c {
				t.Fatalf("%s: Get(%d) = %g, want %g", stage, i, e.Get(i), c)
			}
			if c != 0 {
				n++
				total += c
			}
		}
		if e.Len() != n {
			t.Fatalf("%s: Len %d, want %d", stage, e.Len(), n)
		}
		if math.Abs(e.CoefSum()-total) > 1e-12 {
			t.Errorf("%s: CoefSum %g, want %g", stage, e.CoefSum(), total)
		}
		for q := 0; q < p.N; q += 7 {
			var f float64
			for i, c := range want {
				f += c * k.Eval(p.row(i), p.row(q))
			}
			if got := e.Sum(k, p.row(q)); math.Abs(got-f) > 1e-5*(1+math.Abs(f)) {
				t.Errorf("%s: Sum at point %d = %g, want %g", stage, q, got, f)
			}
		}
	}
	for _, i := range []int{9, 3, 17, 3, 25} {
		e.Add(i, p.row(i), norms[i], 0.5)
		want[i] += 0.5
	}
	check("added")
	e.Set(17, p.row(17), norms[17], -2)
	e.Set(3, p.row(3), norms[3], 0) // removes, moving the last slot into its place
	e.Set(11, p.row(11), norms[11], 1.5)
	want[17], want[3], want[11] = -2, 0, 1.5
	check("set")
	m := e.Model(k.Spec(), 2, 0.25)
	var idx []int
	for i, c := range want {
		if c != 0 {
			idx = append(idx, i)
		}
	}
	if m.NSV != len(idx) || m.Bias != 0.25 || len(m.Info) != 0 {
		t.Fatalf("model: %d SVs (want %d), bias %g, Info %v", m.NSV, len(idx), m.Bias, m.Info)
	}
	for s, i := range idx {
		if m.Coef[s] != 2*want[i] || !slices.Equal(m.SV[s*p.D:(s+1)*p.D], p.row(i)) {
			t.Errorf("support vector %d: coefficient %g, want %g (point %d)", s, m.Coef[s], 2*want[i], i)
		}
	}
}
