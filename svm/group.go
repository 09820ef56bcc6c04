package svm

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
)

// Group computes the decision values of several models that share a kernel
// and a feature size, the heads of a multiclass model, from the kernel
// values of each query against their distinct support vectors: a point that
// is a support vector of several heads (each of its class's k−1 one-vs-one
// heads, or most of the one-vs-rest heads) is evaluated once a query
// instead of once a head, as LIBSVM's svm_predict evaluates it. Each head
// adds the same kernel values in the same order as its own DecisionBatch,
// so the decisions are those of the heads bit for bit.
//
// Like a Model's, the heads' exported fields must not change once the
// group is made; the group is safe for concurrent use.
type Group struct {
	ev    *evaluator
	total int // the heads' support vectors, counted per head
}

// NewGroup returns the group of heads, or nil when it would evaluate no
// fewer kernel values than the heads on their own: fewer than two heads,
// a linear kernel (a head is then one weight vector), heads whose kernels,
// feature sizes or kinds of support vectors (dense or sparse) differ, or
// no support vector that two heads share. Points are the same when their
// values are the same bit for bit. It panics on an inconsistent model, as
// DecisionBatch does.
func NewGroup(heads []*Model) *Group {
	if len(heads) < 2 {
		return nil
	}
	// The checks of the heads' own evaluators (Model.eval), without
	// building them: the group evaluates the heads itself.
	h0 := heads[0]
	k, err := modelKernel(h0.Kernel)
	if err != nil {
		panic("svm: model with invalid kernel: " + err.Error())
	}
	if k == (kernel.Linear{}) {
		return nil
	}
	for _, h := range heads {
		h.check()
		if h.Kernel != h0.Kernel || h.D != h0.D || (h.SVSparse == nil) != (h0.SVSparse == nil) {
			return nil
		}
	}
	idx, total, u := distinctSupport(heads, true)
	if u.n == total {
		return nil
	}
	sv := pointRows(u.x, u.sp, u.n, h0.D)
	return &Group{ev: newEvaluator(k, sv, heads, idx), total: total}
}

// DistinctSupport returns the number of distinct support vectors of the
// heads, dense or sparse (the same point in either form counts once), as
// svm-train's total_sv counts them.
func DistinctSupport(heads []*Model) int {
	_, _, u := distinctSupport(heads, false)
	return u.n
}

// union holds distinct points, dense (x) or sparse (sp).
type union struct {
	x  []float32
	sp *data.CSR
	n  int
}

// distinctSupport maps the support vectors of heads to the distinct
// points among them, in the order they first appear: idx[h][i] is the
// index of head h's support vector i. With build set it also returns the
// distinct points, in the kind of heads[0]'s support vectors.
func distinctSupport(heads []*Model, build bool) (idx [][]int32, total int, u union) {
	seen := map[string]int32{}
	idx = make([][]int32, len(heads))
	sparse := build && heads[0].SVSparse != nil
	if sparse {
		u.sp = &data.CSR{Ptr: []int64{0}}
	}
	var key []byte
	for h, m := range heads {
		idx[h] = make([]int32, m.NSV)
		total += m.NSV
		for i := range m.NSV {
			v := m.svVec(i)
			key = pointKey(key[:0], v)
			j, ok := seen[string(key)]
			if !ok {
				j = int32(u.n)
				seen[string(key)] = j
				u.n++
				switch {
				case sparse:
					u.sp.Idx = append(u.sp.Idx, v.Idx...)
					u.sp.Val = append(u.sp.Val, v.Val...)
					u.sp.Ptr = append(u.sp.Ptr, int64(len(u.sp.Val)))
				case build:
					u.x = append(u.x, v.Val...)
				}
			}
			idx[h][i] = j
		}
	}
	return idx, total, u
}

// pointKey appends to key the nonzero values of v with their columns, so
// that a point has one key whether dense or sparse (a sparse row stores no
// zeros, as addSV writes it).
func pointKey(key []byte, v data.Vec) []byte {
	for k, x := range v.Val {
		if x == 0 && !math.Signbit(float64(x)) {
			continue
		}
		j := k
		if v.Idx != nil {
			j = int(v.Idx[k])
		}
		key = binary.LittleEndian.AppendUint32(key, uint32(j))
		key = binary.LittleEndian.AppendUint32(key, math.Float32bits(x))
	}
	return key
}

// Heads returns the group's heads.
func (g *Group) Heads() []*Model { return g.ev.heads }

// Distinct returns the number of distinct support vectors the group
// evaluates a query against; Total the heads' support vectors counted per
// head.
func (g *Group) Distinct() int { return g.ev.sv.len() }

// Total returns the number of support vectors of the heads, each head's
// counted.
func (g *Group) Total() int { return g.total }

// Decisions sets dst[i·len(Heads)+h] to head h's decision value on row i of
// the n×D row-major matrix x, splitting large batches across GOMAXPROCS
// goroutines.
func (g *Group) Decisions(dst []float64, x []float32, n int) {
	nh, d := len(g.ev.heads), g.ev.sv.d
	if len(dst) < n*nh || len(x) != n*d {
		panic(fmt.Sprintf("svm: Group.Decisions: len(dst) = %d, len(x) = %d for n = %d rows of D = %d and %d heads", len(dst), len(x), n, d, nh))
	}
	g.count(n)
	g.ev.batch(dst, x, n)
}

// DecisionsCSR is Decisions on sparse rows (columns below D).
func (g *Group) DecisionsCSR(dst []float64, x *data.CSR) {
	n, nh, d := x.Rows(), len(g.ev.heads), g.ev.sv.d
	if len(dst) < n*nh {
		panic(fmt.Sprintf("svm: Group.DecisionsCSR: len(dst) = %d for %d rows and %d heads", len(dst), n, nh))
	}
	for _, j := range x.Idx {
		if j < 0 || int(j) >= d {
			panic(fmt.Sprintf("svm: Group.DecisionsCSR: column %d outside [0, %d)", j, d))
		}
	}
	g.count(n)
	g.ev.csr(dst, x)
}

// count counts the kernel values of n queries into the first head's
// counter (see Model.CountEvals): one a distinct support vector.
func (g *Group) count(n int) {
	if c := g.ev.heads[0].evals.Load(); c != nil {
		c.Add(n*g.ev.sv.len(), g.ev.sv.cost)
	}
}
