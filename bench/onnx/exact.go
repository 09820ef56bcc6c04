package main

import (
	"math"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
)

// exactDecisions returns the heads' decision values on the rows of ds,
// rows × heads, computed in float64 from the model's float32 features
// (its network and scaling, as nsvm computes them): every kernel value by
// Kernel.Eval (RBF distances subtracted first), every sum in float64. It
// is the reference against which nsvm predict's and ONNX Runtime's
// rounding are measured.
func exactDecisions(m *model.Model, ds *data.Dataset) []float64 {
	n := ds.N
	x := ds.X
	if ds.Sparse != nil {
		x = make([]float32, n*ds.D)
		for i := range n {
			ds.Sparse.Row(i).Scatter(x[i*ds.D : (i+1)*ds.D])
		}
	}
	f := m.OutSize()
	z := make([]float32, n*f)
	m.Features(z, x, n)
	heads := m.Heads
	if heads == nil {
		heads = []*svm.Model{m.Head}
	}
	nh := len(heads)
	out := make([]float64, n*nh)
	sv := make([]float32, f)
	for h, hd := range heads {
		k := kernel.MustNew(hd.Kernel)
		for i := range n {
			out[i*nh+h] = hd.Bias
		}
		for s := range hd.NSV {
			clear(sv)
			hd.SupportVector(s).Scatter(sv)
			for i := range n {
				out[i*nh+h] += hd.Coef[s] * k.Eval(sv, z[i*f:(i+1)*f])
			}
		}
	}
	return out
}

// maxRelErr returns max |got − want| / max(1, |want|).
func maxRelErr(got, want []float64) float64 {
	var e float64
	for i, w := range want {
		e = math.Max(e, math.Abs(got[i]-w)/math.Max(1, math.Abs(w)))
	}
	return e
}
