package svm

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/nsvm-go/nsvm/data"
)

// ClassProblem is a multiclass training set on fixed features: N points of
// D features, row-major in X or as sparse rows in Sparse (X nil), with
// class indices Y[i] ∈ {0, …, C−1} and optional point weights W (as
// Problem.W: point i's bound in every head it enters is C·W[i], times its
// class weight). Solvers never modify it.
type ClassProblem struct {
	X      []float32
	Sparse *data.CSR
	N, D   int
	Y      []int
	C      int
	W      []float32
}

// vec returns point i, dense or sparse.
func (p ClassProblem) vec(i int) data.Vec { return pointVec(p.X, p.Sparse, p.D, i) }

// weight returns point i's cost multiplier.
func (p ClassProblem) weight(i int) float64 { return pointWeight(p.W, i) }

// rows returns the points (dense rows not copied; views of sparse ones).
func (p ClassProblem) rows() *rows { return pointRows(p.X, p.Sparse, p.N, p.D) }

// Validate reports whether the sizes agree, every class index is in
// 0 … C−1, every class occurs, every feature is finite and every weight a
// finite number ≥ 0.
func (p ClassProblem) Validate() error {
	if err := validRows(p.X, p.Sparse, p.N, p.D); err != nil {
		return err
	}
	return p.validLabels()
}

// validLabels reports whether every class index is in 0 … C−1, every
// class occurs and every weight is a finite number ≥ 0.
func (p ClassProblem) validLabels() error {
	if p.C < 2 {
		return fmt.Errorf("svm: need at least 2 classes, got %d", p.C)
	}
	if len(p.Y) != p.N {
		return fmt.Errorf("svm: len(Y) = %d does not fit N = %d", len(p.Y), p.N)
	}
	if err := validWeights(p.W, p.N); err != nil {
		return err
	}
	count := make([]int, p.C)
	for i, c := range p.Y {
		if c < 0 || c >= p.C {
			return fmt.Errorf("svm: class index %d of point %d is not in 0 … %d", c, i, p.C-1)
		}
		count[c]++
	}
	for c, n := range count {
		if n == 0 {
			return fmt.Errorf("svm: class %d has no points", c)
		}
	}
	return nil
}

// ClassProblem returns p as a two-class problem: class 0 for label +1,
// class 1 for label −1, so that the one-vs-one head (0, 1) of GridSMO and
// FitOneVsOne is oriented as SMO on p. The points and weights are shared,
// not copied.
func (p Problem) ClassProblem() ClassProblem {
	y := make([]int, len(p.Y))
	for i, v := range p.Y {
		if v < 0 {
			y[i] = 1
		}
	}
	return ClassProblem{X: p.X, Sparse: p.Sparse, N: p.N, D: p.D, Y: y, C: 2, W: p.W}
}

// Pair returns the binary problem of the one-vs-one head of classes a (+1)
// and b (−1): their points in p's order, rows and weights copied.
func (p ClassProblem) Pair(a, b int) Problem {
	idx, y := p.pairPoints(a, b)
	return p.subProblem(idx, y)
}

// pairPoints returns the indices of the points of classes a and b in p's
// order and their labels, +1 for a and −1 for b.
func (p ClassProblem) pairPoints(a, b int) (idx []int, y []float32) {
	for i, c := range p.Y {
		if c != a && c != b {
			continue
		}
		idx = append(idx, i)
		if c == a {
			y = append(y, 1)
		} else {
			y = append(y, -1)
		}
	}
	return idx, y
}

// subProblem returns the binary problem of the points idx of p with the
// labels y, rows and weights copied.
func (p ClassProblem) subProblem(idx []int, y []float32) Problem {
	sub := Problem{N: len(idx), D: p.D, Y: y}
	if p.Sparse != nil {
		sub.Sparse = csrRows(p.Sparse, idx)
	} else {
		sub.X = make([]float32, 0, len(idx)*p.D)
		for _, i := range idx {
			sub.X = append(sub.X, p.X[i*p.D:(i+1)*p.D]...)
		}
	}
	if p.W != nil {
		sub.W = make([]float32, len(idx))
		for q, i := range idx {
			sub.W[q] = p.W[i]
		}
	}
	return sub
}

// Fold is one split of a cross-validation: the indices of the points to
// train on and of those to validate on.
type Fold struct {
	Train, Validation []int
}

// foldsFromAssignment returns the k folds of the test-fold assignment
// fold[i] ∈ 0 … k−1, every index list in increasing order.
func foldsFromAssignment(fold []int, k int) []Fold {
	folds := make([]Fold, k)
	for i, f := range fold {
		for g := range folds {
			if g == f {
				folds[g].Validation = append(folds[g].Validation, i)
			} else {
				folds[g].Train = append(folds[g].Train, i)
			}
		}
	}
	return folds
}

// KFold splits the points 0 … n−1 into k folds of sizes differing by at
// most one (the first n mod k one larger), each the validation set of one
// Fold. Without rng the folds are consecutive blocks (scikit-learn's
// KFold(k)); with rng the points are permuted first.
func KFold(n, k int, rng *rand.Rand) ([]Fold, error) {
	if k < 2 || k > n {
		return nil, fmt.Errorf("svm: KFold: need 2 ≤ k ≤ n, got k = %d for n = %d", k, n)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if rng != nil {
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	fold := make([]int, n)
	pos := 0
	for f := 0; f < k; f++ {
		size := n / k
		if f < n%k {
			size++
		}
		for _, i := range order[pos : pos+size] {
			fold[i] = f
		}
		pos += size
	}
	return foldsFromAssignment(fold, k), nil
}

// StratifiedKFold splits the points of the class labels y into k folds that
// keep the class proportions: the points of each class are spread over the
// folds as evenly as possible (scikit-learn's StratifiedKFold, whose
// allocation it reproduces: the sorted labels dealt round-robin give each
// fold's count per class, and each class's points, in order, fill fold 0,
// then 1, …). With rng the fold sequence of each class is shuffled, as
// StratifiedKFold(shuffle=True) does. Labels may be any integers.
func StratifiedKFold(y []int, k int, rng *rand.Rand) ([]Fold, error) {
	n := len(y)
	if k < 2 || k > n {
		return nil, fmt.Errorf("svm: StratifiedKFold: need 2 ≤ k ≤ n, got k = %d for n = %d", k, n)
	}
	// Classes by order of first appearance.
	enc := map[int]int{}
	code := make([]int, n)
	for i, v := range y {
		c, ok := enc[v]
		if !ok {
			c = len(enc)
			enc[v] = c
		}
		code[i] = c
	}
	nc := len(enc)
	sorted := slices.Clone(code)
	slices.Sort(sorted)
	alloc := make([][]int, k) // alloc[f][c]: points of class c in fold f
	for f := range alloc {
		alloc[f] = make([]int, nc)
		for i := f; i < n; i += k {
			alloc[f][sorted[i]]++
		}
	}
	fold := make([]int, n)
	for c := 0; c < nc; c++ {
		var seq []int
		for f := 0; f < k; f++ {
			for range alloc[f][c] {
				seq = append(seq, f)
			}
		}
		if rng != nil {
			rng.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
		}
		q := 0
		for i, ci := range code {
			if ci == c {
				fold[i] = seq[q]
				q++
			}
		}
	}
	return foldsFromAssignment(fold, k), nil
}

// checkFolds reports whether every fold indexes points of 0 … n−1 and has
// a training and a validation set.
func checkFolds(folds []Fold, n int) error {
	if len(folds) == 0 {
		return fmt.Errorf("svm: no folds")
	}
	for f, fd := range folds {
		if len(fd.Train) < 2 || len(fd.Validation) == 0 {
			return fmt.Errorf("svm: fold %d: %d training and %d validation points", f, len(fd.Train), len(fd.Validation))
		}
		for _, set := range [][]int{fd.Train, fd.Validation} {
			for _, i := range set {
				if i < 0 || i >= n {
					return fmt.Errorf("svm: fold %d: point index %d out of range [0, %d)", f, i, n)
				}
			}
		}
	}
	return nil
}
