package nn

import (
	"math"

	"github.com/nsvm-go/nsvm/internal/vec"
)

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
	bk, ba, bc    []float32 // backward in rows: ∂x = bk·(dy − ba − x̂·bc) per channel
	ones          []float32 // see onesFor
	acc           []float64 // see sums
}

// at returns the offset of channel ci of sample s in a batch of n.
func (l *batchnorm) at(ci, s, n int) int {
	if l.cf {
		return (ci*n + s) * l.hw
	}
	return (s*l.c + ci) * l.hw
}

// runs calls f with the offset and length of each run of channel ci's
// values in a batch of n: one run channel-first, one a sample in rows.
func (l *batchnorm) runs(ci, n int, f func(o, m int)) {
	if l.cf {
		f(l.at(ci, 0, n), n*l.hw)
		return
	}
	for j := range n {
		f(l.at(ci, j, n), l.hw)
	}
}

// rowsOf1 reports whether the batch is in rows of one position per
// channel (after a dense layer): its statistics are summed sample by
// sample over all channels at once instead of channel by channel.
func (l *batchnorm) rowsOf1() bool { return !l.cf && l.hw == 1 }

// onesFor returns m ones, against which sums are dot products.
func (l *batchnorm) onesFor(m int) []float32 {
	if len(l.ones) < m {
		l.ones = make([]float32, m)
		fill(l.ones, 1)
	}
	return l.ones[:m]
}

func (l *batchnorm) forward(x []float32, n int, train bool) []float32 {
	size := n * l.c * l.hw
	l.y = vec.Resize(l.y, size)
	if !train {
		l.scale, l.shift = vec.Resize(l.scale, l.c), vec.Resize(l.shift, l.c)
		for ci := range l.c {
			s := l.g[ci] / float32(math.Sqrt(float64(l.rv[ci])+bnEps))
			l.scale[ci], l.shift[ci] = s, l.b[ci]-l.rm[ci]*s
		}
		if l.rowsOf1() {
			for j := range n {
				xr, yr := x[j*l.c:(j+1)*l.c], l.y[j*l.c:(j+1)*l.c]
				for ci, v := range xr {
					yr[ci] = l.scale[ci]*v + l.shift[ci]
				}
			}
		} else {
			for ci := range l.c {
				s, t := l.scale[ci], l.shift[ci]
				l.runs(ci, n, func(o, m int) {
					y := l.y[o : o+m]
					for i, v := range x[o : o+m] {
						y[i] = s*v + t
					}
				})
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
	l.xhat = vec.Resize(l.xhat, size)
	l.m = n * l.hw
	if l.rowsOf1() {
		l.rowStats(x, n)
		for j := range n {
			xr, xh, yr := x[j*l.c:(j+1)*l.c], l.xhat[j*l.c:(j+1)*l.c], l.y[j*l.c:(j+1)*l.c]
			for ci, v := range xr {
				h := (v - float32(l.mean[ci])) * float32(l.inv[ci])
				xh[ci] = h
				yr[ci] = l.g[ci]*h + l.b[ci]
			}
		}
	} else {
		for ci := range l.c {
			// Σx and Σx², accumulated in float64 (exact products of
			// float32s, rounding near 1e-16 relative): the variance
			// Σx²/m − μ² loses to cancellation only when |μ|/σ nears 10⁸.
			var sum, sq float64
			l.runs(ci, n, func(o, m int) {
				r := x[o : o+m]
				sum += vec.Dot64(r, l.onesFor(m))
				sq += vec.Dot64(r, r)
			})
			mean := sum / float64(l.m)
			vr := max(0, sq/float64(l.m)-mean*mean)
			l.mean[ci], l.vr[ci], l.inv[ci] = mean, vr, 1/math.Sqrt(vr+bnEps)
			mf, invf, g, b := float32(mean), float32(l.inv[ci]), l.g[ci], l.b[ci]
			l.runs(ci, n, func(o, m int) {
				xh, y := l.xhat[o:o+m], l.y[o:o+m]
				for i, v := range x[o : o+m] {
					h := (v - mf) * invf
					xh[i] = h
					y[i] = g*h + b
				}
			})
		}
	}
	if l.relu {
		reluTo(l.y, l.y)
	}
	return l.y
}

// rowStats sets the mean, variance and 1/√(σ²+ε) of each channel of a
// batch of n rows of one position a channel: two passes over the rows,
// each channel's sums in sample order.
func (l *batchnorm) rowStats(x []float32, n int) {
	mean, vr := l.mean[:l.c], l.vr[:l.c]
	clear(mean)
	clear(vr)
	for j := range n {
		for ci, v := range x[j*l.c : (j+1)*l.c] {
			mean[ci] += float64(v)
		}
	}
	for ci := range mean {
		mean[ci] /= float64(l.m)
	}
	for j := range n {
		for ci, v := range x[j*l.c : (j+1)*l.c] {
			d := float64(v) - mean[ci]
			vr[ci] += d * d
		}
	}
	for ci := range vr {
		vr[ci] /= float64(l.m)
		l.inv[ci] = 1 / math.Sqrt(vr[ci]+bnEps)
	}
}

func (l *batchnorm) backward(dy []float32, n int, needDx bool) []float32 {
	size := n * l.c * l.hw
	if l.relu {
		dy = fusedReluGrad(&l.dyr, dy, l.y, size)
	}
	if needDx {
		l.dx = vec.Resize(l.dx, size)
	}
	// ∂γ = Σ dy·x̂, ∂β = Σ dy,
	// ∂x = γ/√(σ²+ε) · (dy − ∂β/m − x̂·∂γ/m).
	m := float64(l.m)
	if l.rowsOf1() {
		sdy, sdyx := l.sums(l.c)
		for j := range n {
			xh := l.xhat[j*l.c : (j+1)*l.c]
			for ci, d := range dy[j*l.c : (j+1)*l.c] {
				sdy[ci] += float64(d)
				sdyx[ci] += float64(d) * float64(xh[ci])
			}
		}
		for ci := range l.c {
			l.gg[ci] += float32(sdyx[ci])
			l.gb[ci] += float32(sdy[ci])
		}
		if !needDx {
			return nil
		}
		l.bk, l.ba, l.bc = vec.Resize(l.bk, l.c), vec.Resize(l.ba, l.c), vec.Resize(l.bc, l.c)
		k, a, c := l.bk, l.ba, l.bc
		for ci := range l.c {
			k[ci] = float32(float64(l.g[ci]) * l.inv[ci])
			a[ci] = float32(sdy[ci] / m)
			c[ci] = float32(sdyx[ci] / m)
		}
		for j := range n {
			xh, dx := l.xhat[j*l.c:(j+1)*l.c], l.dx[j*l.c:(j+1)*l.c]
			for ci, d := range dy[j*l.c : (j+1)*l.c] {
				dx[ci] = k[ci] * (d - a[ci] - xh[ci]*c[ci])
			}
		}
		return l.dx
	}
	for ci := range l.c {
		var sdy, sdyx float64
		l.runs(ci, n, func(o, m int) {
			d := dy[o : o+m]
			sdy += vec.Dot64(d, l.onesFor(m))
			sdyx += vec.Dot64(d, l.xhat[o:o+m])
		})
		l.gg[ci] += float32(sdyx)
		l.gb[ci] += float32(sdy)
		if !needDx {
			continue
		}
		k := float32(float64(l.g[ci]) * l.inv[ci])
		a, c := float32(sdy/m), float32(sdyx/m)
		l.runs(ci, n, func(o, m int) {
			xh, dx := l.xhat[o:o+m], l.dx[o:o+m]
			for i, d := range dy[o : o+m] {
				dx[i] = k * (d - a - xh[i]*c)
			}
		})
	}
	if !needDx {
		return nil
	}
	return l.dx
}

// sums returns two zeroed float64 vectors of c values each, from l.acc.
func (l *batchnorm) sums(c int) ([]float64, []float64) {
	if len(l.acc) < 2*c {
		l.acc = make([]float64, 2*c)
	}
	clear(l.acc[:2*c])
	return l.acc[:c], l.acc[c : 2*c]
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
