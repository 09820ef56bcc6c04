package search

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/svm"
)

// shells draws n points in d dimensions from c classes: class j ~ N(μ_j,
// s_j²·I) with scales s_j = 2^(j/2) and, for odd j, the mean shifted by 1.5
// along the first axis (the paper package's test problem of the same name).
func shells(n, d, c int, seed uint64) paper.ClassProblem {
	rng := rand.New(rand.NewPCG(seed, 3))
	p := paper.ClassProblem{ClassProblem: svm.ClassProblem{X: make([]float32, n*d), N: n, D: d, Y: make([]int, n), C: c}, Labels: make([]float64, c)}
	for j := range p.Labels {
		p.Labels[j] = float64(10*j + 1)
	}
	for i := 0; i < n; i++ {
		j := i % c
		p.Y[i] = j
		s := math.Pow(2, float64(j))
		for q := 0; q < d; q++ {
			v := s * rng.NormFloat64()
			if q == 0 && j%2 == 1 {
				v += 1.5
			}
			p.X[i*d+q] = float32(v)
		}
	}
	return p
}

// saveLoad saves m to a file in a temporary directory and loads it back; it
// returns the file's path and the loaded model.
func saveLoad(t testing.TB, m *model.Model) (string, *model.Model) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.nsvm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, l
}

// modelBytes returns the bytes of m's model file.
func modelBytes(t *testing.T, m *model.Model) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// argmax returns the index of the largest value.
func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] || math.IsNaN(v[best]) && !math.IsNaN(x) {
			best = i
		}
	}
	return best
}
