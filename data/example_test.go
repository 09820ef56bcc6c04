package data_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/nsvm-go/nsvm/data"

	"github.com/nsvm-go/nsvm/data/datasets"
)

func ExampleReadLIBSVM() {
	in := "2 1:0.5 3:-1\n1 2:4 # a comment\n"
	d, err := data.ReadLIBSVM(strings.NewReader(in), "train.txt", 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	y, m, _ := d.BinaryLabels()
	fmt.Println(d.N, d.D, d.Row(0), y, m.Label(-0.3))

	_, err = data.ReadLIBSVM(strings.NewReader("1 2:1\n-1 0:3\n"), "train.txt", 0)
	fmt.Println(err)
	// Output:
	// 2 3 [0.5 0 -1] [1 -1] 1
	// data: train.txt:2: feature index 0, indices are 1-based (a file of 0-based indices, as XGBoost or scikit-learn's zero_based=True write, needs 1 added to each)
}

func ExampleSplit() {
	seed := uint64(1)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	d := datasets.Ringnorm(7400, rng)
	train, test := data.Split(d, 740, rng)
	train, val := data.StratifiedHoldout(train, 200, rng)
	st := data.FitStandardizer(train)
	st.Apply(train)
	st.Apply(val)
	st.Apply(test)
	fmt.Println(train.N, val.N, test.N)
	// Output: 6260 400 740
}

// The zero OpenOptions read a CSV file as nsvm train does: the label is
// the header field named label, class, target, …, or else the last
// column, as here.
func ExampleOpen() {
	path := filepath.Join(os.TempDir(), "example-their.csv")
	defer os.Remove(path)
	csv := "sepal_length,sepal_width,petal_length,petal_width,variety\n" +
		"5.1,3.5,1.4,0.2,Setosa\n" +
		"7.0,3.2,4.7,1.4,Versicolor\n" +
		"6.3,3.3,6.0,2.5,Virginica\n" +
		"4.9,3.0,1.4,0.2,Setosa\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		panic(err)
	}

	ds, err := data.Open(path, data.OpenOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(ds.N, ds.D, ds.LabelNames)
	// Output: 4 4 [Setosa Versicolor Virginica]
}
