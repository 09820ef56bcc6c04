package main

import (
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/report"
)

// regressionResult is what "nsvm eval --json" prints for a regressor.
type regressionResult struct {
	RMSE float64 `json:"rmse"`
	MAE  float64 `json:"mae"`
	R2   float64 `json:"r2"`
	N    int     `json:"n"`
}

// evalRegression prints the scores of a regressor.
func (e *env) evalRegression(m *nsvm.Model, ds *data.Dataset, asJSON bool) error {
	sc, err := m.Evaluate(ds)
	if err != nil {
		return err
	}
	r := regressionResult{RMSE: sc.RMSE, MAE: sc.MAE, R2: sc.R2, N: sc.N}
	if asJSON {
		if math.IsInf(r.R2, 0) { // JSON has no infinities
			return json.NewEncoder(e.stdout).Encode(map[string]any{"rmse": r.RMSE, "mae": r.MAE, "r2": nil, "n": r.N})
		}
		return json.NewEncoder(e.stdout).Encode(r)
	}
	report.Evaluation(e.stdout, sc)
	return nil
}

// dataFriedman1 is "nsvm data friedman1": Friedman #1 regression data.
func (e *env) dataFriedman1(args []string) error {
	fs := e.newFlags("data friedman1", "data friedman1 --n N --seed S --out FILE [--noise 1] [--format libsvm|csv]")
	n := fs.Int("n", 2000, "number of points")
	seed := fs.Uint64("seed", 1, "random seed")
	noise := fs.Float64("noise", 1, "standard deviation of the Gaussian noise on the target")
	out := fs.String("out", "", "output `file` (required; - for stdout)")
	format := fs.String("format", "libsvm", "output format: libsvm or csv")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *n < 2 {
		return usagef("nsvm data friedman1: --n must be ≥ 2, got %d", *n)
	}
	if !(*noise >= 0) || math.IsInf(*noise, 0) {
		return usagef("nsvm data friedman1: --noise must be a finite number ≥ 0, got %g", *noise)
	}
	if *out == "" {
		return usagef("nsvm data friedman1: --out is required")
	}
	var write func(io.Writer, *data.Dataset) error
	switch *format {
	case "libsvm":
		write = data.WriteLIBSVM
	case "csv":
		write = func(w io.Writer, d *data.Dataset) error { return data.WriteCSV(w, d, true) }
	default:
		return usagef("nsvm data friedman1: unknown --format %q (want libsvm or csv)", *format)
	}
	ds := data.Friedman1(*n, *noise, rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15)))
	if *out == "-" {
		return write(e.stdout, ds)
	}
	return writeAtomicContext(e.ctx, *out, func(w io.Writer) error { return write(w, ds) })
}
