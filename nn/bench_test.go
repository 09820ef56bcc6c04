package nn

import "testing"

// The five engine workloads; bench/engine_torch.py runs the same ones in
// PyTorch and bench/engine_compare.sh prints both side by side. A training
// step is ZeroGrad, Forward(train), Backward with a fixed cotangent (its sign
// alternating between steps so that the parameters stay bounded) and an SGD
// step (lr 0.01, momentum 0.9, weight decay 1e-4).
//
// Each reports GFLOP/s: two operations per multiply-add of the products of
// its conv and dense layers (forward; in a step also the weight gradients
// and the input gradients of all but the first such layer), over the wall
// time. A batch-64 step of MNISTArch is 159.7 MFLOP. The share of the CPU's
// peak quoted for CNNStep64 divides this by cores × FMA lanes per cycle × 2
// × clock: on the 2-core Xeon (Sapphire Rapids, two 8-lane AVX2 FMA units
// per core, 2.6 GHz nominal) 2 × 16 × 2 × 2.6 GHz = 166.4 GFLOP/s. The
// nominal clock understates a core that turbos: one core's GEMM runs at
// about 118 GFLOP/s there, so read the share as an upper bound.

func benchStep(b *testing.B, spec string, shape []int, batch int) {
	n := mustNew(b, spec, shape, 1)
	opt := NewSGD(n.Params(), 0.01, 0.9, 1e-4, false)
	x := uniform(newRand(2), batch*n.InSize(), 0, 1)
	c := [2][]float32{uniform(newRand(3), batch*n.OutSize(), -1, 1)}
	c[1] = make([]float32, len(c[0]))
	for i, v := range c[0] {
		c[1][i] = -v
	}
	step := func(i int) {
		opt.ZeroGrad()
		n.Forward(x, batch, true)
		n.Backward(c[i&1])
		opt.Step()
	}
	step(0)
	step(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		step(i)
	}
	reportFlops(b, n.productMACs(true)*batch)
}

// productMACs returns the multiply-adds per sample of the products of the
// conv and dense layers: forward, or (step) forward, weight gradients and
// the input gradients that Backward computes.
func (n *Net) productMACs(step bool) int {
	macs, first := 0, true
	for _, st := range n.stages {
		if st.param < 0 {
			continue
		}
		macs += st.flops
		if step {
			macs += st.flops // ∂W
			if !first {
				macs += st.flops // ∂x
			}
		}
		first = false
	}
	return macs
}

// reportFlops reports 2·macs per iteration as GFLOP/s.
func reportFlops(b *testing.B, macs int) {
	b.ReportMetric(2*float64(macs)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func benchFeatures(b *testing.B, spec string, shape []int, rows int) {
	n := mustNew(b, spec, shape, 1)
	x := uniform(newRand(2), rows*n.InSize(), 0, 1)
	dst := make([]float32, rows*n.OutSize())
	n.Features(dst, x, rows)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n.Features(dst, x, rows)
	}
	reportFlops(b, n.productMACs(false)*rows)
}

// BenchmarkMLPStep1 is one Pegasos-style step of the Ringnorm MLP on one
// sample (W1 in DESIGN.md).
func BenchmarkMLPStep1(b *testing.B) { benchStep(b, RingnormArch, []int{20}, 1) }

// BenchmarkMLPForward6660 computes the features of the 6660 Ringnorm
// training rows.
func BenchmarkMLPForward6660(b *testing.B) { benchFeatures(b, RingnormArch, []int{20}, 6660) }

// BenchmarkCNNStep64 is one batch-64 step of the MNIST CNN (W3).
func BenchmarkCNNStep64(b *testing.B) { benchStep(b, MNISTArch, []int{1, 28, 28}, 64) }

// BenchmarkCNNStep1 is one single-image step of the MNIST CNN (W4).
func BenchmarkCNNStep1(b *testing.B) { benchStep(b, MNISTArch, []int{1, 28, 28}, 1) }

// BenchmarkCNNForward12665 computes the features of the 12665 MNIST 0/1
// training images (W5).
func BenchmarkCNNForward12665(b *testing.B) { benchFeatures(b, MNISTArch, []int{1, 28, 28}, 12665) }

// TestStepFlops pins the operation count the share of peak is computed from.
func TestStepFlops(t *testing.T) {
	n := mustNew(t, MNISTArch, []int{1, 28, 28}, 1)
	if got, want := n.productMACs(true), 2*144000+3*320000; got != want {
		t.Fatalf("MNIST step: %d multiply-adds per sample, want %d", got, want)
	}
	if got, want := n.productMACs(false), 144000+320000; got != want {
		t.Fatalf("MNIST forward: %d multiply-adds per sample, want %d", got, want)
	}
}
