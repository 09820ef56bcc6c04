package paper

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/svm"
)

// ClassProblem is a multiclass training set: svm.ClassProblem (X is N×D
// row-major, or the rows are sparse, in Sparse, with X nil; Y[i] in 0..C−1
// is the class index of point i; W, if not nil, weighs each point: its cost
// in every head it enters, see svm.Problem.W) and Labels, if not nil, the
// original label of each class index (length C; the model's Classes).
type ClassProblem struct {
	svm.ClassProblem
	Labels []float64
}

// ClassProblemOf returns the multiclass problem of the rows of ds: its
// classes are ds.Classes() (the sorted labels), Y their indices and Labels
// the labels. The rows are shared with ds, not copied.
func ClassProblemOf(ds *data.Dataset) ClassProblem {
	cls := ds.Classes()
	p := ClassProblem{svm.ClassProblem{X: ds.X, Sparse: ds.Sparse, N: ds.N, D: ds.D, Y: make([]int, ds.N), C: len(cls)}, cls}
	for i, v := range ds.Y {
		p.Y[i], _ = slices.BinarySearch(cls, v)
	}
	return p
}

// Validate reports whether the sizes agree, every class index is in 0..C−1,
// every class occurs, every feature is finite and every weight a finite
// number ≥ 0: svm.ClassProblem's checks, and a label for every class.
func (p ClassProblem) Validate() error {
	if err := p.ClassProblem.Validate(); err != nil {
		return fmt.Errorf("nsvm: %w", err)
	}
	if p.Labels != nil && len(p.Labels) != p.C {
		return fmt.Errorf("nsvm: %d labels for %d classes", len(p.Labels), p.C)
	}
	return nil
}

// classes returns the labels of the class indices 0..C−1.
func (p ClassProblem) classes() []float64 {
	out := make([]float64, p.C)
	for c := range out {
		out[c] = float64(c)
		if p.Labels != nil {
			out[c] = p.Labels[c]
		}
	}
	return out
}

// MulticlassConfig configures TrainMulticlass: Algorithm 4 with the
// multiclass target kernel in Part I, then one binary SVM head per class
// (one-vs-rest) or per pair of classes (one-vs-one) in Part II, each fitted
// by the Part II solver of Alg4Config on the fixed features.
type MulticlassConfig struct {
	Alg4Config
	// Scheme is OneVsRest (default) or OneVsOne.
	Scheme string `json:",omitempty"`
	// Workers is the number of heads fitted at once; 0 means GOMAXPROCS.
	// The heads do not depend on it (each has its own random stream).
	Workers int `json:"-"`
	// Augment, if not nil, transforms every Part I batch before the forward
	// pass (e.g. RandomShift); AugmentName names it for checkpoints (a run
	// resumes only with the same name).
	Augment     Augmenter `json:"-"`
	AugmentName string    `json:",omitempty"`
}

func (c MulticlassConfig) scheme() string {
	if c.Scheme == "" {
		return model.OneVsRest
	}
	return c.Scheme
}

// Validate reports whether the configuration is usable.
func (c MulticlassConfig) Validate() error {
	switch c.Scheme {
	case "", model.OneVsRest, model.OneVsOne:
	default:
		return fmt.Errorf("nsvm: unknown multiclass scheme %q (want ovr or ovo)", c.Scheme)
	}
	if c.Workers < 0 {
		return fmt.Errorf("nsvm: workers must be ≥ 0, got %d", c.Workers)
	}
	return c.Alg4Config.Validate()
}

// TrainMulticlass trains a multiclass NSVM: one feature map F_θ shared by
// all classes, trained by Part I of Algorithm 4 with the multiclass target
// kernel Y_ij = 1 for points of the same class and −1/(C−1) otherwise (the
// Gram matrix of the regular-simplex class codes; yyᵀ for C = 2), then the
// binary heads of cfg.Scheme fitted on the fixed features z_j = F_Θ(x_j)
// (see FitHeads). The network is updated in place; checkpoints cover
// Part I as for TrainAlg4.
func TrainMulticlass(ctx context.Context, net *nn.Net, p ClassProblem, cfg MulticlassConfig, o Options) (*model.Model, error) {
	if err := checkRun("multiclass", net, cfg, p, p.D); err != nil {
		return nil, err
	}
	opt, r, dropout, tr, err := newPart1(net, p.X, p.N, p.D, cfg.Alg4Config, ClassTarget(p.Y, p.C), o)
	if err != nil {
		return nil, err
	}
	tr.augment = cfg.Augment
	z, err := part1Features(ctx, net, opt, tr, r, dropout, cfg.T, configKey(4, cfg), p.X, p.N, o)
	if err != nil {
		return nil, err
	}
	zp := p
	zp.X, zp.D = z, net.OutSize()
	var hp ProgressFunc
	if o.Progress != nil {
		hp = func(pg Progress) { pg.Algorithm, pg.Elapsed = 4, timeSince(r); o.Progress(pg) }
	}
	heads, err := FitHeads(ctx, zp, cfg.scheme(), cfg.Workers, o.Seed, Part2Fitter(cfg.Kernel, cfg.Part2, cfg.Bias), hp)
	if err != nil {
		return nil, err
	}
	m := &model.Model{Algorithm: "nsvm4", Net: net, Info: alg4Info(cfg.Alg4Config)}
	m.SetHeads(p.classes(), cfg.scheme(), heads)
	return m, nil
}

// HeadFitter fits one binary SVM head on fixed features (labels ±1), drawing
// from rng where the solver is stochastic.
type HeadFitter func(ctx context.Context, p svm.Problem, rng *rand.Rand, progress svm.ProgressFunc) (*svm.Model, error)

// Part2Fitter returns the HeadFitter of Algorithm 4 Part II: kernel Pegasos
// (with the bias term if bias) or SMO, as configured by p2.
func Part2Fitter(spec kernel.Spec, p2 Part2Config, bias bool) HeadFitter {
	return func(ctx context.Context, zp svm.Problem, rng *rand.Rand, sp svm.ProgressFunc) (*svm.Model, error) {
		k := mustKernel(spec)
		if p2.SolverName() == "smo" {
			return svm.SMO(ctx, zp, k, svm.SMOConfig{C: p2.C, Eps: p2.Eps, CacheMB: p2.CacheMB}, sp)
		}
		return svm.Pegasos(ctx, zp, k, svm.PegasosConfig{Lambda: p2.Lambda, T: p2.T, Bias: bias}, rng, sp)
	}
}

// FitHeads fits the binary heads of a multiclass model on the fixed
// features p.X (N×D): for OneVsRest head c separates class c (+1) from the
// rest (−1) on all points; for OneVsOne head q separates the pair (i, j) of
// svm.PairClasses (i: +1, j: −1) on their points only. Up to workers heads (0:
// GOMAXPROCS) are fitted at once; head h draws from its own random stream
// seeded by seed and h, so the heads do not depend on workers. progress, if
// not nil, is called (serialised) after each head with Phase "svm", Step =
// heads done, Total = heads and NSV = that head's support vectors
// (Algorithm 0: a solver on fixed features; TrainMulticlass reports them as
// Algorithm 4's Part II).
func FitHeads(ctx context.Context, p ClassProblem, scheme string, workers int, seed uint64, fit HeadFitter, progress ProgressFunc) ([]*svm.Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if scheme != model.OneVsRest && scheme != model.OneVsOne {
		return nil, errf("unknown multiclass scheme %q (want ovr or ovo)", scheme)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	nh := model.HeadCount(scheme, p.C)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, nh)
	heads := make([]*svm.Model, nh)
	errs := make([]error, nh)
	var mu sync.Mutex
	done := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for h := range next {
				hp := p.Head(scheme, h)
				rng := rand.New(seedPCG(seed ^ (uint64(h+1) * 0xd1342543de82ef95)))
				m, err := fit(ctx, hp, rng, nil)
				if err != nil {
					errs[h] = fmt.Errorf("nsvm: head %d: %w", h, err)
					continue
				}
				m.Neg, m.Pos = -1, 1
				heads[h] = m
				if progress != nil {
					mu.Lock()
					done++
					progress(Progress{Phase: "svm", Step: done, Total: nh, NSV: m.NSV})
					mu.Unlock()
				}
			}
		})
	}
	for h := 0; h < nh; h++ {
		if ctx.Err() != nil {
			break
		}
		next <- h
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("nsvm: stopped while fitting the heads: %w", err)
	}
	return heads, nil
}

// Head returns the binary problem of head h of a multiclass model of the
// scheme: every point for OneVsRest, the points of the pair for OneVsOne
// (dense or sparse rows, with their weights).
func (p ClassProblem) Head(scheme string, h int) svm.Problem {
	if scheme == model.OneVsRest {
		y := make([]float32, p.N)
		for i, c := range p.Y {
			y[i] = -1
			if c == h {
				y[i] = 1
			}
		}
		return svm.Problem{X: p.X, Sparse: p.Sparse, N: p.N, D: p.D, Y: y, W: p.W}
	}
	return p.Pair(svm.PairClasses(h, p.C))
}

// Multiclass model files keep the binary layout (see doc.go) but replace
// "sv", "coef" and the metadata "bias", "label_neg", "label_pos" by one set
// per head h = 0, 1, …: tensors "head.<h>.sv" (F32, NSV_h×n) and
// "head.<h>.coef" (F64, NSV_h), metadata "head.<h>.bias"; plus the metadata
// "classes" (JSON array of the class labels), "multiclass" (the scheme) and
// "heads" (their number). All heads share the kernel in "kernel". A reader
// that knows only binary models fails on such a file (no "sv") instead of
// misreading it.
