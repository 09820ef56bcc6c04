// Command latency times one-row predictions of a model in Go, as the
// Python package's predict makes them (Model.Predictions of one row), so
// that bench/python can tell what the binding adds.
//
//	latency --model M --data ROWS.csv [--reps 20000]
//
// It prints one JSON object: the median and mean nanoseconds of a call.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "latency:", err)
		os.Exit(1)
	}
}

func run() error {
	model := flag.String("model", "", "model `file`")
	rows := flag.String("data", "", "CSV `file` of rows to predict, one at a time")
	reps := flag.Int("reps", 20000, "calls to time")
	flag.Parse()
	m, err := nsvm.Load(*model)
	if err != nil {
		return err
	}
	ds, err := data.Open(*rows, data.OpenOptions{CSV: data.CSVOptions{Columns: m.Columns}})
	if err != nil {
		return err
	}
	if ds.D != m.InSize() {
		return fmt.Errorf("%s has %d values a row, the model takes %d", *rows, ds.D, m.InSize())
	}
	ns := make([]float64, *reps)
	for i := range ns {
		x := ds.Row(i % ds.N)
		start := time.Now()
		m.Predictions(x, 1, false)
		ns[i] = float64(time.Since(start).Nanoseconds())
	}
	var sum float64
	for _, v := range ns {
		sum += v
	}
	slices.Sort(ns)
	return json.NewEncoder(os.Stdout).Encode(map[string]float64{"median_ns": ns[len(ns)/2], "mean_ns": sum / float64(len(ns))})
}
