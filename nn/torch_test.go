package nn

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"testing"
)

// The fixtures come from testdata/make_fixtures.py (PyTorch 1.13, float32,
// one thread): the paper's MLP and CNN (dropout probability 0), a fixed
// batch x and cotangent c, L = Σ c·out.
type torchFixture struct {
	Spec    string `json:"spec"`
	InShape []int  `json:"in_shape"`
	Batch   int    `json:"batch"`
	Tensors map[string]struct {
		Shape  []int `json:"shape"`
		Offset int   `json:"offset"`
	} `json:"tensors"`
	data []float32
}

func (f *torchFixture) get(t *testing.T, name string) []float32 {
	t.Helper()
	e, ok := f.Tensors[name]
	if !ok {
		t.Fatalf("fixture has no tensor %q", name)
	}
	n := 1
	for _, v := range e.Shape {
		n *= v
	}
	return f.data[e.Offset : e.Offset+n]
}

func loadTorchFixtures(t *testing.T) map[string]*torchFixture {
	t.Helper()
	js, err := os.ReadFile("testdata/torch_fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/torch_fixtures.bin")
	if err != nil {
		t.Fatal(err)
	}
	data := make([]float32, len(raw)/4)
	for i := range data {
		data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	var idx map[string]json.RawMessage
	if err := json.Unmarshal(js, &idx); err != nil {
		t.Fatal(err)
	}
	out := map[string]*torchFixture{}
	for _, name := range []string{"mlp", "cnn", "bn"} {
		f := &torchFixture{data: data}
		if err := json.Unmarshal(idx[name], f); err != nil {
			t.Fatal(err)
		}
		out[name] = f
	}
	return out
}

// Tolerances against PyTorch, as |go − torch| ≤ tol·max|torch| per tensor.
// The sums run in a different order than oneDNN's (conv weight gradients sum
// batch·576 products), so agreement is to float32 rounding, not bit-exact:
// the largest difference measured is 9e-7 (grad0/0.weight of the CNN), the
// outputs differ by at most 7e-7.
const (
	torchOutTol   = 1e-5
	torchGradTol  = 1e-5
	torchParamTol = 1e-5
)

func checkClose(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	if d := maxRelDiff(got, want); d > tol || math.IsNaN(d) {
		t.Errorf("%s: differs from PyTorch by %.3g of its scale (tolerance %.1g)", what, d, tol)
	}
}

// TestAgainstPyTorch loads PyTorch's initial parameters into a Net, runs the
// same forward pass, backward pass and optimizer steps, and compares every
// output, gradient and updated parameter.
func TestAgainstPyTorch(t *testing.T) {
	fx := loadTorchFixtures(t)
	for _, name := range []string{"mlp", "cnn", "bn"} {
		f := fx[name]
		_, bn := f.Tensors["eval2"]
		for _, split := range []bool{false, true} {
			if split && bn {
				continue // a split batch normalises its parts apart (TestGhostBatchNorm)
			}
			t.Run(name+map[bool]string{false: "", true: "/split"}[split], func(t *testing.T) {
				n := mustNew(t, f.Spec, f.InShape, 99)
				if split {
					n.maxParts, n.splitWork = 2, 0
				}
				load := func() {
					for _, p := range n.Params() {
						w := f.get(t, "param0/"+p.Name)
						if len(w) != len(p.W) {
							t.Fatalf("%s: %d values, want %d", p.Name, len(w), len(p.W))
						}
						copy(p.W, w)
					}
				}
				load()
				x, c := f.get(t, "x"), f.get(t, "c")
				step := func(tag string) {
					n.ZeroGrad()
					checkClose(t, "out"+tag, n.Forward(x, f.Batch, true), f.get(t, "out"+tag), torchOutTol)
					n.Backward(c)
					for _, p := range n.Params() {
						if !p.Buffer {
							checkClose(t, "grad"+tag+"/"+p.Name, p.G, f.get(t, "grad"+tag+"/"+p.Name), torchGradTol)
						}
					}
				}
				sgd := NewSGD(n.Params(), 0.01, 0.9, 1e-4, false)
				step("0")
				sgd.Step()
				step("1")
				sgd.Step()
				for _, p := range n.Params() {
					checkClose(t, "sgd2/"+p.Name, p.W, f.get(t, "sgd2/"+p.Name), torchParamTol)
				}
				feats := make([]float32, f.Batch*n.OutSize())
				n.Features(feats, x, f.Batch)
				if bn {
					// Inference normalises by the running statistics.
					checkClose(t, "eval2", feats, f.get(t, "eval2"), torchOutTol)
				} else {
					// Inference agrees with the train-mode pass (dropout
					// p = 0).
					checkClose(t, "features", feats, n.Forward(x, f.Batch, true), 1e-6)
				}

				load()
				adam := NewAdam(n.Params(), 1e-3, 0.9, 0.999, 1e-8, 1e-4)
				for range 2 {
					n.ZeroGrad()
					n.Forward(x, f.Batch, true)
					n.Backward(c)
					adam.Step()
				}
				for _, p := range n.Params() {
					checkClose(t, "adam2/"+p.Name, p.W, f.get(t, "adam2/"+p.Name), torchParamTol)
				}
			})
		}
	}
}
