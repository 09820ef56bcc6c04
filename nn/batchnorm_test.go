package nn

import (
	"math"
	"slices"
	"testing"
)

// TestGhostBatchNorm checks what a batch split into parts does: each part is
// normalised by its own statistics (its outputs equal those of the part run
// alone), while the running estimates take the pooled statistics of the
// whole batch (those of the first batchnorm, whose input does not depend on
// the split, equal those of the batch run unsplit).
func TestGhostBatchNorm(t *testing.T) {
	const spec = "conv(4,3),maxpool(2),batchnorm,relu,flatten,dense(6),batchnorm"
	shape := []int{1, 8, 8}
	const batch = 10
	x := uniform(newRand(5), batch*64, -1, 1)

	split := mustNew(t, spec, shape, 3)
	split.maxParts, split.splitWork = 2, 0
	out := slices.Clone(split.Forward(x, batch, true))
	if split.parts != 2 {
		t.Fatalf("the batch ran in %d parts, want 2", split.parts)
	}

	whole := mustNew(t, spec, shape, 3)
	whole.maxParts = 1
	for i := range 2 {
		lo, hi := span(batch, 2, i)
		part := mustNew(t, spec, shape, 3)
		part.maxParts = 1
		got := part.Forward(x[lo*64:hi*64], hi-lo, true)
		checkClose(t, "part output", out[lo*6:hi*6], got, 1e-6)
	}
	whole.Forward(x, batch, true)
	for i := 4; i < 6; i++ { // 2.running_mean, 2.running_var
		p := split.params[i]
		checkClose(t, p.Name, p.W, whole.params[i].W, 1e-6)
		if slices.Equal(p.W, []float32{0, 0, 0, 0}) || slices.Equal(p.W, []float32{1, 1, 1, 1}) {
			t.Errorf("%s %v did not move", p.Name, p.W)
		}
	}
}

// TestBatchNormInference checks that inference normalises by the running
// statistics: after many train-mode passes over one batch they converge to
// its statistics, and the inference outputs to the train-mode ones; and
// that the optimizers leave the running statistics alone.
func TestBatchNormInference(t *testing.T) {
	n := mustNew(t, "dense(5),batchnorm,relu", []int{3}, 7)
	x := uniform(newRand(8), 8*3, -2, 2)
	var train []float32
	for range 200 {
		train = slices.Clone(n.Forward(x, 8, true))
	}
	feats := make([]float32, len(train))
	n.Features(feats, x, 8)
	// The running variance is the unbiased one (×8/7), so inference
	// shrinks by √(7/8) at most.
	for i := range feats {
		if d := math.Abs(float64(feats[i] - train[i])); d > 0.07*(1+math.Abs(float64(train[i]))) {
			t.Fatalf("output %d: inference %g, train mode %g", i, feats[i], train[i])
		}
	}
	rm := slices.Clone(n.params[4].W)
	n.ZeroGrad()
	n.Forward(uniform(newRand(10), 8*3, -2, 2), 8, true)
	n.Backward(uniform(newRand(9), 8*5, -1, 1))
	after := slices.Clone(n.params[4].W)
	for _, opt := range []Optimizer{NewSGD(n.Params(), 0.1, 0.9, 1e-2, false), NewAdam(n.Params(), 0.1, 0.9, 0.999, 1e-8, 1e-2)} {
		opt.Step()
	}
	if !slices.Equal(n.params[4].W, after) {
		t.Errorf("an optimizer step changed the running mean")
	}
	if slices.Equal(rm, after) {
		t.Errorf("a train-mode pass on a new batch left the running mean %v as it was", rm)
	}
}

// TestBatchNormStatistics checks a train-mode batchnorm against float64
// arithmetic in each layout (channel-first across the batch, rows of hw
// positions, rows of one position), on channels far from zero (mean 300
// times the spread: in float32 a variance taken as a difference of sums
// would be off by a tenth) and constant ones: its outputs and x̂, and the gradients of γ, β and x.
func TestBatchNormStatistics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c, hw int
		cf    bool
	}{
		{"channel-first", 3, 6, true},
		{"rows", 3, 6, false},
		{"rows of 1", 5, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 7
			l := &batchnorm{c: tc.c, hw: tc.hw, cf: tc.cf}
			l.g, l.b = make([]float32, tc.c), make([]float32, tc.c)
			l.gg, l.gb = make([]float32, tc.c), make([]float32, tc.c)
			l.rm, l.rv = make([]float32, tc.c), make([]float32, tc.c)
			x := make([]float32, n*tc.c*tc.hw)
			dy := make([]float32, len(x))
			for ci := range tc.c {
				l.g[ci], l.b[ci] = 1.5+float32(ci), -0.5*float32(ci)
				for j := range n {
					o := l.at(ci, j, n)
					for i := range tc.hw {
						u := float64((j*7+i*3+ci*5)%11) - 5 // −5 … 5
						switch ci {
						case 0:
							x[o+i] = float32(100 + 0.1*u)
						case 1:
							x[o+i] = 2.5
						default:
							x[o+i] = float32(u * float64(ci))
						}
						dy[o+i] = float32(math.Sin(float64(o + i)))
					}
				}
			}
			y := slices.Clone(l.forward(x, n, true))
			dx := l.backward(dy, n, true)
			m := float64(n * tc.hw)
			for ci := range tc.c {
				var mean, vr, sdy, sdyx float64
				for j := range n {
					for i := range tc.hw {
						mean += float64(x[l.at(ci, j, n)+i]) / m
					}
				}
				for j := range n {
					for i := range tc.hw {
						d := float64(x[l.at(ci, j, n)+i]) - mean
						vr += d * d / m
					}
				}
				inv := 1 / math.Sqrt(vr+bnEps)
				for j := range n {
					for i := range tc.hw {
						o := l.at(ci, j, n) + i
						h := (float64(x[o]) - mean) * inv
						sdy += float64(dy[o])
						sdyx += float64(dy[o]) * h
					}
				}
				if !close64(float64(l.gb[ci]), sdy, 1e-5) || !close64(float64(l.gg[ci]), sdyx, 1e-4) {
					t.Fatalf("channel %d: ∂β %g ∂γ %g, want %g and %g", ci, l.gb[ci], l.gg[ci], sdy, sdyx)
				}
				for j := range n {
					for i := range tc.hw {
						o := l.at(ci, j, n) + i
						h := (float64(x[o]) - mean) * inv
						wantY := float64(l.g[ci])*h + float64(l.b[ci])
						wantDx := float64(l.g[ci]) * inv * (float64(dy[o]) - sdy/m - h*sdyx/m)
						if !close64(float64(l.xhat[o]), h, 1e-3) || !close64(float64(y[o]), wantY, 1e-3) || !close64(float64(dx[o]), wantDx, 1e-3) {
							t.Fatalf("channel %d sample %d position %d: x̂ %g y %g ∂x %g, want %g, %g and %g",
								ci, j, i, l.xhat[o], y[o], dx[o], h, wantY, wantDx)
						}
					}
				}
			}
		})
	}
}

// close64 reports whether a is within tol of b, relative to max(1, |b|).
func close64(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(b)) }
