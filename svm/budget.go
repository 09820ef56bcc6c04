package svm

import (
	"fmt"
	"math"
	"slices"

	"github.com/nsvm-go/nsvm/internal/vec"
	"github.com/nsvm-go/nsvm/kernel"
)

// Budget maintenance strategies (BudgetConfig.Maintenance).
const (
	// BudgetMerge merges the support vector of smallest weight with the
	// nearby one of its class that loses the least weight (RBF kernels).
	BudgetMerge = "merge"
	// BudgetRemove removes the support vector of smallest weight.
	BudgetRemove = "remove"
)

// DefaultBudget is the number of support vectors a Budgeted set holds when
// BudgetConfig.Budget is 0.
const DefaultBudget = 1000

// mergeCandidates is how many of the nearest support vectors of its class
// (largest kernel values) a merge considers as the partner of the one it
// removes.
const mergeCandidates = 16

// BudgetConfig configures a Budgeted support set.
type BudgetConfig struct {
	// Budget is B, the most support vectors the set holds (0:
	// DefaultBudget).
	Budget int
	// Maintenance is BudgetMerge or BudgetRemove ("": merge for an RBF
	// kernel, remove otherwise).
	Maintenance string
	// Lambda is the regularisation λ > 0 of the objective.
	Lambda float64
	// Window, if not 0, caps the step count t of the rate 1/(λt) and of
	// the shrinking (1 − 1/t) at Window: each step then keeps (1 −
	// 1/Window) of f, an exponential average over about the last Window
	// rows a head saw, for data whose distribution drifts.
	Window int
}

// Validate reports whether the configuration is usable.
func (c BudgetConfig) Validate() error {
	if c.Budget < 0 || c.Window < 0 {
		return fmt.Errorf("svm: budget and window must be ≥ 0, got %d and %d", c.Budget, c.Window)
	}
	switch c.Maintenance {
	case "", BudgetMerge, BudgetRemove:
	default:
		return fmt.Errorf("svm: unknown budget maintenance %q (want %s or %s)", c.Maintenance, BudgetMerge, BudgetRemove)
	}
	if !(c.Lambda > 0) || math.IsInf(c.Lambda, 0) {
		return fmt.Errorf("svm: budgeted Pegasos: lambda must be a finite number > 0, got %g", c.Lambda)
	}
	return nil
}

// StepLoss is the loss a head of a Budgeted set or a LinearStream takes
// its sub-gradient steps on.
type StepLoss int

const (
	// LossHinge is max(0, 1 − y·g), y = ±1.
	LossHinge StepLoss = iota
	// LossSquaredHinge is max(0, 1 − y·g)² (LIBLINEAR's L2 loss).
	LossSquaredHinge
	// LossLogistic is log(1 + exp(−y·g)).
	LossLogistic
	// LossEpsInsensitive is max(0, |y − g| − ε), y real (the SVR's loss).
	LossEpsInsensitive
)

// BudgetHead is the state of one head of a Budgeted set: its step count,
// bias and loss.
type BudgetHead struct {
	// T counts the steps the head has taken: its function is the Pegasos
	// iterate f_{T+1}, and its next step is t = T+1.
	T int64
	// Bias is b; LearnBias lets the steps move it (as the weight of a
	// constant feature, see Budgeted), else it stays as set.
	Bias      float64
	LearnBias bool
	// Loss and, for LossEpsInsensitive, Epsilon.
	Loss    StepLoss
	Epsilon float64

	scale float64 // the head's coefficients are scale·coef
}

// Budgeted is budgeted stochastic gradient descent for kernel SVMs (BSGD:
// Z. Wang, K. Crammer and S. Vucetic, "Breaking the curse of
// kernelization: budgeted stochastic gradient descent for large-scale SVM
// training", JMLR 13, 2012): kernel Pegasos whose support set never holds
// more than B points. It serves H heads over one shared set of support
// vectors (the binary heads of a multiclass model, one-vs-one or
// one-vs-rest, or one head), so that a row costs one kernel row against the
// set however many heads it updates. Head h minimises
//
//	λ/2·‖f_h‖²_H + 1/n·Σ_i W_i·ℓ(y_ih, f_h(z_i) + b_h)
//
// over the rows i it sees (y_ih given), with ℓ the hinge, squared hinge or
// ε-insensitive loss. The step t of head h on row (z, y) is Pegasos' (NSVM
// paper Algorithm 0; Shalev-Shwartz et al. 2011) with η_t = 1/(λt):
//
//	f ← (1 − 1/t)·f − η_t·W·ℓ'(y, g)·K(z, ·),    g = f(z) + b,
//
// and, when the head learns a bias, b ← (1 − 1/t)·b − κ/(λt)·W·ℓ'(y, g)
// with κ = K(z, z): the bias is the weight of a constant feature √κ,
// regularised with f as LIBLINEAR regularises its bias, so that it is an
// average over the steps rather than a random walk (PegasosConfig.Bias'
// unregularised steps of up to κ each swing it by as much as one
// violation moves f, which a stream of noisy rows does not stop doing).
// The objective is then λ/2·(‖f_h‖² + b_h²/κ) + the mean loss. A row whose step changes some head's f
// becomes a support vector with one coefficient per head. When the set then
// holds B + 1 points, budget maintenance takes one away: removal drops the
// point p of least weight Σ_h α_ph²·K(z_p, z_p) (α_ph its coefficient in
// head h); merging (RBF kernels, BSGD's merging) replaces that point m and
// a partner n of the same class by z = u·z_m + (1 − u)·z_n with
// coefficients α_zh = α_mh·K(z_m, z) + α_nh·K(z_n, z), the projection of
// α_mh·φ(z_m) + α_nh·φ(z_n) on φ(z). For the RBF kernel, with k = K(z_m,
// z_n), K(z_m, z) = k^((1−u)²) and K(z_n, z) = k^(u²), and the weight lost
// is
//
//	Σ_h α_mh² + α_nh² + 2·α_mh·α_nh·k − α_zh²,
//
// which u ∈ [0, 1] minimises by golden-section search; the partner is the
// one of least loss among the mergeCandidates nearest points of m's class
// (a restriction of BSGD's search over all points, which costs a
// golden-section search per point). Points that carry the inputs they are
// features of (an NSVM's, whose features are recomputed when its network
// moves) merge in feature space as well; the merged point keeps the input
// of the partner nearer to it (u ≥ ½: m's), whose features it takes again
// when the network moves.
//
// Memory and the time of a step are bounded by B, not by the rows seen: a
// step is one kernel row over at most B + 1 points, H dot products, and at
// most one maintenance of O(B·D) plus the merge's searches.
//
// The coefficients of each head are kept as scale_h·c_ph, so that the
// shrinking (1 − 1/t)·f is one multiplication. A Budgeted set is not safe
// for concurrent use.
type Budgeted struct {
	k      kernel.Kernel
	spec   kernel.Spec
	lam    float64
	b      int
	window int64
	merge  bool
	d      int
	din    int            // width of the inputs the points carry (0: none)
	pts    *kernel.Points // the support vectors z_p
	in     []float32      // P×din inputs
	label  []int32        // class of each point (merging pairs points of one class)
	key    []int64        // each point's key (Step's), and the slot of each key
	slot   map[int64]int
	next   int64     // the next key of a new point
	coef   []float64 // P×H, row p holds c_ph
	heads  []BudgetHead

	row, row2 []float32 // kernel rows
	delta     []float64 // a step's coefficient changes, per head
	sums      []float64 // a step's Σ_p c_ph·K(z_p, z), per head
	active    []int     // the heads a step's row has a target in
	scales    []float64 // the heads' scales, for maintain
	cand      []int
	used      []int // the heads a merge touches

	// Averaging (StartAverage): the sums of the iterates since, over avgN
	// steps, kept lazily. A coefficient's sum is avg[i] + coef[i]·(scaleSum_h
	// − mark[i]): avg holds it up to the step of its last change (flush),
	// after which coef[i] stays and each step adds scale_h·coef[i], so that
	// a step costs O(H), not O(P·H). biasSum holds the biases' sums.
	avg      []float64
	mark     []float64
	scaleSum []float64
	biasSum  []float64
	avgN     int64

	// Merged and Removed count the maintenance steps taken.
	Merged, Removed int
}

// StartAverage makes Model return the mean of the iterates from the next
// step on (Polyak–Ruppert averaging, as SVRConfig.Average): the last
// iterate of steps of size up to one kernel value is noisy where the
// averaged one is not. Each step then costs O(H) more (the sums are kept
// lazily), and each change of a coefficient O(1).
func (s *Budgeted) StartAverage() {
	s.avg = make([]float64, len(s.coef))
	s.mark = make([]float64, len(s.coef))
	s.scaleSum = make([]float64, len(s.heads))
	s.biasSum = make([]float64, len(s.heads))
	s.avgN = 0
}

// average adds the current iterate to the sums.
func (s *Budgeted) average() {
	s.avgN++
	for h := range s.heads {
		s.scaleSum[h] += s.heads[h].scale
		s.biasSum[h] += s.heads[h].Bias
	}
}

// flush brings the sum of coefficient i (point i/H, head i%H) up to date,
// before its coefficient or its head's scale changes.
func (s *Budgeted) flush(i int) {
	if s.avg == nil {
		return
	}
	h := i % len(s.heads)
	s.avg[i] += s.coef[i] * (s.scaleSum[h] - s.mark[i])
	s.mark[i] = s.scaleSum[h]
}

// avgSum returns the sum of coefficient i's iterates since StartAverage.
func (s *Budgeted) avgSum(i int) float64 {
	return s.avg[i] + s.coef[i]*(s.scaleSum[i%len(s.heads)]-s.mark[i])
}

// NewBudgeted returns an empty support set of points of d features for
// the given heads, whose points carry inputs of din values (0: none).
func NewBudgeted(spec kernel.Spec, d, din int, heads []BudgetHead, cfg BudgetConfig) (*Budgeted, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	k, err := kernel.New(spec)
	if err != nil {
		return nil, fmt.Errorf("svm: budgeted Pegasos: %w", err)
	}
	if len(heads) == 0 || d < 1 || din < 0 {
		return nil, fmt.Errorf("svm: budgeted Pegasos: %d heads on %d features", len(heads), d)
	}
	_, rbf := k.(kernel.RBF)
	merge := cfg.Maintenance == BudgetMerge || cfg.Maintenance == "" && rbf
	if merge && !rbf {
		return nil, fmt.Errorf("svm: budgeted Pegasos: merging needs an RBF kernel")
	}
	s := &Budgeted{k: k, spec: spec, lam: cfg.Lambda, b: cfg.Budget, window: int64(cfg.Window), merge: merge, d: d, din: din,
		pts: kernel.NewPoints(d), heads: slices.Clone(heads), delta: make([]float64, len(heads)), slot: map[int64]int{}}
	if s.b == 0 {
		s.b = DefaultBudget
	}
	for h := range s.heads {
		s.heads[h].scale = 1
	}
	return s, nil
}

// Grow makes room for n more points, so that adding them (a model's
// support vectors, by Add) does not reallocate.
func (s *Budgeted) Grow(n int) {
	s.pts.Grow(n)
	s.key, s.label = slices.Grow(s.key, n), slices.Grow(s.label, n)
	s.coef, s.in = slices.Grow(s.coef, n*len(s.heads)), slices.Grow(s.in, n*s.din)
}

// Len returns the number of support vectors.
func (s *Budgeted) Len() int { return s.pts.Len() }

// Budget returns B.
func (s *Budgeted) Budget() int { return s.b }

// Merging reports whether maintenance merges (else it removes).
func (s *Budgeted) Merging() bool { return s.merge }

// Head returns the state of head h.
func (s *Budgeted) Head(h int) BudgetHead { return s.heads[h] }

// Add adds the point z (with its input in, din values, nil when the set
// carries none) of class label with coefficient coef[h] in head h: a support
// vector of a model the set continues. It may exceed the budget until the
// next Step or Fit; coefficients are taken as they are (not scaled). It
// returns the point's key (see Step).
func (s *Budgeted) Add(z, in []float32, label int32, coef []float64) int64 {
	if len(z) != s.d || len(in) != s.din || len(coef) != len(s.heads) {
		panic("svm: Budgeted.Add: length mismatch")
	}
	for h := range s.heads {
		s.delta[h] = coef[h] / s.heads[h].scale
	}
	return s.push(z, in, label)
}

// push appends a point with the coefficients s.delta under a new key.
func (s *Budgeted) push(z, in []float32, label int32) int64 {
	k := s.next
	s.next++
	s.slot[k] = s.Len()
	s.key = append(s.key, k)
	s.pts.Append(z, float32(sqNorm64(z)))
	s.in = append(s.in, in...)
	s.label = append(s.label, label)
	s.coef = append(s.coef, s.delta...)
	if s.avg != nil {
		// No sum before it: its mark is where the sums stand.
		s.avg = append(s.avg, make([]float64, len(s.heads))...)
		s.mark = append(s.mark, s.scaleSum...)
	}
	return k
}

// Labels returns the classes of the points, in their order.
func (s *Budgeted) Labels() []int32 { return s.label }

// Keys returns the keys of the points, in their order (Inputs', and the
// rows of SetInputs).
func (s *Budgeted) Keys() []int64 { return s.key }

// SetInputs replaces the features of every point by feats (Len()×D, the
// features of the points' inputs under a network that has moved).
func (s *Budgeted) SetInputs(feats []float32) {
	if len(feats) != s.Len()*s.d {
		panic("svm: Budgeted.SetInputs: length mismatch")
	}
	for p := range s.Len() {
		z := feats[p*s.d : (p+1)*s.d]
		s.pts.Set(p, z, float32(sqNorm64(z)))
	}
}

// Inputs returns the points' inputs (Len()×din); it must not be modified.
func (s *Budgeted) Inputs() []float32 { return s.in }

// Fit brings the set within its budget (after Add).
func (s *Budgeted) Fit() {
	for s.Len() > s.b {
		s.maintain()
	}
}

// Step takes one step of every head h whose target y[h] is not NaN on the
// row z (with its input in, nil when the set carries none) of class label
// and weight w: classification heads take y = ±1, LossEpsInsensitive heads
// the real target. key names the row when it may be a point of the set
// (Add's or an earlier Step's key, to step on a support vector again: its
// coefficients grow), or is −1 for a new row. It returns the key of the
// row's point when the step stored one (−1 if none).
func (s *Budgeted) Step(z, in []float32, label int32, y []float64, w float64, key int64) int64 {
	if len(z) != s.d || len(in) != s.din || len(y) != len(s.heads) {
		panic("svm: Budgeted.Step: length mismatch")
	}
	n := s.Len()
	s.row = vec.Resize(s.row, n)
	if n > 0 {
		s.pts.Row(s.k, s.row, z)
	}
	s.headSums(y, n)
	added := false
	var kz float64
	for h := range s.heads {
		s.delta[h] = 0
		yh := y[h]
		if math.IsNaN(yh) {
			continue
		}
		hd := &s.heads[h]
		hd.T++
		t := float64(capT(hd.T, s.window))
		g := hd.Bias
		if n > 0 {
			g += hd.scale * s.sums[h]
		}
		d := lossSlope(hd.Loss, hd.Epsilon, yh, g) * w // −ℓ'(y, g)·W
		if hd.T > 1 {
			hd.scale *= 1 - 1/t
		} else {
			hd.scale = 0 // f_2 = 0·f_1 + …: nothing before the first step counts
		}
		if hd.scale < 1e-9 {
			s.rescale(h)
		}
		if hd.LearnBias {
			hd.Bias *= 1 - 1/t
		}
		if d == 0 {
			continue
		}
		s.delta[h] = d / (s.lam * t * hd.scale)
		added = true
		if hd.LearnBias {
			if kz == 0 {
				kz = s.k.Eval(z, z)
			}
			hd.Bias += kz * d / (s.lam * t)
		}
	}
	if s.avg != nil {
		defer s.average()
	}
	if !added {
		if p, ok := s.slot[key]; ok && key >= 0 {
			return s.key[p]
		}
		return -1
	}
	if p, ok := s.slot[key]; ok && key >= 0 {
		H := len(s.heads)
		for h, d := range s.delta {
			if d != 0 {
				s.flush(p*H + h)
				s.coef[p*H+h] += d
			}
		}
		return key
	}
	k := s.push(z, in, label)
	s.Fit()
	if _, ok := s.slot[k]; !ok {
		return -1 // merged or removed at once
	}
	return k
}

// headSums sets sums[h] = Σ_p c_ph·row[p] over the n points for every head
// h with a target in y.
func (s *Budgeted) headSums(y []float64, n int) {
	s.sums = vec.Resize(s.sums, len(s.heads))
	s.active = s.active[:0]
	for h, yh := range y {
		s.sums[h] = 0
		if !math.IsNaN(yh) {
			s.active = append(s.active, h)
		}
	}
	addDots(s.sums, s.row[:n], s.coef, len(s.heads), s.active)
}

// addDots adds Σ_p coef[p·H+h]·k[p] to acc[h] for each head h in heads,
// term by term with the points in order (the sum a loop over the points
// takes head by head, bit for bit), up to eight heads a pass over the
// points, in registers.
func addDots(acc []float64, k []float32, coef []float64, H int, heads []int) {
	coef = coef[:len(k)*H]
	for len(heads) >= 8 {
		h0, h1, h2, h3, h4, h5, h6, h7 := heads[0], heads[1], heads[2], heads[3], heads[4], heads[5], heads[6], heads[7]
		a0, a1, a2, a3, a4, a5, a6, a7 := acc[h0], acc[h1], acc[h2], acc[h3], acc[h4], acc[h5], acc[h6], acc[h7]
		for p, r := range k {
			kp := float64(r)
			c := coef[p*H : (p+1)*H]
			a0 += c[h0] * kp
			a1 += c[h1] * kp
			a2 += c[h2] * kp
			a3 += c[h3] * kp
			a4 += c[h4] * kp
			a5 += c[h5] * kp
			a6 += c[h6] * kp
			a7 += c[h7] * kp
		}
		acc[h0], acc[h1], acc[h2], acc[h3] = a0, a1, a2, a3
		acc[h4], acc[h5], acc[h6], acc[h7] = a4, a5, a6, a7
		heads = heads[8:]
	}
	for len(heads) >= 2 {
		h0, h1 := heads[0], heads[1]
		a0, a1 := acc[h0], acc[h1]
		for p, r := range k {
			kp := float64(r)
			c := coef[p*H : (p+1)*H]
			a0 += c[h0] * kp
			a1 += c[h1] * kp
		}
		acc[h0], acc[h1] = a0, a1
		heads = heads[2:]
	}
	if len(heads) == 1 {
		h0 := heads[0]
		a0 := acc[h0]
		for p, r := range k {
			a0 += coef[p*H+h0] * float64(r)
		}
		acc[h0] = a0
	}
}

// capT returns t capped at window (0: no cap).
func capT(t, window int64) int64 {
	if window > 0 {
		return min(t, window)
	}
	return t
}

// lossSlope returns −∂ℓ(y, g)/∂g.
func lossSlope(l StepLoss, eps, y, g float64) float64 {
	switch l {
	case LossSquaredHinge:
		if m := 1 - y*g; m > 0 {
			return 2 * y * m
		}
	case LossLogistic:
		return y / (1 + math.Exp(y*g))
	case LossEpsInsensitive:
		switch {
		case y-g > eps:
			return 1
		case g-y > eps:
			return -1
		}
	default:
		if y*g < 1 {
			return y
		}
	}
	return 0
}

// rescale folds head h's scale into its coefficients.
func (s *Budgeted) rescale(h int) {
	hd := &s.heads[h]
	H := len(s.heads)
	for p := range s.Len() {
		s.flush(p*H + h)
		s.coef[p*H+h] *= hd.scale
	}
	if s.avg != nil {
		// The sums go on in the unscaled coefficients: a mark is the
		// scales' sum from here.
		for p := range s.Len() {
			s.mark[p*H+h] = 0
		}
		s.scaleSum[h] = 0
	}
	hd.scale = 1
}

// maintain takes one point away: the point of least weight Σ_h α_ph²
// (times K(z_p, z_p), 1 for RBF) is removed, or merged with a partner.
func (s *Budgeted) maintain() {
	n, H := s.Len(), len(s.heads)
	s.scales = vec.Resize(s.scales, H)
	for h := range H {
		s.scales[h] = s.heads[h].scale
	}
	m, best := 0, math.Inf(1)
	for p := range n {
		var w float64
		for h, c := range s.coef[p*H : (p+1)*H] {
			a := s.scales[h] * c
			w += a * a
		}
		if !s.merge {
			z := s.pts.X()[p*s.d : (p+1)*s.d]
			w *= s.k.Eval(z, z)
		}
		if w < best {
			m, best = p, w
		}
	}
	if !s.merge || !s.mergeInto(m) {
		s.remove(m)
		s.Removed++
		return
	}
	s.Merged++
}

// mergeInto merges point m with the partner of its class that loses the
// least weight, and reports whether there was one.
func (s *Budgeted) mergeInto(m int) bool {
	n, H, d := s.Len(), len(s.heads), s.d
	zm := slices.Clone(s.pts.X()[m*d : (m+1)*d])
	s.row2 = vec.Resize(s.row2, n)
	s.pts.Row(s.k, s.row2, zm)
	// The nearest points of m's class.
	s.cand = s.cand[:0]
	for p := range n {
		if p != m && s.label[p] == s.label[m] {
			s.cand = append(s.cand, p)
		}
	}
	if len(s.cand) == 0 {
		return false
	}
	slices.SortFunc(s.cand, func(a, b int) int {
		if c := -cmpF32(s.row2[a], s.row2[b]); c != 0 {
			return c
		}
		return a - b
	})
	s.cand = s.cand[:min(len(s.cand), mergeCandidates)]
	// The heads in which m or a candidate has a coefficient (a one-vs-one
	// head sees the points of two classes only).
	s.used = s.used[:0]
	for h := range H {
		use := s.coef[m*H+h] != 0 || s.avg != nil && s.avgSum(m*H+h) != 0
		for _, p := range s.cand {
			use = use || s.coef[p*H+h] != 0 || s.avg != nil && s.avgSum(p*H+h) != 0
		}
		if use {
			s.used = append(s.used, h)
		}
	}
	am := make([]float64, len(s.used))
	an := make([]float64, len(s.used))
	for q, h := range s.used {
		am[q] = s.heads[h].scale * s.coef[m*H+h]
	}
	partner, bestU, bestLoss := -1, 0.0, math.Inf(1)
	for _, p := range s.cand {
		for q, h := range s.used {
			an[q] = s.heads[h].scale * s.coef[p*H+h]
		}
		k := float64(s.row2[p])
		u, kept := mergePoint(am, an, k)
		var before float64
		for q := range s.used {
			before += am[q]*am[q] + an[q]*an[q] + 2*am[q]*an[q]*k
		}
		if loss := before - kept; loss < bestLoss {
			partner, bestU, bestLoss = p, u, loss
		}
	}
	if partner < 0 {
		return false
	}
	k := float64(s.row2[partner])
	zn := s.pts.X()[partner*d : (partner+1)*d]
	z := make([]float32, d)
	for j := range z {
		z[j] = float32(bestU*float64(zm[j]) + (1-bestU)*float64(zn[j]))
	}
	km, kn := math.Pow(k, (1-bestU)*(1-bestU)), math.Pow(k, bestU*bestU)
	for _, h := range s.used {
		s.flush(m*H + h)
		s.flush(partner*H + h)
		a := s.heads[h].scale*s.coef[m*H+h]*km + s.heads[h].scale*s.coef[partner*H+h]*kn
		s.coef[m*H+h] = a / s.heads[h].scale
		if s.avg != nil {
			s.avg[m*H+h] = s.avg[m*H+h]*km + s.avg[partner*H+h]*kn
		}
	}
	s.pts.Set(m, z, float32(sqNorm64(z)))
	if s.din > 0 && bestU < 0.5 {
		// The merged point keeps the input of the partner nearer to it.
		copy(s.in[m*s.din:(m+1)*s.din], s.in[partner*s.din:(partner+1)*s.din])
	}
	s.remove(partner)
	return true
}

// mergePoint returns the u ∈ [0, 1] that maximises Σ_h α_zh², α_zh =
// a_h·k^((1−u)²) + b_h·k^(u²), found by golden-section search, and that
// maximum: the weight the merged point keeps.
func mergePoint(a, b []float64, k float64) (u, kept float64) {
	if k <= 0 {
		// Orthogonal points: keep the heavier one.
		var wa, wb float64
		for h := range a {
			wa += a[h] * a[h]
			wb += b[h] * b[h]
		}
		if wa >= wb {
			return 1, wa
		}
		return 0, wb
	}
	lk := math.Log(k)
	f := func(u float64) float64 {
		km, kn := math.Exp(lk*(1-u)*(1-u)), math.Exp(lk*u*u)
		var s float64
		for h := range a {
			v := a[h]*km + b[h]*kn
			s += v * v
		}
		return s
	}
	const phi = 0.6180339887498949
	lo, hi := 0.0, 1.0
	x1, x2 := hi-phi*(hi-lo), lo+phi*(hi-lo)
	f1, f2 := f(x1), f(x2)
	for hi-lo > 1e-4 {
		if f1 < f2 {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + phi*(hi-lo)
			f2 = f(x2)
		} else {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - phi*(hi-lo)
			f1 = f(x1)
		}
	}
	u = (lo + hi) / 2
	return u, f(u)
}

// remove deletes point p, moving the last point into its place.
func (s *Budgeted) remove(p int) {
	last, H, d := s.Len()-1, len(s.heads), s.d
	delete(s.slot, s.key[p])
	if p != last {
		s.pts.Set(p, s.pts.X()[last*d:(last+1)*d], s.pts.Norms()[last])
		copy(s.coef[p*H:(p+1)*H], s.coef[last*H:(last+1)*H])
		if s.avg != nil {
			copy(s.avg[p*H:(p+1)*H], s.avg[last*H:(last+1)*H])
			copy(s.mark[p*H:(p+1)*H], s.mark[last*H:(last+1)*H])
		}
		s.label[p] = s.label[last]
		s.key[p] = s.key[last]
		s.slot[s.key[p]] = p
		if s.din > 0 {
			copy(s.in[p*s.din:(p+1)*s.din], s.in[last*s.din:(last+1)*s.din])
		}
	}
	s.pts.Truncate(last)
	s.coef = s.coef[:last*H]
	if s.avg != nil {
		s.avg, s.mark = s.avg[:last*H], s.mark[:last*H]
	}
	s.label = s.label[:last]
	s.key = s.key[:last]
	s.in = s.in[:last*s.din]
}

// modelCoef is point p's coefficient in head h as Model reports it: the
// mean of the iterates once averaging has begun (StartAverage), else the
// last iterate's.
func (s *Budgeted) modelCoef(p, h int) float64 {
	if s.avg != nil && s.avgN > 0 {
		return s.avgSum(p*len(s.heads)+h) / float64(s.avgN)
	}
	return s.heads[h].scale * s.coef[p*len(s.heads)+h]
}

// modelBias is head h's bias as Model reports it (see modelCoef).
func (s *Budgeted) modelBias(h int) float64 {
	if s.avg != nil && s.avgN > 0 {
		return s.biasSum[h] / float64(s.avgN)
	}
	return s.heads[h].Bias
}

// Decisions sets dst[i·H+h] to head h's decision value on row i of the n
// rows z (n×D), the value Model(h) gives, with one kernel row a row over
// the points that every head shares (where the heads' Models evaluate
// theirs each).
func (s *Budgeted) Decisions(dst []float64, z []float32, n int) {
	H, P := len(s.heads), s.Len()
	if len(z) < n*s.d || len(dst) < n*H {
		panic("svm: Budgeted.Decisions: length mismatch")
	}
	// The actual coefficients that are not 0, point by point (a one-vs-one
	// model's point has them in the heads of its class only).
	type headCoef struct {
		h int
		c float64
	}
	nz := make([]headCoef, 0, P*H)
	start := make([]int, P+1)
	for p := range P {
		for h := range H {
			if c := s.modelCoef(p, h); c != 0 {
				nz = append(nz, headCoef{h, c})
			}
		}
		start[p+1] = len(nz)
	}
	// Every coefficient not 0 (one-vs-rest heads): the sums over the
	// points as addDots takes them, the same terms in the same order.
	var dense []float64
	var all []int
	if len(nz) == P*H {
		dense = make([]float64, P*H)
		for i, e := range nz {
			dense[i] = e.c
		}
		all = make([]int, H)
		for h := range all {
			all[h] = h
		}
	}
	// Blocks of rows in parallel (rows do not depend on their neighbours:
	// the values are the same whatever the split).
	const block = 256
	rowsParallel(n, n*P*s.d, func(lo, hi int) {
		k := make([]float32, min(hi-lo, block)*P)
		for b0 := lo; b0 < hi; b0 += block {
			b1 := min(hi, b0+block)
			if P > 0 {
				s.k.Cross(k, z[b0*s.d:b1*s.d], b1-b0, nil, s.pts.X(), P, s.pts.Norms(), s.d)
			}
			for i := b0; i < b1; i++ {
				row := dst[i*H : (i+1)*H]
				for h := range H {
					row[h] = s.modelBias(h)
				}
				if dense != nil {
					addDots(row, k[(i-b0)*P:(i-b0+1)*P], dense, H, all)
					continue
				}
				for p, kv := range k[(i-b0)*P : (i-b0+1)*P] {
					for _, e := range nz[start[p]:start[p+1]] {
						row[e.h] += e.c * float64(kv)
					}
				}
			}
		}
	})
}

// Model returns head h as a kernel expansion over the support vectors its
// coefficients use, with its bias; their inputs, when the set carries them,
// are in Model.Inputs. Info records the step count.
func (s *Budgeted) Model(h int) *Model {
	d := s.d
	m := newModel(s.spec, d, false)
	m.Bias = s.modelBias(h)
	for p := range s.Len() {
		if s.modelCoef(p, h) != 0 {
			m.NSV++
		}
	}
	m.SV = make([]float32, 0, m.NSV*d)
	if m.NSV > 0 {
		m.Coef = make([]float64, 0, m.NSV)
		if s.din > 0 {
			m.Inputs = make([]float32, 0, m.NSV*s.din)
		}
	}
	for p := range s.Len() {
		c := s.modelCoef(p, h)
		if c == 0 {
			continue
		}
		m.SV = append(m.SV, s.pts.X()[p*d:(p+1)*d]...)
		m.Coef = append(m.Coef, c)
		if s.din > 0 {
			m.Inputs = append(m.Inputs, s.in[p*s.din:(p+1)*s.din]...)
		}
	}
	return m
}

func cmpF32(a, b float32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
