package lecture

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

// check reports a missing kernel, an invalid problem, sparse rows or point
// weights (the lecture's solvers take neither) and an invalid cfg, naming
// the solver.
func check(p svm.Problem, k kernel.Kernel, cfg interface{ Validate() error }, solver string) error {
	switch {
	case k == nil:
		return fmt.Errorf("lecture: %s: no kernel", solver)
	case p.Sparse != nil:
		return fmt.Errorf("lecture: %s takes dense rows; the problem's rows are sparse", solver)
	case p.W != nil:
		return fmt.Errorf("lecture: %s takes no point weights", solver)
	}
	if err := p.Validate(); err != nil {
		return err
	}
	return cfg.Validate()
}

// epochs runs at most max epochs of an online solver over n points. Each
// epoch shuffles the order of the points with rng (the previous epoch's
// order, as begin left it), hands it to begin, calls visit for each point
// in it, checking ctx every 1024 points, and ends with end, which returns
// the epoch's Progress (its Step, Total and Elapsed are set here) and
// whether training is done. It returns the number of epochs run.
func epochs(ctx context.Context, solver string, n, max int, rng *rand.Rand, progress svm.ProgressFunc,
	begin func(order []int), visit func(i int), end func() (svm.Progress, bool)) (int, error) {
	start := time.Now()
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	epoch := 0
	for epoch < max {
		rng.Shuffle(n, func(a, b int) { order[a], order[b] = order[b], order[a] })
		begin(order)
		for q, i := range order {
			if q&1023 == 1023 && ctx.Err() != nil {
				return 0, fmt.Errorf("lecture: %s stopped in epoch %d: %w", solver, epoch+1, ctx.Err())
			}
			visit(i)
		}
		epoch++
		pr, done := end()
		if progress != nil {
			pr.Step, pr.Total, pr.Elapsed = epoch, max, time.Since(start)
			progress(pr)
		}
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("lecture: %s stopped after %d epochs: %w", solver, epoch, err)
		}
		if done {
			break
		}
	}
	return epoch, nil
}

// row returns point i of p's dense rows.
func row(p svm.Problem, i int) []float32 { return p.X[i*p.D : (i+1)*p.D] }

// fmtF formats a number with every digit a float64 needs, as package svm
// writes Info.
func fmtF(v float64) string { return fmt.Sprintf("%.17g", v) }
