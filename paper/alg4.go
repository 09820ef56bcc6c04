package paper

// alg4 runs Part I of Algorithm 4 (paper §4.4), kernel alignment:
//
//	init θ₁
//	for t = 1..T:
//	    pick A_t (k points)
//	    θ-step on  θ ↦ 𝓛(1, A(θ)) + ρ·R(K),  A = Σ_{i,j∈A_t} y_iy_j K_ij / (k ‖K‖_F)
//
// (ρ·R(K) only with Config.Reg, §6)
// with K_ij = K(F_θ(x_i), F_θ(x_j)). Part II (fitting an SVM on the fixed
// features z_j = F_Θ(x_j)) is done by the caller with any svm solver.
type alg4 struct {
	f    FeatureMap
	p    Problem
	cfg  Alg4Config
	r    *runState
	smp  *sampler
	loss AlignLoss
	n    int
	batchGrad

	xb, yb []float32
}

func newAlg4(f FeatureMap, p Problem, cfg Alg4Config, r *runState) (*alg4, error) {
	kb := cfg.Batch
	if kb > p.N {
		return nil, errf("algorithm 4: batch size %d exceeds the %d training points", kb, p.N)
	}
	loss := cfg.Loss
	if loss == nil {
		loss = SquaredAlignLoss
	}
	n := f.OutSize()
	return &alg4{f: f, p: p, cfg: cfg, r: r, smp: newSampler(r.rng, p.N), loss: loss, n: n,
		batchGrad: newBatchGrad(mustKernel(cfg.Kernel), cfg.Reg, kb, n), xb: make([]float32, kb*p.D), yb: make([]float32, kb)}, nil
}

func (a *alg4) first() int { return 1 }

func (a *alg4) begin() error { a.f.ZeroGrad(); return nil }

func (a *alg4) step(t int) error {
	kb, d, n := a.cfg.Batch, a.p.D, a.n
	for b, i := range a.smp.subset(kb) {
		copy(a.xb[b*d:], row(a.p, i))
		a.yb[b] = a.p.Y[i]
	}
	out := a.f.Forward(a.xb, kb, true)
	if nonFinite(out) {
		return errNonFinite(4, t, "batch features")
	}
	a.gram(out, kb, n)
	al := alignment(a.kmat, a.yb, nil, 0)
	l, dl := a.loss(al)
	clear(a.g)
	alignment(a.kmat, a.yb, a.g, dl)
	l, err := a.cotangent(out, kb, n, 4, t, l)
	if err != nil {
		return err
	}
	a.f.Backward(a.dz)
	a.r.step()
	a.r.report("train", t, a.cfg.T, 0, al, l, t == a.cfg.T)
	return nil
}

// finish has nothing to return: Part II builds the head.
func (a *alg4) finish() (*head, error) { return nil, nil }

func (a *alg4) saveState(c *Checkpoint) { c.I64["sampler_perm"] = ints64(a.smp.perm) }

func (a *alg4) loadState(c *Checkpoint) error { return a.smp.load(c.I64["sampler_perm"]) }
