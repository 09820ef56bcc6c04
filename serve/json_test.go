package serve

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// FuzzScanObject: scanObject accepts an object exactly when encoding/json
// does, and hands out the same members.
func FuzzScanObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"instances":[[1,2],[3,4]]}`, `{"a":"x\"y","b":{"c":[true,false,null]},"d":-1.5e3}`,
		`{"instances":[[1,2`, `[1]`, `{"a":1,}`, `{"a" 1}`, `{"a":01}`, `{"a":1.}`, `{"a":"\u00e9"}`, ` { "a" : [ ] } `,
		`{"a":1}x`, `{"a":nul}`, `{"a":"` + "\x01" + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m map[string]json.RawMessage
		stdErr := json.Unmarshal(b, &m)
		var keys []string
		err := scanObject(b, func(k string, v []byte) error {
			keys = append(keys, k)
			if !json.Valid(v) {
				t.Errorf("member %q: %q is not valid JSON", k, v)
			}
			return nil
		})
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("%q: scanObject error %v, encoding/json error %v", b, err, stdErr)
		}
		if err == nil {
			for _, k := range keys {
				if _, ok := m[k]; !ok && len(k) <= maxEscapedKey { // longer keys with escapes stay escaped
					t.Errorf("key %q not seen by encoding/json", k)
				}
			}
		}
	})
}

// TestParseTensor: nested arrays flatten row-major with their shape;
// ragged, mixed or non-numeric arrays are errors.
func TestParseTensor(t *testing.T) {
	for _, c := range []struct {
		in    string
		vals  []float32
		shape []int
		bad   bool
	}{
		{`[1,2,3]`, []float32{1, 2, 3}, []int{3}, false},
		{` [[1, 2],[3,4.5e1]] `, []float32{1, 2, 3, 45}, []int{2, 2}, false},
		{`[[[1],[2]],[[3],[4]]]`, []float32{1, 2, 3, 4}, []int{2, 2, 1}, false},
		{`[]`, nil, []int{0}, false},
		{`[[1,2],[3]]`, nil, nil, true},
		{`[[1],2]`, nil, nil, true},
		{`[1,[2]]`, nil, nil, true},
		{`["a"]`, nil, nil, true},
		{`[1e39]`, nil, nil, true},
		{`[01]`, nil, nil, true},
		{`[1,]`, nil, nil, true},
		{`[1 2]`, nil, nil, true},
		{`{"a":1}`, nil, nil, true},
	} {
		v, s, err := parseTensor([]byte(c.in), v1Numbers, anyAlloc)
		if (err != nil) != c.bad || !c.bad && (!slices.Equal(v, c.vals) || !slices.Equal(s, c.shape)) {
			t.Errorf("%s: %v %v %v", c.in, v, s, err)
		}
	}
}

// anyAlloc accepts every reservation.
func anyAlloc(int64) error { return nil }

// v1Seeds and v2Seeds are request bodies of the abuse cases, kept small.
var (
	v1Seeds = []string{
		`{"instances":[[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]]}`,
		`{"instances":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20],"parameters":{"decision":true,"probabilities":true}}`,
		`{"instances":[{"indices":[0,3],"values":[1,2]},null]}`,
		`{"instances":[{"indices":[0,3],"values":[1,2]},{"indices":[1],"values":[0.5]}]}`,
		`{"instances":[{"indices":[3,0],"values":[1,2]}]}`,
		`{"instances":[{}]}`,
		`{"instances":[null]}`,
		`{"instances":[[1,2],[null]]}`,
		`{"instances":[[0.1,"blue"],[0.2,"red"],[-1,null]]}`,
		`{"instances":[{"size":0.1,"color":"blue"},{"color":null,"size":-1}]}`,
		`{"instances":[{"size":0.1,"size":0.2,"colour":"blue"},[1,2]]}`,
		`{"instances":[["` + strings.Repeat("q", 300) + `","red"]]}`,
		`{"instances":[[1e39]]}`,
		`{"instances":[[` + strings.Repeat("7", 300) + `]]}`,
		`{"inputs":[[[[1]]]]}`,
	}
	v2Seeds = []string{
		`{"inputs":[{"name":"x","shape":[1,20],"datatype":"INT8","data":[300,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}]}`,
		`{"inputs":[{"name":"x","shape":[1,20],"datatype":"UINT8","data":[-5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}]}`,
		`{"id":"a","inputs":[{"name":"x","shape":[2,10],"datatype":"FP32","data":[[1,2,3,4,5,6,7,8,9,10],[1,2,3,4,5,6,7,8,9,10]]}],"outputs":[{"name":"label"},{"name":"decision"}]}`,
		`{"inputs":[{"name":"x","shape":[1,20],"datatype":"FP32","data":[0]}],"outputs":[{"name":"decision"},{"name":"decision"},{"name":"decision"}]}`,
		`{"inputs":[{"name":"x","shape":[1,2],"datatype":"BYTES","data":["0.1","red"]}]}`,
		`{"inputs":[{"name":"x","shape":[1,20],"datatype":"BOOL","data":[true,false,1]}]}`,
		`{"inputs":[{"name":"x","shape":[4294967296,4294967296],"datatype":"FP16","data":[]}]}`,
		`{"inputs":[{"name":"x","shape":[1,20],"datatype":"INT64","data":[9223372036854775808]}]}`,
		`{"inputs":[{},{}]}`,
		`{"inputs":[null]}`,
	}
)

// fuzzModels are a model of 20 numbers and one of a number and a text
// column, trained once for the fuzz tests.
func fuzzModels(f *testing.F) []*modelState {
	dir := f.TempDir()
	path, _, _ := trainModel(f, dir, "binary")
	var sts []*modelState
	cpath, _ := categoricalModel(f, dir)
	for _, p := range []string{path, cpath} {
		st, err := load(p)
		if err != nil {
			f.Fatal(err)
		}
		sts = append(sts, st)
	}
	return sts
}

// checkDecoded checks what a decoder returned: an error message that quotes
// the request short, or values that fit the memory reserved for them.
func checkDecoded(t *testing.T, err error, reserved int64, vals []float32, shape []int) {
	t.Helper()
	if err != nil {
		if errors.Is(err, errOverBudget) || errors.Is(err, errMemoryBusy) {
			t.Fatalf("unexpected memory error %v", err)
		}
		if msg := clipMessage(err.Error()); len(msg) > maxMessage+8 {
			t.Fatalf("an error of %d bytes: %.300s", len(msg), msg)
		}
		return
	}
	if 4*int64(cap(vals)) > reserved {
		t.Fatalf("%d values allocated, %d bytes reserved", cap(vals), reserved)
	}
	if shape != nil {
		n := 1
		for _, v := range shape {
			n *= v
		}
		if n != len(vals) {
			t.Fatalf("shape %v for %d values", shape, len(vals))
		}
	}
}

// FuzzDecodeV1: the V1 request decoders never panic, decode into no more
// memory than they reserved, and fail with short messages.
func FuzzDecodeV1(f *testing.F) {
	for _, s := range v1Seeds {
		f.Add([]byte(s))
	}
	sts := fuzzModels(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		raw, _, err := decodeV1(body)
		if err != nil {
			checkDecoded(t, err, 0, nil, nil)
			return
		}
		for _, st := range sts {
			var reserved int64
			alloc := func(n int64) error { reserved += n; return nil }
			ds, vals, shape, err := v1Instances(st, raw, alloc)
			if ds != nil {
				sp := ds.Sparse
				if 8*int64(cap(sp.Idx))+8*int64(cap(sp.Ptr)) > reserved || ds.N != len(sp.Ptr)-1 || len(sp.Idx) != len(sp.Val) {
					t.Fatalf("sparse: %d rows, %d indices, %d values; %d bytes reserved", ds.N, len(sp.Idx), len(sp.Val), reserved)
				}
				for i := range ds.N {
					row := sp.Idx[sp.Ptr[i]:sp.Ptr[i+1]]
					for k, j := range row {
						if j < 0 || int(j) >= st.inSize || k > 0 && j <= row[k-1] {
							t.Fatalf("row %d: indices %v", i, row)
						}
					}
				}
				continue
			}
			checkDecoded(t, err, reserved, vals, shape)
		}
	})
}

// FuzzDecodeV2: the V2 request decoder and the tensor parsers of every
// datatype never panic, decode into no more memory than they reserved,
// name each output at most once, and fail with short messages.
func FuzzDecodeV2(f *testing.F) {
	for _, s := range v2Seeds {
		f.Add([]byte(s))
	}
	sts := fuzzModels(f)
	outputs := []string{"label", "decision", "probabilities"}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeV2(body, outputs)
		if err != nil {
			checkDecoded(t, err, 0, nil, nil)
			return
		}
		for i, o := range req.Outputs {
			if !slices.Contains(outputs, o) || slices.Contains(req.Outputs[:i], o) {
				t.Fatalf("outputs %v", req.Outputs)
			}
		}
		in := req.Input
		if in.Data == nil {
			return
		}
		if err := checkShape(in.Shape, maxTensorValues(in.Data)); err != nil {
			checkDecoded(t, err, 0, nil, nil)
			return
		}
		var reserved int64
		alloc := func(n int64) error { reserved += n; return nil }
		if in.Datatype == "BYTES" {
			st := sts[1]
			if len(in.Shape) != 2 || in.Shape[1] != len(st.m.Columns) || in.Shape[0] == 0 {
				return
			}
			vals, n, err := rawRows(in.Data, st.m.Columns, in.Shape[0], in.Shape[1], true, alloc)
			if err == nil && (n != in.Shape[0] || len(vals) != n*st.inSize) {
				t.Fatalf("%d rows of %d values for shape %v", n, len(vals), in.Shape)
			}
			checkDecoded(t, err, reserved, vals, nil)
			return
		}
		for name, dt := range dtypes {
			reserved = 0
			vals, shape, err := parseTensor(in.Data, dt, alloc)
			checkDecoded(t, err, reserved, vals, shape)
			for k, v := range vals {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || dt.integer && v != float32(math.Trunc(float64(v))) ||
					dt.boolean && v != 0 && v != 1 || !dt.signed && dt.integer && v < 0 {
					t.Fatalf("%s data[%d] = %v", name, k, v)
				}
			}
		}
	})
}

// TestScanErrors: scanObject and scanArray name what they wanted and where.
func TestScanErrors(t *testing.T) {
	noop := func([]byte) error { return nil }
	for _, c := range []struct {
		in, want string
		array    bool
	}{
		{`[1 2]`, `want ',' or ']' at offset 3`, true},
		{`[1]x`, `text after the value at offset 3`, true},
		{`{"a":1}`, `want an array`, true},
		{`{"a":1 "b":2}`, `want ',' or '}' at offset 7`, false},
		{`{"a" 1}`, `want ':' after key "a"`, false},
		{`[1]`, `want an object`, false},
		{`{} {}`, `text after the value at offset 3`, false},
	} {
		var err error
		if c.array {
			err = scanArray([]byte(c.in), noop)
		} else {
			err = scanObject([]byte(c.in), func(string, []byte) error { return nil })
		}
		if !errors.Is(err, errMalformed) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.in, err, c.want)
		}
	}
}
