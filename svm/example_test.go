package svm_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

// Four points on a line, two per class: SMO finds the maximal-margin
// threshold between −1 and +1.
func ExampleSMO() {
	p := svm.Problem{
		X: []float32{-3, -1, 1, 3},
		N: 4, D: 1,
		Y: []float32{-1, -1, 1, 1},
	}
	m, err := svm.SMO(context.Background(), p, kernel.Linear{}, svm.SMOConfig{C: 10}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("support vectors: %d, w = %.2f, |b| < 1e-6: %v\n", m.NSV, m.Decision([]float32{1})-m.Bias, math.Abs(m.Bias) < 1e-6)
	for _, x := range []float32{-2, -0.1, 0.1, 5} {
		fmt.Printf("x = %4.1f → class %+g\n", x, m.Predict([]float32{x}))
	}
	// Output:
	// support vectors: 2, w = 1.00, |b| < 1e-6: true
	// x = -2.0 → class -1
	// x = -0.1 → class -1
	// x =  0.1 → class +1
	// x =  5.0 → class +1
}

// Kernel Pegasos (paper Algorithm 0) on two rings that no line separates.
func ExamplePegasos() {
	rng := rand.New(rand.NewPCG(1, 1^0x9e3779b97f4a7c15))
	var p svm.Problem
	for i := 0; i < 200; i++ {
		r, y := 0.5, float32(1) // inner ring: +1
		if i%2 == 1 {
			r, y = 2, -1 // outer ring: −1
		}
		a := 2 * math.Pi * rng.Float64()
		p.X = append(p.X, float32(r*math.Cos(a)), float32(r*math.Sin(a)))
		p.Y = append(p.Y, y)
	}
	p.N, p.D = 200, 2
	m, err := svm.Pegasos(context.Background(), p, kernel.RBF{Gamma: 1}, svm.PegasosConfig{Lambda: 0.01, T: 2000}, rng, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Predict([]float32{0, 0}), m.Predict([]float32{0, 2.5}))
	// Output:
	// 1 -1
}

// A C-SVM with an RBF kernel on generated Ringnorm (20 dimensions), the way
// the command line's "nsvm train --algo smo" fits it: standardise with the
// training statistics, map the labels to ±1, solve, and evaluate on held-out
// points.
func ExampleSMO_ringnorm() {
	rng := rand.New(rand.NewPCG(7, 7^0x9e3779b97f4a7c15))
	train, test := data.Split(data.Ringnorm(1000, rng), 500, rng)
	st := data.FitStandardizer(train)
	st.Apply(train)
	st.Apply(test)
	y, labels, err := train.BinaryLabels()
	if err != nil {
		panic(err)
	}
	p := svm.Problem{X: train.X, N: train.N, D: train.D, Y: y}
	m, err := svm.SMO(context.Background(), p, kernel.RBF{Gamma: 0.02}, svm.SMOConfig{C: 10}, nil)
	if err != nil {
		panic(err)
	}
	correct := 0
	for i := 0; i < test.N; i++ {
		if labels.Label(m.Decision(test.Row(i))) == test.Y[i] {
			correct++
		}
	}
	acc := float64(correct) / float64(test.N)
	fmt.Println("test points:", test.N)
	fmt.Println("accuracy above 95%:", acc > 0.95)
	fmt.Println("fewer support vectors than points:", m.NSV < train.N)
	// Output:
	// test points: 500
	// accuracy above 95%: true
	// fewer support vectors than points: true
}
