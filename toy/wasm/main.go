//go:build js && wasm

// Command wasm is the svm-toy page's WebAssembly module (GOOS=js
// GOARCH=wasm): nsvm's trainers and models in the browser. It sets
// globalThis.nsvmGo to an object of functions over package plane, then
// waits for calls:
//
//	train(points, options, onProgress) Promise of a result: points are
//	    LIBSVM text, options nsvm train's training flags as one string;
//	    onProgress(status) receives one line per progress report (at most
//	    every 50 ms). The result holds model (the model file's bytes),
//	    trainAccuracy, rmse, supportVectors, seconds, isSV (a Uint8Array,
//	    one a training row), regression, labels and selected.
//	load(bytes)           makes the model file bytes the current model
//	                      (train does too); returns an error text or null
//	predict(x, y)         the current model's label (value) at (x, y)
//	paint(w, h)           {label: Float32Array, margin: Float32Array}
//	curve(w)              {y: Float64Array, epsilon}
//	features(lines, samples) the NSVM feature map of the last run's
//	                      points, or null (see plane.FeatureMap)
//
// It calls globalThis.nsvmGoReady(), if set, once nsvmGo is in place.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"syscall/js"
	"time"

	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/search"
	"github.com/nsvm-go/nsvm/toy/plane"
)

var (
	view plane.View
	last *plane.Run // the last run trained here, for its rows
)

func main() {
	api := js.Global().Get("Object").New()
	funcs := map[string]func(args []js.Value) any{
		"train": train, "load": load, "predict": predict, "paint": paint, "curve": curve, "features": features,
	}
	for name, f := range funcs {
		api.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) (out any) {
			defer func() {
				if r := recover(); r != nil {
					out = js.Global().Get("Error").New(fmt.Sprint(r))
				}
			}()
			return f(args)
		}))
	}
	js.Global().Set("nsvmGo", api)
	if ready := js.Global().Get("nsvmGoReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// train returns a Promise of the run's result; the fit runs on a
// goroutine of its own, so that the call returns at once.
func train(args []js.Value) any {
	points, options, onProgress := args[0].String(), args[1].String(), args[2]
	return js.Global().Get("Promise").New(js.FuncOf(func(_ js.Value, pr []js.Value) any {
		resolve, reject := pr[0], pr[1]
		go func() {
			defer func() {
				if r := recover(); r != nil {
					reject.Invoke(js.Global().Get("Error").New(fmt.Sprint(r)))
				}
			}()
			res, err := fit(points, options, onProgress)
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(strings.TrimPrefix(err.Error(), "nsvm: ")))
				return
			}
			resolve.Invoke(res)
		}()
		return nil
	}))
}

func fit(points, options string, onProgress js.Value) (any, error) {
	argv, err := plane.Fields(options)
	if err != nil {
		return nil, err
	}
	var shown time.Time
	progress := func(p search.FitProgress) {
		if onProgress.Type() != js.TypeFunction || time.Since(shown) < 50*time.Millisecond {
			return
		}
		shown = time.Now()
		onProgress.Invoke(plane.Status(p))
	}
	r, err := plane.Train(context.Background(), points, argv, progress)
	if err != nil {
		return nil, err
	}
	view, last = r.View, r
	m := r.M
	isSV := make([]byte, len(r.SupportVector))
	for i, sv := range r.SupportVector {
		if sv {
			isSV[i] = 1
		}
	}
	labels := []any{}
	if !m.Regression() {
		for _, l := range m.Labels() {
			labels = append(labels, l)
		}
	}
	sel := ""
	if m.Selection != nil {
		sel = m.Info["selected"]
	}
	return map[string]any{
		"model": bytesJS(r.File), "isSV": bytesJS(isSV),
		"trainAccuracy": r.Scores.Accuracy, "rmse": r.Scores.RMSE, "r2": r.Scores.R2,
		"supportVectors": m.NumSV(), "seconds": r.Seconds,
		"regression": m.Regression(), "labels": labels, "algorithm": m.Algorithm, "selected": sel,
		"network": m.Net != nil,
	}, nil
}

func load(args []js.Value) any {
	b := make([]byte, args[0].Get("length").Int())
	js.CopyBytesToGo(b, args[0])
	m, err := model.Read(bytes.NewReader(b))
	if err != nil {
		return err.Error()
	}
	view, last = plane.View{M: m}, nil
	return nil
}

func predict(args []js.Value) any {
	if view.M == nil {
		return math.NaN()
	}
	return view.Predict(args[0].Float(), args[1].Float())
}

func paint(args []js.Value) any {
	pic, err := view.Paint(args[0].Int(), args[1].Int())
	if err != nil {
		return js.Global().Get("Error").New(err.Error())
	}
	label := make([]float32, len(pic.Label))
	for i, l := range pic.Label {
		label[i] = float32(l)
	}
	return map[string]any{"label": float32JS(label), "margin": float32JS(pic.Margin)}
}

func curve(args []js.Value) any {
	y, eps, err := view.Curve(args[0].Int())
	if err != nil {
		return js.Global().Get("Error").New(err.Error())
	}
	return map[string]any{"y": float64JS(y), "epsilon": eps}
}

func features(args []js.Value) any {
	if last == nil || view.M.Net == nil {
		return nil
	}
	fm, err := view.Features(last.Data.X, args[0].Int(), args[1].Int())
	if err != nil {
		return nil
	}
	lineLabel := make([]float32, len(fm.LineLabel))
	for i, l := range fm.LineLabel {
		lineLabel[i] = float32(l)
	}
	return map[string]any{"points": float64JS(fm.Points), "lines": float64JS(fm.Lines), "lineLabel": float32JS(lineLabel),
		"nLines": fm.NLines, "samples": fm.Samples, "explained": fm.Explained, "second": fm.Second}
}

// bytesJS copies b into a new Uint8Array.
func bytesJS(b []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

func float32JS(v []float32) js.Value {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return js.Global().Get("Float32Array").New(bytesJS(b).Get("buffer"))
}

func float64JS(v []float64) js.Value {
	b := make([]byte, 8*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(f))
	}
	return js.Global().Get("Float64Array").New(bytesJS(b).Get("buffer"))
}
