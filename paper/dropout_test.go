package paper

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
)

// dropoutArch is a small network with one (element-wise) dropout layer and
// smooth activations, so that finite differences are meaningful.
const dropoutArch = "dense(6),tanh,dropout(0.5),dense(3),tanh"

func dropoutNet(t *testing.T, d int, seed uint64) (*nn.Net, *rand.PCG) {
	t.Helper()
	net, err := nn.New(dropoutArch, []int{d}, rand.New(rand.NewPCG(seed, seed+1)))
	if err != nil {
		t.Fatal(err)
	}
	pcg := rand.NewPCG(seed+2, seed+3)
	net.SetRand(rand.New(pcg))
	return net, pcg
}

// lastInput records the input of the most recent single-row inference pass.
type lastInput struct {
	*nn.Net
	x []float32
}

func (l *lastInput) Forward(x []float32, batch int, train bool) []float32 {
	if batch == 1 && !train {
		l.x = append(l.x[:0], x...)
	}
	return l.Net.Forward(x, batch, train)
}

// TestAlg1StoresInferenceFeatures: with dropout, every support vector that
// Algorithm 1 stores is the dropout-free F_θt(x_it) of the network before
// its θ-step, bit for bit, not a masked train-mode output.
func TestAlg1StoresInferenceFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	p := toyProblem(rng, 40, 5)
	net, _ := dropoutNet(t, p.D, 7)
	if !hasDropout(net) {
		t.Fatal("hasDropout = false for " + dropoutArch)
	}
	cfg := Alg1Config{toyConfig(120, 0.05)}
	cfg.Lambda = 0.01
	f := &lastInput{Net: net}
	r := newRun(1, cfg.Config, newOptimizer(net, cfg.Opt), 3, nil)
	a := newAlg1(f, p, cfg, r, true)
	check := func(before *nn.Net, t0 int) {
		t.Helper()
		z := a.sv.z()
		got := z[len(z)-a.sv.n:]
		want := before.Forward(f.x, 1, false)
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("step %d: stored feature %d = %g, inference-mode F_θ(x) = %g", t0, j, got[j], want[j])
			}
		}
	}
	before := net.Clone()
	if err := a.begin(); err != nil {
		t.Fatal(err)
	}
	check(before, 1)
	var added, differs int
	for step := 2; step <= cfg.T; step++ {
		before = net.Clone()
		before.SetRand(rand.New(rand.NewPCG(0, 0)))
		nsv := a.sv.len()
		if err := a.step(step); err != nil {
			t.Fatal(err)
		}
		if a.sv.len() > nsv {
			added++
			check(before, step)
			// The train-mode output of the same step (dropout on) differs.
			if zt, z := a.zt, before.Forward(f.x, 1, false); !slicesEqual(zt, z) {
				differs++
			}
		}
	}
	if added < 10 || differs == 0 {
		t.Fatalf("%d support vectors added, %d with train-mode features differing; the test needs both", added, differs)
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAlg2DropoutGradient: with dropout, Algorithm 2's θ-step is the
// gradient of c·Σ_j α_j y_j K(F_θ(x_j), F_θ(x_i)) with F_θ evaluated in
// train mode at the masks the step drew, checked by finite differences at
// those masks; in one chunk and replayed over several.
func TestAlg2DropoutGradient(t *testing.T) {
	for _, chunk := range []int{0, 3} {
		for _, i := range []int{2, 9} { // a support vector and a new point
			t.Run("chunk"+strconv.Itoa(chunk)+"/i"+strconv.Itoa(i), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(41, 42))
				p := toyProblem(rng, 12, 4)
				net, pcg := dropoutNet(t, p.D, 9)
				cfg := Alg2Config{Config: toyConfig(10, 0.1), Chunk: chunk}
				r := newRun(2, cfg.Config, newOptimizer(net, cfg.Opt), 3, nil)
				a := newAlg2(net, p, cfg, r, true, pcg)
				const m = 7
				for j := 0; j < m; j++ {
					a.alpha[j] = float64(1 + j%3)
					a.addSV(j)
				}
				const c = -0.8 // −y_i/(λ(t−1))
				a.w = make([]float64, m)
				for j := range a.w {
					a.w[j] = c * a.alpha[j] * a.ys[j]
				}
				k := kernel.MustNew(cfg.Kernel)
				state, err := pcg.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				batch := append(append([]float32(nil), a.xs...), row(p, i)...)
				n := net.OutSize()
				obj := func() float64 {
					if err := pcg.UnmarshalBinary(state); err != nil {
						t.Fatal(err)
					}
					out := net.Forward(batch, m+1, true)
					var s float64
					for j := 0; j < m; j++ {
						s += a.w[j] * k.Eval(out[j*n:j*n+n], out[m*n:])
					}
					return s
				}
				// The masks differ from inference: the objective at them is
				// not the one at the cached features.
				z := make([]float32, (m+1)*n)
				net.Features(z, batch, m+1)
				var sInf float64
				for j := 0; j < m; j++ {
					sInf += a.w[j] * k.Eval(z[j*n:j*n+n], z[m*n:])
				}
				if o := obj(); math.Abs(o-sInf) < 1e-6 {
					t.Fatalf("objective with dropout %g equals the dropout-free one %g", o, sInf)
				}
				net.ZeroGrad()
				if err := pcg.UnmarshalBinary(state); err != nil {
					t.Fatal(err)
				}
				if err := a.gradDropout(i, 2); err != nil {
					t.Fatal(err)
				}
				after, _ := pcg.MarshalBinary()
				obj()
				if end, _ := pcg.MarshalBinary(); !bytes.Equal(after, end) {
					t.Fatal("the dropout stream does not end where one pass over the batch leaves it")
				}
				var gmax float64
				for _, prm := range net.Params() {
					for _, v := range prm.G {
						gmax = math.Max(gmax, math.Abs(float64(v)))
					}
				}
				var worst float64
				for _, prm := range net.Params() {
					g := append([]float32(nil), prm.G...)
					for q := range prm.W {
						const h = 1e-2
						w := prm.W[q]
						prm.W[q] = w + h
						op := obj()
						prm.W[q] = w - h
						om := obj()
						prm.W[q] = w
						fd := (op - om) / (2 * h)
						d := math.Abs(fd-float64(g[q])) / (1e-2*gmax + math.Abs(fd)) // float32 noise floor
						worst = math.Max(worst, d)
						if d > 2e-2 {
							t.Fatalf("%s[%d]: gradient %g, finite difference at the same masks %g", prm.Name, q, g[q], fd)
						}
					}
				}
				t.Logf("worst relative difference %.2e", worst)
			})
		}
	}
}

// TestDropoutDeterministic: Algorithms 1 and 2 on a network with dropout
// (Algorithm 2 also with its batch split into chunks, which replays masks)
// give byte-identical models for the same seed.
func TestDropoutDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	p := toyProblem(rng, 60, 5)
	for _, c := range []struct {
		alg, chunk int
	}{{1, 0}, {2, 0}, {2, 4}} {
		var files [][]byte
		for range 2 {
			net, _ := dropoutNet(t, p.D, 11)
			var m *model.Model
			var err error
			cfg := toyConfig(150, 0.05)
			if c.alg == 1 {
				m, err = TrainAlg1(context.Background(), net, p, Alg1Config{cfg}, Options{Seed: 5})
			} else {
				m, err = TrainAlg2(context.Background(), net, p, Alg2Config{Config: cfg, Chunk: c.chunk}, Options{Seed: 5})
			}
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, modelBytes(t, m))
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Fatalf("algorithm %d (chunk %d): two runs with the same seed differ", c.alg, c.chunk)
		}
	}
}
