package svm

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
)

// blobs3 draws n points in d dimensions from c Gaussian classes (unit
// noise, centres 2.5 apart along the axes), class i%c for point i.
func blobsC(n, d, c int, seed uint64) ClassProblem {
	rng := newRNG(seed)
	p := ClassProblem{N: n, D: d, C: c, Y: make([]int, n)}
	for i := 0; i < n; i++ {
		cl := i % c
		p.Y[i] = cl
		for j := 0; j < d; j++ {
			v := rng.NormFloat64()
			if j == cl%d {
				v += 2.5
			}
			if j == (cl+1)%d && cl >= d {
				v -= 2.5
			}
			p.X = append(p.X, float32(v))
		}
	}
	return p
}

func foldAssignment(folds []Fold, n int) []int {
	f := make([]int, n)
	for k, fd := range folds {
		for _, i := range fd.Validation {
			f[i] = k
		}
	}
	return f
}

// TestFolds: the fold assignments of KFold and StratifiedKFold without
// shuffling equal scikit-learn 1.2's (values from KFold(3) and
// StratifiedKFold(3) on the same labels), each point validates exactly once
// and trains in the other folds; shuffled folds keep the class counts.
func TestFolds(t *testing.T) {
	y := []int{2, 0, 1, 1, 0, 2, 2, 0, 1, 2, 2, 0, 1, 1, 2, 0, 0, 2, 1, 2, 2, 1, 0}
	sf, err := StratifiedKFold(y, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := foldAssignment(sf, len(y)), []int{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("StratifiedKFold: %v, scikit-learn %v", got, want)
	}
	kf, err := KFold(10, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := foldAssignment(kf, 10), []int{0, 0, 0, 0, 1, 1, 1, 2, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("KFold: %v, scikit-learn %v", got, want)
	}
	shuffled, err := StratifiedKFold(y, 3, newRNG(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, folds := range [][]Fold{sf, kf, shuffled} {
		n := len(folds[0].Train) + len(folds[0].Validation)
		seen := make([]int, n)
		for _, fd := range folds {
			if len(fd.Train)+len(fd.Validation) != n {
				t.Fatalf("fold of %d + %d points, want %d", len(fd.Train), len(fd.Validation), n)
			}
			for _, i := range fd.Validation {
				seen[i]++
				if slices.Contains(fd.Train, i) {
					t.Fatalf("point %d both trains and validates", i)
				}
			}
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("point %d validates %d times", i, c)
			}
		}
	}
	for k, fd := range shuffled {
		count := map[int]int{}
		for _, i := range fd.Validation {
			count[y[i]]++
		}
		want := map[int]int{}
		for _, i := range sf[k].Validation {
			want[y[i]]++
		}
		if fmt.Sprint(count) != fmt.Sprint(want) {
			t.Errorf("shuffled fold %d: class counts %v, unshuffled %v", k, count, want)
		}
	}
	for _, k := range []int{1, 24} {
		if _, err := StratifiedKFold(y, k, nil); err == nil {
			t.Errorf("StratifiedKFold k=%d: no error", k)
		}
		if _, err := KFold(len(y), k, nil); err == nil {
			t.Errorf("KFold k=%d: no error", k)
		}
	}
}

// TestKernelMatrix: the entries agree with Eval, the matrix is exactly
// symmetric with the exact diagonal, and KernelMatrix.SMO / SMOSVR on a
// subset agree with SMO / SMOSVR on a copy of those points.
func TestKernelMatrix(t *testing.T) {
	p := ringnorm(300, 7, newRNG(3))
	standardize(p)
	for _, k := range []kernel.Kernel{kernel.RBF{Gamma: 0.2}, kernel.Linear{}, kernel.Poly{Gamma: 0.3, Coef0: 1, Degree: 2}} {
		t.Run(k.Spec().Name, func(t *testing.T) {
			m := NewKernelMatrix(k, p.X, p.N, p.D)
			for i := 0; i < p.N; i++ {
				if m.At(i, i) != float32(k.Eval(p.row(i), p.row(i))) {
					t.Fatalf("K_%d%d = %g, Eval %g", i, i, m.At(i, i), k.Eval(p.row(i), p.row(i)))
				}
				for j := 0; j < p.N; j += 7 {
					want := k.Eval(p.row(i), p.row(j))
					if d := math.Abs(float64(m.At(i, j)) - want); d > 1e-5*math.Max(1, math.Abs(want)) {
						t.Fatalf("K_%d,%d = %g, Eval %g", i, j, m.At(i, j), want)
					}
					if m.At(i, j) != m.At(j, i) {
						t.Fatalf("K_%d,%d = %g ≠ K_%d,%d = %g", i, j, m.At(i, j), j, i, m.At(j, i))
					}
				}
			}
			var idx []int
			for i := 0; i < p.N; i++ {
				if i%3 != 0 {
					idx = append(idx, i)
				}
			}
			sub := Problem{N: len(idx), D: p.D}
			var z []float64
			for _, i := range idx {
				sub.X = append(sub.X, p.row(i)...)
				sub.Y = append(sub.Y, p.Y[i])
				z = append(z, float64(p.Y[i])+0.3*float64(p.X[i*p.D]))
			}
			cfg := SMOConfig{C: 2, Eps: 1e-6}
			mm, err := m.SMO(context.Background(), idx, sub.Y, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			ref := mustSMO(t, sub, k, cfg)
			if d := relDiff(objective(t, mm), objective(t, ref)); d > 1e-6 {
				t.Errorf("KernelMatrix.SMO objective %.10g, SMO %.10g", objective(t, mm), objective(t, ref))
			}
			for i := 0; i < p.N; i += 5 {
				if d := math.Abs(mm.Decision(p.row(i)) - ref.Decision(p.row(i))); d > 1e-4 {
					t.Fatalf("point %d: decision %g, SMO's %g", i, mm.Decision(p.row(i)), ref.Decision(p.row(i)))
				}
			}
			rp := RegProblem{X: sub.X, N: sub.N, D: sub.D, Y: z}
			scfg := SMOSVRConfig{C: 2, Epsilon: 0.1, Eps: 1e-6}
			sm, err := m.SMOSVR(context.Background(), idx, z, scfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			sref, err := SMOSVR(context.Background(), rp, k, scfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := relDiff(objective(t, sm), objective(t, sref)); d > 1e-6 {
				t.Errorf("KernelMatrix.SMOSVR objective %.10g, SMOSVR %.10g", objective(t, sm), objective(t, sref))
			}
		})
	}
	m := NewKernelMatrix(kernel.RBF{Gamma: 1}, p.X, p.N, p.D)
	ctx := context.Background()
	for _, c := range []struct {
		idx []int
		y   []float32
	}{{[]int{0}, []float32{1}}, {[]int{0, 300}, []float32{1, -1}}, {[]int{0, 1}, []float32{1}}, {[]int{0, 1}, []float32{1, 1}}, {[]int{0, 1}, []float32{1, 0}}} {
		if _, err := m.SMO(ctx, c.idx, c.y, SMOConfig{}, nil); err == nil {
			t.Errorf("KernelMatrix.SMO(%v, %v): no error", c.idx, c.y)
		}
	}
	if _, err := m.SMOSVR(ctx, []int{0, 1}, []float64{1, math.NaN()}, SMOSVRConfig{}, nil); err == nil {
		t.Error("KernelMatrix.SMOSVR with a NaN target: no error")
	}
}

// refGridAccuracy is the one-vs-one cross-validation accuracy of GridSMO
// computed the plain way: SMO on a copy of every pair's training points,
// Model.Decision on every validation point, votes.
func refGridAccuracy(t *testing.T, p ClassProblem, k kernel.Kernel, c float64, fd Fold, eps float64) float64 {
	pairs := p.C * (p.C - 1) / 2
	dec := make([][]float64, pairs)
	for q := range dec {
		a, b := PairClasses(q, p.C)
		sub := Problem{D: p.D}
		for _, i := range fd.Train {
			if p.Y[i] == a || p.Y[i] == b {
				sub.X = append(sub.X, p.X[i*p.D:(i+1)*p.D]...)
				sub.Y = append(sub.Y, map[bool]float32{true: 1, false: -1}[p.Y[i] == a])
				sub.N++
			}
		}
		m := mustSMO(t, sub, k, SMOConfig{C: c, Eps: eps})
		for _, i := range fd.Validation {
			dec[q] = append(dec[q], m.Decision(p.X[i*p.D:(i+1)*p.D]))
		}
	}
	return voteAccuracy(dec, fd.Validation, p.Y, p.C)
}

// TestGridSMO: the scores equal those of independent SMO fits with the
// vote computed the plain way, with and without warm starts, with and
// without the kernel matrix, for any number of workers; Best is the
// highest score.
func TestGridSMO(t *testing.T) {
	p := blobsC(240, 3, 4, 5)
	folds, err := StratifiedKFold(p.Y, 3, newRNG(2))
	if err != nil {
		t.Fatal(err)
	}
	ks := []kernel.Kernel{kernel.RBF{Gamma: 0.1}, kernel.RBF{Gamma: 1}, kernel.RBF{Gamma: 10}}
	cs := []float64{10, 0.1, 1}
	const eps = 1e-6
	ref := make([]float64, len(ks)*len(cs))
	for ki, k := range ks {
		for ci, c := range cs {
			for _, fd := range folds {
				ref[ki*len(cs)+ci] += refGridAccuracy(t, p, k, c, fd, eps) / float64(len(folds))
			}
		}
	}
	t.Logf("independent fits: %.4f", ref)
	var first *GridResult
	for _, cfg := range []GridConfig{
		{SMO: SMOConfig{Eps: eps}, Workers: 1},
		{SMO: SMOConfig{Eps: eps}, Workers: 3},
		{SMO: SMOConfig{Eps: eps}, NoWarmStart: true},
		{SMO: SMOConfig{Eps: eps}, Workers: 2},
		{SMO: SMOConfig{Eps: eps, NoShrinking: true}},
	} {
		r, err := GridSMO(context.Background(), p, ks, cs, folds, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Matrix || r.Fits != len(ks)*len(cs)*len(folds)*6 {
			t.Errorf("%+v: matrix %v, %d fits", cfg, r.Matrix, r.Fits)
		}
		for i, s := range r.Score {
			// A validation point within rounding of a decision boundary may
			// vote differently: allow one point per fold.
			if math.Abs(s-ref[i]) > 1.01/80 {
				k, c, _ := r.Params(i)
				t.Errorf("%+v: %v C=%g: score %.4f, independent fits %.4f", cfg, k, c, s, ref[i])
			}
		}
		for i, s := range r.Score {
			if s > r.Score[r.Best] {
				t.Errorf("score %d = %g beats Best %d = %g", i, s, r.Best, r.Score[r.Best])
			}
		}
		if first == nil {
			first = r
		} else if cfg.Workers == 3 && !slices.Equal(first.Score, r.Score) {
			t.Errorf("3 workers: scores %v, 1 worker %v", r.Score, first.Score)
		}
	}
	// Without the kernel matrix (it does not fit into 1 MB): fits on copies
	// of the points, the same scores.
	big := blobsC(600, 3, 3, 6)
	bf, _ := StratifiedKFold(big.Y, 3, nil)
	withM, err := GridSMO(context.Background(), big, ks[:2], cs, bf, GridConfig{SMO: SMOConfig{Eps: eps}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	noM, err := GridSMO(context.Background(), big, ks[:2], cs, bf, GridConfig{SMO: SMOConfig{Eps: eps}, MatrixMB: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if noM.Matrix || !withM.Matrix {
		t.Fatalf("matrix use: %v with 1 MB, %v with 1 GB", noM.Matrix, withM.Matrix)
	}
	for i := range withM.Score {
		if math.Abs(withM.Score[i]-noM.Score[i]) > 1.01/200 {
			t.Errorf("score %d: %.4f with the matrix, %.4f without", i, withM.Score[i], noM.Score[i])
		}
	}
}

// TestProblemClassProblem: the single head FitOneVsOne fits on a binary
// problem's ClassProblem is SMO's model of the problem.
func TestProblemClassProblem(t *testing.T) {
	p := ringnorm(200, 4, newRNG(6))
	cp := p.ClassProblem()
	if err := cp.Validate(); err != nil {
		t.Fatal(err)
	}
	heads, err := FitOneVsOne(context.Background(), cp, kernel.RBF{Gamma: 0.3}, 1, GridConfig{SMO: SMOConfig{Eps: 1e-6}})
	if err != nil {
		t.Fatal(err)
	}
	ref := mustSMO(t, p, kernel.RBF{Gamma: 0.3}, SMOConfig{C: 1, Eps: 1e-6})
	for i := 0; i < p.N; i += 3 {
		if d := math.Abs(heads[0].Decision(p.row(i)) - ref.Decision(p.row(i))); d > 1e-4 {
			t.Fatalf("point %d: head decision %g, SMO %g", i, heads[0].Decision(p.row(i)), ref.Decision(p.row(i)))
		}
	}
}

// TestClassProblemPair: the one-vs-one problem of classes (a, b) holds
// their points in order, a as +1 and b as −1, with their rows and weights;
// dense and sparse rows give the same problem.
func TestClassProblemPair(t *testing.T) {
	p := blobsC(12, 3, 3, 4)
	p.W = make([]float32, p.N)
	for i := range p.W {
		p.W[i] = float32(i) + 0.5
	}
	sp := p
	sp.X, sp.Sparse = nil, data.ToCSR(p.X, p.N, p.D)
	for _, ab := range [][2]int{{0, 1}, {2, 0}} {
		a, b := ab[0], ab[1]
		q := p.Pair(a, b)
		if err := q.Validate(); err != nil {
			t.Fatal(err)
		}
		var want []int
		for i, c := range p.Y {
			if c == a || c == b {
				want = append(want, i)
			}
		}
		if q.N != len(want) || q.D != p.D || q.Sparse != nil {
			t.Fatalf("pair (%d, %d): N = %d, D = %d, sparse %v; want %d points of %d", a, b, q.N, q.D, q.Sparse != nil, len(want), p.D)
		}
		qs := sp.Pair(a, b)
		for k, i := range want {
			wy := float32(-1)
			if p.Y[i] == a {
				wy = 1
			}
			if q.Y[k] != wy || q.W[k] != p.W[i] || !slices.Equal(q.row(k), p.X[i*p.D:(i+1)*p.D]) {
				t.Fatalf("pair (%d, %d), point %d: y %g w %g x %v; want point %d: y %g w %g x %v", a, b, k, q.Y[k], q.W[k], q.row(k), i, wy, p.W[i], p.X[i*p.D:(i+1)*p.D])
			}
			row := make([]float32, p.D)
			qs.Sparse.Row(k).Scatter(row)
			if qs.Y[k] != wy || qs.W[k] != p.W[i] || !slices.Equal(row, q.row(k)) {
				t.Fatalf("pair (%d, %d), point %d: the sparse problem differs from the dense one", a, b, k)
			}
		}
	}
}

// TestGridSMOBinaryWeights: a two-class problem has one head; class weights
// change the fits as SMO's WeightPos/WeightNeg do.
func TestGridSMOBinaryWeights(t *testing.T) {
	p := blobsC(200, 2, 2, 8)
	folds, _ := KFold(p.N, 4, newRNG(1))
	ks := []kernel.Kernel{kernel.RBF{Gamma: 0.5}}
	w := []float64{3, 0.5}
	r, err := GridSMO(context.Background(), p, ks, []float64{0.3}, folds, GridConfig{SMO: SMOConfig{Eps: 1e-6}, ClassWeights: w}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	for _, fd := range folds {
		sub := Problem{D: p.D}
		for _, i := range fd.Train {
			sub.X = append(sub.X, p.X[i*p.D:(i+1)*p.D]...)
			sub.Y = append(sub.Y, float32(1-2*p.Y[i]))
			sub.N++
		}
		m := mustSMO(t, sub, ks[0], SMOConfig{C: 0.3, Eps: 1e-6, WeightPos: w[0], WeightNeg: w[1]})
		ok := 0
		for _, i := range fd.Validation {
			if (m.Decision(p.X[i*p.D:(i+1)*p.D]) >= 0) == (p.Y[i] == 0) {
				ok++
			}
		}
		want += float64(ok) / float64(len(fd.Validation)) / float64(len(folds))
	}
	if math.Abs(r.Score[0]-want) > 1.01/50 {
		t.Errorf("weighted score %.4f, SMO with weights %.4f", r.Score[0], want)
	}
}

// TestGridSMOSVR: the validation MSEs equal those of independent SMOSVR
// fits; warm starts and the fallback without a matrix change nothing beyond
// the tolerance.
func TestGridSMOSVR(t *testing.T) {
	p := sine(240, 1, 4)
	folds, _ := KFold(p.N, 3, newRNG(3))
	ks := []kernel.Kernel{kernel.RBF{Gamma: 0.5}, kernel.RBF{Gamma: 3}}
	cs := []float64{1, 0.1, 10}
	es := []float64{0.1, -1}
	const eps = 1e-7
	for _, cfg := range []GridConfig{{SMO: SMOConfig{Eps: eps}}, {SMO: SMOConfig{Eps: eps}, NoWarmStart: true}, {SMO: SMOConfig{Eps: eps}, MatrixMB: -1, Workers: 1}} {
		r, err := GridSMOSVR(context.Background(), p, ks, cs, es, folds, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		best := math.Inf(1)
		for ki, k := range ks {
			for ci, c := range cs {
				for ei, e := range es {
					var mse float64
					for _, fd := range folds {
						sub := RegProblem{D: p.D}
						for _, i := range fd.Train {
							sub.X = append(sub.X, p.row(i)...)
							sub.Y = append(sub.Y, p.Y[i])
							sub.N++
						}
						m, err := SMOSVR(context.Background(), sub, k, SMOSVRConfig{C: c, Epsilon: e, Eps: eps}, nil)
						if err != nil {
							t.Fatal(err)
						}
						var se float64
						for _, i := range fd.Validation {
							d := m.Decision(p.row(i)) - p.Y[i]
							se += d * d
						}
						mse += se / float64(len(fd.Validation)) / float64(len(folds))
					}
					got := r.Score[r.Index(ki, ci, ei)]
					if relDiff(got, mse) > 1e-4 {
						t.Errorf("%+v: %v C=%g ε=%g: MSE %.6g, independent fits %.6g", cfg, k.Spec(), c, e, got, mse)
					}
					best = min(best, got)
				}
			}
		}
		if r.Score[r.Best] != best {
			t.Errorf("Best %d has MSE %g, the lowest is %g", r.Best, r.Score[r.Best], best)
		}
	}
	r, err := GridSMOSVR(context.Background(), p, ks[:1], cs, es, folds, GridConfig{SMO: SMOConfig{Eps: eps}, MatrixMB: -1}, nil)
	if err != nil || r.Matrix {
		t.Fatalf("without matrix: %v, matrix %v", err, r != nil && r.Matrix)
	}
	ref, _ := GridSMOSVR(context.Background(), p, ks[:1], cs, es, folds, GridConfig{SMO: SMOConfig{Eps: eps}}, nil)
	for i := range r.Score {
		if relDiff(r.Score[i], ref.Score[i]) > 1e-4 {
			t.Errorf("MSE %d: %g without the matrix, %g with", i, r.Score[i], ref.Score[i])
		}
	}
}

// TestFitOneVsOne: the heads are SMO's on the pairs' points, in LIBSVM's
// order, with or without the kernel matrix.
func TestFitOneVsOne(t *testing.T) {
	p := blobsC(150, 3, 3, 9)
	k := kernel.RBF{Gamma: 0.5}
	for _, mb := range []int{0, -1} {
		heads, err := FitOneVsOne(context.Background(), p, k, 2, GridConfig{SMO: SMOConfig{Eps: 1e-6}, MatrixMB: mb})
		if err != nil {
			t.Fatal(err)
		}
		if len(heads) != 3 {
			t.Fatalf("%d heads for 3 classes", len(heads))
		}
		for q, h := range heads {
			a, b := PairClasses(q, p.C)
			sub := Problem{D: p.D}
			for i, c := range p.Y {
				if c == a || c == b {
					sub.X = append(sub.X, p.X[i*p.D:(i+1)*p.D]...)
					sub.Y = append(sub.Y, map[bool]float32{true: 1, false: -1}[c == a])
					sub.N++
				}
			}
			ref := mustSMO(t, sub, k, SMOConfig{C: 2, Eps: 1e-6})
			if d := relDiff(objective(t, h), objective(t, ref)); d > 1e-6 {
				t.Errorf("MatrixMB %d, head (%d,%d): objective %.10g, SMO %.10g", mb, a, b, objective(t, h), objective(t, ref))
			}
		}
	}
}

func TestGridErrors(t *testing.T) {
	p := blobsC(60, 2, 3, 1)
	folds, _ := KFold(p.N, 3, nil)
	ks := []kernel.Kernel{kernel.RBF{Gamma: 1}}
	ctx := context.Background()
	bad := []struct {
		name  string
		ks    []kernel.Kernel
		cs    []float64
		folds []Fold
		cfg   GridConfig
	}{
		{"no kernels", nil, []float64{1}, folds, GridConfig{}},
		{"nil kernel", []kernel.Kernel{nil}, []float64{1}, folds, GridConfig{}},
		{"no C", ks, nil, folds, GridConfig{}},
		{"C=0", ks, []float64{0}, folds, GridConfig{}},
		{"C=NaN", ks, []float64{math.NaN()}, folds, GridConfig{}},
		{"no folds", ks, []float64{1}, nil, GridConfig{}},
		{"index out of range", ks, []float64{1}, []Fold{{Train: []int{0, 1, 2}, Validation: []int{60}}}, GridConfig{}},
		{"empty validation", ks, []float64{1}, []Fold{{Train: []int{0, 1, 2}}}, GridConfig{}},
		{"weights", ks, []float64{1}, folds, GridConfig{ClassWeights: []float64{1, 2}}},
		{"negative weight", ks, []float64{1}, folds, GridConfig{ClassWeights: []float64{1, -2, 1}}},
		{"workers", ks, []float64{1}, folds, GridConfig{Workers: -1}},
		{"eps", ks, []float64{1}, folds, GridConfig{SMO: SMOConfig{Eps: -1}}},
	}
	for _, c := range bad {
		if _, err := GridSMO(ctx, p, c.ks, c.cs, c.folds, c.cfg, nil); err == nil {
			t.Errorf("GridSMO %s: no error", c.name)
		}
	}
	rp := sine(60, 0, 1)
	if _, err := GridSMOSVR(ctx, rp, ks, []float64{1}, nil, folds, GridConfig{}, nil); err == nil {
		t.Error("GridSMOSVR without ε: no error")
	}
	if _, err := GridSMOSVR(ctx, rp, ks, []float64{1}, []float64{math.Inf(1)}, folds, GridConfig{}, nil); err == nil {
		t.Error("GridSMOSVR with ε = Inf: no error")
	}
	p.Y[0] = 7
	if _, err := GridSMO(ctx, p, ks, []float64{1}, folds, GridConfig{}, nil); err == nil {
		t.Error("class index 7 of 3: no error")
	}
	p.Y[0] = 0
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := GridSMO(cctx, p, ks, []float64{1}, folds, GridConfig{}, nil); err == nil {
		t.Error("cancelled context: no error")
	}
	calls := 0
	if _, err := GridSMO(ctx, p, ks, []float64{1, 2}, folds, GridConfig{}, func(Progress) { calls++ }); err != nil || calls != 9 {
		t.Errorf("progress: %d calls (want 3 folds × 3 pairs), err %v", calls, err)
	}
}

// TestKernelMatrixGridSMO: the grid search on the points' own kernel matrix
// and on the same values given (NewGramMatrix) scores every fold and C as
// GridSMO on the points, with and without point weights and a custom score;
// misuse is an error.
func TestKernelMatrixGridSMO(t *testing.T) {
	ctx := context.Background()
	p := blobsC(180, 3, 3, 8)
	folds, err := StratifiedKFold(p.Y, 3, newRNG(4))
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.RBF{Gamma: 0.5}
	cs := []float64{1, 0.1, 10}
	km := NewKernelMatrix(k, p.X, p.N, p.D)
	gram, err := NewGramMatrix(km.k, p.N)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float32, p.N)
	for i := range w {
		w[i] = float32(1 + i%3)
	}
	score := func(f int, dec [][]float64) float64 { return dec[0][0] + float64(f) }
	for _, tc := range []struct {
		name string
		w    []float32
		cfg  GridConfig
	}{
		{"plain", nil, GridConfig{SMO: SMOConfig{Eps: 1e-5}}},
		{"weights", w, GridConfig{SMO: SMOConfig{Eps: 1e-5}, ClassWeights: []float64{1, 2, 0.5}}},
		{"score", nil, GridConfig{Score: score, Workers: 1}},
	} {
		q := p
		q.W = tc.w
		want, err := GridSMO(ctx, q, []kernel.Kernel{k}, cs, folds, tc.cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		labels := ClassProblem{N: p.N, Y: p.Y, C: p.C, W: tc.w}
		for name, m := range map[string]*KernelMatrix{"computed": km, "given": gram} {
			got, err := m.GridSMO(ctx, labels, cs, folds, tc.cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got.FoldScore, want.FoldScore, slices.Equal) || got.Best != want.Best || got.Fits != want.Fits {
				t.Errorf("%s, %s matrix: fold scores %v (best %d, %d fits), GridSMO on the points %v (best %d, %d fits)",
					tc.name, name, got.FoldScore, got.Best, got.Fits, want.FoldScore, want.Best, want.Fits)
			}
			if len(got.Kernels) != 1 || got.Kernels[0] != m.Kernel {
				t.Errorf("%s, %s matrix: kernels %v", tc.name, name, got.Kernels)
			}
		}
	}
	for _, bad := range []struct {
		p     ClassProblem
		cs    []float64
		folds []Fold
	}{
		{ClassProblem{X: p.X, N: p.N, D: p.D, Y: p.Y, C: p.C}, cs, folds},
		{ClassProblem{N: p.N - 1, Y: p.Y[1:], C: p.C}, cs, folds},
		{ClassProblem{N: p.N, Y: p.Y, C: 5}, cs, folds},
		{ClassProblem{N: p.N, Y: p.Y, C: p.C}, nil, folds},
		{ClassProblem{N: p.N, Y: p.Y, C: p.C}, []float64{1, -1}, folds},
		{ClassProblem{N: p.N, Y: p.Y, C: p.C}, cs, []Fold{{Train: []int{0, 1}, Validation: []int{p.N}}}},
	} {
		if _, err := gram.GridSMO(ctx, bad.p, bad.cs, bad.folds, GridConfig{}, nil); err == nil {
			t.Errorf("N=%d C=%d, cs %v: no error", bad.p.N, bad.p.C, bad.cs)
		}
	}
}

// TestGridSMOHoldout: on a hold-out whose validation points come last, the
// grid's kernel matrix holds only the training points' columns (4·N·T
// bytes, so it fits where the N×N matrix would not), its values are the
// Gram matrix's, and the scores are those of fits without a matrix.
func TestGridSMOHoldout(t *testing.T) {
	const n, tr = 600, 400
	p := blobsC(n, 3, 3, 9)
	sp := sparseClass(p)
	fold := Fold{}
	for i := range n {
		if i < tr {
			fold.Train = append(fold.Train, i)
		} else {
			fold.Validation = append(fold.Validation, i)
		}
	}
	folds := []Fold{fold}
	for _, k := range sparseKernels() {
		for _, pp := range []ClassProblem{p, sp} {
			sq := newKernelMatrix(k, pp.rows(), n, nil)
			rect := newKernelMatrix(k, pp.rows(), tr, nil)
			for i := range n {
				a, b := sq.Row(i)[:tr], rect.Row(i)
				if len(b) != tr || !slices.Equal(a, b) {
					t.Fatalf("%s sparse %v: row %d of the %d-column matrix differs from the Gram matrix's", k.Spec(), pp.Sparse != nil, i, tr)
				}
			}
		}
	}
	ks := []kernel.Kernel{kernel.RBF{Gamma: 0.3}, kernel.Poly{Gamma: 0.5, Coef0: 1, Degree: 2}}
	cs := []float64{0.3, 3}
	for _, pp := range []ClassProblem{p, sp} {
		var buf []float32
		// 4·600·400 bytes fit in 1 MB, 4·600² do not.
		withM, err := GridSMO(context.Background(), pp, ks, cs, folds, GridConfig{SMO: SMOConfig{Eps: 1e-6}, MatrixMB: 1, Buffer: &buf}, nil)
		if err != nil {
			t.Fatal(err)
		}
		noM, err := GridSMO(context.Background(), pp, ks, cs, folds, GridConfig{SMO: SMOConfig{Eps: 1e-6}, MatrixMB: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !withM.Matrix || len(buf) != n*tr {
			t.Fatalf("sparse %v: matrix %v, %d values, want %d", pp.Sparse != nil, withM.Matrix, len(buf), n*tr)
		}
		for i := range withM.Score {
			if math.Abs(withM.Score[i]-noM.Score[i]) > 1.01/(n-tr) {
				t.Errorf("sparse %v, score %d: %.4f with the matrix, %.4f without", pp.Sparse != nil, i, withM.Score[i], noM.Score[i])
			}
		}
		// A training point last: every point has a column, which no longer fits.
		f2 := []Fold{{Train: append(slices.Clone(fold.Train[:tr-1]), n-1), Validation: fold.Validation[:n-tr-1]}}
		r, err := GridSMO(context.Background(), pp, ks, cs, f2, GridConfig{SMO: SMOConfig{Eps: 1e-6}, MatrixMB: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Matrix {
			t.Errorf("sparse %v: a %d×%d matrix counted within 1 MB", pp.Sparse != nil, n, n)
		}
	}
}
