package paper

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/nn"
)

// targetAlignment returns the alignment of the batch kernel matrix K with a
// target matrix Y (both k×k, row-major),
//
//	A = ⟨K, Y⟩_F / (‖K‖_F·‖Y‖_F),
//
// and, if g is not nil, adds scale·∂A/∂K to g:
//
//	∂A/∂K_ij = Y_ij/(‖K‖_F‖Y‖_F) − A·K_ij/‖K‖_F².
//
// With Y = yyᵀ for labels ±1 (‖Y‖_F = k) it is the kernel-target alignment
// of Algorithms 3 and 4. It returns 0 and adds nothing when K or Y is zero.
func targetAlignment(kmat, tgt, g []float64, scale float64) float64 {
	var q, f2, y2 float64
	for i, v := range kmat {
		t := tgt[i]
		q += t * v
		f2 += v * v
		y2 += t * t
	}
	if f2 == 0 || y2 == 0 {
		return 0
	}
	f, ny := math.Sqrt(f2), math.Sqrt(y2)
	a := q / (f * ny)
	if g != nil {
		for i, v := range kmat {
			g[i] += scale * (tgt[i]/(f*ny) - a*v/f2)
		}
	}
	return a
}

// Augmenter transforms a batch of rows inputs (rows×D, row-major) in place,
// drawing its randomness from rng: data augmentation for Part I.
type Augmenter func(x []float32, rows int, rng *rand.Rand)

// RandomShift returns an Augmenter for images of c channels of h×w pixels
// that moves every image by a random whole number of pixels in
// −max..max along each axis (independently per image), filling the
// uncovered pixels from border (one image: the background as the rows are
// scaled, the scaled value of a black pixel), or with zeros when border is
// nil: the classic translation augmentation for MNIST.
func RandomShift(c, h, w, max int, border []float32) Augmenter {
	if c < 1 || h < 1 || w < 1 || max < 0 || border != nil && len(border) != c*h*w {
		panic(fmt.Sprintf("nsvm: RandomShift(%d, %d, %d, %d) with a border of %d values", c, h, w, max, len(border)))
	}
	var tmp []float32
	return func(x []float32, rows int, rng *rand.Rand) {
		d := c * h * w
		if len(x) < rows*d {
			panic("nsvm: RandomShift: batch shorter than rows images")
		}
		tmp = vec.Resize(tmp, d)
		for r := 0; r < rows; r++ {
			dy, dx := rng.IntN(2*max+1)-max, rng.IntN(2*max+1)-max
			if dx == 0 && dy == 0 {
				continue
			}
			img := x[r*d : (r+1)*d]
			copy(tmp, img)
			nn.ShiftImages(img, tmp, 1, c, h, w, dy, dx, border)
		}
	}
}

// RandomFlip returns an Augmenter for images of c channels of h×w pixels
// that mirrors every image left to right with probability 1/2: valid where
// a mirrored image shows the same class (clothes, objects), not for digits
// or letters. The selection tries it and keeps it only where it validates
// better.
func RandomFlip(c, h, w int) Augmenter {
	if c < 1 || h < 1 || w < 1 {
		panic(fmt.Sprintf("nsvm: RandomFlip(%d, %d, %d)", c, h, w))
	}
	return func(x []float32, rows int, rng *rand.Rand) {
		d := c * h * w
		if len(x) < rows*d {
			panic("nsvm: RandomFlip: batch shorter than rows images")
		}
		for r := 0; r < rows; r++ {
			if rng.IntN(2) == 0 {
				continue
			}
			img := x[r*d : (r+1)*d]
			for l := 0; l < c*h; l++ {
				slices.Reverse(img[l*w : (l+1)*w])
			}
		}
	}
}

// Augmenters returns the Augmenter that applies each of augs in turn (nil
// ones skipped), or nil when there are none.
func Augmenters(augs ...Augmenter) Augmenter {
	augs = slices.DeleteFunc(slices.Clone(augs), func(a Augmenter) bool { return a == nil })
	switch len(augs) {
	case 0:
		return nil
	case 1:
		return augs[0]
	}
	return func(x []float32, rows int, rng *rand.Rand) {
		for _, a := range augs {
			a(x, rows, rng)
		}
	}
}

// targetFunc fills dst (k×k) with the target matrix of the batch idx.
type targetFunc func(dst []float64, idx []int)

// Target is what Part I of Algorithm 4 trains towards: a target
// kernel (centred for regression targets) and, for classes, the class
// index of every row, which ObjectiveSoftmax needs.
type Target struct {
	kernel targetFunc
	// centered selects the centred alignment (centeredAlignment); the
	// target is then double-centred.
	centered bool
	cls      []int     // nil for regression
	c        int       // the number of classes
	y        []float64 // the regression targets (checkpoints' data fingerprint)
	// labels, if not nil, are the rows' labels ±1 of the binary Algorithm 4:
	// the target is yyᵀ and the alignment takes the form of alignment.
	labels []float32
}

// ClassTarget is the Part I target of class indices y in 0..c−1.
func ClassTarget(y []int, c int) Target {
	return Target{kernel: classTarget(y, c), cls: y, c: c}
}

// classTarget returns the multiclass target kernel for class indices y in
// 0..c−1: Y_ij = 1 if y_i = y_j and −1/(c−1) otherwise. Y is the Gram
// matrix of the c vertices of a regular simplex centred at the origin (unit
// vectors with pairwise inner products −1/(c−1)), the standard multiclass
// generalisation of yyᵀ: for c = 2 it is yyᵀ with y = ±1, so the alignment
// with it is exactly the binary kernel-target alignment. Its rows sum to 0
// over a balanced batch, like yyᵀ's.
func classTarget(y []int, c int) targetFunc {
	off := -1 / float64(c-1)
	return func(dst []float64, idx []int) {
		k := len(idx)
		for a, i := range idx {
			for b, j := range idx {
				if y[i] == y[j] {
					dst[a*k+b] = 1
				} else {
					dst[a*k+b] = off
				}
			}
		}
	}
}

// alignTrainer runs Part I of Algorithm 4 against any target kernel:
//
//	for t = 1..T: pick A_t (k points); θ-step on θ ↦ 𝓛(1, A(θ)),
//	A = ⟨K, Y⟩_F / (‖K‖_F ‖Y‖_F), K_ij = K(F_θ(x_i), F_θ(x_j)), Y = target(A_t).
//
// With the multiclass target (classTarget) it trains the shared feature map
// of a multiclass NSVM; with a regression target (regressionTarget) that of
// an NSVM regressor. Part I of the binary Algorithm 4 (newAlg4) is the case
// Y = yyᵀ of labels ±1 (Target.labels).
type alignTrainer struct {
	f  FeatureMap
	x  []float32
	sp *data.CSR // the rows when they are sparse (x nil; f takes sparse rows)
	// rows, if not nil, writes the given rows' inputs into a batch (x nil):
	// Part1.Rows.
	rows func(dst []float32, idx []int)
	// cum, if not nil, holds the cumulative weights of the rows: batches
	// are then drawn with replacement in proportion to the weights, so
	// that the expected batch objective is the weighted one (see
	// setWeights).
	cum  []float64
	wb   []int
	m, d int
	cfg  Alg4Config
	r    *runState
	smp  *sampler
	loss AlignLoss
	tg   Target // the target: its kernel, labels and centring (and the checkpoints' data fingerprint)
	// augment, if not nil, transforms the batch inputs in place before the
	// forward pass, drawing from the run's (checkpointed) random stream.
	augment Augmenter
	// soft is the temporary head of ObjectiveSoftmax (nil: the alignment).
	soft *softmaxHead
	n    int
	// refill, if not nil, is called before every step and may replace the
	// rows of x in place (FitStream's windows over a stream).
	refill func(t int) error
	// batchGrad holds only dz with ObjectiveSoftmax.
	batchGrad

	xb, yb  []float32 // yb: the batch's labels (Target.labels)
	tgt, kc []float64
}

// sparseMap is a feature map that also takes sparse rows (nn.Net whose
// first layer is dense).
type sparseMap interface {
	ForwardSparse(x *data.CSR, rows []int, train bool) []float32
}

// newPart1 returns the optimizer, run state, dropout stream and trainer of
// Part I of Algorithm 4 on net for the rows x (m×d): the shared set-up of
// every Part I (binary, multiclass, regression, Fit's recipes).
func newPart1(net *nn.Net, x []float32, m, d int, cfg Alg4Config, tgt Target, o Options) (Optimizer, *runState, *rand.PCG, *alignTrainer, error) {
	if err := checkBatch(cfg.Batch, m); err != nil {
		return nil, nil, nil, nil, err
	}
	var soft *softmaxHead
	var extra []*nn.Param
	if cfg.Objective == ObjectiveSoftmax {
		if tgt.cls == nil || tgt.c < 2 {
			return nil, nil, nil, nil, errf("algorithm 4: the softmax objective needs classes")
		}
		soft = newSoftmaxHead(tgt.cls, tgt.c, net.OutSize(), rand.New(seedPCG(o.Seed^0x736f66746d6178)))
		extra = soft.params()
	}
	opt, r, dropout := setup(4, net, cfg.Config, o, extra...)
	return opt, r, dropout, newAlignTrainer(net, x, m, d, cfg, tgt, r, soft), nil
}

// newAlg4 returns the trainer of Part I of the binary Algorithm 4 on p
// (paper §4.4):
//
//	init θ₁
//	for t = 1..T:
//	    pick A_t (k points)
//	    θ-step on  θ ↦ 𝓛(1, A(θ)) + ρ·R(K),  A = Σ_{i,j∈A_t} y_iy_j K_ij / (k ‖K‖_F)
//
// (ρ·R(K) only with Config.Reg, §6) with K_ij = K(F_θ(x_i), F_θ(x_j)).
// Part II (fitting an SVM on the fixed features z_j = F_Θ(x_j)) is done by
// the caller with any svm solver.
func newAlg4(f FeatureMap, p Problem, cfg Alg4Config, r *runState) (*alignTrainer, error) {
	if err := checkBatch(cfg.Batch, p.N); err != nil {
		return nil, err
	}
	return newAlignTrainer(f, p.X, p.N, p.D, cfg, Target{labels: p.Y}, r, nil), nil
}

// checkBatch reports a batch of kb points drawn from m.
func checkBatch(kb, m int) error {
	if kb > m {
		return errf("algorithm 4: batch size %d exceeds the %d training points", kb, m)
	}
	return nil
}

// newAlignTrainer returns the Part I trainer of f on the rows x (m×d)
// towards tgt, or towards the softmax objective of soft when it is not nil.
func newAlignTrainer(f FeatureMap, x []float32, m, d int, cfg Alg4Config, tgt Target, r *runState, soft *softmaxHead) *alignTrainer {
	kb, n := cfg.Batch, f.OutSize()
	loss := cfg.Loss
	if loss == nil {
		loss = SquaredAlignLoss
	}
	a := &alignTrainer{f: f, x: x, m: m, d: d, cfg: cfg, r: r, smp: newSampler(r.rng, m),
		loss: loss, tg: tgt, soft: soft, n: n, xb: make([]float32, kb*d)}
	switch {
	case soft != nil:
		a.batchGrad = batchGrad{dz: make([]float32, kb*n)}
	case tgt.labels != nil:
		a.batchGrad = newBatchGrad(mustKernel(cfg.Kernel), cfg.Reg, kb, n)
		a.yb = make([]float32, kb)
	default:
		a.batchGrad = newBatchGrad(mustKernel(cfg.Kernel), cfg.Reg, kb, n)
		a.tgt = make([]float64, kb*kb)
	}
	return a
}

// setWeights makes the batches follow the row weights w (nil: every row
// alike, drawn without replacement). The alignment is a sum over pairs of
// the batch, so rows drawn in proportion to w give pairs in proportion to
// w_i·w_j: in expectation, the objective with every pair weighted by its
// rows' weights (class weights balance the classes' pairs).
func (a *alignTrainer) setWeights(w []float32) {
	if w == nil {
		return
	}
	a.cum = make([]float64, len(w))
	var s float64
	for i, v := range w {
		s += float64(v)
		a.cum[i] = s
	}
	a.wb = make([]int, a.cfg.Batch)
}

// batch draws the next batch of k rows.
func (a *alignTrainer) batch(k int) []int {
	if a.cum == nil {
		return a.smp.subset(k)
	}
	total := a.cum[len(a.cum)-1]
	for b := range a.wb[:k] {
		u := a.r.rng.Float64() * total
		i, _ := slices.BinarySearch(a.cum, u)
		a.wb[b] = min(i, len(a.cum)-1)
	}
	return a.wb[:k]
}

func (a *alignTrainer) first() int { return 1 }

func (a *alignTrainer) begin() error { a.f.ZeroGrad(); return nil }

func (a *alignTrainer) step(t int) error {
	kb, d, n := a.cfg.Batch, a.d, a.n
	if a.refill != nil {
		if err := a.refill(t); err != nil {
			return err
		}
	}
	idx := a.batch(kb)
	var out []float32
	if a.sp != nil {
		out = a.f.(sparseMap).ForwardSparse(a.sp, idx, true)
	} else {
		if a.rows != nil {
			a.rows(a.xb[:kb*d], idx)
		} else {
			for b, i := range idx {
				copy(a.xb[b*d:(b+1)*d], a.x[i*d:(i+1)*d])
			}
		}
		if a.augment != nil {
			a.augment(a.xb, kb, a.r.rng)
		}
		out = a.f.Forward(a.xb, kb, true)
	}
	if nonFinite(out) {
		return errNonFinite(4, t, "batch features")
	}
	if a.soft != nil {
		l, acc := a.soft.lossGrad(out, idx, a.dz)
		a.r.thetaStep(a.f, a.dz, t, a.cfg.T, 0, acc, l)
		return nil
	}
	if a.tg.labels != nil {
		for b, i := range idx {
			a.yb[b] = a.tg.labels[i]
		}
	} else {
		a.tg.kernel(a.tgt, idx)
	}
	a.gram(out, kb, n)
	align := func(g []float64, scale float64) float64 {
		switch {
		case a.tg.labels != nil:
			return alignment(a.kmat, a.yb, g, scale)
		case a.tg.centered:
			a.kc = vec.Resize(a.kc, kb*kb)
			return centeredAlignment(a.kmat, a.tgt, g, a.kc, kb, scale)
		}
		return targetAlignment(a.kmat, a.tgt, g, scale)
	}
	al := align(nil, 0)
	l, dl := a.loss(al)
	clear(a.g)
	align(a.g, dl)
	l, err := a.cotangent(out, kb, n, 4, t, l)
	if err != nil {
		return err
	}
	a.r.thetaStep(a.f, a.dz, t, a.cfg.T, 0, al, l)
	return nil
}

func (a *alignTrainer) finish() (*head, error) { return nil, nil }

func (a *alignTrainer) saveState(c *Checkpoint) {
	c.I64["sampler_perm"] = ints64(a.smp.perm)
	if a.soft != nil {
		c.F32["softmax_weight"], c.F32["softmax_bias"] = a.soft.w.W, a.soft.b.W
	}
}

func (a *alignTrainer) loadState(c *Checkpoint) error {
	if a.soft != nil {
		w, b := c.F32["softmax_weight"], c.F32["softmax_bias"]
		if len(w) != len(a.soft.w.W) || len(b) != len(a.soft.b.W) {
			return errf("checkpoint: the softmax head is missing or has the wrong size")
		}
		copy(a.soft.w.W, w)
		copy(a.soft.b.W, b)
	}
	return a.smp.load(c.I64["sampler_perm"])
}

// Part1 is what a run of Part I of Algorithm 4 trains on besides its
// configuration (TrainPart1).
type Part1 struct {
	// X holds the N rows of D values, row-major, or Sparse holds them
	// (X nil; the network's first layer must be dense), or Rows gives
	// them (X and Sparse nil): it writes the rows idx (each in [0, N)),
	// one after another, into dst (len(idx)·D values), as a batch is
	// drawn. With Rows the caller need not hold the rows as Part I reads
	// them: a scaled view of a larger data set, scaled a batch at a time.
	X      []float32
	Sparse *data.CSR
	Rows   func(dst []float32, idx []int)
	N, D   int
	// Target is what the rows' features are aligned with.
	Target Target
	// Weights, if not nil, weighs the rows: batches are drawn in
	// proportion to them.
	Weights []float32
	// Augment, if not nil, transforms every batch's inputs in place.
	Augment Augmenter
	// Refill, if not nil, is called before every step t and may replace the
	// rows of X (and what Target sees) in place: a window over a stream.
	Refill func(t int) error
	// SoftmaxW and SoftmaxB, if not nil, are the starting weights (C×n,
	// row-major) and biases (C) of the softmax objective's temporary head,
	// instead of random ones: a network that continues training starts
	// from a head that already fits its features (SoftmaxPrototypes).
	SoftmaxW, SoftmaxB []float32
}

// SoftmaxPrototypes returns the weights and biases of a linear softmax
// head on the features z (rows×n) of rows of the classes cls (0 … c−1)
// that scores class j by z·μ_j − ½‖μ_j‖², μ_j the mean feature of class j:
// the nearest class mean, as a linear head. A class without rows gets
// zero weights and a bias below every other.
func SoftmaxPrototypes(z []float32, cls []int, c, n int) (w, b []float32) {
	sum := make([]float64, c*n)
	cnt := make([]int, c)
	for i, k := range cls {
		cnt[k]++
		for q, v := range z[i*n : (i+1)*n] {
			sum[k*n+q] += float64(v)
		}
	}
	w, b = make([]float32, c*n), make([]float32, c)
	low := 0.0
	for k := range c {
		if cnt[k] == 0 {
			continue
		}
		var sq float64
		for q := range n {
			mu := sum[k*n+q] / float64(cnt[k])
			w[k*n+q] = float32(mu)
			sq += mu * mu
		}
		b[k] = float32(-sq / 2)
		low = min(low, -sq/2)
	}
	for k := range c {
		if cnt[k] == 0 {
			b[k] = float32(low - 1)
		}
	}
	return w, b
}

// TrainPart1 runs Part I of Algorithm 4 on p: the network is trained in
// place towards p.Target (the class simplex, a regression target, or the
// softmax objective on classes).
func TrainPart1(ctx context.Context, net *nn.Net, p Part1, cfg Alg4Config, o Options) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	switch {
	case p.Sparse == nil && p.Rows == nil && len(p.X) != p.N*p.D:
		return errf("algorithm 4: %d values for %d rows of %d", len(p.X), p.N, p.D)
	case (p.X != nil) && (p.Sparse != nil || p.Rows != nil) || p.Sparse != nil && p.Rows != nil:
		return errf("algorithm 4: the rows are given more than one way (X, Sparse, Rows)")
	}
	opt, r, dropout, tr, err := newPart1(net, p.X, p.N, p.D, cfg, p.Target, o)
	if err != nil {
		return err
	}
	tr.sp, tr.rows = p.Sparse, p.Rows
	if tr.soft != nil && p.SoftmaxW != nil {
		if len(p.SoftmaxW) != len(tr.soft.w.W) || len(p.SoftmaxB) != len(tr.soft.b.W) {
			return errf("algorithm 4: a softmax head of %d weights and %d biases for %d", len(p.SoftmaxW), len(p.SoftmaxB), len(tr.soft.w.W))
		}
		copy(tr.soft.w.W, p.SoftmaxW)
		copy(tr.soft.b.W, p.SoftmaxB)
	}
	tr.setWeights(p.Weights)
	tr.augment, tr.refill = p.Augment, p.Refill
	_, err = runNet(ctx, 4, net, opt, tr, r, dropout, cfg.T, configKey(4, cfg), o)
	return err
}
