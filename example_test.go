package nsvm_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
	"github.com/nsvm-go/nsvm/nn"
)

// ringnorm returns standardised generated Ringnorm training and test
// problems; the labels 1 and 2 of the data become −1 and +1.
func ringnorm(nTrain, nTest int, seed uint64) (train, test nsvm.Problem) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	tr, te := data.Split(datasets.Ringnorm(nTrain+nTest, rng), nTest, rng)
	st := data.FitStandardizer(tr)
	st.Apply(tr)
	st.Apply(te)
	conv := func(d *data.Dataset) nsvm.Problem {
		y, _, err := d.BinaryLabels()
		if err != nil {
			panic(err)
		}
		return nsvm.Problem{X: d.X, N: d.N, D: d.D, Y: y}
	}
	return conv(tr), conv(te)
}

// accuracy is the fraction of p's points whose label m predicts.
func accuracy(m *nsvm.Model, p nsvm.Problem) float64 {
	dec := make([]float64, p.N)
	m.DecisionBatch(dec, p.X, p.N)
	correct := 0
	for i, g := range dec {
		if (g >= 0) == (p.Y[i] > 0) {
			correct++
		}
	}
	return float64(correct) / float64(p.N)
}

// Algorithm 4 on generated Ringnorm: Part I trains the paper's MLP to align
// the RBF kernel on its features with the labels, Part II fits kernel
// Pegasos on the fixed features. The paper's preset is shortened here
// (200 + 4000 steps instead of 4200 + 33500).
func ExampleTrainAlg4() {
	train, test := ringnorm(1500, 500, 1)
	pr, err := nsvm.RingnormPreset(4)
	if err != nil {
		panic(err)
	}
	pr.Alg4.T = 200
	pr.Alg4.Part2.T = 4000
	seed := uint64(1)
	net, err := nn.New(pr.Arch, []int{train.D}, rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
	if err != nil {
		panic(err)
	}
	m, err := nsvm.TrainAlg4(context.Background(), net, train, pr.Alg4, nsvm.Options{Seed: seed})
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Algorithm, "with", m.InSize(), "inputs and", m.OutSize(), "features")
	fmt.Println("test accuracy above 90%:", accuracy(m, test) > 0.90)
	// Output:
	// nsvm4 with 20 inputs and 20 features
	// test accuracy above 90%: true
}

// A trained model goes to one file (safetensors layout) and comes back with
// the same decision function, bit for bit.
func ExampleLoad() {
	train, test := ringnorm(300, 100, 2)
	pr, err := nsvm.RingnormPreset(3)
	if err != nil {
		panic(err)
	}
	pr.Alg3.T = 50
	net, err := nn.New(pr.Arch, []int{train.D}, rand.New(rand.NewPCG(2, 3)))
	if err != nil {
		panic(err)
	}
	m, err := nsvm.TrainAlg3(context.Background(), net, train, pr.Alg3, nsvm.Options{Seed: 2})
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "nsvm-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ringnorm.nsvm")
	if err := m.Save(path); err != nil {
		panic(err)
	}

	loaded, err := nsvm.Load(path)
	if err != nil {
		panic(err)
	}
	same := true
	for i := 0; i < test.N; i++ {
		x := test.X[i*test.D : (i+1)*test.D]
		if loaded.Decision(x) != m.Decision(x) {
			same = false
		}
	}
	fmt.Println(loaded.Algorithm, loaded.Net.Spec())
	fmt.Println("same support vectors:", loaded.Head.NSV == m.Head.NSV)
	fmt.Println("same decisions on", test.N, "test points:", same)
	fmt.Println("predicted class of the first test point is ±1:", abs(loaded.Predict(test.X[:test.D])) == 1)
	// Output:
	// nsvm3 dense(40),relu,dense(30),relu,dense(20),relu,dense(20),relu
	// same support vectors: true
	// same decisions on 100 test points: true
	// predicted class of the first test point is ±1: true
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
