package nn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/nsvm-go/nsvm/nn"
)

// One θ-step on a single sample: the caller computes ∂L/∂F_θ(x) itself
// (here for L = −Σ F_θ(x)) and hands it to Backward.
func Example() {
	rng := rand.New(rand.NewPCG(1, 1^0x9e3779b97f4a7c15))
	net, err := nn.New(nn.RingnormArch, []int{20}, rng)
	if err != nil {
		panic(err)
	}
	opt := nn.NewSGD(net.Params(), 0.01, 0.9, 1e-4, false)

	x := make([]float32, net.InSize())
	for i := range x {
		x[i] = float32(i%5) - 2
	}
	z := net.Forward(x, 1, true)
	var norm float64
	for _, v := range z {
		norm += float64(v) * float64(v)
	}
	dz := make([]float32, net.OutSize())
	for i := range dz {
		dz[i] = -1
	}
	opt.ZeroGrad()
	net.Backward(dz)
	opt.Step()

	fmt.Println("parameters:", net.NumParams(), "features:", net.OutSize())
	fmt.Printf("‖F_θ(x)‖ = %.3f\n", math.Sqrt(norm))
	for _, p := range net.Params()[:2] {
		fmt.Println(p.Name, p.Shape)
	}
	// Output:
	// parameters: 3110 features: 20
	// ‖F_θ(x)‖ = 1.000
	// 0.weight [40 20]
	// 0.bias [40]
}

func ExampleParseArch() {
	specs, err := nn.ParseArch(nn.MNISTArch)
	if err != nil {
		panic(err)
	}
	var toks []string
	for _, s := range specs[:5] {
		toks = append(toks, s.String())
	}
	fmt.Println(strings.Join(toks, " "))
	_, err = nn.ParseArch("dense(40),relu,dense(x)")
	fmt.Println(err)
	// Output:
	// conv(10,5) maxpool(2) relu conv(20,5) dropout2d(0.5)
	// nn: arch "dense(40),relu,dense(x)": token 3 "dense(x)": width must be a positive integer
}
