package svm

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/nsvm-go/nsvm/kernel"
)

// ChunkingConfig configures Chunking. The zero value is C = 1, ε = 1e-3,
// chunks of 500 points.
type ChunkingConfig struct {
	// C is the box constraint (default 1).
	C float64
	// Eps is the stopping tolerance on m(α) − M(α) over all points
	// (default 1e-3), the same criterion as SMO's.
	Eps float64
	// Chunk is the size of the first working set and the largest number
	// of violators added per round (default 500).
	Chunk int
	// CacheMB limits the sub-solver's kernel cache (default DefaultCacheMB).
	CacheMB int
	// MaxRounds caps the number of rounds (default 1000). Reaching it is
	// not an error: Info["max_rounds_reached"] is set.
	MaxRounds int
}

// Validate reports whether the configuration is usable.
func (c ChunkingConfig) Validate() error {
	if c.Chunk < 0 {
		return fmt.Errorf("svm: Chunking: chunk size must be ≥ 2, got %d", c.Chunk)
	}
	if c.MaxRounds < 0 {
		return fmt.Errorf("svm: Chunking: max rounds must be ≥ 1, got %d", c.MaxRounds)
	}
	return SMOConfig{C: c.C, Eps: c.Eps, CacheMB: c.CacheMB}.Validate()
}

// Chunking trains the same C-SVM as SMO,
//
//	min_α ½·αᵀQα − eᵀα  s.t.  0 ≤ α_i ≤ C,  yᵀα = 0,
//
// by the lecture's chunking algorithm ("Chunking algorithm for the 1-norm
// margin"; Vapnik 1982, Osuna, Freund & Girosi 1997): solve the dual
// restricted to a working set Ŝ (with SMO, warm-started from the previous
// α), leave out every point of Ŝ with α_i = 0, test the classifier on all
// other points, and add the Chunk points that violate the KKT conditions
// most; repeat until no point does. A point j outside Ŝ has α_j = 0, and its
// violation is measured against the working set's solution in LIBSVM's
// terms: with v_j = −y_j∇f(α)_j = y_j − Σ_{s∈Ŝ} α_s·y_s·K(x_s, x_j), a
// positive point violates by v_j − M(α) and a negative one by m(α) − v_j.
// It stops when m(α) − M(α) ≤ ε over all points, SMO's own criterion, so
// the final objective matches SMO's to that tolerance. The first working set
// holds up to Chunk/2 points of each class in index order, so Chunking is
// deterministic.
//
// The model and Info are as SMO's, plus "rounds".
func Chunking(ctx context.Context, p Problem, k kernel.Kernel, cfg ChunkingConfig, progress ProgressFunc) (*Model, error) {
	if err := checkInputs(p, k, cfg, "Chunking"); err != nil {
		return nil, err
	}
	cfg.Chunk = max(cmp.Or(cfg.Chunk, 500), 2)
	cfg.MaxRounds = cmp.Or(cfg.MaxRounds, 1000)
	scfg := SMOConfig{C: cfg.C, Eps: cfg.Eps, CacheMB: cfg.CacheMB}.withDefaults(0).countIn(ctx)
	tk := newTicker(ctx, progress)
	sub := newTicker(ctx, nil)

	alpha := make([]float64, p.N)
	inSet := make([]bool, p.N)
	ws := firstWorkingSet(p, cfg.Chunk)

	var (
		res   *smoResult
		iters int
		round int
		gap   float64
		dec   []float64
		xsub  []float32
		ysub  []float32
		a0    []float64
	)
	for round = 1; round <= cfg.MaxRounds; round++ {
		// Solve the dual on the working set.
		xsub, ysub, a0 = xsub[:0], ysub[:0], a0[:0]
		for _, i := range ws {
			xsub = append(xsub, p.row(i)...)
			ysub = append(ysub, p.Y[i])
			a0 = append(a0, alpha[i])
		}
		ys := signs(ysub)
		s := newSolver(newSVCQ(k, xsub, len(ws), p.D, ys, scfg), len(ws), ys, nil, scfg.C, scfg.C, a0, scfg)
		var err error
		if res, err = s.solve(&sub, max(10_000_000, 100*len(ws))); err != nil {
			return nil, err
		}
		iters += res.iter
		m, bigM := s.mM()
		for q, i := range ws {
			alpha[i] = res.alpha[q]
		}
		// Keep the support vectors; test everything else.
		var sv *Model
		ws, sv = keepSupport(p, k, ws, alpha, inSet)
		var out []int
		out, dec = outsideDecisions(p, sv, inSet, dec)
		// v_j = y_j − f₀(x_j); positive points are in I_up, negative in I_low.
		gm, gM := m, bigM
		for q, i := range out {
			v := float64(p.Y[i]) - dec[q]
			if p.Y[i] == 1 {
				gm = max(gm, v)
			} else {
				gM = min(gM, v)
			}
		}
		gap = gm - gM
		if err := tk.tick(Progress{Step: round, Total: cfg.MaxRounds, NSV: len(ws), Objective: res.obj, Gap: gap}); err != nil {
			return nil, err
		}
		if gap <= scfg.Eps {
			break
		}
		ws = addViolators(p, ws, out, dec, gm, gM, scfg.Eps, cfg.Chunk)
	}
	m := modelFromAlpha(p, k.Spec(), alpha, res.rho)
	m.Info["solver"] = "chunking"
	res.iter = iters
	res.alpha = alpha
	res.gap = gap
	res.info(m.Info, scfg, nil)
	m.Info["rounds"] = strconv.Itoa(min(round, cfg.MaxRounds))
	m.Info["chunk"] = strconv.Itoa(cfg.Chunk)
	if round > cfg.MaxRounds {
		m.Info["max_rounds_reached"] = "true"
	}
	if math.IsNaN(m.Bias) || math.IsInf(m.Bias, 0) {
		return nil, fmt.Errorf("svm: Chunking: no finite bias")
	}
	return m, nil
}

func hasBothClasses(p Problem, idx []int) bool {
	var neg, pos bool
	for _, i := range idx {
		if p.Y[i] < 0 {
			neg = true
		} else {
			pos = true
		}
	}
	return neg && pos
}

// firstWorkingSet returns Chunking's first working set: up to chunk/2
// points of each class, the first in index order, sorted.
func firstWorkingSet(p Problem, chunk int) []int {
	var ws []int
	for _, cls := range []float32{-1, 1} {
		n := 0
		for i, y := range p.Y {
			if y == cls && n < chunk/2 {
				ws = append(ws, i)
				n++
			}
		}
	}
	slices.Sort(ws)
	return ws
}

// keepSupport leaves in the working set ws (in place) its points with
// α_i > 0, marks them in inSet (cleared first), and returns them with their
// expansion Σ α_i·y_i·K(x_i, ·) (no bias).
func keepSupport(p Problem, k kernel.Kernel, ws []int, alpha []float64, inSet []bool) ([]int, *Model) {
	clear(inSet)
	sv := &Model{Kernel: k.Spec(), D: p.D}
	kept := ws[:0]
	for _, i := range ws {
		if alpha[i] > 0 {
			kept = append(kept, i)
			inSet[i] = true
			sv.SV = append(sv.SV, p.row(i)...)
			sv.Coef = append(sv.Coef, alpha[i]*float64(p.Y[i]))
			sv.NSV++
		}
	}
	return kept, sv
}

// outsideDecisions returns the points not in inSet and, in dec's memory,
// the expansion sv's value at each.
func outsideDecisions(p Problem, sv *Model, inSet []bool, dec []float64) ([]int, []float64) {
	var out []int
	var xout []float32
	for i := 0; i < p.N; i++ {
		if !inSet[i] {
			out = append(out, i)
			xout = append(xout, p.row(i)...)
		}
	}
	dec = slices.Grow(dec[:0], len(out))[:len(out)]
	if sv.NSV > 0 {
		sv.DecisionBatch(dec, xout, len(out))
	} else {
		clear(dec)
	}
	return out, dec
}

// addViolators adds to the working set ws the chunk points of out that
// violate the KKT conditions most by more than eps — a positive point by
// v_j − M(α), a negative one by m(α) − v_j, v_j = y_j − dec_j, with gm and
// gM the working set's m(α) and M(α) over all points — ties by index; it
// adds a point of the missing class if ws holds one class only, and
// returns ws sorted.
func addViolators(p Problem, ws, out []int, dec []float64, gm, gM, eps float64, chunk int) []int {
	type cand struct {
		i     int
		score float64
	}
	var cands []cand
	for q, i := range out {
		v := float64(p.Y[i]) - dec[q]
		sc := gm - v
		if p.Y[i] == 1 {
			sc = v - gM
		}
		if sc > eps {
			cands = append(cands, cand{i, sc})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.i - b.i
	})
	for _, c := range cands[:min(len(cands), chunk)] {
		ws = append(ws, c.i)
	}
	if !hasBothClasses(p, ws) {
		for i := 0; i < p.N; i++ {
			if !slices.Contains(ws, i) && (len(ws) == 0 || p.Y[i] != p.Y[ws[0]]) {
				ws = append(ws, i)
				break
			}
		}
	}
	slices.Sort(ws)
	return ws
}
