package svm_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
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
	train, test := data.Split(datasets.Ringnorm(1000, rng), 500, rng)
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

// Model selection the way GridSearchCV(SVC()) does it, on three Gaussian
// classes: every (γ, C) scored by 5-fold cross-validation of one-vs-one
// heads, then the heads of the best pair fitted on all points.
func ExampleGridSMO() {
	rng := rand.New(rand.NewPCG(3, 3^0x9e3779b97f4a7c15))
	p := svm.ClassProblem{N: 300, D: 2, C: 3}
	centres := [][2]float64{{0, 0}, {3, 0}, {0, 3}}
	for i := 0; i < p.N; i++ {
		c := i % 3
		p.X = append(p.X, float32(centres[c][0]+rng.NormFloat64()), float32(centres[c][1]+rng.NormFloat64()))
		p.Y = append(p.Y, c)
	}
	folds, err := svm.StratifiedKFold(p.Y, 5, nil)
	if err != nil {
		panic(err)
	}
	kernels := []kernel.Kernel{kernel.RBF{Gamma: 0.01}, kernel.RBF{Gamma: 0.3}, kernel.RBF{Gamma: 100}}
	res, err := svm.GridSMO(context.Background(), p, kernels, []float64{0.1, 1, 10}, folds, svm.GridConfig{}, nil)
	if err != nil {
		panic(err)
	}
	k, c, _ := res.Params(res.Best)
	fmt.Printf("%d fits on one kernel matrix per γ; best %v\n", res.Fits, k)
	fmt.Printf("validation accuracy above 85%%: %v\n", res.Score[res.Best] > 0.85)
	heads, err := svm.FitOneVsOne(context.Background(), p, kernel.RBF{Gamma: k.Gamma}, c, svm.GridConfig{})
	if err != nil {
		panic(err)
	}
	fmt.Println("heads (0,1), (0,2), (1,2):", len(heads))
	// Output:
	// 135 fits on one kernel matrix per γ; best rbf(gamma=0.3)
	// validation accuracy above 85%: true
	// heads (0,1), (0,2), (1,2): 3
}

// ε-SVR by SMO on a noisy sine.
func ExampleSMOSVR() {
	rng := rand.New(rand.NewPCG(5, 5^0x9e3779b97f4a7c15))
	p := svm.RegProblem{N: 200, D: 1}
	for i := 0; i < p.N; i++ {
		x := 6*rng.Float64() - 3
		p.X = append(p.X, float32(x))
		p.Y = append(p.Y, math.Sin(x)+0.05*rng.NormFloat64())
	}
	m, err := svm.SMOSVR(context.Background(), p, kernel.RBF{Gamma: 1}, svm.SMOSVRConfig{C: 10, Epsilon: 0.05}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("|f(1) − sin 1| < 0.05:", math.Abs(m.Decision([]float32{1})-math.Sin(1)) < 0.05)
	fmt.Println("support vectors (on or outside the tube) fewer than points:", m.NSV < p.N)
	// Output:
	// |f(1) − sin 1| < 0.05: true
	// support vectors (on or outside the tube) fewer than points: true
}

// A linear SVM by dual coordinate descent (LIBLINEAR's -s 1 -B 1) on two
// shifted Gaussian clouds.
func ExampleLinearDCD() {
	rng := rand.New(rand.NewPCG(9, 9^0x9e3779b97f4a7c15))
	p := svm.Problem{N: 1000, D: 2}
	for i := 0; i < p.N; i++ {
		y := float32(1 - 2*(i%2))
		p.X = append(p.X, float32(rng.NormFloat64())+2*y+5, float32(rng.NormFloat64()))
		p.Y = append(p.Y, y)
	}
	m, err := svm.LinearDCD(context.Background(), p, svm.LinearDCDConfig{C: 1}, rng, nil)
	if err != nil {
		panic(err)
	}
	w1, w2, b := float64(m.SV[0]), float64(m.SV[1]), m.Bias
	fmt.Println("w₁ > 0, |w₂| < 0.1·w₁:", w1 > 0 && math.Abs(w2) < 0.1*w1)
	fmt.Println("threshold on x₁ within 0.3 of 5:", math.Abs(-b/w1-5) < 0.3)
	// Output:
	// w₁ > 0, |w₂| < 0.1·w₁: true
	// threshold on x₁ within 0.3 of 5: true
}
