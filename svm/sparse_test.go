package svm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/safetensors"
	"github.com/nsvm-go/nsvm/kernel"
)

// sparseText draws n points of d features with about a fraction dens of
// them nonzero (values in (0, 1], as term frequencies), labelled by the
// sign of a fixed sparse linear rule plus noise: dense rows in X.
func sparseText(n, d int, dens float64, rng *rand.Rand) Problem {
	w := make([]float64, d)
	for j := range w {
		if rng.Float64() < 0.3 {
			w[j] = rng.NormFloat64()
		}
	}
	p := Problem{X: make([]float32, n*d), N: n, D: d, Y: make([]float32, n)}
	for i := 0; i < n; i++ {
		x := p.row(i)
		var s float64
		for j := range x {
			if rng.Float64() < dens {
				x[j] = float32(1 - rng.Float64())
				s += w[j] * float64(x[j])
			}
		}
		p.Y[i] = 1
		if s+0.3*rng.NormFloat64() < 0 {
			p.Y[i] = -1
		}
	}
	return p
}

// asSparse returns p with its rows as CSR.
func asSparse(p Problem) Problem {
	s := p
	s.Sparse = data.ToCSR(p.X, p.N, p.D)
	s.X = nil
	return s
}

// alphaVec returns α over the training points of p from a model trained
// on p whose support vectors are p's rows in order (dense or sparse).
func alphaVec(m *Model, p Problem) []float64 {
	a := make([]float64, p.N)
	next := 0
	for i := 0; i < p.N && next < m.NSV; i++ {
		if sameVec(p.vec(i), m.svVec(next), p.D) {
			a[i] = math.Abs(m.Coef[next])
			next++
		}
	}
	return a
}

func sameVec(a, b data.Vec, d int) bool {
	x, y := make([]float32, d), make([]float32, d)
	a.Scatter(x)
	b.Scatter(y)
	return slices.Equal(x, y)
}

func sparseKernels() []kernel.Kernel {
	return []kernel.Kernel{
		kernel.RBF{Gamma: 0.5},
		kernel.Linear{},
		kernel.Poly{Gamma: 0.5, Coef0: 1, Degree: 3},
		kernel.Sigmoid{Gamma: 0.05, Coef0: -0.2},
		kernel.Normalized{K: kernel.Poly{Gamma: 1, Coef0: 1, Degree: 2}},
	}
}

// TestSMOSparseMatchesDense trains SMO on the same points as dense and as
// sparse rows: the α agree to the rounding of the kernel values, and so do
// the bias, the objective and the decisions, and the sparse model keeps
// sparse support vectors.
func TestSMOSparseMatchesDense(t *testing.T) {
	rng := newRNG(41)
	dense := sparseText(300, 400, 0.03, rng)
	test := sparseText(200, 400, 0.03, rng)
	sp, spTest := asSparse(dense), asSparse(test)
	for _, k := range sparseKernels() {
		for _, shrink := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/shrinking=%v", k.Spec(), shrink), func(t *testing.T) {
				cfg := SMOConfig{C: 2, Eps: 1e-6, NoShrinking: !shrink}
				md, ms := mustSMO(t, dense, k, cfg), mustSMO(t, sp, k, cfg)
				if ms.SVSparse == nil || ms.SV != nil || md.SVSparse != nil {
					t.Fatalf("sparse model: SVSparse %v, SV %d values; dense model SVSparse %v", ms.SVSparse != nil, len(ms.SV), md.SVSparse != nil)
				}
				ad, as := alphaVec(md, dense), alphaVec(ms, sp)
				for i := range ad {
					if math.Abs(ad[i]-as[i]) > 1e-4*cfg.C {
						t.Fatalf("α_%d: dense %.9g, sparse %.9g", i, ad[i], as[i])
					}
				}
				od, _ := strconv.ParseFloat(md.Info["objective"], 64)
				os, _ := strconv.ParseFloat(ms.Info["objective"], 64)
				if relDiff(os, od) > 1e-6 || math.Abs(md.Bias-ms.Bias) > 1e-4 {
					t.Errorf("objective %.10g / %.10g, bias %.8g / %.8g (dense / sparse)", od, os, md.Bias, ms.Bias)
				}
				if d := relDiff(DualObjective(k, ms), od); d > 1e-5 {
					t.Errorf("DualObjective of the sparse model %.10g, dense objective %.10g", DualObjective(k, ms), od)
				}
				dec := make([]float64, test.N)
				ms.DecisionCSR(dec, spTest.Sparse)
				for i := 0; i < test.N; i++ {
					a, b := md.Decision(test.row(i)), ms.DecisionVec(spTest.vec(i))
					if math.Abs(a-b) > 1e-4*(1+math.Abs(a)) {
						t.Fatalf("test point %d: dense model %.9g, sparse model %.9g", i, a, b)
					}
					if dec[i] != b {
						t.Fatalf("test point %d: DecisionCSR %.17g, DecisionVec %.17g", i, dec[i], b)
					}
				}
			})
		}
	}
}

// TestSMOSparseCache runs sparse SMO with a cache of two columns (constant
// evictions and, with shrinking, swaps of the row views) and two workers
// per column against a cache holding every column.
func TestSMOSparseCache(t *testing.T) {
	p := asSparse(sparseText(5000, 300, 0.02, newRNG(8)))
	k := kernel.RBF{Gamma: 0.3}
	cfg := SMOConfig{C: 1, Eps: 1e-4, MaxIter: 800}
	big := mustSMO(t, p, k, cfg)
	cfg.cacheValues, cfg.Workers = 1, 2
	tiny := mustSMO(t, p, k, cfg)
	ab, at := alphaVec(big, p), alphaVec(tiny, p)
	for i := range ab {
		if ab[i] != at[i] {
			t.Fatalf("α_%d: big cache %.17g, tiny cache with two workers %.17g", i, ab[i], at[i])
		}
	}
}

// TestSMOPointWeights checks per-point weights: W_i = 2 everywhere is C
// doubled; W_i = w₊ or w₋ by class is the class weights; weight 0 leaves
// the point out; and combined with class weights the bounds multiply.
func TestSMOPointWeights(t *testing.T) {
	rng := newRNG(9)
	p := ringnorm(200, 5, rng)
	sp := asSparse(p)
	k := kernel.RBF{Gamma: 0.2}
	base := SMOConfig{C: 0.7, Eps: 1e-7}
	same := func(t *testing.T, what string, a, b *Model, pa, pb Problem) {
		t.Helper()
		aa, ab := alphaVec(a, pa), alphaVec(b, pb)
		for i := range aa {
			if math.Abs(aa[i]-ab[i]) > 1e-6 {
				t.Fatalf("%s: α_%d = %.10g and %.10g", what, i, aa[i], ab[i])
			}
		}
		if math.Abs(a.Bias-b.Bias) > 1e-6 {
			t.Fatalf("%s: bias %.10g and %.10g", what, a.Bias, b.Bias)
		}
	}
	for _, q := range []Problem{p, sp} {
		name := "dense"
		if q.Sparse != nil {
			name = "sparse"
		}
		t.Run(name, func(t *testing.T) {
			w2 := q
			w2.W = make([]float32, q.N)
			for i := range w2.W {
				w2.W[i] = 2
			}
			dbl := base
			dbl.C *= 2
			m := mustSMO(t, w2, k, base)
			same(t, "W = 2", m, mustSMO(t, q, k, dbl), q, q)
			if m.Info["point_weights"] != "true" || m.Info["nbsv"] != mustSMO(t, q, k, dbl).Info["nbsv"] {
				t.Errorf("Info %v", m.Info)
			}

			wc := q
			wc.W = make([]float32, q.N)
			for i := range wc.W {
				wc.W[i] = 0.5
				if q.Y[i] > 0 {
					wc.W[i] = 3
				}
			}
			cls := base
			cls.WeightPos, cls.WeightNeg = 3, 0.5
			same(t, "W by class", mustSMO(t, wc, k, base), mustSMO(t, q, k, cls), q, q)
			// Class and point weights multiply: (3, 0.5)·(2, 2)... as W·(1.5, 1).
			both := base
			both.WeightPos, both.WeightNeg = 1.5, 1
			w3 := q
			w3.W = make([]float32, q.N)
			for i := range w3.W {
				w3.W[i] = 0.5
				if q.Y[i] > 0 {
					w3.W[i] = 2
				}
			}
			same(t, "W·class weights", mustSMO(t, w3, k, both), mustSMO(t, q, k, cls), q, q)

			// Weight 0 leaves a point out.
			wz := q
			wz.W = make([]float32, q.N)
			var keep []int
			for i := range wz.W {
				if i%3 != 0 {
					wz.W[i] = 1
					keep = append(keep, i)
				}
			}
			sub := subProblem(q, keep)
			mz := mustSMO(t, wz, k, base)
			ms := mustSMO(t, sub, k, base)
			az, as := alphaVec(mz, q), alphaVec(ms, sub)
			for s, i := range keep {
				if math.Abs(az[i]-as[s]) > 1e-6 {
					t.Fatalf("weight 0: α_%d = %.10g, without the points %.10g", i, az[i], as[s])
				}
			}
			for i := 0; i < q.N; i += 3 {
				if az[i] != 0 {
					t.Fatalf("α_%d = %g for a point of weight 0", i, az[i])
				}
			}
		})
	}
	// Every point of a class at weight 0: an error.
	wz := p
	wz.W = make([]float32, p.N)
	for i := range wz.W {
		if p.Y[i] > 0 {
			wz.W[i] = 1
		}
	}
	if _, err := SMO(context.Background(), wz, k, base, nil); err == nil || !strings.Contains(err.Error(), "positive weight") {
		t.Errorf("one class weighted 0: error %v", err)
	}
}

// subProblem returns the points idx of p.
func subProblem(p Problem, idx []int) Problem {
	s := Problem{N: len(idx), D: p.D, Y: make([]float32, len(idx))}
	sp := p.Sparse != nil
	if sp {
		s.Sparse = &data.CSR{Ptr: []int64{0}}
	}
	for q, i := range idx {
		s.Y[q] = p.Y[i]
		if sp {
			v := p.vec(i)
			s.Sparse.Idx = append(s.Sparse.Idx, v.Idx...)
			s.Sparse.Val = append(s.Sparse.Val, v.Val...)
			s.Sparse.Ptr = append(s.Sparse.Ptr, int64(len(s.Sparse.Val)))
		} else {
			s.X = append(s.X, p.row(i)...)
		}
	}
	return s
}

// TestDecisionVecKinds checks that the dense and the sparse form of a row
// get the same decision, equal to Decision's, from models with dense and
// with sparse support vectors, and that DecisionBatch agrees.
func TestDecisionVecKinds(t *testing.T) {
	rng := newRNG(12)
	train, test := sparseText(200, 150, 0.05, rng), sparseText(100, 150, 0.05, rng)
	spTest := asSparse(test)
	for _, k := range sparseKernels() {
		for _, tr := range []Problem{train, asSparse(train)} {
			m := mustSMO(t, tr, k, SMOConfig{C: 1})
			batch := make([]float64, test.N)
			m.DecisionBatch(batch, test.X, test.N)
			csr := make([]float64, test.N)
			m.DecisionCSR(csr, spTest.Sparse)
			for i := 0; i < test.N; i++ {
				d := m.Decision(test.row(i))
				dv, sv := m.DecisionVec(test.vec(i)), m.DecisionVec(spTest.vec(i))
				if d != dv || d != sv {
					t.Fatalf("%s, sparse SVs %v, row %d: Decision %.17g, DecisionVec dense %.17g, sparse %.17g", k.Spec(), m.SVSparse != nil, i, d, dv, sv)
				}
				if math.Abs(batch[i]-d) > 1e-5*(1+math.Abs(d)) || math.Abs(csr[i]-d) > 1e-5*(1+math.Abs(d)) {
					t.Fatalf("%s, sparse SVs %v, row %d: Decision %.9g, DecisionBatch %.9g, DecisionCSR %.9g", k.Spec(), m.SVSparse != nil, i, d, batch[i], csr[i])
				}
			}
		}
	}
}

// TestSaveLoadSparse round-trips a model with sparse support vectors.
func TestSaveLoadSparse(t *testing.T) {
	rng := newRNG(13)
	train, test := asSparse(sparseText(200, 300, 0.03, rng)), asSparse(sparseText(100, 300, 0.03, rng))
	for _, k := range []kernel.Kernel{kernel.RBF{Gamma: 0.4}, kernel.Linear{}} {
		m := mustSMO(t, train, k, SMOConfig{C: 1})
		m.Neg, m.Pos = 2, 5
		p := filepath.Join(t.TempDir(), "m.safetensors")
		if err := m.Save(p); err != nil {
			t.Fatal(err)
		}
		g, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if g.SVSparse == nil || g.SV != nil || g.D != m.D || g.NSV != m.NSV || g.Bias != m.Bias || g.Neg != 2 || g.Pos != 5 {
			t.Fatalf("%s: loaded D=%d NSV=%d bias %g, sparse %v; saved D=%d NSV=%d bias %g", k.Spec(), g.D, g.NSV, g.Bias, g.SVSparse != nil, m.D, m.NSV, m.Bias)
		}
		if !slices.Equal(g.SVSparse.Ptr, m.SVSparse.Ptr) || !slices.Equal(g.SVSparse.Idx, m.SVSparse.Idx) ||
			!slices.Equal(g.SVSparse.Val, m.SVSparse.Val) || !slices.Equal(g.Coef, m.Coef) {
			t.Fatal("support vectors or coefficients differ")
		}
		for i := 0; i < test.N; i++ {
			if a, b := m.DecisionVec(test.vec(i)), g.DecisionVec(test.vec(i)); a != b {
				t.Fatalf("point %d: %g before, %g after", i, a, b)
			}
		}
	}
}

// TestPegasosSparseMatchesDense runs kernel Pegasos with the same random
// draws on the same points as dense and as sparse rows. The margin tests
// see kernel values rounded differently (panel float32 dot products against
// float64 gathers), so a rare step may flip; the fits agree on the
// violations and on the test decisions to a small tolerance.
func TestPegasosSparseMatchesDense(t *testing.T) {
	rng := newRNG(14)
	train, test := sparseText(400, 300, 0.03, rng), sparseText(200, 300, 0.03, rng)
	sp, spTest := asSparse(train), asSparse(test)
	for _, k := range []kernel.Kernel{kernel.RBF{Gamma: 0.5}, kernel.Linear{}, kernel.Poly{Gamma: 0.5, Coef0: 1, Degree: 2}} {
		for _, cfg := range []PegasosConfig{{Lambda: 1e-3, T: 4000}, {Lambda: 1e-3, T: 1000, Batch: 4, Bias: true}} {
			t.Run(fmt.Sprintf("%s/batch=%d", k.Spec(), cfg.Batch), func(t *testing.T) {
				md, err := Pegasos(context.Background(), train, k, cfg, newRNG(2), nil)
				if err != nil {
					t.Fatal(err)
				}
				ms, err := Pegasos(context.Background(), sp, k, cfg, newRNG(2), nil)
				if err != nil {
					t.Fatal(err)
				}
				if ms.SVSparse == nil {
					t.Fatal("dense support vectors from sparse rows")
				}
				vd, _ := strconv.Atoi(md.Info["violations"])
				vs, _ := strconv.Atoi(ms.Info["violations"])
				if math.Abs(float64(vd-vs)) > 0.01*float64(vd) {
					t.Errorf("violations: dense %d, sparse %d", vd, vs)
				}
				agree := 0
				var worst float64
				for i := 0; i < test.N; i++ {
					a, b := md.Decision(test.row(i)), ms.DecisionVec(spTest.vec(i))
					if (a >= 0) == (b >= 0) {
						agree++
					}
					worst = max(worst, math.Abs(a-b)/(1+math.Abs(a)))
				}
				t.Logf("violations %d / %d; decisions agree on %d of %d, worst relative difference %.2g", vd, vs, agree, test.N, worst)
				if agree < test.N*99/100 || (vd == vs && worst > 1e-5) {
					t.Errorf("decisions agree on %d of %d, worst relative difference %.2g", agree, test.N, worst)
				}
			})
		}
	}
}

// TestPegasosWeights checks the weighted hinge: W_i = 2 everywhere is the
// unweighted run at λ/2 (the same steps, every coefficient doubled against
// a doubled threshold), and a point of weight 0 is never stored.
func TestPegasosWeights(t *testing.T) {
	rng := newRNG(15)
	for _, p := range []Problem{ringnorm(300, 5, rng), asSparse(sparseText(300, 200, 0.05, rng))} {
		k := kernel.RBF{Gamma: 0.3}
		w2 := p
		w2.W = make([]float32, p.N)
		for i := range w2.W {
			w2.W[i] = 2
		}
		for _, batch := range []int{1, 5} {
			a, err := Pegasos(context.Background(), w2, k, PegasosConfig{Lambda: 1e-2, T: 2000, Batch: batch}, newRNG(3), nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Pegasos(context.Background(), p, k, PegasosConfig{Lambda: 5e-3, T: 2000, Batch: batch}, newRNG(3), nil)
			if err != nil {
				t.Fatal(err)
			}
			if a.NSV != b.NSV || !slices.Equal(a.Coef, b.Coef) || a.Info["violations"] != b.Info["violations"] {
				t.Fatalf("batch %d: W = 2 at λ: %d SVs, %s violations; W = 1 at λ/2: %d SVs, %s violations", batch, a.NSV, a.Info["violations"], b.NSV, b.Info["violations"])
			}
		}
		wz := p
		wz.W = make([]float32, p.N)
		for i := range wz.W {
			if i%2 == 0 {
				wz.W[i] = 1
			}
		}
		m, err := Pegasos(context.Background(), wz, k, PegasosConfig{Lambda: 1e-2, T: 2000, Bias: true}, newRNG(3), nil)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < m.NSV; j++ {
			found := false
			for i := 0; i < p.N; i += 2 {
				if sameVec(m.svVec(j), p.vec(i), p.D) {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("support vector %d is a point of weight 0", j)
			}
		}
	}
}

// sparseClasses draws n points of d features at density dens in c
// classes, each class with its own set of frequent features, as ClassProblem
// with dense rows.
func sparseClasses(n, d, c int, dens float64, rng *rand.Rand) ClassProblem {
	p := ClassProblem{X: make([]float32, n*d), N: n, D: d, C: c, Y: make([]int, n)}
	for i := 0; i < n; i++ {
		cl := i % c
		p.Y[i] = cl
		x := p.X[i*d : (i+1)*d]
		for j := range x {
			pr := dens
			if j%c == cl {
				pr *= 2.5
			}
			if rng.Float64() < pr {
				x[j] = float32(1 - rng.Float64())
			}
		}
	}
	return p
}

func sparseClass(p ClassProblem) ClassProblem {
	s := p
	s.Sparse = data.ToCSR(p.X, p.N, p.D)
	s.X = nil
	return s
}

// TestGridSMOSparse runs the C×γ grid search on the same points as dense
// and as sparse rows, with the kernel matrix (computed from sparse rows in
// parallel) and without (kernel columns from the rows): the fold scores
// agree, as do the heads of FitOneVsOne.
func TestGridSMOSparse(t *testing.T) {
	p := sparseClasses(240, 300, 3, 0.03, newRNG(16))
	sp := sparseClass(p)
	kernels := []kernel.Kernel{kernel.RBF{Gamma: 0.1}, kernel.RBF{Gamma: 0.5}, kernel.Linear{}}
	cs := []float64{0.5, 2, 8}
	folds, err := StratifiedKFold(p.Y, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mb := range []int{0, -1} {
		cfg := GridConfig{MatrixMB: mb, SMO: SMOConfig{Eps: 1e-5}}
		rd, err := GridSMO(context.Background(), p, kernels, cs, folds, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := GridSMO(context.Background(), sp, kernels, cs, folds, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rs.Matrix != (mb == 0) {
			t.Errorf("MatrixMB %d: Matrix = %v", mb, rs.Matrix)
		}
		for i := range rd.FoldScore {
			for f := range rd.FoldScore[i] {
				if math.Abs(rd.FoldScore[i][f]-rs.FoldScore[i][f]) > 1.5/float64(len(folds[f].Validation)) {
					k, c, _ := rd.Params(i)
					t.Errorf("MatrixMB %d, %s, C=%g, fold %d: accuracy %.4f dense, %.4f sparse", mb, k, c, f, rd.FoldScore[i][f], rs.FoldScore[i][f])
				}
			}
		}
		t.Logf("MatrixMB %d: scores dense %.3f, sparse %.3f", mb, rd.Score, rs.Score)
		if rd.Best != rs.Best {
			t.Logf("MatrixMB %d: best grid point %d dense, %d sparse", mb, rd.Best, rs.Best)
		}
		hd, err := FitOneVsOne(context.Background(), p, kernels[1], 2, cfg)
		if err != nil {
			t.Fatal(err)
		}
		hs, err := FitOneVsOne(context.Background(), sp, kernels[1], 2, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for q := range hd {
			if hs[q].SVSparse == nil || hs[q].NSV != hd[q].NSV || math.Abs(hs[q].Bias-hd[q].Bias) > 1e-4 {
				t.Errorf("MatrixMB %d, head %d: sparse %v, %d / %d SVs, bias %.6g / %.6g", mb, q, hs[q].SVSparse != nil, hd[q].NSV, hs[q].NSV, hd[q].Bias, hs[q].Bias)
			}
		}
	}
}

// TestSparseKernelMatrix checks the matrix of sparse rows against the dense
// one, entry by entry.
func TestSparseKernelMatrix(t *testing.T) {
	p := sparseText(150, 120, 0.05, newRNG(17))
	csr := data.ToCSR(p.X, p.N, p.D)
	for _, k := range sparseKernels() {
		a, b := NewKernelMatrix(k, p.X, p.N, p.D), NewSparseKernelMatrix(k, csr, p.D)
		for i := 0; i < p.N; i++ {
			for j := 0; j < p.N; j++ {
				if x, y := a.At(i, j), b.At(i, j); math.Abs(float64(x-y)) > 2e-6*(1+math.Abs(float64(x))) || b.At(j, i) != y {
					t.Fatalf("%s: K_%d,%d = %g dense, %g sparse (K_%d,%d = %g)", k.Spec(), i, j, x, y, j, i, b.At(j, i))
				}
			}
		}
	}
}

// TestGridSMOWeights checks point weights in the grid search: W = 2
// everywhere scores as the grid of the doubled values of C, and weights
// by class as the class weights.
func TestGridSMOWeights(t *testing.T) {
	p := sparseClass(sparseClasses(180, 200, 3, 0.04, newRNG(18)))
	kernels := []kernel.Kernel{kernel.RBF{Gamma: 0.3}}
	folds, err := StratifiedKFold(p.Y, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mb := range []int{0, -1} {
		cfg := GridConfig{MatrixMB: mb, SMO: SMOConfig{Eps: 1e-6}}
		w2 := p
		w2.W = make([]float32, p.N)
		for i := range w2.W {
			w2.W[i] = 2
		}
		a, err := GridSMO(context.Background(), w2, kernels, []float64{0.25, 1, 4}, folds, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := GridSMO(context.Background(), p, kernels, []float64{0.5, 2, 8}, folds, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(a.FoldScore, b.FoldScore, func(x, y []float64) bool { return slices.Equal(x, y) }) {
			t.Errorf("MatrixMB %d: W = 2 scores %v, doubled C %v", mb, a.FoldScore, b.FoldScore)
		}
		wc := p
		wc.W = make([]float32, p.N)
		cw := []float64{1, 3, 0.5}
		for i := range wc.W {
			wc.W[i] = float32(cw[p.Y[i]])
		}
		a, err = GridSMO(context.Background(), wc, kernels, []float64{1}, folds, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.ClassWeights = cw
		b, err = GridSMO(context.Background(), p, kernels, []float64{1}, folds, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.FoldScore[0], b.FoldScore[0]) {
			t.Errorf("MatrixMB %d: weights by class scores %v, class weights %v", mb, a.FoldScore[0], b.FoldScore[0])
		}
	}
}

// TestSparseRefusals: the solvers that take dense, unweighted rows only
// say so, and the sparse solvers refuse a kernel that takes dense rows
// only.
func TestSparseRefusals(t *testing.T) {
	p := ringnorm(40, 3, newRNG(19))
	sp := asSparse(p)
	w := p
	w.W = make([]float32, p.N)
	for i := range w.W {
		w.W[i] = 1
	}
	k := kernel.RBF{Gamma: 0.5}
	ctx := context.Background()
	solvers := map[string]func(Problem, kernel.Kernel) error{
		"Chunking": func(q Problem, k kernel.Kernel) error {
			_, err := Chunking(ctx, q, k, ChunkingConfig{}, nil)
			return err
		},
	}
	for name, f := range solvers {
		if err := f(sp, k); err == nil || !strings.Contains(err.Error(), "dense rows") {
			t.Errorf("%s on sparse rows: error %v", name, err)
		}
		if err := f(w, k); err == nil || !strings.Contains(err.Error(), "weights") {
			t.Errorf("%s with point weights: error %v", name, err)
		}
	}
	dense := denseOnly{kernel.RBF{Gamma: 0.5}}
	if _, err := SMO(ctx, sp, dense, SMOConfig{}, nil); err == nil || !strings.Contains(err.Error(), "dense rows only") {
		t.Errorf("SMO, sparse rows, dense-only kernel: error %v", err)
	}
	if _, err := Pegasos(ctx, sp, dense, PegasosConfig{T: 10}, newRNG(1), nil); err == nil || !strings.Contains(err.Error(), "dense rows only") {
		t.Errorf("Pegasos, sparse rows, dense-only kernel: error %v", err)
	}
	if _, err := GridSMO(ctx, sp.ClassProblem(), []kernel.Kernel{dense}, []float64{1}, []Fold{{Train: seq(0, 30), Validation: seq(30, 40)}}, GridConfig{}, nil); err == nil || !strings.Contains(err.Error(), "dense rows only") {
		t.Errorf("GridSMO, sparse rows, dense-only kernel: error %v", err)
	}
	// A dense problem may still use such a kernel.
	if _, err := SMO(ctx, p, dense, SMOConfig{}, nil); err != nil {
		t.Errorf("SMO, dense rows, dense-only kernel: %v", err)
	}
}

// denseOnly is a kernel outside kernel.OnRows.
type denseOnly struct{ k kernel.RBF }

func (d denseOnly) Eval(a, b []float32) float64              { return d.k.Eval(a, b) }
func (d denseOnly) Row(dst, z, norms, b []float32)           { d.k.Row(dst, z, norms, b) }
func (d denseOnly) GradB(dst, a, b []float32, scale float64) { d.k.GradB(dst, a, b, scale) }
func (d denseOnly) Spec() kernel.Spec                        { return d.k.Spec() }
func (d denseOnly) Cross(dst, a []float32, na int, an []float32, b []float32, nb int, bn []float32, dim int) {
	d.k.Cross(dst, a, na, an, b, nb, bn, dim)
}

// TestLoadRejectsSparse: broken sparse support vectors are refused.
func TestLoadRejectsSparse(t *testing.T) {
	dir := t.TempDir()
	meta := func(dim string) map[string]string {
		m := map[string]string{"format": FormatVersion, "kernel": `{"name":"rbf","gamma":1}`, "bias": "0", "label_neg": "-1", "label_pos": "1"}
		if dim != "" {
			m["dim"] = dim
		}
		return m
	}
	coef := safetensors.F64("coef", []int{2}, []float64{1, -1})
	ptr := func(v ...int64) safetensors.Tensor { return safetensors.I64("sv_indptr", []int{len(v)}, v) }
	idx := func(v ...int32) safetensors.Tensor { return safetensors.I32("sv_indices", []int{len(v)}, v) }
	val := func(v ...float32) safetensors.Tensor { return safetensors.F32("sv_values", []int{len(v)}, v) }
	good := []safetensors.Tensor{coef, ptr(0, 2, 3), idx(0, 4, 1), val(1, 2, 3)}
	cases := []struct {
		name string
		meta map[string]string
		ts   []safetensors.Tensor
	}{
		{"no dim", meta(""), good},
		{"bad dim", meta("0"), good},
		{"index ≥ dim", meta("4"), good},
		{"decreasing indices", meta("5"), []safetensors.Tensor{coef, ptr(0, 2, 3), idx(4, 0, 1), val(1, 2, 3)}},
		{"pointers", meta("5"), []safetensors.Tensor{coef, ptr(0, 2, 4), idx(0, 4, 1), val(1, 2, 3)}},
		{"rows ≠ coef", meta("5"), []safetensors.Tensor{coef, ptr(0, 3), idx(0, 4, 1), val(1, 2, 3)}},
		{"no values", meta("5"), []safetensors.Tensor{coef, ptr(0, 2, 3), idx(0, 4, 1)}},
		{"non-finite", meta("5"), []safetensors.Tensor{coef, ptr(0, 2, 3), idx(0, 4, 1), val(1, float32(math.Inf(1)), 3)}},
		{"index dtype", meta("5"), []safetensors.Tensor{coef, ptr(0, 2, 3), safetensors.I64("sv_indices", []int{3}, []int64{0, 4, 1}), val(1, 2, 3)}},
	}
	for _, c := range cases {
		p := filepath.Join(dir, "m")
		if err := safetensors.WriteFile(p, c.meta, c.ts); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); err == nil || !strings.HasPrefix(err.Error(), "svm: ") {
			t.Errorf("%s: error %v", c.name, err)
		}
	}
	p := filepath.Join(dir, "ok")
	safetensors.WriteFile(p, meta("5"), good)
	m, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	x := data.Vec{Idx: []int32{1, 4}, Val: []float32{1, 2}}
	want := math.Exp(-2) - math.Exp(-8) // ‖SV_0 − x‖² = 1 + 1, ‖SV_1 − x‖² = 4 + 4
	if d := m.DecisionVec(x); math.Abs(d-want) > 1e-6 {
		t.Errorf("decision %g, want %g", d, want)
	}
}
