package nn

import "sync/atomic"

// Work counts the multiply-adds of a network's products — the conv and
// dense layers' weights applied to their inputs — by layer kind and pass:
// Forward (training and inference) and Backward (the weight gradients, and
// the input gradients that Backward computes: every such layer's but the
// first's). A dense layer on sparse rows counts its nonzeros times its
// width; a convolution whose training passes use Winograd's algorithm
// (winograd.go) the products those passes make, its transforms included. Elementwise layers (batchnorm, pooling, activations, dropout) are
// not counted: their work is a few operations per activation, where a
// product's is one per weight and output. The counts do not depend on the
// machine, the number of cores or the build (assembly or pure Go).
type Work struct {
	ConvForward, ConvBackward   int64
	DenseForward, DenseBackward int64
}

// Total returns all the multiply-adds of w.
func (w Work) Total() int64 {
	return w.ConvForward + w.ConvBackward + w.DenseForward + w.DenseBackward
}

// Plus returns w + o, count by count.
func (w Work) Plus(o Work) Work {
	return Work{w.ConvForward + o.ConvForward, w.ConvBackward + o.ConvBackward,
		w.DenseForward + o.DenseForward, w.DenseBackward + o.DenseBackward}
}

// Minus returns w − o, count by count.
func (w Work) Minus(o Work) Work {
	return Work{w.ConvForward - o.ConvForward, w.ConvBackward - o.ConvBackward,
		w.DenseForward - o.DenseForward, w.DenseBackward - o.DenseBackward}
}

// Tally accumulates the Work of the networks that count into it
// (Net.CountInto). It is safe for concurrent use; its zero value is empty.
type Tally struct {
	c [4]atomic.Int64 // ConvForward, ConvBackward, DenseForward, DenseBackward
}

// Work returns the multiply-adds counted so far.
func (t *Tally) Work() Work {
	return Work{t.c[0].Load(), t.c[1].Load(), t.c[2].Load(), t.c[3].Load()}
}

// The passes a Tally counts.
const (
	passForward  = 0
	passBackward = 1
)

// add adds macs multiply-adds of a layer of kind k (Conv or Dense) in
// pass to t; a nil Tally counts nothing.
func (t *Tally) add(k Kind, pass int, macs int) {
	if t == nil || macs == 0 {
		return
	}
	i := pass
	if k == Dense {
		i += 2
	}
	t.c[i].Add(int64(macs))
}

// CountInto makes n count its Work into t from now on, and so the nets
// cloned from it after this call; nil stops the counting.
func (n *Net) CountInto(t *Tally) { n.tally = t }

// stageMACs returns the multiply-adds per sample of stage st's product:
// forward, weight gradient and input gradient (0 for a stage without one).
func stageMACs(st stage) (fwd, dw, dx int) {
	if st.spec.Kind != Conv && st.spec.Kind != Dense {
		return 0, 0, 0
	}
	return st.flops, st.flops, st.flops
}

// countForward counts the forward products of rows rows; sparseNNZ ≥ 0
// says they came as sparse rows with that many nonzeros (the first dense
// layer then costs nonzeros × width). A train-mode pass (parts > 0, the
// batch split into that many parts) counts the products of Winograd's
// algorithm for the convolutions that use it.
func (n *Net) countForward(rows, sparseNNZ, parts int) {
	t := n.tally
	if t == nil {
		return
	}
	for i, st := range n.stages {
		f, _, _ := stageMACs(st)
		switch {
		case sparseNNZ >= 0 && i == n.sp:
			f = sparseNNZ * st.out.size()
		case parts > 0 && useWinograd(st):
			f = 0
			for p := 0; p < parts; p++ {
				lo, hi := span(rows, parts, p)
				w, _ := winoMACs(st, hi-lo, false)
				f += w
			}
		default:
			f *= rows
		}
		t.add(st.spec.Kind, passForward, f)
	}
}

// countBackward counts the backward products of a batch of rows after a
// train-mode forward pass (sparse: its rows had sparseNNZ nonzeros, else
// sparseNNZ < 0).
func (n *Net) countBackward(rows, sparseNNZ int) {
	t := n.tally
	if t == nil {
		return
	}
	first := -1
	for i, st := range n.stages {
		if st.param >= 0 {
			first = i
			break
		}
	}
	for i, st := range n.stages {
		_, dw, dx := stageMACs(st)
		if sparseNNZ >= 0 && i == n.sp {
			t.add(st.spec.Kind, passBackward, sparseNNZ*st.out.size())
			continue
		}
		if i <= first {
			dx = 0 // Backward stops at the first layer with parameters
		}
		if useWinograd(st) {
			b := 0
			for p := 0; p < n.parts; p++ {
				lo, hi := span(rows, n.parts, p)
				_, w := winoMACs(st, hi-lo, i > first)
				b += w
			}
			t.add(st.spec.Kind, passBackward, b)
			continue
		}
		t.add(st.spec.Kind, passBackward, (dw+dx)*rows)
	}
}
