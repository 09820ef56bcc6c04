package svm

import (
	"fmt"
	"math"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
)

// LinearStream continues linear SVMs (heads w_h, b_h on D features) by
// Pegasos' stochastic sub-gradient steps (PegasosLinear's, from the
// weights a solver left: a warm start), one row at a time. Head h
// minimises
//
//	λ/2·‖w_h‖² + 1/n·Σ_i W_i·ℓ(y_ih, w_h·x_i + b_h)
//
// over the rows it sees, with ℓ the hinge, squared hinge (LIBLINEAR's L2
// loss) or ε-insensitive loss, by the step t
//
//	w ← (1 − 1/t)·w − 1/(λt)·W·ℓ'(y, g)·x,    g = w·x + b,
//
// and b ← (1 − 1/t)·b − 1/(λt)·W·ℓ'(y, g) when the head learns a bias: the
// weight of a constant feature 1, regularised with w as LIBLINEAR's bias
// feature is. Its memory is one weight vector
// a head, whatever the rows seen; rows may be dense or sparse. A
// LinearStream is not safe for concurrent use.
type LinearStream struct {
	// Window caps the step count as BudgetConfig.Window does (0: none).
	Window int64

	lam   float64
	d     int
	w     [][]float64 // w_h / scale_h
	heads []BudgetHead
}

// NewLinearStream returns the stream of the linear heads ms (linear-kernel
// models: their support vectors are summed into w) with the given states
// (T, bias rule and loss; the biases are the models').
func NewLinearStream(ms []*Model, heads []BudgetHead, lambda float64) (*LinearStream, error) {
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("svm: linear stream: lambda must be a finite number > 0, got %g", lambda)
	}
	if len(ms) == 0 || len(ms) != len(heads) {
		return nil, fmt.Errorf("svm: linear stream: %d heads for %d states", len(ms), len(heads))
	}
	s := &LinearStream{lam: lambda, d: ms[0].D, heads: make([]BudgetHead, len(heads))}
	copy(s.heads, heads)
	for h, m := range ms {
		if m.Kernel.Name != "linear" || m.Kernel.Normalized || m.D != s.d {
			return nil, fmt.Errorf("svm: linear stream: head %d is %s on %d features, want linear on %d", h, m.Kernel, m.D, s.d)
		}
		w := make([]float64, s.d)
		for i := range m.NSV {
			m.svVec(i).AddTo(w, m.Coef[i])
		}
		s.w = append(s.w, w)
		s.heads[h].Bias = m.Bias
		s.heads[h].scale = 1
	}
	return s, nil
}

// Head returns the state of head h.
func (s *LinearStream) Head(h int) BudgetHead { return s.heads[h] }

// Step takes one step of every head h whose target y[h] is not NaN on row
// x of weight w (see Budgeted.Step).
func (s *LinearStream) Step(x data.Vec, y []float64, w float64) {
	if len(y) != len(s.heads) {
		panic("svm: LinearStream.Step: length mismatch")
	}
	for h, yh := range y {
		if math.IsNaN(yh) {
			continue
		}
		hd := &s.heads[h]
		hd.T++
		t := float64(capT(hd.T, s.Window))
		g := hd.scale*x.Dot64(s.w[h]) + hd.Bias
		d := lossSlope(hd.Loss, hd.Epsilon, yh, g) * w
		if hd.T > 1 {
			hd.scale *= 1 - 1/t
		} else {
			hd.scale = 0
		}
		if hd.scale < 1e-9 {
			for j := range s.w[h] {
				s.w[h][j] *= hd.scale
			}
			hd.scale = 1
		}
		if hd.LearnBias {
			hd.Bias *= 1 - 1/t
		}
		if d == 0 {
			continue
		}
		x.AddTo(s.w[h], d/(s.lam*t*hd.scale))
		if hd.LearnBias {
			hd.Bias += d / (s.lam * t)
		}
	}
}

// Model returns head h as a linear model: one support vector w with
// coefficient 1, and the bias.
func (s *LinearStream) Model(h int) *Model {
	m := newModel(kernel.Spec{Name: "linear"}, s.d, false)
	m.SV = make([]float32, s.d)
	for j, v := range s.w[h] {
		m.SV[j] = float32(s.heads[h].scale * v)
	}
	m.Coef, m.NSV, m.Bias = []float64{1}, 1, s.heads[h].Bias
	return m
}
