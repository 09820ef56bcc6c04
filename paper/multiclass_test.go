package paper

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/safetensors"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
)

// shells draws n points in d dimensions from c classes: class j ~ N(μ_j,
// s_j²·I) with scales s_j = 2^(j/2) and, for odd j, the mean shifted by 1.5
// along the first axis, so that classes differ in norm and position (a
// multiclass cousin of Ringnorm). Labels are 10·j + 1 (not class indices).
func shells(n, d, c int, seed uint64) ClassProblem {
	rng := rand.New(rand.NewPCG(seed, 3))
	p := ClassProblem{svm.ClassProblem{X: make([]float32, n*d), N: n, D: d, Y: make([]int, n), C: c}, make([]float64, c)}
	for j := range p.Labels {
		p.Labels[j] = float64(10*j + 1)
	}
	for i := 0; i < n; i++ {
		j := i % c
		p.Y[i] = j
		s := math.Pow(2, float64(j))
		for q := 0; q < d; q++ {
			v := s * rng.NormFloat64()
			if q == 0 && j%2 == 1 {
				v += 1.5
			}
			p.X[i*d+q] = float32(v)
		}
	}
	return p
}

func classAccuracy(m *model.Model, p ClassProblem) float64 {
	pred := make([]float64, p.N)
	m.PredictBatch(pred, p.X, p.N)
	ok := 0
	for i, v := range pred {
		if v == p.classes()[p.Y[i]] {
			ok++
		}
	}
	return float64(ok) / float64(p.N)
}

func TestTargetAlignmentMatchesBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const k = 6
	z := make([]float32, k*3)
	for i := range z {
		z[i] = float32(rng.NormFloat64())
	}
	K := make([]float64, k*k)
	gram(K, kernel.RBF{Gamma: 0.3}, z, k, 3, make([]float32, k*k))
	y := []float32{1, -1, -1, 1, 1, -1}
	cls := []int{1, 0, 0, 1, 1, 0}
	tgt := make([]float64, k*k)
	classTarget(cls, 2)(tgt, []int{0, 1, 2, 3, 4, 5})
	g1, g2 := make([]float64, k*k), make([]float64, k*k)
	a1 := alignment(K, y, g1, 0.7)
	a2 := targetAlignment(K, tgt, g2, 0.7)
	if math.Abs(a1-a2) > 1e-12 {
		t.Errorf("alignment %g, target alignment %g", a1, a2)
	}
	for i := range g1 {
		if math.Abs(g1[i]-g2[i]) > 1e-12 {
			t.Fatalf("gradient %d: %g vs %g", i, g1[i], g2[i])
		}
	}
	// The multiclass target is the Gram matrix of simplex codes: rows of
	// a batch with every class once sum to 0, and it is PSD of rank C−1.
	tgt3 := make([]float64, 9)
	classTarget([]int{0, 1, 2}, 3)(tgt3, []int{0, 1, 2})
	want := []float64{1, -0.5, -0.5, -0.5, 1, -0.5, -0.5, -0.5, 1}
	if !slices.Equal(tgt3, want) {
		t.Errorf("3-class target %v, want %v", tgt3, want)
	}
	if targetAlignment(K, make([]float64, k*k), nil, 0) != 0 {
		t.Error("alignment with a zero target is not 0")
	}
}

// TestMulticlassAlignmentGradient checks ∂𝓛(1, A)/∂θ with the multiclass
// target against finite differences, through the trainer's own step.
func TestMulticlassAlignmentGradient(t *testing.T) {
	for name, k := range gradKernels {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, 22))
			const d, n, kb = 4, 3, 6
			f := newTanhMap(d, n, rng)
			xb := make([]float32, kb*d)
			for i := range xb {
				xb[i] = float32(rng.NormFloat64())
			}
			cls := []int{0, 1, 2, 2, 0, 1}
			idx := []int{0, 1, 2, 3, 4, 5}
			tgt := make([]float64, kb*kb)
			classTarget(cls, 3)(tgt, idx)
			gramOf := func(z []float32) []float64 {
				K := make([]float64, kb*kb)
				gram(K, k, z, kb, n, make([]float32, kb*kb))
				return K
			}
			obj := func() float64 {
				l, _ := SquaredAlignLoss(targetAlignment(gramOf(feats(f, xb, kb)), tgt, nil, 0))
				return l
			}
			fdCheck(t, f, obj, func() {
				z := append([]float32(nil), f.Forward(xb, kb, true)...)
				K := gramOf(z)
				_, dl := SquaredAlignLoss(targetAlignment(K, tgt, nil, 0))
				g := make([]float64, kb*kb)
				targetAlignment(K, tgt, g, dl)
				dz := make([]float32, kb*n)
				addGramGrad(dz, k, z, kb, n, K, g, make([]float32, kb*kb), make([]float64, kb))
				f.Backward(dz)
			})
		})
	}
}

func multiclassConfig(scheme string) MulticlassConfig {
	return MulticlassConfig{Alg4Config: Alg4Config{
		Config: Config{Lambda: 1e-4, T: 400, Kernel: kernel.Spec{Name: "rbf", Gamma: 1},
			Opt: OptConfig{LR: 1e-2, Momentum: 0.9, WeightDecay: 1e-4}},
		Batch: 32, Part2: Part2Config{Lambda: 1e-4, T: 4000}}, Scheme: scheme}
}

// TestMulticlassLearns: TrainMulticlass separates four classes that differ
// in norm and position, one-vs-rest and one-vs-one, far above chance (25 %)
// and the untrained network's features (72.5 %; an RBF-SVM on the inputs
// with γ, C tuned on the test set reaches 85 %, the NSVM about 86 %).
func TestMulticlassLearns(t *testing.T) {
	train, test := shells(1200, 10, 4, 1), shells(800, 10, 4, 2)
	for _, scheme := range []string{model.OneVsRest, model.OneVsOne} {
		t.Run(scheme, func(t *testing.T) {
			cfg := multiclassConfig(scheme)
			net := newNet(t, "dense(40),relu,dense(20),relu", train.D, 4)
			m, err := TrainMulticlass(context.Background(), net, train, cfg, Options{Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Heads) != model.HeadCount(scheme, 4) || m.Head != m.Heads[0] || !slices.Equal(m.Classes, train.Labels) {
				t.Fatalf("%d heads, classes %v", len(m.Heads), m.Classes)
			}
			acc := classAccuracy(m, test)
			t.Logf("%s: test accuracy %.2f%%", scheme, 100*acc)
			if acc < 0.82 {
				t.Errorf("test accuracy %.3f < 0.82", acc)
			}
			for i := 0; i < 5; i++ {
				x := test.X[i*test.D : (i+1)*test.D]
				var b [1]float64
				m.PredictBatch(b[:], x, 1)
				if m.Predict(x) != b[0] {
					t.Fatal("Predict and PredictBatch disagree")
				}
			}
		})
	}
}

// TestMulticlassSaveLoad: a multiclass model survives Save/Load with the
// same predictions and scores, and the file has the documented layout.
func TestMulticlassSaveLoad(t *testing.T) {
	train, test := shells(300, 6, 3, 3), shells(100, 6, 3, 4)
	for _, scheme := range []string{model.OneVsRest, model.OneVsOne} {
		cfg := multiclassConfig(scheme)
		cfg.T, cfg.Part2.T = 30, 500
		m, err := TrainMulticlass(context.Background(), newNet(t, "dense(8),relu", train.D, 1), train, cfg, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		m.Mean, m.Std = make([]float64, train.D), make([]float64, train.D)
		for i := range m.Std {
			m.Mean[i], m.Std[i] = 0.1, 1.5
		}
		path, l := saveLoad(t, m)
		if !l.Multiclass() || l.Scheme != scheme || !slices.Equal(l.Classes, m.Classes) || len(l.Heads) != len(m.Heads) {
			t.Fatalf("loaded %s model with classes %v and %d heads", l.Scheme, l.Classes, len(l.Heads))
		}
		nc := len(m.Classes)
		s1, s2 := make([]float64, test.N*nc), make([]float64, test.N*nc)
		m.ClassScores(s1, test.X, test.N)
		l.ClassScores(s2, test.X, test.N)
		if !slices.Equal(s1, s2) {
			t.Fatalf("%s: scores differ after Save/Load", scheme)
		}
		if l.Info["part2_solver"] != "pegasos" || l.Info["classes"] != "" || l.Info["head.0.bias"] != "" {
			t.Errorf("Info after load: %v", l.Info)
		}
		f, err := safetensors.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := f.Tensors["sv"]; ok {
			t.Error("multiclass file has a binary sv tensor")
		}
		for _, key := range []string{"bias", "label_neg", "label_pos"} {
			if _, ok := f.Metadata[key]; ok {
				t.Errorf("multiclass file has binary metadata %q", key)
			}
		}
		if f.Metadata["multiclass"] != scheme || f.Metadata["heads"] == "" {
			t.Errorf("metadata %v", f.Metadata)
		}
		// Damaged files are refused with an error.
		raw, _ := os.ReadFile(path)
		for name, edit := range map[string]func(map[string]any){
			"heads":   setMeta("heads", "2"),
			"scheme":  setMeta("multiclass", "all"),
			"classes": setMeta("classes", "[3,1,2]"),
			"bias":    setMeta("head.1.bias", "NaN"),
			"json":    setMeta("classes", "{"),
		} {
			b := rewriteHeader(t, raw, func(h map[string]any) { edit(h) })
			if _, err := loadBytes(b); err == nil {
				t.Errorf("%s: damaged file (%s) loaded", scheme, name)
			}
		}
		if !bytes.Contains(raw, []byte(`"head.0.sv"`)) {
			t.Error("no head.0.sv tensor")
		}
	}
}

// TestFitHeadsWorkers: the heads do not depend on how many are fitted at
// once.
func TestFitHeadsWorkers(t *testing.T) {
	p := shells(300, 4, 3, 7)
	fit := Part2Fitter(kernel.Spec{Name: "rbf", Gamma: 0.5}, Part2Config{Lambda: 1e-3, T: 800}, true)
	for _, scheme := range []string{model.OneVsRest, model.OneVsOne} {
		a, err := FitHeads(context.Background(), p, scheme, 1, 9, fit, nil)
		if err != nil {
			t.Fatal(err)
		}
		var calls int
		b, err := FitHeads(context.Background(), p, scheme, 3, 9, fit, func(Progress) { calls++ })
		if err != nil {
			t.Fatal(err)
		}
		if calls != len(b) {
			t.Errorf("%d progress calls for %d heads", calls, len(b))
		}
		for h := range a {
			if !slices.Equal(a[h].Coef, b[h].Coef) || a[h].Bias != b[h].Bias || !slices.Equal(a[h].SV, b[h].SV) {
				t.Fatalf("%s head %d differs between 1 and 3 workers", scheme, h)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitHeads(ctx, p, model.OneVsRest, 1, 9, fit, nil); err == nil {
		t.Error("FitHeads ran with a cancelled context")
	}
}

func TestClassProblemValidate(t *testing.T) {
	good := shells(10, 2, 3, 1)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(*ClassProblem){
		"class out of range": func(p *ClassProblem) { p.Y = slices.Clone(p.Y); p.Y[0] = 3 },
		"missing class":      func(p *ClassProblem) { p.C = 4; p.Labels = nil },
		"one class":          func(p *ClassProblem) { p.C = 1 },
		"labels":             func(p *ClassProblem) { p.Labels = p.Labels[:2] },
		"nan":                func(p *ClassProblem) { p.X = slices.Clone(p.X); p.X[3] = float32(math.NaN()) },
		"sizes":              func(p *ClassProblem) { p.N = 9 },
	}
	for name, edit := range bad {
		p := good
		edit(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	cfg := multiclassConfig("all")
	if cfg.Validate() == nil {
		t.Error("unknown scheme accepted")
	}
}

// TestBinaryHelpersOnBinaryModels: Labels, ClassScores and PredictBatch
// agree with Predict on a binary model.
func TestBinaryHelpersOnBinaryModels(t *testing.T) {
	p, test := ringnormProblem(t, 200, 50, 8)
	m := train(t, 4, p, 20, 300, Options{Seed: 1})
	m.Head.Neg, m.Head.Pos = 3, 7
	if !slices.Equal(m.Labels(), []float64{3, 7}) || m.Multiclass() {
		t.Fatalf("labels %v", m.Labels())
	}
	pred := make([]float64, test.N)
	m.PredictBatch(pred, test.X, test.N)
	s := make([]float64, 2*test.N)
	m.ClassScores(s, test.X, test.N)
	for i := range pred {
		x := test.X[i*test.D : (i+1)*test.D]
		if pred[i] != m.Predict(x) || s[2*i] != -s[2*i+1] || (s[2*i+1] >= 0) != (pred[i] == 7) {
			t.Fatalf("row %d: PredictBatch %g, Predict %g, scores %g %g", i, pred[i], m.Predict(x), s[2*i], s[2*i+1])
		}
	}
}

// TestRandomShift: every augmented image is its original moved by at most
// max pixels along each axis with a zero border, and max = 0 changes
// nothing.
func TestRandomShift(t *testing.T) {
	const c, h, w = 2, 4, 5
	d := c * h * w
	orig := make([]float32, 3*d)
	for i := range orig {
		orig[i] = float32(i + 1)
	}
	shifted := func(img []float32, dy, dx int) []float32 {
		out := make([]float32, d)
		for ch := 0; ch < c; ch++ {
			for i := 0; i < h; i++ {
				for j := 0; j < w; j++ {
					if si, sj := i-dy, j-dx; si >= 0 && si < h && sj >= 0 && sj < w {
						out[(ch*h+i)*w+j] = img[(ch*h+si)*w+sj]
					}
				}
			}
		}
		return out
	}
	rng := rand.New(rand.NewPCG(1, 1))
	seen := map[[2]int]bool{}
	for rep := 0; rep < 30; rep++ {
		x := slices.Clone(orig)
		RandomShift(c, h, w, 1, nil)(x, 3, rng)
		for r := 0; r < 3; r++ {
			ok := false
			for dy := -1; dy <= 1 && !ok; dy++ {
				for dx := -1; dx <= 1 && !ok; dx++ {
					if slices.Equal(x[r*d:(r+1)*d], shifted(orig[r*d:(r+1)*d], dy, dx)) {
						ok = true
						seen[[2]int{dy, dx}] = true
					}
				}
			}
			if !ok {
				t.Fatalf("image %d is no shift of the original: %v", r, x[r*d:(r+1)*d])
			}
		}
	}
	if len(seen) != 9 {
		t.Errorf("%d of 9 shifts drawn in 90 images", len(seen))
	}
	x := slices.Clone(orig)
	RandomShift(c, h, w, 0, nil)(x, 3, rng)
	if !slices.Equal(x, orig) {
		t.Error("max = 0 changed the images")
	}
}

// ClassProblemOf indexes a data set's labels by its sorted classes; NumSV
// counts the distinct support vectors of the heads, as svm-train's
// total_sv: a point in two heads counts once.
func TestClassProblemOfAndNumSV(t *testing.T) {
	ds := &data.Dataset{X: []float32{1, 2, 3, 4}, Y: []float64{5, 2, 5, 9}, N: 4, D: 1}
	p := ClassProblemOf(ds)
	if p.C != 3 || !slices.Equal(p.Labels, []float64{2, 5, 9}) || !slices.Equal(p.Y, []int{1, 0, 1, 2}) || &p.X[0] != &ds.X[0] {
		t.Fatalf("ClassProblemOf: C %d, labels %v, Y %v", p.C, p.Labels, p.Y)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	bin := &model.Model{Head: &svm.Model{NSV: 5}}
	// Head 0 holds the points 1, 2, 3; head 1 the points 2, 3, 4, 5.
	multi := &model.Model{Heads: []*svm.Model{{NSV: 3, D: 1, SV: []float32{1, 2, 3}}, {NSV: 4, D: 1, SV: []float32{2, 3, 4, 5}}}}
	if bin.NumSV() != 5 || multi.NumSV() != 5 {
		t.Fatalf("NumSV: %d and %d, want 5 and 5", bin.NumSV(), multi.NumSV())
	}
}
