package search

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/nsvm-go/nsvm/internal/sysmem"
	"github.com/nsvm-go/nsvm/model"
)

// ErrMemory marks a fit refused before it started because what the data
// imply (heads for many classes, vectors over many features) would take
// more memory than FitConfig.MaxMemory allows.
var ErrMemory = errors.New("nsvm: the data need more memory than the bound")

// maxMemory returns the bound on the memory of what the data imply
// (FitConfig.MaxMemory, or its default: half of the memory the process may
// use, the cgroup's limit or the machine's; 4 GiB when neither is known).
func (c *FitConfig) maxMemory() int64 {
	if c.MaxMemory > 0 {
		return c.MaxMemory
	}
	if m := sysmem.Limit(); m > 0 {
		return m / 2
	}
	return 4 << 30
}

// gridValidationCs is how many values of C the SMO grid holds the
// validation decisions of at once (gridC).
var gridValidationCs = len(gridC)

// checkMemory refuses, before anything is allocated, a fit whose
// data-sized structures alone would pass the memory bound: the vectors of
// one value a feature that the solvers hold (a linear model's weights, the
// scaling, one a worker), and the heads of many classes: one-vs-one's
// K(K−1)/2 heads, whose decisions on the validation rows the selection
// holds for every C of the grid and whose coefficients the model holds
// (up to K−1 a support vector), or one-vs-rest's K heads over every row.
func (d *fitData) checkMemory(c *FitConfig, scheme string) error {
	bound := c.maxMemory()
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if need := 8 * float64(d.d) * float64(workers+3); need > float64(bound) {
		return fmt.Errorf("%w: %d features need %s of vectors of one value a feature (a linear model's weights, the scaling; one a worker), more than the memory bound of %s; give fewer features (--dim), or raise the bound (--max-memory)",
			ErrMemory, d.d, bytesText(need), bytesText(float64(bound)))
	}
	k := d.nclass()
	if d.task != model.Classification || k <= 2 {
		return nil
	}
	n := float64(d.n)
	val := min(n, 10000) // the validation rows of every split together (validationSplits)
	ovr := 8 * float64(k) * (n + val*float64(gridValidationCs))
	pairs := float64(k) * float64(k-1) / 2
	ovo := 8 * (pairs*val*float64(gridValidationCs) + float64(k-1)*n)
	advice := "check that the label column holds classes (an identifier or a measurement is not one; --label-col, --task regression)"
	switch {
	case scheme == model.OneVsOne && ovo > float64(bound):
		if ovr <= float64(bound) {
			advice = "train one-vs-rest (--multiclass ovr: " + bytesText(ovr) + "), or " + advice
		}
		return fmt.Errorf("%w: %d classes in %d rows: one-vs-one's %.0f heads need about %s (their decisions on the validation rows, their coefficients), more than the memory bound of %s; %s, or raise the bound (--max-memory)",
			ErrMemory, k, d.n, pairs, bytesText(ovo), bytesText(float64(bound)), advice)
	case scheme == model.OneVsRest && ovr > float64(bound):
		return fmt.Errorf("%w: %d classes in %d rows: one-vs-rest's %d heads over every row need about %s, more than the memory bound of %s; %s, or raise the bound (--max-memory)",
			ErrMemory, k, d.n, k, bytesText(ovr), bytesText(float64(bound)), advice)
	}
	return nil
}

// bytesText formats a number of bytes for a message.
func bytesText(b float64) string {
	switch {
	case b >= 1<<40:
		return fmt.Sprintf("%.3g TiB", b/(1<<40))
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	default:
		return fmt.Sprintf("%.0f MiB", math.Ceil(b/(1<<20)))
	}
}
