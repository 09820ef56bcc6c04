package lecture

import (
	"context"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
)

// BenchmarkPerceptron runs 5 epochs of the dual perceptron on 2000
// standardised Ringnorm points with an RBF kernel: a kernel row over the
// current support vectors per point.
func BenchmarkPerceptron(b *testing.B) {
	p := ringnorm(2000, newRNG(7))
	k := kernel.RBF{Gamma: 0.05}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Perceptron(context.Background(), p, k, PerceptronConfig{Epochs: 5}, newRNG(1), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDualSGA runs 5 epochs of naive dual ascent, sorted by α as the
// lecture recommends, on the same problem.
func BenchmarkDualSGA(b *testing.B) {
	p := ringnorm(2000, newRNG(7))
	k := kernel.RBF{Gamma: 0.05}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DualSGA(context.Background(), p, k, DualSGAConfig{Epochs: 5, SortByAlpha: true}, newRNG(1), nil); err != nil {
			b.Fatal(err)
		}
	}
}
