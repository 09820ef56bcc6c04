package main

import (
	"bufio"
	"io"
	"strconv"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

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
		bw.WriteString(m.LabelName(pred[i]))
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatFloat(scores[i*nc+c], 'g', 8, 64))
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatFloat(prob[i*nc+c], 'g', 8, 64))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
