// Command ocnsvm trains an NSVM for novelty detection on rows of one class
// and prints its decision value on every test row (larger: more of an
// inlier), one a line. Part I learns a feature map F_θ from the inliers
// alone, Part II is LIBSVM's one-class SVM (svm.OneClass, RBF kernel) on
// the features. The inputs are standardised with the training rows'
// statistics, as nsvm train --svm-type one-class does.
//
// Part I objectives (-objective):
//
//	svdd      Deep SVDD (Ruff et al., ICML 2018): min mean ‖F_θ(x) − c‖² over
//	          the inliers, c the mean feature of the initial network (entries
//	          under 0.1 in magnitude pushed to ±0.1), a network without
//	          biases so that the constant map F ≡ c is out of reach.
//	contrast  kernel-target alignment (Algorithm 4's Part I) of the inliers
//	          (+1) against a reference sample (−1) drawn afresh for every
//	          batch: each feature of a reference row taken from another
//	          inlier (the product of the inliers' marginals), so that the
//	          network learns how the inliers' features go together.
//
// It is the benchmark's own program (bench/oneclass/README.md): the
// library's one-class fit does not use it.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ocnsvm:", err)
		os.Exit(1)
	}
}

func run() error {
	train := flag.String("train", "", "CSV of the inliers to train on (header, label last)")
	test := flag.String("test", "", "CSV of the rows to score (header, label last)")
	objective := flag.String("objective", "contrast", "Part I objective: svdd or contrast")
	arch := flag.String("arch", "dense(128),relu,dense(64)", "network")
	epochs := flag.Int("epochs", 20, "Part I epochs over the inliers")
	batch := flag.Int("batch", 32, "Part I batch size (inliers per batch)")
	lr := flag.Float64("lr", 1e-3, "Adam's learning rate")
	nu := flag.Float64("nu", 0.5, "ν of the one-class SVM head")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	tr, err := data.Open(*train, data.OpenOptions{Format: "csv"})
	if err != nil {
		return err
	}
	te, err := data.Open(*test, data.OpenOptions{Format: "csv"})
	if err != nil {
		return err
	}
	st := data.FitStandardizer(tr)
	st.Apply(tr)
	st.Apply(te)
	rng := rand.New(rand.NewPCG(*seed, 0x6f63))
	net, err := nn.New(*arch, []int{tr.D}, rng)
	if err != nil {
		return err
	}
	opt := nn.NewAdam(net.Params(), *lr, 0.9, 0.999, 1e-8, 1e-6)
	switch *objective {
	case "svdd":
		svdd(net, opt, tr, *epochs, *batch, rng)
	case "contrast":
		if err := contrast(net, opt, tr, *epochs, *batch, rng); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown objective %q", *objective)
	}
	// Part II: the one-class SVM on the features, γ = 1/(n·Var z) (the
	// "scale" rule on the features, as γ = 1/D on standardised inputs).
	n := net.OutSize()
	z := make([]float32, tr.N*n)
	net.Features(z, tr.X, tr.N)
	var s, ss float64
	for _, v := range z {
		s += float64(v)
		ss += float64(v) * float64(v)
	}
	m := s / float64(len(z))
	v := ss/float64(len(z)) - m*m
	if !(v > 0) {
		return fmt.Errorf("the features collapsed (variance %g)", v)
	}
	h, err := svm.OneClass(context.Background(), svm.Problem{X: z, N: tr.N, D: n}, kernel.RBF{Gamma: 1 / (float64(n) * v)}, svm.NuConfig{Nu: *nu}, nil)
	if err != nil {
		return err
	}
	zt := make([]float32, te.N*n)
	net.Features(zt, te.X, te.N)
	dec := make([]float64, te.N)
	h.DecisionBatch(dec, zt, te.N)
	var b strings.Builder
	for _, d := range dec {
		fmt.Fprintf(&b, "%.9g\n", d)
	}
	_, err = os.Stdout.WriteString(b.String())
	return err
}

// batches calls step with the rows of every batch of an epoch of n rows
// in a random order.
func batches(n, k int, rng *rand.Rand, step func(idx []int)) {
	perm := rng.Perm(n)
	for lo := 0; lo+k <= n || lo == 0; lo += k {
		step(perm[lo:min(lo+k, n)])
	}
}

// svdd runs Deep SVDD's one-class objective.
func svdd(net *nn.Net, opt nn.Optimizer, tr *data.Dataset, epochs, k int, rng *rand.Rand) {
	var biases []*nn.Param
	for _, p := range net.Params() {
		if strings.HasSuffix(p.Name, ".bias") {
			biases = append(biases, p)
			clear(p.W)
		}
	}
	n, d := net.OutSize(), tr.D
	z := make([]float32, tr.N*n)
	net.Features(z, tr.X, tr.N)
	c := make([]float64, n)
	for i := range tr.N {
		for j := range n {
			c[j] += float64(z[i*n+j]) / float64(tr.N)
		}
	}
	for j, v := range c {
		if math.Abs(v) < 0.1 {
			c[j] = math.Copysign(0.1, v)
		}
	}
	xb := make([]float32, k*d)
	dz := make([]float32, k*n)
	for range epochs {
		batches(tr.N, k, rng, func(idx []int) {
			b := len(idx)
			for r, i := range idx {
				copy(xb[r*d:(r+1)*d], tr.X[i*d:(i+1)*d])
			}
			out := net.Forward(xb[:b*d], b, true)
			for r := range b {
				for j := range n {
					dz[r*n+j] = float32(2 * (float64(out[r*n+j]) - c[j]) / float64(b))
				}
			}
			opt.ZeroGrad()
			net.Backward(dz[:b*n])
			opt.Step()
			for _, p := range biases {
				clear(p.W)
			}
		})
	}
}

// contrast runs the alignment of the inliers against the product of their
// marginals: every batch holds k inliers (+1) and k reference rows (−1),
// and the step ascends the kernel-target alignment
// A = ⟨K, yyᵀ⟩_F/(‖K‖_F·2k) of K_ij = exp(−‖z_i − z_j‖²), z = F_θ(x).
func contrast(net *nn.Net, opt nn.Optimizer, tr *data.Dataset, epochs, k int, rng *rand.Rand) error {
	d, n := tr.D, net.OutSize()
	if tr.N < 2 {
		return fmt.Errorf("need at least 2 inliers")
	}
	m := 2 * k
	xb := make([]float32, m*d)
	y := make([]float64, m)
	kmat := make([]float64, m*m)
	g := make([]float64, m*m)
	dz := make([]float32, m*n)
	for range epochs {
		batches(tr.N, k, rng, func(idx []int) {
			b := len(idx)
			rows := 2 * b
			for r, i := range idx {
				copy(xb[r*d:(r+1)*d], tr.X[i*d:(i+1)*d])
				y[r] = 1
				for j := range d {
					xb[(b+r)*d+j] = tr.X[rng.IntN(tr.N)*d+j]
				}
				y[b+r] = -1
			}
			out := net.Forward(xb[:rows*d], rows, true)
			// K and A.
			var q, f2 float64
			for a := range rows {
				for c := range rows {
					var s float64
					for j := range n {
						e := float64(out[a*n+j] - out[c*n+j])
						s += e * e
					}
					kv := math.Exp(-s)
					kmat[a*rows+c] = kv
					q += y[a] * y[c] * kv
					f2 += kv * kv
				}
			}
			f := math.Sqrt(f2)
			al := q / (f * float64(rows))
			// ∂(−A)/∂K_ij, then ∂/∂z through K_ij = exp(−‖z_i − z_j‖²):
			// ∂K_ij/∂z_i = −2K_ij(z_i − z_j).
			for a := range rows {
				for c := range rows {
					kv := kmat[a*rows+c]
					g[a*rows+c] = -(y[a]*y[c]/(f*float64(rows)) - al*kv/f2)
				}
			}
			clear(dz[:rows*n])
			for a := range rows {
				for c := range rows {
					w := g[a*rows+c] * kmat[a*rows+c] * -2
					if w == 0 {
						continue
					}
					for j := range n {
						e := float64(out[a*n+j] - out[c*n+j])
						dz[a*n+j] += float32(w * e)
						dz[c*n+j] -= float32(w * e)
					}
				}
			}
			opt.ZeroGrad()
			net.Backward(dz[:rows*n])
			opt.Step()
		})
	}
	return nil
}
