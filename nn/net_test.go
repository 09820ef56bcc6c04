package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
)

const cnnTrainSpec = MNISTArch

// maxRelDiff returns max|a−b| / max(max|b|, tiny).
func maxRelDiff(a, b []float32) float64 {
	var d, m float64
	for i := range b {
		d = math.Max(d, math.Abs(float64(a[i])-float64(b[i])))
		m = math.Max(m, math.Abs(float64(b[i])))
	}
	return d / math.Max(m, 1e-30)
}

func TestDeterminism(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		shape []int
		batch int
	}{
		{RingnormArch, []int{20}, 5},
		{cnnTrainSpec, []int{1, 28, 28}, 3},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			a, b := mustNew(t, tc.spec, tc.shape, 11), mustNew(t, tc.spec, tc.shape, 11)
			c := mustNew(t, tc.spec, tc.shape, 12)
			for i, p := range a.Params() {
				if !slices.Equal(p.W, b.Params()[i].W) {
					t.Fatalf("%s differs between two Nets from the same seed", p.Name)
				}
				if slices.Equal(p.W, c.Params()[i].W) {
					t.Fatalf("%s equal for different seeds", p.Name)
				}
			}
			x := uniform(newRand(5), tc.batch*a.InSize(), 0, 1)
			for _, train := range []bool{false, true} {
				ya := slices.Clone(a.Forward(x, tc.batch, train))
				yb := b.Forward(x, tc.batch, train)
				if !slices.Equal(ya, yb) {
					t.Fatalf("train=%v: outputs differ", train)
				}
			}
		})
	}
}

// TestDropoutMasks checks the dropout statistics: channel-wise masks zero
// whole planes with probability p and scale the rest by 1/(1−p); inference is
// the identity.
func TestDropoutMasks(t *testing.T) {
	n := mustNew(t, "dropout2d(0.25)", []int{4, 3, 3}, 1)
	batch := 500
	x := make([]float32, batch*n.InSize())
	for i := range x {
		x[i] = 1
	}
	if y := n.Forward(x, batch, false); !slices.Equal(y, x) || aliases(y, x) {
		t.Fatal("inference dropout is not a copy of the input")
	}
	y := n.Forward(x, batch, true)
	zero := 0
	for p := 0; p < batch*4; p++ {
		plane := y[p*9 : p*9+9]
		for _, v := range plane {
			if v != plane[0] {
				t.Fatalf("plane %d is not uniform: %v", p, plane)
			}
		}
		switch plane[0] {
		case 0:
			zero++
		case float32(1 / 0.75):
		default:
			t.Fatalf("plane %d has value %g", p, plane[0])
		}
	}
	if f := float64(zero) / float64(batch*4); math.Abs(f-0.25) > 0.03 {
		t.Errorf("dropped fraction %g, want 0.25", f)
	}
}

// TestSplitMatchesSequential forces large batches onto two workers and
// compares outputs and gradients with the single-goroutine path.
func TestSplitMatchesSequential(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		shape []int
		batch int
	}{
		{RingnormArch, []int{20}, 37},
		{cnnTrainSpec, []int{1, 28, 28}, 9},
		{"conv(3,3),relu,dropout(0.3),dense(5)", []int{2, 6, 6}, 7},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			seq := mustNew(t, tc.spec, tc.shape, 3)
			seq.maxParts = 1
			par := seq.Clone()
			par.maxParts, par.splitWork = 2, 0
			x := uniform(newRand(4), tc.batch*seq.InSize(), 0, 1)
			c := uniform(newRand(5), tc.batch*seq.OutSize(), -1, 1)
			for _, n := range []*Net{seq, par} {
				n.SetRand(newRand(6))
				n.ZeroGrad()
				n.Forward(x, tc.batch, true)
				n.Backward(c)
			}
			if par.parts != 2 {
				t.Fatalf("the batch was split into %d parts", par.parts)
			}
			seq.SetRand(newRand(6))
			ys := slices.Clone(seq.Forward(x, tc.batch, true))
			par.SetRand(newRand(6))
			if d := maxRelDiff(par.Forward(x, tc.batch, true), ys); d > 1e-6 {
				t.Errorf("train outputs differ by %g", d)
			}
			for i, p := range seq.Params() {
				if d := maxRelDiff(par.Params()[i].G, p.G); d > 1e-5 {
					t.Errorf("%s: gradients differ by %g", p.Name, d)
				}
			}
			ys = slices.Clone(seq.Forward(x, tc.batch, false))
			if d := maxRelDiff(par.Forward(x, tc.batch, false), ys); d > 1e-6 {
				t.Errorf("inference outputs differ by %g", d)
			}
		})
	}
}

// TestFeaturesMatchesForward compares Features, chunked and split, with
// Forward(train=false).
func TestFeaturesMatchesForward(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		shape []int
	}{
		{RingnormArch, []int{20}},
		{cnnTrainSpec, []int{1, 28, 28}},
	} {
		for _, rows := range []int{1, 5, 40} {
			for _, split := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%d/split=%v", tc.spec[:5], rows, split), func(t *testing.T) {
					n := mustNew(t, tc.spec, tc.shape, 3)
					n.featChunk = 7
					if split {
						n.maxParts, n.splitWork = 2, 0
					} else {
						n.maxParts = 1
					}
					x := uniform(newRand(4), rows*n.InSize(), 0, 1)
					want := slices.Clone(n.Forward(x, rows, false))
					got := make([]float32, rows*n.OutSize())
					n.Features(got, x, rows)
					if d := maxRelDiff(got, want); d > 1e-6 {
						t.Errorf("Features differs from Forward by %g", d)
					}
				})
			}
		}
	}
}

// TestFeaturesKeepsTrainState checks that Features and inference Forward
// between a train-mode Forward and Backward do not change the gradients.
func TestFeaturesKeepsTrainState(t *testing.T) {
	n := mustNew(t, cnnTrainSpec, []int{1, 28, 28}, 3)
	ref := n.Clone()
	ref.SetRand(newRand(9))
	n.SetRand(newRand(9))
	x := uniform(newRand(4), 4*n.InSize(), 0, 1)
	other := uniform(newRand(5), 3*n.InSize(), 0, 1)
	c := uniform(newRand(6), 4*n.OutSize(), -1, 1)
	ref.Forward(x, 4, true)
	ref.Backward(c)
	n.Forward(x, 4, true)
	n.Features(make([]float32, 3*n.OutSize()), other, 3)
	n.Forward(other, 3, false)
	n.Backward(c)
	for i, p := range ref.Params() {
		if !slices.Equal(p.G, n.Params()[i].G) {
			t.Errorf("%s: gradient changed", p.Name)
		}
	}
}

// TestInputNotRetained checks that changing the input after a train-mode
// Forward does not change the gradients, and that the output never aliases
// the input.
func TestInputNotRetained(t *testing.T) {
	n := mustNew(t, RingnormArch, []int{20}, 3)
	x := uniform(newRand(4), 2*20, -1, 1)
	c := uniform(newRand(5), 2*20, -1, 1)
	ref := n.Clone()
	ref.Forward(x, 2, true)
	ref.Backward(c)
	n.Forward(x, 2, true)
	clear(x)
	n.Backward(c)
	for i, p := range ref.Params() {
		if !slices.Equal(p.G, n.Params()[i].G) {
			t.Errorf("%s: gradient depends on the input after Forward", p.Name)
		}
	}
	id := mustNew(t, "flatten", []int{3}, 1)
	in := []float32{1, 2, 3}
	if out := id.Forward(in, 1, true); aliases(out, in) {
		t.Error("Forward returned the caller's input slice")
	}
}

func TestClone(t *testing.T) {
	n := mustNew(t, RingnormArch, []int{20}, 3)
	n.Params()[0].G[0] = 5
	c := n.Clone()
	for i, p := range n.Params() {
		q := c.Params()[i]
		if !slices.Equal(p.W, q.W) || !slices.Equal(p.G, q.G) || &p.W[0] == &q.W[0] {
			t.Fatalf("%s: clone is not a deep copy", p.Name)
		}
	}
	c.Params()[0].W[0]++
	if n.Params()[0].W[0] == c.Params()[0].W[0] {
		t.Error("clone shares parameters")
	}
}

func TestMisusePanics(t *testing.T) {
	n := mustNew(t, RingnormArch, []int{20}, 3)
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"backward-first", func() { n.Clone().Backward(make([]float32, 20)) }, "nn: Backward without"},
		{"short-input", func() { n.Forward(make([]float32, 39), 2, true) }, "nn: Forward"},
		{"zero-batch", func() { n.Forward(nil, 0, false) }, "nn: Forward"},
		{"short-dout", func() { n.Forward(make([]float32, 40), 2, true); n.Backward(make([]float32, 39)) }, "nn: Backward"},
		{"short-dst", func() { n.Features(make([]float32, 19), make([]float32, 40), 2) }, "nn: Features"},
		{"nil-rng", func() { _, _ = New("relu", []int{2}, nil) }, "nn: New"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Errorf("panic %v, want %q", r, tc.want)
				}
			}()
			tc.f()
		})
	}
}

// TestZeroAllocs checks that a warm Forward+Backward+Step allocates
// nothing, on one goroutine and with the batch split over two workers.
func TestZeroAllocs(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		shape []int
	}{
		{RingnormArch, []int{20}},
		{cnnTrainSpec, []int{1, 28, 28}},
	} {
		for _, batch := range []int{1, 64} {
			for _, split := range []bool{false, true} {
				if split && batch == 1 {
					continue
				}
				t.Run(fmt.Sprintf("%s/%d/split=%v", tc.spec[:5], batch, split), func(t *testing.T) {
					n := mustNew(t, tc.spec, tc.shape, 3)
					if split {
						n.maxParts, n.splitWork = 2, 0
					}
					opt := NewSGD(n.Params(), 1e-3, 0.9, 1e-4, false)
					x := uniform(newRand(4), batch*n.InSize(), 0, 1)
					c := uniform(newRand(5), batch*n.OutSize(), -1, 1)
					feats := make([]float32, batch*n.OutSize())
					step := func() {
						opt.ZeroGrad()
						n.Forward(x, batch, true)
						n.Backward(c)
						opt.Step()
						n.Features(feats, x, batch)
					}
					step()
					step()
					if a := testing.AllocsPerRun(5, step); a != 0 {
						t.Errorf("%g allocations per step", a)
					}
				})
			}
		}
	}
}

// TestZeroAllocsMultiCore repeats the check with every core available and a
// batch split over two workers. Goroutine hand-offs draw on the runtime's
// per-P caches (sudogs), which fill during the first ~150 steps and may be
// topped up now and then; a per-step allocation would show up as ≥ 1 per
// step, far above the small budget allowed here.
func TestZeroAllocsMultiCore(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2")
	}
	n := mustNew(t, RingnormArch, []int{20}, 3)
	n.maxParts, n.splitWork = 2, 0
	opt := NewSGD(n.Params(), 1e-3, 0.9, 1e-4, false)
	const batch, steps = 64, 200
	x := uniform(newRand(4), batch*n.InSize(), 0, 1)
	c := uniform(newRand(5), batch*n.OutSize(), -1, 1)
	feats := make([]float32, batch*n.OutSize())
	step := func() {
		opt.ZeroGrad()
		n.Forward(x, batch, true)
		n.Backward(c)
		opt.Step()
		n.Features(feats, x, batch)
	}
	for range 300 {
		step()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range steps {
		step()
	}
	runtime.ReadMemStats(&after)
	if a := after.Mallocs - before.Mallocs; a > steps/20 {
		t.Errorf("%d allocations in %d steps", a, steps)
	}
}

// TestSingleSampleNoGoroutines checks that a one-sample step (Forward,
// Backward, Features of one row) starts no goroutine, also inside
// vec.Sgemm.
func TestSingleSampleNoGoroutines(t *testing.T) {
	created := func() uint64 {
		s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			t.Skip("runtime metric /sched/goroutines-created unavailable")
		}
		return s[0].Value.Uint64()
	}
	for _, tc := range []struct {
		spec  string
		shape []int
	}{
		{RingnormArch, []int{20}},
		{cnnTrainSpec, []int{1, 28, 28}},
	} {
		t.Run(tc.spec[:5], func(t *testing.T) {
			n := mustNew(t, tc.spec, tc.shape, 3)
			opt := NewSGD(n.Params(), 1e-3, 0.9, 1e-4, false)
			x := uniform(newRand(4), n.InSize(), 0, 1)
			c := uniform(newRand(5), n.OutSize(), -1, 1)
			z := make([]float32, n.OutSize())
			step := func() {
				opt.ZeroGrad()
				n.Forward(x, 1, true)
				n.Backward(c)
				opt.Step()
				n.Features(z, x, 1)
			}
			step()
			runtime.GC()
			before := created()
			for range 10 {
				step()
			}
			if d := created() - before; d != 0 {
				t.Errorf("%d goroutines started in 10 single-sample steps", d)
			}
		})
	}
}

// TestMaxPoolInferenceMatchesTrain checks the vectorised inference max-pool
// (exactly tiling 2×2 windows, with and without a fused relu) against the
// train-mode path, and that odd sizes (floor pooling) still work.
func TestMaxPoolInferenceMatchesTrain(t *testing.T) {
	for _, c := range []struct {
		spec  string
		shape []int
	}{
		{"maxpool(2)", []int{3, 24, 24}},
		{"maxpool(2),relu", []int{3, 24, 24}},
		{"maxpool(2),relu", []int{5, 8, 8}},
		{"maxpool(2),relu", []int{2, 6, 10}},
		{"maxpool(2)", []int{2, 7, 9}},
		{"maxpool(3),relu", []int{2, 9, 9}},
	} {
		net, err := New(c.spec, c.shape, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		const n = 5
		x := make([]float32, n*net.InSize())
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		train := append([]float32(nil), net.Forward(x, n, true)...)
		infer := net.Forward(x, n, false)
		for i := range train {
			if train[i] != infer[i] {
				t.Fatalf("%s on %v: output %d is %g in inference, %g in training", c.spec, c.shape, i, infer[i], train[i])
			}
		}
	}
}

// TestMeanPool checks meanpool against the channel means of the flattened
// conv output, for rows input (meanpool first) and channel-first input
// (after a conv), in one batch and split across parts.
func TestMeanPool(t *testing.T) {
	const rows = 6
	shape := []int{2, 5, 1}
	// check compares got (rows × c) with the means of the hw-long runs of
	// all (rows × c × hw, NCHW).
	check := func(what string, got, all []float32, c, hw int) {
		t.Helper()
		if len(got) != rows*c {
			t.Fatalf("%s: %d values, want %d", what, len(got), rows*c)
		}
		for i := range rows * c {
			var sum float64
			for _, v := range all[i*hw : (i+1)*hw] {
				sum += float64(v)
			}
			if d := math.Abs(float64(got[i]) - sum/float64(hw)); d > 1e-6 {
				t.Fatalf("%s: sample %d channel %d: got %g, want %g", what, i/c, i%c, got[i], sum/float64(hw))
			}
		}
	}
	for _, split := range []bool{false, true} {
		t.Run(fmt.Sprintf("split=%v", split), func(t *testing.T) {
			pooled := mustNew(t, "conv(3,1),meanpool", shape, 7)
			flat := mustNew(t, "conv(3,1),flatten", shape, 7)
			for _, n := range []*Net{pooled, flat} {
				if split {
					n.maxParts, n.splitWork = 2, 0
				}
			}
			x := uniform(newRand(8), rows*pooled.InSize(), -1, 1)
			got := slices.Clone(pooled.Forward(x, rows, false))
			check("after conv", got, flat.Forward(x, rows, false), 3, 5)
			check("on the input", mustNew(t, "meanpool", shape, 1).Forward(x, rows, false), x, 2, 5)
		})
	}
}

// TestImplicitConvMatchesGEMM runs the paper's CNN (whose convolutions take
// the implicit-im2col kernels) against the same Net forced onto the im2col +
// GEMM path, which the layers fall back to for batches too large for the
// kernels' int32 offsets: outputs and every gradient agree to rounding.
func TestImplicitConvMatchesGEMM(t *testing.T) {
	imp := mustNew(t, MNISTArchNoNorm, []int{1, 28, 28}, 3)
	gemm := imp.Clone()
	for _, n := range []*Net{imp, gemm} {
		n.maxParts = 1
	}
	for _, l := range gemm.trainReps[0].layers {
		if c, ok := l.(*conv); ok {
			if !c.implicit {
				t.Fatal("a conv of MNISTArch does not take the implicit path")
			}
			c.implicit = false
		}
	}
	const batch = 5
	x := uniform(newRand(4), batch*imp.InSize(), 0, 1)
	c := uniform(newRand(5), batch*imp.OutSize(), -1, 1)
	var outs [2][]float32
	for i, n := range []*Net{imp, gemm} {
		n.SetRand(newRand(6))
		n.ZeroGrad()
		outs[i] = slices.Clone(n.Forward(x, batch, true))
		n.Backward(c)
	}
	if d := maxRelDiff(outs[0], outs[1]); d > 1e-6 {
		t.Errorf("outputs differ by %g", d)
	}
	for i, p := range gemm.Params() {
		if d := maxRelDiff(imp.Params()[i].G, p.G); d > 1e-5 {
			t.Errorf("%s: gradients differ by %g", p.Name, d)
		}
	}
}

// TestCNNStepsSameOnAnyCores trains the paper's CNN for a few batch-64
// steps (split across parts) under GOMAXPROCS 1 and 2: the parameters must
// agree bit for bit, as the split does not depend on the number of cores.
func TestCNNStepsSameOnAnyCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var ws [][]float32
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		n := mustNew(t, MNISTArch, []int{1, 28, 28}, 7)
		opt := NewSGD(n.Params(), 0.01, 0.9, 1e-4, false)
		const batch = 64
		x := uniform(newRand(8), batch*n.InSize(), 0, 1)
		c := uniform(newRand(9), batch*n.OutSize(), -1, 1)
		for range 3 {
			opt.ZeroGrad()
			n.Forward(x, batch, true)
			n.Backward(c)
			opt.Step()
		}
		if n.parts != splitParts {
			t.Fatalf("GOMAXPROCS %d: the batch ran in %d parts, want %d", procs, n.parts, splitParts)
		}
		var w []float32
		for _, p := range n.Params() {
			w = append(w, p.W...)
		}
		ws = append(ws, w)
	}
	for i := range ws[0] {
		if math.Float32bits(ws[0][i]) != math.Float32bits(ws[1][i]) {
			t.Fatalf("parameter %d: %g under GOMAXPROCS 1, %g under 2", i, ws[0][i], ws[1][i])
		}
	}
}

// TestTrim checks that Trim gives the workspaces back and changes nothing
// else: a trimmed network trains on and computes features bit for bit as an
// untrimmed twin, and a Backward needs a Forward after it.
func TestTrim(t *testing.T) {
	const arch = "conv(32,5),maxpool(2),batchnorm,relu,conv(64,5),maxpool(2),batchnorm,relu,flatten,dense(256),batchnorm,relu,dropout(0.5)"
	const batch = 64
	a, b := mustNew(t, arch, []int{1, 28, 28}, 7), mustNew(t, arch, []int{1, 28, 28}, 7)
	a.SetRand(newRand(5))
	b.SetRand(newRand(5))
	oa := NewAdam(a.Params(), 1e-3, 0.9, 0.999, 1e-8, 1e-4)
	ob := NewAdam(b.Params(), 1e-3, 0.9, 0.999, 1e-8, 1e-4)
	x := uniform(newRand(8), 4*batch*a.InSize(), 0, 1)
	c := uniform(newRand(9), batch*a.OutSize(), -1, 1)
	steps := func(n *Net, o *Adam) {
		for range 3 {
			o.ZeroGrad()
			n.Forward(x, batch, true)
			n.Backward(c)
			o.Step()
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	steps(a, oa)
	steps(b, ob)
	za := make([]float32, 4*batch*a.OutSize())
	a.Features(za, x, 4*batch)
	before := heap()
	a.Trim()
	freed := int64(before) - int64(heap())
	t.Logf("freed %d MB", freed>>20)
	if freed < 32<<20 {
		t.Errorf("Trim freed %d bytes, want the workspaces' megabytes", freed)
	}
	func() {
		defer func() {
			if s, _ := recover().(string); !strings.Contains(s, "nn: Backward without") {
				t.Errorf("Backward after Trim: panic %q, want one", s)
			}
		}()
		a.Backward(c)
	}()
	steps(a, oa)
	steps(b, ob)
	zb := make([]float32, len(za))
	a.Features(za, x, 4*batch)
	b.Features(zb, x, 4*batch)
	for i := range za {
		if math.Float32bits(za[i]) != math.Float32bits(zb[i]) {
			t.Fatalf("feature %d: %g trimmed, %g not", i, za[i], zb[i])
		}
	}
}
