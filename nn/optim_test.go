package nn

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// optParams returns two parameters with fixed values and gradients.
func optParams(seed uint64) []*Param {
	rng := newRand(seed)
	var ps []*Param
	for i, n := range []int{7, 3} {
		ps = append(ps, &Param{Name: fmt.Sprint(i), Shape: []int{n}, W: uniform(rng, n, -1, 1), G: uniform(rng, n, -1, 1)})
	}
	return ps
}

// gradAt sets G to a fixed function of W and the step, so that the
// optimizers see changing gradients.
func gradAt(ps []*Param, step int) {
	for _, p := range ps {
		for i := range p.G {
			p.G[i] = float32(math.Sin(float64(p.W[i])*3+float64(step)) + 0.1*float64(i))
		}
	}
}

// TestSGD compares SGD with the torch.optim.SGD update written out in
// float64.
func TestSGD(t *testing.T) {
	for _, tc := range []struct {
		name         string
		mom, wd      float64
		nesterov     bool
		lr           float64
		lrAfterFirst float64
	}{
		{"plain", 0, 0, false, 0.1, 0.1},
		{"wd", 0, 0.01, false, 0.1, 0.05},
		{"momentum", 0.9, 1e-4, false, 0.01, 0.01},
		{"nesterov", 0.9, 1e-3, true, 0.05, 0.02},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := optParams(1)
			ref := make([][]float64, len(ps))
			buf := make([][]float64, len(ps))
			for i, p := range ps {
				for _, v := range p.W {
					ref[i] = append(ref[i], float64(v))
				}
				buf[i] = make([]float64, len(p.W))
			}
			o := NewSGD(ps, tc.lr, tc.mom, tc.wd, tc.nesterov)
			lr := tc.lr
			for step := 0; step < 4; step++ {
				gradAt(ps, step)
				for i, p := range ps {
					for j := range p.W {
						d := float64(p.G[j]) + tc.wd*ref[i][j]
						if tc.mom != 0 {
							if step == 0 {
								buf[i][j] = d
							} else {
								buf[i][j] = tc.mom*buf[i][j] + d
							}
							if tc.nesterov {
								d += tc.mom * buf[i][j]
							} else {
								d = buf[i][j]
							}
						}
						ref[i][j] -= lr * d
					}
				}
				o.Step()
				lr = tc.lrAfterFirst
				o.SetLR(lr)
				if o.LR() != lr {
					t.Fatal("LR does not return the SetLR value")
				}
				// The float64 reference reads its own W, so compare closely
				// every step.
				for i, p := range ps {
					for j, v := range p.W {
						if math.Abs(float64(v)-ref[i][j]) > 1e-6*(1+math.Abs(ref[i][j])) {
							t.Fatalf("step %d: %s[%d] = %g, want %g", step, p.Name, j, v, ref[i][j])
						}
						ref[i][j] = float64(v)
					}
				}
			}
		})
	}
}

// TestAdam compares Adam with the torch.optim.Adam update in float64.
func TestAdam(t *testing.T) {
	ps := optParams(2)
	lr, b1, b2, eps, wd := 1e-2, 0.9, 0.999, 1e-8, 1e-3
	o := NewAdam(ps, lr, b1, b2, eps, wd)
	m := make([][]float64, len(ps))
	v := make([][]float64, len(ps))
	for i, p := range ps {
		m[i], v[i] = make([]float64, len(p.W)), make([]float64, len(p.W))
	}
	for step := 1; step <= 5; step++ {
		gradAt(ps, step)
		want := make([][]float64, len(ps))
		for i, p := range ps {
			for j, w := range p.W {
				g := float64(p.G[j]) + wd*float64(w)
				m[i][j] = b1*m[i][j] + (1-b1)*g
				v[i][j] = b2*v[i][j] + (1-b2)*g*g
				den := math.Sqrt(v[i][j])/math.Sqrt(1-math.Pow(b2, float64(step))) + eps
				want[i] = append(want[i], float64(w)-lr/(1-math.Pow(b1, float64(step)))*m[i][j]/den)
			}
		}
		o.Step()
		for i, p := range ps {
			for j, w := range p.W {
				if math.Abs(float64(w)-want[i][j]) > 1e-6*(1+math.Abs(want[i][j])) {
					t.Fatalf("step %d: %s[%d] = %g, want %g", step, p.Name, j, w, want[i][j])
				}
			}
		}
	}
	if o.Steps() != 5 {
		t.Errorf("Steps() = %d", o.Steps())
	}
}

// TestOptimizerResume checks that State/SetState make a resumed run
// bit-identical to an uninterrupted one.
func TestOptimizerResume(t *testing.T) {
	for _, tc := range []struct {
		name string
		mk   func([]*Param) Optimizer
	}{
		{"sgd", func(ps []*Param) Optimizer { return NewSGD(ps, 0.05, 0.9, 1e-4, false) }},
		{"nesterov", func(ps []*Param) Optimizer { return NewSGD(ps, 0.05, 0.9, 0, true) }},
		{"adam", func(ps []*Param) Optimizer { return NewAdam(ps, 1e-2, 0.9, 0.999, 1e-8, 1e-4) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full := optParams(3)
			of := tc.mk(full)
			var saved [][]float32
			var savedW [][]float32
			for step := 0; step < 6; step++ {
				if step == 3 {
					saved = of.State()
					for _, p := range full {
						savedW = append(savedW, slices.Clone(p.W))
					}
				}
				gradAt(full, step)
				of.Step()
			}
			resumed := optParams(3)
			for i, p := range resumed {
				copy(p.W, savedW[i])
			}
			or := tc.mk(resumed)
			if err := or.SetState(saved); err != nil {
				t.Fatal(err)
			}
			for step := 3; step < 6; step++ {
				gradAt(resumed, step)
				or.Step()
			}
			for i, p := range full {
				if !slices.Equal(p.W, resumed[i].W) {
					t.Fatalf("%s differs after resuming", p.Name)
				}
			}
			if err := or.SetState([][]float32{{1}}); err == nil {
				t.Error("SetState accepted a malformed state")
			}
			or.ZeroGrad()
			for _, p := range resumed {
				for _, g := range p.G {
					if g != 0 {
						t.Fatal("ZeroGrad left a gradient")
					}
				}
			}
		})
	}
}

func TestSchedules(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Schedule
		step int
		want float64
	}{
		{"constant", Constant{0.1}, 1000, 0.1},
		{"step-0", StepDecay{Base: 1, Every: 10, Gamma: 0.5}, 9, 1},
		{"step-1", StepDecay{Base: 1, Every: 10, Gamma: 0.5}, 10, 0.5},
		{"step-2", StepDecay{Base: 1, Every: 10, Gamma: 0.5}, 25, 0.25},
		{"invt-0", InvT{Base: 0.2, T0: 100}, 0, 0.2},
		{"invt-100", InvT{Base: 0.2, T0: 100}, 100, 0.1},
		{"cos-0", CosineDecay{Base: 1, Min: 0.1, T: 100}, 0, 1},
		{"cos-half", CosineDecay{Base: 1, Min: 0.1, T: 100}, 50, 0.55},
		{"cos-end", CosineDecay{Base: 1, Min: 0.1, T: 100}, 200, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.LR(tc.step); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("LR(%d) = %g, want %g", tc.step, got, tc.want)
			}
		})
	}
}
