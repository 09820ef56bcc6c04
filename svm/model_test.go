package svm

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nsvm-go/nsvm/internal/safetensors"
	"github.com/nsvm-go/nsvm/kernel"
)

func TestSaveLoad(t *testing.T) {
	rng := newRNG(3)
	train, test := ringnorm(300, 6, rng), ringnorm(200, 6, rng)
	dir := t.TempDir()
	for _, k := range []kernel.Kernel{
		kernel.RBF{Gamma: 0.3},
		kernel.Linear{},
		kernel.Poly{Gamma: 0.2, Coef0: 1, Degree: 3},
		kernel.Normalized{K: kernel.Poly{Gamma: 0.5, Coef0: 1, Degree: 2}},
	} {
		t.Run(k.Spec().String(), func(t *testing.T) {
			m := mustSMO(t, train, k, SMOConfig{C: 2})
			m.Neg, m.Pos = 4, 9
			p := filepath.Join(dir, "m.safetensors")
			if err := m.Save(p); err != nil {
				t.Fatal(err)
			}
			g, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if g.Kernel != m.Kernel || g.Bias != m.Bias || g.Neg != 4 || g.Pos != 9 || g.NSV != m.NSV || g.D != m.D {
				t.Fatalf("loaded %+v %g %g %g, saved %+v %g", g.Kernel, g.Bias, g.Neg, g.Pos, m.Kernel, m.Bias)
			}
			if !slices.Equal(g.SV, m.SV) || !slices.Equal(g.Coef, m.Coef) {
				t.Fatal("support vectors or coefficients differ")
			}
			for key, v := range m.Info {
				if g.Info[key] != v {
					t.Errorf("Info[%q] = %q, want %q", key, g.Info[key], v)
				}
			}
			for i := 0; i < test.N; i++ {
				x := test.row(i)
				if a, b := m.Decision(x), g.Decision(x); a != b {
					t.Fatalf("point %d: decision %g before, %g after", i, a, b)
				}
				if m.Predict(x) != g.Predict(x) {
					t.Fatalf("point %d: prediction differs", i)
				}
			}
			// The file is deterministic.
			b1, _ := os.ReadFile(p)
			g.Save(p)
			if b2, _ := os.ReadFile(p); !slices.Equal(b1, b2) {
				t.Error("save → load → save changed the bytes")
			}
		})
	}
}

func TestLoadRejects(t *testing.T) {
	dir := t.TempDir()
	good := map[string]string{"format": FormatVersion, "kernel": `{"name":"rbf","gamma":1}`, "bias": "0.5", "label_neg": "-1", "label_pos": "1"}
	ts := []safetensors.Tensor{
		safetensors.F32("sv", []int{2, 3}, []float32{1, 2, 3, 4, 5, 6}),
		safetensors.F64("coef", []int{2}, []float64{1, -1}),
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name string
		meta map[string]string
		ts   []safetensors.Tensor
	}{
		{"format", with("format", "nsvm/1"), ts},
		{"kernel json", with("kernel", "{"), ts},
		{"kernel name", with("kernel", `{"name":"cubic"}`), ts},
		{"bias", with("bias", "NaN"), ts},
		{"no bias", with("bias", ""), ts},
		{"same labels", with("label_pos", "-1"), ts},
		{"no coef", good, ts[:1]},
		{"coef shape", good, []safetensors.Tensor{ts[0], safetensors.F64("coef", []int{3}, []float64{1, 2, 3})}},
		{"coef dtype", good, []safetensors.Tensor{ts[0], safetensors.F32("coef", []int{2}, []float32{1, 2})}},
		{"sv rank", good, []safetensors.Tensor{safetensors.F32("sv", []int{6}, []float32{1, 2, 3, 4, 5, 6}), ts[1]}},
		{"non-finite coef", good, []safetensors.Tensor{ts[0], safetensors.F64("coef", []int{2}, []float64{math.Inf(1), 1})}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "m")
			if err := safetensors.WriteFile(p, c.meta, c.ts); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(p); err == nil || !strings.HasPrefix(err.Error(), "svm: ") {
				t.Errorf("error %v", err)
			}
		})
	}
	p := filepath.Join(dir, "ok")
	safetensors.WriteFile(p, good, ts)
	if _, err := Load(p); err != nil {
		t.Errorf("valid file: %v", err)
	}
}

func TestDecisionBatch(t *testing.T) {
	rng := newRNG(5)
	train, test := ringnorm(400, 8, rng), ringnorm(1500, 8, rng)
	for _, k := range []kernel.Kernel{kernel.RBF{Gamma: 0.1}, kernel.Linear{}, kernel.Sigmoid{Gamma: 0.01, Coef0: 0.1}} {
		m := mustSMO(t, train, k, SMOConfig{})
		dst := make([]float64, test.N)
		m.DecisionBatch(dst, test.X, test.N)
		for i := 0; i < test.N; i++ {
			if want := m.Decision(test.row(i)); math.Abs(dst[i]-want) > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("%s: row %d: batch %g, single %g", k.Spec(), i, dst[i], want)
			}
		}
	}
	// Linear: the collapsed w gives the kernel expansion's value.
	m := mustSMO(t, train, kernel.Linear{}, SMOConfig{})
	x := test.row(0)
	var s float64
	for j := 0; j < m.NSV; j++ {
		s += m.Coef[j] * kernel.Linear{}.Eval(m.SV[j*m.D:(j+1)*m.D], x)
	}
	if d := m.Decision(x); math.Abs(d-(s+m.Bias)) > 1e-9*(1+math.Abs(d)) {
		t.Errorf("linear decision %g, expansion %g", d, s+m.Bias)
	}
}

func TestDecisionConcurrent(t *testing.T) {
	rng := newRNG(6)
	train, test := ringnorm(300, 5, rng), ringnorm(400, 5, rng)
	m, err := Pegasos(context.Background(), train, kernel.RBF{Gamma: 0.2}, PegasosConfig{T: 3000}, newRNG(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, test.N)
	for i := range want {
		want[i] = (&Model{Kernel: m.Kernel, SV: m.SV, NSV: m.NSV, D: m.D, Coef: m.Coef}).Decision(test.row(i))
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for i := 0; i < test.N; i++ {
				if d := m.Decision(test.row(i)); d != want[i] {
					t.Errorf("row %d: %g, want %g", i, d, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestModelDefaults(t *testing.T) {
	m := &Model{Kernel: kernel.Spec{Name: "linear"}, SV: []float32{1, 0}, NSV: 1, D: 2, Coef: []float64{1}}
	if m.Predict([]float32{1, 0}) != 1 || m.Predict([]float32{-1, 0}) != -1 {
		t.Error("zero labels are not −1/+1")
	}
	empty := &Model{Kernel: kernel.Spec{Name: "rbf", Gamma: 1}, D: 3, Bias: -0.5}
	if empty.Decision([]float32{1, 2, 3}) != -0.5 {
		t.Error("a model without support vectors is not its bias")
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "svm: ") {
			t.Errorf("panic %v", r)
		}
	}()
	m.Decision([]float32{1})
}
