package paper

import "github.com/nsvm-go/nsvm/internal/vec"

// alg3 runs Algorithm 3 (paper §4.3):
//
//	init θ₁; pick A₁ (k points); α_j = 1/k on A₁
//	for t = 2..T:
//	    pick A_t
//	    g̃_i = 1/(λ(t−1)) Σ_j α_j^(t) y_j K(F_θt(x_j), F_θt(x_i))   for i ∈ A_t
//	    α_i^(t+1) = α_i^(t) + 1/k for the violators (y_i g̃_i < 1)
//	    θ-step on  μ·P(θ) − A(θ), on the batch A_t, with
//	        P = Σ α_iα_j y_iy_j K_ij / (‖αα‖_F ‖K‖_F)   (0 if all α_i = 0 on A_t)
//	        A = Σ y_iy_j K_ij / (k ‖K‖_F)               (kernel-target alignment)
//	        K_ij = K(F_θ(x_i), F_θ(x_j)), i, j ∈ A_t, α = α^(t+1)
//	    (plus ρ·R(K) with Config.Reg, §6)
//	Z = F_Θ(X);  g(x) = 1/(λT) Σ_j α_j y_j K(z_j, F_Θ(x))
//
// g̃ runs over the current support vectors in inference mode without a
// gradient; since θ changes every step, their features are recomputed every
// step. The gradient flows through the k batch points only.
type alg3 struct {
	f       FeatureMap
	p       Problem
	cfg     Alg3Config
	r       *runState
	smp     *sampler
	n, kb   int
	inc, mu float64
	batchGrad

	alpha []float64
	inputSVs
	b   float64 // the bias b_t and its step scale κ (Config.Bias)
	kap float64

	xb, zb, yb []float32
	ab, cy     []float64 // cy: α_j·y_j of the support vectors
	newSV      []int
}

func newAlg3(f FeatureMap, p Problem, cfg Alg3Config, r *runState) (*alg3, error) {
	kb := cfg.Batch
	if kb > p.N {
		return nil, errf("algorithm 3: batch size %d exceeds the %d training points", kb, p.N)
	}
	n, d := f.OutSize(), p.D
	return &alg3{f: f, p: p, cfg: cfg, r: r, smp: newSampler(r.rng, p.N), batchGrad: newBatchGrad(mustKernel(cfg.Kernel), cfg.Reg, kb, n),
		n: n, kb: kb, inc: 1 / float64(kb), mu: cfg.Mu, alpha: make([]float64, p.N),
		xb: make([]float32, kb*d), yb: make([]float32, kb), ab: make([]float64, kb), zb: make([]float32, kb*n)}, nil
}

func (a *alg3) first() int { return 2 }

func (a *alg3) addSV(i int) { a.add(i, row(a.p, i)) }

func (a *alg3) begin() error {
	a.f.ZeroGrad()
	var sy float64
	for _, i := range a.smp.subset(a.kb) {
		a.alpha[i] = a.inc
		a.addSV(i)
		sy += float64(a.p.Y[i])
	}
	if a.cfg.Bias {
		a.kap = biasScale(a.f, a.k, a.p)
		a.b += sy * a.inc * biasStep(a.cfg.Lambda, 1, a.kap) // b₂ = κ/(λ+1)·1/k·Σ_{A₁} y_i
	}
	a.r.seen, a.r.viol = a.kb, a.kb
	return nil
}

func (a *alg3) step(t int) error {
	n, d, kb := a.n, a.p.D, a.kb
	A := a.smp.subset(kb)
	for b, i := range A {
		copy(a.xb[b*d:], row(a.p, i))
		a.yb[b] = a.p.Y[i]
	}
	// g̃ for the batch against all current support vectors, under θ_t.
	if err := a.features(a.f, n, a.xb, a.zb, kb, t); err != nil {
		return err
	}
	m := len(a.idx)
	a.cy = vec.Resize(a.cy, m)
	for j, i := range a.idx {
		a.cy[j] = a.alpha[i] * float64(a.p.Y[i])
	}
	c := 1 / (a.cfg.Lambda * float64(t-1))
	a.newSV = a.newSV[:0]
	var sy float64 // Σ y over the violators
	for b, i := range A {
		a.k.Row(a.krow, a.feats, a.norms, a.zb[b*n:b*n+n])
		s := vec.DotMixed(a.cy, a.krow)
		a.r.seen++
		if y := float64(a.yb[b]); y*c*s+y*a.b < 1 { // y·(g̃ + b); b = 0 without Config.Bias
			a.r.viol++
			sy += y
			if a.alpha[i] == 0 {
				a.newSV = append(a.newSV, i)
			}
			a.ab[b] = a.alpha[i] + a.inc // α^(t+1), applied after the loop
		} else {
			a.ab[b] = a.alpha[i]
		}
	}
	for b, i := range A {
		a.alpha[i] = a.ab[b]
	}
	for _, i := range a.newSV {
		a.addSV(i)
	}
	if a.cfg.Bias {
		a.b += sy * a.inc * biasStep(a.cfg.Lambda, t, a.kap)
	}
	// θ-step on μ·P − A over the batch.
	out := a.f.Forward(a.xb, kb, true)
	if nonFinite(out) {
		return errNonFinite(3, t, "batch features")
	}
	a.gram(out, kb, n)
	clear(a.g)
	pv := weightedAlignment(a.kmat, a.yb, a.ab, a.g, a.mu)
	av := alignment(a.kmat, a.yb, a.g, -1)
	obj, err := a.cotangent(out, kb, n, 3, t, a.mu*pv-av)
	if err != nil {
		return err
	}
	a.r.thetaStep(a.f, a.dz, t, a.cfg.T, len(a.idx), av, obj)
	return nil
}

func (a *alg3) finish() (*head, error) {
	return a.expansion(a.f, a.n, 3, a.cfg.Config, a.b, func(_, i int) float64 { return a.alpha[i] * float64(a.p.Y[i]) })
}

func (a *alg3) saveState(c *Checkpoint) {
	c.F64["alpha"] = a.alpha
	c.I64["sv_index"] = ints64(a.idx)
	c.I64["sampler_perm"] = ints64(a.smp.perm)
	saveBias(c, a.cfg.Bias, a.b, a.kap)
}

func (a *alg3) loadState(c *Checkpoint) error {
	if err := loadAlpha(c, 3, a.alpha, a.addSV); err != nil {
		return err
	}
	if err := loadBias(c, a.cfg.Bias, &a.b, &a.kap); err != nil {
		return err
	}
	return a.smp.load(c.I64["sampler_perm"])
}
