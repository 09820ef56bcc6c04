package main

/*
#include <stdlib.h>
#include "nsvm.h"

int32_t nsvm_call_progress(nsvm_progress_fn f, void *user, const char *json, int64_t len);
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/cgo"
	"runtime/debug"
	"unsafe"

	"github.com/nsvm-go/nsvm"
)

func main() {}

// abiVersion is nsvm_abi_version's answer; it changes with any change of a
// function's signature or of nsvm.h's types.
const abiVersion = 2

// Status codes: nsvm.h's NSVM_OK …
const (
	statusOK       = 0
	statusData     = 1
	statusConfig   = 2
	statusCanceled = 3
	statusFailed   = 4
	statusInternal = 5
	statusMemory   = 6
)

// The Go constants must equal nsvm.h's: an array of a negative or nonzero
// length does not compile.
var (
	_ [C.NSVM_OK - statusOK]struct{}
	_ [C.NSVM_ERR_DATA - statusData]struct{}
	_ [C.NSVM_ERR_CONFIG - statusConfig]struct{}
	_ [C.NSVM_ERR_CANCELED - statusCanceled]struct{}
	_ [C.NSVM_ERR_FAILED - statusFailed]struct{}
	_ [C.NSVM_ERR_INTERNAL - statusInternal]struct{}
	_ [C.NSVM_ERR_MEMORY - statusMemory]struct{}
	_ [C.NSVM_DENSE - kindDense]struct{}
	_ [C.NSVM_CSR - kindCSR]struct{}
	_ [C.NSVM_CSV - kindCSV]struct{}
	_ [C.NSVM_F32 - typeF32]struct{}
	_ [C.NSVM_F64 - typeF64]struct{}
	_ [C.NSVM_I32 - typeI32]struct{}
	_ [C.NSVM_I64 - typeI64]struct{}
)

// statusOf returns the status code of an error.
func statusOf(err error) C.nsvm_status {
	switch {
	case err == nil:
		return statusOK
	case errors.Is(err, nsvm.ErrMemory):
		return statusMemory
	case errors.Is(err, nsvm.ErrBadData):
		return statusData
	case errors.Is(err, nsvm.ErrBadConfig):
		return statusConfig
	case errors.Is(err, context.Canceled):
		return statusCanceled
	}
	return statusFailed
}

// fail sets *errOut (when not NULL) to err's message and returns its status.
func fail(err error, errOut **C.char) C.nsvm_status {
	if errOut != nil {
		*errOut = C.CString(err.Error())
	}
	return statusOf(err)
}

// guard turns a panic of an exported function into NSVM_ERR_INTERNAL and a
// message; it is deferred first by each of them.
func guard(status *C.nsvm_status, errOut **C.char) {
	r := recover()
	if r == nil {
		return
	}
	*status = statusInternal
	if errOut != nil {
		*errOut = C.CString(fmt.Sprintf("nsvm: internal error: %v\n%s", r, debug.Stack()))
	}
}

// modelOf returns the model of a handle; an invalid handle panics, which
// guard reports.
func modelOf(h C.nsvm_model) *nsvm.Model {
	if h == 0 {
		panic("no model (handle 0)")
	}
	return cgo.Handle(h).Value().(*nsvm.Model)
}

// newHandle returns a handle on m for the caller.
func newHandle(m *nsvm.Model) C.nsvm_model { return C.nsvm_model(cgo.NewHandle(m)) }

// goInput translates an nsvm_input.
func goInput(x *C.nsvm_input) (*input, error) {
	if x == nil {
		return nil, badData("no input")
	}
	return &input{kind: int(x.kind), dtype: int(x.dtype), fortran: x.fortran != 0, indexType: int(x.index_dtype),
		rows: int(x.rows), cols: int(x.cols), values: unsafe.Pointer(x.values), indptr: unsafe.Pointer(x.indptr),
		indices: unsafe.Pointer(x.indices), nnz: int(x.nnz), fillMissing: x.fill_missing != 0}, nil
}

// float64s views n doubles of the caller's (nil for NULL).
func float64s(p *C.double, n int) []float64 {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(p)), n)
}

// nsvm_abi_version returns the version of the ABI the library implements,
// for a binding to check that it was written for it.
//
//export nsvm_abi_version
func nsvm_abi_version() C.int32_t { return abiVersion }

// nsvm_fit trains a model on the rows x with one label per row in y: a
// class label, or with names (n_names NUL-terminated strings in increasing
// byte order) the index of the row's class name; a regression target for
// regression. w (NULL: none) holds a sample weight per row. config is the
// JSON configuration (NULL or "{}": nsvm train's defaults). progress
// (NULL: none) receives reports with user; stop (NULL: none) is read while
// the fit runs, and a nonzero value stops it. On success *model is set;
// *warning (when not NULL) is set to a message the caller frees when the
// model learned nothing (the model is returned all the same).
//
//export nsvm_fit
func nsvm_fit(x *C.nsvm_input, y *C.double, names **C.char, nNames C.int64_t, w *C.double, config *C.char,
	progress C.nsvm_progress_fn, user unsafe.Pointer, stop *C.int32_t,
	model *C.nsvm_model, warning **C.char, errOut **C.char) (status C.nsvm_status) {
	defer guard(&status, errOut)
	a, err := goFitArgs(x, y, names, nNames, w, config, progress, user, stop, model != nil)
	if err != nil {
		return fail(err, errOut)
	}
	m, warn, err := fit(a)
	if err != nil {
		return fail(err, errOut)
	}
	if warn != "" && warning != nil {
		*warning = C.CString(warn)
	}
	*model = newHandle(m)
	return statusOK
}

// nsvm_predict predicts the rows x with model into the caller's buffers
// (NULL: not wanted): labels (rows values: the class label, for named
// labels the index of the name, or the predicted value of a regressor),
// decisions (rows × heads), scores and probabilities (rows × classes).
// Many threads may predict with one model at once.
//
//export nsvm_predict
func nsvm_predict(model C.nsvm_model, x *C.nsvm_input, labels, decisions, scores, probabilities *C.double,
	errOut **C.char) (status C.nsvm_status) {
	defer guard(&status, errOut)
	m := modelOf(model)
	in, err := goInput(x)
	if err != nil {
		return fail(err, errOut)
	}
	nl, nd, nc := outputSizes(m, in.rows)
	out := outputs{labels: float64s(labels, nl), decisions: float64s(decisions, nd),
		scores: float64s(scores, nc), probabilities: float64s(probabilities, nc)}
	if err := predict(m, in, out); err != nil {
		return fail(err, errOut)
	}
	return statusOK
}

// nsvm_model_info sets *json to a description of the model (a
// NUL-terminated string the caller frees): task, classes, label names,
// inputs, CSV columns, heads, calibration, support vectors, metadata and
// the selection's candidates with their scores and times.
//
//export nsvm_model_info
func nsvm_model_info(model C.nsvm_model, json **C.char, errOut **C.char) (status C.nsvm_status) {
	defer guard(&status, errOut)
	b, err := modelInfo(modelOf(model))
	if err != nil {
		return fail(err, errOut)
	}
	*json = C.CString(string(b))
	return statusOK
}

// nsvm_model_bytes sets *buf and *len to the model's file, the bytes
// nsvm_model_save and nsvm train write (the caller frees *buf).
//
//export nsvm_model_bytes
func nsvm_model_bytes(model C.nsvm_model, buf **C.char, n *C.int64_t, errOut **C.char) (status C.nsvm_status) {
	defer guard(&status, errOut)
	b, err := modelBytes(modelOf(model))
	if err != nil {
		return fail(err, errOut)
	}
	*buf = (*C.char)(C.CBytes(b))
	*n = C.int64_t(len(b))
	return statusOK
}

// nsvm_model_read reads a model from the n bytes at buf: an nsvm model
// file or svm-train's.
//
//export nsvm_model_read
func nsvm_model_read(buf *C.char, n C.int64_t, model *C.nsvm_model, errOut **C.char) (status C.nsvm_status) {
	defer guard(&status, errOut)
	if n < 0 || buf == nil && n > 0 {
		return fail(badData("%d bytes of model", n), errOut)
	}
	var b []byte
	if n > 0 {
		b = C.GoBytes(unsafe.Pointer(buf), C.int(min(n, math.MaxInt32)))
		if int64(len(b)) != int64(n) {
			return fail(badData("a model of %d bytes is too large", n), errOut)
		}
	}
	m, err := readModel(b)
	if err != nil {
		return fail(err, errOut)
	}
	*model = newHandle(m)
	return statusOK
}

// nsvm_model_save writes the model to the file path as nsvm train does
// (through a temporary file and a rename: never a partial file).
//
//export nsvm_model_save
func nsvm_model_save(model C.nsvm_model, path *C.char, errOut **C.char) (status C.nsvm_status) {
	defer guard(&status, errOut)
	if path == nil {
		return fail(badConfig("no path"), errOut)
	}
	if err := modelOf(model).Save(C.GoString(path)); err != nil {
		return fail(err, errOut)
	}
	return statusOK
}

// nsvm_model_free releases a model handle; the handle must not be used
// after it.
//
//export nsvm_model_free
func nsvm_model_free(model C.nsvm_model, errOut **C.char) (status C.nsvm_status) {
	defer guard(&status, errOut)
	modelOf(model)
	cgo.Handle(model).Delete()
	return statusOK
}

// nsvm_free frees a string or buffer the library returned.
//
//export nsvm_free
func nsvm_free(p unsafe.Pointer) { C.free(p) }

// nsvm_model_export_onnx writes the model to the file path as an ONNX
// graph, as nsvm export --format onnx does (through a temporary file and a
// rename). operators (NULL or "": "standard") chooses the operators of the
// SVM heads: "standard" or "ml" (ai.onnx.ml's). A model ONNX cannot hold
// (a precomputed kernel) fails with NSVM_ERR_FAILED and a message.
//
//export nsvm_model_export_onnx
func nsvm_model_export_onnx(model C.nsvm_model, path, operators *C.char, errOut **C.char) (status C.nsvm_status) {
	defer guard(&status, errOut)
	if path == nil {
		return fail(badConfig("no path"), errOut)
	}
	ops := ""
	if operators != nil {
		ops = C.GoString(operators)
	}
	if err := exportONNX(modelOf(model), C.GoString(path), ops); err != nil {
		return fail(err, errOut)
	}
	return statusOK
}

// nsvm_config_params sets *json to the training parameters nsvm_fit's
// configuration takes, a JSON array in the order of search.Params (a
// NUL-terminated string the caller frees): each parameter's field, key,
// Python name, kind, values, task, default and doc.
//
//export nsvm_config_params
func nsvm_config_params(json **C.char, errOut **C.char) (status C.nsvm_status) {
	defer guard(&status, errOut)
	b, err := configParams()
	if err != nil {
		return fail(err, errOut)
	}
	*json = C.CString(string(b))
	return statusOK
}

// nsvm_continue trains model on from the rows x with one label per row in
// y (as nsvm_fit takes them: class labels, or with names the index of the
// row's class name among names; regression targets), sample weights w
// (NULL: none) and a JSON configuration (NULL or "{}": continue as the
// model's training chose; keys budget, maintenance, lambda, epochs,
// window, seed, feature_names), and sets *out to the continued model; model
// is not changed. The rows must have the model's columns and classes.
// progress, user, stop and *warning are nsvm_fit's.
//
//export nsvm_continue
func nsvm_continue(model C.nsvm_model, x *C.nsvm_input, y *C.double, names **C.char, nNames C.int64_t, w *C.double,
	config *C.char, progress C.nsvm_progress_fn, user unsafe.Pointer, stop *C.int32_t,
	out *C.nsvm_model, warning **C.char, errOut **C.char) (status C.nsvm_status) {
	defer guard(&status, errOut)
	m := modelOf(model)
	a, err := goFitArgs(x, y, names, nNames, w, config, progress, user, stop, out != nil)
	if err != nil {
		return fail(err, errOut)
	}
	cm, warn, err := continueFit(m, a)
	if err != nil {
		return fail(err, errOut)
	}
	if warn != "" && warning != nil {
		*warning = C.CString(warn)
	}
	*out = newHandle(cm)
	return statusOK
}

// init sets the collector's target heap growth as the nsvm command does
// (GOGC 25 unless the environment sets it): the library's heap is mostly
// large arrays of numbers, and a continued model is copied on every
// nsvm_continue, so collecting at 100 % growth doubles a stream's peak
// memory for little time saved.
func init() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(25)
	}
}

// goFitArgs converts nsvm_fit's and nsvm_continue's arguments: the rows,
// labels, label names, weights, configuration, progress callback and stop
// flag. hasOut reports whether the caller gave somewhere to put the model.
func goFitArgs(x *C.nsvm_input, y *C.double, names **C.char, nNames C.int64_t, w *C.double, config *C.char,
	progress C.nsvm_progress_fn, user unsafe.Pointer, stop *C.int32_t, hasOut bool) (fitArgs, error) {
	in, err := goInput(x)
	if err != nil {
		return fitArgs{}, err
	}
	if !hasOut || y == nil && in.rows > 0 {
		return fitArgs{}, badData("no labels, or nowhere to put the model")
	}
	if nNames < 0 || names == nil && nNames > 0 {
		return fitArgs{}, badData("%d label names", nNames)
	}
	a := fitArgs{in: in, y: float64s(y, in.rows), w: float64s(w, in.rows)}
	if names != nil {
		a.names = make([]string, nNames)
		for i, p := range unsafe.Slice(names, nNames) {
			if p == nil {
				return fitArgs{}, badData("label name %d is NULL", i)
			}
			a.names[i] = C.GoString(p)
		}
	}
	if config != nil {
		a.config = []byte(C.GoString(config))
	}
	if progress != nil {
		a.progress = func(b []byte) bool {
			return C.nsvm_call_progress(progress, user, (*C.char)(unsafe.Pointer(&b[0])), C.int64_t(len(b))) == 0
		}
	}
	if stop != nil {
		a.stop = (*int32)(unsafe.Pointer(stop))
	}
	return a, nil
}
