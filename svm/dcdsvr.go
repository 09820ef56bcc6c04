package svm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/nsvm-go/nsvm/internal/vec"
)

// LinearDCDSVRConfig configures LinearDCDSVR. The zero value is LIBLINEAR's
// dual SVR with a bias feature (liblinear-train -s 12 -B 1): squared
// ε-insensitive loss, C = 1, ε = 0.1, relative tolerance 0.1, at most 1000
// epochs, shrinking on.
type LinearDCDSVRConfig struct {
	// Loss is SquaredHinge (default; max(0, |r| − ε)², -s 12) or Hinge
	// (max(0, |r| − ε), -s 13) of the residual r = y − wᵀx̃.
	Loss DCDLoss
	// C is the cost C > 0 (default 1; -c).
	C float64
	// Epsilon is the width ε ≥ 0 of the insensitive tube in target units
	// (default 0.1; -p). A negative value means exactly 0.
	Epsilon float64
	// Eps is the relative stopping tolerance: the run stops when the sum of
	// the violations of an epoch is at most Eps times that of the first
	// (default 0.1; -e).
	Eps float64
	// MaxEpochs caps the passes over the data (default 1000).
	MaxEpochs int
	// NoBias leaves out the bias feature (-B −1); BiasValue is its value B
	// otherwise (default 1; -B B).
	NoBias    bool
	BiasValue float64
	// NoShrinking visits every variable in every epoch.
	NoShrinking bool
}

// Validate reports whether the configuration is usable.
func (c LinearDCDSVRConfig) Validate() error {
	if math.IsNaN(c.Epsilon) || math.IsInf(c.Epsilon, 0) {
		return fmt.Errorf("svm: LinearDCDSVR: epsilon must be finite, got %g", c.Epsilon)
	}
	return LinearDCDConfig{Loss: c.Loss, C: c.C, Eps: c.Eps, MaxEpochs: c.MaxEpochs, BiasValue: c.BiasValue}.validate("LinearDCDSVR")
}

// LinearDCDSVR trains a linear support vector regressor by dual coordinate
// descent (Ho & Lin, "Large-scale linear support vector regression", JMLR
// 13, 2012, Algorithm 4; LIBLINEAR's solve_l2r_l1l2_svr). With
// x̃_i = (x_i, B) it solves
//
//	min_w  ½‖w‖² + C·Σ_i max(0, |y_i − wᵀx̃_i| − ε)^q,   q = 2 (SquaredHinge) or 1 (Hinge),
//
// through the dual in β ∈ ℝˡ
//
//	min_β  ½βᵀ(Q + λI)β − yᵀβ + ε·‖β‖₁,  −U ≤ β_i ≤ U,   Q_ij = x̃_iᵀx̃_j,
//
// with λ = 1/(2C), U = ∞ for q = 2 and λ = 0, U = C for q = 1, keeping
// w = Σ β_i·x̃_i. Each epoch visits the active variables in a random order
// from rng and takes the exact Newton step of the one-variable problem
// (soft-thresholded by ε, clipped to [−U, U]); variables at 0 or at a bound
// whose gradient lies inside the previous epoch's largest violation are
// shrunk. The run stops when the summed violation of an epoch on the full
// set falls below Eps times that of the first epoch, or after MaxEpochs.
//
// The model has a linear kernel and one row w (Coef = [1]) with
// Bias = w_B·B; Decision is the regression function. Info holds "objective"
// (the dual objective above, what liblinear-train prints),
// "primal_objective", "epochs" and "nsv" (β_i ≠ 0).
func LinearDCDSVR(ctx context.Context, p RegProblem, cfg LinearDCDSVRConfig, rng *rand.Rand, progress ProgressFunc) (*Model, error) {
	if err := p.checkDense(cfg, "LinearDCDSVR"); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("svm: LinearDCDSVR: no random source")
	}
	base := LinearDCDConfig{C: cfg.C, Eps: cfg.Eps, MaxEpochs: cfg.MaxEpochs, NoBias: cfg.NoBias, BiasValue: cfg.BiasValue}.withDefaults()
	eps := cfg.Epsilon
	switch {
	case eps == 0:
		eps = 0.1
	case eps < 0:
		eps = 0
	}
	s := &dcdSVR{p: p, c: base.C, eps: eps, tol: base.Eps, bias: base.BiasValue, maxEpochs: base.MaxEpochs, noShrink: cfg.NoShrinking}
	if cfg.Loss == SquaredHinge {
		s.lambda, s.upper = 0.5/base.C, math.Inf(1)
	} else {
		s.lambda, s.upper = 0, base.C
	}
	tk := newTicker(ctx, progress)
	epochs, err := s.run(&tk, rng)
	if err != nil {
		return nil, err
	}
	nsv := 0
	for _, b := range s.beta {
		if b != 0 {
			nsv++
		}
	}
	m := linearModel(s.w[:p.D], s.w[p.D]*s.bias, map[string]string{
		"solver":           "linear-dcd-svr",
		"loss":             cfg.Loss.String(),
		"C":                fmtF(base.C),
		"epsilon":          fmtF(eps),
		"eps":              fmtF(base.Eps),
		"bias":             fmtF(s.bias),
		"epochs":           strconv.Itoa(epochs),
		"objective":        fmtF(s.dualObjective()),
		"primal_objective": fmtF(s.primalObjective()),
		"nsv":              strconv.Itoa(nsv),
	})
	if epochs >= base.MaxEpochs {
		m.Info["max_iter_reached"] = "true"
	}
	return m, nil
}

// dcdSVR is the state of a LinearDCDSVR run; w has D + 1 entries, the last
// the weight of the bias feature.
type dcdSVR struct {
	p             RegProblem
	c, eps, tol   float64
	lambda, upper float64
	bias          float64
	maxEpochs     int
	noShrink      bool
	w, beta, qd   []float64
	index         []int32
	active        int
}

func (s *dcdSVR) run(tk *ticker, rng *rand.Rand) (int, error) {
	p := s.p
	l := p.N
	s.w = make([]float64, p.D+1)
	s.beta = make([]float64, l)
	s.qd = make([]float64, l)
	s.index = make([]int32, l)
	s.active = l
	b2 := s.bias * s.bias
	for i := range s.qd {
		s.qd[i] = sqNorm64(p.row(i)) + b2
		s.index[i] = int32(i)
	}
	gmaxOld := math.Inf(1)
	gnorm1Init := -1.0
	epoch := 0
	d := p.D
	for epoch < s.maxEpochs {
		if err := tk.tick(Progress{Step: epoch, Total: s.maxEpochs, NSV: s.active}); err != nil {
			return 0, err
		}
		act := s.index[:s.active]
		for i := range act {
			j := i + rng.IntN(len(act)-i)
			act[i], act[j] = act[j], act[i]
		}
		if s.noShrink {
			gmaxOld = math.Inf(1)
		}
		gmaxNew, gnorm1New := 0.0, 0.0
		w, wb := s.w[:d], s.w[d]
		h := s.lambda
		for k := 0; k < s.active; k++ {
			i := s.index[k]
			xi := p.X[int(i)*d : int(i)*d+d]
			bi := s.beta[i]
			g := -p.Y[i] + h*bi + vec.DotMixed(w, xi) + wb*s.bias
			hh := s.qd[i] + h
			gp, gn := g+s.eps, g-s.eps
			viol := 0.0
			shrink := false
			switch {
			case bi == 0:
				switch {
				case gp < 0:
					viol = -gp
				case gn > 0:
					viol = gn
				case gp > gmaxOld && gn < -gmaxOld:
					shrink = true
				}
			case bi >= s.upper:
				if gp > 0 {
					viol = gp
				} else if gp < -gmaxOld {
					shrink = true
				}
			case bi <= -s.upper:
				if gn < 0 {
					viol = -gn
				} else if gn > gmaxOld {
					shrink = true
				}
			case bi > 0:
				viol = math.Abs(gp)
			default:
				viol = math.Abs(gn)
			}
			if shrink {
				s.active--
				s.index[k], s.index[s.active] = s.index[s.active], s.index[k]
				k--
				continue
			}
			gmaxNew = max(gmaxNew, viol)
			gnorm1New += viol
			var step float64
			switch {
			case gp < hh*bi:
				step = -gp / hh
			case gn > hh*bi:
				step = -gn / hh
			default:
				step = -bi
			}
			if math.Abs(step) < 1e-12 {
				continue
			}
			nb := min(max(bi+step, -s.upper), s.upper)
			if dd := nb - bi; dd != 0 {
				s.beta[i] = nb
				for j, v := range xi {
					w[j] += dd * float64(v)
				}
				wb += dd * s.bias
			}
		}
		s.w[d] = wb
		if epoch == 0 {
			gnorm1Init = gnorm1New
		}
		epoch++
		if gnorm1New <= s.tol*gnorm1Init {
			if s.active == l {
				break
			}
			s.active = l
			gmaxOld = math.Inf(1)
			continue
		}
		gmaxOld = gmaxNew
	}
	return epoch, tk.tick(Progress{Step: epoch, Total: s.maxEpochs, NSV: s.active, Objective: s.dualObjective()})
}

// dualObjective returns ½‖w‖² + Σ_i (ε|β_i| − y_i·β_i + ½λ·β_i²).
func (s *dcdSVR) dualObjective() float64 {
	v := halfSqNorm(s.w)
	for i, b := range s.beta {
		v += s.eps*math.Abs(b) - s.p.Y[i]*b + 0.5*s.lambda*b*b
	}
	return v
}

// primalObjective returns ½‖w‖² + C·Σ_i max(0, |y_i − wᵀx̃_i| − ε)^q.
func (s *dcdSVR) primalObjective() float64 {
	d := s.p.D
	v := halfSqNorm(s.w)
	for i := 0; i < s.p.N; i++ {
		r := max(0, math.Abs(s.p.Y[i]-vec.DotMixed(s.w[:d], s.p.row(i))-s.w[d]*s.bias)-s.eps)
		if s.lambda > 0 {
			r *= r
		}
		v += s.c * r
	}
	return v
}
