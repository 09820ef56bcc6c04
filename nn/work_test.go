package nn

import (
	"testing"
)

// A Tally counts the products of every pass: a training step of the image
// CNN is its forward, weight-gradient and input-gradient multiply-adds
// (none for the first layer's input; the second convolution's by
// Winograd's algorithm, on each of the two parts of the batch), Features
// its forward ones (direct), and a clone counts into its original's Tally.
func TestWork(t *testing.T) {
	n := mustNew(t, imageArch, []int{1, 28, 28}, 1)
	var tl Tally
	n.CountInto(&tl)
	const batch = 6
	x := uniform(newRand(2), batch*n.InSize(), 0, 1)
	n.Forward(x, batch, true)
	n.Backward(uniform(newRand(3), batch*n.OutSize(), -1, 1))
	w := tl.Work()
	// conv(32,5) on 28×28 and conv(64,5) on 12×12; dense(256) on 1024.
	c1, c2, d := int64(24*24*32*25), int64(8*8*64*800), int64(1024*256)
	// Winograd F(4×4, 5×5) for conv(64,5) on a part of 3 samples (α = 8,
	// 2×2 tiles): the input transform 2·64·12·96 + 4·512·96, the kernels'
	// 8·5·2048·13, the products 64·4·3·2048 and the output transform
	// 4·192·(64·4 + 8·16), along the tile's columns then its rows; backward
	// the output's, the products' and the kernels' again, and with the
	// input gradient the products' and the input's again.
	inT, filt, prod, outT := int64(2*64*12*96+4*512*96), int64(8*5*2048*13), int64(64*4*3*2048), int64(4*192*(64*4+8*16))
	wf, wb := inT+filt+prod+outT, outT+prod+filt+prod+inT
	want := Work{ConvForward: batch*c1 + 2*wf, ConvBackward: batch*c1 + 2*wb, DenseForward: batch * d, DenseBackward: batch * 2 * d}
	if w != want {
		t.Fatalf("a step counted %+v, want %+v", w, want)
	}
	c := n.Clone()
	c.Features(make([]float32, 10*n.OutSize()), uniform(newRand(4), 10*n.InSize(), 0, 1), 10)
	if got := tl.Work().Minus(w); got != (Work{ConvForward: 10 * (c1 + c2), DenseForward: 10 * d}) {
		t.Fatalf("Features of 10 rows on a clone counted %+v", got)
	}
	n.CountInto(nil)
	n.Forward(x, batch, false)
	if tl.Work() != w.Plus(Work{ConvForward: 10 * (c1 + c2), DenseForward: 10 * d}) {
		t.Fatal("a net counted after CountInto(nil)")
	}
}

// A dense layer on sparse rows counts its nonzeros times its width.
func TestWorkSparse(t *testing.T) {
	const d, rows = 50, 7
	n := mustNew(t, "dense(8),relu,dense(3)", []int{d}, 1)
	var tl Tally
	n.CountInto(&tl)
	x := randomCSR(newRand(5), rows, d, 0.1)
	n.ForwardSparse(x, nil, true)
	n.Backward(uniform(newRand(6), rows*3, -1, 1))
	nnz := int64(x.NNZ())
	want := Work{DenseForward: nnz*8 + rows*8*3, DenseBackward: nnz*8 + 2*rows*8*3}
	if got := tl.Work(); got != want {
		t.Fatalf("counted %+v, want %+v", got, want)
	}
}
