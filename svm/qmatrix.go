package svm

import (
	"sync"

	"github.com/nsvm-go/nsvm/kernel"
)

// qMatrix supplies the columns of the solver's Q in the solver's current
// order of variables (LIBSVM's QMatrix).
type qMatrix interface {
	// getQ returns Q_ji for the first n positions j. The slice stays valid
	// until the second-next call of getQ.
	getQ(i, n int) []float32
	// diag returns Q_ii in the initial order.
	diag(i int) float64
	// swap exchanges positions i and j.
	swap(i, j int)
}

// parallelRows is the shortest column split across workers.
const parallelRows = 4096

// svcQ is Q_ij = y_i·y_j·K(x_i, x_j) over dense points (LIBSVM's SVC_Q):
// a permuted copy of the points with their squared norms, and an LRU cache
// of column prefixes computed by kernel.Row (one GEMV and a vector exp for
// RBF), optionally split across goroutines.
type svcQ struct {
	k       kernel.Kernel
	d       int
	x       []float32 // l×d, permuted copy
	xn      []float32 // ‖x_i‖²
	y       []int8
	workers int
	cache   *colCache
	tmp     []float32
}

// newSVCQ copies the l×d points x with labels y (±1).
func newSVCQ(k kernel.Kernel, x []float32, l, d int, y []int8, cfg SMOConfig) *svcQ {
	q := &svcQ{
		k: k, d: d,
		x:       append([]float32(nil), x[:l*d]...),
		xn:      make([]float32, l),
		y:       append([]int8(nil), y[:l]...),
		workers: max(cfg.Workers, 1),
		cache:   newColCache(l, cfg.cacheValues),
		tmp:     make([]float32, d),
	}
	for i := range q.xn {
		q.xn[i] = float32(sqNorm64(q.x[i*d : (i+1)*d]))
	}
	return q
}

func (q *svcQ) diag(i int) float64 {
	xi := q.x[i*q.d : (i+1)*q.d]
	return q.k.Eval(xi, xi)
}

func (q *svcQ) getQ(i, n int) []float32 {
	col, start := q.cache.get(i, n)
	if start >= n {
		return col
	}
	if q.workers < 2 || n-start < parallelRows {
		q.fill(col, i, start, n)
		return col
	}
	var wg sync.WaitGroup
	step := (n - start + q.workers - 1) / q.workers
	for lo := start + step; lo < n; lo += step {
		wg.Go(func() { q.fill(col, i, lo, min(lo+step, n)) })
	}
	q.fill(col, i, start, min(start+step, n))
	wg.Wait()
	return col
}

// fill sets col[j] = Q_ij = y_i·y_j·K(x_i, x_j) for lo ≤ j < hi.
func (q *svcQ) fill(col []float32, i, lo, hi int) {
	d := q.d
	c := col[lo:hi]
	q.k.Row(c, q.x[lo*d:hi*d], q.xn[lo:hi], q.x[i*d:(i+1)*d])
	yi := q.y[i]
	for j, yj := range q.y[lo:hi] {
		if yj != yi {
			c[j] = -c[j]
		}
	}
}

func (q *svcQ) swap(i, j int) {
	q.cache.swap(i, j)
	d := q.d
	xi, xj := q.x[i*d:(i+1)*d], q.x[j*d:(j+1)*d]
	copy(q.tmp, xi)
	copy(xi, xj)
	copy(xj, q.tmp)
	q.xn[i], q.xn[j] = q.xn[j], q.xn[i]
	q.y[i], q.y[j] = q.y[j], q.y[i]
}

// gatherQ is the Q of variables that index the rows of a kernel matrix with
// a sign: Q_ij = s_i·s_j·K(pt_i, pt_j), where row(r) returns the kernel
// values of point r against all points and kdiag(r) = K(x_r, x_r). It serves
// ε-SVR (2l variables over l points, LIBSVM's SVR_Q) and every problem on a
// precomputed KernelMatrix. Columns are gathered into two alternating
// buffers.
type gatherQ struct {
	row  func(r int) []float32
	kd   func(r int) float64
	pt   []int32   // position → point
	sign []float32 // ±1: a product instead of a branch on random signs
	buf  [2][]float32
	next int
}

func newGatherQ(row func(r int) []float32, kdiag func(r int) float64, pt []int32, sign []int8) *gatherQ {
	l := len(pt)
	q := &gatherQ{
		row:  row,
		kd:   kdiag,
		pt:   append([]int32(nil), pt...),
		sign: make([]float32, l),
		buf:  [2][]float32{make([]float32, l), make([]float32, l)},
	}
	for i, s := range sign {
		q.sign[i] = float32(s)
	}
	return q
}

func (q *gatherQ) diag(i int) float64 { return q.kd(int(q.pt[i])) }

func (q *gatherQ) getQ(i, n int) []float32 {
	row := q.row(int(q.pt[i]))
	b := q.buf[q.next][:n]
	q.next ^= 1
	pt, sign := q.pt[:n], q.sign[:n]
	si := q.sign[i]
	for j, r := range pt {
		b[j] = row[r] * si * sign[j]
	}
	return b
}

func (q *gatherQ) swap(i, j int) {
	q.pt[i], q.pt[j] = q.pt[j], q.pt[i]
	q.sign[i], q.sign[j] = q.sign[j], q.sign[i]
}

// rowCache computes full kernel rows K(x_r, ·) over dense points in their
// original order, kept in an LRU cache (LIBSVM's Cache indexed by point, as
// SVR_Q uses it).
type rowCache struct {
	k       kernel.Kernel
	x       []float32 // not copied; never modified
	xn      []float32
	l, d    int
	workers int
	cache   *colCache
}

func newRowCache(k kernel.Kernel, x []float32, l, d int, cfg SMOConfig) *rowCache {
	c := &rowCache{k: k, x: x, xn: make([]float32, l), l: l, d: d, workers: max(cfg.Workers, 1), cache: newColCache(l, cfg.cacheValues)}
	for i := range c.xn {
		c.xn[i] = float32(sqNorm64(x[i*d : (i+1)*d]))
	}
	return c
}

func (c *rowCache) diag(r int) float64 {
	xr := c.x[r*c.d : (r+1)*c.d]
	return c.k.Eval(xr, xr)
}

func (c *rowCache) row(r int) []float32 {
	row, start := c.cache.get(r, c.l)
	if start >= c.l {
		return row
	}
	d := c.d
	xr := c.x[r*d : (r+1)*d]
	fill := func(lo, hi int) { c.k.Row(row[lo:hi], c.x[lo*d:hi*d], c.xn[lo:hi], xr) }
	n := c.l
	if c.workers < 2 || n < parallelRows {
		fill(0, n)
		return row
	}
	var wg sync.WaitGroup
	step := (n + c.workers - 1) / c.workers
	for lo := step; lo < n; lo += step {
		wg.Go(func() { fill(lo, min(lo+step, n)) })
	}
	fill(0, min(step, n))
	wg.Wait()
	return row
}

// denseQ holds all of Q (l×l, row-major, symmetric) for small problems, in
// the solver's current order: getQ returns a row without copying, and a
// swap exchanges two rows and two columns.
type denseQ struct {
	l int
	q []float32
}

func (q *denseQ) getQ(i, n int) []float32 { return q.q[i*q.l : i*q.l+n] }

func (q *denseQ) diag(i int) float64 { return float64(q.q[i*q.l+i]) }

func (q *denseQ) swap(i, j int) {
	if i == j {
		return
	}
	l := q.l
	ri, rj := q.q[i*l:(i+1)*l], q.q[j*l:(j+1)*l]
	for k := range ri {
		ri[k], rj[k] = rj[k], ri[k]
	}
	for r := 0; r < l; r++ {
		row := q.q[r*l : (r+1)*l]
		row[i], row[j] = row[j], row[i]
	}
}

// gatherDense sets dst (l×l) to Q_ij = s_i·s_j·K(pt_i, pt_j) from the rows
// of a kernel matrix.
func gatherDense(dst []float32, m *KernelMatrix, pt []int32, sign []int8) {
	l := len(pt)
	for i, r := range pt {
		row := m.Row(int(r))
		d := dst[i*l : (i+1)*l]
		for j, c := range pt {
			v := row[c]
			if sign[i] != sign[j] {
				v = -v
			}
			d[j] = v
		}
	}
}
