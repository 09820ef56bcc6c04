// Command capi is nsvm's C ABI, built as a shared library:
//
//	go build -buildmode=c-shared -o libnsvm.so ./capi
//
// It trains (nsvm.Fit) from dense float32 or float64 matrices in either
// order, compressed sparse rows or CSV text, with class labels as numbers
// or names, sample weights and a JSON configuration (configJSON: FitConfig's
// fields); predicts labels, decision values, class scores and probabilities
// into the caller's buffers; turns models into their file's bytes and back,
// saves them, exports them as ONNX graphs (package model/onnx), and
// describes them (their selection too) as JSON. The types
// and conventions are in nsvm.h; the Python package nsvm (python/) is
// written on it.
//
// Every exported function recovers from a panic and returns its message
// (NSVM_ERR_INTERNAL): a panic never crosses into the caller. Errors come
// back as messages with a status that tells bad data, a bad configuration
// and a cancelled fit apart from other failures. A model handle may
// predict from many threads at once.
package main
