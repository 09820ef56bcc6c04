package paper

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

// FeatureMap is what the trainers need of the neural feature map F_θ;
// *nn.Net implements it.
type FeatureMap interface {
	InSize() int
	OutSize() int
	// Forward runs a batch (batch×InSize) and returns batch×OutSize outputs,
	// owned by the map and valid until the next call. train=true keeps the
	// activations for Backward and enables dropout.
	Forward(x []float32, batch int, train bool) []float32
	// Backward adds ∂L/∂θ to the parameter gradients, given ∂L/∂output for
	// the most recent train-mode Forward.
	Backward(dout []float32)
	ZeroGrad()
	// Features computes inference-mode outputs for any number of rows.
	Features(dst, x []float32, rows int)
}

// Optimizer applies a θ-step from the accumulated gradients; *nn.SGD and
// *nn.Adam implement it.
type Optimizer interface {
	Step()
	ZeroGrad()
	SetLR(lr float64)
}

// Problem is a binary training set: X is N×D row-major (D = the feature
// map's input size) and Y holds the labels ±1. It is svm.Problem, so the same
// value feeds the NSVM trainers and the classical solvers.
type Problem = svm.Problem

// row returns training point i of p.
func row(p Problem, i int) []float32 { return p.X[i*p.D : i*p.D+p.D] }

// head is the kernel expansion a trainer produces on feature space:
// g(x) = Σ_s Coef[s]·K(SV_s, F_Θ(x)).
type head struct {
	SV   []float32 // NSV×n
	NSV  int
	Coef []float64
	Bias float64
}

// svSet is a growing set of support vectors on feature space with their
// weights, held in a kernel.Points (row-major for the gradient, panels for
// the kernel row).
type svSet struct {
	n   int
	pts *kernel.Points
	w   []float64
}

func newSVSet(n int) svSet { return svSet{n: n, pts: kernel.NewPoints(n)} }

func (s *svSet) len() int { return len(s.w) }

// z returns the stored vectors row-major.
func (s *svSet) z() []float32 { return s.pts.X() }

func (s *svSet) add(z []float32, w float64) {
	s.pts.Append(z, float32(vec.SqNorm(z)))
	s.w = append(s.w, w)
}

// inputSVs is the support set of Algorithms 2 and 3, whose features are
// recomputed from the inputs under the current θ: the points' indices in
// order of entry, their inputs (contiguous), and their features under θ_t
// with squared norms and a kernel row against them.
type inputSVs struct {
	idx                []int
	xs                 []float32
	feats, norms, krow []float32
}

func (s *inputSVs) add(i int, x []float32) {
	s.idx = append(s.idx, i)
	s.xs = append(s.xs, x...)
}

// features computes, in inference mode under the current θ, the features of
// the support vectors with their squared norms and those of the kb batch
// inputs xb into zb (n each), and sizes krow for one kernel row against the
// support vectors (Algorithm 3's g̃ at step t).
func (s *inputSVs) features(f FeatureMap, n int, xb, zb []float32, kb, t int) error {
	m := len(s.idx)
	s.feats = vec.Resize(s.feats, m*n)
	f.Features(s.feats, s.xs, m)
	f.Features(zb, xb, kb)
	if nonFinite(s.feats) || nonFinite(zb) {
		return errNonFinite(3, t, "features")
	}
	s.norms = vec.Resize(s.norms, m)
	vec.SqNormsTo(s.norms, s.feats, m, n)
	s.krow = vec.Resize(s.krow, m)
	return nil
}

// finalFeatures returns the features z_j = F_Θ(x_j) of the support vectors
// (m×n) at the end of a run of algorithm alg of T steps.
func (s *inputSVs) finalFeatures(f FeatureMap, n, alg, T int) ([]float32, error) {
	m := len(s.idx)
	z := make([]float32, m*n)
	f.Features(z, s.xs, m)
	if nonFinite(z) {
		return nil, errNonFinite(alg, T, "final features")
	}
	return z, nil
}

// expansion returns the final head of algorithm alg (2 or 3),
// g(x) = 1/(λT) Σ_j α_j y_j K(z_j, F_Θ(x)) + b over the support vectors;
// ay(j, i) is α_i·y_i of support vector j, point i.
func (s *inputSVs) expansion(f FeatureMap, n, alg int, c Config, b float64, ay func(j, i int) float64) (*head, error) {
	z, err := s.finalFeatures(f, n, alg, c.T)
	if err != nil {
		return nil, err
	}
	coef := make([]float64, len(s.idx))
	for j, i := range s.idx {
		coef[j] = ay(j, i) / (c.Lambda * float64(c.T))
	}
	return &head{SV: z, NSV: len(s.idx), Coef: coef, Bias: b}, nil
}

// loadAlpha restores from c the α over the training points and the
// support vectors of algorithm alg (2 or 3): every support-vector index must
// be a training point with α > 0, listed once; add enters each in order.
func loadAlpha(c *Checkpoint, alg int, alpha []float64, add func(i int)) error {
	saved, idx := c.F64["alpha"], c.I64["sv_index"]
	if len(saved) != len(alpha) {
		return errf("checkpoint: algorithm %d state has %d α values for %d training points", alg, len(saved), len(alpha))
	}
	copy(alpha, saved)
	seen := make([]bool, len(alpha))
	for _, v := range idx {
		if v < 0 || int(v) >= len(alpha) || seen[v] || alpha[v] <= 0 {
			return errf("checkpoint: algorithm %d state has a bad support-vector index %d", alg, v)
		}
		seen[v] = true
		add(int(v))
	}
	return nil
}

// runState carries the bookkeeping every trainer shares: the random
// stream, timing, progress, cancellation and the θ-step counter for the
// learning-rate schedule.
type runState struct {
	alg      int
	pcg      *rand.PCG // source of rng; its state goes into checkpoints
	rng      *rand.Rand
	start    time.Time
	every    int
	progress ProgressFunc
	opt      Optimizer
	cfg      OptConfig
	thetaT   int // θ-steps taken
	seen     int // points examined since the last report
	viol     int // margin violations since the last report
}

// seedPCG is how a seed becomes a random source throughout the package.
func seedPCG(seed uint64) *rand.PCG { return rand.NewPCG(seed, seed^0x9e3779b97f4a7c15) }

func newRun(alg int, c Config, opt Optimizer, seed uint64, progress ProgressFunc) *runState {
	if c.Opt.Horizon == 0 {
		c.Opt.Horizon = c.T
	}
	pcg := seedPCG(seed)
	return &runState{alg: alg, pcg: pcg, rng: rand.New(pcg), start: time.Now(), every: c.reportEvery(),
		progress: progress, opt: opt, cfg: c.Opt}
}

// step applies one θ-step from the gradients accumulated since the last one.
func (r *runState) step() {
	r.opt.SetLR(r.cfg.lrAt(r.thetaT))
	r.opt.Step()
	r.opt.ZeroGrad()
	r.thetaT++
}

// thetaStep ends an iteration that steps θ on a batch objective
// (Algorithm 3, Algorithm 4 Part I): it backpropagates the cotangent dz
// through f, takes the θ-step and reports step t of T of the training
// phase with nsv support vectors, the alignment and the objective.
func (r *runState) thetaStep(f FeatureMap, dz []float32, t, T, nsv int, align, obj float64) {
	f.Backward(dz)
	r.step()
	r.report("train", t, T, nsv, align, obj, t == T)
}

func (r *runState) report(phase string, t, total, nsv int, align, loss float64, force bool) {
	if r.progress == nil || (!force && t%r.every != 0) {
		return
	}
	rate := 0.0
	if r.seen > 0 {
		rate = float64(r.viol) / float64(r.seen)
	}
	r.progress(Progress{Algorithm: r.alg, Phase: phase, Step: t, Total: total, ViolationRate: rate,
		NSV: nsv, Alignment: align, Loss: loss, Elapsed: time.Since(r.start)})
	r.seen, r.viol = 0, 0
}

// trainer is one algorithm as a resumable state machine: begin does the
// initialisation (the paper's t = 1), step(t) one iteration, finish builds
// the output. saveState and loadState move the algorithm's own state (not θ,
// the optimizer or the random stream, which the driver handles) in and out
// of a checkpoint.
type trainer interface {
	begin() error
	// first is the first step index the loop runs (2 for Algorithms 1–3,
	// whose initialisation is step 1; 1 for Algorithm 4 Part I).
	first() int
	step(t int) error
	finish() (*head, error)
	saveState(c *Checkpoint)
	loadState(c *Checkpoint) error
}

// drive runs tr from its first step (or from a checkpoint) to T, reporting
// checkpoints every o.CheckpointEvery steps (0: every T/20) and when ctx is
// cancelled.
func drive(ctx context.Context, tr trainer, r *runState, T int, o Options, snap func(t int) (*Checkpoint, error), resume func(*Checkpoint) error) error {
	if ctx == nil {
		ctx = context.Background()
	}
	from := tr.first()
	if o.Resume != nil {
		if err := resume(o.Resume); err != nil {
			return err
		}
		from = o.Resume.Step + 1
	} else if err := tr.begin(); err != nil {
		return err
	}
	save := func(t int) error {
		if o.Checkpoint == nil {
			return nil
		}
		c, err := snap(t)
		if err != nil {
			return err
		}
		return o.Checkpoint(c)
	}
	every := o.CheckpointEvery
	if every == 0 {
		every = max(1, T/20)
	}
	for t := from; t <= T; t++ {
		if err := ctx.Err(); err != nil {
			if serr := save(t - 1); serr != nil {
				return fmt.Errorf("nsvm: algorithm %d stopped at step %d (%v), and the checkpoint failed: %w", r.alg, t-1, err, serr)
			}
			return fmt.Errorf("nsvm: algorithm %d stopped after step %d: %w", r.alg, t-1, err)
		}
		if err := tr.step(t); err != nil {
			return err
		}
		if t%every == 0 && t < T {
			if err := save(t); err != nil {
				return err
			}
		}
		if o.Monitor != nil && (t == T || o.MonitorEvery <= 1 || t%o.MonitorEvery == 0) && o.Monitor(t) && stoppable(tr) {
			return nil
		}
	}
	return nil
}

// stoppable reports whether a run of tr may end before T when Options.Monitor
// asks: Part I of Algorithm 4 (binary, multiclass, regression) may; the
// expansions of Algorithms 1–3 carry 1/(λT) and always run to T.
func stoppable(tr trainer) bool {
	switch tr.(type) {
	case *alignTrainer:
		return true
	}
	return false
}

func nonFinite(x []float32) bool { return vec.HasNaNInf(x) }

func errNonFinite(alg, t int, what string) error {
	return fmt.Errorf("nsvm: algorithm %d: %s is not finite at step %d (learning rate too large?)", alg, what, t)
}

// sampler draws indices and k-subsets of {0..m−1} uniformly at random.
type sampler struct {
	rng  *rand.Rand
	perm []int
}

func newSampler(rng *rand.Rand, m int) *sampler {
	p := make([]int, m)
	for i := range p {
		p[i] = i
	}
	return &sampler{rng: rng, perm: p}
}

// load restores the permutation from a checkpoint.
func (s *sampler) load(perm []int64) error {
	if len(perm) != len(s.perm) {
		return errf("checkpoint: sampler state has %d entries, want %d", len(perm), len(s.perm))
	}
	seen := make([]bool, len(perm))
	for i, v := range perm {
		if v < 0 || int(v) >= len(perm) || seen[v] {
			return errf("checkpoint: sampler state is not a permutation")
		}
		seen[v] = true
		s.perm[i] = int(v)
	}
	return nil
}

func (s *sampler) index() int { return s.rng.IntN(len(s.perm)) }

// subset returns k distinct indices chosen uniformly at random (a partial
// Fisher–Yates shuffle of a persistent permutation). The slice is reused.
func (s *sampler) subset(k int) []int {
	m := len(s.perm)
	for i := 0; i < k; i++ {
		j := i + s.rng.IntN(m-i)
		s.perm[i], s.perm[j] = s.perm[j], s.perm[i]
	}
	return s.perm[:k]
}

func mustKernel(spec kernel.Spec) kernel.Kernel { return kernel.MustNew(spec) }

func errf(format string, args ...any) error { return fmt.Errorf("nsvm: "+format, args...) }

// runPlain drives a trainer without checkpoints (tests and callers that bring
// their own FeatureMap).
func runPlain(ctx context.Context, tr trainer, r *runState, T int) (*head, error) {
	if err := drive(ctx, tr, r, T, Options{}, nil, nil); err != nil {
		return nil, err
	}
	return tr.finish()
}

func timeSince(r *runState) time.Duration { return time.Since(r.start) }

// biasStep returns the step κ/(λt + 1) of the unregularised bias after
// violations at step t (Config.Bias; see svm.PegasosConfig.Bias).
func biasStep(lambda float64, t int, kappa float64) float64 {
	return kappa / (lambda*float64(t) + 1)
}

// biasScale returns κ, the mean of K(z, z) over the training points'
// features under the current θ: 1 without computation for RBF and
// normalised kernels, else one inference pass over p. It only scales the
// bias steps (a constant, so that the balance Σ_{violators} y_i = 0 that b
// seeks is not reweighted by class).
func biasScale(f FeatureMap, k kernel.Kernel, p Problem) float64 {
	switch k.(type) {
	case kernel.RBF, kernel.Normalized:
		return 1
	}
	const chunk = 1024
	n := f.OutSize()
	z := make([]float32, min(chunk, p.N)*n)
	var s float64
	for lo := 0; lo < p.N; lo += chunk {
		rows := min(chunk, p.N-lo)
		f.Features(z[:rows*n], p.X[lo*p.D:(lo+rows)*p.D], rows)
		for r := 0; r < rows; r++ {
			s += k.Eval(z[r*n:(r+1)*n], z[r*n:(r+1)*n])
		}
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return 1
	}
	return s / float64(p.N)
}

// saveBias and loadBias move the bias b and its step scale κ in and out of
// a checkpoint when the run has a bias term.
func saveBias(c *Checkpoint, on bool, b, kappa float64) {
	if on {
		c.F64["bias"] = []float64{b, kappa}
	}
}

func loadBias(c *Checkpoint, on bool, b, kappa *float64) error {
	if !on {
		return nil
	}
	v := c.F64["bias"]
	if len(v) != 2 {
		return errf("checkpoint: the run has a bias term but the checkpoint holds %d bias values, want 2", len(v))
	}
	*b, *kappa = v[0], v[1]
	return nil
}
