package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/safetensors"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

// saved returns the bytes Save writes for m.
func saved(t testing.TB, m *Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestEveryBitFlipIsAnError flips every bit of small model files with a
// network, with multiclass heads, and of a classical SVM: each flip is an
// error (before checksums, most flips loaded and predicted differently).
func TestEveryBitFlipIsAnError(t *testing.T) {
	models := fuzzModels(t)
	golden := goldenModels(t)
	for name, m := range map[string]*Model{"mlp": models["mlp"], "smo": models["smo"], "multiclass": golden["multiclass-ovo"], "cnn": golden["cnn"]} {
		t.Run(name, func(t *testing.T) {
			b := saved(t, m)
			stride := 1
			if testing.Short() {
				stride = 7
			}
			corrupt := 0
			for i := 0; i < 8*len(b); i += stride {
				c := bytes.Clone(b)
				c[i/8] ^= 1 << (i % 8)
				_, err := Read(bytes.NewReader(c))
				if err == nil {
					t.Fatalf("%s: byte %d bit %d flipped: the model loads", name, i/8, i%8)
				}
				if errors.Is(err, safetensors.ErrChecksum) {
					corrupt++
				}
			}
			t.Logf("%d bytes, %d flips: all errors, %d of them checksum mismatches", len(b), (8*len(b)+stride-1)/stride, corrupt)
		})
	}
}

// TestCorruptModelMessage: a flipped bit in a model's numbers is "the model
// file is corrupt: checksum mismatch", naming the file.
func TestCorruptModelMessage(t *testing.T) {
	b := saved(t, fuzzModels(t)["smo"])
	b[len(b)-40] ^= 0x10 // a coefficient or support vector value
	path := filepath.Join(t.TempDir(), "m.nsvm")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if !errors.Is(err, safetensors.ErrChecksum) || err.Error() != "nsvm: "+path+": the model file is corrupt: checksum mismatch" {
		t.Fatalf("Load: %v", err)
	}
	if _, err := Read(bytes.NewReader(b)); err == nil || err.Error() != "nsvm: the model file is corrupt: checksum mismatch" {
		t.Fatalf("Read: %v", err)
	}
}

// TestUncheckedModels: model files written before the checksum (the golden
// files as they were) still load, flagged Unchecked, and predict as before;
// saving them again adds the checksum.
func TestUncheckedModels(t *testing.T) {
	for name := range goldenModels(t) {
		t.Run(name, func(t *testing.T) {
			old := filepath.Join("testdata", "unchecked", name+".nsvm")
			m, err := Load(old)
			if err != nil {
				t.Fatal(err)
			}
			if !m.Unchecked {
				t.Fatal("a file without a checksum is not flagged Unchecked")
			}
			_, back := saveLoad(t, m)
			if back.Unchecked {
				t.Fatal("saved again, the model is still Unchecked")
			}
			a, b := goldenOutputs(m), goldenOutputs(back)
			for k, v := range a {
				for i := range v {
					if v[i] != b[k][i] {
						t.Fatalf("%s: %v before, %v after saving again", k, v, b[k])
					}
				}
			}
		})
	}
	_, m := saveLoad(t, fuzzModels(t)["mlp"])
	if m.Unchecked {
		t.Fatal("a saved model loads Unchecked")
	}
}

// TestUnknownTensor: a tensor no model has is refused (a renamed checksum
// tensor would otherwise make a corrupt file load as one without a
// checksum).
func TestUnknownTensor(t *testing.T) {
	b := saved(t, fuzzModels(t)["smo"])
	i := bytes.Index(b, []byte(safetensors.ChecksumName))
	b[i+2] ^= 0x01 // "__sha256__" → "__rha256__"
	_, err := Read(bytes.NewReader(b))
	if err == nil || !strings.Contains(err.Error(), `tensor "__rha256__" that no model has`) {
		t.Fatalf("a renamed checksum tensor: %v", err)
	}
}

// hostileModel returns the smo fuzz model with its kernel replaced, saved
// with a checksum (a hand-edited file resaved).
func hostileModel(t testing.TB, ks kernel.Spec) []byte {
	t.Helper()
	m := fuzzModels(t)["smo"]
	m.Head.Kernel = ks
	return saved(t, m)
}

// TestNonFiniteModelsRefused: models whose decisions cannot be finite (γ =
// 1e308, degree 1e9, coefficients that sum to Inf) are refused on load;
// they loaded and printed NaN or ±Inf decisions.
func TestNonFiniteModelsRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		ks   kernel.Spec
		want string
	}{
		{"rbf gamma 1e308", kernel.Spec{Name: "rbf", Gamma: 1e308}, "gamma"},
		{"poly degree 1e9", kernel.Spec{Name: "poly", Gamma: 1, Coef0: 1, Degree: 1_000_000_000}, "cannot be finite"},
		{"poly gamma 1e300", kernel.Spec{Name: "poly", Gamma: 1e300, Degree: 3}, "gamma"},
		{"poly gamma 1e30 degree 20", kernel.Spec{Name: "poly", Gamma: 1e30, Degree: 20}, "cannot be finite"},
		{"normalized poly degree 1e9", kernel.Spec{Name: "poly", Gamma: 1, Coef0: 1, Degree: 1_000_000_000, Normalized: true}, "cannot be finite"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(hostileModel(t, c.ks)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error about %s", err, c.want)
			}
		})
	}
	m := fuzzModels(t)["smo"]
	for i := range m.Head.Coef {
		m.Head.Coef[i] = math.MaxFloat64
	}
	if _, err := Read(bytes.NewReader(saved(t, m))); err == nil || !strings.Contains(err.Error(), "cannot be finite") {
		t.Fatalf("coefficients summing to Inf: %v", err)
	}
	// A multiclass model names the head.
	mc := goldenModels(t)["multiclass-ovo"]
	mc.Heads[1].Kernel = kernel.Spec{Name: "poly", Gamma: 1e30, Degree: 20}
	for _, h := range mc.Heads {
		h.Kernel = mc.Heads[1].Kernel
	}
	if _, err := Read(bytes.NewReader(saved(t, mc))); err == nil || !strings.Contains(err.Error(), "head 0's decision") {
		t.Fatalf("a multiclass model: %v", err)
	}
}

// TestNonFiniteLIBSVMModels: svm-train's model files with γ = 1e308 or
// degree 1e9 are refused too.
func TestNonFiniteLIBSVMModels(t *testing.T) {
	const model = "svm_type c_svc\nkernel_type polynomial\ndegree %s\ngamma %s\ncoef0 1\nnr_class 2\ntotal_sv 2\nrho 0.5\nlabel 1 -1\nnr_sv 1 1\nSV\n1 1:0.5 2:1\n-1 1:-1 3:0.25\n"
	for _, c := range []struct{ degree, gamma, want string }{
		{"3", "0.5", ""},
		{"1000000000", "0.5", "cannot be finite"},
		{"3", "1e308", "gamma"},
	} {
		m, err := Read(strings.NewReader(fmt.Sprintf(model, c.degree, c.gamma)))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("degree %s, gamma %s: %v, want %q", c.degree, c.gamma, err, c.want)
		}
		if err == nil && m.Unchecked {
			t.Error("a LIBSVM model is flagged Unchecked")
		}
	}
}

// TestNonFiniteDecisionsAreErrors: a model that is finite on its support
// vectors but overflows on an input gives an error from PredictDataset
// (and Evaluate), not NaN.
func TestNonFiniteDecisionsAreErrors(t *testing.T) {
	m := &Model{Algorithm: "smo", Info: map[string]string{},
		Head: &svm.Model{Kernel: kernel.Spec{Name: "poly", Gamma: 1, Degree: 200}, SV: []float32{0.5, 0.5}, NSV: 1, D: 2, Coef: []float64{1}, Neg: -1, Pos: 1}}
	if _, err := Read(bytes.NewReader(saved(t, m))); err != nil {
		t.Fatalf("a model finite on its support vectors: %v", err)
	}
	ds := &data.Dataset{X: []float32{0.1, 0.1, 1e3, 1e3}, Y: []float64{1, -1}, N: 2, D: 2}
	if _, err := m.PredictDataset(ds, false); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Fatalf("PredictDataset: %v", err)
	}
	if _, err := m.Evaluate(ds); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Fatalf("Evaluate: %v", err)
	}
}

// TestSaveErrorsNameTheFile: Save's errors name the model file, never a
// temporary one.
func TestSaveErrorsNameTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "m.nsvm")
	err := fuzzModels(t)["smo"].Save(path)
	if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "/.m.nsvm") {
		t.Fatalf("Save into a missing directory: %v", err)
	}
}

// TestHeaderLengthFlips: the files' header lengths are multiples of 8, so
// flipping a low bit of the length cuts the header in its padding; such a
// file must still be refused (the data no longer tiles).
func TestHeaderLengthFlips(t *testing.T) {
	b := saved(t, fuzzModels(t)["linear"])
	for bit := range 3 {
		c := bytes.Clone(b)
		n := binary.LittleEndian.Uint64(c)
		binary.LittleEndian.PutUint64(c, n^1<<bit)
		if _, err := Read(bytes.NewReader(c)); err == nil {
			t.Fatalf("header length %d → %d: loads", n, n^1<<bit)
		}
	}
}

// BenchmarkChecksum measures what the checksum costs a large model: Save
// and Load of 100 000 support vectors of 100 features (40 MB), with the
// checksum (as Save writes) and without (safetensors.Write, as before).
func BenchmarkChecksum(b *testing.B) {
	const nsv, d = 100_000, 100
	h := &svm.Model{Kernel: kernel.Spec{Name: "rbf", Gamma: 0.1}, SV: make([]float32, nsv*d), NSV: nsv, D: d, Coef: make([]float64, nsv), Neg: -1, Pos: 1}
	for i := range h.SV {
		h.SV[i] = float32(i%97) / 97
	}
	for i := range h.Coef {
		h.Coef[i] = float64(i%13) - 6
	}
	m := &Model{Algorithm: "smo", Head: h, Info: map[string]string{}}
	dir := b.TempDir()
	for _, c := range []struct {
		name string
		sum  bool
	}{{"plain", false}, {"checksum", true}} {
		path := filepath.Join(dir, c.name+".nsvm")
		b.Run("Save/"+c.name, func(b *testing.B) {
			for b.Loop() {
				if c.sum {
					if err := m.Save(path); err != nil {
						b.Fatal(err)
					}
					continue
				}
				meta, ts, err := m.encode()
				if err != nil {
					b.Fatal(err)
				}
				f, err := os.Create(path)
				if err != nil {
					b.Fatal(err)
				}
				if err := safetensors.Write(f, meta, ts); err != nil {
					b.Fatal(err)
				}
				if err := f.Sync(); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
		b.Run("Load/"+c.name, func(b *testing.B) {
			for b.Loop() {
				l, err := Load(path)
				if err != nil || l.Unchecked == c.sum {
					b.Fatal(err)
				}
			}
		})
	}
}
