package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/internal/safetensors"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// fuzzModels returns small valid models of every kind the loader meets: an
// MLP NSVM with standardisation, a CNN NSVM, and classical SVMs with and
// without standardisation.
func fuzzModels(t testing.TB) map[string]*Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	head := func(nsv, d int, ks kernel.Spec) *svm.Model {
		h := &svm.Model{Kernel: ks, NSV: nsv, D: d, SV: make([]float32, nsv*d), Coef: make([]float64, nsv),
			Bias: 0.25, Neg: -1, Pos: 1}
		for i := range h.SV {
			h.SV[i] = float32(rng.NormFloat64())
		}
		for i := range h.Coef {
			h.Coef[i] = rng.NormFloat64()
		}
		return h
	}
	mlp, err := nn.New("dense(3),relu,dense(2),l2norm", []int{4}, rng)
	if err != nil {
		t.Fatal(err)
	}
	cnn, err := nn.New("conv(2,3),maxpool(2),relu,flatten,scale(0.5)", []int{1, 6, 6}, rng)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Model{
		"mlp": {Algorithm: "nsvm1", Net: mlp, Head: head(3, 2, kernel.Spec{Name: "rbf", Gamma: 1}),
			Mean: []float64{0, 1, -1, 0.5}, Std: []float64{1, 2, 0.5, 1}, Info: map[string]string{"lambda": "0.0001", "steps": "10"}},
		"cnn": {Algorithm: "nsvm4", Net: cnn, Head: head(2, cnn.OutSize(), kernel.Spec{Name: "rbf", Gamma: 0.1, Normalized: true})},
		"smo": {Algorithm: "smo", Head: head(4, 3, kernel.Spec{Name: "poly", Gamma: 0.5, Coef0: 1, Degree: 2}),
			Mean: []float64{1, 2, 3}, Std: []float64{1, 1, 2}},
		"linear":  {Algorithm: "pegasos-linear", Head: head(1, 5, kernel.Spec{Name: "linear"})},
		"sigmoid": {Algorithm: "dual-sga", Head: head(2, 2, kernel.Spec{Name: "sigmoid", Gamma: 0.3, Coef0: -1})},
		"empty":   {Algorithm: "perceptron", Head: head(0, 2, kernel.Spec{Name: "rbf", Gamma: 2})},
	}
}

func encodeModel(t testing.TB, m *Model) []byte {
	t.Helper()
	meta, ts, err := m.encode()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := safetensors.Write(&b, meta, ts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// loadBytes decodes a model file held in memory, as Load does from disk.
func loadBytes(b []byte) (*Model, error) {
	f, err := safetensors.Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	return decode(f)
}

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

// modelIsFinite reports whether every stored number of m is finite; a model
// holding NaN or ±Inf cannot predict finite values, so Load must refuse it.
func modelIsFinite(m *Model) bool {
	ok := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for _, v := range m.Head.SV {
		if !ok(float64(v)) {
			return false
		}
	}
	for _, v := range m.Head.Coef {
		if !ok(v) {
			return false
		}
	}
	if m.Net != nil {
		for _, p := range m.Net.Params() {
			for _, v := range p.W {
				if !ok(float64(v)) {
					return false
				}
			}
		}
	}
	for _, v := range m.Mean {
		if !ok(v) {
			return false
		}
	}
	return ok(m.Head.Bias)
}

// modelIsModest reports whether m's numbers are small enough that its
// decision function cannot overflow on inputs in [−2, 2]: parameters,
// support vectors and coefficients of magnitude ≤ 1e3, a small kernel
// parameter set, no large scale layer, and few support vectors.
func modelIsModest(m *Model) bool {
	small := func(v float64) bool { return math.Abs(v) <= 1e3 }
	for _, v := range m.Head.SV {
		if !small(float64(v)) {
			return false
		}
	}
	for _, v := range m.Head.Coef {
		if !small(v) {
			return false
		}
	}
	if m.Net != nil {
		for _, p := range m.Net.Params() {
			for _, v := range p.W {
				if !small(float64(v)) {
					return false
				}
			}
		}
		for _, l := range m.Net.Layers() {
			if l.Kind == nn.Scale && !small(l.P) || l.Kind == nn.Dense && l.N > 64 || l.Kind == nn.Conv && l.N > 16 {
				return false
			}
		}
		if len(m.Net.Layers()) > 12 {
			return false
		}
	}
	for _, s := range m.Std {
		if s < 1e-3 {
			return false
		}
	}
	ks := m.Head.Kernel
	return small(m.Head.Bias) && small(ks.Gamma) && small(ks.Coef0) && ks.Degree <= 4 &&
		m.Head.NSV <= 1000 && m.InSize() <= 4096
}

// FuzzLoad feeds the model loader corrupted, truncated and lying files. It
// must never panic; it returns an error, or a model that has a positive input
// size, stores only finite numbers and — when those numbers are modest —
// predicts finite values with one of its two labels, the same again after a
// save and load.
func FuzzLoad(f *testing.F) {
	for _, m := range fuzzModels(f) {
		b := encodeModel(f, m)
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(rewriteHeader(f, b, setMeta("in_shape", "[1,1]")))
		f.Add(rewriteHeader(f, b, setMeta("arch", "dense(2)")))
		f.Add(rewriteHeader(f, b, setMeta("kernel", `{"name":"poly","gamma":1e300,"degree":50}`)))
		f.Add(rewriteHeader(f, b, func(hdr map[string]any) { hdr["coef"].(map[string]any)["dtype"] = "F32" }))
		f.Add(rewriteHeader(f, b, func(hdr map[string]any) { hdr["sv"].(map[string]any)["shape"] = []int{1 << 20, 0} }))
		f.Add(saved(f, m)) // with its checksum
	}
	// Models whose decisions cannot be finite, saved with a checksum.
	for _, ks := range []kernel.Spec{
		{Name: "rbf", Gamma: 1e308},
		{Name: "poly", Gamma: 1, Coef0: 1, Degree: 1_000_000_000},
		{Name: "poly", Gamma: 1e30, Degree: 20},
	} {
		f.Add(hostileModel(f, ks))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := loadBytes(b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "nsvm: ") && !strings.HasPrefix(err.Error(), "safetensors: ") &&
				!strings.HasPrefix(err.Error(), "nn: ") && !strings.HasPrefix(err.Error(), "kernel: ") {
				t.Fatalf("error without a package prefix: %v", err)
			}
			return
		}
		if m.InSize() < 1 || m.OutSize() < 1 || m.Head.NSV < 0 || len(m.Head.SV) != m.Head.NSV*m.Head.D || len(m.Head.Coef) != m.Head.NSV {
			t.Fatalf("inconsistent model: InSize %d, OutSize %d, NSV %d, %d SV values, %d coefficients",
				m.InSize(), m.OutSize(), m.Head.NSV, len(m.Head.SV), len(m.Head.Coef))
		}
		if !modelIsFinite(m) {
			t.Fatal("Load accepted a model that stores NaN or ±Inf")
		}
		checkLoaded(t, m)
	})
}

// checkLoaded checks a model the loader accepted: when its numbers are
// modest it predicts finite values with one of its labels, and it saves and
// loads back to the same decisions.
func checkLoaded(t *testing.T, m *Model) {
	t.Helper()
	if !modelIsModest(m) {
		return
	}
	const rows = 3
	x := make([]float32, rows*m.InSize())
	for i := range x {
		x[i] = float32(2 * math.Sin(float64(i)+0.5))
	}
	dec := make([]float64, rows)
	m.DecisionBatch(dec, x, rows)
	for i, v := range dec {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("decision %d is %v", i, v)
		}
		if p := m.Predict(x[i*m.InSize() : (i+1)*m.InSize()]); p != m.Head.Neg && p != m.Head.Pos {
			t.Fatalf("Predict returned %v, not one of the labels %v, %v", p, m.Head.Neg, m.Head.Pos)
		}
	}
	// What loads, saves; and saves to the same decisions.
	meta, ts, err := m.encode()
	if err != nil {
		t.Fatalf("a loaded model does not encode: %v", err)
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, meta, ts); err != nil {
		t.Fatalf("a loaded model does not save: %v", err)
	}
	again, err := loadBytes(buf.Bytes())
	if err != nil {
		t.Fatalf("a saved model does not load: %v", err)
	}
	dec2 := make([]float64, rows)
	again.DecisionBatch(dec2, x, rows)
	for i := range dec {
		if math.Float64bits(dec[i]) != math.Float64bits(dec2[i]) {
			t.Fatalf("decision %d: %v, after save and load %v", i, dec[i], dec2[i])
		}
	}
}

// fuzzSizeOK reports whether the metadata's input shape is small enough to
// build a network for on every fuzz input: the loader checks the parameter
// count against the file before it builds a network, but a network without
// parameters (say "relu") on a huge input still gets activation buffers of
// that size, which would only slow the fuzzer down.
func fuzzSizeOK(meta map[string]string) bool {
	var shape []int
	if json.Unmarshal([]byte(meta["in_shape"]), &shape) != nil {
		return true
	}
	p := 1
	for _, v := range shape {
		if v < 0 || v > 1<<16 {
			return false
		}
		if p *= max(v, 1); p > 1<<16 {
			return false
		}
	}
	return true
}

// FuzzLoadMetadata keeps the tensors of a valid model and fuzzes its
// metadata (a JSON object of strings): architecture, input shape, kernel,
// labels and bias that lie about the tensors. Same contract as FuzzLoad.
func FuzzLoadMetadata(f *testing.F) {
	models := fuzzModels(f)
	names := slices.Sorted(maps.Keys(models))
	files := make([][]byte, len(names))
	for i, name := range names {
		files[i] = encodeModel(f, models[name])
		fl, err := safetensors.Read(bytes.NewReader(files[i]), int64(len(files[i])))
		if err != nil {
			f.Fatal(err)
		}
		meta, _ := json.Marshal(fl.Metadata)
		f.Add(uint8(i), string(meta))
		for _, kv := range [][2]string{
			{"in_shape", "[2,2]"}, {"in_shape", "[1,2,2]"}, {"in_shape", "[0]"}, {"in_shape", "[-4]"},
			{"arch", "dense(3),relu,dense(2),l2norm,scale(1e30)"}, {"arch", ""},
			{"kernel", `{"name":"rbf","gamma":1,"normalized":true}`}, {"kernel", `{"name":"poly","degree":-1}`},
			{"label_neg", "1"}, {"label_pos", "1e400"}, {"bias", "-0"}, {"algorithm", ""},
		} {
			m2 := maps.Clone(fl.Metadata)
			m2[kv[0]] = kv[1]
			meta, _ := json.Marshal(m2)
			f.Add(uint8(i), string(meta))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, metaJSON string) {
		var meta map[string]string
		if json.Unmarshal([]byte(metaJSON), &meta) != nil || !fuzzSizeOK(meta) {
			return
		}
		base := files[int(which)%len(files)]
		b := rewriteHeader(t, base, func(hdr map[string]any) {
			m := map[string]any{}
			for k, v := range meta {
				m[k] = v
			}
			hdr["__metadata__"] = m
		})
		m, err := loadBytes(b)
		if err != nil {
			return
		}
		if m.InSize() < 1 || m.OutSize() < 1 {
			t.Fatalf("model with %d inputs and %d features", m.InSize(), m.OutSize())
		}
		checkLoaded(t, m)
	})
}

// TestLoadRejectsHostileModels: well-formed files that hold non-finite
// numbers, or ask for a network far larger than the parameters they hold,
// are refused, the latter without building the network.
func TestLoadRejectsHostileModels(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(m *Model)
		want string
	}{
		{"NaN coefficient", func(m *Model) { m.Head.Coef[0] = math.NaN() }, "coefficients"},
		{"Inf support vector", func(m *Model) { m.Head.SV[1] = float32(math.Inf(1)) }, "support vectors"},
		{"NaN parameter", func(m *Model) { m.Net.Params()[0].W[0] = float32(math.NaN()) }, "parameter"},
		{"NaN mean", func(m *Model) { m.Mean[2] = math.NaN() }, "input_mean"},
		{"zero std", func(m *Model) { m.Std[1] = 0 }, "input_std"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := fuzzModels(t)["mlp"]
			c.edit(m)
			_, err := loadBytes(encodeModel(t, m))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error about %s", err, c.want)
			}
		})
	}
	t.Run("huge network", func(t *testing.T) {
		b := encodeModel(t, fuzzModels(t)["mlp"])
		b = rewriteHeader(t, b, setMeta("in_shape", "[1048576]"))
		b = rewriteHeader(t, b, setMeta("arch", "dense(15),relu"))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := loadBytes(b)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatal("Load accepted a network without its parameters")
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Fatalf("a %d-byte file made Load allocate %d MB before refusing it: %v", len(b), alloc>>20, err)
		}
	})
}

// TestLoadFile runs the seed models through the file-based Load too.
func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	for name, m := range fuzzModels(t) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, encodeModel(t, m), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if l.Algorithm != m.Algorithm || l.InSize() != m.InSize() || l.Head.NSV != m.Head.NSV {
			t.Fatalf("%s: loaded %s with %d inputs and %d SVs", name, l.Algorithm, l.InSize(), l.Head.NSV)
		}
		x := make([]float32, m.InSize())
		for i := range x {
			x[i] = 0.1 * float32(i)
		}
		if a, b := m.Decision(x), l.Decision(x); a != b {
			t.Fatalf("%s: decision %v before save, %v after load", name, a, b)
		}
	}
}
