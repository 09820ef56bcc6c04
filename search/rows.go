package search

import (
	"fmt"
	"math/rand/v2"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/model"
)

// rows is a block of n model inputs: dense (x, row-major n×D) or sparse
// (sp). It is the one form in which Fit hands rows to models, so that the
// search, the heads and prediction are not written twice.
type rows struct {
	x  []float32
	sp *data.CSR
	n  int
}

// denseRows wraps n dense rows.
func denseRows(x []float32, n int) rows { return rows{x: x, n: n} }

// input returns the rows idx of d as model inputs (copies).
func (d *fitData) input(idx []int) rows {
	if d.sp != nil {
		return rows{sp: d.sparseRows(idx), n: len(idx)}
	}
	return rows{x: d.rows(idx), n: len(idx)}
}

// sparseRows copies the sparse rows idx.
func (d *fitData) sparseRows(idx []int) *data.CSR {
	ds := data.Dataset{Sparse: d.sp, N: d.n, D: d.d, Y: make([]float64, d.n)}
	return ds.Subset(idx).Sparse
}

// predict returns m's prediction on the rows.
func (r rows) predict(m *model.Model, probabilities bool) model.Prediction {
	p, err := m.PredictDataset(&data.Dataset{X: r.x, Sparse: r.sp, N: r.n, D: m.InSize()}, probabilities)
	if err != nil {
		panic(err) // the rows are the model's inputs
	}
	return p
}

func seedPCG(seed uint64) *rand.PCG { return rand.NewPCG(seed, seed^0x9e3779b97f4a7c15) }

func nonFinite(x []float32) bool { return vec.HasNaNInf(x) }

func errf(format string, args ...any) error { return fmt.Errorf("nsvm: "+format, args...) }

func errNonFinite(alg, t int, what string) error {
	return fmt.Errorf("nsvm: algorithm %d: %s is not finite at step %d (learning rate too large?)", alg, what, t)
}
