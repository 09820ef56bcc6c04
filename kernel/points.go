package kernel

import (
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/nsvm-go/nsvm/internal/vec"
)

// Points is a growable set of d-dimensional points kept for fast kernel rows
// K(z_i, b) against one query b at a time — the inner loop of kernel
// Pegasos and of the NSVM trainers, where every step evaluates the kernel
// between a new point and all stored support vectors.
//
// The points are held twice: row-major (X, with the squared norms, for
// export and for the Kernel methods) and feature-major in panels of
// vec.PanelWidth = 16 points, where panel q stores feature f of its 16
// points contiguously (one cache line). A row's dot products are then d
// broadcast multiply-adds over full vectors per panel instead of d-long dot
// products, which for the short feature vectors of these trainers (d = 20
// for the paper's Ringnorm network) fill vectors badly: at 10⁴ support
// vectors of d = 20 the RBF row takes about a quarter of the time of the
// row-major GEMV path. An RBF row runs as one pass over the panels
// (vec.PanelRBF, vec.PanelRBFSum) where the machine has AVX-512.
type Points struct {
	d     int
	x     []float32 // n×d, row-major
	norms []float32 // ‖x_i‖²
	pan   []float32 // ⌈n/16⌉ panels of d×16

	// Parallel lets RowSum compute the second half of long rows on
	// another goroutine (when GOMAXPROCS ≥ 2). The goroutine is started by
	// the first such row and waits for the next one spinning for a while
	// (rows come every few microseconds in a training loop, far sooner
	// than a parked goroutine can be woken), then parks; Close ends it.
	Parallel bool
	job      *rowJob
}

// NewPoints returns an empty set of d-dimensional points.
func NewPoints(d int) *Points {
	if d < 0 {
		panic("kernel: NewPoints: negative dimension")
	}
	return &Points{d: d}
}

// Grow makes room for n more points, so that appending them does not
// reallocate (as slices.Grow).
func (p *Points) Grow(n int) {
	if n < 0 {
		panic("kernel: Points.Grow: negative count")
	}
	m := p.Len() + n
	p.x = slices.Grow(p.x, n*p.d)
	p.norms = slices.Grow(p.norms, n)
	p.pan = slices.Grow(p.pan, (m+vec.PanelWidth-1)/vec.PanelWidth*vec.PanelWidth*p.d-len(p.pan))
}

// Len returns the number of points.
func (p *Points) Len() int { return len(p.norms) }

// D returns the dimension.
func (p *Points) D() int { return p.d }

// X returns the points row-major (Len()×D()); it is valid until the set
// changes and must not be modified.
func (p *Points) X() []float32 { return p.x }

// Norms returns the squared norms as given to Append and Set.
func (p *Points) Norms() []float32 { return p.norms }

// Append adds point x with squared norm norm (the caller's value is kept, so
// that it can be computed in the precision the caller needs).
func (p *Points) Append(x []float32, norm float32) {
	if len(x) != p.d {
		panic("kernel: Points.Append: wrong dimension")
	}
	i := len(p.norms)
	p.x = append(p.x, x...)
	p.norms = append(p.norms, norm)
	if i%vec.PanelWidth == 0 {
		p.pan = append(p.pan, make([]float32, vec.PanelWidth*p.d)...)
	}
	p.setPanel(i, x)
}

// Set replaces point i.
func (p *Points) Set(i int, x []float32, norm float32) {
	if len(x) != p.d {
		panic("kernel: Points.Set: wrong dimension")
	}
	copy(p.x[i*p.d:(i+1)*p.d], x)
	p.norms[i] = norm
	p.setPanel(i, x)
}

func (p *Points) setPanel(i int, x []float32) {
	q, l := i/vec.PanelWidth, i%vec.PanelWidth
	pan := p.pan[q*vec.PanelWidth*p.d:]
	for f, v := range x {
		pan[f*vec.PanelWidth+l] = v
	}
}

// Truncate keeps the first n points.
func (p *Points) Truncate(n int) {
	if n < 0 || n > p.Len() {
		panic("kernel: Points.Truncate: out of range")
	}
	p.x = p.x[:n*p.d]
	p.norms = p.norms[:n]
	p.pan = p.pan[:(n+vec.PanelWidth-1)/vec.PanelWidth*vec.PanelWidth*p.d]
}

// Reset empties the set, keeping its storage.
func (p *Points) Reset() { p.Truncate(0) }

// Dots sets dst[i] = z_i·b for every stored point (len(dst) = Len(),
// len(b) = D()).
func (p *Points) Dots(dst, b []float32) {
	if len(dst) != p.Len() || len(b) != p.d {
		panic("kernel: Points.Dots: length mismatch")
	}
	p.dots(dst, b, 0, p.Len())
}

// Row sets dst[i] = K(z_i, b) for every stored point. The dot-product
// kernels (linear, poly, RBF, sigmoid, and their normalised forms) take
// their dot products from the panels; any other kernel gets k.Row on X.
// Results agree with k.Row(dst, X(), Norms(), b) up to the rounding of the
// float32 dot products.
func (p *Points) Row(k Kernel, dst, b []float32) {
	if len(dst) != p.Len() || len(b) != p.d {
		panic("kernel: Points.Row: length mismatch")
	}
	p.rowRange(k, dst, b, 0, p.Len())
}

// parMin is the length from which RowSum splits a row in two halves.
const parMin = 8192

// RowSum sets dst to the kernel row of b (as Row) and returns
// Σ_i c[i]·dst[i] accumulated in float64. From parMin points on, the row is
// split at a panel boundary into two halves whose sums are added, the second
// half computed on another goroutine when Parallel is set: the result is the
// same either way, whatever the number of cores.
func (p *Points) RowSum(k Kernel, dst []float32, c []float64, b []float32) float64 {
	n := p.Len()
	if len(dst) != n || len(c) != n || len(b) != p.d {
		panic("kernel: Points.RowSum: length mismatch")
	}
	if n < parMin {
		return p.rowSum(k, dst, c, b, 0, n)
	}
	h := (n / 2) &^ (vec.PanelWidth - 1)
	if !p.Parallel || runtime.GOMAXPROCS(0) < 2 {
		s1 := p.rowSum(k, dst, c, b, 0, h)
		return s1 + p.rowSum(k, dst, c, b, h, n)
	}
	j := p.job
	if j == nil {
		j = &rowJob{p: p, wake: make(chan struct{}, 1), exited: make(chan struct{})}
		p.job = j
		go j.serve()
	}
	j.k, j.dst, j.c, j.b, j.lo, j.hi = k, dst, c, b, h, n
	seq := j.post()
	s1 := p.rowSum(k, dst, c, b, 0, h)
	j.wait(seq)
	j.k, j.dst, j.c, j.b = nil, nil, nil, nil
	return s1 + j.sum
}

// rowSum sets dst[lo:hi] to the kernel row of b over points lo ≤ i < hi
// (lo a multiple of the panel width) and returns Σ c[i]·dst[i] over them:
// vec.DotMixed over the full panels plus the rest in order (which is
// DotMixed over the range where the assembly runs). An RBF row over full
// panels takes its sum in the same pass (vec.PanelRBFSum).
func (p *Points) rowSum(k Kernel, dst []float32, c []float64, b []float32, lo, hi int) float64 {
	if k, ok := k.(RBF); ok && hi-lo >= vec.PanelWidth {
		return p.rbfRow(k, dst[lo:hi], c[lo:hi], b, lo, hi)
	}
	p.rowRange(k, dst[lo:hi], b, lo, hi)
	return vec.DotMixed(c[lo:hi], dst[lo:hi])
}

// rbfRow sets dst to the RBF row of b over points lo ≤ i < hi (lo a
// multiple of the panel width): the full panels in one vec.PanelRBF pass,
// a partial last panel with PanelDots, RBFArg and ExpTo in the same
// arithmetic. With c (hi−lo values) it returns Σ c[i]·dst[i], the full
// panels' sum taken in the same pass (vec.PanelRBFSum) and the rest added
// in order; without, 0.
func (p *Points) rbfRow(k RBF, dst []float32, c []float64, b []float32, lo, hi int) float64 {
	nb, g := float32(vec.SqNorm(b)), float32(k.Gamma)
	np := (hi - lo) / vec.PanelWidth
	full := np * vec.PanelWidth
	pan, norms := p.pan[lo*p.d:], p.norms[lo:hi]
	var s float64
	if c != nil {
		s = vec.PanelRBFSum(dst, pan, b, norms, c, nb, g, np, p.d)
	} else {
		vec.PanelRBF(dst, pan, b, norms, nb, g, np, p.d)
	}
	if full < len(dst) {
		t := dst[full:]
		p.dots(t, b, lo+full, hi)
		vec.RBFArg(t, norms[full:], nb, g)
		vec.ExpTo(t, t)
		for i := full; c != nil && i < len(dst); i++ {
			s += c[i] * float64(dst[i])
		}
	}
	return s
}

// Close ends the goroutine that a Parallel RowSum started (if any). The
// set stays usable; a later Parallel RowSum starts a new one.
func (p *Points) Close() {
	if j := p.job; j != nil {
		j.quit = true
		j.post()
		p.job = nil
	}
}

// rowJob hands the second half of a RowSum to a helper goroutine. The
// caller fills the fields and increments seq (post); the helper, spinning
// on seq, computes the half and stores seq into done; the caller spins until
// it sees done = seq. The atomics order the plain fields between the two.
// After spinLimit idle polls the helper parks on wake; post wakes it when
// it has announced parking (parked), and the helper re-checks seq after
// announcing, so no post is missed.
type rowJob struct {
	seq, done atomic.Uint64
	parked    atomic.Bool
	wake      chan struct{}
	exited    chan struct{} // closed when serve returns
	quit      bool

	p      *Points // the set it serves
	k      Kernel
	dst, b []float32
	c      []float64
	lo, hi int
	sum    float64
}

// spinLimit is the number of idle polls (roughly 50–100 µs) before the
// helper parks.
const spinLimit = 1 << 15

func (j *rowJob) post() uint64 {
	seq := j.seq.Add(1)
	if j.parked.Load() {
		select {
		case j.wake <- struct{}{}:
		default:
		}
	}
	return seq
}

func (j *rowJob) wait(seq uint64) {
	for spins := 0; j.done.Load() != seq; spins++ {
		if spins >= 64 {
			runtime.Gosched()
		}
	}
}

func (j *rowJob) serve() {
	defer close(j.exited)
	last := uint64(0)
	for {
		for spins := 0; j.seq.Load() == last; spins++ {
			if spins < spinLimit {
				continue
			}
			j.parked.Store(true)
			if j.seq.Load() == last {
				<-j.wake
			}
			j.parked.Store(false)
			spins = 0
		}
		last = j.seq.Load()
		if j.quit {
			return
		}
		j.sum = j.p.rowSum(j.k, j.dst, j.c, j.b, j.lo, j.hi)
		j.done.Store(last)
	}
}

// rowRange is Row on points lo ≤ i < hi, lo a multiple of the panel width,
// into dst (hi−lo values).
func (p *Points) rowRange(k Kernel, dst, b []float32, lo, hi int) {
	switch k := k.(type) {
	case RBF:
		p.rbfRow(k, dst, nil, b, lo, hi)
	case Linear:
		p.dots(dst, b, lo, hi)
	case Poly, Sigmoid:
		p.dots(dst, b, lo, hi)
		f := k.(dotKernel)
		for i, dot := range dst {
			dst[i] = float32(f.f(float64(dot), 0, 0))
		}
	case Normalized:
		p.rowRange(k.K, dst, b, lo, hi)
		kbb := k.K.Eval(b, b)
		for i := range dst {
			zi := p.x[(lo+i)*p.d : (lo+i+1)*p.d]
			dst[i] = float32(float64(dst[i]) / math.Sqrt(k.K.Eval(zi, zi)*kbb))
		}
	default:
		k.Row(dst, p.x[lo*p.d:hi*p.d], p.norms[lo:hi], b)
	}
}

// dots sets dst[i−lo] = z_i·b for lo ≤ i < hi, lo a multiple of the panel
// width.
func (p *Points) dots(dst, b []float32, lo, hi int) {
	n := hi - lo
	full := n / vec.PanelWidth
	q0 := lo / vec.PanelWidth
	vec.PanelDots(dst, p.pan[q0*vec.PanelWidth*p.d:], b, full, p.d)
	if r := n - full*vec.PanelWidth; r > 0 {
		var t [vec.PanelWidth]float32
		vec.PanelDots(t[:], p.pan[(q0+full)*vec.PanelWidth*p.d:], b, 1, p.d)
		copy(dst[full*vec.PanelWidth:], t[:r])
	}
}
