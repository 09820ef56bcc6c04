package paper

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"

	"github.com/nsvm-go/nsvm/model"
)

// loadBytes decodes a model file held in memory, as Load does from disk.
func loadBytes(b []byte) (*model.Model, error) { return model.Read(bytes.NewReader(b)) }

// rewriteHeader returns the file b with its JSON header changed by edit and
// the header length fixed up: a well-formed file whose header lies.
func rewriteHeader(t testing.TB, b []byte, edit func(hdr map[string]any)) []byte {
	t.Helper()
	n := binary.LittleEndian.Uint64(b[:8])
	var hdr map[string]any
	if err := json.Unmarshal(b[8:8+n], &hdr); err != nil {
		t.Fatal(err)
	}
	edit(hdr)
	h, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	return append(append(out, h...), b[8+n:]...)
}

func setMeta(key, value string) func(map[string]any) {
	return func(hdr map[string]any) { hdr["__metadata__"].(map[string]any)[key] = value }
}

// argmax returns the index of the largest value.
func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] || math.IsNaN(v[best]) && !math.IsNaN(x) {
			best = i
		}
	}
	return best
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
