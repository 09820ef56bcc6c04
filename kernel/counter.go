package kernel

import (
	"context"
	"sync/atomic"
)

// Counter counts kernel evaluations K(a, b) and the multiply-adds of their
// products a·b or distances ‖a−b‖² (the row length for dense rows). The
// solvers of package svm count the kernel values they compute — the
// columns of their Q matrices, the kernel matrices of a grid — into the
// Counter of their context (NewContext), and an svm.Model counts its
// decision values into the Counter it is given. It is safe for concurrent
// use; its zero value is empty, and a nil *Counter counts nothing.
type Counter struct {
	evals, macs atomic.Int64
}

// Add counts n evaluations on rows of d values.
func (c *Counter) Add(n, d int) {
	if c == nil || n == 0 {
		return
	}
	c.evals.Add(int64(n))
	c.macs.Add(int64(n) * int64(d))
}

// Evals returns the evaluations counted so far.
func (c *Counter) Evals() int64 {
	if c == nil {
		return 0
	}
	return c.evals.Load()
}

// MACs returns the multiply-adds of the evaluations counted so far.
func (c *Counter) MACs() int64 {
	if c == nil {
		return 0
	}
	return c.macs.Load()
}

type counterKey struct{}

// NewContext returns a copy of ctx that carries c: the solvers called with
// it count their kernel evaluations into c.
func NewContext(ctx context.Context, c *Counter) context.Context {
	return context.WithValue(ctx, counterKey{}, c)
}

// CounterFrom returns the Counter ctx carries, or nil.
func CounterFrom(ctx context.Context) *Counter {
	c, _ := ctx.Value(counterKey{}).(*Counter)
	return c
}
