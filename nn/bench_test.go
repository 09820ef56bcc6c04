package nn

import (
	"testing"

	"github.com/nsvm-go/nsvm/data"
)

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

// The sparse workloads: tf-idf-like rows of sparseD features with
// sparseNNZ nonzeros each, at uniformly random columns (the worst case for
// the caches), through sparseArch. A step cycles through sparseBatches
// different batches, so that the weights it touches are not all cached.
const (
	sparseArch    = "dense(256),relu,dense(128),relu"
	sparseD       = 250000
	sparseNNZ     = 90
	sparseBatches = 64
)

// sparseBenchRows returns rows sparse rows of d features with nnz
// nonzeros each, values in (0, 1].
func sparseBenchRows(rows, d, nnz int) *data.CSR {
	rng := newRand(2)
	x := &data.CSR{Ptr: make([]int64, 1, rows+1)}
	seen := map[int32]bool{}
	for range rows {
		clear(seen)
		for len(seen) < nnz {
			seen[int32(rng.IntN(d))] = true
		}
		start := len(x.Idx)
		for j := range seen {
			x.Idx = append(x.Idx, j)
		}
		row := x.Idx[start:]
		for i := 1; i < len(row); i++ { // insertion sort: columns increase
			for k := i; k > 0 && row[k] < row[k-1]; k-- {
				row[k], row[k-1] = row[k-1], row[k]
			}
		}
		for range row {
			x.Val = append(x.Val, float32(1-rng.Float64()))
		}
		x.Ptr = append(x.Ptr, int64(len(x.Idx)))
	}
	return x
}

// benchSparse runs b.N steps on batches of 64 sparse rows: ZeroGrad,
// ForwardSparse(train), Backward with a fixed cotangent (its sign
// alternating) and, with newOpt set, a step of the optimizer it makes;
// without it only the forward and backward passes (the gradient
// accumulates).
func benchSparse(b *testing.B, layout bool, newOpt func([]*Param) Optimizer) {
	const batch = 64
	n := mustNew(b, sparseArch, []int{sparseD}, 1)
	if err := n.SetSparseLayout(layout); err != nil {
		b.Fatal(err)
	}
	var opt Optimizer
	if newOpt != nil {
		opt = newOpt(n.Params())
	}
	x := sparseBenchRows(batch*sparseBatches, sparseD, sparseNNZ)
	rows := make([][]int, sparseBatches)
	for k := range rows {
		for i := range batch {
			rows[k] = append(rows[k], k*batch+i)
		}
	}
	c := [2][]float32{uniform(newRand(3), batch*n.OutSize(), -1, 1)}
	c[1] = make([]float32, len(c[0]))
	for i, v := range c[0] {
		c[1][i] = -v
	}
	step := func(i int) {
		if opt != nil {
			opt.ZeroGrad()
		}
		n.ForwardSparse(x, rows[i%sparseBatches], true)
		n.Backward(c[i&1])
		if opt != nil {
			opt.Step()
		}
	}
	step(0)
	step(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		step(i)
	}
}

// sgd returns a constructor of the SGD of benchStep (lr 0.01) with the
// given momentum and weight decay.
func sgd(momentum, wd float64) func([]*Param) Optimizer {
	return func(p []*Param) Optimizer { return NewSGD(p, 0.01, momentum, wd, false) }
}

// BenchmarkSparseStep64 is one training step on 64 rows of 250000
// features with 90 nonzeros each through dense(256),relu,dense(128),relu
// in the sparse layout, with the SGD of benchStep. The first layer's W
// (64M parameters) makes the optimizer step, which touches all of W, G and
// the momentum, the bulk of it.
func BenchmarkSparseStep64(b *testing.B) { benchSparse(b, true, sgd(0.9, 1e-4)) }

// BenchmarkSparseStep64PlainSGD is BenchmarkSparseStep64 with SGD without
// momentum or weight decay.
func BenchmarkSparseStep64PlainSGD(b *testing.B) { benchSparse(b, true, sgd(0, 0)) }

// BenchmarkSparseGrad64 is the forward and backward passes of
// BenchmarkSparseStep64 alone: the cost of the sparse gradient.
func BenchmarkSparseGrad64(b *testing.B) { benchSparse(b, true, nil) }

// BenchmarkSparseGrad64RowMajor is BenchmarkSparseGrad64 with W in
// PyTorch's layout (strided gathers and scatters).
func BenchmarkSparseGrad64RowMajor(b *testing.B) { benchSparse(b, false, nil) }

// BenchmarkDenseStep64x1000 is the dense step of the same architecture on
// 64 rows of 1000 features, for scale.
func BenchmarkDenseStep64x1000(b *testing.B) { benchStep(b, sparseArch, []int{1000}, 64) }

// BenchmarkSparseFeatures4096 computes the features of 4096 sparse rows of
// BenchmarkSparseStep64.
func BenchmarkSparseFeatures4096(b *testing.B) {
	n := mustNew(b, sparseArch, []int{sparseD}, 1)
	if err := n.SetSparseLayout(true); err != nil {
		b.Fatal(err)
	}
	x := sparseBenchRows(4096, sparseD, sparseNNZ)
	dst := make([]float32, x.Rows()*n.OutSize())
	n.FeaturesSparse(dst, x)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n.FeaturesSparse(dst, x)
	}
}

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

// ImageArch is the CNN the selection sizes for 28×28 images (nsvm's
// cnnArch): two 5×5 convolutions of 32 and 64 channels with max-pooling
// and a dense layer of 256 features, each followed by batch normalisation.
const imageArch = "conv(32,5),maxpool(2),batchnorm,relu,conv(64,5),maxpool(2),batchnorm,relu,flatten,dense(256),batchnorm,relu,dropout(0.5)"

// BenchmarkImageCNNStep64 is one batch-64 training step of imageArch.
func BenchmarkImageCNNStep64(b *testing.B) { benchStep(b, imageArch, []int{1, 28, 28}, 64) }

// BenchmarkImageCNNForward10000 computes imageArch's features of 10000
// images.
func BenchmarkImageCNNForward10000(b *testing.B) {
	benchFeatures(b, imageArch, []int{1, 28, 28}, 10000)
}
