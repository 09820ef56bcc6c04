package nn

import "math"

// Batch normalisation (Ioffe and Szegedy, 2015), as PyTorch's BatchNorm2d on
// images and BatchNorm1d on features: y = γ·(x − μ)/√(σ² + ε) + β per
// channel, with ε = 1e-5. In training μ and σ² (biased) are the batch's, over
// its samples and every position of the channel; in inference they are the
// running estimates, updated after each train-mode forward pass with
// momentum 0.1 and the batch's unbiased variance.
//
// A batch the Net splits into parts (splitParts, a constant) is normalised
// part by part, each by its own statistics ("ghost" batch normalisation):
// the parts run concurrently without meeting halfway through the forward
// pass, and the result is the same on any number of cores. The running
// estimates take the statistics of the whole batch, pooled from the parts
// in order.
const (
	bnEps      = 1e-5
	bnMomentum = 0.1
)

// batchnorm is one batch normalisation stage over c channels of hw
// positions, channel-first across the batch (cf) or in rows. With relu set,
// a following ReLU is fused in.
type batchnorm struct {
	c, hw  int
	cf     bool
	relu   bool
	g, b   []float32 // γ and β (shared)
	gg, gb []float32 // their gradients
	rm, rv []float32 // running mean and variance (shared, read in inference)

	// the last train-mode batch: per channel mean, biased variance and
	// 1/√(σ²+ε); m values per channel
	mean, vr, inv []float64
	m             int
	xhat, y, dx   []float32
	dyr           []float32
	scale, shift  []float32 // inference: y = scale·x + shift
}

// at returns the offset of channel ci of sample s in a batch of n.
func (l *batchnorm) at(ci, s, n int) int {
	if l.cf {
		return (ci*n + s) * l.hw
	}
	return (s*l.c + ci) * l.hw
}

func (l *batchnorm) forward(x []float32, n int, train bool) []float32 {
	size := n * l.c * l.hw
	l.y = grow(l.y, size)
	if !train {
		l.scale, l.shift = grow(l.scale, l.c), grow(l.shift, l.c)
		for ci := range l.c {
			s := l.g[ci] / float32(math.Sqrt(float64(l.rv[ci])+bnEps))
			l.scale[ci], l.shift[ci] = s, l.b[ci]-l.rm[ci]*s
		}
		for ci := range l.c {
			s, t := l.scale[ci], l.shift[ci]
			for j := range n {
				o := l.at(ci, j, n)
				y := l.y[o : o+l.hw]
				for i, v := range x[o : o+l.hw] {
					y[i] = s*v + t
				}
			}
		}
		if l.relu {
			reluTo(l.y, l.y)
		}
		return l.y
	}
	if len(l.mean) < l.c {
		l.mean, l.vr, l.inv = make([]float64, l.c), make([]float64, l.c), make([]float64, l.c)
	}
	l.xhat = grow(l.xhat, size)
	l.m = n * l.hw
	for ci := range l.c {
		var sum float64
		for j := range n {
			o := l.at(ci, j, n)
			for _, v := range x[o : o+l.hw] {
				sum += float64(v)
			}
		}
		mean := sum / float64(l.m)
		var ss float64
		for j := range n {
			o := l.at(ci, j, n)
			for _, v := range x[o : o+l.hw] {
				d := float64(v) - mean
				ss += d * d
			}
		}
		vr := ss / float64(l.m)
		inv := 1 / math.Sqrt(vr+bnEps)
		l.mean[ci], l.vr[ci], l.inv[ci] = mean, vr, inv
		mf, invf, g, b := float32(mean), float32(inv), l.g[ci], l.b[ci]
		for j := range n {
			o := l.at(ci, j, n)
			xh, y := l.xhat[o:o+l.hw], l.y[o:o+l.hw]
			for i, v := range x[o : o+l.hw] {
				h := (v - mf) * invf
				xh[i] = h
				y[i] = g*h + b
			}
		}
	}
	if l.relu {
		reluTo(l.y, l.y)
	}
	return l.y
}

func (l *batchnorm) backward(dy []float32, n int, needDx bool) []float32 {
	size := n * l.c * l.hw
	if l.relu {
		dy = fusedReluGrad(&l.dyr, dy, l.y, size)
	}
	if needDx {
		l.dx = grow(l.dx, size)
	}
	m := float64(l.m)
	for ci := range l.c {
		// ∂γ = Σ dy·x̂, ∂β = Σ dy,
		// ∂x = γ/√(σ²+ε) · (dy − ∂β/m − x̂·∂γ/m).
		var sdy, sdyx float64
		for j := range n {
			o := l.at(ci, j, n)
			xh := l.xhat[o : o+l.hw]
			for i, d := range dy[o : o+l.hw] {
				sdy += float64(d)
				sdyx += float64(d) * float64(xh[i])
			}
		}
		l.gg[ci] += float32(sdyx)
		l.gb[ci] += float32(sdy)
		if !needDx {
			continue
		}
		k := float32(float64(l.g[ci]) * l.inv[ci])
		a, c := float32(sdy/m), float32(sdyx/m)
		for j := range n {
			o := l.at(ci, j, n)
			xh, dx := l.xhat[o:o+l.hw], l.dx[o:o+l.hw]
			for i, d := range dy[o : o+l.hw] {
				dx[i] = k * (d - a - xh[i]*c)
			}
		}
	}
	if !needDx {
		return nil
	}
	return l.dx
}

// updateRunning folds the statistics of the last train-mode batch, split
// across the replicas reps (in order), into the running estimates rm and rv
// of their batchnorm stage i: the pooled mean and unbiased variance of the
// whole batch, with momentum bnMomentum.
func updateRunning(reps []*replica, i int) {
	first := reps[0].layers[i].(*batchnorm)
	for ci := range first.c {
		var total, sum float64
		for _, r := range reps {
			p := r.layers[i].(*batchnorm)
			total += float64(p.m)
			sum += float64(p.m) * p.mean[ci]
		}
		mean := sum / total
		var ss float64
		for _, r := range reps {
			p := r.layers[i].(*batchnorm)
			d := p.mean[ci] - mean
			ss += float64(p.m) * (p.vr[ci] + d*d)
		}
		vr := ss / max(1, total-1)
		first.rm[ci] = float32((1-bnMomentum)*float64(first.rm[ci]) + bnMomentum*mean)
		first.rv[ci] = float32((1-bnMomentum)*float64(first.rv[ci]) + bnMomentum*vr)
	}
}
