package search

import (
	"context"

	"github.com/nsvm-go/nsvm/internal/sysmem"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
)

// Work is the arithmetic a fit did, counted as it went (not timed), so
// that it is the same on any machine, build or load: the multiply-adds of
// its networks' products by layer kind and pass (nn.Work), and the kernel
// evaluations of its SVM solvers (SMO's kernel columns, the grid's kernel
// matrices) and of its models' decision values, with their multiply-adds
// (the length of the rows for dense rows).
type Work struct {
	ConvForward   int64 `json:"conv_forward_macs"`
	ConvBackward  int64 `json:"conv_backward_macs"`
	DenseForward  int64 `json:"dense_forward_macs"`
	DenseBackward int64 `json:"dense_backward_macs"`
	KernelEvals   int64 `json:"kernel_evals"`
	KernelMACs    int64 `json:"kernel_macs"`
}

// Total returns all the multiply-adds of w: the networks' and the kernel
// evaluations'.
func (w Work) Total() int64 {
	return w.ConvForward + w.ConvBackward + w.DenseForward + w.DenseBackward + w.KernelMACs
}

// Plus returns w + o, count by count.
func (w Work) Plus(o Work) Work {
	return Work{w.ConvForward + o.ConvForward, w.ConvBackward + o.ConvBackward, w.DenseForward + o.DenseForward,
		w.DenseBackward + o.DenseBackward, w.KernelEvals + o.KernelEvals, w.KernelMACs + o.KernelMACs}
}

// Minus returns w − o, count by count.
func (w Work) Minus(o Work) Work {
	return Work{w.ConvForward - o.ConvForward, w.ConvBackward - o.ConvBackward, w.DenseForward - o.DenseForward,
		w.DenseBackward - o.DenseBackward, w.KernelEvals - o.KernelEvals, w.KernelMACs - o.KernelMACs}
}

// counters is where a fit, or one job of its search, counts its work:
// the networks it builds count into net (nn.Net.CountInto), its solvers
// into kern through the context (kernel.NewContext), its heads' decision
// values into kern too (svm.Model.CountEvals).
type counters struct {
	net  nn.Tally
	kern kernel.Counter
}

// work returns what c has counted.
func (c *counters) work() Work {
	nw := c.net.Work()
	return Work{ConvForward: nw.ConvForward, ConvBackward: nw.ConvBackward, DenseForward: nw.DenseForward,
		DenseBackward: nw.DenseBackward, KernelEvals: c.kern.Evals(), KernelMACs: c.kern.MACs()}
}

type countersKey struct{}

// withCounters returns a copy of ctx that carries c (and c's kernel
// counter for the solvers).
func withCounters(ctx context.Context, c *counters) context.Context {
	return kernel.NewContext(context.WithValue(ctx, countersKey{}, c), &c.kern)
}

// countersFrom returns the counters ctx carries, or nil.
func countersFrom(ctx context.Context) *counters {
	c, _ := ctx.Value(countersKey{}).(*counters)
	return c
}

// countNet makes net count into the counters of ctx, if any.
func countNet(ctx context.Context, net *nn.Net) {
	if c := countersFrom(ctx); c != nil {
		net.CountInto(&c.net)
	}
}

// countModel makes m (its network and heads) count into c; nil stops it.
func countModel(m *model.Model, c *counters) {
	if m == nil {
		return
	}
	var t *nn.Tally
	var k *kernel.Counter
	if c != nil {
		t, k = &c.net, &c.kern
	}
	if m.Net != nil {
		m.Net.CountInto(t)
	}
	if m.Head != nil {
		m.Head.CountEvals(k)
	}
	for _, h := range m.Heads {
		h.CountEvals(k)
	}
}

// rssMB returns the resident memory of the process in MB (0 if unknown).
func rssMB() float64 { return float64(sysmem.RSS()) / (1 << 20) }

// peakRSSMB returns the peak resident memory of the process so far in MB
// (0 if unknown).
func peakRSSMB() float64 { return float64(sysmem.PeakRSS()) / (1 << 20) }
