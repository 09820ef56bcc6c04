package nn

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"testing"
)

// Finite-difference tolerances: float32 forward passes, central differences
// with step fdEps, objective Σ cᵢ·outᵢ accumulated in float64. The rounding
// noise of the difference quotient is ~1e-7·|out|/fdEps ≈ 1e-4, well inside
// atol; rtol covers the O(fdEps²) truncation error.
const (
	fdEps  = 1e-3
	fdRtol = 1e-2
	fdAtol = 5e-3
)

var gradCases = []struct {
	name   string
	spec   string
	shape  []int
	batch  int
	chunk1 bool // convolve one sample at a time (several im2col blocks)
}{
	{"dense", "dense(5)", []int{7}, 3, false},
	{"dense-chain", "dense(6),dense(4)", []int{5}, 2, false},
	{"conv-nchw", "conv(3,3)", []int{2, 6, 5}, 2, false},
	{"conv-cf", "conv(3,3),conv(2,2)", []int{2, 6, 6}, 3, false},
	{"conv-1x1", "conv(2,1),conv(3,1)", []int{3, 2, 3}, 2, false},
	{"maxpool-nchw", "maxpool(2)", []int{2, 5, 4}, 2, false},
	{"maxpool-cf", "conv(2,2),maxpool(3)", []int{1, 8, 7}, 2, false},
	{"relu", "relu", []int{10}, 3, false},
	{"conv-relu", "conv(3,2),relu", []int{2, 5, 5}, 2, false},
	{"dropout2d-nchw", "dropout2d(0.5)", []int{3, 4, 4}, 3, false},
	{"dropout2d-cf", "conv(4,2),dropout2d(0.5)", []int{2, 4, 4}, 3, false},
	{"dropout-flat", "dropout(0.3)", []int{12}, 3, false},
	{"dropout-cf", "conv(2,2),dropout(0.3)", []int{1, 4, 4}, 3, false},
	{"flatten-cf", "conv(3,2),flatten,dense(4)", []int{2, 4, 4}, 3, false},
	{"flatten-nchw", "flatten,dense(4)", []int{2, 3, 3}, 2, false},
	{"implicit-flatten", "conv(2,3),dense(4)", []int{1, 5, 5}, 2, false},
	{"meanpool-nchw", "meanpool,dense(3)", []int{3, 2, 4}, 3, false},
	{"meanpool-cf", "conv(4,1),relu,conv(3,1),meanpool,dense(2)", []int{1, 7, 1}, 3, false},
	{"l2norm", "l2norm", []int{6}, 3, false},
	{"l2norm-clamped", "l2norm(1000)", []int{6}, 2, false},
	{"l2norm-image", "conv(2,3),l2norm", []int{1, 5, 5}, 2, false},
	{"scale", "scale(1.5)", []int{4}, 2, false},
	{"tanh", "dense(5),tanh", []int{4}, 2, false},
	{"sigmoid", "dense(5),sigmoid", []int{4}, 2, false},
	{"mlp", RingnormArch, []int{20}, 4, false},
	{"cnn", "conv(4,3),maxpool(2),relu,conv(3,2),dropout2d(0.5),maxpool(2),relu,flatten,l2norm,scale(1.4)", []int{1, 10, 10}, 2, false},
	{"cnn-noflatten", "conv(3,3),maxpool(2),relu,conv(2,2)", []int{2, 9, 9}, 2, false},
	{"cnn-blocks", "conv(4,3),maxpool(2),relu,conv(3,2),dropout2d(0.5),maxpool(2),relu,flatten,l2norm,scale(1.4)", []int{1, 10, 10}, 3, true},
	{"conv-cf-blocks", "conv(3,3),conv(2,2)", []int{2, 6, 6}, 3, true},
	// Output widths that are multiples of vec.ConvVec: the implicit-im2col
	// kernels, on rows and on channel-first input; exactly tiling 2×2
	// max-pools (vector kernels when the width is a multiple of 8).
	{"implicit-nchw", "conv(3,3)", []int{2, 5, 10}, 2, false},
	{"implicit-cf", "conv(2,3),conv(3,3)", []int{2, 6, 12}, 3, false},
	{"implicit-relu", "conv(3,3),relu,conv(2,1)", []int{3, 4, 10}, 2, false},
	{"maxpool-exact", "maxpool(2),relu", []int{2, 4, 8}, 2, false},
	{"maxpool-exact-odd", "maxpool(2)", []int{2, 4, 6}, 3, false},
	// Batch normalisation on features (rows), on an image input (rows,
	// per channel over the positions) and after convolutions (channel-
	// first), with and without a fused ReLU.
	{"batchnorm-flat", "dense(5),batchnorm", []int{4}, 3, false},
	{"batchnorm-flat-relu", "dense(5),batchnorm,relu,dense(3)", []int{4}, 4, false},
	{"batchnorm-nchw", "batchnorm", []int{2, 3, 3}, 2, false},
	{"batchnorm-cf", "conv(3,2),batchnorm,relu", []int{2, 5, 5}, 2, false},
	{"batchnorm-cnn", "conv(3,3),maxpool(2),batchnorm,relu,flatten,dense(4),batchnorm,relu,dropout(0.3)", []int{1, 8, 8}, 3, false},
	{"cnn-implicit", "conv(3,5),maxpool(2),relu,conv(4,5),dropout2d(0.5),maxpool(2),relu,flatten,l2norm", []int{1, 16, 28}, 2, false},
	// Winograd's algorithm in the training passes (winograd.go): 5×5 and
	// 3×3 kernels on at least winoMinChannels channels, channel-first and
	// on rows, with a fused relu.
	{"winograd-5x5", "conv(16,3),relu,conv(3,5),relu,dense(4)", []int{1, 10, 10}, 2, false},
	{"winograd-3x3", "conv(16,1),conv(3,3),maxpool(2),relu", []int{1, 6, 6}, 3, false},
	{"winograd-nchw", "conv(3,3),relu,dense(3)", []int{16, 6, 8}, 2, false},
}

// newGradNet builds the Net of a gradient case.
func newGradNet(t *testing.T, spec string, shape []int, chunk1 bool) *Net {
	t.Helper()
	n := mustNew(t, spec, shape, 1)
	if chunk1 {
		for _, l := range n.trainReps[0].layers {
			if c, ok := l.(*conv); ok {
				c.chunk = 1
			}
		}
	}
	return n
}

// fdInput returns inputs away from the kinks of relu and the ties of
// maxpool: |x| ≥ 0.1 with distinct magnitudes.
func fdInput(n int, seed uint64) []float32 {
	rng := newRand(seed)
	x := make([]float32, n)
	for i := range x {
		v := 0.1 + 0.9*rng.Float64()
		if rng.IntN(2) == 0 {
			v = -v
		}
		x[i] = float32(v)
	}
	return x
}

// TestInputGradients checks ∂L/∂x of every layer chain against central
// differences, running the replica's layers directly (Backward itself does
// not compute the input gradient of the first layer).
func TestInputGradients(t *testing.T) {
	for _, tc := range gradCases {
		t.Run(tc.name, func(t *testing.T) {
			checkInputGrads(t, newGradNet(t, tc.spec, tc.shape, tc.chunk1), tc.batch)
		})
	}
}

// checkInputGrads checks ∂L/∂x of n's train replica for a batch.
func checkInputGrads(t *testing.T, n *Net, batch int) {
	t.Helper()
	r := n.trainReps[0]
	x := fdInput(batch*n.InSize(), 2)
	c := uniform(newRand(3), batch*n.OutSize(), -1, 1)
	n.drawMasks(batch)
	f := func() float64 { return dotC(c, r.forward(x, 0, batch, true)) }
	f()
	dy := c
	for i := len(r.layers) - 1; i >= 0; i-- {
		dy = r.layers[i].backward(dy, batch, true)
	}
	ana := make([]float64, len(x))
	for i, v := range dy {
		ana[i] = float64(v)
	}
	num := make([]float64, len(x))
	smooth := make([]bool, len(x))
	for i := range x {
		num[i], smooth[i] = centralDiff(&x[i], f, r)
	}
	compareSmooth(t, "input", ana, num, smooth)
}

// TestParamGradients checks Param.G after Net.Forward/Backward against
// central differences in each parameter (dropout masks are redrawn from the
// same seed for every pass).
func TestParamGradients(t *testing.T) {
	for _, tc := range gradCases {
		t.Run(tc.name, func(t *testing.T) {
			n := newGradNet(t, tc.spec, tc.shape, tc.chunk1)
			if len(n.params) == 0 {
				t.Skip("no parameters")
			}
			x := fdInput(tc.batch*n.InSize(), 2)
			checkParamGrads(t, n, tc.batch, func() []float32 { return n.Forward(x, tc.batch, true) }, n.trainReps[0])
		})
	}
}

// checkParamGrads checks Param.G after forward (a train-mode forward pass of
// n over a batch) and Backward against central differences in each
// parameter; r is the replica whose kinks tell the smooth elements.
func checkParamGrads(t *testing.T, n *Net, batch int, forward func() []float32, r *replica) {
	t.Helper()
	c := uniform(newRand(3), batch*n.OutSize(), -1, 1)
	f := func() float64 {
		n.SetRand(newRand(4))
		return dotC(c, forward())
	}
	f()
	n.ZeroGrad()
	n.Backward(c)
	// The scale of all the gradients, for tensors whose gradient is zero
	// (a bias right before a batchnorm, which removes any shift): there
	// both sides must be zero to within the rounding of the whole network.
	var ss float64
	var cnt int
	for _, p := range n.params {
		for _, g := range p.G {
			ss += float64(g) * float64(g)
			cnt++
		}
	}
	scale := math.Sqrt(ss / float64(max(1, cnt)))
	for _, p := range n.params {
		if p.Buffer {
			continue // no gradient: running statistics
		}
		ana := make([]float64, len(p.W))
		num := make([]float64, len(p.W))
		smooth := make([]bool, len(p.W))
		var pss float64
		for i := range p.W {
			ana[i] = float64(p.G[i])
			pss += ana[i] * ana[i]
			num[i], smooth[i] = centralDiff(&p.W[i], f, r)
		}
		if math.Sqrt(pss/float64(len(p.W))) < 1e-4*scale {
			for i := range num {
				if math.Abs(num[i]) > fdAtol*scale || math.Abs(ana[i]) > 1e-4*scale {
					t.Errorf("%s: a zero gradient, but element %d: analytic %.3g numeric %.3g (scale %.3g)", p.Name, i, ana[i], num[i], scale)
				}
			}
			continue
		}
		compareSmooth(t, p.Name, ana, num, smooth)
	}
}

// TestGradCheckCanFail makes sure the comparison above rejects a gradient
// that is off by 5% in one element, or has the wrong sign.
func TestGradCheckCanFail(t *testing.T) {
	ana := []float64{0.3, -1.2, 0.7, 0.05}
	for _, tc := range []struct {
		name string
		num  []float64
		want int
	}{
		{"exact", []float64{0.3, -1.2, 0.7, 0.05}, 0},
		{"noise", []float64{0.3001, -1.2003, 0.7002, 0.0502}, 0},
		{"five-percent", []float64{0.3, -1.26, 0.7, 0.05}, 1},
		{"sign", []float64{-0.3, -1.2, 0.7, 0.05}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if bad, _ := gradCheck(ana, tc.num, fdRtol, fdAtol); bad != tc.want {
				t.Errorf("gradCheck found %d bad elements, want %d", bad, tc.want)
			}
		})
	}
}

// centralDiff returns (f(v+h) − f(v−h)) / (2h) for h = fdEps, with the step
// actually taken in float32, and restores *v. smooth is false when a relu or
// max-pool decision (or the l2norm clamp) differs between v−h, v and v+h: a
// kink lies within the step and the quotient says nothing about the
// derivative.
func centralDiff(v *float32, f func() float64, r *replica) (d float64, smooth bool) {
	v0 := *v
	f()
	s0 := kinkSig(r)
	*v = v0 + fdEps
	fp := f()
	sp := kinkSig(r)
	*v = v0 - fdEps
	fm := f()
	sm := kinkSig(r)
	*v = v0
	return (fp - fm) / (float64(v0+fdEps) - float64(v0-fdEps)), s0 == sp && s0 == sm
}

// kinkSig hashes the piecewise-linear decisions of the last forward pass.
func kinkSig(r *replica) uint64 {
	h := fnv.New64a()
	var b [4]byte
	// signs hashes which elements of a ReLU's output are positive.
	signs := func(y []float32) {
		for _, v := range y {
			if v > 0 {
				b[0] = 1
			} else {
				b[0] = 0
			}
			h.Write(b[:1])
		}
	}
	for _, l := range r.layers {
		switch l := l.(type) {
		case *relu:
			signs(l.y)
		case *dense:
			if l.relu {
				signs(l.y)
			}
		case *batchnorm:
			if l.relu {
				signs(l.y)
			}
		case *conv:
			if l.relu {
				signs(l.y)
			}
		case *maxpool:
			if l.exact2() {
				// No offsets recorded: find the first maximum of every
				// window in the kept input.
				w := l.rs
				for p := 0; p < len(l.x)/(2*w); p++ {
					for j := 0; j < w/2; j++ {
						win := [4]float32{l.x[2*p*w+2*j], l.x[2*p*w+2*j+1], l.x[(2*p+1)*w+2*j], l.x[(2*p+1)*w+2*j+1]}
						m := max(max(win[0], win[1]), max(win[2], win[3]))
						a := 3
						for q := 2; q >= 0; q-- {
							if win[q] == m {
								a = q
							}
						}
						if l.relu && !(m > 0) {
							a = -1
						}
						binary.LittleEndian.PutUint32(b[:], uint32(a))
						h.Write(b[:])
					}
				}
				continue
			}
			for i, a := range l.arg {
				if l.relu && !(l.y[i] > 0) {
					a = -1 // the fused relu cuts the gradient
				}
				binary.LittleEndian.PutUint32(b[:], uint32(a))
				h.Write(b[:])
			}
		case *l2norm:
			for _, c := range l.clamp {
				if c {
					b[0] = 1
				} else {
					b[0] = 0
				}
				h.Write(b[:1])
			}
		}
	}
	return h.Sum64()
}

// compareSmooth runs gradCheck on the smooth elements and fails if more than
// half of them were not smooth.
func compareSmooth(t *testing.T, what string, ana, num []float64, smooth []bool) {
	t.Helper()
	var a2, n2 []float64
	for i, ok := range smooth {
		if ok {
			a2, n2 = append(a2, ana[i]), append(n2, num[i])
		}
	}
	if dropped := len(ana) - len(a2); dropped*2 > len(ana) {
		t.Errorf("%s: %d of %d elements straddle a kink at step %g", what, dropped, len(ana), fdEps)
	}
	if bad, worst := gradCheck(a2, n2, fdRtol, fdAtol); bad > 0 {
		t.Errorf("%s: %d of %d gradient elements off; worst %s", what, bad, len(a2), worst)
	}
}
