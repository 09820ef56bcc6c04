package onnx

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
)

// heads writes the kernel expansions of the model's heads on the features
// z ([N, F] float) and returns their decision values, [N, heads] double.
//
// The expansions are computed in float64 from the float32 features and
// support vectors: the coefficients and the bias are kept in float64 (a
// regressor's, scaled to the target's units, cancel in sums of terms far
// larger than the value), and so are the kernel rows, whose RBF distances
// ‖z‖² + ‖s‖² − 2z·s then keep their digits.
func (b *builder) heads(z string) (string, error) {
	if b.ops == ML {
		dec, err := b.mlHeads(z)
		if err != nil {
			return "", err
		}
		return b.g.add("Cast", "decisions_f64", []string{dec}, aInt("to", int64(tDouble))), nil
	}
	heads := b.headList()
	k := heads[0].Kernel
	f := heads[0].D
	nsv := 0
	for _, h := range heads {
		nsv += h.NSV
	}
	g := b.g
	nh := int64(len(heads))
	bias := make([]float64, nh)
	for i, h := range heads {
		bias[i] = h.Bias
	}
	bs := g.f64("bias", []int64{nh}, bias)
	zd := g.add("Cast", "features_f64", []string{z}, aInt("to", int64(tDouble)))
	if nsv == 0 || isLinear(k) {
		// w = Σ Coef_s·SV_s per head, summed in float64: [F, heads].
		if int64(f)*nh*8 > maxBytes {
			return "", notExportable("its linear heads hold %d×%d weights, over protobuf's 2 GB limit", f, nh)
		}
		w := make([]float64, f*len(heads))
		for j, h := range heads {
			for i := range h.NSV {
				for c, v := range h.SupportVector(i).Nonzeros() {
					w[c*len(heads)+j] += float64(h.Coef[i] * float64(v)) // rounded: no fused multiply-add, the same bytes on every machine
				}
			}
		}
		b.size += 8 * int64(len(w))
		return g.add("Gemm", "decisions", []string{zd, g.f64("weights", []int64{int64(f), nh}, w), bs}), nil
	}
	sv, coef, ns := distinctSupport(heads)
	if int64(ns)*int64(f)*4 > maxBytes {
		return "", notExportable("its %d support vectors of %d values make %d MB, over protobuf's 2 GB limit", ns, f, int64(ns)*int64(f)*4>>20)
	}
	b.size += 4*int64(len(sv)) + 8*int64(len(coef))
	kz := b.kernelRows(zd, k, sv, ns, f)
	return g.add("Gemm", "decisions", []string{kz, g.f64("coefficients", []int64{int64(ns), nh}, coef), bs}), nil
}

func isLinear(k kernel.Spec) bool { return strings.ToLower(k.Name) == "linear" && !k.Normalized }

func f32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// distinctSupport returns the support vectors of all heads, each distinct
// row once (sv, ns rows of the heads' width, dense), and their
// coefficients in every head (coef, ns × heads; 0 where a head does not
// hold the row, summed where it holds it twice).
func distinctSupport(heads []*svm.Model) (sv []float32, coef []float64, ns int) {
	d, nh := heads[0].D, len(heads)
	index := map[string]int{}
	row := make([]float32, d)
	var key []byte
	for j, h := range heads {
		for i := range h.NSV {
			clear(row)
			h.SupportVector(i).Scatter(row)
			key = key[:0]
			for _, v := range row {
				key = binary.LittleEndian.AppendUint32(key, math.Float32bits(v))
			}
			s, ok := index[string(key)]
			if !ok {
				s = ns
				index[string(key)] = s
				ns++
				sv = append(sv, row...)
				coef = append(coef, make([]float64, nh)...)
			}
			coef[s*nh+j] += h.Coef[i]
		}
	}
	return sv, coef, ns
}

// kernelRows writes K(z_i, s_j) in float64 for the rows of z ([N, F]
// double) and the ns support vectors sv (row-major, F values each), [N,
// ns]: one MatMul for the dot products (the support vectors are stored in
// float32, as nsvm keeps them, and cast when the graph is loaded), and
// for RBF the distances ‖z‖² + ‖s‖² − 2z·s clamped at 0.
func (b *builder) kernelRows(z string, k kernel.Spec, sv []float32, ns, f int) string {
	g := b.g
	name := strings.ToLower(k.Name)
	// The support vectors transposed, [F, ns], for z·Sᵀ; for RBF scaled
	// by −2 (exactly).
	st := make([]float32, len(sv))
	scale := float32(1)
	if name == "rbf" || name == "gaussian" {
		scale = -2
	}
	for s := range ns {
		for c := range f {
			st[c*ns+s] = scale * sv[s*f+c]
		}
	}
	svt := g.add("Cast", "support_vectors_t_f64", []string{g.f32("support_vectors_t", []int64{int64(f), int64(ns)}, st)}, aInt("to", int64(tDouble)))
	dot := g.add("MatMul", "dots", []string{z, svt})
	var gamma string
	if name != "linear" && name != "rbf" && name != "gaussian" {
		gamma = g.scalar64("gamma", k.Gamma)
	}
	var zz string
	if name != "linear" || k.Normalized {
		zz = g.add("ReduceSumSquare", "z_sqnorm", []string{z}, aInts("axes", 1), aInt("keepdims", 1))
	}
	var kz string
	switch name {
	case "rbf", "gaussian":
		ss := make([]float64, ns)
		for s := range ns {
			var n float64
			for _, v := range sv[s*f : (s+1)*f] {
				n += float64(float64(v) * float64(v)) // rounded: no fused multiply-add
			}
			ss[s] = n
		}
		b.size += 8 * int64(ns)
		d2 := g.add("Add", "sqdist_raw", []string{g.add("Add", "dots_plus_z", []string{dot, zz}), g.f64("sv_sqnorm", []int64{int64(ns)}, ss)})
		d2 = g.add("Max", "sqdist", []string{d2, g.scalar64("zero_f64", 0)})
		kz = g.add("Exp", "kernel", []string{g.add("Mul", "kernel_arg", []string{d2, g.scalar64("neg_gamma", -k.Gamma)})})
		return kz // normalising an RBF kernel changes nothing
	case "poly", "polynomial":
		kz = b.poly(dot, gamma, k)
	case "sigmoid", "tanh":
		kz = g.add("Tanh", "kernel", []string{g.add("Add", "kernel_arg", []string{g.add("Mul", "scaled_dots", []string{dot, gamma}), g.scalar64("coef0", k.Coef0)})})
	default:
		kz = dot
	}
	if !k.Normalized {
		return kz
	}
	// K̃(z, s) = K(z, s)/√(K(z, z)·K(s, s)).
	var kzz string
	switch name {
	case "poly", "polynomial":
		kzz = b.poly(zz, gamma, k)
	case "sigmoid", "tanh":
		kzz = g.add("Tanh", "kzz", []string{g.add("Add", "kzz_arg", []string{g.add("Mul", "zz_scaled", []string{zz, gamma}), g.scalar64("coef0", k.Coef0)})})
	default:
		kzz = zz
	}
	inner := kernel.MustNew(kernel.Spec{Name: k.Name, Gamma: k.Gamma, Coef0: k.Coef0, Degree: k.Degree})
	kss := make([]float64, ns)
	for s := range ns {
		v := sv[s*f : (s+1)*f]
		kss[s] = inner.Eval(v, v)
	}
	den := g.add("Sqrt", "kernel_norms", []string{g.add("Mul", "kernel_diag", []string{kzz, g.f64("kss", []int64{int64(ns)}, kss)})})
	return g.add("Div", "kernel_normalized", []string{kz, den})
}

// poly writes (γ·u + coef0)^degree.
func (b *builder) poly(u, gamma string, k kernel.Spec) string {
	g := b.g
	arg := g.add("Add", "poly_arg", []string{g.add("Mul", "poly_scaled", []string{u, gamma}), g.scalar64("coef0", k.Coef0)})
	return g.add("Pow", "poly", []string{arg, g.scalar64("degree", float64(k.Degree))})
}

// mlHeads writes the kernel expansions with ai.onnx.ml operators (see ML):
// one SVMClassifier for one-vs-one heads, one SVMRegressor per head
// otherwise, one LinearRegressor for linear kernels.
func (b *builder) mlHeads(z string) (string, error) {
	g, m := b.g, b.m
	heads := b.headList()
	k := heads[0].Kernel
	if k.Normalized {
		return "", notExportable("ai.onnx.ml's SVM operators have no normalized kernels (export with standard operators)")
	}
	kt := map[string]string{"linear": "LINEAR", "poly": "POLY", "polynomial": "POLY", "rbf": "RBF", "gaussian": "RBF", "sigmoid": "SIGMOID", "tanh": "SIGMOID"}[strings.ToLower(k.Name)]
	params := aFloats("kernel_params", []float32{float32(k.Gamma), float32(k.Coef0), float32(k.Degree)})
	nh, f := len(heads), heads[0].D
	if kt == "LINEAR" {
		w := make([]float64, nh*f)
		icpt := make([]float32, nh)
		for j, h := range heads {
			icpt[j] = float32(h.Bias)
			for i := range h.NSV {
				for c, v := range h.SupportVector(i).Nonzeros() {
					w[j*f+c] += float64(h.Coef[i] * float64(v))
				}
			}
		}
		b.size += 4 * int64(len(w))
		out := g.fresh("decisions")
		g.addML("LinearRegressor", []string{z}, []string{out}, aFloats("coefficients", f32s(w)), aFloats("intercepts", icpt), aInt("targets", int64(nh)))
		g.declare(value{name: out, elem: tFloat, dims: []dim{rows, {v: int64(nh)}}})
		return out, nil
	}
	if m.Multiclass() && m.Scheme == model.OneVsOne {
		lm, err := svm.NewLIBSVMOneVsOne(heads, m.Classes)
		if err != nil {
			return "", notExportable("its heads have no LIBSVM layout for SVMClassifier: %v", err)
		}
		var sv, coef, rho []float32
		row := make([]float32, f)
		for _, r := range lm.SV {
			clear(row)
			for t, idx := range r.Index {
				row[idx-1] = float32(r.Value[t])
			}
			sv = append(sv, row...)
		}
		for _, c := range lm.SVCoef {
			coef = append(coef, f32s(c)...)
		}
		for _, r := range lm.Rho {
			rho = append(rho, float32(-r)) // ONNX adds rho where LIBSVM subtracts it
		}
		labels := make([]int64, len(m.Classes))
		vpc := make([]int64, len(m.Classes))
		for c := range labels {
			labels[c], vpc[c] = int64(c), int64(lm.NrSV[c])
		}
		b.size += 4 * int64(len(sv)+len(coef))
		vote, out := g.fresh("ml_vote"), g.fresh("decisions")
		g.addML("SVMClassifier", []string{z}, []string{vote, out}, aInts("classlabels_ints", labels...), aFloats("coefficients", coef),
			aString("kernel_type", kt), params, aFloats("rho", rho), aFloats("support_vectors", sv), aInts("vectors_per_class", vpc...))
		g.declare(value{name: vote, elem: tInt64, dims: []dim{rows}})
		g.declare(value{name: out, elem: tFloat, dims: []dim{rows, {v: int64(nh)}}})
		return out, nil
	}
	var outs []string
	for _, h := range heads {
		sv := make([]float32, h.NSV*f)
		for i := range h.NSV {
			h.SupportVector(i).Scatter(sv[i*f : (i+1)*f])
		}
		b.size += 4 * int64(len(sv)+h.NSV)
		out := g.fresh("head_decision")
		if h.NSV == 0 {
			// SVMRegressor needs coefficients: a linear one of zero weights.
			g.addML("SVMRegressor", []string{z}, []string{out}, aFloats("coefficients", make([]float32, f)), aString("kernel_type", "LINEAR"),
				params, aFloats("rho", []float32{float32(h.Bias)}))
		} else {
			g.addML("SVMRegressor", []string{z}, []string{out}, aFloats("coefficients", f32s(h.Coef)), aString("kernel_type", kt), params,
				aInt("n_supports", int64(h.NSV)), aFloats("rho", []float32{float32(h.Bias)}), aFloats("support_vectors", sv))
		}
		g.declare(value{name: out, elem: tFloat, dims: []dim{rows, {v: 1}}})
		outs = append(outs, out)
	}
	if len(outs) == 1 {
		return outs[0], nil
	}
	return g.add("Concat", "decisions", outs, aInt("axis", 1)), nil
}
