package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/nsvm-go/nsvm/model/onnx"
	"github.com/nsvm-go/nsvm/report"
)

// export is "nsvm export": a model in another program's format.
func (e *env) export(args []string) error {
	var modelPath, out, format string
	var opt onnx.Options
	fs := e.newFlags("export", "export --format libsvm|onnx --model M --out FILE")
	fs.StringVar(&modelPath, "model", "", "model `file` written by nsvm train, or a LIBSVM model file (required)")
	fs.StringVar(&out, "out", "", "output `file` (FILE.range beside it for svm-scale when the model scales its inputs, FILE.labels when its classes are names), - for stdout (required)")
	fs.StringVar(&format, "format", "libsvm", "output format: libsvm (a model file svm-predict reads) or onnx (a graph ONNX Runtime runs, with the model's scaling, columns and calibration)")
	fs.StringVar((*string)(&opt.Operators), "onnx-operators", "standard", "--format onnx: the SVM heads as standard operators, in float64 (standard), or as ai.onnx.ml's SVMClassifier and SVMRegressor, in float32 (ml)")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	switch {
	case modelPath == "" || out == "":
		return usagef("nsvm export: --model and --out are required")
	case format != "libsvm" && format != "onnx":
		return usagef("nsvm export: unknown --format %q (want libsvm or onnx)", format)
	case opt.Validate() != nil:
		return usagef("nsvm export: unknown --onnx-operators %q (want standard or ml)", opt.Operators)
	}
	if err := checkOutputs("export", []file{{"--out", out}}, []file{{"--model", modelPath}}); err != nil {
		return err
	}
	m, err := e.loadModel("export", modelPath)
	if err != nil {
		return err
	}
	if format == "onnx" {
		write := func(w io.Writer) error { return onnx.Write(w, m, &opt) }
		if out == "-" {
			return write(e.stdout)
		}
		return writeAtomicContext(e.ctx, out, write)
	}
	scale, names := m.NeedsSVMScale(), m.LabelNames != nil
	if out == "-" {
		if scale || names {
			return usagef("nsvm export: the model needs files beside its LIBSVM form (a range file for svm-scale, the class names); give --out a file name")
		}
		return m.WriteLIBSVM(e.stdout)
	}
	if err := writeAtomicContext(e.ctx, out, m.WriteLIBSVM); err != nil {
		return err
	}
	if scale {
		if err := writeAtomicContext(e.ctx, out+".range", m.WriteSVMScale); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "nsvm export: the model standardises its inputs: scale them first, svm-scale -r %s.range DATA > DATA.scaled, then svm-predict DATA.scaled %s\n", out, out)
	}
	if names {
		if err := writeAtomicContext(e.ctx, out+".labels", m.WriteLabelNames); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "nsvm export: the classes are names; %s uses their numbers, %s.labels names them (label, tab, name)\n", out, out)
	}
	return nil
}

// info is "nsvm info": what a model file holds.
func (e *env) info(args []string) error {
	var asJSON bool
	var path string
	fs := e.newFlags("info", "info [--json] MODEL (or --model MODEL)")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object on stdout")
	fs.StringVar(&path, "model", "", "the model `file` (or give it as the argument)")
	pos, err := e.parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if path == "" && len(pos) == 1 {
		path, pos = pos[0], nil
	}
	if path == "" || len(pos) > 0 {
		return usagef("nsvm info: give one model file (nsvm info [--json] MODEL)")
	}
	m, err := e.loadModel("info", path)
	if err != nil {
		return err
	}
	r := report.DescribeModel(m, path)
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(r)
	}
	r.WriteText(e.stdout)
	return nil
}
