package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
)

// version is the server's version in the V2 server metadata.
const version = "1"

// Memory accounting (see budget). A request holds requestBase bytes and
// its headers from its start; then, each reserved before it is allocated:
// its body (Content-Length bytes, or as an unsized body is read), its
// decoded rows (4 bytes per value the body can hold, counted from its
// commas and brackets), the prediction (predictCost) and the answer
// (v1Cost, v2Cost: an upper bound on its JSON text, which is built in a
// buffer of that capacity).
const (
	// requestBase covers what handling a request allocates besides the
	// above: the connection's buffers, the request, small answers.
	requestBase = 16 << 10
	// valueBytes bounds the JSON text of one number of an answer with its
	// comma: appendFloat writes at most 24 characters
	// (-2.2250738585072014e-308).
	valueBytes = 25
	// maxHeaderString bounds the strings of a V2 request besides its data
	// (id, tensor name, datatype, output names).
	maxHeaderString = 4096
	// maxDims bounds the dimensions of a V2 input shape: [n] and at most 8
	// nested levels, as parseTensor reads them.
	maxDims = 9
	// bodyFirst is a body's first buffer, which grows as the body
	// arrives.
	bodyFirst = 4 << 10
)

// bodyStall is how long a body may send nothing before it is cut (408): a
// body trickling a few bytes now and then does not hold its connection
// and its memory for the whole read timeout. A variable for the tests.
var bodyStall = 5 * time.Second

// headerBytes estimates the memory of a request's headers.
func headerBytes(r *http.Request) int64 {
	n := len(r.URL.Path) + len(r.URL.RawQuery) + len(r.Host)
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return int64(n)
}

// reserve reserves n more bytes of the memory budget for what (for the
// error message).
func (s *Server) reserve(res *reservation, n int64, what string) *httpError {
	if err := res.grow(n); err != nil {
		return s.memoryError(err, res, n, what)
	}
	return nil
}

// memoryError is the answer to a reservation that failed: 413 for a
// request that needs more than the whole budget (it never fits), 429 when
// other requests hold the memory (it fits later).
func (s *Server) memoryError(err error, res *reservation, n int64, what string) *httpError {
	if errors.Is(err, errOverBudget) {
		return errorf(http.StatusRequestEntityTooLarge, "memory",
			"%s needs %d bytes besides the %d the request holds; the server's memory limit is %d bytes (MaxMemory)",
			what, n, res.held, s.cfg.MaxMemory)
	}
	return errorf(http.StatusTooManyRequests, "memory",
		"the server's memory (%d bytes) is held by the requests in flight; retry later", s.cfg.MaxMemory)
}

// decodeError is the answer to a decoder's error: a failed reservation, or
// a 400 that says what was wrong.
func (s *Server) decodeError(err error, res *reservation, prefix string) *httpError {
	if errors.Is(err, errOverBudget) || errors.Is(err, errMemoryBusy) {
		return s.memoryError(err, res, res.asked, "decoding the instances")
	}
	kind := "input"
	if errors.Is(err, errMalformed) {
		kind = "json"
	}
	return errorf(http.StatusBadRequest, kind, "%s%v", prefix, err)
}

// readBody reads a request body within the size limit, reserving its
// memory as it arrives, not as it is declared: the buffer grows eightfold
// from bodyFirst bytes (each size reserved before it is allocated) up to
// the Content-Length, or as far as the budget allows for
// a body of unknown size. A body that stalls — no byte for bodyStall — ends
// with 408 and gives its memory back, so that connections that declare a
// large body and then send little hold little, and not for long.
func (s *Server) readBody(r *http.Request, res *reservation) ([]byte, *httpError) {
	// JSON under any of the types clients send it with (curl's -d says
	// form-urlencoded); other media types are refused.
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") &&
		!strings.HasPrefix(ct, "text/plain") && !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		return nil, errorf(http.StatusUnsupportedMediaType, "content", "content type %s: send application/json", quote(ct))
	}
	if herr := s.reserve(res, requestBase+headerBytes(r), "the request's headers"); herr != nil {
		return nil, herr
	}
	limit := s.cfg.MaxBodyBytes
	tooLarge := errorf(http.StatusRequestEntityTooLarge, "body", "request body over %d bytes", limit)
	if r.ContentLength > limit {
		return nil, tooLarge
	}
	sized := r.ContentLength >= 0
	end := limit + 1 // the most bytes the buffer needs
	if sized {
		end = r.ContentLength
	}
	body := http.MaxBytesReader(nil, r.Body, limit)
	readErr := func(err error) *httpError {
		var mb *http.MaxBytesError
		switch {
		case errors.As(err, &mb):
			return tooLarge
		case errors.Is(err, os.ErrDeadlineExceeded):
			return errorf(http.StatusRequestTimeout, "body", "the request body stalled: no byte for %v", bodyStall)
		case sized && errors.Is(err, io.EOF):
			return errorf(http.StatusBadRequest, "body", "reading the request: the body ended before its %d bytes", r.ContentLength)
		}
		return errorf(http.StatusBadRequest, "body", "reading the request: %v", err)
	}
	var b []byte
	for !sized || int64(len(b)) < end {
		if len(b) == cap(b) {
			// A buffer eight times as large. The smaller ones stay
			// reserved until the request ends (the collector frees them
			// later): every buffer together is at most 8/7 of the last.
			next := min(max(8*int64(cap(b)), bodyFirst), end)
			if herr := s.reserve(res, next, "the request body"); herr != nil {
				return nil, herr
			}
			b = append(make([]byte, 0, next), b...)
		}
		if res.deadline != nil {
			res.deadline(time.Now().Add(bodyStall))
		}
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF && (!sized || int64(len(b)) == end) {
			break
		}
		if err != nil {
			return nil, readErr(err)
		}
	}
	if res.deadline != nil {
		res.deadline(time.Time{})
	}
	return b, nil
}

// rows checks a tensor against the model's input and returns the number of
// rows: shape [n, d…] with d… the row's shape or its size.
func (st *modelState) rows(vals []float32, shape []int) (int, *httpError) {
	if len(shape) == 0 || shape[0] == 0 {
		return 0, errorf(http.StatusBadRequest, "input", "no instances")
	}
	n := shape[0]
	per := 1
	for _, v := range shape[1:] {
		per *= v
	}
	ok := per == st.inSize && (len(shape) == 2 || slices.Equal(shape[1:], st.inShape))
	if !ok {
		return 0, errorf(http.StatusBadRequest, "input", "instances of shape %v; the model takes rows of %d values (shape %v)",
			shape[1:], st.inSize, st.inShape)
	}
	if len(vals) != n*per {
		return 0, errorf(http.StatusBadRequest, "input", "%d values for %d instances of %d", len(vals), n, per)
	}
	return n, nil
}

// predictCost bounds the bytes a prediction of n rows allocates: the rows
// copied into a batch and standardised (4·in each), the features (4·out),
// and the labels, head decisions, a column of them, class scores and
// probabilities (8 bytes each). Workspaces of a fixed size (the network's
// chunks, the kernel's blocks) are not counted.
func (st *modelState) predictCost(n int) int64 {
	m := st.m
	per := 8*st.inSize + 4*m.OutSize() + 8*(2+m.NumHeads()+2*len(st.classes))
	return int64(n) * int64(per)
}

// predict runs rows through the batcher.
func (s *Server) predict(st *modelState, x []float32, rows int, probs bool) model.Prediction {
	j := &job{st: st, x: x, rows: rows, probs: probs}
	s.batch.submit(j)
	s.met.instances.Add(float64(rows))
	return j.out
}

// v1Parameters are the options of a V1 predict request.
type v1Parameters struct {
	Decision      bool `json:"decision"`
	Probabilities bool `json:"probabilities"`
}

// decodeV1 reads a V1 request body: its instances (raw) and parameters.
func decodeV1(body []byte) (raw []byte, par v1Parameters, err error) {
	var params []byte
	err = scanObjectFast(body, []string{"instances", "inputs"}, func(key string, val []byte) error {
		switch key {
		case "instances", "inputs": // "inputs": TensorFlow-serving's columnar alias
			if raw != nil {
				return errors.New(`the request has both "instances" and "inputs"; give one`)
			}
			raw = val
		case "parameters":
			params = val
		}
		return nil
	})
	if err != nil {
		return nil, par, err
	}
	if params != nil {
		if err := json.Unmarshal(params, &par); err != nil {
			return nil, par, fmt.Errorf("parameters: %w", err)
		}
	}
	if raw == nil {
		return nil, par, errors.New(`the request has no "instances"`)
	}
	return raw, par, nil
}

// v1Instances decodes V1 instances for the model st: objects keyed by
// column name (a model trained on a CSV file with a header), sparse rows (a
// data set), raw column values of a model with categorical columns, or rows
// of numbers. alloc reserves memory before the decoders allocate it.
func v1Instances(st *modelState, raw []byte, alloc func(int64) error) (ds *data.Dataset, vals []float32, shape []int, err error) {
	switch {
	case namedInstances(raw, st.m.Columns):
		var n int
		vals, n, err = namedRows(raw, st.m.Columns, st.colIndex, alloc)
		return nil, vals, []int{n, st.inSize}, err
	case sparseInstances(raw):
		ds, err = parseSparse(raw, st.inSize, alloc)
		return ds, nil, nil, err
	case st.m.Columns != nil && (bytes.IndexByte(raw, '"') >= 0 || bytes.Contains(raw, []byte("null"))):
		// Raw column values of a model with categorical columns.
		var n int
		vals, n, err = rawRows(raw, st.m.Columns, 0, 0, false, alloc)
		return nil, vals, []int{n, st.inSize}, err
	}
	vals, shape, err = parseTensor(raw, v1Numbers, alloc)
	if err == nil && len(shape) == 1 && shape[0] == st.inSize && st.inSize > 1 {
		shape = []int{1, st.inSize} // one instance given flat
	}
	return nil, vals, shape, err
}

// predictV1 is POST /v1/models/{name}:predict.
func (s *Server) predictV1(r *http.Request, res *reservation) ([]byte, *httpError) {
	body, herr := s.readBody(r, res)
	if herr != nil {
		return nil, herr
	}
	raw, par, err := decodeV1(body)
	if err != nil {
		return nil, s.decodeError(err, res, "")
	}
	st := s.model.Load()
	ds, vals, shape, err := v1Instances(st, raw, res.grow)
	if err != nil {
		return nil, s.decodeError(err, res, "instances: ")
	}
	n := 0
	if ds != nil {
		n = ds.N
	} else if n, herr = st.rows(vals, shape); herr != nil {
		return nil, herr
	}
	if n > s.cfg.MaxInstances {
		return nil, errorf(http.StatusBadRequest, "limit", "%d instances; at most %d per request", n, s.cfg.MaxInstances)
	}
	if par.Probabilities && (st.classes == nil || !st.m.Calibrated()) {
		return nil, errorf(http.StatusBadRequest, "input", "the model has no probabilities (train it with --probability)")
	}
	answer := st.v1Cost(n, par)
	if herr := s.reserve(res, st.predictCost(n)+answer, "the prediction and its answer"); herr != nil {
		return nil, herr
	}
	var p model.Prediction
	if ds != nil {
		if p, err = st.m.PredictDataset(ds, par.Probabilities); err != nil {
			return nil, errorf(http.StatusBadRequest, "input", "%v", err)
		}
		s.met.instances.Add(float64(n))
	} else {
		p = s.predict(st, vals, n, par.Probabilities)
	}
	return st.v1Response(make([]byte, 0, answer), p, par, n), nil
}

// v1Cost bounds the bytes of the V1 answer for n rows.
func (st *modelState) v1Cost(n int, par v1Parameters) int64 {
	per := st.labelBytes
	if par.Decision {
		per += valueBytes * int64(st.m.NumHeads())
		if headCols(st.m) > 0 {
			per += 3 // a row's brackets
		}
	}
	fixed := int64(64)
	if par.Probabilities {
		per += valueBytes*int64(len(st.classes)) + 3
		fixed += st.labelBytes * int64(len(st.classes))
	}
	return fixed + int64(n)*per
}

// v1Response appends the V1 answer for a prediction of n rows to b.
func (st *modelState) v1Response(b []byte, p model.Prediction, par v1Parameters, n int) []byte {
	b = append(b, `{"predictions":`...)
	b = st.appendLabels(b, p.Labels)
	if par.Decision {
		b = append(b, `,"decision_values":`...)
		b = appendFloats(b, p.Decisions, headCols(st.m))
	}
	if p.Probabilities != nil {
		b = append(b, `,"classes":`...)
		b = st.appendLabels(b, st.classes)
		b = append(b, `,"probabilities":`...)
		b = appendFloats(b, p.Probabilities, len(st.classes))
	}
	return append(b, '}')
}

// headCols is the width of a row of decision values (0: one per row).
func headCols(m *model.Model) int {
	if m.Multiclass() {
		return m.NumHeads()
	}
	return 0
}

type v2Tensor struct {
	Name     string
	Shape    []int
	Datatype string
	Data     []byte // raw JSON
}

type v2Request struct {
	ID      string
	Input   v2Tensor
	Outputs []string // distinct, each one of the model's outputs
}

// headerString unmarshals a JSON string of a V2 request other than its
// data, at most maxHeaderString bytes.
func headerString(what string, raw []byte, dst *string) error {
	if len(raw) > maxHeaderString+2 {
		return fmt.Errorf("%s of %d bytes; at most %d", what, len(raw)-2, maxHeaderString)
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s: want a string, got %s", what, describe(raw))
	}
	return nil
}

// decodeV2 reads an inference request whose outputs may be among outputs
// (the model's): exactly one input tensor, whose data stay raw, and the
// outputs asked for, each at most once.
func decodeV2(body []byte, outputs []string) (v2Request, error) {
	var req v2Request
	inputs := 0
	err := scanObject(body, func(key string, val []byte) error {
		switch key {
		case "id":
			return headerString("id", val, &req.ID)
		case "outputs":
			k := 0
			return scanArray(val, func(v []byte) error {
				defer func() { k++ }()
				if v[0] != '{' {
					return fmt.Errorf(`outputs[%d] is %s; want {"name": …}`, k, describe(v))
				}
				name, has := "", false
				err := scanObject(v, func(key string, vv []byte) error {
					if key != "name" {
						return nil // "parameters"
					}
					has = true
					return headerString(fmt.Sprintf("outputs[%d].name", k), vv, &name)
				})
				switch {
				case err != nil:
					return err
				case !has:
					return fmt.Errorf("outputs[%d] has no name", k)
				case !slices.Contains(outputs, name):
					return fmt.Errorf("unknown output %s (this model has %s)", quote(name), strings.Join(outputs, ", "))
				case slices.Contains(req.Outputs, name):
					return fmt.Errorf("output %s asked for twice", quote(name))
				}
				req.Outputs = append(req.Outputs, name)
				return nil
			})
		case "inputs":
			return scanArray(val, func(v []byte) error {
				inputs++
				if inputs > 1 {
					return nil // counted for the error below
				}
				if v[0] != '{' {
					return fmt.Errorf("inputs[0] is %s; want a tensor {\"name\", \"shape\", \"datatype\", \"data\"}", describe(v))
				}
				return decodeTensor(v, &req.Input)
			})
		}
		return nil
	})
	if err == nil && inputs != 1 {
		err = fmt.Errorf("want exactly one input tensor, got %d", inputs)
	}
	return req, err
}

// decodeTensor reads a V2 input tensor; its data stay raw.
func decodeTensor(v []byte, t *v2Tensor) error {
	return scanObjectFast(v, []string{"data"}, func(k string, vv []byte) error {
		switch k {
		case "name":
			return headerString("input name", vv, &t.Name)
		case "datatype":
			return headerString("input datatype", vv, &t.Datatype)
		case "shape":
			if bytes.Count(vv, []byte{','}) >= maxDims {
				return fmt.Errorf("input shape has more than %d dimensions", maxDims)
			}
			if err := json.Unmarshal(vv, &t.Shape); err != nil {
				return fmt.Errorf("input shape %s: want an array of integers", quoteBytes(vv))
			}
		case "data":
			t.Data = vv
		}
		return nil
	})
}

// checkShape checks a V2 input shape: [n, …], no dimension negative, and
// no more values than the data hold (at most most).
func checkShape(shape []int, most int) error {
	if len(shape) < 2 {
		return fmt.Errorf("input shape %v: want [n, …] (at least two dimensions)", shape)
	}
	total := 1
	for _, v := range shape {
		if v < 0 {
			return fmt.Errorf("input shape %v has a negative dimension", shape)
		}
		if v > 0 && total > most/v {
			return fmt.Errorf("input shape %v does not hold the data (%d values at most)", shape, most)
		}
		total *= v
	}
	return nil
}

// inferV2 is POST /v2/models/{name}/infer.
func (s *Server) inferV2(r *http.Request, res *reservation) ([]byte, *httpError) {
	body, herr := s.readBody(r, res)
	if herr != nil {
		return nil, herr
	}
	st := s.model.Load()
	req, err := decodeV2(body, s.outputNames(st))
	if err != nil {
		return nil, s.decodeError(err, res, "")
	}
	in := req.Input
	if in.Data == nil {
		return nil, errorf(http.StatusBadRequest, "input", "the input tensor has no data")
	}
	if err := checkShape(in.Shape, maxTensorValues(in.Data)); err != nil {
		return nil, errorf(http.StatusBadRequest, "input", "%v", err)
	}
	var vals []float32
	if in.Datatype == "BYTES" {
		// Raw column values, shape [n, columns]: encoded to [n, input size].
		if st.m.Columns == nil {
			return nil, errorf(http.StatusBadRequest, "input", "input datatype BYTES is for models with categorical columns; this one takes numbers")
		}
		cols, used := len(st.m.Columns), len(usedColumns(st.m.Columns))
		if len(in.Shape) != 2 || in.Shape[1] != cols && in.Shape[1] != used || in.Shape[0] == 0 {
			return nil, errorf(http.StatusBadRequest, "input", "BYTES input of shape %v; want [n, %d] (one value per column, n ≥ 1; or [n, %d] without the columns the model leaves out)", in.Shape, cols, used)
		}
		vals, _, err = rawRows(in.Data, st.m.Columns, in.Shape[0], in.Shape[1], true, res.grow)
		in.Shape = []int{in.Shape[0], st.inSize}
	} else {
		t, ok := dtypes[in.Datatype]
		if !ok {
			return nil, errorf(http.StatusBadRequest, "input", "unknown input datatype %s (want BOOL, INT8…INT64, UINT8…UINT64, FP16, FP32, FP64 or BYTES)", quote(in.Datatype))
		}
		vals, _, err = parseTensor(in.Data, t, res.grow)
	}
	if err != nil {
		return nil, s.decodeError(err, res, "input ")
	}
	total := 1
	for _, v := range in.Shape {
		total *= v
	}
	if total != len(vals) {
		return nil, errorf(http.StatusBadRequest, "input", "input shape %v does not hold the %d values given (want [n, …])", in.Shape, len(vals))
	}
	n, herr := st.rows(vals, in.Shape)
	if herr != nil {
		return nil, herr
	}
	if n > s.cfg.MaxInstances {
		return nil, errorf(http.StatusBadRequest, "limit", "%d instances; at most %d per request", n, s.cfg.MaxInstances)
	}
	main := "label"
	if st.classes == nil {
		main = "value"
	}
	want := req.Outputs
	if len(want) == 0 {
		want = []string{main}
	}
	answer := s.v2Cost(st, n, req.ID, want)
	if herr := s.reserve(res, st.predictCost(n)+answer, "the prediction and its answer"); herr != nil {
		return nil, herr
	}
	p := s.predict(st, vals, n, slices.Contains(want, "probabilities"))
	return s.v2Response(make([]byte, 0, answer), st, p, req.ID, want), nil
}

// v2Response appends the V2 answer of the prediction p for the outputs
// want to b.
func (s *Server) v2Response(b []byte, st *modelState, p model.Prediction, id string, want []string) []byte {
	b = append(b, `{"model_name":`...)
	b = appendString(b, s.cfg.Name)
	b = append(b, `,"model_version":`...)
	b = appendString(b, s.cfg.Version)
	if id != "" {
		b = append(b, `,"id":`...)
		b = appendString(b, id)
	}
	b = append(b, `,"outputs":[`...)
	for i, o := range want {
		if i > 0 {
			b = append(b, ',')
		}
		b = st.appendOutput(b, o, p.Rows)
		b = append(b[:len(b)-1], `,"data":`...)
		switch o {
		case "label", "value":
			if st.m.LabelNames != nil && st.classes != nil {
				b = st.appendLabels(b, p.Labels)
			} else {
				b = appendFloats(b, p.Labels, 0)
			}
		case "decision":
			b = appendFloats(b, p.Decisions, 0)
		case "probabilities":
			b = appendFloats(b, p.Probabilities, 0)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// v2Cost bounds the bytes of the V2 answer for n rows and the outputs want.
func (s *Server) v2Cost(st *modelState, n int, id string, want []string) int64 {
	// Names and id as JSON strings: at most 6 bytes per byte (\u00XX).
	c := int64(128 + 6*(len(s.cfg.Name)+len(s.cfg.Version)+len(id)))
	for _, o := range want {
		per := int64(valueBytes)
		switch o {
		case "label":
			per = st.labelBytes
		case "decision":
			per = valueBytes * int64(st.m.NumHeads())
		case "probabilities":
			per = valueBytes * int64(len(st.classes))
		}
		c += 128 + int64(n)*per
	}
	return c
}

// appendOutput appends the description of output name for n rows (n < 0:
// any number, as -1 in the metadata): {"name", "datatype", "shape"}.
func (st *modelState) appendOutput(b []byte, name string, n int) []byte {
	shape := []int{n}
	dtype := "FP64"
	switch name {
	case "label":
		if st.m.LabelNames != nil {
			dtype = "BYTES"
		} else if integral(st.classes) {
			dtype = "INT64"
		}
	case "decision":
		if c := headCols(st.m); c > 0 {
			shape = append(shape, c)
		}
	case "probabilities":
		shape = append(shape, len(st.classes))
	}
	b = append(b, `{"name":`...)
	b = appendString(b, name)
	b = append(b, `,"datatype":"`...)
	b = append(b, dtype...)
	b = append(b, `","shape":`...)
	b = appendInts(b, shape)
	return append(b, '}')
}

// appendLabels appends class labels as a JSON array: numbers, or the
// names of a model trained on named classes.
func (st *modelState) appendLabels(b []byte, labels []float64) []byte {
	if st.m.LabelNames == nil {
		return appendFloats(b, labels, 0)
	}
	b = append(b, '[')
	for i, v := range labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, st.m.LabelName(v))
	}
	return append(b, ']')
}

// labelBytes bounds the JSON text of one label of m with its comma.
func labelBytes(m *model.Model) int64 {
	n := int64(valueBytes)
	for _, name := range m.LabelNames {
		n = max(n, int64(len(appendString(nil, name)))+1)
	}
	return n
}

func integral(v []float64) bool {
	for _, x := range v {
		if x != float64(int64(x)) {
			return false
		}
	}
	return true
}

func appendInts(b []byte, v []int) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFloat(b, float64(x))
	}
	return append(b, ']')
}

// outputNames lists the outputs of the served model.
func (s *Server) outputNames(st *modelState) []string {
	if st.classes == nil {
		return []string{"value", "decision"}
	}
	out := []string{"label", "decision"}
	if st.m.Calibrated() {
		out = append(out, "probabilities")
	}
	return out
}

// metadataV2 is GET /v2/models/{name}.
func (s *Server) metadataV2() []byte {
	st := s.model.Load()
	b := []byte(`{"name":`)
	b = appendString(b, s.cfg.Name)
	b = append(b, `,"versions":[`...)
	b = appendString(b, s.cfg.Version)
	b = append(b, `],"platform":"nsvm","inputs":[{"name":"input","datatype":"FP32","shape":`...)
	b = appendInts(b, append([]int{-1}, st.inShape...))
	if cols := st.m.Columns; cols != nil {
		// The raw columns, one value each (text, or numbers), as the
		// parameters' "columns" describe them.
		b = append(b, `},{"name":"columns","datatype":"BYTES","shape":`...)
		b = appendInts(b, []int{-1, len(cols)})
	}
	b = append(b, `}],"outputs":[`...)
	for i, o := range s.outputNames(st) {
		if i > 0 {
			b = append(b, ',')
		}
		b = st.appendOutput(b, o, -1)
	}
	b = append(b, `],"parameters":{"algorithm":`...)
	b = appendString(b, st.m.Algorithm)
	if st.classes != nil {
		b = append(b, `,"classes":`...)
		b = st.appendLabels(b, st.classes)
	}
	if cols := st.m.Columns; cols != nil {
		b = append(b, `,"columns":`...)
		b = appendColumns(b, cols)
	}
	return append(b, "}}"...)
}
