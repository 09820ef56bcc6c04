package nsvm_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/data/datasets"
)

// Training on your own data: Fit chooses the input scaling, the algorithm
// (an RBF SVM or an NSVM) and its hyper-parameters by cross-validation on
// the training set, then trains the winner on all of it. Any label values
// work; real-valued labels make a regressor.
func ExampleFit() {
	rng := rand.New(rand.NewPCG(1, 2))
	train, test := data.Split(datasets.Ringnorm(1000, rng), 300, rng) // or data.Open("your.csv", data.OpenOptions{})

	m, err := nsvm.Fit(context.Background(), train, nil)
	if err != nil {
		panic(err)
	}
	s, _ := m.Evaluate(test)
	fmt.Println("test accuracy above 95 %:", s.Accuracy > 0.95)
	fmt.Println("predicted label of the first test row:", m.Predict(test.Row(0)) == test.Y[0])
	// Output:
	// test accuracy above 95 %: true
	// predicted label of the first test row: true
}
