package svm

import (
	"math"
	"testing"
)

// TestFitPlatt recovers the slope of a known sigmoid from 20000 draws.
func TestFitPlatt(t *testing.T) {
	rng := newRNG(1)
	for _, want := range []float64{-0.5, -1.5, -4} {
		n := 20000
		dec := make([]float64, n)
		y := make([]float32, n)
		for i := range dec {
			f := 2 * rng.NormFloat64()
			dec[i] = f
			y[i] = -1
			if rng.Float64() < 1/(1+math.Exp(want*f)) {
				y[i] = 1
			}
		}
		p, err := FitPlatt(dec, y)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.A-want) > 0.05*math.Abs(want)+0.02 {
			t.Errorf("A = %.4f, want %.4f", p.A, want)
		}
	}
}

// TestPlattAgreesWithSign: P ≥ 1/2 exactly when f ≥ 0, also where A·f
// rounds to 0 and for slopes at both extremes.
func TestPlattAgreesWithSign(t *testing.T) {
	fs := []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 1e-300, -1e-300, 1e-17, -1e-17, 0.3, -0.3, 40, -40, 1e308, -1e308, math.Inf(1), math.Inf(-1)}
	for _, a := range []float64{minPlattA, -1e-300, -1, -1e3, -1e300} {
		p := Platt{A: a}
		for _, f := range fs {
			q := p.Prob(f)
			if (q >= 0.5) != (f >= 0) || q < 0 || q > 1 {
				t.Errorf("A = %g, f = %g: P = %v", a, f, q)
			}
		}
	}
	if !math.IsNaN(Platt{A: -1}.Prob(math.NaN())) {
		t.Error("P(NaN) is not NaN")
	}
}

func TestFitPlattEdges(t *testing.T) {
	// Decision values unrelated to the labels (or reversed) still give a
	// decreasing sigmoid.
	p, err := FitPlatt([]float64{1, 2, -1, -2}, []float32{-1, -1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.A != minPlattA {
		t.Errorf("reversed labels: A = %g, want %g", p.A, minPlattA)
	}
	// Separable data: A is finite (the regularised targets keep it so).
	p, err = FitPlatt([]float64{1, 2, 3, -1, -2, -3}, []float32{1, 1, 1, -1, -1, -1})
	if err != nil || math.IsInf(p.A, 0) || p.A > -0.5 {
		t.Errorf("separable: A = %g, %v", p.A, err)
	}
	for name, c := range map[string]struct {
		dec []float64
		y   []float32
	}{
		"one class": {[]float64{1, 2}, []float32{1, 1}},
		"label 0":   {[]float64{1, 2}, []float32{1, 0}},
		"NaN":       {[]float64{math.NaN(), 2}, []float32{1, -1}},
	} {
		if _, err := FitPlatt(c.dec, c.y); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestFitPlattWeighted: an integer weight counts as the point repeated,
// and no weights are weights of 1.
func TestFitPlattWeighted(t *testing.T) {
	dec := []float64{-2, -1, -0.5, 0.2, 0.4, 1, 1.5, -0.1}
	y := []float32{-1, -1, 1, -1, 1, 1, 1, 1}
	w := []float64{1, 2, 1, 3, 1, 1, 2, 1}
	var rd []float64
	var ry []float32
	for i, k := range w {
		for range int(k) {
			rd = append(rd, dec[i])
			ry = append(ry, y[i])
		}
	}
	a, err := FitPlattWeighted(dec, y, w)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitPlatt(rd, ry)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.A-b.A) > 1e-9*math.Abs(b.A) {
		t.Fatalf("weighted A = %v, repeated A = %v", a.A, b.A)
	}
	c, _ := FitPlatt(dec, y)
	d, _ := FitPlattWeighted(dec, y, []float64{1, 1, 1, 1, 1, 1, 1, 1})
	if c.A != d.A {
		t.Fatalf("unit weights: %v, none: %v", d.A, c.A)
	}
	if _, err := FitPlattWeighted(dec, y, []float64{1, 1, 1, -1, 1, 1, 1, 1}); err == nil {
		t.Fatal("a negative weight was accepted")
	}
}
