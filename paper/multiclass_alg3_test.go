package paper

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// twoClass returns the binary problem p as a two-class ClassProblem:
// class 1 for y = +1, class 0 for y = −1.
func twoClass(p Problem) ClassProblem {
	cp := ClassProblem{ClassProblem: svm.ClassProblem{X: p.X, N: p.N, D: p.D, Y: make([]int, p.N), C: 2}}
	for i, y := range p.Y {
		if y > 0 {
			cp.Y[i] = 1
		}
	}
	return cp
}

func sameParams(a, b *nn.Net) bool {
	pa, pb := a.Params(), b.Params()
	for i := range pa {
		if !slices.Equal(pa[i].W, pb[i].W) {
			return false
		}
	}
	return true
}

// TestJointAlg3TwoClassesMatchesBinary: with C = 2 the joint objective is
// exactly twice binary Algorithm 3's (α^0 = α^1 and y^0 = −y^1 leave every
// product α_iα_j y_iy_j unchanged) and the margin tests of both classes
// agree, so SGD without weight decay at rate η gives bit for bit the θ of
// TrainAlg3 at rate 2η, head 1 equals the binary head and head 0 is its
// negation (same support vectors, coefficients and bias negated).
func TestJointAlg3TwoClassesMatchesBinary(t *testing.T) {
	p, _ := ringnormProblem(t, 200, 10, 21)
	cp := twoClass(p)
	cases := []struct {
		name string
		mod  func(*MulticlassAlg3Config)
	}{
		{"plain", func(*MulticlassAlg3Config) {}},
		{"momentum-invt-bias", func(c *MulticlassAlg3Config) {
			c.Opt.Momentum, c.Opt.Schedule, c.Opt.T0, c.Bias = 0.9, "invt", 30, true
		}},
		{"reg", func(c *MulticlassAlg3Config) { c.Reg = RegConfig{Name: "entropy", Rho: 0.1} }},
		{"balanced", func(c *MulticlassAlg3Config) { c.Balanced = true }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := MulticlassAlg3Config{Alg3Config: Alg3Config{Config: Config{Lambda: 1e-3, T: 60, Kernel: kernel.Spec{Name: "rbf", Gamma: 0.5},
				Opt: OptConfig{Name: "sgd", LR: 2e-3}}, Mu: 1, Batch: 8}}
			tc.mod(&cfg)
			bcfg := cfg.Alg3Config
			bcfg.Opt.LR = 2 * cfg.Opt.LR
			nb, nj := newNet(t, nn.RingnormArchNoNorm, p.D, 7), newNet(t, nn.RingnormArchNoNorm, p.D, 7)
			bin, err := TrainAlg3(context.Background(), nb, p, bcfg, Options{Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			joint, err := TrainMulticlassAlg3(context.Background(), nj, cp, cfg, Options{Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			if !sameParams(nb, nj) {
				t.Fatal("θ differs from binary Algorithm 3 at twice the learning rate")
			}
			h, h0, h1 := bin.Head, joint.Heads[0], joint.Heads[1]
			if h1.NSV != h.NSV || !slices.Equal(h1.SV, h.SV) || !slices.Equal(h1.Coef, h.Coef) || h1.Bias != h.Bias {
				t.Fatalf("head 1 (%d SV, b = %g) differs from the binary head (%d SV, b = %g)", h1.NSV, h1.Bias, h.NSV, h.Bias)
			}
			neg := make([]float64, h.NSV)
			for i, c := range h.Coef {
				neg[i] = -c
			}
			if !slices.Equal(h0.SV, h.SV) || !slices.Equal(h0.Coef, neg) || h0.Bias != -h.Bias {
				t.Fatal("head 0 is not the negated binary head")
			}
			if cfg.Bias && h.Bias == 0 {
				t.Error("bias case with b = 0: the test does not exercise it")
			}
		})
	}
}

// jointObjectiveRef is Σ_c (μP_c − A_c) written out from the paper's
// formula, with K from kernel.Eval.
func jointObjectiveRef(k kernel.Kernel, z []float32, kb, n int, cls []int, nc int, alpha [][]float64, mu float64, balanced bool) float64 {
	K := make([]float64, kb*kb)
	var f2 float64
	for i := 0; i < kb; i++ {
		for j := 0; j < kb; j++ {
			K[i*kb+j] = k.Eval(z[i*n:i*n+n], z[j*n:j*n+n])
			f2 += K[i*kb+j] * K[i*kb+j]
		}
	}
	y := func(i, c int) float64 {
		if cls[i] == c {
			return 1
		}
		return -1
	}
	ya := func(i, c int) float64 { // the labels of A_c
		if balanced && cls[i] != c {
			return -1 / float64(nc-1)
		}
		return y(i, c)
	}
	var o float64
	for c := 0; c < nc; c++ {
		var num, a2, al, y2 float64
		for i := 0; i < kb; i++ {
			y2 += ya(i, c) * ya(i, c)
			for j := 0; j < kb; j++ {
				aa := alpha[c][i] * alpha[c][j]
				num += aa * y(i, c) * y(j, c) * K[i*kb+j]
				a2 += aa * aa
				al += ya(i, c) * ya(j, c) * K[i*kb+j]
			}
		}
		p := 0.0 // the paper's replacement when all α^c on the batch are 0
		if a2 > 0 {
			p = num / (math.Sqrt(a2) * math.Sqrt(f2))
		}
		o += mu*p - al/(y2*math.Sqrt(f2)) // y2 = k for labels ±1
	}
	return o
}

// TestJointAlg3Gradient checks the summed θ-objective and its gradient
// (through the trainer's own objective and Backward) against the written-out
// formula and central finite differences, with one class whose α are all 0
// on the batch, with labels ±1 and class-balanced labels in A_c.
func TestJointAlg3Gradient(t *testing.T) {
	for _, balanced := range []bool{false, true} {
		for name, k := range gradKernels {
			if balanced {
				name += "-balanced"
			}
			t.Run(name, func(t *testing.T) { testJointGradient(t, k, balanced) })
		}
	}
}

func testJointGradient(t *testing.T, k kernel.Kernel, balanced bool) {
	{
		{
			rng := rand.New(rand.NewPCG(31, 32))
			const d, n, kb, nc = 4, 3, 6, 3
			f := newTanhMap(d, n, rng)
			cp := ClassProblem{ClassProblem: svm.ClassProblem{X: make([]float32, kb*d), N: kb, D: d, Y: []int{0, 1, 2, 2, 0, 1}, C: nc}}
			for i := range cp.X {
				cp.X[i] = float32(rng.NormFloat64())
			}
			var spec kernel.Spec // the trainer's kernel is replaced below
			spec.Name, spec.Gamma = "rbf", 1
			cfg := MulticlassAlg3Config{Alg3Config{Config: Config{Lambda: 1e-2, T: 5, Kernel: spec, Opt: OptConfig{LR: 0.1}}, Mu: 0.7, Batch: kb}, balanced}
			r := newRun(3, cfg.Config, &plainSGD{m: f}, 1, nil)
			a, err := newJointAlg3(f, cp, cfg, r)
			if err != nil {
				t.Fatal(err)
			}
			a.k = k
			alpha := [][]float64{{0.5, 0, 0.25, 0.75, 0, 1}, {0, 0, 0, 0, 0, 0}, {0.25, 0.5, 0, 0.25, 0.5, 0.25}}
			for c := 0; c < nc; c++ {
				for j := 0; j < kb; j++ {
					a.yb[c*kb+j] = float32(ySign(cp.Y[j], c))
					a.ya[c*kb+j] = a.yb[c*kb+j]
					if balanced && cp.Y[j] != c {
						a.ya[c*kb+j] = -0.5
					}
					a.ab[c*kb+j] = alpha[c][j]
				}
			}
			obj := func() float64 {
				return jointObjectiveRef(k, feats(f, cp.X, kb), kb, n, cp.Y, nc, alpha, cfg.Mu, balanced)
			}
			o, _, err := a.objective(append([]float32(nil), f.Forward(cp.X, kb, true)...), 2)
			if err != nil {
				t.Fatal(err)
			}
			if want := obj(); math.Abs(o-want) > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("objective %g, formula %g", o, want)
			}
			fdCheck(t, f, obj, func() {
				out := append([]float32(nil), f.Forward(cp.X, kb, true)...)
				if _, _, err := a.objective(out, 2); err != nil {
					t.Fatal(err)
				}
				f.Backward(a.dz)
			})
		}
	}
}

// TestJointAlg3RegWeight: the §6 term enters the sum once per class, as
// C·ρ·R(K).
func TestJointAlg3RegWeight(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	const d, n, kb, nc = 4, 3, 6, 3
	f := newTanhMap(d, n, rng)
	cp := ClassProblem{ClassProblem: svm.ClassProblem{X: make([]float32, kb*d), N: kb, D: d, Y: []int{0, 1, 2, 2, 0, 1}, C: nc}}
	for i := range cp.X {
		cp.X[i] = float32(rng.NormFloat64())
	}
	cfg := MulticlassAlg3Config{Alg3Config: Alg3Config{Config: Config{Lambda: 1e-2, T: 5, Kernel: kernel.Spec{Name: "rbf", Gamma: 0.5}, Opt: OptConfig{LR: 0.1}}, Mu: 1, Batch: kb}}
	objOf := func(reg RegConfig) float64 {
		c := cfg
		c.Reg = reg
		a, err := newJointAlg3(f, cp, c, newRun(3, c.Config, &plainSGD{m: f}, 1, nil))
		if err != nil {
			t.Fatal(err)
		}
		for c := 0; c < nc; c++ {
			for j := 0; j < kb; j++ {
				a.yb[c*kb+j] = float32(ySign(cp.Y[j], c))
				a.ab[c*kb+j] = 0.25
			}
		}
		o, _, err := a.objective(feats(f, cp.X, kb), 2)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	reg := RegConfig{Name: "frob-i", Rho: 0.3}
	K := make([]float64, kb*kb)
	gram(K, kernel.MustNew(cfg.Kernel), feats(f, cp.X, kb), kb, n, make([]float32, kb*kb))
	r := newRegularizer(reg, kb).add(K, nil)
	if r == 0 {
		t.Fatal("the regulariser is 0 on this batch; the test checks nothing")
	}
	if got, want := objOf(reg)-objOf(RegConfig{}), nc*r; math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
		t.Fatalf("regulariser adds %g, want C·ρ·R = %g", got, want)
	}
}

// jointConfig is a short joint Algorithm 3 recipe for the shells problems.
func jointConfig(T int) MulticlassAlg3Config {
	return MulticlassAlg3Config{Alg3Config: Alg3Config{Config: Config{Lambda: 1e-4, T: T, Kernel: kernel.Spec{Name: "rbf", Gamma: 1},
		Opt: OptConfig{Name: "adam", LR: 1e-3}}, Mu: 1, Batch: 16}}
}

// TestJointAlg3Learns: the joint Algorithm 3 separates four classes that
// differ in norm and position far above chance (25 %) and above the
// untrained network's features (72.5 %, see TestMulticlassLearns).
func TestJointAlg3Learns(t *testing.T) {
	for _, balanced := range []bool{false, true} {
		t.Run(map[bool]string{false: "pm1", true: "balanced"}[balanced], func(t *testing.T) { testJointLearns(t, balanced) })
	}
}

func testJointLearns(t *testing.T, balanced bool) {
	train, test := shells(1200, 10, 4, 1), shells(800, 10, 4, 2)
	net := newNet(t, "dense(40),relu,dense(20),relu", train.D, 4)
	cfg := jointConfig(600)
	cfg.Balanced = balanced
	m, err := TrainMulticlassAlg3(context.Background(), net, train, cfg, Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Heads) != 4 || m.Scheme != model.OneVsRest || !slices.Equal(m.Classes, train.Labels) || m.Algorithm != "nsvm3" {
		t.Fatalf("%d heads, scheme %s, classes %v, algorithm %s", len(m.Heads), m.Scheme, m.Classes, m.Algorithm)
	}
	acc := classAccuracy(m, test)
	t.Logf("test accuracy %.2f%%, support vectors per head %d %d %d %d", 100*acc,
		m.Heads[0].NSV, m.Heads[1].NSV, m.Heads[2].NSV, m.Heads[3].NSV)
	if acc < 0.80 {
		t.Errorf("test accuracy %.3f < 0.80", acc)
	}
	// Every head's coefficients carry its class's signs.
	for c, h := range m.Heads {
		var pos, neg int
		for _, v := range h.Coef {
			if v > 0 {
				pos++
			} else if v < 0 {
				neg++
			}
		}
		if pos == 0 || neg == 0 || pos+neg != h.NSV {
			t.Errorf("head %d: %d positive and %d negative coefficients of %d", c, pos, neg, h.NSV)
		}
	}
}

func trainJoint(t *testing.T, ctx context.Context, p ClassProblem, cfg MulticlassAlg3Config, netSeed uint64, o Options) (*model.Model, error) {
	t.Helper()
	return TrainMulticlassAlg3(ctx, newNet(t, "dense(12),relu,dense(8),relu", p.D, netSeed), p, cfg, o)
}

func modelBytes(t *testing.T, m *model.Model) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestJointAlg3Resume stops a run midway (by cancelling the context),
// resumes it from the checkpoint written then (through Save and
// LoadCheckpoint) and checks that the model file is byte-identical to an
// uninterrupted run's; a binary Algorithm 3 run refuses the checkpoint.
func TestJointAlg3Resume(t *testing.T) {
	p := shells(240, 5, 3, 7)
	for _, bias := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "bias"}[bias], func(t *testing.T) {
			cfg := jointConfig(40)
			cfg.Batch, cfg.Bias = 6, bias
			full, err := trainJoint(t, context.Background(), p, cfg, 3, Options{Seed: 11})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var ck *Checkpoint
			c2 := cfg
			c2.ReportEvery = 1
			o := Options{Seed: 11, CheckpointEvery: 8, Checkpoint: func(c *Checkpoint) error {
				path := filepath.Join(t.TempDir(), "ck")
				if err := c.Save(path); err != nil {
					return err
				}
				l, err := LoadCheckpoint(path)
				ck = l
				return err
			}, Progress: func(pg Progress) {
				if pg.Phase == "train" && pg.Step >= 21 {
					cancel()
				}
			}}
			if _, err := trainJoint(t, ctx, p, c2, 3, o); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run returned %v", err)
			}
			if ck == nil || ck.Step != 21 {
				t.Fatalf("no checkpoint at the interruption (%v)", ck)
			}
			resumed, err := trainJoint(t, context.Background(), p, cfg, 999, Options{Seed: 11, Resume: ck})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(modelBytes(t, full), modelBytes(t, resumed)) {
				t.Fatalf("resumed from step %d: model differs from the uninterrupted run", ck.Step)
			}
			// The binary trainer does not take a joint checkpoint.
			bp := Problem{X: p.X, N: p.N, D: p.D, Y: make([]float32, p.N)}
			for i, c := range p.Y {
				bp.Y[i] = float32(2*min(c, 1) - 1)
			}
			_, err = TrainAlg3(context.Background(), newNet(t, "dense(12),relu,dense(8),relu", p.D, 3), bp, cfg.Alg3Config, Options{Seed: 11, Resume: ck})
			if err == nil || !strings.Contains(err.Error(), "configuration") {
				t.Fatalf("binary Algorithm 3 resumed a joint checkpoint: %v", err)
			}
		})
	}
}

// TestJointAlg3Deterministic: the same seed gives the same model file, also
// with a different GOMAXPROCS.
func TestJointAlg3Deterministic(t *testing.T) {
	p := shells(240, 5, 3, 8)
	cfg := jointConfig(30)
	cfg.Batch = 8
	a, err := trainJoint(t, context.Background(), p, cfg, 2, Options{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(1)
	b, err := trainJoint(t, context.Background(), p, cfg, 2, Options{Seed: 4})
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(modelBytes(t, a), modelBytes(t, b)) {
		t.Fatal("two runs with the same seed wrote different model files")
	}
	c, err := trainJoint(t, context.Background(), p, cfg, 2, Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(modelBytes(t, a), modelBytes(t, c)) {
		t.Fatal("runs with different seeds wrote the same model file")
	}
}

func TestJointAlg3BadInput(t *testing.T) {
	p := shells(40, 5, 3, 9)
	good := jointConfig(5)
	good.Batch = 4
	cases := []struct {
		name string
		net  *nn.Net
		p    ClassProblem
		cfg  MulticlassAlg3Config
	}{
		{"nil net", nil, p, good},
		{"batch", newNet(t, "dense(4)", 5, 1), p, func() MulticlassAlg3Config { c := good; c.Batch = 41; return c }()},
		{"mu", newNet(t, "dense(4)", 5, 1), p, func() MulticlassAlg3Config { c := good; c.Mu = 0; return c }()},
		{"width", newNet(t, "dense(4)", 6, 1), p, good},
		{"class", newNet(t, "dense(4)", 5, 1), func() ClassProblem { q := p; q.Y = slices.Clone(p.Y); q.Y[0] = 3; return q }(), good},
	}
	for _, c := range cases {
		if _, err := TrainMulticlassAlg3(context.Background(), c.net, c.p, c.cfg, Options{}); err == nil {
			t.Errorf("%s: no error", c.name)
		} else if !strings.HasPrefix(err.Error(), "nsvm: ") {
			t.Errorf("%s: error %q lacks the package prefix", c.name, err)
		}
	}
}
