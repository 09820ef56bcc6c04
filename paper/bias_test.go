package paper

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
)

// shiftedProblem draws n points along the diagonal of the positive quadrant:
// class −1 around (3, 3), class +1 around (5, 5) (standard deviation 0.3).
// A linear kernel without bias cannot tell them apart (every hyperplane
// through the origin leaves both clusters on one side); with a bias it can.
func shiftedProblem(n int, seed uint64) Problem {
	rng := rand.New(rand.NewPCG(seed, 7))
	p := Problem{X: make([]float32, 2*n), N: n, D: 2, Y: make([]float32, n)}
	for i := 0; i < n; i++ {
		c, y := 3.0, float32(-1)
		if i%2 == 0 {
			c, y = 5, 1
		}
		p.Y[i] = y
		p.X[2*i] = float32(c + 0.3*rng.NormFloat64())
		p.X[2*i+1] = float32(c + 0.3*rng.NormFloat64())
	}
	return p
}

// trainBias trains algorithm alg on p with F_θ = identity (a network
// without parameters, so the trainers reduce to their Pegasos core and only
// the bias can help) and a linear kernel.
func trainBias(t *testing.T, alg int, p Problem, bias bool, o Options) (*model.Model, error) {
	t.Helper()
	net, err := nn.New("scale(1)", []int{p.D}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Lambda: 1e-2, Kernel: kernel.Spec{Name: "linear"}, Opt: OptConfig{LR: 1e-3}, Bias: bias}
	ctx := context.Background()
	switch alg {
	case 1:
		c.T = 20000
		return TrainAlg1(ctx, net, p, Alg1Config{c}, o)
	case 2:
		c.T = 20000
		return TrainAlg2(ctx, net, p, Alg2Config{Config: c}, o)
	case 3:
		c.T = 20000
		return TrainAlg3(ctx, net, p, Alg3Config{Config: c, Mu: 1, Batch: 8}, o)
	default:
		c.T = 10
		return TrainAlg4(ctx, net, p, Alg4Config{Config: c, Batch: 8, Part2: Part2Config{Lambda: 1e-2, T: 60000}}, o)
	}
}

// TestBiasOnShiftedData: with Config.Bias every algorithm separates the
// shifted clusters; without it none does. The bias-free runs also keep
// Bias = 0 in the head.
func TestBiasOnShiftedData(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 8 models for up to 60000 steps (Algorithm 4 Part II)")
	}
	p, test := shiftedProblem(400, 1), shiftedProblem(400, 2)
	for alg := 1; alg <= 4; alg++ {
		t.Run("alg"+string(rune('0'+alg)), func(t *testing.T) {
			plain, err := trainBias(t, alg, p, false, Options{Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			biased, err := trainBias(t, alg, p, true, Options{Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			accPlain, accBias := testAccuracy(plain, test), testAccuracy(biased, test)
			t.Logf("no bias %.4f, bias %.4f (b = %.3f, %d SV)", accPlain, accBias, biased.Head.Bias, biased.Head.NSV)
			if plain.Head.Bias != 0 || plain.Info["bias_term"] != "" {
				t.Errorf("bias-free model has Bias %g, bias_term %q", plain.Head.Bias, plain.Info["bias_term"])
			}
			if biased.Info["bias_term"] != "true" {
				t.Errorf("bias_term = %q", biased.Info["bias_term"])
			}
			if accPlain > 0.75 {
				t.Errorf("no bias: accuracy %.4f, want ≤ 0.75", accPlain)
			}
			if accBias < 0.99 {
				t.Errorf("bias: accuracy %.4f, want ≥ 0.99", accBias)
			}
		})
	}
}

// TestBiasResume: a run with a bias term, interrupted and resumed from its
// checkpoint, ends with exactly the uninterrupted model (the bias is part
// of the checkpoint), for Algorithms 1–3.
func TestBiasResume(t *testing.T) {
	p, _ := ringnormProblem(t, 300, 10, 5)
	for alg := 1; alg <= 3; alg++ {
		t.Run("alg"+string(rune('0'+alg)), func(t *testing.T) {
			pr, _ := RingnormPreset(alg)
			pr.Config().T = map[int]int{1: 600, 2: 300, 3: 50}[alg]
			pr.Config().Bias = true
			full, err := trainPreset(context.Background(), pr, newNet(t, pr.Arch, p.D, 3), p, Options{Seed: 11})
			if err != nil {
				t.Fatal(err)
			}
			if full.Head.Bias == 0 {
				t.Fatal("no bias learnt")
			}
			ctx, cancel := context.WithCancel(context.Background())
			var ck *Checkpoint
			stopAt := pr.Config().T / 2
			o := Options{Seed: 11, CheckpointEvery: pr.Config().T / 5, Checkpoint: func(c *Checkpoint) error {
				path := filepath.Join(t.TempDir(), "ck")
				if err := c.Save(path); err != nil {
					return err
				}
				var err error
				ck, err = LoadCheckpoint(path)
				return err
			}, Progress: func(pg Progress) {
				if pg.Phase == "train" && pg.Step >= stopAt {
					cancel()
				}
			}}
			pr.Config().ReportEvery = 1
			if _, err := trainPreset(ctx, pr, newNet(t, pr.Arch, p.D, 3), p, o); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted run returned %v", err)
			}
			if len(ck.F64["bias"]) != 2 {
				t.Fatalf("checkpoint holds bias %v", ck.F64["bias"])
			}
			pr.Config().ReportEvery = 0
			resumed, err := trainPreset(context.Background(), pr, newNet(t, pr.Arch, p.D, 999), p, Options{Seed: 11, Resume: ck})
			if err != nil {
				t.Fatal(err)
			}
			pa, pb := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
			if err := full.Save(pa); err != nil {
				t.Fatal(err)
			}
			if err := resumed.Save(pb); err != nil {
				t.Fatal(err)
			}
			ba, _ := os.ReadFile(pa)
			bb, _ := os.ReadFile(pb)
			if !bytes.Equal(ba, bb) {
				t.Fatalf("resumed from step %d: model differs from the uninterrupted run", ck.Step)
			}
			// A checkpoint without the bias cannot resume a run with one.
			delete(ck.F64, "bias")
			if _, err := trainPreset(context.Background(), pr, newNet(t, pr.Arch, p.D, 999), p, Options{Seed: 11, Resume: ck}); err == nil {
				t.Error("resume from a checkpoint without the bias succeeded")
			}
		})
	}
}
