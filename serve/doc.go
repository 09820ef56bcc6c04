// Package serve is an HTTP inference server for nsvm models. It speaks
// KServe's V1 protocol and the Open Inference Protocol (KServe V2), so that
// a model runs behind KServe as a custom predictor or behind any load
// balancer, and exports Prometheus metrics.
//
// # Endpoints
//
//	GET  /v1/models                      {"models": [name]}
//	GET  /v1/models/{name}               {"name": name, "ready": true}
//	POST /v1/models/{name}:predict       {"instances": [[x…], …]} → {"predictions": [...]}
//	GET  /v2                             server metadata
//	GET  /v2/health/live, /v2/health/ready
//	GET  /v2/models/{name}               model metadata (inputs, outputs)
//	GET  /v2/models/{name}/ready
//	POST /v2/models/{name}/infer         {"inputs": [{"name", "shape", "datatype", "data"}]}
//	GET  /metrics                        Prometheus text format
//
// V1 instances are rows of numbers, or nested arrays of a row's input
// shape (e.g. [1][28][28] per image), or sparse rows {"indices": [...],
// "values": [...]}; an instance that is none of these (null, a number, a
// string) is a 400 naming its index. The predictions are class labels, or
// values for a regressor. "parameters": {"decision": true, "probabilities":
// true} adds "decision_values" (per head for multiclass models) and
// "probabilities" (calibrated models; "classes" names the columns). V2
// takes one input tensor of shape [n, …], flat or nested, whose values must
// be those of its datatype: BOOL (true, false), INT8 … INT64 and UINT8 …
// UINT64 (integers in the type's range), FP16, FP32, FP64 (finite, in the
// type's range); they reach the model as float32, as nsvm predict reads a
// file. A value out of its type is a 400 that names its index in the flat
// data. Its outputs are "label" (classifiers) or "value" (regressors), and
// on request ("outputs": [{"name": …}], each at most once) "decision" and
// "probabilities". /v2/models/{name}/versions/{v}/… answers for the one
// version the server serves (Config.Version, "1" by default) and is a 404
// for any other. A model trained on data with categorical columns or
// columns of dates also takes raw rows, one value per column, numbers or
// strings (V1 instances with a string in them; V2 a BYTES tensor of shape
// [n, columns]), encoded as the training data were ("2024-03-05" as the
// four features of a date); a value that is not a date in a column of
// dates is a 400 naming the instance and the column. A model trained on a CSV file with a header
// also takes V1 instances as objects keyed by column name, {"age": 39,
// "workclass": "State-gov"}, in any order: every column the model uses
// once (null for a missing value); an unknown or absent name is a 400.
// A model trained on named classes answers with the
// names: V1 "predictions" and "classes" are strings, V2's "label" output
// is BYTES.
//
// # Behaviour
//
// A key that appears twice in one object of a request (two "instances",
// two "shape"s of a tensor) is a 400, as duplicate outputs are.
//
// Concurrent requests are gathered into one forward pass (see batcher):
// answers are bit for bit those of unbatched calls. Bad requests get a 4xx
// answer with a JSON body {"error": "…"}, which quotes at most about 80
// characters of an offending value, and never stop the server; requests
// beyond MaxInFlight get 429. The memory of the requests in flight is
// bounded in bytes (MaxMemory, see budget): a request reserves its body
// as it arrives, not as its Content-Length declares it (the buffer grows
// eightfold from 4 KiB, each size reserved before it is allocated; a body
// that sends nothing for 5 s ends with 408), its decoded rows before
// decoding them and its prediction and answer before computing them; past the bound it waits briefly, then gets
// 429 (413 if it alone needs more than the bound). After a burst the
// freed memory goes back to the operating system. Reload swaps the model atomically:
// the old model serves until the new file has loaded and passed the checks
// (same input shape), and a file that fails them is refused while the old
// model keeps serving. Run shuts down gracefully when its context ends:
// it stops accepting connections and finishes the requests in flight.
package serve
