package nsvm_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data/datasets"
)

// ExampleSearch hands the selection's tasks to a Search made elsewhere
// from the same data and configuration, as the workers of a cluster
// would score them; the model is Fit's.
func ExampleSearch() {
	ds := datasets.Ringnorm(300, rand.New(rand.NewPCG(1, 2)))
	cfg := &nsvm.FitConfig{Seed: 1}
	driver, err := nsvm.NewSearch(ds, cfg)
	if err != nil {
		panic(err)
	}
	worker, err := nsvm.NewSearch(ds, cfg) // in another process, on a copy of the data
	if err != nil {
		panic(err)
	}
	rounds := 0
	exec := func(ctx context.Context, tasks [][]byte) ([][]byte, error) {
		rounds++
		results := make([][]byte, len(tasks))
		for i, t := range tasks { // on the workers, in any order
			if results[i], err = worker.Score(ctx, t); err != nil {
				return nil, err
			}
		}
		return results, nil
	}
	m, err := driver.Run(context.Background(), exec)
	if err != nil {
		panic(err)
	}
	fit, err := nsvm.Fit(context.Background(), ds, cfg)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(driver.Candidates()), "candidates to start with; rounds:", rounds)
	fmt.Println("selected", m.Info["selected"], "as Fit does:", m.Info["selected"] == fit.Info["selected"])
	// Output:
	// 40 candidates to start with; rounds: 2
	// selected smo rbf γ=0.05 C=1 (standardize) as Fit does: true
}
