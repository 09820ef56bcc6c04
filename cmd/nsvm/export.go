package main

import (
	"io"
)

// export is "nsvm export": a model in another program's format.
func (e *env) export(args []string) error {
	var model, out, format string
	fs := e.newFlags("export", "export --format libsvm --model M --out FILE")
	fs.StringVar(&model, "model", "", "model `file` written by nsvm train, or a LIBSVM model file (required)")
	fs.StringVar(&out, "out", "", "output `file`, - for stdout (required)")
	fs.StringVar(&format, "format", "libsvm", "output format: libsvm (a model file svm-predict reads)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	switch {
	case model == "" || out == "":
		return usagef("nsvm export: --model and --out are required")
	case format != "libsvm":
		return usagef("nsvm export: unknown --format %q (want libsvm)", format)
	}
	if err := checkOutputs("export", []file{{"--out", out}}, []file{{"--model", model}}); err != nil {
		return err
	}
	m, err := e.loadModel("export", model)
	if err != nil {
		return err
	}
	if out == "-" {
		return m.WriteLIBSVM(e.stdout)
	}
	return writeAtomicContext(e.ctx, out, func(w io.Writer) error { return m.WriteLIBSVM(w) })
}
