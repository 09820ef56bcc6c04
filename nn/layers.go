package nn

import (
	"math"

	"github.com/nsvm-go/nsvm/internal/vec"
)

// layer is one stage of a replica. Activations are laid out either
// sample-major ("rows": n × size, the PyTorch NCHW order for images) or
// channel-first across the batch ("cf": C × n × H × W, so that a
// convolution over the whole batch is one GEMM). For n = 1 both layouts
// coincide. Each layer owns its output and input-gradient buffers; they grow
// on demand and are reused, so a warm layer does not allocate.
type layer interface {
	// forward returns the output for the n samples in x. The returned
	// slice is owned by the layer (or is x itself for identities) and stays
	// valid until the next forward.
	forward(x []float32, n int, train bool) []float32
	// backward takes ∂L/∂output for the most recent forward, adds the
	// parameter gradients and returns ∂L/∂input when needDx (else nil). It
	// never writes into dy.
	backward(dy []float32, n int, needDx bool) []float32
}

// fill sets every element of b to v by doubling copies (memmove is much
// faster than a loop of stores).
func fill(b []float32, v float32) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// dense is y = x·Wᵀ + b on rows of length in; W is out×in (PyTorch layout),
// or with t set in×out (Wᵀ, the sparse layout: the weights of one input are
// contiguous). With relu set, a following ReLU is fused in (applied in place
// on y). The first dense layer of a Net also takes sparse rows (sparse.go).
type dense struct {
	in, out      int
	relu         bool
	t            bool // w and gw hold Wᵀ
	w, b, gw, gb []float32
	x, y, dx     []float32
	dyr          []float32 // dy masked by the fused relu
	sdy          []float32 // ∂L/∂y (relu applied) of the last sparse batch
}

func (l *dense) forward(x []float32, n int, train bool) []float32 {
	l.x = x[:n*l.in]
	l.y = vec.Resize(l.y, n*l.out)
	// Every row starts as the bias (doubling copies), then Y += X·Wᵀ. In
	// inference every row is computed the same way whatever the batch
	// (vec.SgemmDots), so that a prediction does not depend on the rows
	// batched with it.
	copy(l.y, l.b)
	for r := 1; r < n; r *= 2 {
		copy(l.y[r*l.out:], l.y[:r*l.out])
	}
	switch {
	case train && l.t:
		gemm(false, false, n, l.out, l.in, 1, l.x, l.in, l.w, l.out, 1, l.y, l.out)
	case train:
		gemm(false, true, n, l.out, l.in, 1, l.x, l.in, l.w, l.in, 1, l.y, l.out)
	case l.t:
		// One product per row, so that a row's output does not depend on
		// the rows batched with it.
		for s := 0; s < n; s++ {
			gemm(false, false, 1, l.out, l.in, 1, l.x[s*l.in:], l.in, l.w, l.out, 1, l.y[s*l.out:], l.out)
		}
	default:
		vec.SgemmDots(n, l.out, l.in, 1, l.x, l.in, l.w, l.in, 1, l.y, l.out)
	}
	if l.relu {
		reluTo(l.y, l.y)
	}
	return l.y
}

func (l *dense) backward(dy []float32, n int, needDx bool) []float32 {
	if l.relu {
		dy = fusedReluGrad(&l.dyr, dy, l.y, n*l.out)
	}
	// ∂W += dyᵀ·x (∂Wᵀ += xᵀ·dy), ∂b += Σ_s dy_s, ∂x = dy·W.
	if l.t {
		gemm(true, false, l.in, l.out, n, 1, l.x, l.in, dy, l.out, 1, l.gw, l.out)
	} else {
		gemm(true, false, l.out, l.in, n, 1, dy, l.out, l.x, l.in, 1, l.gw, l.in)
	}
	for s := 0; s < n; s++ {
		vec.Axpy(1, dy[s*l.out:(s+1)*l.out], l.gb)
	}
	if !needDx {
		return nil
	}
	l.dx = vec.Resize(l.dx, n*l.in)
	if l.t {
		gemm(false, true, n, l.in, l.out, 1, dy, l.out, l.w, l.out, 0, l.dx, l.in)
	} else {
		gemm(false, false, n, l.in, l.out, 1, dy, l.out, l.w, l.in, 0, l.dx, l.in)
	}
	return l.dx
}

// fusedReluGrad returns the first m values of dy masked by a ReLU fused into
// a layer whose output is y, written into *buf (grown as needed).
func fusedReluGrad(buf *[]float32, dy, y []float32, m int) []float32 {
	*buf = vec.Resize(*buf, m)
	vec.ReluGrad(*buf, dy[:m], y[:m])
	return *buf
}

// conv is a 2-D convolution (cross-correlation as in PyTorch), stride 1, no
// padding. The input is cin × h × w per sample, in rows layout (NCHW) or,
// when cfIn, channel-first across the batch; the output is always
// channel-first: cout × (n·ho·wo).
//
// When the output width is a multiple of vec.ConvVec (implicit), the layer
// is three implicit-im2col products (vec.ConvForward, ConvWeightGrad,
// ConvInputGrad) that gather the input through tables of offsets instead of
// building the im2col matrix. Otherwise the forward pass builds the im2col
// matrix cols [cin·k·k + 1 × n·ho·wo], whose last row is all ones, and
// computes Y = [W | b]·cols with one GEMM; the backward pass gets ∂[W | b]
// from one GEMM as well. (Loops over the data in Go are several times slower
// than the vectorised GEMM and copies, so the bias rides along in the
// GEMMs.)
type conv struct {
	relu                       bool // a following ReLU is fused in (applied in place on y)
	cin, h, w, cout, k, ho, wo int
	ow                         int // output row stride: wo, or w when padded
	chunk                      int // samples per im2col block (see convChunkBytes)
	cfIn                       bool
	wt, b, gw, gb              []float32
	wb, gwb                    []float32 // [W | b] and its gradient, cout × (cin·k·k+1)
	x                          []float32 // input of the last forward
	colsAt                     int       // first sample of the block in cols, −1 if none
	cols, y, dcols, dx         []float32
	dyr                        []float32 // dy masked by the fused relu

	// implicit path
	implicit bool      // the output width suits the implicit kernels
	imp      bool      // the last forward took the implicit path
	tabN     int       // batch size of off and offT, −1 if none
	off      []int32   // input offset of each im2col row, rows in (c, ky, kx) order
	offT     []int32   // the same in (ky, kx, c) order, for the input gradient
	xo       []int32   // input offset of each output vector, sample-major
	wT       []float32 // W with its columns in (ky, kx, c) order
	ones     []float32 // for the bias gradient

	// Winograd's algorithm for the training passes (winograd.go), nil
	// when the layer does not use it; usedWino: the last forward did.
	wino     *winoConv
	usedWino bool
}

// implicitConv reports whether a conv with output width wo runs the
// implicit-im2col kernels: its output rows split into whole vectors.
func implicitConv(wo int) bool { return wo%vec.ConvVec == 0 }

// convChunkBytes bounds the im2col block of a convolution: a batch is
// convolved in blocks of samples whose cols fit in a share of L2, each block
// one GEMM writing its columns of Y (the columns of a sample range are a
// sub-matrix of the channel-first Y). Backward rebuilds the cols of each
// block (copies are cheap next to cache misses) rather than keeping the
// whole batch's.
const convChunkBytes = 256 << 10

// convCallBytes bounds the input of the samples given to one implicit
// forward call, so that it stays in L1 while every block of channels passes
// over it.
const convCallBytes = 16 << 10

// biasChunk is the length of the ones vector the bias gradient is summed
// against.
const biasChunk = 512

// strides returns the offsets between channels and between samples of the
// input for a batch of n.
func (l *conv) strides(n int) (cs, ns int) {
	hw := l.h * l.w
	if l.cfIn {
		return n * hw, hw
	}
	return hw, l.cin * hw
}

// vecs returns the number of output vectors per sample (implicit path).
func (l *conv) vecs() int { return l.ho * l.wo / vec.ConvVec }

// tables prepares off, offT and xo for a batch of n (implicit path). The
// vector offsets do not depend on n, so xo only grows.
func (l *conv) tables(n int) {
	cs, ns := l.strides(n)
	if l.tabN != n {
		ckk := l.cin * l.k * l.k
		if len(l.off) != ckk {
			l.off, l.offT = make([]int32, ckk), make([]int32, ckk)
		}
		r := 0
		for c := 0; c < l.cin; c++ {
			for ky := 0; ky < l.k; ky++ {
				for kx := 0; kx < l.k; kx++ {
					o := int32(c*cs + ky*l.w + kx)
					l.off[r] = o
					l.offT[(ky*l.k+kx)*l.cin+c] = o
					r++
				}
			}
		}
		l.tabN = n
	}
	vps := l.vecs()
	for s := len(l.xo) / vps; s < n; s++ {
		for oy := 0; oy < l.ho; oy++ {
			for ox := 0; ox < l.wo; ox += vec.ConvVec {
				l.xo = append(l.xo, int32(s*ns+oy*l.w+ox))
			}
		}
	}
}

// im2colBlock fills cols for samples [s0, s0+m) of the batch of n in x.
func (l *conv) im2colBlock(n, s0, m int) {
	ckk := l.cin * l.k * l.k
	npc := m * l.ho * l.ow
	cs, ns := l.strides(n)
	l.cols = vec.Resize(l.cols, (ckk+1)*npc)
	im2col(l.cols, l.x[s0*ns:], m, l.cin, l.h, l.w, l.k, l.ho, l.wo, l.ow, cs, ns)
	fill(l.cols[ckk*npc:(ckk+1)*npc], 1)
	l.colsAt = s0
}

func (l *conv) forward(x []float32, n int, train bool) []float32 {
	l.usedWino = train && l.wino != nil
	if l.usedWino {
		return l.winoForward(x, n)
	}
	// The kernels' offsets are int32: a larger batch takes the GEMM path
	// (with unpadded rows, which it handles as well).
	l.imp = l.implicit && n*l.cin*l.h*l.w <= math.MaxInt32-vec.ConvVec
	if l.imp {
		return l.forwardImplicit(x, n)
	}
	sp := l.ho * l.ow // output columns per sample
	np := n * sp
	ckk := l.cin * l.k * l.k
	k1 := ckk + 1
	l.x = x
	l.wb = vec.Resize(l.wb, l.cout*k1)
	for c := 0; c < l.cout; c++ {
		copy(l.wb[c*k1:c*k1+ckk], l.wt[c*ckk:(c+1)*ckk])
		l.wb[c*k1+ckk] = l.b[c]
	}
	l.y = vec.Resize(l.y, l.cout*np)
	// In inference one sample per product, so that a sample's output does
	// not depend on the samples batched with it (the GEMM's column tiles
	// would otherwise fall differently).
	chunk := l.chunk
	if !train {
		chunk = 1
	}
	for s0 := 0; s0 < n; s0 += chunk {
		m := min(chunk, n-s0)
		l.im2colBlock(n, s0, m)
		gemm(false, false, l.cout, m*sp, k1, 1, l.wb, k1, l.cols, m*sp, 0, l.y[s0*sp:], np)
	}
	if l.relu {
		reluTo(l.y, l.y)
	}
	return l.y
}

// forwardImplicit is forward on the implicit path: a few samples per call,
// whose input stays in L1 while every block of channels passes over it.
// Every output depends on its own sample only, in training as in
// inference.
func (l *conv) forwardImplicit(x []float32, n int) []float32 {
	sp := l.ho * l.wo
	np := n * sp
	ckk := l.cin * l.k * l.k
	l.x = x[:n*l.cin*l.h*l.w]
	l.tables(n)
	l.y = vec.Resize(l.y, l.cout*np)
	vps := l.vecs()
	per := max(1, convCallBytes/(4*l.cin*l.h*l.w))
	for s0 := 0; s0 < n; s0 += per {
		s1 := min(n, s0+per)
		vec.ConvForward(l.cout, l.wt, ckk, l.b, l.x, l.off, l.xo[s0*vps:s1*vps], l.y[s0*sp:], np)
	}
	if l.relu {
		reluTo(l.y, l.y)
	}
	return l.y
}

func (l *conv) backward(dy []float32, n int, needDx bool) []float32 {
	if l.usedWino {
		return l.winoBackward(dy, n, needDx)
	}
	if l.imp {
		return l.backwardImplicit(dy, n, needDx)
	}
	sp := l.ho * l.ow
	np := n * sp
	ckk := l.cin * l.k * l.k
	k1 := ckk + 1
	l.gwb = vec.Resize(l.gwb, l.cout*k1)
	if l.relu {
		dy = fusedReluGrad(&l.dyr, dy, l.y, l.cout*np)
	}
	if needDx {
		l.dx = vec.Resize(l.dx, n*l.cin*l.h*l.w)
		clear(l.dx)
	}
	cs, ns := l.strides(n)
	// Blocks from the last, whose cols the forward pass left in place.
	last := (n - 1) / l.chunk * l.chunk
	for s0 := last; s0 >= 0; s0 -= l.chunk {
		m := min(l.chunk, n-s0)
		npc := m * sp
		if l.colsAt != s0 {
			l.im2colBlock(n, s0, m)
		}
		// ∂[W | b] = dY·colsᵀ; ∂cols = Wᵀ·dY, scattered back by col2im.
		beta := float32(1)
		if s0 == last {
			beta = 0
		}
		gemm(false, true, l.cout, k1, npc, 1, dy[s0*sp:], np, l.cols, npc, beta, l.gwb, k1)
		if needDx {
			l.dcols = vec.Resize(l.dcols, ckk*npc)
			gemm(true, false, ckk, npc, l.cout, 1, l.wt, ckk, dy[s0*sp:], np, 0, l.dcols, npc)
			col2im(l.dx[s0*ns:], l.dcols, m, l.cin, l.h, l.w, l.k, l.ho, l.wo, l.ow, cs, ns)
		}
	}
	for c := 0; c < l.cout; c++ {
		vec.Axpy(1, l.gwb[c*k1:c*k1+ckk], l.gw[c*ckk:(c+1)*ckk])
		l.gb[c] += l.gwb[c*k1+ckk]
	}
	if !needDx {
		return nil
	}
	return l.dx
}

// backwardImplicit is backward on the implicit path: ∂W += dY·colsᵀ and
// ∂b += the row sums of dY straight into the gradients, and ∂x = the
// scatter of Wᵀ·dY without a cols matrix.
func (l *conv) backwardImplicit(dy []float32, n int, needDx bool) []float32 {
	sp := l.ho * l.wo
	np := n * sp
	ckk := l.cin * l.k * l.k
	if l.relu {
		dy = fusedReluGrad(&l.dyr, dy, l.y, l.cout*np)
	}
	xo := l.xo[:n*l.vecs()]
	vec.ConvWeightGrad(l.cout, dy, np, l.x, l.off, xo, l.gw, ckk)
	if len(l.ones) == 0 {
		l.ones = make([]float32, biasChunk)
		fill(l.ones, 1)
	}
	for c := 0; c < l.cout; c++ {
		row := dy[c*np : (c+1)*np]
		var s float32
		for p := 0; p < np; p += biasChunk {
			q := min(np, p+biasChunk)
			s += vec.Dot(row[p:q], l.ones[:q-p])
		}
		l.gb[c] += s
	}
	if !needDx {
		return nil
	}
	kk := l.k * l.k
	l.wT = vec.Resize(l.wT, l.cout*ckk)
	for c := 0; c < l.cout; c++ {
		src, dst := l.wt[c*ckk:(c+1)*ckk], l.wT[c*ckk:(c+1)*ckk]
		for ci := 0; ci < l.cin; ci++ {
			for q := 0; q < kk; q++ {
				dst[q*l.cin+ci] = src[ci*kk+q]
			}
		}
	}
	l.dx = vec.Resize(l.dx, n*l.cin*l.h*l.w)
	clear(l.dx)
	vec.ConvInputGrad(l.cout, l.wT, ckk, dy, np, l.offT, xo, l.dx)
	return l.dx
}

// im2col sets cols[(c·k+ky)·k+kx][s·ho·ow + oy·ow + ox] = x(c, s, oy+ky, ox+kx)
// for ox < wo, where x(c, s, y, x) = x[c·cs + s·ns + y·w + x]. With ow = w
// (padded), the block of each (c, ky, kx, s) is one run of the input plane:
// the columns ox ≥ wo then hold the start of the next input row, and the
// entries that would lie past the plane are zero, so all stay finite.
func im2col(cols, x []float32, n, cin, h, w, k, ho, wo, ow, cs, ns int) {
	im2colRuns(cols, x, n, cin, h, w, k, ho, wo, ow, cs, ns, false)
}

// col2im is the adjoint of im2col: it adds cols back into dx. In the padded
// layout the garbage columns of cols must be zero (they are, when they come
// from Wᵀ·dY with the garbage columns of dY zero).
func col2im(dx, cols []float32, n, cin, h, w, k, ho, wo, ow, cs, ns int) {
	im2colRuns(cols, dx, n, cin, h, w, k, ho, wo, ow, cs, ns, true)
}

// im2colRuns walks the runs of elements that im2col copies from x to cols:
// it copies them (clearing the entries past the plane), or, with add, adds
// them from cols back into x (col2im).
func im2colRuns(cols, x []float32, n, cin, h, w, k, ho, wo, ow, cs, ns int, add bool) {
	move := func(c, xs []float32) {
		if add {
			vec.Axpy(1, c, xs)
		} else {
			copy(c, xs)
		}
	}
	np, blk := n*ho*ow, ho*ow
	if k == 1 && ns == blk {
		// A 1×1 kernel over planes that follow each other (a channel-first
		// batch, or rows of one channel): each row of cols is one input
		// channel of the whole batch, one run instead of n.
		for c := 0; c < cin; c++ {
			move(cols[c*np:(c+1)*np], x[c*cs:c*cs+np])
		}
		return
	}
	r := 0
	for c := 0; c < cin; c++ {
		for ky := 0; ky < k; ky++ {
			for kx := 0; kx < k; kx++ {
				row := cols[r*np : (r+1)*np]
				r++
				for s := 0; s < n; s++ {
					xs := x[c*cs+s*ns+ky*w+kx:]
					cb := row[s*blk : (s+1)*blk]
					if ow == w {
						m := min(blk, h*w-ky*w-kx)
						move(cb[:m], xs[:m])
						if !add {
							clear(cb[m:])
						}
						continue
					}
					for oy := 0; oy < ho; oy++ {
						move(cb[oy*ow:oy*ow+wo], xs[oy*w:oy*w+wo])
					}
				}
			}
		}
	}
}

// maxpool takes the maximum over k×k windows with stride k of every h×w
// plane (planes are contiguous in both layouts). Like PyTorch, the first
// maximum in row-major window order receives the gradient, NaN propagates,
// and trailing rows/columns that do not fill a window are dropped. With
// relu set, a following ReLU is fused in: y = max(0, max over the window).
//
// When 2×2 windows tile the planes exactly (exact2) both passes are vector
// kernels: forward computes the maxima only (pool2Rows), and backward finds
// them again in the input, which the layer keeps (vec.MaxPool2Grad).
// Otherwise forward records the offset of each maximum for backward.
type maxpool struct {
	c, h, w, k, ho, wo int
	rs, ps             int // input row and plane strides (w, h·w unless padded)
	relu               bool
	y, dx              []float32
	x                  []float32 // input of the last forward (exact2)
	arg                []int32   // in-plane offset of each output's maximum (train mode)
	vbuf               []float32 // row-pair maxima (pool2Rows)
}

// exact2 reports whether the windows are 2×2 and tile the planes exactly.
func (l *maxpool) exact2() bool {
	return l.k == 2 && l.rs == 2*l.wo && l.ps == 4*l.ho*l.wo
}

func (l *maxpool) forward(x []float32, n int, train bool) []float32 {
	planes := n * l.c
	hw, ohw := l.ps, l.ho*l.wo
	l.y = vec.Resize(l.y, planes*ohw)
	if l.exact2() {
		if train {
			l.x = x[:planes*hw]
		}
		l.pool2Rows(l.y[:planes*ohw], x[:planes*hw], planes*l.ho)
		return l.y
	}
	var arg []int32
	if train {
		if cap(l.arg) < planes*ohw {
			l.arg = make([]int32, planes*ohw)
		}
		l.arg = l.arg[:planes*ohw]
		arg = l.arg
	}
	for p := 0; p < planes; p++ {
		in := x[p*hw : (p+1)*hw]
		y := l.y[p*ohw : (p+1)*ohw]
		var a []int32
		if train {
			a = arg[p*ohw : (p+1)*ohw]
		}
		if l.k == 2 {
			pool2(y, a, in, l.rs, l.ho, l.wo, l.relu)
		} else {
			poolK(y, a, in, l.rs, l.k, l.ho, l.wo, l.relu)
		}
	}
	return l.y
}

// pool2Rows is the 2×2 max-pool (with the fused relu) when the
// windows tile the planes exactly: the input is then a sequence of R row
// pairs of width w = 2·wo across all planes, and the output row of pair p is
// the pairwise maximum of the element-wise maximum of its two rows. Both
// halves are vector kernels (vec.MaxTo, vec.PairMax) over chunks of row
// pairs that stay in L1.
func (l *maxpool) pool2Rows(y, x []float32, pairs int) {
	w, wo := l.rs, l.wo
	if w%8 == 0 {
		// Both halves in one kernel, without the row-pair maxima.
		vec.MaxPool2(y, x[:2*w*pairs], w, l.relu)
		return
	}
	chunk := max(1, 2048/w)
	l.vbuf = vec.Resize(l.vbuf, min(chunk, pairs)*w)
	for p0 := 0; p0 < pairs; p0 += chunk {
		p1 := min(pairs, p0+chunk)
		v := l.vbuf[:(p1-p0)*w]
		for p := p0; p < p1; p++ {
			vec.MaxTo(v[(p-p0)*w:(p-p0+1)*w], x[2*p*w:(2*p+1)*w], x[(2*p+1)*w:(2*p+2)*w])
		}
		vec.PairMax(y[p0*wo:p1*wo], v, l.relu)
	}
}

// pool2 is the 2×2 case of maxpool for one plane with row stride w, without
// branches on the data; arg may be nil (inference). Go's float max is
// NaN-propagating; the index of the maximum is the first window element
// equal to it (a NaN window keeps the last element).
func pool2(y []float32, arg []int32, in []float32, w, ho, wo int, relu bool) {
	for oy := 0; oy < ho; oy++ {
		r0 := in[2*oy*w : 2*oy*w+2*wo]
		r1 := in[(2*oy+1)*w : (2*oy+1)*w+2*wo]
		yo := y[oy*wo : oy*wo+wo]
		if arg == nil {
			for ox := range yo {
				m := max(max(r0[2*ox], r0[2*ox+1]), max(r1[2*ox], r1[2*ox+1]))
				if relu {
					m = reluOf(m)
				}
				yo[ox] = m
			}
			continue
		}
		ao := arg[oy*wo : oy*wo+wo]
		base := int32(2 * oy * w)
		for ox := range yo {
			a, b, c, d := r0[2*ox], r0[2*ox+1], r1[2*ox], r1[2*ox+1]
			m := max(max(a, b), max(c, d))
			i := base + int32(2*ox+w+1)
			if c == m {
				i = base + int32(2*ox+w)
			}
			if b == m {
				i = base + int32(2*ox+1)
			}
			if a == m {
				i = base + int32(2*ox)
			}
			if relu {
				m = reluOf(m)
			}
			yo[ox], ao[ox] = m, i
		}
	}
}

// poolK is maxpool over k×k windows for one plane; arg may be nil.
func poolK(y []float32, arg []int32, in []float32, w, k, ho, wo int, relu bool) {
	o := 0
	for oy := 0; oy < ho; oy++ {
		for ox := 0; ox < wo; ox++ {
			base := oy*k*w + ox*k
			best, bi := in[base], base
			for ky := 0; ky < k; ky++ {
				for kx := 0; kx < k; kx++ {
					j := base + ky*w + kx
					if v := in[j]; v > best || v != v {
						best, bi = v, j
					}
				}
			}
			if relu {
				best = reluOf(best)
			}
			y[o] = best
			if arg != nil {
				arg[o] = int32(bi)
			}
			o++
		}
	}
}

func (l *maxpool) backward(dy []float32, n int, needDx bool) []float32 {
	if !needDx {
		return nil
	}
	planes := n * l.c
	hw, ohw := l.ps, l.ho*l.wo
	l.dx = vec.Resize(l.dx, planes*hw)
	if l.exact2() {
		vec.MaxPool2Grad(l.dx, l.x, dy[:planes*ohw], l.rs, l.relu)
		return l.dx
	}
	clear(l.dx)
	for p := 0; p < planes; p++ {
		dx := l.dx[p*hw : (p+1)*hw]
		d := dy[p*ohw : (p+1)*ohw]
		arg := l.arg[p*ohw : (p+1)*ohw]
		if l.relu {
			y := l.y[p*ohw : (p+1)*ohw]
			for o, a := range arg {
				dx[a] += reluGrad(d[o], y[o])
			}
			continue
		}
		for o, a := range arg {
			dx[a] += d[o]
		}
	}
	return l.dx
}

// reluGrad returns g where y > 0 and 0 elsewhere, without a branch.
func reluGrad(g, y float32) float32 {
	b := math.Float32bits(g)
	if !(y > 0) {
		b = 0
	}
	return math.Float32frombits(b)
}

// relu is max(x, 0); NaN propagates as in PyTorch.
type relu struct{ y, dx []float32 }

func (l *relu) forward(x []float32, n int, _ bool) []float32 {
	l.y = vec.Resize(l.y, len(x))
	reluTo(l.y, x)
	return l.y
}

// reluTo sets y = max(x, 0) elementwise as reluOf does (vec.Relu: 8 lanes
// at a time on amd64); y may be x.
func reluTo(y, x []float32) { vec.Relu(y[:len(x)], x) }

// reluOf returns max(v, 0) with NaN propagating, compiled to a conditional
// move on the bits (Go's float max is a longer sequence).
func reluOf(v float32) float32 {
	b := math.Float32bits(v)
	if v < 0 {
		b = 0
	}
	return math.Float32frombits(b)
}

func (l *relu) backward(dy []float32, n int, needDx bool) []float32 {
	if !needDx {
		return nil
	}
	l.dx = vec.Resize(l.dx, len(dy))
	vec.ReluGrad(l.dx, dy, l.y[:len(dy)])
	return l.dx
}

// identity passes activations and gradients through; it stands in for a
// layer fused into the one before it.
type identity struct{}

func (identity) forward(x []float32, n int, _ bool) []float32 { return x }

func (identity) backward(dy []float32, n int, needDx bool) []float32 {
	if !needDx {
		return nil
	}
	return dy
}

// maskBuf holds the dropout multipliers of one dropout layer for the whole
// batch of the most recent train-mode Forward, sample-major: per values per
// sample, each 0 or 1/(1−p). The Net draws them before it splits the batch,
// so the masks do not depend on how the batch is split.
type maskBuf struct {
	m []float32
}

// dropout multiplies by the masks in train mode and is the identity in
// inference. Channel-wise (Dropout2D) masks have per = c values per sample,
// one for each plane of plane = h·w elements; element-wise masks have per =
// c·h·w values and plane = 1.
type dropout struct {
	p        float64
	c, hw    int  // channels and plane size of the input
	perPlane bool // channel-wise
	cf       bool // input is channel-first across the batch
	masks    *maskBuf
	off      int // first sample of this replica within the batch
	active   bool
	y, dx    []float32
}

// perSample returns the number of mask values per sample.
func (l *dropout) perSample() int {
	if l.perPlane {
		return l.c
	}
	return l.c * l.hw
}

func (l *dropout) forward(x []float32, n int, train bool) []float32 {
	l.active = train && l.p > 0
	if !l.active {
		return x
	}
	l.y = vec.Resize(l.y, len(x))
	l.apply(l.y, x, n)
	return l.y
}

func (l *dropout) backward(dy []float32, n int, needDx bool) []float32 {
	if !needDx {
		return nil
	}
	if !l.active {
		return dy
	}
	l.dx = vec.Resize(l.dx, len(dy))
	l.apply(l.dx, dy, n)
	return l.dx
}

// apply sets dst = src ⊙ mask for a batch of n samples.
func (l *dropout) apply(dst, src []float32, n int) {
	per := l.perSample()
	m := l.masks.m[l.off*per : (l.off+n)*per]
	csz := l.c * l.hw
	for s := 0; s < n; s++ {
		ms := m[s*per : (s+1)*per]
		for c := 0; c < l.c; c++ {
			var o int
			if l.cf {
				o = (c*n + s) * l.hw
			} else {
				o = s*csz + c*l.hw
			}
			d, x := dst[o:o+l.hw], src[o:o+l.hw]
			if l.perPlane {
				clear(d)
				if f := ms[c]; f != 0 {
					vec.Axpy(f, x, d)
				}
			} else {
				mc := ms[c*l.hw : (c+1)*l.hw]
				for i, v := range x {
					d[i] = v * mc[i]
				}
			}
		}
	}
}

// flatten converts a channel-first batch to rows in NCHW order. For rows
// input, or n = 1, it is the identity.
type flatten struct {
	c, hw int
	cf    bool
	y, dx []float32
}

func (l *flatten) forward(x []float32, n int, _ bool) []float32 {
	if !l.cf || n == 1 {
		return x
	}
	l.y = vec.Resize(l.y, len(x))
	cfToRows(l.y, x, n, l.c, l.hw)
	return l.y
}

func (l *flatten) backward(dy []float32, n int, needDx bool) []float32 {
	if !needDx {
		return nil
	}
	if !l.cf || n == 1 {
		return dy
	}
	l.dx = vec.Resize(l.dx, len(dy))
	for c := 0; c < l.c; c++ {
		for s := 0; s < n; s++ {
			copy(l.dx[(c*n+s)*l.hw:(c*n+s+1)*l.hw], dy[(s*l.c+c)*l.hw:])
		}
	}
	return l.dx
}

// meanpool is the global average pooling C×H×W → C (PyTorch's
// AdaptiveAvgPool2d(1) followed by flatten): y[s][c] is the mean of channel c
// of sample s over its h×w positions. Its input is channel-first or rows;
// its output is rows.
type meanpool struct {
	c, hw int
	cf    bool
	y, dx []float32
}

// at returns the offset of channel ci of sample s in a batch of n.
func (l *meanpool) at(ci, s, n int) int {
	if l.cf {
		return (ci*n + s) * l.hw
	}
	return (s*l.c + ci) * l.hw
}

func (l *meanpool) forward(x []float32, n int, _ bool) []float32 {
	l.y = vec.Resize(l.y, n*l.c)
	inv := 1 / float32(l.hw)
	for ci := 0; ci < l.c; ci++ {
		for s := 0; s < n; s++ {
			o := l.at(ci, s, n)
			var sum float32
			for _, v := range x[o : o+l.hw] {
				sum += v
			}
			l.y[s*l.c+ci] = sum * inv
		}
	}
	return l.y
}

func (l *meanpool) backward(dy []float32, n int, needDx bool) []float32 {
	if !needDx {
		return nil
	}
	l.dx = vec.Resize(l.dx, n*l.c*l.hw)
	inv := 1 / float32(l.hw)
	for ci := 0; ci < l.c; ci++ {
		for s := 0; s < n; s++ {
			o := l.at(ci, s, n)
			fill(l.dx[o:o+l.hw], dy[s*l.c+ci]*inv)
		}
	}
	return l.dx
}

// cfToRows sets dst[s][c][i] = src[c][s][i].
func cfToRows(dst, src []float32, n, c, hw int) {
	for ci := 0; ci < c; ci++ {
		for s := 0; s < n; s++ {
			copy(dst[(s*c+ci)*hw:(s*c+ci+1)*hw], src[(ci*n+s)*hw:])
		}
	}
}

// l2norm is y = x / max(‖x‖₂, eps) per sample (rows layout), as
// torch.nn.functional.normalize(x, dim=1, eps=eps).
type l2norm struct {
	d     int
	eps   float64
	y, dx []float32
	den   []float64 // max(‖x‖, eps) per sample
	clamp []bool    // ‖x‖ < eps
}

func (l *l2norm) forward(x []float32, n int, _ bool) []float32 {
	l.y = vec.Resize(l.y, n*l.d)
	if cap(l.den) < n {
		l.den, l.clamp = make([]float64, n), make([]bool, n)
	}
	l.den, l.clamp = l.den[:n], l.clamp[:n]
	for s := 0; s < n; s++ {
		xs := x[s*l.d : (s+1)*l.d]
		nrm := math.Sqrt(vec.SqNorm(xs))
		den, cl := nrm, false
		if nrm < l.eps {
			den, cl = l.eps, true
		}
		l.den[s], l.clamp[s] = den, cl
		// y = x/den rounded once (a product with a rounded 1/den would
		// turn a constant y, e.g. one positive feature, into noise).
		vec.ScaleF64(l.y[s*l.d:(s+1)*l.d], xs, 1/den)
	}
	return l.y
}

func (l *l2norm) backward(dy []float32, n int, needDx bool) []float32 {
	if !needDx {
		return nil
	}
	l.dx = vec.Resize(l.dx, n*l.d)
	for s := 0; s < n; s++ {
		ds, ys, dx := dy[s*l.d:(s+1)*l.d], l.y[s*l.d:(s+1)*l.d], l.dx[s*l.d:(s+1)*l.d]
		inv := 1 / l.den[s]
		if l.clamp[s] {
			clear(dx)
			vec.Axpy(float32(inv), ds, dx)
			continue
		}
		// ∂x = (dy − y·⟨y, dy⟩) / ‖x‖, in float64: the difference cancels
		// when y is close to ±dy/‖dy‖.
		yd := vec.Dot64(ys, ds)
		for i, v := range ds {
			dx[i] = float32((float64(v) - float64(ys[i])*yd) * inv)
		}
	}
	return l.dx
}

// scale is y = c·x; its backward pass is the same map, dx = c·dy.
type scale struct {
	c     float32
	y, dx []float32
}

func (l *scale) forward(x []float32, n int, _ bool) []float32 {
	return l.times(&l.y, x)
}

func (l *scale) backward(dy []float32, n int, needDx bool) []float32 {
	if !needDx {
		return nil
	}
	return l.times(&l.dx, dy)
}

// times sets *dst = c·src, growing *dst to the length of src.
func (l *scale) times(dst *[]float32, src []float32) []float32 {
	*dst = vec.Resize(*dst, len(src))
	clear(*dst)
	vec.Axpy(l.c, src, *dst)
	return *dst
}

// squash is tanh(x), or with sigmoid set 1/(1+e^(−x)); the derivative is
// computed from the output y: 1 − y², or y(1 − y).
type squash struct {
	sigmoid bool
	y, dx   []float32
}

func (l *squash) forward(x []float32, n int, _ bool) []float32 {
	l.y = vec.Resize(l.y, len(x))
	for i, v := range x {
		if l.sigmoid {
			l.y[i] = float32(1 / (1 + math.Exp(-float64(v))))
		} else {
			l.y[i] = float32(math.Tanh(float64(v)))
		}
	}
	return l.y
}

func (l *squash) backward(dy []float32, n int, needDx bool) []float32 {
	if !needDx {
		return nil
	}
	l.dx = vec.Resize(l.dx, len(dy))
	for i, v := range dy {
		y := l.y[i]
		if l.sigmoid {
			l.dx[i] = v * y * (1 - y)
		} else {
			l.dx[i] = v * (1 - y*y)
		}
	}
	return l.dx
}

// gemmSerialWork is the largest m·n·k that vec.Sgemm runs on the calling
// goroutine (larger products it splits across goroutines, which allocates).
const gemmSerialWork = 1<<18 - 1

// gemm is vec.Sgemm kept on the calling goroutine: products above
// gemmSerialWork are computed as a sequence of blocks below it. The Net
// already spreads large batches over the cores by samples, so a second level
// of splitting would only add goroutine start-ups and allocations (and the
// single-sample path must stay on one goroutine). Blocks split the larger of
// the m and n dimensions in multiples of 16, and k (accumulating with β = 1)
// only when a 16×16 block of C is already too much work.
func gemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	const w = gemmSerialWork
	if m*n*k <= w {
		vec.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	kb := k
	if t := min(m, 16) * min(n, 16); t*k > w {
		kb = max(1, w/t)
	}
	mb, nb := m, n
	for mb*nb*kb > w {
		if nb >= mb {
			nb = shrinkBlock(nb, w/(mb*kb))
		} else {
			mb = shrinkBlock(mb, w/(nb*kb))
		}
	}
	for i0 := 0; i0 < m; i0 += mb {
		mi := min(mb, m-i0)
		for j0 := 0; j0 < n; j0 += nb {
			nj := min(nb, n-j0)
			bt := beta
			for p0 := 0; p0 < k; p0 += kb {
				pk := min(kb, k-p0)
				ao, bo := i0*lda+p0, p0*ldb+j0
				if transA {
					ao = p0*lda + i0
				}
				if transB {
					bo = j0*ldb + p0
				}
				vec.Sgemm(transA, transB, mi, nj, pk, alpha, a[ao:], lda, b[bo:], ldb, bt, c[i0*ldc+j0:], ldc)
				bt = 1
			}
		}
	}
}

// shrinkBlock returns a block size below x: the largest multiple of 16 not
// above target when that is at least 16, else half of x (at least 16, or 1
// when x ≤ 16 already).
func shrinkBlock(x, target int) int {
	if target >= 16 {
		return min(x, target/16*16)
	}
	if x <= 16 {
		return max(1, min(x, target))
	}
	return max(16, x/2)
}
