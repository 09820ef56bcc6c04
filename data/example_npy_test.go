package data_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
)

// A data set saved as a .npz opens mapped from the file: numpy.load reads
// the same file as arrays X (float32) and y (float64).
func ExampleWriteNPZ() {
	ds := datasets.Ringnorm(1000, rand.New(rand.NewPCG(1, 2)))
	path := filepath.Join(os.TempDir(), "example-ring.npz")
	defer os.Remove(path)
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	if err := data.WriteNPZ(f, ds); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}

	back, err := data.Open(path, data.OpenOptions{})
	if err != nil {
		panic(err)
	}
	defer back.Close() // releases the mapping; back.X must not be used after it
	fmt.Println(back.N, back.D, back.Mapped(), slices.Equal(back.X, ds.X) && slices.Equal(back.Y, ds.Y))
	// Output: 1000 20 true true
}
