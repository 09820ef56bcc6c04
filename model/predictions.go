package model

import (
	"bufio"
	"errors"
	"io"
	"strconv"
)

// PredictionLayout is how Model.WritePredictions lays out a Prediction,
// one line a row. Its zero value is nsvm predict's default.
type PredictionLayout struct {
	// LIBSVM selects svm-predict's layout: the label alone (a regressor's
	// value); with Probabilities a first line "labels" and the classes,
	// then the label and every class's probability a row (svm-predict -b 1).
	LIBSVM bool
	// Decisions writes the label and every head's decision value (one-vs-one:
	// LIBSVM's pair order; one-vs-rest: the classes' order).
	Decisions bool
	// Probabilities writes, for a binary model, the label, the decision
	// value and P(larger label | x); for a multiclass one the class, its
	// score and its probability. The Prediction must hold probabilities.
	Probabilities bool
}

// WritePredictions writes p, a prediction of m's, to w in the given layout,
// as nsvm predict prints it. Without Decisions or Probabilities a row is
// the label and the decision value (binary), the class and its score
// (multiclass: the head's decision for one-vs-rest, the votes for
// one-vs-one) or the predicted value (a regressor). Decisions take
// precedence over Probabilities outside the LIBSVM layout.
func (m *Model) WritePredictions(w io.Writer, p Prediction, l PredictionLayout) error {
	if l.Probabilities && p.Probabilities == nil {
		return errors.New("nsvm: the prediction holds no probabilities (a calibrated classifier's, asked for)")
	}
	bw := bufio.NewWriter(w)
	num := func(v float64, digits int) { bw.WriteString(strconv.FormatFloat(v, 'g', digits, 64)) }
	label := func(i int) {
		if m.Regression() {
			num(p.Labels[i], -1)
		} else {
			bw.WriteString(m.LabelName(p.Labels[i]))
		}
	}
	classes := m.Labels()
	nc, nh := len(classes), m.NumHeads()
	if l.LIBSVM && l.Probabilities {
		bw.WriteString("labels")
		for _, c := range classes {
			bw.WriteString(" " + m.LabelName(c))
		}
		bw.WriteByte('\n')
	}
	for i := 0; i < p.Rows; i++ {
		label(i)
		switch {
		case l.LIBSVM:
			if l.Probabilities {
				for _, v := range p.Probabilities[i*nc : (i+1)*nc] {
					bw.WriteByte(' ')
					num(v, 8)
				}
			}
		case l.Decisions:
			for _, v := range p.Decisions[i*nh : (i+1)*nh] {
				bw.WriteByte(' ')
				num(v, 8)
			}
		case l.Probabilities:
			c := 1 // binary: the column of Pos
			if m.Multiclass() {
				c = argmax(p.Scores[i*nc : (i+1)*nc])
			}
			bw.WriteByte(' ')
			num(p.Scores[i*nc+c], 8)
			bw.WriteByte(' ')
			num(p.Probabilities[i*nc+c], 8)
		case m.Regression():
		case m.Multiclass():
			row := p.Scores[i*nc : (i+1)*nc]
			bw.WriteByte(' ')
			num(row[argmax(row)], 8)
		default:
			bw.WriteByte(' ')
			num(p.Decisions[i], 8)
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
