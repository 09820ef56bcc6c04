package model

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nsvm-go/nsvm/data"
)

// PredictionLayout is how Model.WritePredictions lays out a Prediction,
// one line a row. Its zero value is nsvm predict's default.
type PredictionLayout struct {
	// LIBSVM selects svm-predict's layout: the label alone (a regressor's
	// value); with Probabilities a first line "labels" and the classes,
	// then the most probable class and every class's probability a row, in
	// LIBSVM's order of the classes (svm-predict -b 1).
	LIBSVM bool
	// Decisions writes the label and every head's decision value (one-vs-one:
	// LIBSVM's pair order; one-vs-rest: the classes' order).
	Decisions bool
	// Probabilities adds every class's probability, in the order of the
	// model's Labels(), after the label and its decision value (binary) or
	// score (multiclass). The Prediction must hold probabilities.
	Probabilities bool
	// Header writes a first line naming the columns (not in the LIBSVM
	// layout, whose "labels" line is svm-predict's).
	Header bool
	// Kept are columns of the input carried through (data.Dataset.Kept),
	// written first in every row (not in the LIBSVM layout).
	Kept []data.KeptColumn
}

// Sep is the separator of the columns in layout l: a tab when the layout
// has a header or kept columns (a table, whose names and texts may hold
// spaces), else a space, as svm-predict writes.
func (l PredictionLayout) Sep() string {
	if !l.LIBSVM && (l.Header || len(l.Kept) > 0) {
		return "\t"
	}
	return " "
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
	order := m.libsvmOrder()
	if l.LIBSVM && l.Probabilities {
		bw.WriteString("labels")
		for _, c := range order {
			bw.WriteString(" " + m.LabelName(classes[c]))
		}
		bw.WriteByte('\n')
	}
	sep := l.Sep()
	if l.LIBSVM && len(l.Kept) > 0 {
		return errors.New("nsvm: svm-predict's layout has no place for kept columns")
	}
	for _, k := range l.Kept {
		if len(k.Values) != p.Rows {
			return fmt.Errorf("nsvm: kept column %s has %d values for %d rows", k.Name, len(k.Values), p.Rows)
		}
	}
	if l.Header && !l.LIBSVM {
		var names []string
		for _, k := range l.Kept {
			names = append(names, k.Name)
		}
		bw.WriteString(strings.Join(append(names, m.predictionColumns(l)...), sep) + "\n")
	}
	for i := 0; i < p.Rows; i++ {
		for _, k := range l.Kept {
			bw.WriteString(k.Values[i] + sep)
		}
		if l.LIBSVM && l.Probabilities {
			// svm-predict -b 1 predicts the most probable class, the first
			// in its order on ties.
			bw.WriteString(m.LabelName(classes[argmaxIn(p.Probabilities[i*nc:(i+1)*nc], order)]))
		} else {
			label(i)
		}
		switch {
		case l.LIBSVM:
			if l.Probabilities {
				for _, c := range order {
					bw.WriteByte(' ')
					num(p.Probabilities[i*nc+c], 8)
				}
			}
		case l.Decisions:
			for _, v := range p.Decisions[i*nh : (i+1)*nh] {
				bw.WriteString(sep)
				num(v, 8)
			}
		case m.Regression():
		default:
			bw.WriteString(sep)
			if m.Multiclass() {
				row := p.Scores[i*nc : (i+1)*nc]
				num(row[argmax(row)], 8)
			} else {
				num(p.Decisions[i], 8)
			}
			if l.Probabilities {
				for _, v := range p.Probabilities[i*nc : (i+1)*nc] {
					bw.WriteString(sep)
					num(v, 8)
				}
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// predictionColumns names the columns WritePredictions writes in layout l
// (not LIBSVM's).
func (m *Model) predictionColumns(l PredictionLayout) []string {
	if m.Regression() {
		return []string{"value"}
	}
	cols := []string{"label"}
	classes := m.Labels()
	switch {
	case l.Decisions && m.Multiclass() && m.Scheme == OneVsOne:
		for q := range m.NumHeads() {
			a, b := pairOf(q, len(classes))
			cols = append(cols, "decision("+m.LabelName(classes[a])+","+m.LabelName(classes[b])+")")
		}
		return cols
	case l.Decisions && m.Multiclass():
		for _, c := range classes {
			cols = append(cols, "decision("+m.LabelName(c)+")")
		}
		return cols
	case !m.Multiclass():
		cols = append(cols, "decision")
	case m.Scheme == OneVsOne:
		cols = append(cols, "votes")
	default:
		cols = append(cols, "score")
	}
	if l.Probabilities {
		for _, c := range classes {
			cols = append(cols, "p("+m.LabelName(c)+")")
		}
	}
	return cols
}
