package main

import (
	"bufio"
	"io"
	"strconv"

	"github.com/nsvm-go/nsvm"
)

// predictProbability writes "label value probability" per row: for a
// binary model the label, the decision value and P(larger label | x); for
// a multiclass one the class, its score and its probability.
func predictProbability(m *nsvm.Model, p nsvm.Prediction, w io.Writer) error {
	nc := len(m.Labels())
	prob, scores, pred := p.Probabilities, p.Scores, p.Labels
	bw := bufio.NewWriter(w)
	for i := 0; i < p.Rows; i++ {
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
