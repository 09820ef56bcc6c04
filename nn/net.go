package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/vec"
)

// Param is one parameter tensor of a Net.
type Param struct {
	// Name is the index of the layer's token in the spec plus a PyTorch
	// suffix, e.g. "0.weight", "0.bias", "2.running_mean": the same names as
	// the state_dict of the equivalent torch.nn.Sequential.
	Name string
	// Shape is PyTorch's layout: dense weight [out, in], bias [out]; conv
	// weight [cout, cin, k, k], bias [cout]; batchnorm weight, bias and
	// running statistics [channels].
	Shape []int
	// W holds the values and G the accumulated gradient ∂L/∂W, both
	// row-major in Shape unless Transposed.
	W, G []float32
	// Buffer is set on the running statistics of a batchnorm layer
	// ("running_mean", "running_var"): state the network keeps for
	// inference and saves with its parameters, but that no gradient reaches;
	// the optimizers leave it alone.
	Buffer bool
	// Transposed is set on the weight of the first dense layer of a Net in
	// the sparse layout (Net.SetSparseLayout): W and G then hold the
	// transpose of the Shape[0]×Shape[1] matrix, row-major Shape[1]×Shape[0]
	// (element (o, j) at j·Shape[0] + o), so that the weights of one input
	// are contiguous. Torch and SetTorch read and write PyTorch's layout
	// whatever the storage. The optimizers work on either layout (they are
	// elementwise).
	Transposed bool
}

// Torch returns W in PyTorch's layout, row-major in Shape: W itself (not a
// copy) unless Transposed, else a new transposed copy.
func (p *Param) Torch() []float32 {
	if !p.Transposed {
		return p.W
	}
	w := make([]float32, len(p.W))
	transpose(w, p.W, p.Shape[1], p.Shape[0])
	return w
}

// SetTorch sets W from w, given in PyTorch's layout (row-major in Shape).
func (p *Param) SetTorch(w []float32) {
	if len(w) != len(p.W) {
		panic(fmt.Sprintf("nn: SetTorch: %d values for %s of shape %v", len(w), p.Name, p.Shape))
	}
	if !p.Transposed {
		copy(p.W, w)
		return
	}
	transpose(p.W, w, p.Shape[0], p.Shape[1])
}

// shape is a per-sample activation shape: c×h×w when spatial, else c
// features (h = w = 1).
type shape struct {
	c, h, w int
	spatial bool
}

func (s shape) size() int { return s.c * s.h * s.w }

func flat(n int) shape { return shape{c: n, h: 1, w: 1} }

// stage is a planned layer: its spec, shapes and layouts. Stages that come
// from no token (implicit flattens) have tok = −1.
type stage struct {
	spec     LayerSpec
	tok      int
	in, out  shape
	cfIn, cf bool // input / output channel-first across the batch
	param    int  // index of the weight in Net.params (bias follows), −1 if none
	mask     int  // index of the dropout mask buffer, −1 if none
	flops    int  // multiply-adds per sample (forward)
	ws       int  // floats of forward workspace per sample
	fuseNext bool // the next stage (a relu) is computed by this one (maxpool, dense, conv)
	fused    bool // computed by the stage before
	padOut   bool // conv: output rows padded to the input width
	rs       int  // row stride of padded input planes (dropout2d, maxpool after a padded conv), else 0
}

// Net is a feed-forward network F_θ built from an architecture spec.
// Features is safe for concurrent use (each call takes its own inference
// workspaces from a pool) as long as nothing changes the parameters, and so
// is FeaturesSparse; the training methods (Forward, ForwardSparse,
// Backward, ZeroGrad, SetRand, SetSparseLayout) are not, and Features must
// not run while they do.
type Net struct {
	spec    string
	specs   []LayerSpec
	inShape []int
	inSize  int
	outSize int
	stages  []stage
	params  []*Param
	masks   []*maskBuf
	rng     *rand.Rand
	flops   int // multiply-adds per sample
	copyIn  bool

	trainReps  []*replica // replicas for train-mode Forward/Backward
	featReps   []*replica // replicas for Forward(train=false)
	sparseReps []*replica // replicas for train-mode ForwardSparse/Backward
	pool       *pool
	fj         *fwdJob
	bj         *bwdJob
	sbj        *sparseBwdJob
	gj         *sparseGradJob

	// sparse input (sparse.go): the stage of the first dense layer, −1 when
	// the net cannot take sparse rows; the multiply-adds per sample of the
	// stages after it
	sp       int
	restWork int

	wg sync.WaitGroup // for the train-mode jobs (one at a time)

	// idle inference workspaces for Features, taken and returned by each
	// call
	inferMu   sync.Mutex
	inferIdle []*replica
	calls     sync.Pool // *featCall

	// tuning knobs, fixed at build time (tests lower them to force the
	// parallel paths)
	maxParts  int // 0: splitParts
	splitWork int // minimum multiply-adds of a batch before it is split
	featChunk int // rows per Features chunk

	// state of the most recent train-mode Forward
	trained bool
	sparse  bool     // it was ForwardSparse; its rows are in sb
	sb      data.CSR // the batch rows of the last train-mode ForwardSparse
	sbInfer data.CSR // and of the last inference one
	batch   int
	parts   int

	xbuf []float32
	out  []float32

	bnStages []int // the stages that are batchnorms

	tally *Tally // where the multiply-adds are counted (CountInto), or nil
}

// Tuning defaults, measured on the paper's networks (see bench/).
const (
	defaultSplitWork = 1 << 20 // multiply-adds: ~0.2 ms of work
	featMemBytes     = 1 << 20 // forward workspace per Features chunk (one core's L2 here)
	maxFeatChunk     = 256     // small enough for dynamic balancing over the workers
)

// New parses the architecture spec, builds the layers for inShape (one
// number for flat inputs, or C, H, W for images) and initialises the
// parameters like PyTorch's defaults for Linear and Conv2d: weights and
// biases uniform in [−1/√fan_in, 1/√fan_in] (kaiming_uniform with a = √5),
// drawn from rng layer by layer, weight before bias, in row-major order; and
// like BatchNorm's: γ = 1, β = 0, running mean 0 and variance 1.
// rng is kept for the dropout masks of train-mode forward passes.
func New(spec string, inShape []int, rng *rand.Rand) (*Net, error) {
	if rng == nil {
		panic("nn: New: nil rng")
	}
	n, err := build(spec, inShape)
	if err != nil {
		return nil, err
	}
	n.rng = rng
	for _, st := range n.stages {
		if st.param < 0 {
			continue
		}
		w, b := n.params[st.param], n.params[st.param+1]
		if st.spec.Kind == BatchNorm {
			// γ = 1, β = 0, running mean 0 and variance 1: no draws.
			fill(w.W, 1)
			fill(n.params[st.param+3].W, 1)
			continue
		}
		// Dense and conv: weight and bias both use the weight's fan_in.
		bound := 1 / math.Sqrt(float64(len(w.W)/w.Shape[0]))
		for _, p := range []*Param{w, b} {
			for j := range p.W {
				p.W[j] = float32((2*rng.Float64() - 1) * bound)
			}
		}
	}
	return n, nil
}

// maxParams bounds the number of parameters of a Net.
const maxParams = 1 << 28

// build plans the stages and allocates the parameters (zero) and the first
// replicas.
func layout(spec string, inShape []int) (*Net, error) {
	specs, toks, err := parseArch(spec)
	if err != nil {
		return nil, err
	}
	in, err := inputShape(inShape)
	if err != nil {
		return nil, err
	}
	n := &Net{
		spec:      spec,
		specs:     specs,
		inShape:   slices.Clone(inShape),
		inSize:    in.size(),
		splitWork: defaultSplitWork,
	}
	pl := &planner{n: n, cur: in}
	for i, s := range specs {
		if err := pl.layer(i, s); err != nil {
			return nil, fmt.Errorf("nn: arch %q: token %d %q: %w", spec, i+1, toks[i], err)
		}
	}
	if pl.cf {
		pl.flatten(-1) // the output is always rows in NCHW order
	}
	n.padConvOutputs()
	n.fuseReLUs()
	n.outSize = pl.cur.size()
	n.indexStages()
	return n, nil
}

// inputShape returns the shape of the input rows inShape: [features] or
// [channels, height, width], each size and the total at most maxWidth.
func inputShape(inShape []int) (shape, error) {
	var in shape
	switch len(inShape) {
	case 1:
		in = flat(inShape[0])
	case 3:
		in = shape{c: inShape[0], h: inShape[1], w: inShape[2], spatial: true}
	default:
		return in, fmt.Errorf("nn: input shape %v: want [features] or [channels, height, width]", inShape)
	}
	for _, v := range inShape {
		if v < 1 || v > maxWidth {
			return in, fmt.Errorf("nn: input shape %v: sizes must be in [1, %d]", inShape, maxWidth)
		}
	}
	if in.size() > maxWidth {
		return in, fmt.Errorf("nn: input shape %v: too large", inShape)
	}
	return in, nil
}

// planner lays out the stages of a Net layer by layer: cur is the shape of
// the rows the next layer receives and cf whether they are channel-first
// across the batch; nparams counts the parameter values so far.
type planner struct {
	n       *Net
	cur     shape
	cf      bool
	nparams int
}

// add appends st and makes its output the current shape.
func (pl *planner) add(st stage) {
	st.cfIn = pl.cf
	pl.n.stages = append(pl.n.stages, st)
	pl.cur, pl.cf = st.out, st.cf
}

// flatten appends a flatten stage for token tok (−1: implicit).
func (pl *planner) flatten(tok int) {
	cur := pl.cur
	pl.add(stage{spec: LayerSpec{Kind: Flatten}, tok: tok, in: cur, out: flat(cur.size()), param: -1, mask: -1, ws: cur.size()})
}

// param appends layer i's tensor name (PyTorch's state-dict suffix) of the
// given shape, a buffer the optimizers leave alone if buffer, and counts
// its values.
func (pl *planner) param(i int, name string, buffer bool, shape ...int) {
	pl.n.params = append(pl.n.params, &Param{Name: fmt.Sprintf("%d.%s", i, name), Shape: shape, Buffer: buffer})
	size := 1
	for _, v := range shape {
		size *= v
	}
	pl.nparams += size
}

// needImage reports a layer that needs channels×height×width rows given
// flat ones.
func (pl *planner) needImage(what string) error {
	if pl.cur.spatial {
		return nil
	}
	return fmt.Errorf("%s needs a channels×height×width input, got %d features", what, pl.cur.size())
}

// window reports a layer (what) that slides a window of k×k pixels (win)
// over flat rows or over images smaller than the window.
func (pl *planner) window(what, win string, k int) error {
	if err := pl.needImage(what); err != nil {
		return err
	}
	if k > pl.cur.h || k > pl.cur.w {
		return fmt.Errorf("%s %d does not fit the %d×%d input", win, k, pl.cur.h, pl.cur.w)
	}
	return nil
}

// layer plans layer i of spec s: its output shape, multiply-adds, forward
// workspace, parameters and dropout mask.
func (pl *planner) layer(i int, s LayerSpec) error {
	n, cur := pl.n, pl.cur
	st := stage{spec: s, tok: i, in: cur, out: cur, cf: pl.cf, param: -1, mask: -1}
	switch s.Kind {
	case Dense:
		if cur.spatial {
			pl.flatten(-1) // dense flattens an image input implicitly
			cur = pl.cur
			st.in, st.cf = cur, false
		}
		st.out = flat(s.N)
		st.flops = cur.size() * s.N
		st.ws = s.N
		st.param = len(n.params)
		pl.param(i, "weight", false, s.N, cur.size())
		pl.param(i, "bias", false, s.N)
	case Conv:
		if err := pl.window("conv", "kernel", s.K); err != nil {
			return err
		}
		st.out = shape{c: s.N, h: cur.h - s.K + 1, w: cur.w - s.K + 1, spatial: true}
		st.cf = true
		ckk := cur.c * s.K * s.K
		st.flops = s.N * ckk * st.out.h * st.out.w
		st.ws = st.out.size()
		if !implicitConv(st.out.w) {
			st.ws += ckk * st.out.h * st.out.w // the im2col matrix
		}
		st.param = len(n.params)
		pl.param(i, "weight", false, s.N, cur.c, s.K, s.K)
		pl.param(i, "bias", false, s.N)
	case MaxPool:
		if err := pl.window("maxpool", "pool size", s.K); err != nil {
			return err
		}
		st.out = shape{c: cur.c, h: cur.h / s.K, w: cur.w / s.K, spatial: true}
		st.flops = cur.size()
		st.ws = st.out.size()
	case BatchNorm:
		st.flops = 2 * cur.size()
		st.ws = cur.size()
		st.param = len(n.params)
		pl.param(i, "weight", false, cur.c)
		pl.param(i, "bias", false, cur.c)
		pl.param(i, "running_mean", true, cur.c)
		pl.param(i, "running_var", true, cur.c)
	case Dropout2D, Dropout:
		if s.Kind == Dropout2D && !cur.spatial {
			return fmt.Errorf("dropout2d needs a channels×height×width input, got %d features (use dropout)", cur.size())
		}
		st.mask = len(n.masks)
		n.masks = append(n.masks, &maskBuf{})
		st.flops = cur.size()
		st.ws = cur.size()
	case Flatten:
		pl.flatten(i)
		return nil
	case MeanPool:
		if err := pl.needImage("meanpool"); err != nil {
			return err
		}
		st.out, st.cf = flat(cur.c), false
		st.flops = cur.size()
		st.ws = cur.c
	case L2Norm:
		if cur.spatial {
			pl.flatten(-1) // l2norm flattens an image input implicitly
			cur = pl.cur
			st.in, st.out, st.cf = cur, cur, false
		}
		st.flops = 2 * cur.size()
		st.ws = cur.size()
	case ReLU, Scale, Tanh, Sigmoid:
		st.flops = cur.size()
		st.ws = cur.size()
	}
	if pl.nparams > maxParams {
		return fmt.Errorf("the network has more than %d parameters", maxParams)
	}
	pl.add(st)
	return nil
}

// padConvOutputs marks the im2col convolutions whose output reaches a
// max-pool through dropout2d layers only: they write padded rows (see
// conv), and the stages up to the pool read them with the input's row
// stride.
func (n *Net) padConvOutputs() {
	for i, st := range n.stages {
		if st.spec.Kind != Conv || st.out.w == st.in.w || implicitConv(st.out.w) {
			continue
		}
		j := i + 1
		for j < len(n.stages) && n.stages[j].spec.Kind == Dropout2D {
			j++
		}
		if j < len(n.stages) && n.stages[j].spec.Kind == MaxPool {
			n.stages[i].padOut = true
			for k := i + 1; k <= j; k++ {
				n.stages[k].rs = st.in.w
			}
		}
	}
}

// fuseReLUs lets a max-pool, dense, conv or batchnorm stage compute the
// relu that follows it.
func (n *Net) fuseReLUs() {
	for i := 1; i < len(n.stages); i++ {
		if k := n.stages[i-1].spec.Kind; n.stages[i].spec.Kind == ReLU && (k == MaxPool || k == Dense || k == Conv || k == BatchNorm) {
			n.stages[i-1].fuseNext, n.stages[i].fused = true, true
			n.stages[i].ws = 0
		}
	}
}

// indexStages records the batchnorm stages and, for sparse rows, the
// first dense stage (when only flattens come before it) with the
// multiply-adds of the stages after it.
func (n *Net) indexStages() {
	for i, st := range n.stages {
		if st.spec.Kind == BatchNorm {
			n.bnStages = append(n.bnStages, i)
		}
	}
	n.sp = -1
	for i, st := range n.stages {
		if st.spec.Kind == Flatten {
			continue // rows in, rows out: the identity
		}
		if st.spec.Kind == Dense {
			n.sp = i
			for _, later := range n.stages[i+1:] {
				n.restWork += later.flops
			}
		}
		break
	}
}

// ParamCount returns the number of parameters of the network that spec
// describes for inputs of shape inShape, without allocating it: loaders use
// it to check a file's tensors before building the network they describe.
func ParamCount(spec string, inShape []int) (int, error) {
	n, err := layout(spec, inShape)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, p := range n.params {
		size := 1
		for _, v := range p.Shape {
			size *= v
		}
		total += size
	}
	return total, nil
}

// build lays out the network and allocates its parameters and workspaces.
func build(spec string, inShape []int) (*Net, error) {
	n, err := layout(spec, inShape)
	if err != nil {
		return nil, err
	}
	for _, p := range n.params {
		size := 1
		for _, v := range p.Shape {
			size *= v
		}
		p.W = make([]float32, size)
		p.G = make([]float32, size)
	}
	ws := 0
	for _, st := range n.stages {
		n.flops += st.flops
		ws += st.ws
	}
	n.featChunk = max(1, min(maxFeatChunk, featMemBytes/(4*max(1, ws))))
	for _, st := range n.stages {
		if st.spec.Kind == Dropout || st.spec.Kind == Dropout2D || st.spec.Kind == Flatten {
			continue
		}
		// Dense and conv keep their input for Backward, and so does a
		// 2×2 max-pool (it finds the maxima again).
		n.copyIn = st.spec.Kind == Dense || st.spec.Kind == Conv || st.spec.Kind == MaxPool
		break
	}
	n.trainReps = []*replica{n.newReplica(false)}
	n.featReps = []*replica{n.newReplica(false)}
	n.pool = newPool()
	n.fj, n.bj, n.sbj, n.gj = &fwdJob{}, &bwdJob{}, &sparseBwdJob{}, &sparseGradJob{}
	runtime.AddCleanup(n, func(tasks chan task) { close(tasks) }, n.pool.tasks)
	return n, nil
}

// newReplica builds a fresh set of layers over the shared parameters. With
// private set, the layers accumulate gradients into the replica's own
// buffers instead of Param.G.
func (n *Net) newReplica(private bool) *replica { return n.buildReplica(private, 0) }

// buildReplica is newReplica whose first shared parameters use Param.G even
// when private is set (their grads entries are nil): the sparse replicas
// leave the first layer's gradient to the Net, which adds it into Param.G
// directly (a private copy of a wide first layer would be huge).
func (n *Net) buildReplica(private bool, shared int) *replica {
	r := &replica{first: len(n.stages)}
	if private {
		r.grads = make([][]float32, len(n.params))
		for i, p := range n.params[shared:] {
			r.grads[shared+i] = make([]float32, len(p.G))
		}
	}
	gradOf := func(i int) []float32 {
		if private && i >= shared {
			return r.grads[i]
		}
		return n.params[i].G
	}
	for i, st := range n.stages {
		var l layer
		switch st.spec.Kind {
		case Dense:
			l = &dense{in: st.in.size(), out: st.out.size(), relu: st.fuseNext, t: n.params[st.param].Transposed,
				w: n.params[st.param].W, b: n.params[st.param+1].W, gw: gradOf(st.param), gb: gradOf(st.param + 1)}
		case Conv:
			ow := st.out.w
			if st.padOut {
				ow = st.in.w
			}
			perSample := 4 * (st.in.c*st.spec.K*st.spec.K + 1) * st.out.h * ow
			l = &conv{relu: st.fuseNext, cin: st.in.c, h: st.in.h, w: st.in.w, cout: st.out.c, k: st.spec.K, ho: st.out.h, wo: st.out.w, ow: ow, cfIn: st.cfIn,
				implicit: implicitConv(st.out.w), chunk: max(1, convChunkBytes/perSample), colsAt: -1, tabN: -1,
				wt: n.params[st.param].W, b: n.params[st.param+1].W, gw: gradOf(st.param), gb: gradOf(st.param + 1)}
			if useWinograd(st) {
				l.(*conv).wino = &winoConv{m: stageWino(st)}
			}
		case BatchNorm:
			ps := n.params[st.param : st.param+4]
			l = &batchnorm{c: st.in.c, hw: st.in.h * st.in.w, cf: st.cfIn, relu: st.fuseNext,
				g: ps[0].W, b: ps[1].W, gg: gradOf(st.param), gb: gradOf(st.param + 1), rm: ps[2].W, rv: ps[3].W}
		case MaxPool:
			rs := st.in.w
			if st.rs > 0 {
				rs = st.rs
			}
			l = &maxpool{c: st.in.c, h: st.in.h, w: st.in.w, k: st.spec.K, ho: st.out.h, wo: st.out.w, rs: rs, ps: st.in.h * rs, relu: st.fuseNext}
		case ReLU:
			if st.fused {
				l = identity{}
			} else {
				l = &relu{}
			}
		case Dropout, Dropout2D:
			hw := st.in.h * st.in.w
			if st.rs > 0 {
				hw = st.in.h * st.rs
			}
			d := &dropout{p: st.spec.P, c: st.in.c, hw: hw, perPlane: st.spec.Kind == Dropout2D, cf: st.cfIn, masks: n.masks[st.mask]}
			r.drop = append(r.drop, d)
			l = d
		case Flatten:
			l = &flatten{c: st.in.c, hw: st.in.h * st.in.w, cf: st.cfIn}
		case MeanPool:
			l = &meanpool{c: st.in.c, hw: st.in.h * st.in.w, cf: st.cfIn}
		case L2Norm:
			l = &l2norm{d: st.in.size(), eps: st.spec.P}
		case Scale:
			l = &scale{c: float32(st.spec.P)}
		case Tanh:
			l = &squash{}
		case Sigmoid:
			l = &squash{sigmoid: true}
		}
		if st.param >= 0 && r.first == len(n.stages) {
			r.first = i
		}
		r.layers = append(r.layers, l)
	}
	return r
}

// replica is one chain of layers with its own workspaces. Replica 0 of the
// train set accumulates into Param.G; the others into private buffers that
// Backward adds into Param.G.
type replica struct {
	layers []layer
	drop   []*dropout
	first  int         // first layer with parameters: Backward stops there
	grads  [][]float32 // private gradients, nil for replica 0
	out    []float32
}

func (r *replica) forward(x []float32, off, n int, train bool) []float32 {
	return r.forwardFrom(x, off, n, train, 0)
}

// forwardFrom runs the layers from index from on.
func (r *replica) forwardFrom(x []float32, off, n int, train bool, from int) []float32 {
	for _, d := range r.drop {
		d.off = off
	}
	for _, l := range r.layers[from:] {
		x = l.forward(x, n, train)
	}
	return x
}

func (r *replica) backward(dy []float32, n int) {
	for i := len(r.layers) - 1; i >= r.first; i-- {
		dy = r.layers[i].backward(dy, n, i > r.first)
	}
}

// backwardTo runs the backward pass of the layers from the last down to
// index to and returns ∂L/∂(input of layer to).
func (r *replica) backwardTo(dy []float32, n, to int) []float32 {
	for i := len(r.layers) - 1; i >= to; i-- {
		dy = r.layers[i].backward(dy, n, true)
	}
	return dy
}

// Spec returns the architecture spec the Net was built from.
func (n *Net) Spec() string { return n.spec }

// InShape returns a copy of the per-sample input shape.
func (n *Net) InShape() []int { return slices.Clone(n.inShape) }

// InSize returns the number of inputs per sample.
func (n *Net) InSize() int { return n.inSize }

// OutSize returns the number of outputs (features) per sample.
func (n *Net) OutSize() int { return n.outSize }

// Layers returns the parsed spec.
func (n *Net) Layers() []LayerSpec { return slices.Clone(n.specs) }

// Params returns the parameters in a stable order: layer by layer, weight
// before bias. The Params are the Net's own: writing W changes the network.
func (n *Net) Params() []*Param { return slices.Clone(n.params) }

// NumParams returns the number of scalar parameters.
func (n *Net) NumParams() int {
	s := 0
	for _, p := range n.params {
		s += len(p.W)
	}
	return s
}

// ZeroGrad sets every Param.G to zero.
func (n *Net) ZeroGrad() {
	for _, p := range n.params {
		clear(p.G)
	}
}

// SetRand replaces the random number generator used for dropout masks.
func (n *Net) SetRand(rng *rand.Rand) {
	if rng == nil {
		panic("nn: SetRand: nil rng")
	}
	n.rng = rng
}

// Trim drops the workspaces that training and Features grew (every
// replica's activations and scratch buffers, the input and output kept from
// the last batch), which on an image network are tens of megabytes: a
// trained network that is kept for later holds its parameters, gradients
// and running statistics only, and its workspaces grow again when it next
// runs. Trim is one of the training methods (see Net): nothing else may run
// on n meanwhile, and a Backward needs a Forward after it.
func (n *Net) Trim() {
	n.trainReps = []*replica{n.newReplica(false)}
	n.featReps = []*replica{n.newReplica(false)}
	n.sparseReps = nil
	n.inferMu.Lock()
	n.inferIdle = nil
	n.inferMu.Unlock()
	*n.fj, *n.bj, *n.sbj, *n.gj = fwdJob{}, bwdJob{}, sparseBwdJob{}, sparseGradJob{}
	n.xbuf, n.out = nil, nil
	n.sb, n.sbInfer = data.CSR{}, data.CSR{}
	n.trained, n.sparse, n.batch, n.parts = false, false, 0, 0
}

// Clone returns a deep copy of n: parameters and gradients are copied, the
// workspaces are fresh. The clone shares n's random number generator; give it
// its own with SetRand before using both.
func (n *Net) Clone() *Net {
	c, err := build(n.spec, n.inShape)
	if err != nil {
		panic("nn: Clone: " + err.Error())
	}
	if n.SparseLayout() {
		c.markSparseLayout(true)
	}
	for i, p := range n.params {
		copy(c.params[i].W, p.W)
		copy(c.params[i].G, p.G)
	}
	c.rng = n.rng
	c.maxParts, c.splitWork, c.featChunk = n.maxParts, n.splitWork, n.featChunk
	c.tally = n.tally
	return c
}

// procs returns the number of goroutines a large batch may use.
func (n *Net) procs() int {
	if n.maxParts > 0 {
		return n.maxParts
	}
	return splitParts
}

// splitParts is how many parts a large batch is split into. It is a
// constant, not runtime.GOMAXPROCS, so that every row is computed with the
// same neighbours and every gradient summed in the same order on any
// machine: results are bit-identical whatever the number of cores. The parts
// run concurrently on the cores there are.
const splitParts = 2

// partsFor returns how many replicas a batch is split across.
func (n *Net) partsFor(batch int) int {
	if batch < 2 || batch*n.flops < n.splitWork {
		return 1
	}
	return max(1, min(n.procs(), batch))
}

// ensureReps grows *reps to k replicas: the train-mode ones accumulate
// private gradients, the sparse ones all but the first layer's (which the
// Net computes), the inference ones none.
func (n *Net) ensureReps(reps *[]*replica, k int) {
	for len(*reps) < k {
		var r *replica
		switch reps {
		case &n.trainReps:
			r = n.newReplica(true)
		case &n.sparseReps:
			r = n.buildReplica(len(*reps) > 0, n.stages[n.sp].param+2)
		default:
			r = n.newReplica(false)
		}
		*reps = append(*reps, r)
	}
}

// aliases reports whether a and b share their first element.
func aliases(a, b []float32) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

// Forward runs a batch (batch×InSize, row-major, one sample per row; extra
// elements are ignored) and returns the batch×OutSize outputs, owned by the
// Net and valid until the next Forward or ForwardSparse. With train = true
// dropout is active and the activations are kept for Backward; with
// train = false it is inference (dropout off) and the state kept for
// Backward is left as it was.
// Large batches are split into splitParts concurrent parts; the
// result does not depend on the split beyond float32 rounding.
func (n *Net) Forward(x []float32, batch int, train bool) []float32 {
	if batch < 1 || len(x) < batch*n.inSize {
		panic(fmt.Sprintf("nn: Forward: %d inputs for a batch of %d × %d", len(x), batch, n.inSize))
	}
	x = x[:batch*n.inSize]
	in := x
	reps := &n.featReps
	var xbuf []float32 // where the input is kept for Backward (copyIn)
	if train {
		n.trained, n.sparse = false, false
		reps = &n.trainReps
		if n.copyIn {
			n.xbuf = vec.Resize(n.xbuf, len(x))
			xbuf = n.xbuf
		}
		n.drawMasks(batch)
	}
	parts := n.partsFor(batch)
	var out []float32
	if parts == 1 {
		if xbuf != nil {
			copy(xbuf, x)
			x = xbuf
		}
		out = (*reps)[0].forward(x, 0, batch, train)
		if aliases(out, in) {
			n.out = vec.Resize(n.out, len(out))
			copy(n.out, out)
			out = n.out
		}
	} else {
		n.ensureReps(reps, parts)
		// Each part copies its own rows of the input.
		*n.fj = fwdJob{reps: *reps, x: x, xbuf: xbuf, batch: batch, parts: parts, train: train, in: n.inSize}
		n.pool.run(n.fj, parts, &n.wg)
		n.out = vec.Resize(n.out, batch*n.outSize)
		for i := 0; i < parts; i++ {
			lo, _ := span(batch, parts, i)
			copy(n.out[lo*n.outSize:], (*reps)[i].out)
		}
		n.fj.x, n.fj.xbuf = nil, nil
		out = n.out
	}
	if train {
		n.trained, n.batch, n.parts = true, batch, parts
		n.updateRunning(*reps, parts)
	}
	if train {
		n.countForward(batch, -1, parts)
	} else {
		n.countForward(batch, -1, 0)
	}
	return out
}

// updateRunning folds the batch statistics of the last train-mode forward
// pass, run on the first parts replicas of reps, into the running
// estimates of every batchnorm stage.
func (n *Net) updateRunning(reps []*replica, parts int) {
	for _, i := range n.bnStages {
		updateRunning(reps[:parts], i)
	}
}

// drawMasks draws the dropout masks of a train-mode batch, layer by layer,
// sample-major: keep with probability 1−p (value 1/(1−p)), else 0.
func (n *Net) drawMasks(batch int) {
	for _, st := range n.stages {
		if st.mask < 0 || st.spec.P == 0 {
			continue
		}
		per := st.in.size()
		if st.spec.Kind == Dropout2D {
			per = st.in.c
		}
		mb := n.masks[st.mask]
		mb.m = vec.Resize(mb.m, batch*per)
		p, keep := st.spec.P, float32(1/(1-st.spec.P))
		for i := range mb.m {
			if n.rng.Float64() < p {
				mb.m[i] = 0
			} else {
				mb.m[i] = keep
			}
		}
	}
}

// Backward takes ∂L/∂output (batch×OutSize) for the most recent train-mode
// Forward and adds ∂L/∂θ into every Param.G. dout is not modified.
func (n *Net) Backward(dout []float32) {
	if !n.trained {
		panic("nn: Backward without a preceding train-mode Forward")
	}
	if len(dout) < n.batch*n.outSize {
		panic(fmt.Sprintf("nn: Backward: %d output gradients for a batch of %d × %d", len(dout), n.batch, n.outSize))
	}
	dout = dout[:n.batch*n.outSize]
	if n.sparse {
		n.countBackward(n.batch, n.sb.NNZ())
		n.backwardSparse(dout)
		return
	}
	n.countBackward(n.batch, -1)
	if n.parts == 1 {
		n.trainReps[0].backward(dout, n.batch)
		return
	}
	*n.bj = bwdJob{reps: n.trainReps, dout: dout, batch: n.batch, parts: n.parts, out: n.outSize}
	n.pool.run(n.bj, n.parts, &n.wg)
	n.bj.dout = nil
	for _, r := range n.trainReps[1:n.parts] {
		for i, p := range n.params {
			vec.Axpy(1, r.grads[i], p.G)
		}
	}
}

// Features sets dst (rows×OutSize) to the inference-mode outputs for the rows
// of x (rows×InSize). It works in chunks of bounded memory and, for large
// rows, splits the chunks across splitParts goroutines, each with its
// own workspace. Its workspaces are its own (replicas taken from a pool for
// the duration of the call), so that concurrent calls run in parallel and
// a pending Backward is not disturbed; the result depends only on x and
// rows, never on what runs at the same time. It must not run while the
// parameters change (Forward, Backward or an optimizer step).
func (n *Net) Features(dst, x []float32, rows int) {
	if rows < 0 || len(x) < rows*n.inSize || len(dst) < rows*n.outSize {
		panic(fmt.Sprintf("nn: Features: %d inputs and %d outputs for %d rows of %d → %d", len(x), len(dst), rows, n.inSize, n.outSize))
	}
	n.features(dst, x, nil, rows, rows*n.flops)
	n.countForward(rows, -1, 0)
}

// features is Features on the dense rows x or, when sx is not nil, on the
// sparse rows sx; work is the multiply-adds of all rows.
func (n *Net) features(dst, x []float32, sx *data.CSR, rows, work int) {
	if rows == 0 {
		return
	}
	chunk := n.featChunk
	parts := 1
	if rows > 1 && work >= n.splitWork {
		if p := n.procs(); p > 1 {
			parts = p
			chunk = min(chunk, (rows+p-1)/p)
		}
	}
	nch := (rows + chunk - 1) / chunk
	parts = min(parts, nch)
	if parts > 1 {
		// Equal chunks, a multiple of parts of them, so that the workers
		// finish together when the cores are equally fast.
		nch = (nch + parts - 1) / parts * parts
		chunk = (rows + nch - 1) / nch
	}
	c, _ := n.calls.Get().(*featCall)
	if c == nil {
		c = &featCall{}
	}
	n.takeInfer(c, parts)
	j := &c.job
	j.dst, j.x, j.sx, j.rows, j.chunk, j.in, j.out, j.sp = dst, x, sx, rows, chunk, n.inSize, n.outSize, n.sp
	if parts == 1 {
		r := j.reps[0]
		for lo := 0; lo < rows; lo += chunk {
			hi := min(rows, lo+chunk)
			copy(dst[lo*n.outSize:hi*n.outSize], j.chunkOut(r, lo, hi))
		}
	} else {
		j.next.Store(int64(parts * chunk))
		n.pool.run(j, parts, &c.wg)
	}
	j.dst, j.x, j.sx = nil, nil, nil
	n.returnInfer(c)
	n.calls.Put(c)
}

// featCall is the state of one Features call, reused through a sync.Pool so
// that a call allocates nothing once warm.
type featCall struct {
	job featJob
	wg  sync.WaitGroup
}

// takeInfer sets c's replicas to k idle inference replicas, building new
// ones when there are too few.
func (n *Net) takeInfer(c *featCall, k int) {
	c.job.reps = c.job.reps[:0]
	n.inferMu.Lock()
	for len(c.job.reps) < k && len(n.inferIdle) > 0 {
		m := len(n.inferIdle)
		c.job.reps = append(c.job.reps, n.inferIdle[m-1])
		n.inferIdle = n.inferIdle[:m-1]
	}
	n.inferMu.Unlock()
	for len(c.job.reps) < k {
		c.job.reps = append(c.job.reps, n.newReplica(false))
	}
}

// returnInfer gives c's replicas back.
func (n *Net) returnInfer(c *featCall) {
	n.inferMu.Lock()
	n.inferIdle = append(n.inferIdle, c.job.reps...)
	n.inferMu.Unlock()
	clear(c.job.reps)
	c.job.reps = c.job.reps[:0]
}

// span returns the sample range of part i of a batch split into parts.
func span(batch, parts, i int) (lo, hi int) {
	return i * batch / parts, (i + 1) * batch / parts
}

// The jobs below run on the pool. They hold the replicas, not the Net, so
// that a Net can be collected while its idle workers wait.

type fwdJob struct {
	reps             []*replica
	x                []float32
	sx               *data.CSR // sparse rows instead of x, for layer sp
	xbuf             []float32 // if not nil, copy x here and run on the copy
	batch, parts, in int
	sp               int
	train            bool
}

func (j *fwdJob) run(i int) {
	lo, hi := span(j.batch, j.parts, i)
	r := j.reps[i]
	if j.sx != nil {
		r.out = r.forwardSparse(j.sx, lo, hi, j.train, j.sp)
		return
	}
	x := j.x[lo*j.in : hi*j.in]
	if j.xbuf != nil {
		x = j.xbuf[lo*j.in : hi*j.in]
		copy(x, j.x[lo*j.in:hi*j.in])
	}
	r.out = r.forward(x, lo, hi-lo, j.train)
}

type bwdJob struct {
	reps              []*replica
	dout              []float32
	batch, parts, out int
}

func (j *bwdJob) run(i int) {
	lo, hi := span(j.batch, j.parts, i)
	r := j.reps[i]
	for _, g := range r.grads {
		clear(g)
	}
	r.backward(j.dout[lo*j.out:hi*j.out], hi-lo)
}

type featJob struct {
	reps                 []*replica
	dst, x               []float32
	sx                   *data.CSR // sparse rows instead of x, for layer sp
	rows, chunk, in, out int
	sp                   int
	next                 atomic.Int64
}

// run computes chunk i first, then takes chunks from the shared counter
// (which starts past the parts' first chunks) until none is left. The fixed
// first chunk means every replica works a full chunk on every call, so that
// its workspaces are grown by the first call and not by whichever later call
// first finds its worker scheduled in time (a loaded machine may leave a
// worker idle for many calls).
func (j *featJob) run(i int) {
	r := j.reps[i]
	for lo := i * j.chunk; lo < j.rows; lo = int(j.next.Add(int64(j.chunk))) - j.chunk {
		hi := min(j.rows, lo+j.chunk)
		copy(j.dst[lo*j.out:hi*j.out], j.chunkOut(r, lo, hi))
	}
}

// chunkOut returns the inference outputs of rows [lo, hi).
func (j *featJob) chunkOut(r *replica, lo, hi int) []float32 {
	if j.sx != nil {
		return r.forwardSparse(j.sx, lo, hi, false, j.sp)
	}
	return r.forward(j.x[lo*j.in:hi*j.in], 0, hi-lo, false)
}

// pool runs the parts of a job on persistent worker goroutines while the
// caller waits, so that a split batch allocates little. Calls may come from
// several goroutines at once (concurrent Features); each waits for its own
// parts only. The workers exit when their Net is collected.
type pool struct {
	tasks   chan task
	mu      sync.Mutex
	workers int
}

type runner interface{ run(i int) }

type task struct {
	r  runner
	i  int
	wg *sync.WaitGroup
}

func newPool() *pool { return &pool{tasks: make(chan task, 16)} }

func (p *pool) run(r runner, parts int, wg *sync.WaitGroup) {
	p.mu.Lock()
	for p.workers < parts {
		go poolWorker(p.tasks)
		p.workers++
	}
	p.mu.Unlock()
	// All parts go to workers and the caller blocks: a goroutine readied
	// by a running one waits in that P's run-next slot, where an idle P
	// takes it only after a delay or once the caller blocks (measured: with
	// part 0 on the caller, the worker of a 2000-row Features call started
	// 110 µs into a 150 µs call). Blocking runs one worker on this P at
	// once; the other parts sit in the stealable run queue.
	wg.Add(parts)
	for i := 0; i < parts; i++ {
		p.tasks <- task{r, i, wg}
	}
	wg.Wait()
}

func poolWorker(tasks <-chan task) {
	for t := range tasks {
		t.r.run(t.i)
		t.wg.Done()
	}
}
