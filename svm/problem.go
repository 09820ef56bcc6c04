package svm

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
)

// Problem is a binary training set on fixed features: N points of D
// features, row-major in X or as sparse rows in Sparse (X nil), with labels
// Y in {−1, +1} and optional weights W. Solvers never modify it.
type Problem struct {
	X      []float32
	Sparse *data.CSR
	N, D   int
	Y      []float32
	// W, if not nil, scales each point's cost: point i's box constraint
	// (or loss weight) is C·W[i] — LIBSVM's per-class -wi and
	// scikit-learn's sample_weight alike. nil weighs every point 1.
	W []float32
}

// vec returns point i, dense or sparse.
func (p Problem) vec(i int) data.Vec { return pointVec(p.X, p.Sparse, p.D, i) }

// weight returns point i's cost multiplier.
func (p Problem) weight(i int) float64 { return pointWeight(p.W, i) }

// pointVec returns point i of the points x (n×d, dense) or sp (sparse,
// when not nil): what Problem, ClassProblem and RegProblem hold.
func pointVec(x []float32, sp *data.CSR, d, i int) data.Vec {
	if sp != nil {
		return sp.Row(i)
	}
	return data.Dense(x[i*d : (i+1)*d])
}

// pointWeight returns point i's cost multiplier under the weights w (nil:
// 1).
func pointWeight(w []float32, i int) float64 {
	if w == nil {
		return 1
	}
	return float64(w[i])
}

// Validate reports whether the sizes agree, every label is −1 or +1, both
// classes occur and every feature is finite.
func (p Problem) Validate() error {
	if err := validRows(p.X, p.Sparse, p.N, p.D); err != nil {
		return err
	}
	if err := validWeights(p.W, p.N); err != nil {
		return err
	}
	if len(p.Y) != p.N {
		return fmt.Errorf("svm: len(Y) = %d, want N = %d", len(p.Y), p.N)
	}
	var neg, pos int
	for i, y := range p.Y {
		switch y {
		case -1:
			neg++
		case 1:
			pos++
		default:
			return fmt.Errorf("svm: label %g of point %d is not −1 or +1", y, i)
		}
	}
	if neg == 0 || pos == 0 {
		return fmt.Errorf("svm: both classes must occur, got %d negative and %d positive points", neg, pos)
	}
	return nil
}

// validWeights reports whether the point weights w (nil: none) are n
// finite numbers ≥ 0.
func validWeights(w []float32, n int) error {
	if w == nil {
		return nil
	}
	if len(w) != n {
		return fmt.Errorf("svm: len(W) = %d, want N = %d", len(w), n)
	}
	for i, v := range w {
		if !(v >= 0) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("svm: weight %g of point %d is not a finite number ≥ 0", v, i)
		}
	}
	return nil
}

// validRows reports whether n points of d features, dense (x, row-major)
// or sparse (sp, with x nil), have the sizes they claim and finite
// features.
func validRows(x []float32, sp *data.CSR, n, d int) error {
	if n < 2 || d < 1 {
		return fmt.Errorf("svm: need at least 2 points of at least 1 feature, got N=%d, D=%d", n, d)
	}
	if sp != nil {
		if x != nil {
			return fmt.Errorf("svm: the problem has both dense and sparse rows")
		}
		ds := data.Dataset{Sparse: sp, N: n, D: d, Y: make([]float64, n)}
		if err := ds.Validate(); err != nil {
			return fmt.Errorf("svm: %v", strings.TrimPrefix(err.Error(), "data: "))
		}
		return nil
	}
	if len(x) != n*d {
		return fmt.Errorf("svm: len(X) = %d, want N·D = %d·%d", len(x), n, d)
	}
	for i, v := range x {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("svm: feature %d of point %d is %g", i%d, i/d, v)
		}
	}
	return nil
}

// row returns point i of a dense problem.
func (p Problem) row(i int) []float32 { return p.X[i*p.D : (i+1)*p.D] }

// needDense reports a sparse problem given to a solver that takes dense
// rows only.
func (p Problem) needDense(solver string) error {
	if p.Sparse != nil {
		return fmt.Errorf("svm: %s takes dense rows; the problem's rows are sparse", solver)
	}
	return nil
}

// Progress is a snapshot of a running solver, passed to a ProgressFunc.
type Progress struct {
	// Step counts iterations (Pegasos steps, SMO pair updates, epochs for
	// the epoch-based solvers, rounds for Chunking); Total is its limit, or
	// 0 if unknown.
	Step, Total int
	// NSV is the current number of support vectors (α_i > 0).
	NSV int
	// Objective is the solver's current objective where it is tracked
	// cheaply, else 0.
	Objective float64
	// Gap is the current KKT violation m(α) − M(α) for the dual solvers
	// (the stopping criterion), else 0.
	Gap     float64
	Elapsed time.Duration
}

// ProgressFunc receives progress reports; it is called from the solver's
// goroutine and should return quickly. A nil ProgressFunc is allowed.
type ProgressFunc func(Progress)

// ticker reports progress and polls the context every few iterations;
// stopped polls it at any step for the cost of a channel receive, so that
// loops whose every step is long (a kernel column of many rows) stop
// within one.
type ticker struct {
	ctx      context.Context
	done     <-chan struct{}
	progress ProgressFunc
	start    time.Time
}

func newTicker(ctx context.Context, progress ProgressFunc) ticker {
	return ticker{ctx: ctx, done: ctx.Done(), progress: progress, start: time.Now()}
}

// stopped reports whether the context is done.
func (t *ticker) stopped() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// stop is the error of a run stopped after step steps.
func (t *ticker) stop(step int) error {
	return fmt.Errorf("svm: stopped after %d steps: %w", step, t.ctx.Err())
}

// tick reports p and returns the context's error, if any.
func (t *ticker) tick(p Progress) error {
	if t.progress != nil {
		p.Elapsed = time.Since(t.start)
		t.progress(p)
	}
	if t.ctx.Err() != nil {
		return t.stop(p.Step)
	}
	return nil
}

// checkInputs validates the problem, that a kernel is given and the
// solver's configuration cfg, for a solver (named in the errors) that takes
// dense, unweighted rows.
func checkInputs(p Problem, k kernel.Kernel, cfg interface{ Validate() error }, solver string) error {
	if k == nil {
		return fmt.Errorf("svm: no kernel")
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if err := p.needDense(solver); err != nil {
		return err
	}
	if err := p.unweighted(solver); err != nil {
		return err
	}
	return cfg.Validate()
}

// steps runs step(t) for t = 1 … T, reporting Step t−1 of T with nsv()
// support vectors before every 1024th step and Step T after the last; it
// stops with the context's error. It drives the Pegasos solvers.
func (tk *ticker) steps(T int, nsv func() int, step func(t int)) error {
	for t := 1; t <= T; t++ {
		if t&1023 == 0 {
			if err := tk.tick(Progress{Step: t - 1, Total: T, NSV: nsv()}); err != nil {
				return err
			}
		}
		step(t)
	}
	return tk.tick(Progress{Step: T, Total: T, NSV: nsv()})
}

// pegasosDefaults returns λ (default 1e-4), the steps T (default 10·n)
// and the batch size (default 1) of a Pegasos run on n points, or an error
// naming solver if the batch exceeds them.
func pegasosDefaults(solver string, lambda float64, T, batch, n int) (float64, int, int, error) {
	lambda, T, batch = cmp.Or(lambda, 1e-4), cmp.Or(T, 10*n), cmp.Or(batch, 1)
	if batch > n {
		return 0, 0, 0, fmt.Errorf("svm: %s: batch %d exceeds the %d points", solver, batch, n)
	}
	return lambda, T, batch, nil
}

// pegasosInfo records in the Info of m, fitted by a Pegasos solver, the
// solver's name, λ, the steps, the batch size and the support vectors.
func pegasosInfo(m *Model, solver string, lambda float64, T, batch int) {
	m.Info["solver"] = solver
	m.Info["lambda"] = fmtF(lambda)
	m.Info["T"] = strconv.Itoa(T)
	m.Info["batch"] = strconv.Itoa(batch)
	m.Info["nsv"] = strconv.Itoa(m.NSV)
}

// unweighted reports weights given to a solver that does not take them.
func (p Problem) unweighted(solver string) error {
	if p.W != nil {
		return fmt.Errorf("svm: %s does not take point weights", solver)
	}
	return nil
}

func fmtF(v float64) string { return fmt.Sprintf("%.17g", v) }
