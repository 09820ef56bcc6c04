package serve

import (
	"encoding/json"
	"slices"
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
				if _, ok := m[k]; !ok {
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
