package paper

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/nn"
)

// regCases are the regularisers under test, every name in both forms.
var regCases = []RegConfig{
	{Name: "entropy", Rho: 0.7},
	{Name: "entropy", Rho: 0.7, Target: 0.8},
	{Name: "frob-i", Rho: 0.7},
	{Name: "frob-i", Rho: 0.7, Target: 1},
	{Name: "frob-ones", Rho: 0.7},
	{Name: "frob-ones", Rho: 0.7, Target: 1},
	{Name: "frob", Rho: 0.7},
	{Name: "frob", Rho: 0.7, Target: 1},
}

func regName(c RegConfig) string {
	if c.Target == 0 {
		return c.Name + "/barrier"
	}
	return c.Name + "/target"
}

// randomGram returns the k×k RBF kernel matrix of k random points in ℝ³.
func randomGram(rng *rand.Rand, k int, gamma float64) []float64 {
	z := make([]float32, k*3)
	for i := range z {
		z[i] = float32(rng.NormFloat64())
	}
	K := make([]float64, k*k)
	gram(K, kernel.RBF{Gamma: gamma}, z, k, 3, make([]float32, k*k))
	return K
}

// TestRegularizerGradK checks ρ·∂R/∂K against central finite differences in
// K. The matrix stays symmetric: an off-diagonal pair K_ij = K_ji moves
// together, so the difference quotient is compared with g_ij + g_ji.
func TestRegularizerGradK(t *testing.T) {
	for _, c := range regCases {
		for _, gamma := range []float64{0.1, 1} {
			t.Run(regName(c)+"/gamma="+map[float64]string{0.1: "0.1", 1: "1"}[gamma], func(t *testing.T) {
				const k = 7
				rng := rand.New(rand.NewPCG(31, uint64(1000*gamma)))
				K := randomGram(rng, k, gamma)
				r := newRegularizer(c, k)
				g := make([]float64, k*k)
				K0 := slices.Clone(K)
				v := r.add(K, g)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("ρR = %g", v)
				}
				if !slices.Equal(K, K0) {
					t.Fatal("add modified K")
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
						fd := (r.add(Kp, nil) - r.add(Km, nil)) / (2 * h)
						d := math.Abs(fd-an) / (1e-3*gmax + math.Abs(fd)) // entries far below the largest are compared absolutely
						worst = math.Max(worst, d)
						if d > 1e-5 {
							t.Fatalf("∂(ρR)/∂K[%d,%d] = %.10g, finite difference %.10g", i, j, an, fd)
						}
					}
				}
				t.Logf("ρR = %.6g, worst relative difference %.2e", v, worst)
			})
		}
	}
}

// TestRegularizerValues checks R against the kernel package's diagnostics
// and at the extremes it guards against.
func TestRegularizerValues(t *testing.T) {
	const k = 9
	rng := rand.New(rand.NewPCG(32, 33))
	K := randomGram(rng, k, 0.3)
	K32 := make([]float32, k*k)
	for i, v := range K {
		K32[i] = float32(v)
	}
	s := kernel.VonNeumannEntropy(K32, k)
	dI := math.Pow(kernel.FrobDistIdentity(K32, k), 2) / (k * (k - 1))
	d1 := math.Pow(kernel.FrobDistOnes(K32, k), 2) / (k * (k - 1))
	for _, c := range []struct {
		cfg  RegConfig
		want float64
	}{
		{RegConfig{Name: "entropy", Rho: 2}, 2 * (-math.Log(s) - math.Log(1-s))},
		{RegConfig{Name: "entropy", Rho: 2, Target: 0.3}, 2 * (s - 0.3) * (s - 0.3)},
		{RegConfig{Name: "frob-i", Rho: 2}, -2 * math.Log(dI)},
		{RegConfig{Name: "frob-i", Rho: 2, Target: 1}, 2 * (1 - dI) * (1 - dI)},
		{RegConfig{Name: "frob-i", Rho: 2, Target: dI / 2}, 0},
		{RegConfig{Name: "frob-ones", Rho: 2}, -2 * math.Log(d1)},
		{RegConfig{Name: "frob-ones", Rho: 2, Target: 1}, 2 * (1 - d1) * (1 - d1)},
		{RegConfig{Name: "frob", Rho: 2}, -2 * (math.Log(dI) + math.Log(d1))},
	} {
		t.Run(regName(c.cfg), func(t *testing.T) {
			got := newRegularizer(c.cfg, k).add(K, nil)
			if math.Abs(got-c.want) > 1e-6*(1+math.Abs(c.want)) {
				t.Fatalf("ρR = %.12g, want %.12g (S = %g, d_I = %g, d_1 = %g)", got, c.want, s, dI, d1)
			}
		})
	}
	// Near the extremes the barriers grow and the entropy moves to its ends.
	eye, ones := make([]float64, k*k), make([]float64, k*k)
	for i := range ones {
		ones[i] = 1
		if i%(k+1) == 0 {
			eye[i] = 1
		}
	}
	mix := func(a, b []float64, w float64) []float64 {
		out := make([]float64, len(a))
		for i := range out {
			out[i] = (1-w)*a[i] + w*b[i]
		}
		return out
	}
	r := newRegularizer(RegConfig{Name: "entropy", Rho: 1}, k)
	if s0, _, _ := r.vonNeumann(mix(ones, eye, 1e-3)); !(s0 < 0.05) {
		t.Errorf("S near 11ᵀ = %g, want near 0", s0)
	}
	if s1, _, _ := r.vonNeumann(mix(eye, ones, 1e-3)); !(s1 > 0.95) {
		t.Errorf("S near I = %g, want near 1", s1)
	}
	for _, c := range []struct {
		name       string
		near, away []float64
	}{
		{"entropy", mix(eye, ones, 1e-3), K},
		{"entropy", mix(ones, eye, 1e-3), K},
		{"frob-i", mix(eye, ones, 1e-3), K},
		{"frob-ones", mix(ones, eye, 1e-3), K},
		{"frob", mix(eye, ones, 1e-3), K},
		{"frob", mix(ones, eye, 1e-3), K},
	} {
		r := newRegularizer(RegConfig{Name: c.name, Rho: 1}, k)
		if near, away := r.add(c.near, nil), r.add(c.away, nil); !(near > away+3) {
			t.Errorf("%s: R near the extreme %g, away %g: the barrier should dominate", c.name, near, away)
		}
	}
}

// TestRegularizedObjectiveGradients checks the whole θ-gradient of
// Algorithm 3's μ·P − A + ρR and Algorithm 4's (1 − A)² + ρR, through the
// kernel matrix and the network, against finite differences in θ.
func TestRegularizedObjectiveGradients(t *testing.T) {
	kernels := map[string]kernel.Kernel{"rbf": kernel.RBF{Gamma: 0.4}, "normalized": gradKernels["normalized"]}
	for kname, k := range kernels {
		for _, c := range regCases {
			for _, alg := range []int{3, 4} {
				t.Run(kname+"/"+regName(c)+"/alg"+string(rune('0'+alg)), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(41, uint64(alg)))
					const d, n, kb = 4, 3, 5
					f := newTanhMap(d, n, rng)
					xb := make([]float32, kb*d)
					for i := range xb {
						xb[i] = float32(rng.NormFloat64())
					}
					yb := []float32{1, -1, 1, 1, -1}
					ab := []float64{0.25, 0, 0.5, 0.25, 0.75}
					const mu = 0.7
					reg := newRegularizer(c, kb)
					value := func(K []float64, g []float64) float64 {
						var v float64
						if alg == 3 {
							v = mu*weightedAlignment(K, yb, ab, g, mu) - alignment(K, yb, g, -1)
						} else {
							a := alignment(K, yb, nil, 0)
							l, dl := SquaredAlignLoss(a)
							if g != nil {
								alignment(K, yb, g, dl)
							}
							v = l
						}
						return v + reg.add(K, g)
					}
					gramOf := func(z []float32) []float64 {
						K := make([]float64, kb*kb)
						gram(K, k, z, kb, n, make([]float32, kb*kb))
						return K
					}
					obj := func() float64 { return value(gramOf(feats(f, xb, kb)), nil) }
					fdCheckStep(t, f, 3e-3, obj, func() {
						z := append([]float32(nil), f.Forward(xb, kb, true)...)
						K := gramOf(z)
						g := make([]float64, kb*kb)
						value(K, g)
						dz := make([]float32, kb*n)
						addGramGrad(dz, k, z, kb, n, K, g, make([]float32, kb*kb), make([]float64, kb))
						f.Backward(dz)
					})
				})
			}
		}
	}
}

// fdCheckStep is fdCheck with step h: the barrier terms curve more than the
// alignment terms, so the default step's truncation error comes near the
// tolerance for them.
func fdCheckStep(t *testing.T, f *tanhMap, h float32, obj func() float64, grad func()) {
	t.Helper()
	f.ZeroGrad()
	grad()
	g := slices.Clone(f.gW)
	var worst float64
	for i := range f.W {
		w := f.W[i]
		f.W[i] = w + h
		hp := float64(f.W[i] - w)
		op := obj()
		f.W[i] = w - h
		hm := float64(w - f.W[i])
		om := obj()
		f.W[i] = w
		fd := (op - om) / (hp + hm)
		d := math.Abs(fd-float64(g[i])) / (1e-3 + math.Abs(fd))
		worst = math.Max(worst, d)
		if d > 1e-2 {
			t.Fatalf("∂O/∂W[%d] = %g, finite difference %g", i, g[i], fd)
		}
	}
	t.Logf("worst relative difference %.2e", worst)
}

func TestRegConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg RegConfig
		err string // "" for valid
	}{
		{RegConfig{}, ""},
		{RegConfig{Name: "none"}, ""},
		{RegConfig{Name: "entropy", Rho: 0.1}, ""},
		{RegConfig{Name: "entropy", Rho: 0.1, Target: 0.4}, ""},
		{RegConfig{Name: "frob-i", Rho: 1, Target: 1}, ""},
		{RegConfig{Name: "frob-ones"}, ""},
		{RegConfig{Name: "frob", Rho: 3}, ""},
		{RegConfig{Name: "bogus", Rho: 1}, "unknown regulariser"},
		{RegConfig{Name: "entropy", Rho: -1}, "weight"},
		{RegConfig{Name: "entropy", Rho: math.Inf(1)}, "weight"},
		{RegConfig{Name: "entropy", Rho: math.NaN()}, "weight"},
		{RegConfig{Name: "entropy", Rho: 1, Target: 1}, "target"},
		{RegConfig{Name: "entropy", Rho: 1, Target: -0.1}, "target"},
		{RegConfig{Name: "frob-i", Rho: 1, Target: 1.5}, "target"},
		{RegConfig{Name: "none", Target: 0.5}, "without a regulariser"},
	} {
		t.Run(c.cfg.Name, func(t *testing.T) {
			err := c.cfg.Validate()
			if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("Validate(%+v) = %v, want error containing %q", c.cfg, err, c.err)
			}
		})
	}
	bad := RegConfig{Name: "bogus", Rho: 1}
	a3 := Alg3Config{Config: toyConfig(5, 0.1), Mu: 1, Batch: 4, Reg: bad}
	a4 := Alg4Config{Config: toyConfig(5, 0.1), Batch: 4, Part2: Part2Config{Lambda: 1e-3, T: 5}, Reg: bad}
	for _, err := range []error{a3.Validate(), a4.Validate()} {
		if err == nil || !strings.Contains(err.Error(), "unknown regulariser") || strings.Count(err.Error(), "nsvm:") != 1 {
			t.Errorf("Validate with a bad Reg = %v", err)
		}
	}
}

// TestRegOffIsUnchanged: Reg's zero value and the spellings of "off" leave
// training bit-identical and the checkpoint configuration key unchanged, and a
// regulariser that is on does change θ.
func TestRegOffIsUnchanged(t *testing.T) {
	type run func(reg RegConfig) []float32
	a3 := func(reg RegConfig) []float32 {
		rng := rand.New(rand.NewPCG(3, 3))
		p := toyProblem(rng, 24, 4)
		cfg := Alg3Config{Config: toyConfig(60, 0.05), Mu: 1, Batch: 4, Reg: reg}
		f := newTanhMap(4, 3, rng)
		r := newRun(3, cfg.Config, &plainSGD{m: f}, 5, nil)
		tr, err := newAlg3(f, p, cfg, r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runPlain(context.Background(), tr, r, cfg.T); err != nil {
			t.Fatal(err)
		}
		return f.W
	}
	a4 := func(reg RegConfig) []float32 {
		rng := rand.New(rand.NewPCG(4, 4))
		p := toyProblem(rng, 24, 4)
		cfg := Alg4Config{Config: toyConfig(40, 0.05), Batch: 6, Part2: Part2Config{Lambda: 1e-3, T: 10}, Reg: reg}
		f := newTanhMap(4, 3, rng)
		r := newRun(4, cfg.Config, &plainSGD{m: f}, 6, nil)
		tr, err := newAlg4(f, p, cfg, r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runPlain(context.Background(), tr, r, cfg.T); err != nil {
			t.Fatal(err)
		}
		return f.W
	}
	for name, fn := range map[string]run{"alg3": a3, "alg4": a4} {
		t.Run(name, func(t *testing.T) {
			base := fn(RegConfig{})
			for _, off := range []RegConfig{{Name: "none"}, {Name: "entropy"}, {Name: "frob", Target: 0.5}} {
				if w := fn(off); !slices.Equal(w, base) {
					t.Errorf("Reg %+v changed θ", off)
				}
			}
			for _, on := range regCases {
				if w := fn(on); slices.Equal(w, base) {
					t.Errorf("Reg %+v left θ unchanged", on)
				}
			}
		})
	}
	c4 := Alg4Config{Config: toyConfig(40, 0.05), Batch: 6}
	c3 := Alg3Config{Config: toyConfig(40, 0.05), Mu: 1, Batch: 6}
	if k := configKey(4, c4) + configKey(3, c3); strings.Contains(k, "Reg") {
		t.Errorf("configuration key mentions Reg when it is off: %s", k)
	}
	c4.Reg = RegConfig{Name: "entropy", Rho: 0.1}
	if k := configKey(4, c4); !strings.Contains(k, "entropy") {
		t.Errorf("configuration key omits the regulariser: %s", k)
	}
}

func BenchmarkRegularizer(b *testing.B) {
	for _, name := range []string{"entropy", "frob"} {
		for _, k := range []int{16, 64} {
			b.Run(name+"/k="+map[int]string{16: "16", 64: "64"}[k], func(b *testing.B) {
				K := randomGram(rand.New(rand.NewPCG(1, 2)), k, 0.3)
				r := newRegularizer(RegConfig{Name: name, Rho: 1}, k)
				g := make([]float64, k*k)
				b.ReportAllocs()
				for b.Loop() {
					r.add(K, g)
				}
			})
		}
	}
}

// TestRegularizerBarrierError: when the batch kernel matrix is exactly 11ᵀ
// (an RBF kernel of width γ → 0 on the "scale(0)" map, which sends every
// point to 0) the frob-ones barrier is +Inf, and Algorithms 3 and 4 stop
// with an error that names the regulariser rather than the learning rate.
func TestRegularizerBarrierError(t *testing.T) {
	p, _ := ringnormProblem(t, 64, 8, 1)
	for _, alg := range []int{3, 4} {
		net, err := nn.New("dense(4),scale(0)", []int{p.D}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		c := Config{Lambda: 1e-2, T: 5, Kernel: kernel.Spec{Name: "rbf", Gamma: 1}, Opt: OptConfig{LR: 1e-3}}
		reg := RegConfig{Name: "frob-ones", Rho: 0.1}
		ctx := context.Background()
		if alg == 3 {
			_, err = TrainAlg3(ctx, net, p, Alg3Config{Config: c, Mu: 1, Batch: 8, Reg: reg}, Options{Seed: 1})
		} else {
			_, err = TrainAlg4(ctx, net, p, Alg4Config{Config: c, Batch: 8, Reg: reg, Part2: Part2Config{Lambda: 1e-2, T: 100}}, Options{Seed: 1})
		}
		if err == nil || !strings.Contains(err.Error(), "frob-ones regulariser is not finite") {
			t.Errorf("algorithm %d: error %v, want the regulariser named", alg, err)
		}
	}
}
