package svm

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

// sparseLinear draws n sparse points of d features, with about nnz
// nonzeros each (between nnz/2 and 3·nnz/2, at columns drawn with a
// preference for low indices, as word counts have, values in (0, 1]), and
// labels from a planted linear rule on the first d/20 columns plus
// Gaussian noise of noise times the rule's spread. The last column occurs
// in the first row, so that a LIBSVM file of the points has all d columns.
func sparseLinear(n, d, nnz int, noise float64, rng *rand.Rand) Problem {
	wStar := make([]float64, d)
	for j := range d / 20 {
		wStar[j] = rng.NormFloat64()
	}
	m := &data.CSR{Ptr: make([]int64, n+1)}
	score := make([]float64, n)
	cols := map[int32]bool{}
	for i := range n {
		k := nnz/2 + rng.IntN(nnz+1)
		clear(cols)
		if i == 0 {
			cols[int32(d-1)] = true
		}
		for len(cols) < k {
			u := rng.Float64()
			cols[int32(float64(d)*u*u)] = true
		}
		row := make([]int32, 0, k)
		for j := range cols {
			row = append(row, j)
		}
		slices.Sort(row)
		for _, j := range row {
			v := float32(0.1 + 0.9*rng.Float64())
			m.Idx = append(m.Idx, j)
			m.Val = append(m.Val, v)
			score[i] += wStar[j] * float64(v)
		}
		m.Ptr[i+1] = int64(len(m.Val))
	}
	var mean, sd float64
	for _, s := range score {
		mean += s
	}
	mean /= float64(n)
	for _, s := range score {
		sd += (s - mean) * (s - mean)
	}
	sd = math.Sqrt(sd / float64(n))
	p := Problem{Sparse: m, N: n, D: d, Y: make([]float32, n)}
	for i, s := range score {
		p.Y[i] = -1
		if s-mean+noise*sd*rng.NormFloat64() > 0 {
			p.Y[i] = 1
		}
	}
	return p
}

// densified returns p with dense rows.
func densified(p Problem) Problem {
	q := p
	q.X, q.Sparse = p.Sparse.Dense(p.D), nil
	return q
}

// rowsOfProblem returns the rows lo ≤ i < hi of p (sparse or dense).
func rowsOfProblem(p Problem, lo, hi int) Problem {
	q := Problem{N: hi - lo, D: p.D, Y: p.Y[lo:hi]}
	if p.W != nil {
		q.W = p.W[lo:hi]
	}
	if p.Sparse == nil {
		q.X = p.X[lo*p.D : hi*p.D]
		return q
	}
	a, b := p.Sparse.Ptr[lo], p.Sparse.Ptr[hi]
	q.Sparse = &data.CSR{Ptr: make([]int64, hi-lo+1), Idx: p.Sparse.Idx[a:b], Val: p.Sparse.Val[a:b]}
	for i := range q.Sparse.Ptr {
		q.Sparse.Ptr[i] = p.Sparse.Ptr[lo+i] - a
	}
	return q
}

// writeRows writes the points of p (dense or sparse) in LIBSVM's text
// format, every float32 exactly, each point repeated times[i] times
// (times nil: once).
func writeRows(t testing.TB, path string, p Problem, times []int) {
	t.Helper()
	var b bytes.Buffer
	for i := range p.N {
		var line []byte
		line = strconv.AppendFloat(line, float64(p.Y[i]), 'g', -1, 32)
		x := p.vec(i)
		for k, v := range x.Val {
			if v == 0 {
				continue
			}
			j := k
			if x.Idx != nil {
				j = int(x.Idx[k])
			}
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(j+1), 10)
			line = append(line, ':')
			line = strconv.AppendFloat(line, float64(v), 'g', -1, 32)
		}
		line = append(line, '\n')
		n := 1
		if times != nil {
			n = times[i]
		}
		for range n {
			b.Write(line)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readLIBLINEARW returns w of a LIBLINEAR model file as d weights and the
// bias weight (0 without one), oriented so that wᵀx > 0 means label +1; a
// model trained on a file whose last columns never occur has fewer.
func readLIBLINEARW(t testing.TB, path string, d int) ([]float64, float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var w []float64
	sign, nf, bias := 1.0, -1, -1.0
	inW := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		fs := strings.Fields(line)
		switch {
		case inW:
			v, err := strconv.ParseFloat(line, 64)
			if err != nil {
				t.Fatalf("model %s: weight %q: %v", path, line, err)
			}
			w = append(w, sign*v)
		case line == "w":
			inW = true
		case fs[0] == "label" && fs[1] == "-1":
			sign = -1
		case fs[0] == "nr_feature":
			nf, _ = strconv.Atoi(fs[1])
		case fs[0] == "bias":
			bias, _ = strconv.ParseFloat(fs[1], 64)
		}
	}
	if nf < 0 || nf > d || len(w) != nf+map[bool]int{true: 1, false: 0}[bias >= 0] {
		t.Fatalf("model %s: %d weights for nr_feature %d, bias %g", path, len(w), nf, bias)
	}
	wb := 0.0
	if bias >= 0 {
		wb = w[nf] * bias
	}
	return append(w[:nf:nf], make([]float64, d-nf)...), wb
}

// linearDecisions returns wᵀx_i + b for the points of p, dense or sparse.
func linearDecisions(w []float64, b float64, p Problem) []float64 {
	dec := make([]float64, p.N)
	for i := range dec {
		x := p.vec(i)
		dec[i] = dotRow(w, x.Idx, x.Val) + b
	}
	return dec
}

// modelW returns w and the bias of a linear model.
func modelW(m *Model) ([]float64, float64) {
	w := make([]float64, len(m.SV))
	for j, v := range m.SV {
		w[j] = float64(v)
	}
	return w, m.Bias
}

// sameModel reports whether two linear models have the same w and bias to
// relative tolerance tol (bit for bit at tol = 0).
func sameModel(a, b *Model, tol float64) error {
	if len(a.SV) != len(b.SV) {
		return fmt.Errorf("%d and %d weights", len(a.SV), len(b.SV))
	}
	var d, n float64
	for j := range a.SV {
		x, y := float64(a.SV[j]), float64(b.SV[j])
		d += (x - y) * (x - y)
		n += y * y
	}
	d += (a.Bias - b.Bias) * (a.Bias - b.Bias)
	n += b.Bias * b.Bias
	if tol == 0 && d != 0 || d > tol*tol*n {
		return fmt.Errorf("‖Δ(w, b)‖/‖(w, b)‖ = %.3g", math.Sqrt(d/n))
	}
	return nil
}

var allDCDLosses = []DCDLoss{SquaredHinge, Hinge, Logistic}

// TestLinearDCDSparseMatchesDense: the sparse and the dense form of one
// problem give the same model (the same random order; the sums differ in
// their rounding only), for each loss, with and without the bias feature,
// with class and point weights.
func TestLinearDCDSparseMatchesDense(t *testing.T) {
	sp := sparseLinear(400, 600, 20, 0.3, newRNG(3))
	w := make([]float32, sp.N)
	rng := newRNG(4)
	for i := range w {
		w[i] = float32(rng.IntN(4)) / 2 // 0, ½, 1, 1½
	}
	for _, loss := range allDCDLosses {
		for _, c := range []struct {
			name string
			cfg  LinearDCDConfig
			w    []float32
		}{
			{"bias", LinearDCDConfig{C: 0.5}, nil},
			{"no bias", LinearDCDConfig{C: 0.5, NoBias: true}, nil},
			{"weighted", LinearDCDConfig{C: 0.5, WeightPos: 2, BiasValue: 2}, w},
		} {
			t.Run(loss.String()+"/"+c.name, func(t *testing.T) {
				cfg := c.cfg
				cfg.Loss, cfg.Eps = loss, 1e-6
				p := sp
				p.W = c.w
				ms, err := LinearDCD(t.Context(), p, cfg, newRNG(1), nil)
				if err != nil {
					t.Fatal(err)
				}
				md, err := LinearDCD(t.Context(), densified(p), cfg, newRNG(1), nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameModel(ms, md, 1e-5); err != nil {
					t.Errorf("sparse and dense: %v", err)
				}
				if d := relDiff(objective(t, ms), objective(t, md)); d > 1e-9 {
					t.Errorf("objective sparse %.12g, dense %.12g", objective(t, ms), objective(t, md))
				}
				t.Logf("objective %.10g, %s / %s epochs", objective(t, ms), ms.Info["epochs"], md.Info["epochs"])
			})
		}
	}
}

// TestLinearDCDPointWeights: weight 2 on every point is C doubled, weight 0
// drops the point (both bit for bit: the same costs and the same order of
// visits), an integer weight k is k copies of the point (the same optimum),
// and the duality gap closes with weights.
func TestLinearDCDPointWeights(t *testing.T) {
	p := sparseLinear(300, 400, 15, 0.5, newRNG(5))
	rng := newRNG(6)
	for _, loss := range allDCDLosses {
		t.Run(loss.String(), func(t *testing.T) {
			cfg := LinearDCDConfig{Loss: loss, C: 0.3, WeightNeg: 1.5, Eps: 1e-5}
			two := p
			two.W = slices.Repeat([]float32{2}, p.N)
			m2, err := LinearDCD(t.Context(), two, cfg, newRNG(1), nil)
			if err != nil {
				t.Fatal(err)
			}
			c2 := cfg
			c2.C *= 2
			mc, err := LinearDCD(t.Context(), p, c2, newRNG(1), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameModel(m2, mc, 0); err != nil || m2.Info["objective"] != mc.Info["objective"] {
				t.Errorf("W = 2 and 2C: %v; objectives %s, %s", err, m2.Info["objective"], mc.Info["objective"])
			}

			// Weight 0 on a third of the points, 1 on the others.
			zero := p
			zero.W = make([]float32, p.N)
			var keep []int
			for i := range zero.W {
				if rng.IntN(3) > 0 {
					zero.W[i] = 1
					keep = append(keep, i)
				}
			}
			m0, err := LinearDCD(t.Context(), zero, cfg, newRNG(2), nil)
			if err != nil {
				t.Fatal(err)
			}
			md, err := LinearDCD(t.Context(), pick(p, keep), cfg, newRNG(2), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameModel(m0, md, 0); err != nil || m0.Info["objective"] != md.Info["objective"] {
				t.Errorf("W = 0 and dropped: %v; objectives %s, %s", err, m0.Info["objective"], md.Info["objective"])
			}

			// Weights 1, 2, 3 and copies.
			wk := p
			wk.W = make([]float32, p.N)
			var copies []int
			for i := range wk.W {
				k := 1 + rng.IntN(3)
				wk.W[i] = float32(k)
				for range k {
					copies = append(copies, i)
				}
			}
			cfg.Eps = 1e-7
			cfg.MaxEpochs = 20000
			mw, err := LinearDCD(t.Context(), wk, cfg, newRNG(3), nil)
			if err != nil {
				t.Fatal(err)
			}
			mk, err := LinearDCD(t.Context(), pick(p, copies), cfg, newRNG(3), nil)
			if err != nil {
				t.Fatal(err)
			}
			pw, pk := infoFloat(t, mw, "primal_objective"), infoFloat(t, mk, "primal_objective")
			t.Logf("weights: primal %.10g, dual %.10g (%s epochs); copies: primal %.10g", pw, objective(t, mw), mw.Info["epochs"], pk)
			if d := relDiff(pw, pk); d > 1e-6 {
				t.Errorf("weights: primal %.10g, copies %.10g", pw, pk)
			}
			if err := sameModel(mw, mk, 1e-3); err != nil {
				t.Errorf("weights and copies: %v", err)
			}
			if gap := pw + objective(t, mw); gap < -1e-9*pw || gap > 1e-6*pw {
				t.Errorf("weights: duality gap %.3g", gap)
			}
		})
	}
}

// pick returns the points idx of p (repeats allowed), sparse or dense.
func pick(p Problem, idx []int) Problem {
	q := Problem{N: len(idx), D: p.D, Y: make([]float32, len(idx))}
	if p.Sparse != nil {
		q.Sparse = &data.CSR{Ptr: make([]int64, len(idx)+1)}
	}
	if p.W != nil {
		q.W = make([]float32, len(idx))
	}
	for k, i := range idx {
		q.Y[k] = p.Y[i]
		if p.W != nil {
			q.W[k] = p.W[i]
		}
		x := p.vec(i)
		if q.Sparse != nil {
			q.Sparse.Idx = append(q.Sparse.Idx, x.Idx...)
			q.Sparse.Val = append(q.Sparse.Val, x.Val...)
			q.Sparse.Ptr[k+1] = int64(len(q.Sparse.Val))
		} else {
			q.X = append(q.X, x.Val...)
		}
	}
	return q
}

var _ = context.Background

// TestPegasosLinearSparse: PegasosLinear gives the same model on the sparse
// and the dense form of a problem (the same draws; the sums differ in
// their rounding only), and weights of 1 are no weights, bit for bit.
func TestPegasosLinearSparse(t *testing.T) {
	p := sparseLinear(500, 800, 20, 0.3, newRNG(11))
	for _, cfg := range []PegasosLinearConfig{{Lambda: 1e-2}, {Lambda: 1e-3, Bias: true, Project: true}} {
		ms, err := PegasosLinear(t.Context(), p, cfg, newRNG(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		md, err := PegasosLinear(t.Context(), densified(p), cfg, newRNG(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameModel(ms, md, 1e-5); err != nil {
			t.Errorf("%+v: sparse and dense: %v", cfg, err)
		}
		if d := relDiff(objective(t, ms), objective(t, md)); d > 1e-6 {
			t.Errorf("%+v: objective sparse %.10g, dense %.10g", cfg, objective(t, ms), objective(t, md))
		}
		ones := p
		ones.W = slices.Repeat([]float32{1}, p.N)
		m1, err := PegasosLinear(t.Context(), ones, cfg, newRNG(1), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameModel(m1, ms, 0); err != nil || m1.Info["objective"] != ms.Info["objective"] {
			t.Errorf("%+v: weights 1 and none: %v", cfg, err)
		}
	}
}

// TestPegasosLinearWeights: with point weights (0 to 3) PegasosLinear
// approaches the optimum of its weighted objective, which is the weighted
// hinge-loss SVM without bias that LinearDCD solves with C = 1/(λN).
func TestPegasosLinearWeights(t *testing.T) {
	p := sparseLinear(1000, 300, 20, 0.5, newRNG(12))
	p.W = make([]float32, p.N)
	rng := newRNG(13)
	for i := range p.W {
		p.W[i] = float32(rng.IntN(4))
	}
	const lam = 1e-2
	m, err := PegasosLinear(t.Context(), p, PegasosLinearConfig{Lambda: lam, T: 200 * p.N}, newRNG(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := LinearDCD(t.Context(), p, LinearDCDConfig{Loss: Hinge, C: 1 / (lam * float64(p.N)), NoBias: true, Eps: 1e-6, MaxEpochs: 100000}, newRNG(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := lam * infoFloat(t, ref, "primal_objective")
	obj := objective(t, m)
	t.Logf("Pegasos objective %.6g, optimum %.6g", obj, opt)
	if obj < opt*(1-1e-9) || obj > opt*1.02 {
		t.Errorf("Pegasos objective %.6g, the optimum is %.6g", obj, opt)
	}
	if m.Info["weighted"] != "true" {
		t.Errorf("info %v", m.Info)
	}
}
