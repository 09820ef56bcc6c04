package main

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/nsvm-go/nsvm/data"
)

const dataUsage = `data ringnorm --n N --seed S --out FILE [--format libsvm|csv]
       nsvm data friedman1 --n N --seed S --out FILE [--noise 1] [--format libsvm|csv]
       nsvm data mnist --dir DIR`

func (e *env) data(args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, "Usage: nsvm "+dataUsage)
		return usagef("nsvm data: say ringnorm, friedman1 or mnist")
	}
	switch args[0] {
	case "ringnorm":
		return e.dataRingnorm(args[1:])
	case "friedman1":
		return e.dataFriedman1(args[1:])
	case "mnist":
		return e.dataMNIST(args[1:])
	case "-h", "--help", "help":
		fmt.Fprintln(e.stdout, "Usage: nsvm "+dataUsage)
		return nil
	}
	return usagef("nsvm data: unknown data set %q (want ringnorm, friedman1 or mnist)", args[0])
}

func (e *env) dataRingnorm(args []string) error {
	fs := e.newFlags("data ringnorm", "data ringnorm --n N --seed S --out FILE [--format libsvm|csv]")
	n := fs.Int("n", 7400, "number of points")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("out", "", "output `file` (required; - for stdout)")
	format := fs.String("format", "libsvm", "output format: libsvm or csv")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *n < 2 {
		return usagef("nsvm data ringnorm: --n must be ≥ 2, got %d", *n)
	}
	if *out == "" {
		return usagef("nsvm data ringnorm: --out is required")
	}
	var write func(io.Writer, *data.Dataset) error
	switch *format {
	case "libsvm":
		write = data.WriteLIBSVM
	case "csv":
		write = func(w io.Writer, d *data.Dataset) error { return data.WriteCSV(w, d, true) }
	default:
		return usagef("nsvm data ringnorm: unknown --format %q (want libsvm or csv)", *format)
	}
	ds := data.Ringnorm(*n, rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15)))
	if *out == "-" {
		return write(e.stdout, ds)
	}
	return writeAtomic(*out, func(w io.Writer) error { return write(w, ds) })
}

func (e *env) dataMNIST(args []string) error {
	fs := e.newFlags("data mnist", "data mnist --dir DIR")
	dir := fs.String("dir", "", "directory for the four MNIST IDX files (required)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("nsvm data mnist: --dir is required")
	}
	if err := data.FetchMNIST(e.ctx, *dir); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "MNIST IDX files verified in %s\n", *dir)
	return nil
}
