package nn

import (
	"fmt"
	"math"
)

// SparseLayout reports whether the weight of the first dense layer is
// stored transposed (Param.Transposed), the layout for sparse rows.
func (n *Net) SparseLayout() bool {
	return n.sp >= 0 && n.params[n.stages[n.sp].param].Transposed
}

// SetSparseLayout stores the weight of the first dense layer (and its
// gradient) transposed, D×out, when on, or in PyTorch's out×D layout when
// off; the values are unchanged, only their order (Param.Transposed,
// Param.Torch). Sparse rows are much faster through the transposed layout
// (10× or more for the forward and backward passes of a batch of 64 rows of
// 250000 features, BenchmarkSparseGrad64); dense rows are slower through it
// (measured 1.5× for a training step, 2.3× for Features). The
// Params keep their slices,
// so optimizers built before still update them, but their buffers
// (momentum, Adam moments) are not reordered: set the layout before the
// first optimizer step, or before restoring an optimizer's state. It must
// not run at the same time as any other method. It fails on a Net that
// cannot take sparse rows.
func (n *Net) SetSparseLayout(on bool) error {
	if n.sp < 0 {
		return fmt.Errorf("nn: SetSparseLayout: %s", n.noSparse())
	}
	w := n.params[n.stages[n.sp].param]
	if w.Transposed == on {
		return nil
	}
	rows, cols := w.Shape[0], w.Shape[1]
	if w.Transposed {
		rows, cols = cols, rows
	}
	var tmp []float32
	for _, b := range [][]float32{w.W, w.G} {
		if allZero(b) {
			continue // a fresh gradient
		}
		if tmp == nil {
			tmp = make([]float32, len(b))
		}
		copy(tmp, b)
		transpose(b, tmp, rows, cols)
	}
	n.markSparseLayout(on)
	return nil
}

// markSparseLayout sets the layout flag of the first dense layer's weight
// and of that layer in every replica, without moving any value.
func (n *Net) markSparseLayout(on bool) {
	n.params[n.stages[n.sp].param].Transposed = on
	set := func(reps []*replica) {
		for _, r := range reps {
			r.layers[n.sp].(*dense).t = on
		}
	}
	set(n.trainReps)
	set(n.featReps)
	set(n.sparseReps)
	n.inferMu.Lock()
	set(n.inferIdle)
	n.inferMu.Unlock()
}

// allZero reports whether every bit of b is zero.
func allZero(b []float32) bool {
	for _, v := range b {
		if math.Float32bits(v) != 0 {
			return false
		}
	}
	return true
}

// transpose sets dst (cols×rows) to the transpose of src (rows×cols), both
// row-major, in blocks that stay in L1. Within a block it writes dst a row
// at a time and reads src down a column: dst's rows lie rows floats apart,
// often a multiple of 4 KB, and writing down a column of dst would put
// every value of a block in the same cache set (5–9× slower on the
// Winograd kernels' 2048 × 25 weights).
func transpose(dst, src []float32, rows, cols int) {
	const bs = 32
	dst, src = dst[:rows*cols], src[:rows*cols]
	for i0 := 0; i0 < rows; i0 += bs {
		i1 := min(rows, i0+bs)
		for j0 := 0; j0 < cols; j0 += bs {
			j1 := min(cols, j0+bs)
			for j := j0; j < j1; j++ {
				d := dst[j*rows+i0 : j*rows+i1]
				for i := range d {
					d[i] = src[(i0+i)*cols+j]
				}
			}
		}
	}
}
