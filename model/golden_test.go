package model

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

var update = flag.Bool("update", false, "rewrite the golden model files in testdata/golden")

// goldenModels builds one model of each kind by hand (no training, so that
// the files change only when the format does): a binary MLP model with a
// scaler and probabilities, a multiclass one-vs-one SVM without network, a
// regressor, a CNN, and a model with a selection record.
func goldenModels(t *testing.T) map[string]*Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(42, 42))
	vals := func(n int, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(scale * rng.NormFloat64())
		}
		return v
	}
	coefs := func(n int) []float64 {
		c := make([]float64, n)
		for i := range c {
			c[i] = rng.NormFloat64()
		}
		return c
	}
	net := func(arch string, shape []int) *nn.Net {
		n, err := nn.New(arch, shape, rng)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	head := func(n, d int, k kernel.Spec) *svm.Model {
		return &svm.Model{Kernel: k, SV: vals(n*d, 1), NSV: n, D: d, Coef: coefs(n), Bias: 0.25, Neg: -1, Pos: 1}
	}
	rbf := kernel.Spec{Name: "rbf", Gamma: 0.5}
	out := map[string]*Model{}

	mlp := net("dense(6),relu,dense(4),relu", []int{3})
	b := &Model{Algorithm: "nsvm4", Net: mlp, Head: head(5, 4, rbf), Mean: []float64{1, 2, 3}, Std: []float64{0.5, 1, 2},
		Info: map[string]string{"lambda": "0.0001", "steps": "100"}, Platt: &svm.Platt{A: -1.5}}
	b.Head.Neg, b.Head.Pos = 3, 7
	out["binary"] = b

	mc := &Model{Algorithm: "smo", Info: map[string]string{"C": "10"}}
	mc.SetHeads([]float64{-1, 0, 5}, OneVsOne, []*svm.Model{head(4, 3, rbf), head(3, 3, rbf), head(2, 3, rbf)})
	out["multiclass-ovo"] = mc

	reg := &Model{Algorithm: "nsvm4", Task: Regression, Net: net("dense(5),relu,l2norm", []int{3}), Head: head(6, 5, rbf),
		Info: map[string]string{"epsilon": "0.1"}}
	out["regression"] = reg

	cnn := &Model{Algorithm: "nsvm4", Net: net("conv(2,3),maxpool(2),relu,flatten", []int{1, 8, 8}),
		Head: head(3, 18, kernel.Spec{Name: "rbf", Gamma: 1.0 / 18}), Info: map[string]string{}}
	out["cnn"] = cnn

	sel := &Model{Algorithm: "smo", Head: head(3, 3, rbf), Mean: []float64{0, 0, 0}, Std: []float64{1, 1, 1},
		Info: map[string]string{"selected": "smo rbf γ=0.5 C=1 (standardize)"},
		Selection: &Selection{Validation: "5-fold", Metric: "accuracy", Winner: 1, Candidates: []CandidateScore{
			{Name: "smo rbf γ=0.5 C=0.1 (standardize)", Score: 0.9, Std: 0.01},
			{Name: "smo rbf γ=0.5 C=1 (standardize)", Score: 0.95, Std: 0.02},
			{Name: "nsvm4 dense(8),relu (standardize)", Err: "pruned: first fold"}}}}
	out["selection"] = sel
	return out
}

// goldenOutputs returns what a model computes on fixed inputs: decision
// values of every head, predictions, and probabilities when calibrated.
func goldenOutputs(m *Model) map[string][]float64 {
	rng := rand.New(rand.NewPCG(7, 7))
	rows := 4
	x := make([]float32, rows*m.InSize())
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	out := map[string][]float64{}
	dec := make([]float64, rows*m.numHeads())
	m.HeadDecisions(dec, x, rows)
	out["decisions"] = dec
	pred := make([]float64, rows)
	m.PredictBatch(pred, x, rows)
	out["predictions"] = pred
	if m.Platt != nil {
		p := make([]float64, rows*len(m.Labels()))
		m.Probabilities(p, x, rows)
		out["probabilities"] = p
	}
	return out
}

// TestGoldenModels: the model file format is fixed by checked-in files of
// every kind. A change in what Save writes, or in what Load reads back and
// predicts, fails here; rerun with -update when the format changes on
// purpose (and say so in FormatVersion).
func TestGoldenModels(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	for name, m := range goldenModels(t) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".nsvm")
			outPath := filepath.Join(dir, name+".json")
			tmp, _ := saveLoad(t, m)
			got, err := os.ReadFile(tmp)
			if err != nil {
				t.Fatal(err)
			}
			outs, err := json.MarshalIndent(goldenOutputs(m), "", " ")
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(outPath, append(outs, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGoldenModels -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Save writes %d bytes that differ from %s (%d bytes)", len(got), path, len(want))
			}
			var buf bytes.Buffer
			if n, err := m.WriteTo(&buf); err != nil || n != int64(len(got)) || !bytes.Equal(buf.Bytes(), got) {
				t.Errorf("WriteTo wrote %d bytes (%v) that differ from Save's %d", n, err, len(got))
			}
			back, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if r, err := Read(bytes.NewReader(want)); err != nil {
				t.Errorf("Read: %v", err)
			} else if rb := new(bytes.Buffer); func() error { _, err := r.WriteTo(rb); return err }() != nil || !bytes.Equal(rb.Bytes(), want) {
				t.Errorf("Read then WriteTo does not give the file's bytes back")
			}
			var wantOut map[string][]float64
			b, err := os.ReadFile(outPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &wantOut); err != nil {
				t.Fatal(err)
			}
			// Decision values within float32 rounding (the kernels' vector
			// paths may differ in the last bits between machines);
			// class predictions exactly.
			for k, v := range goldenOutputs(back) {
				w := wantOut[k]
				if len(v) != len(w) {
					t.Fatalf("%s: %d values, want %d", k, len(v), len(w))
				}
				for i := range v {
					exact := k == "predictions" && !back.Regression()
					if exact && v[i] != w[i] || math.Abs(v[i]-w[i]) > 1e-5*(1+math.Abs(w[i])) {
						t.Errorf("%s of the loaded %s: %v, want %v", k, path, v, w)
						break
					}
				}
			}
			if len(goldenOutputs(back)) != len(wantOut) {
				t.Errorf("outputs %d, want %d", len(goldenOutputs(back)), len(wantOut))
			}
		})
	}
}

// TestClone checks that a clone writes the same file as its model and that
// changing the clone's network, support vectors, coefficients and metadata
// leaves the model as it was.
func TestClone(t *testing.T) {
	for name, m := range goldenModels(t) {
		t.Run(name, func(t *testing.T) {
			before := saved(t, m)
			c := m.Clone()
			if !bytes.Equal(saved(t, c), before) {
				t.Fatal("the clone writes another file")
			}
			c.Info["changed"] = "yes"
			hs := c.Heads
			if hs == nil {
				hs = []*svm.Model{c.Head}
			}
			for _, h := range hs {
				if len(h.SV) > 0 {
					h.SV[0]++
				}
				if h.SVSparse != nil && len(h.SVSparse.Val) > 0 {
					h.SVSparse.Val[0]++
				}
				h.Coef[0]++
			}
			if c.Net != nil {
				for _, p := range c.Net.Params() {
					p.W[0]++
				}
			}
			if !bytes.Equal(saved(t, m), before) {
				t.Fatal("changing the clone changed the model")
			}
			if bytes.Equal(saved(t, c), before) {
				t.Fatal("the changes did not reach the clone's file")
			}
		})
	}
}
