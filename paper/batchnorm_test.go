package paper

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/nn"
)

// Algorithms 1 and 2 take one point at a time, which batch statistics
// cannot normalise: a network with batchnorm is refused with one clear
// error; Algorithm 4 trains it.
func TestBatchNormNeedsBatches(t *testing.T) {
	p, _ := ringnormProblem(t, 200, 10, 1)
	cfg := Config{Lambda: 1e-4, T: 50, Kernel: rbf(1), Opt: sgd(1e-3)}
	newNet := func() *nn.Net {
		net, err := nn.New("dense(8),batchnorm,relu", []int{20}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		return net
	}
	_, err1 := TrainAlg1(context.Background(), newNet(), p, Alg1Config{cfg}, Options{})
	_, err2 := TrainAlg2(context.Background(), newNet(), p, Alg2Config{Config: cfg, Chunk: 10}, Options{})
	for i, err := range []error{err1, err2} {
		if err == nil || !strings.Contains(err.Error(), "batchnorm") {
			t.Errorf("algorithm %d: error %v, want one about batchnorm", i+1, err)
		}
	}
	m, err := TrainAlg4(context.Background(), newNet(), p, Alg4Config{Config: cfg, Batch: 16,
		Part2: Part2Config{Solver: "smo", C: 1}}, Options{Seed: 1})
	if err != nil {
		t.Fatalf("algorithm 4 with batchnorm: %v", err)
	}
	if rm := m.Net.Params()[4]; rm.Name != "1.running_mean" || rm.W[0] == 0 {
		t.Fatalf("algorithm 4 left %s at %v", rm.Name, rm.W)
	}
}
