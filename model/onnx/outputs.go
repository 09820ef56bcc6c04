package onnx

import (
	"slices"

	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
)

// outputs writes the graph's outputs from the heads' decision values dec
// ([N, heads] double): a regressor's value; a classifier's label, scores
// and, when calibrated, probabilities.
func (b *builder) outputs(dec string) error {
	g, m := b.g, b.m
	nh := int64(m.NumHeads())
	if m.Regression() {
		v := g.add("Cast", "value_f32", []string{dec}, aInt("to", int64(tFloat)))
		g.nodes = append(g.nodes, node{op: "Reshape", in: []string{v, g.axes("shape", -1)}, out: []string{"value"}})
		g.output = append(g.output, value{name: "value", elem: tFloat, dims: []dim{rows}, doc: "the predicted value"})
		return nil
	}
	nc := int64(len(m.Labels()))

	// The index of the predicted class, into Labels() permuted by order
	// (none: Labels() itself).
	var idx string
	var order []int
	cast := func(x string, to elemType) string {
		return g.add("Cast", x+"_cast", []string{x}, aInt("to", int64(to)))
	}
	switch {
	case !m.Multiclass():
		// Pos (index 1) where g ≥ 0 (g > 0 where a zero counts for Neg:
		// Model.ZeroToNegative).
		op := "GreaterOrEqual"
		if zn := m.ZeroToNegative(); zn != nil && zn[0] {
			op = "Greater"
		}
		ge := g.add(op, "positive", []string{dec, g.scalar64("zero_f64", 0)})
		idx = g.add("Reshape", "class", []string{cast(ge, tInt64), g.axes("shape", -1)})
	case m.Scheme == model.OneVsOne:
		// votes = ge·(A − B) + Σ_q B_q, where head q of the pair (a, b)
		// gives a vote to a where its decision is ≥ 0, else to b; the
		// first class with the most votes wins (ArgMax's first maximum),
		// the votes' columns in the model's VoteOrder and the classes
		// gathered from that order.
		order = m.VoteOrder()
		col := make([]int64, nc)
		for k, c := range order {
			col[c] = int64(k)
		}
		amb := make([]float32, nh*nc)
		base := make([]float32, nc)
		for q := range nh {
			a, c := svm.PairClasses(int(q), int(nc))
			amb[q*nc+col[a]]++
			amb[q*nc+col[c]]--
			base[col[c]]++
		}
		ge := cast(g.add("GreaterOrEqual", "wins", []string{dec, g.scalar64("zero_f64", 0)}), tFloat)
		if zn := m.ZeroToNegative(); slices.Contains(zn, true) {
			// A zero decision counts for b on the heads zn marks: wins −
			// (decision = 0)·zn.
			mask := make([]float32, nh)
			for q, z := range zn {
				if z {
					mask[q] = 1
				}
			}
			eq := cast(g.add("Equal", "zero_decision", []string{dec, g.scalar64("zero_f64", 0)}), tFloat)
			ge = g.add("Sub", "wins_strict", []string{ge, g.add("Mul", "zero_to_b", []string{eq, g.f32("zero_mask", []int64{nh}, mask)})})
		}
		votes := g.add("Add", "votes", []string{g.add("MatMul", "vote_diff", []string{ge, g.f32("vote_matrix", []int64{nh, nc}, amb)}),
			g.f32("vote_base", []int64{nc}, base)})
		idx = g.add("ArgMax", "class", []string{votes}, aInt("axis", 1), aInt("keepdims", 0))
	default:
		idx = g.add("ArgMax", "class", []string{dec}, aInt("axis", 1), aInt("keepdims", 0))
	}
	var classes string
	elem := tInt64
	names, ls := m.ClassNames(), m.Labels()
	if order != nil {
		names, ls = permuted(names, order), permuted(ls, order)
	}
	if m.LabelNames != nil {
		classes, elem = g.strs("classes", names), tString
	} else {
		v := make([]int64, len(ls))
		for i, l := range ls {
			v[i] = int64(l)
		}
		classes = g.i64("classes", []int64{nc}, v)
	}
	g.nodes = append(g.nodes, node{op: "Gather", in: []string{classes, idx}, out: []string{"label"}, attrs: []attr{aInt("axis", 0)}})
	g.output = append(g.output, value{name: "label", elem: elem, dims: []dim{rows}, doc: "the predicted class, as nsvm predict prints it"})
	g.nodes = append(g.nodes, node{op: "Cast", in: []string{dec}, out: []string{"scores"}, attrs: []attr{aInt("to", int64(tFloat))}})
	g.output = append(g.output, value{name: "scores", elem: tFloat, dims: []dim{rows, {v: nh}},
		doc: "every head's decision value, as nsvm predict --decision-values prints them"})
	if !m.Calibrated() {
		return nil
	}
	p := b.probabilities(dec)
	g.nodes = append(g.nodes, node{op: "Cast", in: []string{p}, out: []string{"probabilities"}, attrs: []attr{aInt("to", int64(tFloat))}})
	g.output = append(g.output, value{name: "probabilities", elem: tFloat, dims: []dim{rows, {v: nc}},
		doc: "every class's probability, in the order of the classes, as nsvm predict --probability prints them"})
	return nil
}

// minPairProb is LIBSVM's bound on pairwise probabilities.
const minPairProb = 1e-7

// probabilities writes the calibrated class probabilities of the
// decisions dec (double), [N, classes] double, as model.Model.Probabilities
// computes them in float64: a sigmoid 1/(1 + exp(A·f + B)) of each head's
// decision; for a binary model (1 − p, p), for one-vs-rest the sigmoids
// normalised to sum 1, for one-vs-one the pairwise probabilities (bounded
// to [1e-7, 1 − 1e-7]) coupled as LIBSVM does.
func (b *builder) probabilities(dec string) string {
	g, m := b.g, b.m
	nh := m.NumHeads()
	nc := len(m.Labels())
	a, bb := make([]float64, nh), make([]float64, nh)
	for h := range nh {
		s := m.Platt
		if m.Sigmoids != nil {
			s = &m.Sigmoids[h]
		}
		a[h], bb[h] = s.A, s.B
	}
	arg := g.add("Add", "platt_arg", []string{g.add("Mul", "platt_scaled", []string{dec, g.f64("platt_a", []int64{int64(nh)}, a)}),
		g.f64("platt_b", []int64{int64(nh)}, bb)})
	q := g.add("Sigmoid", "head_probabilities", []string{g.add("Neg", "platt_neg", []string{arg})})
	clip := func(x string) string {
		return g.add("Clip", x+"_bounded", []string{x, g.scalar64("min_prob", minPairProb), g.scalar64("max_prob", 1-minPairProb)})
	}
	switch {
	case !m.Multiclass():
		if m.Sigmoids != nil {
			q = clip(q) // svm_predict_probability's bound
		}
		neg := g.add("Sub", "negative_probability", []string{g.scalar64("one_f64", 1), q})
		return g.add("Concat", "class_probabilities", []string{neg, q}, aInt("axis", 1))
	case m.Scheme == model.OneVsOne:
		return b.couple(clip(q), nc)
	}
	s := g.add("ReduceSum", "probability_sum", []string{q, g.axes("axes", 1)}, aInt("keepdims", 1))
	pos := g.add("Greater", "probability_sum_positive", []string{s, g.scalar64("zero_f64", 0)})
	return g.add("Where", "class_probabilities", []string{pos, g.add("Div", "normalised", []string{q, s}), q})
}

// couple writes the class probabilities p ([N, k] double) coupled from the
// pairwise probabilities r ([N, heads], head q of the pair (i, j) giving
// P(i | i or j)) by the second method of Wu, Lin and Weng (2004), LIBSVM's
// multiclass_probability, step for step: Q_tt = Σ_j r_jt², Q_tj =
// −r_jt·r_tj; p = 1/k; then at most max(100, k) sweeps, each ending a
// row's iteration once max_t |(Qp)_t − pᵀQp| < 0.005/k, and otherwise
// updating p_0 … p_{k−1} in turn. The sweeps are an ONNX Loop whose body
// updates every row that has not converged (Where), and that stops when
// none is left.
func (b *builder) couple(r string, k int) string {
	g := b.g
	nh := k * (k - 1) / 2
	kk := int64(k * k)
	// R = r·E1 + (1 − r)·E2 as [N, k, k]: E1 puts head q at (i, j), E2 at
	// (j, i).
	e1, e2 := make([]float64, nh*k*k), make([]float64, nh*k*k)
	for q := range nh {
		i, j := svm.PairClasses(q, k)
		e1[q*k*k+i*k+j] = 1
		e2[q*k*k+j*k+i] = 1
	}
	one := g.scalar64("one_f64", 1)
	flat := g.add("Add", "pairwise_flat", []string{
		g.add("MatMul", "pairwise_ij", []string{r, g.f64("pair_ij", []int64{int64(nh), kk}, e1)}),
		g.add("MatMul", "pairwise_ji", []string{g.add("Sub", "pairwise_complement", []string{one, r}), g.f64("pair_ji", []int64{int64(nh), kk}, e2)}),
	})
	rm := g.add("Reshape", "pairwise", []string{flat, g.axes("shape", -1, int64(k), int64(k))})
	// Q = diag(Σ_j r_jt²) − Rᵀ∘R.
	colsum := g.add("ReduceSum", "coupling_diag", []string{g.add("Mul", "pairwise_sq", []string{rm, rm}), g.axes("axes", 1)}, aInt("keepdims", 1))
	eye := make([]float64, k*k)
	for t := range k {
		eye[t*k+t] = 1
	}
	diag := g.add("Mul", "coupling_diag_matrix", []string{g.f64("identity", []int64{int64(k), int64(k)}, eye), colsum})
	cross := g.add("Mul", "coupling_cross", []string{g.add("Transpose", "pairwise_t", []string{rm}, aInts("perm", 0, 2, 1)), rm})
	qm := g.add("Sub", "coupling_q", []string{diag, cross})
	qdiag := g.add("Reshape", "coupling_q_diag", []string{colsum, g.axes("shape", -1, int64(k))})
	// Per t: Q_tt [N, 1] and the row Q_t [N, k], outside the loop.
	qtt, qrow, et := make([]string, k), make([]string, k), make([]string, k)
	for t := range k {
		st, en := g.axes("start", int64(t)), g.axes("end", int64(t+1))
		qtt[t] = g.add("Slice", "coupling_qtt", []string{qdiag, st, en, g.axes("axes", 1)})
		qrow[t] = g.add("Reshape", "coupling_qrow", []string{g.add("Slice", "coupling_qrow3", []string{qm, st, en, g.axes("axes", 1)}),
			g.axes("shape", -1, int64(k))})
		e := make([]float64, k)
		e[t] = 1
		et[t] = g.f64("unit", []int64{int64(k)}, e)
	}
	p0 := g.add("Expand", "coupling_p0", []string{g.f64("uniform", []int64{1, int64(k)}, uniform(k)), g.add("Shape", "coupling_shape", []string{qdiag})})

	body := g.sub("coupling_sweep")
	iter, condIn, pIn := body.fresh("sweep"), body.fresh("sweep_cond"), body.fresh("p_in")
	body.inputs = []value{{name: iter, elem: tInt64}, {name: condIn, elem: tBool}, {name: pIn, elem: tDouble, dims: []dim{rows, {v: int64(k)}}}}
	qp := body.add("Reshape", "qp", []string{body.add("MatMul", "qp3", []string{qm, body.add("Unsqueeze", "p3", []string{pIn, body.axes("axes", 2)})}),
		body.axes("shape", -1, int64(k))})
	pqp := body.add("ReduceSum", "pqp", []string{body.add("Mul", "p_qp", []string{pIn, qp}), body.axes("axes", 1)}, aInt("keepdims", 1))
	errMax := body.add("ReduceMax", "max_error", []string{body.add("Abs", "error", []string{body.add("Sub", "residual", []string{qp, pqp})})},
		aInts("axes", 1), aInt("keepdims", 1))
	active := body.add("GreaterOrEqual", "active", []string{errMax, body.scalar64("coupling_eps", 0.005/float64(k))})
	p := pIn
	two := body.scalar64("two_f64", 2)
	for t := range k {
		st, en := body.axes("start", int64(t)), body.axes("end", int64(t+1))
		qpt := body.add("Slice", "qp_t", []string{qp, st, en, body.axes("axes", 1)})
		diff := body.add("Div", "diff", []string{body.add("Sub", "gap", []string{pqp, qpt}), qtt[t]})
		p = body.add("Add", "p_step", []string{p, body.add("Mul", "p_delta", []string{diff, et[t]})})
		d1 := body.add("Add", "one_plus_diff", []string{diff, one})
		num := body.add("Add", "pqp_num", []string{pqp, body.add("Mul", "pqp_delta", []string{diff,
			body.add("Add", "pqp_inner", []string{body.add("Mul", "diff_qtt", []string{diff, qtt[t]}), body.add("Mul", "two_qpt", []string{qpt, two})})})})
		pqp = body.add("Div", "pqp_next", []string{body.add("Div", "pqp_half", []string{num, d1}), d1})
		qp = body.add("Div", "qp_next", []string{body.add("Add", "qp_step", []string{qp, body.add("Mul", "qp_delta", []string{diff, qrow[t]})}), d1})
		p = body.add("Div", "p_next", []string{p, d1})
	}
	pOut := body.add("Where", "p_out", []string{active, p, pIn})
	anyActive := body.add("ReduceMax", "any_active", []string{body.add("Cast", "active_f", []string{active}, aInt("to", int64(tFloat)))}, aInt("keepdims", 0))
	condOut := body.add("Greater", "sweep_again", []string{anyActive, body.scalar("zero_half", 0.5)})
	body.output = []value{{name: condOut, elem: tBool}, {name: pOut, elem: tDouble, dims: []dim{rows, {v: int64(k)}}}}

	out := g.fresh("coupled")
	g.nodes = append(g.nodes, node{op: "Loop", in: []string{g.i64("max_sweeps", nil, []int64{int64(max(100, k))}), g.boolean("sweep_first", true), p0},
		out: []string{out}, attrs: []attr{aGraph("body", body)}})
	return out
}

func uniform(k int) []float64 {
	v := make([]float64, k)
	for i := range v {
		v[i] = 1 / float64(k)
	}
	return v
}

// permuted returns v[order[0]], v[order[1]], … (nil for a nil v).
func permuted[T any](v []T, order []int) []T {
	if v == nil {
		return nil
	}
	out := make([]T, len(order))
	for k, i := range order {
		out[k] = v[i]
	}
	return out
}
