package paper

import (
	"math/rand/v2"

	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/kernel"
)

// alg2 runs Algorithm 2 (paper §4.2):
//
//	init θ₁, i₁; α = e_i₁
//	for t = 2..T:
//	    pick i_t
//	    g̃_t = 1/(λ(t−1)) Σ_j α_j y_j K(F_θt(x_j), F_θt(x_it))
//	    if y_it·g̃_t < 1: α_it += 1 and take a θ-step on
//	        θ ↦ −y_it/(λ(t−1)) Σ_j α_j^(t) y_j K(F_θ(x_j), F_θ(x_it))
//	Z = F_Θ(X);  g(x) = 1/(λT) Σ_j α_j y_j K(z_j, F_Θ(x))
//
// Only points with α_j > 0 enter the sums. θ changes only on violation
// steps, so the support vectors' features are cached and recomputed only
// after θ moved. The θ-step differentiates through every support vector and
// through x_it: with c = −y_it/(λ(t−1)), the cotangent on z_j is
// c·α_j y_j ∂K(z_j, z_it)/∂z_j and on z_it it is c·Σ_j α_j y_j ∂K(z_j, b)/∂b.
// The gradient batch is pushed through the network in chunks of cfg.Chunk
// rows; when the network has no dropout and the batch fits in one chunk, the
// forward pass that refreshes the cache is the one that is backpropagated.
//
// The cache holds inference-mode (dropout-free) features: g̃_t, the margin
// test and the final expansion use them. With dropout, a violation step runs
// [SVs; x_it] through the network in train mode with fresh masks and takes
// the kernel row and the cotangents from those outputs, so the gradient is
// the exact gradient of the objective at the masks drawn; when the batch
// spans several chunks, each chunk's masks are replayed (the dropout stream
// is rewound) for its Backward pass.
type alg2 struct {
	f          FeatureMap
	p          Problem
	cfg        Alg2Config
	r          *runState
	smp        *sampler
	k          kernel.Kernel
	n, chunk   int
	hasDropout bool
	drop       *rand.PCG // the network's dropout stream, rewound to replay masks
	noCache    bool      // recompute features every step (for tests)

	alpha    []float64 // α over the m training points
	slot     []int     // position of a point among the support vectors, or −1
	inputSVs           // feats: cached F_θ(x_j) of the support vectors
	ys       []float64 // their labels
	fresh    bool      // feats were computed under the current θ
	b        float64   // the bias b_t and its step scale κ (Config.Bias)
	kap      float64

	zq, tmp, dz, batch, zt, tnorms []float32
	w                              []float64
	states                         [][]byte // dropout stream state before each chunk
}

// newAlg2 sets up Algorithm 2; drop is the source of the network's dropout
// masks (needed when hasDropout).
func newAlg2(f FeatureMap, p Problem, cfg Alg2Config, r *runState, hasDropout bool, drop *rand.PCG) *alg2 {
	chunk := cfg.Chunk
	if chunk == 0 {
		chunk = 1024
	}
	a := &alg2{f: f, p: p, cfg: cfg, r: r, smp: newSampler(r.rng, p.N), k: mustKernel(cfg.Kernel),
		n: f.OutSize(), chunk: chunk, hasDropout: hasDropout, drop: drop,
		alpha: make([]float64, p.N), slot: make([]int, p.N), zq: make([]float32, f.OutSize())}
	for i := range a.slot {
		a.slot[i] = -1
	}
	return a
}

func (a *alg2) first() int { return 2 }

func (a *alg2) addSV(i int) {
	a.slot[i] = len(a.idx)
	a.add(i, row(a.p, i))
	a.ys = append(a.ys, float64(a.p.Y[i]))
	a.fresh = false
}

func (a *alg2) begin() error {
	a.f.ZeroGrad()
	i := a.smp.index()
	a.alpha[i] = 1
	a.addSV(i)
	if a.cfg.Bias {
		a.kap = biasScale(a.f, a.k, a.p)
		a.b += float64(a.p.Y[i]) * biasStep(a.cfg.Lambda, 1, a.kap)
	}
	a.r.seen, a.r.viol = 1, 1
	return nil
}

func (a *alg2) step(t int) error {
	n, d := a.n, a.p.D
	i := a.smp.index()
	y := float64(a.p.Y[i])
	m := len(a.idx)
	joint := false // the last train-mode Forward covers [SVs; x_it]
	if a.noCache {
		a.fresh = false
	}
	if !a.fresh {
		a.feats = vec.Resize(a.feats, m*n)
		if !a.hasDropout && m+1 <= a.chunk {
			// One train-mode pass over [SVs; x_it]: it refreshes the cache
			// and is reused by Backward if this step violates.
			a.batch = vec.Resize(a.batch, (m+1)*d)
			copy(a.batch, a.xs)
			copy(a.batch[m*d:], row(a.p, i))
			out := a.f.Forward(a.batch, m+1, true)
			copy(a.feats, out[:m*n])
			copy(a.zq, out[m*n:])
			joint = true
		} else {
			a.f.Features(a.feats, a.xs, m)
		}
		a.norms = vec.Resize(a.norms, m)
		vec.SqNormsTo(a.norms, a.feats, m, n)
		if nonFinite(a.feats) {
			return errNonFinite(2, t, "support-vector features")
		}
		a.fresh = true
	}
	if !joint {
		if s := a.slot[i]; s >= 0 {
			copy(a.zq, a.feats[s*n:s*n+n])
		} else {
			a.f.Features(a.zq, row(a.p, i), 1)
		}
	}
	a.krow = vec.Resize(a.krow, m)
	a.k.Row(a.krow, a.feats, a.norms, a.zq)
	var s float64
	for j, v := range a.krow {
		s += a.alpha[a.idx[j]] * a.ys[j] * float64(v)
	}
	c := 1 / (a.cfg.Lambda * float64(t-1))
	a.r.seen++
	if y*c*s+y*a.b >= 1 { // y·(g̃ + b); b = 0 without Config.Bias
		a.r.report("train", t, a.cfg.T, m, 0, -y*c*s, t == a.cfg.T)
		return nil
	}
	a.r.viol++
	// Cotangents of −y/(λ(t−1)) Σ_j α_j y_j K(F(x_j), F(x_it)) at θ_t.
	a.w = vec.Resize(a.w, m)
	for j := range a.w {
		a.w[j] = -y * c * a.alpha[a.idx[j]] * a.ys[j]
	}
	if a.hasDropout {
		if err := a.gradDropout(i, t); err != nil {
			return err
		}
	} else if err := a.grad(i, t, joint); err != nil {
		return err
	}
	a.r.step()
	a.fresh = false
	if a.cfg.Bias {
		a.b += y * biasStep(a.cfg.Lambda, t, a.kap)
	}
	if a.alpha[i] == 0 {
		a.addSV(i)
	}
	a.alpha[i]++
	a.r.report("train", t, a.cfg.T, len(a.idx), 0, -y*c*s, t == a.cfg.T)
	return nil
}

// grad backpropagates the cotangents a.w·∂K at the cached features; without
// dropout they are the train-mode outputs too. joint says the last
// train-mode Forward covered [SVs; x_it].
func (a *alg2) grad(i, t int, joint bool) error {
	n, d, m := a.n, a.p.D, len(a.idx)
	a.dz = vec.Resize(a.dz, (m+1)*n)
	clear(a.dz)
	a.tmp = vec.Resize(a.tmp, m)
	addRowGradB(a.dz[m*n:], a.k, a.feats, a.krow, a.w, a.zq, a.tmp)
	addPointGradsB(a.dz[:m*n], a.k, a.feats, a.krow, a.w, a.zq)
	if nonFinite(a.dz) {
		return errNonFinite(2, t, "gradient")
	}
	if joint {
		a.f.Backward(a.dz)
		return nil
	}
	for lo := 0; lo < m; lo += a.chunk {
		hi := min(m, lo+a.chunk)
		a.f.Forward(a.xs[lo*d:hi*d], hi-lo, true)
		a.f.Backward(a.dz[lo*n : hi*n])
	}
	a.f.Forward(row(a.p, i), 1, true)
	a.f.Backward(a.dz[m*n:])
	return nil
}

// gradDropout runs [SVs; x_i] in train mode, in chunks, and backpropagates
// the cotangents a.w·∂K evaluated at those outputs, replaying each chunk's
// masks when there is more than one chunk.
func (a *alg2) gradDropout(i, t int) error {
	n, d, m := a.n, a.p.D, len(a.idx)
	rows := m + 1
	a.batch = vec.Resize(a.batch, rows*d)
	copy(a.batch, a.xs)
	copy(a.batch[m*d:], row(a.p, i))
	a.zt = vec.Resize(a.zt, rows*n)
	a.states = a.states[:0]
	for lo := 0; lo < rows; lo += a.chunk {
		hi := min(rows, lo+a.chunk)
		if rows > a.chunk {
			st, err := a.drop.MarshalBinary()
			if err != nil {
				return errf("algorithm 2: dropout random state: %v", err)
			}
			a.states = append(a.states, st)
		}
		copy(a.zt[lo*n:], a.f.Forward(a.batch[lo*d:hi*d], hi-lo, true))
	}
	if nonFinite(a.zt) {
		return errNonFinite(2, t, "train-mode features")
	}
	zs, zq := a.zt[:m*n], a.zt[m*n:]
	a.tnorms = vec.Resize(a.tnorms, m)
	vec.SqNormsTo(a.tnorms, zs, m, n)
	a.krow = vec.Resize(a.krow, m)
	a.k.Row(a.krow, zs, a.tnorms, zq)
	a.dz = vec.Resize(a.dz, rows*n)
	clear(a.dz)
	a.tmp = vec.Resize(a.tmp, m)
	addRowGradB(a.dz[m*n:], a.k, zs, a.krow, a.w, zq, a.tmp)
	addPointGradsB(a.dz[:m*n], a.k, zs, a.krow, a.w, zq)
	if nonFinite(a.dz) {
		return errNonFinite(2, t, "gradient")
	}
	if rows <= a.chunk {
		a.f.Backward(a.dz)
		return nil
	}
	for c, lo := 0, 0; lo < rows; c, lo = c+1, lo+a.chunk {
		hi := min(rows, lo+a.chunk)
		if err := a.drop.UnmarshalBinary(a.states[c]); err != nil {
			return errf("algorithm 2: dropout random state: %v", err)
		}
		a.f.Forward(a.batch[lo*d:hi*d], hi-lo, true)
		a.f.Backward(a.dz[lo*n : hi*n])
	}
	return nil
}

func (a *alg2) finish() (*head, error) {
	return a.expansion(a.f, a.n, 2, a.cfg.Config, a.b, func(j, i int) float64 { return a.alpha[i] * a.ys[j] })
}

func (a *alg2) saveState(c *Checkpoint) {
	c.F64["alpha"] = a.alpha
	c.I64["sv_index"] = ints64(a.idx)
	if a.fresh {
		c.F32["feature_cache"] = a.feats[:len(a.idx)*a.n]
	}
	saveBias(c, a.cfg.Bias, a.b, a.kap)
}

func (a *alg2) loadState(c *Checkpoint) error {
	if err := loadAlpha(c, 2, a.alpha, a.addSV); err != nil {
		return err
	}
	if fc, ok := c.F32["feature_cache"]; ok {
		if len(fc) != len(a.idx)*a.n {
			return errf("checkpoint: algorithm 2 feature cache has %d values, want %d", len(fc), len(a.idx)*a.n)
		}
		a.feats = append(a.feats[:0], fc...)
		a.norms = vec.Resize(a.norms, len(a.idx))
		vec.SqNormsTo(a.norms, a.feats, len(a.idx), a.n)
		a.fresh = true
	}
	return loadBias(c, a.cfg.Bias, &a.b, &a.kap)
}

func ints64(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}
