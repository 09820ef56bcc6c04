package svm

import (
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

// svcQ is Q_ij = y_i·y_j·K(x_i, x_j) (LIBSVM's SVC_Q) over points kept
// in the solver's order (rows: a permuted copy of dense points, or
// permuted views of sparse ones, with their squared norms) and an LRU cache
// of column prefixes, each computed by one rows.column (one GEMV and a
// vector exp for dense RBF rows; a scatter of x_i and a gather per row for
// sparse ones), optionally split across goroutines.
type svcQ struct {
	k       kernel.Kernel
	r       *rows
	y       []int8
	workers int
	cache   *colCache
	tmp     []float32 // d values: swap scratch, or the scattered x_i
}

// newSVCQ copies the l×d dense points x with labels y (±1).
func newSVCQ(k kernel.Kernel, x []float32, l, d int, y []int8, cfg SMOConfig) *svcQ {
	return newSVCQRows(k, newDenseRows(append([]float32(nil), x[:l*d]...), l, d), y, cfg)
}

// newSVCQRows takes the points r, which it permutes, with labels y (±1).
func newSVCQRows(k kernel.Kernel, r *rows, y []int8, cfg SMOConfig) *svcQ {
	l := r.len()
	r.evals = cfg.evals
	return &svcQ{
		k: k, r: r,
		y:       append([]int8(nil), y[:l]...),
		workers: max(cfg.Workers, 1),
		cache:   newColCache(l, cfg.cacheValues),
		tmp:     make([]float32, r.d),
	}
}

func (q *svcQ) diag(i int) float64 { return q.r.self(q.k, i) }

func (q *svcQ) getQ(i, n int) []float32 {
	col, start := q.cache.get(i, n)
	if start >= n {
		return col
	}
	q.r.column(q.k, col, start, n, i, q.workers, q.tmp)
	yi := q.y[i]
	c := col[start:n]
	for j, yj := range q.y[start:n] {
		if yj != yi {
			c[j] = -c[j]
		}
	}
	return col
}

func (q *svcQ) swap(i, j int) {
	q.cache.swap(i, j)
	q.r.swap(i, j, q.tmp)
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

// rowCache computes full kernel rows K(x_r, ·) over points in their
// original order, kept in an LRU cache (LIBSVM's Cache indexed by point,
// as SVR_Q uses it).
type rowCache struct {
	k       kernel.Kernel
	r       *rows // never modified
	workers int
	cache   *colCache
	tmp     []float32
}

// newRowCache serves the points r (dense or sparse).
func newRowCache(k kernel.Kernel, r *rows, cfg SMOConfig) *rowCache {
	r.evals = cfg.evals
	return &rowCache{k: k, r: r, workers: max(cfg.Workers, 1), cache: newColCache(r.len(), cfg.cacheValues), tmp: make([]float32, r.d)}
}

func (c *rowCache) diag(r int) float64 { return c.r.self(c.k, r) }

func (c *rowCache) row(r int) []float32 {
	l := c.r.len()
	row, start := c.cache.get(r, l)
	if start < l {
		c.r.column(c.k, row, 0, l, r, c.workers, c.tmp)
	}
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
