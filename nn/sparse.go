package nn

import (
	"fmt"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/vec"
)

// Sparse inputs. A Net whose first layer is dense (only flattens before
// it) takes rows in compressed sparse row form without making them dense:
// the first layer computes y = b + Σ v·W[:, j] over the nonzeros (j, v) of
// each row, and its weight gradient ∂W[:, j] += v·∂y over the same
// nonzeros, so that its cost is nnz·out rather than D·out; the layers after
// it run on dense activations as usual.
//
// The weights of one input, a column of PyTorch's out×D weight, are D
// floats apart. SetSparseLayout stores that weight transposed (D×out), the
// column of every input contiguous: a nonzero then costs one vectorised
// axpy over out floats instead of out scattered loads, which matters once W
// is far larger than the caches. Both layouts give the same results up to
// float rounding.

// SparseInput reports whether the network can take sparse rows
// (ForwardSparse, FeaturesSparse, SetSparseLayout): its first layer with
// parameters is dense, with nothing but flattens before it.
func (n *Net) SparseInput() bool { return n.sp >= 0 }

// SparseArch reports whether a network of the spec on inputs of the shape
// takes sparse rows (SparseInput), without building its parameters.
func SparseArch(spec string, inShape []int) (bool, error) {
	n, err := layout(spec, inShape)
	if err != nil {
		return false, err
	}
	return n.SparseInput(), nil
}

// noSparse is the reason a Net cannot take sparse rows.
func (n *Net) noSparse() string {
	return fmt.Sprintf("the network %q does not start with a dense layer, so it cannot take sparse rows", n.spec)
}

// ForwardSparse is Forward for sparse rows: the rows rows of x (every row
// of x when rows is nil), each with InSize columns, without making them
// dense. It returns the len(rows)×OutSize outputs, owned by the Net and
// valid until the next Forward or ForwardSparse. With train = true dropout
// is active and Backward follows as after Forward (it adds the first
// layer's weight gradient over the nonzeros only); the batch's nonzeros are
// copied, so x may change before Backward. It panics when the Net cannot
// take sparse rows (SparseInput), on an empty batch, and on a row or column
// out of range.
func (n *Net) ForwardSparse(x *data.CSR, rows []int, train bool) []float32 {
	if n.sp < 0 {
		panic("nn: ForwardSparse: " + n.noSparse())
	}
	sb := &n.sbInfer
	reps := &n.featReps
	if train {
		n.trained, n.sparse = false, false
		sb, reps = &n.sb, &n.sparseReps
	}
	batch := gatherRows(sb, x, rows, n.inSize, "ForwardSparse")
	if batch < 1 {
		panic("nn: ForwardSparse: an empty batch")
	}
	if train {
		n.drawMasks(batch)
	}
	parts := 1
	if batch > 1 && n.sparseWork(sb.NNZ(), batch) >= n.splitWork {
		parts = min(n.procs(), batch)
	}
	n.ensureReps(reps, parts)
	var out []float32
	if parts == 1 {
		out = (*reps)[0].forwardSparse(sb, 0, batch, train, n.sp)
	} else {
		*n.fj = fwdJob{reps: *reps, sx: sb, batch: batch, parts: parts, sp: n.sp, train: train}
		n.pool.run(n.fj, parts, &n.wg)
		n.fj.sx = nil
		n.out = vec.Resize(n.out, batch*n.outSize)
		for i := 0; i < parts; i++ {
			lo, _ := span(batch, parts, i)
			copy(n.out[lo*n.outSize:], (*reps)[i].out)
		}
		out = n.out
	}
	if train {
		n.trained, n.sparse, n.batch, n.parts = true, true, batch, parts
		n.updateRunning(*reps, parts)
	}
	n.countForward(batch, sb.NNZ(), 0)
	return out
}

// FeaturesSparse is Features for sparse rows: it sets dst (Rows×OutSize) to
// the inference-mode outputs of every row of x, in chunks of bounded memory
// spread over the workers like Features, with the same guarantees (safe
// between a train-mode Forward and Backward, concurrent calls allowed, a
// row's output independent of the other rows). It panics like
// ForwardSparse.
func (n *Net) FeaturesSparse(dst []float32, x *data.CSR) {
	if n.sp < 0 {
		panic("nn: FeaturesSparse: " + n.noSparse())
	}
	rows := checkRows(x, n.inSize, "FeaturesSparse")
	if len(dst) < rows*n.outSize {
		panic(fmt.Sprintf("nn: FeaturesSparse: %d outputs for %d rows of %d", len(dst), rows, n.outSize))
	}
	nnz := 0
	if rows > 0 {
		nnz = int(x.Ptr[rows] - x.Ptr[0])
	}
	n.features(dst, nil, x, rows, n.sparseWork(nnz, rows))
	n.countForward(rows, nnz, 0)
}

// sparseWork returns the multiply-adds of rows sparse rows with nnz
// nonzeros in all.
func (n *Net) sparseWork(nnz, rows int) int {
	return (nnz+rows)*n.stages[n.sp].out.size() + rows*n.restWork
}

// checkRows panics unless x holds well-formed rows of in columns, and
// returns their number.
func checkRows(x *data.CSR, in int, what string) int {
	if x == nil || len(x.Ptr) == 0 {
		panic(fmt.Sprintf("nn: %s: no sparse rows (a CSR needs Rows+1 row pointers)", what))
	}
	if len(x.Idx) != len(x.Val) {
		panic(fmt.Sprintf("nn: %s: the sparse rows have %d column indices and %d values", what, len(x.Idx), len(x.Val)))
	}
	rows := x.Rows()
	for i := range rows {
		rowSpan(x, i, in, what)
	}
	return rows
}

// rowSpan returns the positions [a, b) of the nonzeros of row i of x,
// checked against the nonzeros there are and the in columns.
func rowSpan(x *data.CSR, i, in int, what string) (a, b int64) {
	a, b = x.Ptr[i], x.Ptr[i+1]
	if a < 0 || b < a || b > int64(len(x.Idx)) {
		panic(fmt.Sprintf("nn: %s: sparse row %d spans [%d, %d) of %d nonzeros", what, i, a, b, len(x.Idx)))
	}
	for _, j := range x.Idx[a:b] {
		if j < 0 || int(j) >= in {
			panic(fmt.Sprintf("nn: %s: sparse row %d has column %d, outside [0, %d)", what, i, j, in))
		}
	}
	return a, b
}

// gatherRows sets dst to the rows rows of x (all of them when rows is nil),
// checked, reusing dst's buffers, and returns their number.
func gatherRows(dst, x *data.CSR, rows []int, in int, what string) int {
	if x == nil || len(x.Ptr) == 0 {
		panic(fmt.Sprintf("nn: %s: no sparse rows (a CSR needs Rows+1 row pointers)", what))
	}
	if len(x.Idx) != len(x.Val) {
		panic(fmt.Sprintf("nn: %s: the sparse rows have %d column indices and %d values", what, len(x.Idx), len(x.Val)))
	}
	nr := x.Rows()
	batch := nr
	if rows != nil {
		batch = len(rows)
	}
	dst.Ptr = append(dst.Ptr[:0], 0)
	dst.Idx, dst.Val = dst.Idx[:0], dst.Val[:0]
	for s := range batch {
		i := s
		if rows != nil {
			if i = rows[s]; i < 0 || i >= nr {
				panic(fmt.Sprintf("nn: %s: row %d of %d sparse rows", what, i, nr))
			}
		}
		a, b := rowSpan(x, i, in, what)
		dst.Idx = append(dst.Idx, x.Idx[a:b]...)
		dst.Val = append(dst.Val, x.Val[a:b]...)
		dst.Ptr = append(dst.Ptr, int64(len(dst.Idx)))
	}
	return batch
}

// forwardSparse runs rows [lo, hi) of x through the replica: the dense
// layer sp from their nonzeros, the layers after it as usual. The layers
// before sp are flattens, the identity on rows.
func (r *replica) forwardSparse(x *data.CSR, lo, hi int, train bool, sp int) []float32 {
	h := r.layers[sp].(*dense).forwardSparse(x, lo, hi)
	return r.forwardFrom(h, lo, hi-lo, train, sp+1)
}

// forwardSparse sets y to the outputs of rows [lo, hi) of x (checked): each
// starts as the bias and adds v·W[:, j] for each nonzero (j, v), a row of w
// in the transposed layout. A row's output depends on that row only.
func (l *dense) forwardSparse(x *data.CSR, lo, hi int) []float32 {
	n := hi - lo
	l.x = nil
	l.y = vec.Resize(l.y, n*l.out)
	for s := 0; s < n; s++ {
		a, b := x.Ptr[lo+s], x.Ptr[lo+s+1]
		idx, val := x.Idx[a:b], x.Val[a:b]
		y := l.y[s*l.out : (s+1)*l.out]
		copy(y, l.b)
		if l.t {
			for k, j := range idx {
				o := int(j) * l.out
				vec.Axpy(val[k], l.w[o:o+l.out], y)
			}
			continue
		}
		for o := range y {
			w := l.w[o*l.in : (o+1)*l.in]
			acc := y[o]
			for k, j := range idx {
				acc += val[k] * w[j]
			}
			y[o] = acc
		}
	}
	if l.relu {
		reluTo(l.y, l.y)
	}
	return l.y
}

// sparseDy keeps ∂L/∂y for the n rows of the last sparse forward, given
// ∂L/∂(the layer's output) dy: masked by the fused relu.
func (l *dense) sparseDy(dy []float32, n int) {
	if l.relu {
		l.sdy = fusedReluGrad(&l.dyr, dy, l.y, n*l.out)
		return
	}
	l.sdy = dy[:n*l.out]
}

// sparseGrad adds the weight and bias gradients of rows [lo, hi) of x,
// for the outputs [c0, c1), from sdy: ∂b += ∂y and ∂W[:, j] += v·∂y for each
// nonzero (j, v) of each row, in row order. Calls on disjoint output ranges
// write disjoint gradients.
func (l *dense) sparseGrad(x *data.CSR, lo, hi, c0, c1 int) {
	for s := 0; s < hi-lo; s++ {
		dy := l.sdy[s*l.out+c0 : s*l.out+c1]
		vec.Axpy(1, dy, l.gb[c0:c1])
		a, b := x.Ptr[lo+s], x.Ptr[lo+s+1]
		idx, val := x.Idx[a:b], x.Val[a:b]
		if l.t {
			for k, j := range idx {
				o := int(j) * l.out
				vec.Axpy(val[k], dy, l.gw[o+c0:o+c1])
			}
			continue
		}
		for o, d := range dy {
			if d == 0 {
				continue // a relu's zero (or a dropped output)
			}
			g := l.gw[(c0+o)*l.in : (c0+o+1)*l.in]
			for k, j := range idx {
				g[j] += d * val[k]
			}
		}
	}
}

// backwardSparse is Backward after a train-mode ForwardSparse: the layers
// after the first dense one backpropagate as usual (split as the forward
// pass was), giving ∂L/∂y of the first layer for every row; its weight
// gradient is then added over the nonzeros into Param.G directly, split by
// output ranges (each gradient element summed in row order, whatever the
// split).
func (n *Net) backwardSparse(dout []float32) {
	if n.parts == 1 {
		r := n.sparseReps[0]
		r.layers[n.sp].(*dense).sparseDy(r.backwardTo(dout, n.batch, n.sp+1), n.batch)
	} else {
		*n.sbj = sparseBwdJob{reps: n.sparseReps, dout: dout, batch: n.batch, parts: n.parts, out: n.outSize, sp: n.sp}
		n.pool.run(n.sbj, n.parts, &n.wg)
		n.sbj.dout = nil
		for _, r := range n.sparseReps[1:n.parts] {
			for i, p := range n.params {
				if r.grads[i] != nil {
					vec.Axpy(1, r.grads[i], p.G)
				}
			}
		}
	}
	out := n.stages[n.sp].out.size()
	pieces := 1
	if out >= 16 && n.sb.NNZ()*out >= n.splitWork {
		pieces = min(n.procs(), out/8)
	}
	*n.gj = sparseGradJob{reps: n.sparseReps, x: &n.sb, batch: n.batch, parts: n.parts, sp: n.sp, out: out, pieces: pieces}
	if pieces == 1 {
		n.gj.run(0)
	} else {
		n.pool.run(n.gj, pieces, &n.wg)
	}
	n.gj.x = nil
	for _, r := range n.sparseReps[:n.parts] {
		r.layers[n.sp].(*dense).sdy = nil // may alias dout
	}
}

type sparseBwdJob struct {
	reps                  []*replica
	dout                  []float32
	batch, parts, out, sp int
}

func (j *sparseBwdJob) run(i int) {
	lo, hi := span(j.batch, j.parts, i)
	r := j.reps[i]
	for _, g := range r.grads {
		clear(g)
	}
	dy := r.backwardTo(j.dout[lo*j.out:hi*j.out], hi-lo, j.sp+1)
	r.layers[j.sp].(*dense).sparseDy(dy, hi-lo)
}

// sparseGradJob adds the first layer's gradients of a sparse batch, piece
// p taking the outputs [cut(p), cut(p+1)) of every row. The cuts are
// multiples of 8 and the pieces at least 8 wide, so that every element is
// computed by the same vector instructions whatever the number of pieces.
type sparseGradJob struct {
	reps                          []*replica
	x                             *data.CSR
	batch, parts, sp, out, pieces int
}

func (j *sparseGradJob) cut(p int) int {
	if p == j.pieces {
		return j.out
	}
	return p * j.out / j.pieces &^ 7
}

func (j *sparseGradJob) run(p int) {
	c0, c1 := j.cut(p), j.cut(p+1)
	for i := 0; i < j.parts; i++ {
		lo, hi := span(j.batch, j.parts, i)
		j.reps[i].layers[j.sp].(*dense).sparseGrad(j.x, lo, hi, c0, c1)
	}
}
