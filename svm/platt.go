package svm

import (
	"fmt"
	"math"
)

// Platt maps a decision value f to a probability of the positive class,
//
//	P(y = +1 | f) = 1 / (1 + exp(A·f)),   A < 0,
//
// Platt's sigmoid (J. Platt, "Probabilistic outputs for support vector
// machines and comparisons to regularized likelihood methods", 1999) with
// its offset B fixed at 0. The full sigmoid 1/(1 + exp(A·f + B)) crosses
// 1/2 at f = −B/A, so it could call a point likely positive that the SVM
// classifies as negative; with B = 0 the probability is at least 1/2
// exactly where f ≥ 0, the rule by which Model.Predict says Pos. Prob
// enforces this also where A·f rounds to 0.
type Platt struct {
	A float64
	// B is the sigmoid's offset, P(+1 | f) = 1/(1 + exp(A·f + B)): 0 for
	// the slopes FitPlatt fits, so that P ≥ 1/2 exactly where the SVM says
	// +1; LIBSVM's probB for a model svm-train wrote with -b 1.
	B float64
}

// minPlattA is the largest slope FitPlatt returns: decision values that do
// not predict the labels at all give a nearly flat, but still decreasing,
// sigmoid.
const minPlattA = -1e-6

// FitPlatt fits A by maximum likelihood on decision values dec of points
// with labels y (±1) that the model was not trained on, with Platt's
// regularised targets t₊ = (N₊+1)/(N₊+2) for positives and
// t₋ = 1/(N₋+2) for negatives: it minimises the convex
//
//	F(A) = −Σ_i [t_i·log p_i + (1 − t_i)·log(1 − p_i)],   p_i = 1/(1 + exp(A·f_i)),
//
// by Newton's method with backtracking, computing log(1 + e^x) stably as
// LIBSVM's sigmoid_train does (Lin, Lin and Weng, "A note on Platt's
// probabilistic outputs for support vector machines", Mach. Learn. 68,
// 2007). The result has A ≤ minPlattA < 0.
func FitPlatt(dec []float64, y []float32) (Platt, error) { return FitPlattWeighted(dec, y, nil) }

// FitPlattWeighted is FitPlatt with a weight w_i ≥ 0 on each point's term
// of F (and in the counts N₊, N₋ of the targets); nil weighs every point 1.
func FitPlattWeighted(dec []float64, y []float32, w []float64) (Platt, error) {
	if len(dec) != len(y) || w != nil && len(w) != len(y) {
		panic(fmt.Sprintf("svm: FitPlatt: %d decision values for %d labels and %d weights", len(dec), len(y), len(w)))
	}
	wt := func(i int) float64 {
		if w == nil {
			return 1
		}
		return w[i]
	}
	var np, nn float64
	for i, v := range y {
		if !(wt(i) >= 0) || math.IsInf(wt(i), 0) {
			return Platt{}, fmt.Errorf("svm: FitPlatt: weight %g of point %d is not a finite number ≥ 0", wt(i), i)
		}
		switch v {
		case 1:
			np += wt(i)
		case -1:
			nn += wt(i)
		default:
			return Platt{}, fmt.Errorf("svm: FitPlatt: label %g of point %d is not −1 or +1", v, i)
		}
		if math.IsNaN(dec[i]) || math.IsInf(dec[i], 0) {
			return Platt{}, fmt.Errorf("svm: FitPlatt: decision value %d is %g", i, dec[i])
		}
	}
	if np == 0 || nn == 0 {
		return Platt{}, fmt.Errorf("svm: FitPlatt: the calibration points need both classes, got %g positive and %g negative", np, nn)
	}
	hi, lo := (np+1)/(np+2), 1/(nn+2)
	t := make([]float64, len(y))
	for i, v := range y {
		t[i] = lo
		if v == 1 {
			t[i] = hi
		}
	}
	// F(A) with log(1 + e^{Af}) and log p computed without overflow.
	obj := func(a float64) float64 {
		var s float64
		for i, f := range dec {
			z := a * f
			if z >= 0 {
				s += wt(i) * (t[i]*z + math.Log1p(math.Exp(-z)))
			} else {
				s += wt(i) * ((t[i]-1)*z + math.Log1p(math.Exp(z)))
			}
		}
		return s
	}
	a := 0.0
	fa := obj(a)
	for iter := 0; iter < 100; iter++ {
		// F'(A) = Σ f_i (t_i − p_i), F''(A) = Σ f_i² p_i (1 − p_i).
		var g, h float64
		for i, f := range dec {
			z := a * f
			var p, q float64 // p = 1/(1+e^z), q = 1 − p
			if z >= 0 {
				e := math.Exp(-z)
				p, q = e/(1+e), 1/(1+e)
			} else {
				e := math.Exp(z)
				p, q = 1/(1+e), e/(1+e)
			}
			g += wt(i) * f * (t[i] - p)
			h += wt(i) * f * f * p * q
		}
		if math.Abs(g) < 1e-10 {
			break
		}
		h += 1e-12
		step := -g / h
		stepped := false
		for s := 1.0; s >= 1e-10; s /= 2 {
			na := a + s*step
			if fn := obj(na); fn < fa+1e-4*s*g*step {
				a, fa, stepped = na, fn, true
				break
			}
		}
		if !stepped {
			break
		}
	}
	return Platt{A: min(a, minPlattA)}, nil
}

// Prob returns P(y = +1 | f), as LIBSVM's sigmoid_predict: with B = 0 at
// least 1/2 exactly when f ≥ 0.
func (p Platt) Prob(f float64) float64 {
	z := p.A*f + p.B
	var q float64
	if z >= 0 {
		e := math.Exp(-z)
		q = e / (1 + e)
	} else {
		q = 1 / (1 + math.Exp(z))
	}
	switch {
	case p.B != 0:
		if math.IsNaN(f) {
			q = math.NaN()
		}
	case f >= 0 && q < 0.5:
		q = 0.5
	case f < 0 && q >= 0.5:
		q = math.Nextafter(0.5, 0)
	case math.IsNaN(f):
		q = math.NaN()
	}
	return q
}
