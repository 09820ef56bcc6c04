package search

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/svm"
)

// subProblem is the training part of a fit: rows idx of d, scaled into x
// (or read from src, scaled as they are read).
type subProblem struct {
	d   *fitData
	idx []int
	x   []float32
	sp  *data.CSR // the rows when they are sparse (x nil)
	// src, when not nil, holds the rows instead of x (nil): they are the
	// rows idx of src (the caller's rows, d.x), scaled by sc as they are
	// read (gather), so that a network's training holds no scaled copy of
	// the data (see lazySubProblem).
	src        []float32
	n          int
	yMean, ySD float64 // regression: the targets' mean and standard deviation
	sc         scaler  // the scaling applied to x
}

// subProblem returns the rows train of d scaled by scaling (fitted on
// them), copied: the training part of a fit.
func (d *fitData) subProblem(scaling string, train []int) subProblem {
	return d.lazySubProblem(scaling, train).dense()
}

// lazySubProblem is subProblem with the rows left in d and scaled as they
// are read: for Algorithm 4, whose Part I reads a batch at a time and
// whose heads train on features, a scaled copy of the rows would only add
// memory as large as the data (two of them, as large as 60 000 images
// each, when two networks train at once). Other recipes, sparse rows and
// a stream's sample get a copy.
func (d *fitData) lazySubProblem(scaling string, train []int) subProblem {
	sp := subProblem{d: d, idx: train, n: len(train), sc: d.fitScaler(scaling, train)}
	if d.task == model.Regression {
		sp.yMean, sp.ySD = meanSD(d.y, train)
	}
	if d.x == nil || d.stream != nil {
		in := d.input(train)
		sp.sc.apply(in.x, d.d)
		sp.x, sp.sp = in.x, in.sp
		return sp
	}
	sp.src = d.x
	return sp
}

// gather writes the rows of s at the positions pos, scaled, into dst
// (len(pos)·D values).
func (s subProblem) gather(dst []float32, pos []int) {
	D := s.d.d
	for k, p := range pos {
		row := dst[k*D : (k+1)*D]
		if s.src == nil {
			copy(row, s.x[p*D:(p+1)*D])
			continue
		}
		i := s.idx[p]
		copy(row, s.src[i*D:(i+1)*D])
		s.sc.apply(row, D)
	}
}

// rawRows writes the rows of s at the positions pos as the caller gave
// them, unscaled, into dst (len(pos)·D values): rows held scaled in x are
// unscaled (up to rounding).
func (s subProblem) rawRows(dst []float32, pos []int) {
	D := s.d.d
	for k, p := range pos {
		row := dst[k*D : (k+1)*D]
		if s.src != nil {
			i := s.idx[p]
			copy(row, s.src[i*D:(i+1)*D])
			continue
		}
		copy(row, s.x[p*D:(p+1)*D])
		s.sc.unapply(row)
	}
}

// dense returns s with its rows in x: s itself unless its rows are read
// from src.
func (s subProblem) dense() subProblem {
	if s.src == nil {
		return s
	}
	x := make([]float32, s.n*s.d.d)
	s.gather(x, seq(s.n))
	s.x, s.src = x, nil
	return s
}

// part1Rows sets the rows of p to those of s: dense, sparse, or gathered
// and scaled a batch at a time.
func (s subProblem) part1Rows(p *paper.Part1) {
	p.X, p.Sparse, p.N, p.D = s.x, s.sp, s.n, s.d.d
	if s.src != nil {
		p.Rows = s.gather
	}
}

// binaryY returns ±1 labels (class 1 is +1) for a two-class problem.
func (s subProblem) binaryY() []float32 {
	y := make([]float32, s.n)
	for k, i := range s.idx {
		y[k] = -1
		if s.d.cls[i] == 1 {
			y[k] = 1
		}
	}
	return y
}

// classProblem returns the class-index problem on features z (n×D).
func (s subProblem) classProblem(z []float32, D int) paper.ClassProblem {
	y := make([]int, s.n)
	for k, i := range s.idx {
		y[k] = s.d.cls[i]
	}
	return paper.ClassProblem{ClassProblem: svm.ClassProblem{X: z, N: s.n, D: D, Y: y, C: s.d.nclass(), W: s.d.costs(s.idx)}, Labels: s.d.classes}
}

// problem returns the binary problem on features z (n×D), or on the sparse
// rows of s when z is nil.
func (s subProblem) problem(z []float32, D int) svm.Problem {
	p := svm.Problem{X: z, N: s.n, D: D, Y: s.binaryY(), W: s.d.costs(s.idx)}
	if z == nil {
		p.Sparse = s.sp
	}
	return p
}

// targets returns the standardised regression targets.
func (s subProblem) targets() []float64 {
	y := make([]float64, s.n)
	for k, i := range s.idx {
		y[k] = (s.d.y[i] - s.yMean) / s.ySD
	}
	return y
}

func meanSD(y []float64, idx []int) (mean, sd float64) {
	for _, i := range idx {
		mean += y[i]
	}
	mean /= float64(len(idx))
	for _, i := range idx {
		sd += (y[i] - mean) * (y[i] - mean)
	}
	sd = math.Sqrt(sd / float64(len(idx)))
	if !(sd > 0) || math.IsInf(sd, 0) {
		sd = 1
	}
	return mean, sd
}

// features returns F_Θ of the rows of s.
func features(net *nn.Net, s subProblem) []float32 {
	if s.src != nil {
		// Rows read from src: a block at a time (a network's features of
		// a row do not depend on the rows computed with it).
		return inBlocks(s, net.OutSize(), s.gather, net.Features)
	}
	z := make([]float32, s.n*net.OutSize())
	if s.sp != nil {
		net.FeaturesSparse(z, s.sp)
		return z
	}
	net.Features(z, s.x, s.n)
	return z
}

// inBlocks returns f (rows × out values) of the rows of s, which rows
// writes at the given positions, a block of at most lazyBlock rows at a
// time.
func inBlocks(s subProblem, out int, rows func(dst []float32, pos []int), f func(z, x []float32, n int)) []float32 {
	D := s.d.d
	z := make([]float32, s.n*out)
	blk := min(s.n, lazyBlock)
	buf := make([]float32, blk*D)
	pos := make([]int, blk)
	for lo := 0; lo < s.n; lo += blk {
		hi := min(s.n, lo+blk)
		for k := range hi - lo {
			pos[k] = lo + k
		}
		rows(buf[:(hi-lo)*D], pos[:hi-lo])
		f(z[lo*out:hi*out], buf[:(hi-lo)*D], hi-lo)
	}
	return z
}

// lazyBlock is how many rows features scales at once for rows read from
// src: 8192 images of 28×28 are 26 MB. A variable so that a test can make
// blocks of a few rows.
var lazyBlock = 8192

// holdout splits s into a part of (1 − frac) of its rows and a stratified
// part of frac (at least one row, and one row of every class that has two).
func (s subProblem) holdout(frac float64, rng *rand.Rand) (rest, held subProblem) {
	rp, hp := s.holdoutPos(frac, rng)
	return s.part(rp), s.part(hp)
}

// atMost returns s if it has at most rows rows, else a stratified sample of
// rows rows: the held part of holdout(rows/n) alone, the same rows for the
// same rng, without copying the rest (a sample's rest would be garbage as
// large as the data, which the collector may not reclaim for a long while).
func (s subProblem) atMost(rows int, rng *rand.Rand) subProblem {
	if s.n <= rows {
		return s
	}
	_, hp := s.holdoutPos(float64(rows)/float64(s.n), rng)
	return s.part(hp)
}

// splitInPlace is holdout without copying dense rows: it reorders the
// rows of s (x and idx together) so that the rest come first and the
// held-out rows last, both in their order in s, and returns the two parts
// as views of s. It needs memory for the held-out rows only; s's x must be
// its own (a subProblem's always is); s.idx is replaced, not reordered,
// since it may be shared. Parts drawn with the same rng hold the same rows,
// in the same order, as holdout's.
func (s *subProblem) splitInPlace(frac float64, rng *rand.Rand) (rest, held subProblem) {
	if s.sp != nil {
		return s.holdout(frac, rng)
	}
	rp, hp := s.holdoutPos(frac, rng)
	D, nr := s.d.d, len(rp)
	// Rows read from src have nothing to move but their indices.
	var hx []float32
	if s.x != nil {
		hx = s.part(hp).x
	}
	idx := make([]int, 0, s.n)
	for k, p := range rp {
		if s.x != nil {
			// rp is increasing, so row p moves to k ≤ p: forward copies are safe.
			copy(s.x[k*D:(k+1)*D], s.x[p*D:(p+1)*D])
		}
		idx = append(idx, s.idx[p])
	}
	for _, p := range hp {
		idx = append(idx, s.idx[p])
	}
	s.idx = idx
	rest, held = *s, *s
	rest.n, rest.idx = nr, s.idx[:nr:nr]
	held.n, held.idx = len(hp), s.idx[nr:]
	if s.x != nil {
		copy(s.x[nr*D:], hx)
		rest.x, held.x = s.x[:nr*D:nr*D], s.x[nr*D:]
	}
	return rest, held
}

// holdoutPos returns the positions in s of holdout's two parts, each
// increasing.
func (s subProblem) holdoutPos(frac float64, rng *rand.Rand) (rp, hp []int) {
	k := max(1, int(math.Round(frac*float64(s.n))))
	pos := make([]int, s.n)
	for i := range pos {
		pos[i] = i
	}
	var groups [][]int
	if s.d.task == model.Classification {
		groups = make([][]int, s.d.nclass())
		for p, i := range s.idx {
			groups[s.d.cls[i]] = append(groups[s.d.cls[i]], p)
		}
	} else {
		groups = [][]int{pos}
	}
	for _, g := range groups {
		rng.Shuffle(len(g), func(a, b int) { g[a], g[b] = g[b], g[a] })
		take := int(math.Round(float64(len(g)) * float64(k) / float64(s.n)))
		take = min(take, len(g)-1)
		if take < 1 && len(g) >= 2 {
			take = 1
		}
		take = max(take, 0)
		hp = append(hp, g[:take]...)
		rp = append(rp, g[take:]...)
	}
	slices.Sort(hp)
	slices.Sort(rp)
	return rp, hp
}

// part returns the rows of s at the positions pos.
func (s subProblem) part(pos []int) subProblem {
	D := s.d.d
	out := subProblem{d: s.d, n: len(pos), idx: make([]int, len(pos)), yMean: s.yMean, ySD: s.ySD, sc: s.sc, src: s.src}
	switch {
	case s.src != nil:
		// Rows read from src: their indices are all there is to copy.
	case s.sp != nil:
		out.sp = (&data.Dataset{Sparse: s.sp, N: s.n, D: D, Y: make([]float64, s.n)}).Subset(pos).Sparse
	default:
		out.x = make([]float32, len(pos)*D)
	}
	for k, p := range pos {
		out.idx[k] = s.idx[p]
		if out.x != nil {
			copy(out.x[k*D:(k+1)*D], s.x[p*D:(p+1)*D])
		}
	}
	return out
}

// seq returns 0, 1, …, n−1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
