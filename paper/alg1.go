package paper

import (
	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/kernel"
)

// alg1 runs Algorithm 1 (paper §4.1):
//
//	init θ₁, i₁; α₁ = 1; z₁ = F_θ₁(x_i₁)
//	for t = 2..T:
//	    pick i_t; z_t = F_θt(x_it)
//	    g̃_t = 1/(λ(t−1)) Σ_{s<t} α_s y_is K(z_s, z_t)
//	    if y_it·g̃_t < 1: α_t = 1 and take a θ-step on
//	        θ ↦ −y_it/(λ(t−1)) Σ_{s<t} α_s y_is K(z_s, F_θ(x_it))
//	    else α_t = 0
//	g(x) = 1/(λT) Σ_t α_t y_it K(z_t, F_Θ(x))
//
// The stored z_s are the features as computed at step s (stale features,
// constants for the gradient); only those with α_s = 1 are kept. The
// cotangent on F_θ(x_it) is −y_it/(λ(t−1)) Σ_s α_s y_is ∂K(z_s, b)/∂b at the
// output b of the forward pass that is backpropagated.
//
// Without dropout one forward pass per step gives z_t for g̃_t, the
// gradient and the store. With dropout the stored z_t must be what
// prediction compares against, the inference-mode (dropout-free) features:
// each step computes z_t = F_θt(x_it) in inference mode for g̃_t (the same
// margin test as Algorithms 2 and 3 and the final g) and the store, and a
// violation step adds a train-mode pass with fresh masks whose own output b
// gives the kernel row and the cotangent it backpropagates.
type alg1 struct {
	f       FeatureMap
	p       Problem
	cfg     Alg1Config
	r       *runState
	smp     *sampler
	k       kernel.Kernel
	dropout bool    // the network has dropout: z_t and the gradient come from separate passes
	sv      svSet   // the stored z_s with weight y_is (α_s = 1)
	b       float64 // the bias b_t and its step scale κ (Config.Bias)
	kap     float64

	z, zt, dout, krow, tmp []float32
	w                      []float64
}

func newAlg1(f FeatureMap, p Problem, cfg Alg1Config, r *runState, hasDropout bool) *alg1 {
	n := f.OutSize()
	return &alg1{f: f, p: p, cfg: cfg, r: r, smp: newSampler(r.rng, p.N), k: mustKernel(cfg.Kernel), dropout: hasDropout,
		sv: newSVSet(n), z: make([]float32, n), zt: make([]float32, n), dout: make([]float32, n)}
}

// features sets a.z to the features stored for x: inference mode when the
// network has dropout, else the train-mode pass that a violation
// backpropagates.
func (a *alg1) features(x []float32) {
	copy(a.z, a.f.Forward(x, 1, !a.dropout))
}

func (a *alg1) first() int { return 2 }

func (a *alg1) begin() error {
	a.f.ZeroGrad()
	if a.cfg.Bias {
		a.kap = biasScale(a.f, a.k, a.p)
	}
	i := a.smp.index()
	a.features(row(a.p, i))
	if nonFinite(a.z) {
		return errNonFinite(1, 1, "feature vector")
	}
	a.sv.add(a.z, float64(a.p.Y[i]))
	if a.cfg.Bias {
		a.b += float64(a.p.Y[i]) * biasStep(a.cfg.Lambda, 1, a.kap)
	}
	a.r.seen, a.r.viol = 1, 1
	return nil
}

func (a *alg1) step(t int) error {
	i := a.smp.index()
	y := float64(a.p.Y[i])
	a.features(row(a.p, i))
	if nonFinite(a.z) {
		return errNonFinite(1, t, "feature vector")
	}
	m := a.sv.len()
	a.krow = vec.Resize(a.krow, m)
	s := a.sv.pts.RowSum(a.k, a.krow, a.sv.w, a.z)
	c := 1 / (a.cfg.Lambda * float64(t-1))
	a.r.seen++
	if y*c*s+y*a.b < 1 { // y·(g̃ + b); b = 0 without Config.Bias
		a.r.viol++
		// θ-step on −y/(λ(t−1)) Σ_s y_s K(z_s, F_θ(x_it)).
		a.w = vec.Resize(a.w, m)
		for j := range a.w {
			a.w[j] = -y * c * a.sv.w[j]
		}
		a.tmp = vec.Resize(a.tmp, m)
		zg := a.z // the output of the pass Backward sees
		if a.dropout {
			copy(a.zt, a.f.Forward(row(a.p, i), 1, true))
			if nonFinite(a.zt) {
				return errNonFinite(1, t, "feature vector")
			}
			a.sv.pts.RowSum(a.k, a.krow, a.sv.w, a.zt)
			zg = a.zt
		}
		clear(a.dout)
		addRowGradB(a.dout, a.k, a.sv.z(), a.krow, a.w, zg, a.tmp)
		if nonFinite(a.dout) {
			return errNonFinite(1, t, "gradient")
		}
		a.f.Backward(a.dout)
		a.r.step()
		a.sv.add(a.z, y)
		if a.cfg.Bias {
			a.b += y * biasStep(a.cfg.Lambda, t, a.kap)
		}
	}
	a.r.report("train", t, a.cfg.T, a.sv.len(), 0, -y*c*s, t == a.cfg.T)
	return nil
}

func (a *alg1) finish() (*head, error) {
	// g(x) = 1/(λT) Σ α_t y_t K(z_t, F_Θ(x)).
	coef := make([]float64, a.sv.len())
	for j, v := range a.sv.w {
		coef[j] = v / (a.cfg.Lambda * float64(a.cfg.T))
	}
	return &head{SV: a.sv.z(), NSV: a.sv.len(), Coef: coef, Bias: a.b}, nil
}

func (a *alg1) saveState(c *Checkpoint) {
	c.F32["sv"] = a.sv.z()
	c.F32["sv_norms"] = a.sv.pts.Norms()
	c.F64["sv_weight"] = a.sv.w
	saveBias(c, a.cfg.Bias, a.b, a.kap)
}

func (a *alg1) loadState(c *Checkpoint) error {
	z, norms, w := c.F32["sv"], c.F32["sv_norms"], c.F64["sv_weight"]
	n := a.sv.n
	if len(w) == 0 || len(z) != len(w)*n || len(norms) != len(w) {
		return errf("checkpoint: algorithm 1 state has %d features, %d norms, %d weights (feature size %d)", len(z), len(norms), len(w), n)
	}
	a.sv = newSVSet(n)
	for j := range w {
		a.sv.pts.Append(z[j*n:(j+1)*n], norms[j])
	}
	a.sv.w = append([]float64(nil), w...)
	return loadBias(c, a.cfg.Bias, &a.b, &a.kap)
}
