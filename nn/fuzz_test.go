package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// fuzzCanonical joins the canonical tokens of specs.
func fuzzCanonical(specs []LayerSpec) string {
	toks := make([]string, len(specs))
	for i, s := range specs {
		toks[i] = s.String()
	}
	return strings.Join(toks, ",")
}

// fuzzSmall reports whether a parsed spec is cheap enough to build and run on
// every fuzz input.
func fuzzSmall(specs []LayerSpec) bool {
	if len(specs) > 12 {
		return false
	}
	for _, s := range specs {
		if s.N > 32 || s.K > 8 || (s.Kind == Scale && math.Abs(s.P) > 1e3) {
			return false
		}
	}
	return true
}

// FuzzParseArch checks that ParseArch never panics, that its errors carry
// the package prefix, and that a parsed spec's canonical form parses back to
// the same layers (and is its own canonical form). Specs that parse and are
// small are also built on a vector and an image input: New either returns an
// error or a network whose forward and backward passes give finite values of
// the promised sizes.
func FuzzParseArch(f *testing.F) {
	for _, s := range []string{
		RingnormArch, RingnormArchNoNorm, MNISTArch, MNISTArchNoNorm,
		"dense(3)", " conv(10, 5) , maxpool(2),RELU,flatten", "dropout2d(0.5),dropout(0),scale(-2.5e-1)",
		"l2norm,l2norm(1e-6),tanh,sigmoid", "conv(2,3),maxpool(2),relu,dropout2d(0.25),flatten,dense(4),l2norm",
		"dense(40),relu,dense(x)", "", "relu,,relu", "dense(0)", "dense(3", "dense(3,4)", "conv(3)", "maxpool",
		"relu(2)", "dropout(1)", "l2norm(0)", "scale(nan)", "softmax", "dense(99999999999)", ")(", "dense((3))",
		"scale(0x1p-3)", "dense(+3)", "DENSE(2),Tanh", "scale(1e-320)", "l2norm(1e-300)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		specs, err := ParseArch(spec)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "nn: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		if len(specs) == 0 {
			t.Fatal("no layers and no error")
		}
		canon := fuzzCanonical(specs)
		again, err := ParseArch(canon)
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", canon, spec, err)
		}
		if !slices.Equal(again, specs) {
			t.Fatalf("%q parses to %v, its canonical form %q to %v", spec, specs, canon, again)
		}
		if c2 := fuzzCanonical(again); c2 != canon {
			t.Fatalf("canonical form is not stable: %q → %q", canon, c2)
		}
		if !fuzzSmall(specs) {
			return
		}
		for _, shape := range [][]int{{6}, {2, 7, 7}} {
			net, err := New(spec, shape, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				if !strings.HasPrefix(err.Error(), "nn: ") {
					t.Fatalf("New error without the package prefix: %v", err)
				}
				continue
			}
			if net.Spec() != spec || net.InSize() != fuzzProd(shape) || net.OutSize() < 1 {
				t.Fatalf("New(%q, %v): Spec %q, InSize %d, OutSize %d", spec, shape, net.Spec(), net.InSize(), net.OutSize())
			}
			const rows = 3
			x := make([]float32, rows*net.InSize())
			for i := range x {
				x[i] = float32(math.Sin(float64(i)))
			}
			z := make([]float32, rows*net.OutSize())
			net.Features(z, x, rows)
			if i := fuzzNonFinite(z); i >= 0 {
				t.Fatalf("New(%q, %v): feature %d is %v", spec, shape, i, z[i])
			}
			out := net.Forward(x, rows, true)
			if len(out) != len(z) {
				t.Fatalf("Forward returned %d values, want %d", len(out), len(z))
			}
			dout := make([]float32, len(out))
			for i := range dout {
				dout[i] = 1
			}
			net.ZeroGrad()
			net.Backward(dout)
			for _, p := range net.Params() {
				if i := fuzzNonFinite(p.G); i >= 0 {
					t.Fatalf("New(%q, %v): gradient %s[%d] is %v", spec, shape, p.Name, i, p.G[i])
				}
			}
		}
	})
}

func fuzzProd(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}

// fuzzNonFinite returns the index of the first NaN or ±Inf in v, or −1.
func fuzzNonFinite(v []float32) int {
	for i, x := range v {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return i
		}
	}
	return -1
}
