package paper

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/svm"
)

// friedman returns Friedman #1 training and test problems (noise 1) with the
// features standardised on the training set and the targets standardised
// with the noise-free target's moments (mean 14.41, sd 4.88), so that the
// noise has standard deviation 1/4.88 ≈ 0.2.
func friedman(nTrain, nTest int, seed uint64) (train, test svm.RegProblem) {
	tr := datasets.Friedman1(nTrain, 1, rand.New(rand.NewPCG(seed, 1)))
	te := datasets.Friedman1(nTest, 1, rand.New(rand.NewPCG(seed, 2)))
	st := data.FitStandardizer(tr)
	conv := func(ds *data.Dataset) svm.RegProblem {
		st.Apply(ds)
		for i := range ds.Y {
			ds.Y[i] = (ds.Y[i] - 14.41) / 4.88
		}
		return svm.RegProblem{X: ds.X, N: ds.N, D: ds.D, Y: ds.Y}
	}
	return conv(tr), conv(te)
}

// regRMSE returns the root mean squared error of m's predictions on p.
func regRMSE(m *model.Model, p svm.RegProblem) float64 {
	g := make([]float64, p.N)
	m.PredictBatch(g, p.X, p.N)
	var s float64
	for i, v := range g {
		s += (v - p.Y[i]) * (v - p.Y[i])
	}
	return math.Sqrt(s / float64(p.N))
}

// regConfig is a short regression recipe for the tests.
func regConfig(target string) RegressionConfig {
	return RegressionConfig{
		Alg4Config: Alg4Config{
			Config: Config{Lambda: 1e-4, T: 300, Kernel: kernel.Spec{Name: "rbf", Gamma: 1}, Opt: sgdInvT(3e-2)},
			Batch:  16,
			Part2:  Part2Config{Lambda: 1e-3, T: 10000},
		},
		Epsilon: 0.1,
		Target:  target,
	}
}

const regArch = "dense(20),relu,dense(10),relu,l2norm"

func trainReg(t testing.TB, p svm.RegProblem, cfg RegressionConfig, seed uint64) *model.Model {
	t.Helper()
	m, err := TrainRegression(context.Background(), newNet(t, regArch, p.D, seed), p, cfg, Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTrainRegressionLearns: on Friedman #1 (500 training points) both
// target kernels give a test RMSE far below the targets' spread and below
// the best constant predictor (the training mean).
func TestTrainRegressionLearns(t *testing.T) {
	train, test := friedman(500, 500, 1)
	var mean, sd, cst float64
	for _, y := range train.Y {
		mean += y
	}
	mean /= float64(train.N)
	for _, y := range test.Y {
		sd += y * y
		cst += (y - mean) * (y - mean)
	}
	sd = math.Sqrt(sd / float64(test.N)) // about the standard deviation: the targets are centred
	cst = math.Sqrt(cst / float64(test.N))
	for _, target := range []string{TargetLinear, TargetRBF} {
		t.Run(target, func(t *testing.T) {
			m := trainReg(t, train, regConfig(target), 1)
			if !m.Regression() || m.Info["target"] != target {
				t.Fatalf("Info = %v", m.Info)
			}
			e := regRMSE(m, test)
			t.Logf("test RMSE %.3f (targets' spread %.3f, constant predictor %.3f, noise 0.205), %d SV", e, sd, cst, m.Head.NSV)
			if e > 0.5*sd || e > 0.5*cst {
				t.Errorf("test RMSE %.3f is not well below the spread %.3f and the constant predictor's %.3f", e, sd, cst)
			}
			// Predict agrees with PredictBatch and returns g(x), not a label.
			x := test.X[:test.D]
			var g [1]float64
			m.PredictBatch(g[:], x, 1)
			if p := m.Predict(x); p != g[0] || p != m.Decision(x) {
				t.Errorf("Predict %g, PredictBatch %g, Decision %g", p, g[0], m.Decision(x))
			}
		})
	}
}

// TestCenteredAlignmentGradient checks ∂A_c/∂K of centeredAlignment against
// central finite differences in K (a symmetric pair moves together), for
// both regression targets, and then ∂(1 − A_c)²/∂θ through the network.
func TestCenteredAlignmentGradient(t *testing.T) {
	const k = 8
	rng := rand.New(rand.NewPCG(41, 42))
	y := make([]float64, k)
	for i := range y {
		y[i] = 3 + 2*rng.NormFloat64() // off-centre targets: the centring matters
	}
	idx := []int{0, 1, 2, 3, 4, 5, 6, 7}
	for _, target := range []string{TargetLinear, TargetRBF} {
		tgt := make([]float64, k*k)
		regressionKernel(y, target)(tgt, idx)
		for i := 0; i < k; i++ {
			var s float64
			for j := 0; j < k; j++ {
				s += tgt[i*k+j]
			}
			if math.Abs(s) > 1e-9 {
				t.Fatalf("%s: row %d of the target sums to %g, want 0 (double-centred)", target, i, s)
			}
		}
		t.Run(target+"/K", func(t *testing.T) {
			K := randomGram(rng, k, 0.5)
			kc := make([]float64, k*k)
			g := make([]float64, k*k)
			a := centeredAlignment(K, tgt, g, kc, k, 1)
			if !(a > -1 && a < 1) {
				t.Fatalf("A_c = %g", a)
			}
			var worst, gmax float64
			for _, v := range g {
				gmax = math.Max(gmax, math.Abs(v))
			}
			for i := 0; i < k; i++ {
				for j := i; j < k; j++ {
					const h = 1e-6
					Kp, Km := slices.Clone(K), slices.Clone(K)
					Kp[i*k+j] += h
					Km[i*k+j] -= h
					an := g[i*k+j]
					if i != j {
						Kp[j*k+i] += h
						Km[j*k+i] -= h
						an += g[j*k+i]
					}
					fd := (centeredAlignment(Kp, tgt, nil, kc, k, 0) - centeredAlignment(Km, tgt, nil, kc, k, 0)) / (2 * h)
					d := math.Abs(fd-an) / (1e-3*gmax + math.Abs(fd))
					worst = math.Max(worst, d)
					if d > 1e-5 {
						t.Fatalf("∂A_c/∂K[%d,%d] = %.10g, finite difference %.10g", i, j, an, fd)
					}
				}
			}
			t.Logf("A_c = %.4f, worst relative difference %.2e", a, worst)
		})
		for name, kern := range gradKernels {
			t.Run(target+"/theta/"+name, func(t *testing.T) {
				const d, n = 4, 3
				f := newTanhMap(d, n, rand.New(rand.NewPCG(43, 44)))
				xb := make([]float32, k*d)
				for i := range xb {
					xb[i] = float32(rng.NormFloat64())
				}
				gramOf := func(z []float32) []float64 {
					K := make([]float64, k*k)
					gram(K, kern, z, k, n, make([]float32, k*k))
					return K
				}
				kc := make([]float64, k*k)
				obj := func() float64 {
					l, _ := SquaredAlignLoss(centeredAlignment(gramOf(feats(f, xb, k)), tgt, nil, kc, k, 0))
					return l
				}
				fdCheck(t, f, obj, func() {
					z := append([]float32(nil), f.Forward(xb, k, true)...)
					K := gramOf(z)
					_, dl := SquaredAlignLoss(centeredAlignment(K, tgt, nil, kc, k, 0))
					g := make([]float64, k*k)
					centeredAlignment(K, tgt, g, kc, k, dl)
					dz := make([]float32, k*n)
					addGramGrad(dz, kern, z, k, n, K, g, make([]float32, k*k), make([]float64, k))
					f.Backward(dz)
				})
			})
		}
	}
}

// TestRegressionSaveLoad: a regressor (with input standardisation and a
// rescaled output) predicts bit-identically after Save and Load, and a
// second save writes the same bytes.
func TestRegressionSaveLoad(t *testing.T) {
	train, test := friedman(200, 100, 2)
	cfg := regConfig(TargetRBF)
	cfg.T, cfg.Part2.T = 50, 1000
	m := trainReg(t, train, cfg, 2)
	m.Mean, m.Std = make([]float64, train.D), make([]float64, train.D)
	for i := range m.Std {
		m.Mean[i], m.Std[i] = 0.01*float64(i), 1+0.1*float64(i)
	}
	m.ScaleOutput(4.88, 14.41)
	path, l := saveLoad(t, m)
	if !l.Regression() || l.Info["target"] != TargetRBF || l.Info["epsilon"] != "0.1" {
		t.Fatalf("metadata lost: %v", l.Info)
	}
	a, b := make([]float64, test.N), make([]float64, test.N)
	m.PredictBatch(a, test.X, test.N)
	l.PredictBatch(b, test.X, test.N)
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("prediction %d: %v before save, %v after load", i, a[i], b[i])
		}
	}
	path2 := filepath.Join(t.TempDir(), "r2.nsvm")
	if err := l.Save(path2); err != nil {
		t.Fatal(err)
	}
	b1, _ := os.ReadFile(path)
	b2, _ := os.ReadFile(path2)
	if !bytes.Equal(b1, b2) {
		t.Fatal("save → load → save changed the file")
	}
}

// TestScaleOutput: ScaleOutput(s, c) turns g into s·g + c.
func TestScaleOutput(t *testing.T) {
	train, test := friedman(100, 20, 3)
	cfg := regConfig(TargetLinear)
	cfg.T, cfg.Part2.T = 20, 500
	m := trainReg(t, train, cfg, 3)
	before := make([]float64, test.N)
	m.PredictBatch(before, test.X, test.N)
	m.ScaleOutput(-2.5, 7)
	after := make([]float64, test.N)
	m.PredictBatch(after, test.X, test.N)
	for i := range before {
		if want := -2.5*before[i] + 7; math.Abs(after[i]-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("row %d: %g, want %g", i, after[i], want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("ScaleOutput(NaN, 0) did not panic")
		}
	}()
	m.ScaleOutput(math.NaN(), 0)
}

// TestTrainRegressionDeterministic: the same seed gives the same model
// file, byte for byte; another seed a different one.
func TestTrainRegressionDeterministic(t *testing.T) {
	train, _ := friedman(150, 1, 4)
	cfg := regConfig(TargetLinear)
	cfg.T, cfg.Part2.T = 40, 800
	file := func(seed uint64) []byte {
		return modelBytes(t, trainReg(t, train, cfg, seed))
	}
	a, b, c := file(5), file(5), file(6)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different model files")
	}
	if bytes.Equal(a, c) {
		t.Fatal("different seeds, identical model files")
	}
}

// TestRegressionBadInput: invalid configurations and data are errors.
func TestRegressionBadInput(t *testing.T) {
	p, _ := friedman(40, 1, 5)
	nanY := p
	nanY.Y = slices.Clone(p.Y)
	nanY.Y[3] = math.NaN()
	infX := p
	infX.X = slices.Clone(p.X)
	infX.X[5] = float32(math.Inf(1))
	one := svm.RegProblem{X: p.X[:p.D], N: 1, D: p.D, Y: p.Y[:1]}
	for _, c := range []struct {
		name string
		p    svm.RegProblem
		cfg  func(*RegressionConfig)
	}{
		{"nan target", nanY, nil},
		{"inf feature", infX, nil},
		{"one point", one, nil},
		{"length mismatch", svm.RegProblem{X: p.X, N: p.N, D: p.D, Y: p.Y[:3]}, nil},
		{"wrong width", svm.RegProblem{X: p.X[:p.N*5], N: p.N, D: 5, Y: p.Y}, nil},
		{"target", p, func(c *RegressionConfig) { c.Target = "cosine" }},
		{"solver", p, func(c *RegressionConfig) { c.Part2.Solver = "smo" }},
		{"epsilon", p, func(c *RegressionConfig) { c.Epsilon = math.NaN() }},
		{"epsilon inf", p, func(c *RegressionConfig) { c.Epsilon = math.Inf(1) }},
		{"part2 lambda", p, func(c *RegressionConfig) { c.Part2.Lambda = 0 }},
		{"batch", p, func(c *RegressionConfig) { c.Batch = 1 }},
		{"big batch", p, func(c *RegressionConfig) { c.Batch = 100 }},
		{"lr", p, func(c *RegressionConfig) { c.Opt.LR = 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := regConfig(TargetLinear)
			cfg.T, cfg.Part2.T = 5, 10
			if c.cfg != nil {
				c.cfg(&cfg)
				if cfg.Validate() == nil && c.name != "big batch" {
					t.Error("Validate accepted the configuration")
				}
			}
			m, err := TrainRegression(context.Background(), newNet(t, regArch, 10, 1), c.p, cfg, Options{})
			if err == nil || m != nil {
				t.Fatalf("no error (model %v)", m)
			}
			t.Log(err)
		})
	}
	if _, err := TrainRegression(context.Background(), nil, p, regConfig(""), Options{}); err == nil {
		t.Error("nil network accepted")
	}
	if err := regConfig("").Validate(); err != nil {
		t.Errorf("default target rejected: %v", err)
	}
}
