package paper

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nsvm-go/nsvm/nn"
)

// Part I objectives of Algorithm 4 (Alg4Config.Objective).
const (
	// ObjectiveAlign is the paper's: the batch kernel matrix of the
	// features aligned with the class (or regression) target.
	ObjectiveAlign = "align"
	// ObjectiveSoftmax trains the features through a temporary linear
	// softmax head on top of them, by cross-entropy. The head is discarded
	// when Part I ends: the model is still F_Θ followed by the SVM head of
	// Part II. This is an extension of the paper, not one of its
	// algorithms; the selection uses it where it validates better.
	ObjectiveSoftmax = "softmax"
)

// softmaxHead is the temporary head of ObjectiveSoftmax: logits
// W·z + b over C classes for features z of n values. Its parameters join
// the network's in the optimizer, so it trains with the same rule and
// schedule.
type softmaxHead struct {
	y    []int // the class index of every training row
	c, n int
	w, b nn.Param
	p    []float64 // one row of probabilities
}

// newSoftmaxHead returns a head for c classes on n features, its weights
// drawn as PyTorch's nn.Linear draws them (uniform ±1/√n).
func newSoftmaxHead(y []int, c, n int, rng *rand.Rand) *softmaxHead {
	h := &softmaxHead{y: y, c: c, n: n, p: make([]float64, c),
		w: nn.Param{Name: "softmax.weight", Shape: []int{c, n}, W: make([]float32, c*n), G: make([]float32, c*n)},
		b: nn.Param{Name: "softmax.bias", Shape: []int{c}, W: make([]float32, c), G: make([]float32, c)}}
	bound := 1 / math.Sqrt(float64(n))
	for i := range h.w.W {
		h.w.W[i] = float32((2*rng.Float64() - 1) * bound)
	}
	for i := range h.b.W {
		h.b.W[i] = float32((2*rng.Float64() - 1) * bound)
	}
	return h
}

func (h *softmaxHead) params() []*nn.Param { return []*nn.Param{&h.w, &h.b} }

// lossGrad returns the mean cross-entropy of the batch idx whose features
// are z (k×n), the fraction it classifies correctly, adds the gradient
// with respect to the head's parameters to their G and sets dz (k×n) to
// the gradient with respect to z.
func (h *softmaxHead) lossGrad(z []float32, idx []int, dz []float32) (loss, acc float64) {
	k, n, c := len(idx), h.n, h.c
	inv := 1 / float64(k)
	for r, i := range idx {
		zr := z[r*n : (r+1)*n]
		sum, best := softmaxRow(h.p, h.w.W, h.b.W, zr)
		yi := h.y[i]
		if best == yi {
			acc += inv
		}
		loss -= inv * math.Log(max(h.p[yi]/sum, 1e-300))
		dzr := dz[r*n : (r+1)*n]
		clear(dzr)
		for j := 0; j < c; j++ {
			g := h.p[j] / sum
			if j == yi {
				g--
			}
			g *= inv
			gf := float32(g)
			h.b.G[j] += gf
			wj, gw := h.w.W[j*n:(j+1)*n], h.w.G[j*n:(j+1)*n]
			for q, v := range zr {
				gw[q] += gf * v
				dzr[q] += gf * wj[q]
			}
		}
	}
	return loss, acc
}

// softmaxRow sets p[j] = exp(s_j − max s) for the logits s_j = b_j + w_j·z
// of the len(p) classes (w row-major, len(z) values a row) and returns
// their sum and the class of the largest logit (the first on ties).
func softmaxRow(p []float64, w, b, z []float32) (sum float64, best int) {
	n := len(z)
	for j := range p {
		s := float64(b[j])
		for q, v := range w[j*n : (j+1)*n] {
			s += float64(v) * float64(z[q])
		}
		p[j] = s
		if s > p[best] {
			best = j
		}
	}
	mx := p[best]
	for j, s := range p {
		p[j] = math.Exp(s - mx)
		sum += p[j]
	}
	return sum, best
}

// SoftmaxLoss returns the mean cross-entropy of the linear softmax head
// with weights w (c×n, row-major) and biases b (c) on the feature vectors
// z (len(cls)×n) of the classes cls: the loss ObjectiveSoftmax trains by,
// for a head such as SoftmaxPrototypes' class means.
func SoftmaxLoss(z []float32, cls []int, w, b []float32) float64 {
	c := len(b)
	n := len(w) / c
	p := make([]float64, c)
	var loss float64
	for r, y := range cls {
		sum, _ := softmaxRow(p, w, b, z[r*n:(r+1)*n])
		loss -= math.Log(max(p[y]/sum, 1e-300))
	}
	return loss / float64(len(cls))
}

// validateObjective checks Alg4Config.Objective.
func validateObjective(o string) error {
	switch o {
	case "", ObjectiveAlign, ObjectiveSoftmax:
		return nil
	}
	return fmt.Errorf("nsvm: algorithm 4: unknown part I objective %q (want %s or %s)", o, ObjectiveAlign, ObjectiveSoftmax)
}
