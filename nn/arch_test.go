package nn

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseArch(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []LayerSpec
	}{
		{"dense(3)", []LayerSpec{{Kind: Dense, N: 3}}},
		{" conv(10, 5) , maxpool(2),RELU,flatten", []LayerSpec{{Kind: Conv, N: 10, K: 5}, {Kind: MaxPool, K: 2}, {Kind: ReLU}, {Kind: Flatten}}},
		{"dropout2d(0.5),dropout(0),scale(-2.5e-1)", []LayerSpec{{Kind: Dropout2D, P: 0.5}, {Kind: Dropout}, {Kind: Scale, P: -0.25}}},
		{"l2norm,l2norm(1e-6),tanh,sigmoid", []LayerSpec{{Kind: L2Norm, P: 1e-12}, {Kind: L2Norm, P: 1e-6}, {Kind: Tanh}, {Kind: Sigmoid}}},
		{"conv(8,1),MeanPool", []LayerSpec{{Kind: Conv, N: 8, K: 1}, {Kind: MeanPool}}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			got, err := ParseArch(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			// The canonical tokens parse back to the same specs.
			toks := make([]string, len(got))
			for i, s := range got {
				toks[i] = s.String()
			}
			again, err := ParseArch(strings.Join(toks, ","))
			if err != nil || !slices.Equal(again, got) {
				t.Fatalf("round trip %q: %v, %v", strings.Join(toks, ","), again, err)
			}
		})
	}
}

func TestParseArchErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"dense(40),relu,dense(x)", `nn: arch "dense(40),relu,dense(x)": token 3 "dense(x)": width must be a positive integer`},
		{"", `nn: arch "": empty`},
		{"relu,,relu", `token 2 is empty`},
		{"dense(0)", `token 1 "dense(0)": width must be a positive integer`},
		{"dense(3", `token 1 "dense(3": missing closing parenthesis`},
		{"dense(3,4)", `token 1 "dense(3,4)": want dense(N)`},
		{"conv(3)", `want conv(C,K)`},
		{"conv(3,-1)", `kernel size must be a positive integer`},
		{"maxpool", `want maxpool(K)`},
		{"relu(2)", `relu takes no arguments`},
		{"meanpool(2)", `meanpool takes no arguments`},
		{"dropout(1)", `probability must be in [0, 1)`},
		{"dropout2d(-0.1)", `probability must be in [0, 1)`},
		{"l2norm(0)", `eps must be positive`},
		{"scale(nan)", `factor must be a finite number`},
		{"softmax", `token 1 "softmax": unknown layer`},
		{"dense(99999999999)", `width 99999999999 is too large`},
		{"dense(20000000)", `too large`},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := ParseArch(tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestNewShapeErrors(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		shape []int
		want  string
	}{
		{"conv(2,3)", []int{20}, `token 1 "conv(2,3)": conv needs a channels×height×width input, got 20 features`},
		{"conv(2,5)", []int{1, 4, 4}, `kernel 5 does not fit the 4×4 input`},
		{"conv(2,3),maxpool(2),conv(2,2)", []int{1, 4, 4}, `token 3 "conv(2,2)": kernel 2 does not fit the 1×1 input`},
		{"dense(4),maxpool(2)", []int{8}, `maxpool needs`},
		{"dense(4),dropout2d(0.5)", []int{8}, `dropout2d needs a channels×height×width input, got 4 features (use dropout)`},
		{"maxpool(3)", []int{1, 2, 5}, `pool size 3 does not fit the 2×5 input`},
		{"dense(4),meanpool", []int{8}, `token 2 "meanpool": meanpool needs a channels×height×width input, got 4 features`},
		{"relu", []int{2, 3}, `input shape [2 3]`},
		{"relu", []int{0}, `sizes must be`},
		{"dense(16000000),dense(20)", []int{20}, `more than`},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := New(tc.spec, tc.shape, newRand(1))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestPaperNets(t *testing.T) {
	type pshape struct {
		name  string
		shape []int
	}
	for _, tc := range []struct {
		spec    string
		in      []int
		out     int
		nparams int
		params  []pshape
	}{
		{RingnormArch, []int{20}, 20, 3110, []pshape{{"0.weight", []int{40, 20}}, {"0.bias", []int{40}}, {"2.weight", []int{30, 40}}, {"2.bias", []int{30}}, {"4.weight", []int{20, 30}}, {"4.bias", []int{20}}, {"6.weight", []int{20, 20}}, {"6.bias", []int{20}}}},
		{RingnormArchNoNorm, []int{20}, 20, 3110, nil},
		{MNISTArch, []int{1, 28, 28}, 320, 260 + 5020, []pshape{{"0.weight", []int{10, 1, 5, 5}}, {"0.bias", []int{10}}, {"3.weight", []int{20, 10, 5, 5}}, {"3.bias", []int{20}}}},
		{MNISTArchNoNorm, []int{1, 28, 28}, 320, 5280, nil},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			n := mustNew(t, tc.spec, tc.in, 1)
			if n.OutSize() != tc.out || n.NumParams() != tc.nparams || n.Spec() != tc.spec || !slices.Equal(n.InShape(), tc.in) {
				t.Fatalf("OutSize %d NumParams %d Spec %q InShape %v", n.OutSize(), n.NumParams(), n.Spec(), n.InShape())
			}
			for i, p := range tc.params {
				got := n.Params()[i]
				if got.Name != p.name || !slices.Equal(got.Shape, p.shape) || len(got.W) != len(got.G) {
					t.Errorf("param %d: %s %v, want %s %v", i, got.Name, got.Shape, p.name, p.shape)
				}
			}
		})
	}
	if !strings.HasPrefix(RingnormArch, RingnormArchNoNorm+",l2norm") || !strings.HasPrefix(MNISTArch, MNISTArchNoNorm+",l2norm,scale(") {
		t.Error("the NoNorm variants are not prefixes of the paper specs")
	}
}

// TestInit checks PyTorch's default init: every weight and bias within
// ±1/√fan_in and spread over it (variance of U(−b, b) is b²/3).
func TestInit(t *testing.T) {
	n := mustNew(t, MNISTArch, []int{1, 28, 28}, 7)
	for _, p := range n.Params() {
		w := n.Params()[0]
		if p.Name[0] == '3' {
			w = n.Params()[2]
		}
		fanIn := len(w.W) / w.Shape[0]
		b := 1 / float32(math.Sqrt(float64(fanIn)))
		var ss float64
		for _, v := range p.W {
			if v < -b || v > b {
				t.Fatalf("%s: %g outside ±%g", p.Name, v, b)
			}
			ss += float64(v * v)
		}
		if len(p.W) > 100 {
			if v := ss / float64(len(p.W)); v < 0.8*float64(b*b)/3 || v > 1.2*float64(b*b)/3 {
				t.Errorf("%s: variance %g, want ≈ %g", p.Name, v, float64(b*b)/3)
			}
		}
	}
}
