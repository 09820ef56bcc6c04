package paper

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// The softmax head's gradients with respect to its weights, its bias and
// the features, against central finite differences of the mean
// cross-entropy (in float64 through float32 parameters, so h is large).
func TestSoftmaxHeadGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const k, n, c = 5, 4, 3
	y := []int{0, 2, 1, 2, 0, 1, 1}
	idx := []int{6, 0, 3, 1, 4}
	h := newSoftmaxHead(y, c, n, rng)
	z := make([]float32, k*n)
	for i := range z {
		z[i] = float32(rng.NormFloat64())
	}
	dz := make([]float32, k*n)
	loss := func() float64 {
		l, _ := h.lossGrad(z, idx, make([]float32, k*n))
		return l
	}
	clear(h.w.G)
	clear(h.b.G)
	l0, _ := h.lossGrad(z, idx, dz)
	gw, gb := slices.Clone(h.w.G), slices.Clone(h.b.G)
	// The loss by hand.
	var want float64
	for r, i := range idx {
		var lg [c]float64
		mx := math.Inf(-1)
		for j := range c {
			lg[j] = float64(h.b.W[j])
			for q := range n {
				lg[j] += float64(h.w.W[j*n+q]) * float64(z[r*n+q])
			}
			mx = max(mx, lg[j])
		}
		var s float64
		for j := range c {
			s += math.Exp(lg[j] - mx)
		}
		want += (mx + math.Log(s) - lg[y[i]]) / k
	}
	if math.Abs(l0-want) > 1e-9 {
		t.Fatalf("loss %g, want %g", l0, want)
	}
	check := func(name string, v []float32, g []float32) {
		t.Helper()
		for i := range v {
			const d = 1e-2
			o := v[i]
			v[i] = o + d
			lp := loss()
			v[i] = o - d
			lm := loss()
			v[i] = o
			fd := (lp - lm) / (2 * d)
			if math.Abs(fd-float64(g[i])) > 1e-3*(1+math.Abs(fd)) {
				t.Fatalf("∂L/∂%s[%d] = %g, finite difference %g", name, i, g[i], fd)
			}
		}
	}
	check("W", h.w.W, gw)
	check("b", h.b.W, gb)
	check("z", z, dz)
}

// The schedules: cosine falls from LR to 0 over the horizon; one-cycle
// rises from LR/25 to LR over its first 30 % and falls to LR/25/10⁴.
func TestCosineAndOneCycle(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*(1+math.Abs(b)) }
	c := OptConfig{LR: 0.1, Schedule: "cosine", Horizon: 100}
	if !near(c.lrAt(0), 0.1) || !near(c.lrAt(50), 0.05) || !near(c.lrAt(100), 0) || !near(c.lrAt(500), 0) {
		t.Fatalf("cosine: %g %g %g %g", c.lrAt(0), c.lrAt(50), c.lrAt(100), c.lrAt(500))
	}
	o := OptConfig{LR: 0.1, Schedule: "onecycle", Horizon: 100}
	if !near(o.lrAt(0), 0.004) || !near(o.lrAt(30), 0.1) || !near(o.lrAt(100), 0.1/25/1e4) {
		t.Fatalf("onecycle: %g %g %g", o.lrAt(0), o.lrAt(30), o.lrAt(100))
	}
	for s := 1; s <= 100; s++ {
		up := s <= 30
		if d := o.lrAt(s) - o.lrAt(s-1); up && d <= 0 || !up && d >= 0 {
			t.Fatalf("onecycle is not monotone at step %d: %g → %g", s, o.lrAt(s-1), o.lrAt(s))
		}
	}
	for _, bad := range []OptConfig{{LR: 1, Schedule: "cosine", Horizon: -1}, {LR: 1, Schedule: "warm"}} {
		if bad.validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	// A zero horizon means the run's length.
	r := newRun(4, Config{T: 40, Opt: OptConfig{LR: 1, Schedule: "cosine"}}, nil, 1, nil)
	if r.cfg.Horizon != 40 {
		t.Fatalf("horizon %d, want the run's 40 steps", r.cfg.Horizon)
	}
}

func TestRandomFlip(t *testing.T) {
	const c, h, w = 2, 2, 3
	img := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	x := slices.Concat(img, img, img, img, img, img, img, img)
	RandomFlip(c, h, w)(x, 8, rand.New(rand.NewPCG(3, 4)))
	flipped := []float32{3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10}
	var nf int
	for r := range 8 {
		got := x[r*12 : (r+1)*12]
		switch {
		case slices.Equal(got, flipped):
			nf++
		case !slices.Equal(got, img):
			t.Fatalf("image %d is %v: neither itself nor its mirror", r, got)
		}
	}
	if nf == 0 || nf == 8 {
		t.Fatalf("%d of 8 images mirrored", nf)
	}
	if Augmenters(nil, nil) != nil {
		t.Fatal("Augmenters of nothing is not nil")
	}
}

// Part I with the softmax objective trains features that an SVM head
// separates (the multiclass shells of TestMulticlassLearns, where the
// alignment reaches about 86 %), is deterministic, and refuses regression
// targets.
func TestSoftmaxObjective(t *testing.T) {
	train, test := shells(1200, 10, 4, 1), shells(800, 10, 4, 2)
	cfg := multiclassConfig(model.OneVsRest)
	cfg.Objective = ObjectiveSoftmax
	cfg.Opt = OptConfig{Name: "adam", LR: 3e-3, Schedule: "onecycle"}
	run := func() (*model.Model, []float32) {
		net := newNet(t, "dense(40),relu,dense(20),relu", train.D, 4)
		m, err := TrainMulticlass(context.Background(), net, train, cfg, Options{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return m, slices.Clone(net.Params()[0].W)
	}
	m, w1 := run()
	_, w2 := run()
	if !slices.Equal(w1, w2) {
		t.Fatal("two runs with one seed differ")
	}
	if acc := classAccuracy(m, test); acc < 0.8 {
		t.Fatalf("test accuracy %.3f after softmax Part I", acc)
	} else {
		t.Logf("test accuracy %.3f", acc)
	}
	net := newNet(t, "dense(8),relu", 2, 1)
	rc := RegressionConfig{Alg4Config: cfg.Alg4Config}
	rp := svm.RegProblem{X: make([]float32, 80), N: 40, D: 2, Y: make([]float64, 40)}
	for i := range rp.Y {
		rp.X[2*i], rp.Y[i] = float32(i), float64(i)
	}
	if _, err := TrainRegression(context.Background(), net, rp, rc, Options{}); err == nil || !strings.Contains(err.Error(), "softmax") {
		t.Fatalf("the softmax objective on a regression: %v", err)
	}
}

// The batch accuracy lossGrad reports is the share of rows whose largest
// logit is their class: logits (5, 3) and (1, 4) of classes 0 and 1 are
// both right (the accuracy once compared a logit with the exponential of
// another and called the first row wrong).
func TestSoftmaxAccuracy(t *testing.T) {
	h := &softmaxHead{y: []int{0, 1}, c: 2, n: 2, p: make([]float64, 2),
		w: nn.Param{W: []float32{1, 0, 0, 1}, G: make([]float32, 4)},
		b: nn.Param{W: []float32{0, 0}, G: make([]float32, 2)}}
	_, acc := h.lossGrad([]float32{5, 3, 1, 4}, []int{0, 1}, make([]float32, 4))
	if acc != 1 {
		t.Errorf("accuracy %v, want 1", acc)
	}
}

// SoftmaxLoss is the mean softmax cross-entropy over the logits z·w_j + b_j:
// log k when every logit is equal, the formula computed directly, small for
// a row far on its class's side and large on another's, and finite for
// logits far apart (the probability bounded below as in training).
func TestSoftmaxLoss(t *testing.T) {
	w := []float32{1, 0, 0, 1, -1, -1} // three classes on two features
	b := []float32{0, 0.5, -0.25}
	if got := SoftmaxLoss([]float32{0, 0}, []int{2}, []float32{0, 0, 0, 0, 0, 0}, []float32{0, 0, 0}); math.Abs(got-math.Log(3)) > 1e-12 {
		t.Errorf("equal logits: loss %v, want log 3", got)
	}
	z := []float32{3, -1}
	var sum float64
	logits := []float64{3, -1 + 0.5, -2 - 0.25}
	for _, v := range logits {
		sum += math.Exp(v)
	}
	var mean float64
	for c := range 3 {
		want := math.Log(sum) - logits[c]
		mean += want / 3
		if got := SoftmaxLoss(z, []int{c}, w, b); math.Abs(got-want) > 1e-12 {
			t.Errorf("class %d: loss %v, want %v", c, got, want)
		}
	}
	if got := SoftmaxLoss([]float32{3, -1, 3, -1, 3, -1}, []int{0, 1, 2}, w, b); math.Abs(got-mean) > 1e-12 {
		t.Errorf("three rows: loss %v, want their mean %v", got, mean)
	}
	if SoftmaxLoss(z, []int{0}, w, b) >= SoftmaxLoss(z, []int{1}, w, b) {
		t.Error("a row on class 0's side costs no less as class 0 than as class 1")
	}
	// Logits 1e4 apart: the probability 1e-300 at the least, as training
	// takes it, so the loss is finite.
	if got := SoftmaxLoss([]float32{1e4, 0}, []int{1}, w, b); got != -math.Log(1e-300) {
		t.Errorf("large logits: loss %v, want −log 1e-300", got)
	}
}

// Part I reads its batches from Part1.Rows as it reads them from X: the
// same network bit for bit, here with rows given in reverse through Rows.
// Rows given two ways, or X of the wrong length, are refused.
func TestPart1Rows(t *testing.T) {
	p := shells(600, 10, 4, 3)
	cfg := multiclassConfig(model.OneVsRest).Alg4Config
	cfg.Objective, cfg.T = ObjectiveSoftmax, 60
	rev := make([]float32, len(p.X))
	for i := range p.N {
		copy(rev[(p.N-1-i)*p.D:(p.N-i)*p.D], p.X[i*p.D:(i+1)*p.D])
	}
	rows := func(dst []float32, idx []int) {
		for b, i := range idx {
			j := p.N - 1 - i
			copy(dst[b*p.D:(b+1)*p.D], rev[j*p.D:(j+1)*p.D])
		}
	}
	run := func(p1 Part1) ([]float32, error) {
		net := newNet(t, "dense(16),relu", p.D, 4)
		p1.N, p1.D, p1.Target = p.N, p.D, ClassTarget(p.Y, 4)
		err := TrainPart1(context.Background(), net, p1, cfg, Options{Seed: 2})
		return slices.Clone(net.Params()[0].W), err
	}
	a, err := run(Part1{X: p.X})
	if err != nil {
		t.Fatal(err)
	}
	b, err := run(Part1{Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Fatal("Part I from Rows differs from Part I from X")
	}
	if _, err := run(Part1{X: p.X, Rows: rows}); err == nil || !strings.Contains(err.Error(), "more than one way") {
		t.Fatalf("X and Rows: %v", err)
	}
	if _, err := run(Part1{X: p.X[:len(p.X)-1]}); err == nil || !strings.Contains(err.Error(), "values for") {
		t.Fatalf("short X: %v", err)
	}
}
