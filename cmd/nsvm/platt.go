package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

// probabilitySplit holds out the fraction f.holdout of every class of ds
// for the Platt calibration of --probability (at least one point of each
// class, and at least one left for training). It returns ds and nil when
// --probability is off.
func probabilitySplit(f *trainFlags, ds *data.Dataset) (train, cal *data.Dataset, err error) {
	if !f.probability {
		return ds, nil, nil
	}
	if !(f.holdout > 0 && f.holdout < 1) {
		return nil, nil, usagef("nsvm train: --probability-holdout must be in (0, 1), got %g", f.holdout)
	}
	if f.multiclass == "ovo" && len(ds.Classes()) > 2 {
		return nil, nil, usagef("nsvm train: --probability needs one-vs-rest heads (--multiclass ovr)")
	}
	rng := rand.New(rand.NewPCG(f.seed, 0x9a77))
	var keep, held []int
	for _, c := range ds.Classes() {
		var idx []int
		for i, y := range ds.Y {
			if y == c {
				idx = append(idx, i)
			}
		}
		if len(idx) < 2 {
			return nil, nil, fmt.Errorf("nsvm train: --probability: class %g has %d point(s); it needs one to train on and one to calibrate with", c, len(idx))
		}
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		n := min(len(idx)-1, max(1, int(math.Round(f.holdout*float64(len(idx))))))
		held = append(held, idx[:n]...)
		keep = append(keep, idx[n:]...)
	}
	slices.Sort(keep)
	slices.Sort(held)
	return ds.Subset(keep), ds.Subset(held), nil
}

// predictProbability writes "label value probability" per row: for a
// binary model the label, the decision value and P(larger label | x); for
// a multiclass one the class, its score and its probability.
func predictProbability(m *nsvm.Model, ds *data.Dataset, w io.Writer) error {
	cls := m.Labels()
	nc := len(cls)
	prob := make([]float64, ds.N*nc)
	m.Probabilities(prob, ds.X, ds.N)
	scores := make([]float64, ds.N*nc)
	m.ClassScores(scores, ds.X, ds.N)
	pred := make([]float64, ds.N)
	m.PredictBatch(pred, ds.X, ds.N)
	bw := bufio.NewWriter(w)
	for i := 0; i < ds.N; i++ {
		c := 1 // binary: the column of Pos
		if m.Multiclass() {
			c = argmaxFirst(scores[i*nc : (i+1)*nc])
		}
		bw.WriteString(strconv.FormatFloat(pred[i], 'g', -1, 64))
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatFloat(scores[i*nc+c], 'g', 8, 64))
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatFloat(prob[i*nc+c], 'g', 8, 64))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
