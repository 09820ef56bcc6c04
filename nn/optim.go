package nn

import (
	"fmt"
	"math"

	"github.com/nsvm-go/nsvm/internal/vec"
)

// Optimizer updates parameters from their accumulated gradients.
type Optimizer interface {
	// Step applies one update from Param.G (which it does not clear).
	Step()
	// ZeroGrad sets every Param.G to zero.
	ZeroGrad()
	// State returns copies of the optimizer's buffers, for checkpoints;
	// SetState restores them so that a resumed run is bit-identical.
	State() [][]float32
	SetState(state [][]float32) error
	SetLR(lr float64)
	LR() float64
}

// SGD is torch.optim.SGD (dampening 0): with d = G + wd·W,
// buf = d on the first step and buf = momentum·buf + d afterwards;
// W −= lr·buf, or W −= lr·(d + momentum·buf) with Nesterov momentum. Without
// momentum, W −= lr·d.
type SGD struct {
	params      []*Param
	lr          float64
	momentum    float64
	weightDecay float64
	nesterov    bool
	buf         [][]float32 // nil until the first step with momentum
	spare       [][]float32 // scratch of the same shapes as buf
}

// trainable returns params without the buffers (Param.Buffer), which no
// optimizer updates.
func trainable(params []*Param) []*Param {
	out := make([]*Param, 0, len(params))
	for _, p := range params {
		if !p.Buffer {
			out = append(out, p)
		}
	}
	return out
}

// NewSGD returns an SGD optimizer over params (buffers left out).
func NewSGD(params []*Param, lr, momentum, weightDecay float64, nesterov bool) *SGD {
	return &SGD{params: trainable(params), lr: lr, momentum: momentum, weightDecay: weightDecay, nesterov: nesterov}
}

// Step applies one SGD update in float32. The rounding may differ from
// PyTorch's in the last bit (fused multiply-adds), never the result beyond.
func (o *SGD) Step() {
	lr, mom, wd := float32(o.lr), float32(o.momentum), float32(o.weightDecay)
	first := false
	if mom != 0 && o.buf == nil {
		o.buf = make([][]float32, len(o.params))
		o.spare = make([][]float32, len(o.params))
		for i, p := range o.params {
			o.buf[i] = make([]float32, len(p.W))
			o.spare[i] = make([]float32, len(p.W))
		}
		first = true
	}
	for pi, p := range o.params {
		w := p.W
		g := p.G[:len(w)]
		switch {
		case mom == 0:
			for i, d := range g {
				w[i] -= lr * (d + wd*w[i])
			}
		case first:
			buf := o.buf[pi][:len(w)]
			for i, d := range g {
				d += wd * w[i]
				buf[i] = d
				if o.nesterov {
					d += mom * d
				}
				w[i] -= lr * d
			}
		case o.nesterov:
			buf := o.buf[pi][:len(w)]
			for i, d := range g {
				d += wd * w[i]
				b := mom*buf[i] + d
				buf[i] = b
				w[i] -= lr * (d + mom*b)
			}
		default:
			// buf ← (g + wd·w) + mom·buf, built in the spare buffer by a
			// copy and two vectorised axpys, then swapped in; w −= lr·buf.
			t := o.spare[pi][:len(w)]
			copy(t, g)
			if wd != 0 {
				vec.Axpy(wd, w, t)
			}
			vec.Axpy(mom, o.buf[pi][:len(w)], t)
			o.buf[pi], o.spare[pi] = t, o.buf[pi]
			vec.Axpy(-lr, t, w)
		}
	}
}

// ZeroGrad sets every Param.G to zero.
func (o *SGD) ZeroGrad() { zeroGrad(o.params) }

// SetLR sets the learning rate for the following steps.
func (o *SGD) SetLR(lr float64) { o.lr = lr }

// LR returns the learning rate.
func (o *SGD) LR() float64 { return o.lr }

// State returns copies of the momentum buffers, one per parameter, or nil
// before the first step with momentum.
func (o *SGD) State() [][]float32 { return cloneState(o.buf) }

// SetState restores buffers returned by State (nil: no step taken yet).
func (o *SGD) SetState(state [][]float32) error {
	if len(state) == 0 {
		o.buf = nil
		return nil
	}
	if err := checkState("SGD", state, o.params, 0); err != nil {
		return err
	}
	o.buf = cloneState(state)
	o.spare = cloneState(state)
	return nil
}

// Adam is torch.optim.Adam (amsgrad off, L2 weight decay added to the
// gradient): with g = G + wd·W and step t,
// m = β₁m + (1−β₁)g, v = β₂v + (1−β₂)g², and
// W −= lr/(1−β₁ᵗ) · m / (√v/√(1−β₂ᵗ) + eps).
type Adam struct {
	params           []*Param
	lr, beta1, beta2 float64
	eps, weightDecay float64
	step             int
	m, v             [][]float32
}

// NewAdam returns an Adam optimizer over params (buffers left out).
func NewAdam(params []*Param, lr, beta1, beta2, eps, weightDecay float64) *Adam {
	params = trainable(params)
	o := &Adam{params: params, lr: lr, beta1: beta1, beta2: beta2, eps: eps, weightDecay: weightDecay}
	o.m = make([][]float32, len(params))
	o.v = make([][]float32, len(params))
	for i, p := range params {
		o.m[i] = make([]float32, len(p.W))
		o.v[i] = make([]float32, len(p.W))
	}
	return o
}

// Step applies one Adam update in float32, with the bias corrections in
// float64 as PyTorch computes them (vec.AdamStep, element by element).
func (o *Adam) Step() {
	o.step++
	t := float64(o.step)
	bc1 := 1 - math.Pow(o.beta1, t)
	bc2 := 1 - math.Pow(o.beta2, t)
	c := vec.AdamConsts{WeightDecay: float32(o.weightDecay), B1: float32(o.beta1), C1: float32(1 - o.beta1),
		B2: float32(o.beta2), C2: float32(1 - o.beta2), BC2S: float32(math.Sqrt(bc2)), Eps: float32(o.eps),
		Step: float32(o.lr / bc1), TinyGrad: tinyGrad, TinyMoment: tinyMoment}
	for pi, p := range o.params {
		w := p.W
		vec.AdamStep(w, p.G[:len(w)], o.m[pi][:len(w)], o.v[pi][:len(w)], &c)
	}
}

// Moments that decay with no gradient to renew them (a dead unit's, a
// constant input's) pass through float32's subnormal range, below 1.2e-38,
// where every multiplication costs a microcode assist on x86, about a
// hundred times an ordinary one (a tenth of an MLP's moments on MNIST were
// subnormal after 1500 steps). Moments below tinyMoment, and gradients
// below tinyGrad (whose squares would be), are set to 0: their update is
// below lr·1e-7 a step anyway (eps, 1e-8, bounds the denominator), as
// PyTorch's is, which computes them in full.
const (
	tinyMoment = 1e-30
	tinyGrad   = 1e-15
)

// ZeroGrad sets every Param.G to zero.
func (o *Adam) ZeroGrad() { zeroGrad(o.params) }

// SetLR sets the learning rate for the following steps.
func (o *Adam) SetLR(lr float64) { o.lr = lr }

// LR returns the learning rate.
func (o *Adam) LR() float64 { return o.lr }

// Steps returns the number of steps taken.
func (o *Adam) Steps() int { return o.step }

// State returns {step}, the first moments m (one per parameter), then the
// second moments v. The step count is stored exactly as two float32 values
// (step >> 20, step & (2²⁰−1)).
func (o *Adam) State() [][]float32 {
	st := [][]float32{{float32(o.step >> 20), float32(o.step & (1<<20 - 1))}}
	st = append(st, cloneState(o.m)...)
	return append(st, cloneState(o.v)...)
}

// SetState restores buffers returned by State.
func (o *Adam) SetState(state [][]float32) error {
	n := len(o.params)
	if len(state) != 1+2*n || len(state[0]) != 2 {
		return fmt.Errorf("nn: Adam state has %d buffers, want %d", len(state), 1+2*n)
	}
	hi, lo := state[0][0], state[0][1]
	if hi < 0 || lo < 0 || lo >= 1<<20 || hi != float32(int(hi)) || lo != float32(int(lo)) {
		return fmt.Errorf("nn: Adam state has a bad step count")
	}
	if err := checkState("Adam", state[1:1+n], o.params, 1); err != nil {
		return err
	}
	if err := checkState("Adam", state[1+n:], o.params, 1+n); err != nil {
		return err
	}
	o.step = int(hi)<<20 | int(lo)
	o.m = cloneState(state[1 : 1+n])
	o.v = cloneState(state[1+n:])
	return nil
}

func zeroGrad(params []*Param) {
	for _, p := range params {
		clear(p.G)
	}
}

func cloneState(s [][]float32) [][]float32 {
	if s == nil {
		return nil
	}
	out := make([][]float32, len(s))
	for i, b := range s {
		out[i] = append([]float32(nil), b...)
	}
	return out
}

func checkState(name string, state [][]float32, params []*Param, base int) error {
	if len(state) != len(params) {
		return fmt.Errorf("nn: %s state has %d buffers, want %d", name, len(state), len(params))
	}
	for i, p := range params {
		if len(state[i]) != len(p.W) {
			return fmt.Errorf("nn: %s state buffer %d has %d values, want %d (%s)", name, base+i, len(state[i]), len(p.W), p.Name)
		}
	}
	return nil
}

// Schedule gives the learning rate of step t (counted from 0).
type Schedule interface {
	LR(step int) float64
}

// Constant is the schedule lr(t) = Base.
type Constant struct{ Base float64 }

// LR implements Schedule.
func (s Constant) LR(int) float64 { return s.Base }

// StepDecay is lr(t) = Base·Gamma^⌊t/Every⌋ (torch.optim.lr_scheduler.StepLR).
type StepDecay struct {
	Base  float64
	Every int
	Gamma float64
}

// LR implements Schedule.
func (s StepDecay) LR(t int) float64 {
	if s.Every <= 0 {
		return s.Base
	}
	return s.Base * math.Pow(s.Gamma, float64(t/s.Every))
}

// InvT is lr(t) = Base·T0/(T0+t), the 1/t decay of stochastic
// approximation.
type InvT struct {
	Base float64
	T0   float64
}

// LR implements Schedule.
func (s InvT) LR(t int) float64 {
	if s.T0 <= 0 {
		return s.Base
	}
	return s.Base * s.T0 / (s.T0 + float64(t))
}

// CosineDecay is lr(t) = Min + (Base−Min)·(1+cos(πt/T))/2 for t ≤ T and Min
// afterwards (torch.optim.lr_scheduler.CosineAnnealingLR without restarts).
type CosineDecay struct {
	Base, Min float64
	T         int
}

// LR implements Schedule.
func (s CosineDecay) LR(t int) float64 {
	if s.T <= 0 || t >= s.T {
		if s.T <= 0 {
			return s.Base
		}
		return s.Min
	}
	return s.Min + (s.Base-s.Min)*(1+math.Cos(math.Pi*float64(t)/float64(s.T)))/2
}
