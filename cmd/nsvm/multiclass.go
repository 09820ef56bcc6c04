package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// multiclassProblem returns the class-index form of ds when it has more
// than two classes, and nil when it has two or fewer (the binary path
// reports those cases). Labels must be integers; the algorithms that are
// binary by construction (nsvm1–nsvm3) are refused.
func multiclassProblem(f *trainFlags, ds *data.Dataset) (*nsvm.ClassProblem, error) {
	cls := ds.Classes()
	if len(cls) <= 2 {
		return nil, nil
	}
	for _, c := range cls {
		if c != math.Trunc(c) {
			return nil, fmt.Errorf("nsvm train: label %v is not an integer; a classifier needs integral class labels", c)
		}
	}
	switch f.algo {
	case "nsvm1", "nsvm2", "nsvm3":
		return nil, fmt.Errorf("nsvm train: --algo %s is a binary algorithm and the data has %d classes; use nsvm4 (multiclass NSVM) or a classical solver", f.algo, len(cls))
	}
	return classProblem(ds, cls), nil
}

// classProblem maps the labels of ds to the indices of cls (sorted labels).
func classProblem(ds *data.Dataset, cls []float64) *nsvm.ClassProblem {
	p := &nsvm.ClassProblem{X: ds.X, N: ds.N, D: ds.D, Y: make([]int, ds.N), C: len(cls), Labels: cls}
	for i, v := range ds.Y {
		p.Y[i], _ = slices.BinarySearch(cls, v)
	}
	return p
}

// trainAlg4 runs Algorithm 4, the multiclass variant when the data has more
// than two classes.
func (e *env) trainAlg4(f *trainFlags, net *nn.Net, x []float32, p nsvm.Problem, cfg nsvm.Alg4Config, o nsvm.Options) (*nsvm.Model, error) {
	if f.multi == nil {
		return nsvm.TrainAlg4(e.ctx, net, p, cfg, o)
	}
	mp := *f.multi
	mp.X = x
	return nsvm.TrainMulticlass(e.ctx, net, mp, nsvm.MulticlassConfig{Alg4Config: cfg, Scheme: f.multiclass}, o)
}

// fitClassicalHeads fits one classical SVM per class (or pair of classes)
// on the (standardised) inputs x.
func (e *env) fitClassicalHeads(f *trainFlags, x []float32, fit nsvm.HeadFitter, progress nsvm.ProgressFunc) (*nsvm.Model, error) {
	mp := *f.multi
	mp.X = x
	heads, err := nsvm.FitHeads(e.ctx, mp, f.multiclass, 0, f.seed,
		func(ctx context.Context, p svm.Problem, rng *rand.Rand, _ svm.ProgressFunc) (*svm.Model, error) {
			return fit(ctx, p, rng, nil)
		}, progress)
	if err != nil {
		return nil, err
	}
	m := &nsvm.Model{Algorithm: f.algo, Info: map[string]string{}}
	for k, v := range heads[0].Info {
		switch k {
		case "solver", "lambda", "T", "batch", "C", "eps", "epochs", "bias", "chunk":
			m.Info[k] = v
		}
	}
	m.SetHeads(mp.Labels, f.multiclass, heads)
	return m, nil
}

// numSV returns the number of support vectors over all heads.
func numSV(m *nsvm.Model) int {
	if !m.Multiclass() {
		return m.Head.NSV
	}
	n := 0
	for _, h := range m.Heads {
		n += h.NSV
	}
	return n
}

// predictMulticlass writes "label score" per row: the predicted class and
// its score (the head's decision value for one-vs-rest, the number of votes
// for one-vs-one).
func predictMulticlass(m *nsvm.Model, ds *data.Dataset, w io.Writer) error {
	nc := len(m.Classes)
	scores := make([]float64, ds.N*nc)
	m.ClassScores(scores, ds.X, ds.N)
	bw := bufio.NewWriter(w)
	for i := 0; i < ds.N; i++ {
		row := scores[i*nc : (i+1)*nc]
		c := argmaxFirst(row)
		bw.WriteString(strconv.FormatFloat(m.Classes[c], 'g', -1, 64))
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatFloat(row[c], 'g', 8, 64))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// argmaxFirst returns the index of the first largest value, the rule of
// nsvm.Model.PredictBatch.
func argmaxFirst(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// evaluateMulticlass is evaluate for a multiclass model.
func evaluateMulticlass(m *nsvm.Model, ds *data.Dataset) (evalResult, error) {
	nc := len(m.Classes)
	r := evalResult{N: ds.N, Labels: m.Classes, Confusion: make([][]int, nc)}
	for i := range r.Confusion {
		r.Confusion[i] = make([]int, nc)
	}
	pred := make([]float64, ds.N)
	m.PredictBatch(pred, ds.X, ds.N)
	for i, y := range ds.Y {
		truth, ok := slices.BinarySearch(m.Classes, y)
		if !ok {
			return r, fmt.Errorf("nsvm eval: row %d has label %g, which is not one of the model's %d classes", i+1, y, nc)
		}
		p, _ := slices.BinarySearch(m.Classes, pred[i])
		r.Confusion[truth][p]++
		if p != truth {
			r.Errors++
		}
	}
	r.Accuracy = float64(ds.N-r.Errors) / float64(ds.N)
	return r, nil
}

// printConfusion prints the confusion matrix of r (rows: true class,
// columns: predicted), one column per class.
func printConfusion(w io.Writer, r evalResult) {
	fmt.Fprintf(w, "confusion (rows: true, columns: predicted)\n%12s", "")
	for _, l := range r.Labels {
		fmt.Fprintf(w, " %10g", l)
	}
	fmt.Fprintln(w)
	for i, row := range r.Confusion {
		fmt.Fprintf(w, "%12g", r.Labels[i])
		for _, v := range row {
			fmt.Fprintf(w, " %10d", v)
		}
		fmt.Fprintln(w)
	}
}
