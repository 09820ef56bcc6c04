package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/nn"
	"github.com/nsvm-go/nsvm/paper"
	"github.com/nsvm-go/nsvm/svm"
)

// The search grid of the classical SVM, relative to the data: γ in units
// of 1/D (scikit-learn's gamma="scale" on standardised data), C absolute.
var (
	gridGammaD = []float64{1.0 / 16, 1.0 / 4, 1, 4, 16}
	gridC      = []float64{0.1, 1, 10, 100}
	// gridEps is the SVR's ε in units of the target's standard deviation
	// on the coarse grid; the refinement tries ε × 10^∓1 and × 3 around
	// the best.
	gridEps = []float64{0.1}
)

// planNotes says which kinds of candidates the plan of candidates leaves
// out on d, and why (Selection.Notes).
func planNotes(d *fitData, c *FitConfig) []string {
	if c.Algorithm != "" || c.nsvmPinned() {
		return nil
	}
	switch {
	case d.sp == nil && d.n < minNetRows:
		return []string{fmt.Sprintf("no network tried: %d rows, fewer than %d (too few held-out rows for a network's early stopping; --algo nsvm4 trains one anyway)", d.n, minNetRows)}
	case d.sp != nil && !(d.n >= minNetRows && d.n <= sparseNetRows && d.d*sparseNetWidth <= sparseNetParams):
		return []string{fmt.Sprintf("no network tried: %d sparse rows of %d features (a network on sparse rows is tried on %d to %d rows whose first layer has at most %d weights)", d.n, d.d, minNetRows, sparseNetRows, sparseNetParams)}
	}
	return nil
}

// minNetRows is the smallest data set on which the search tries networks
// unasked: below it, the part of a fold that Part I holds out for early
// stopping has fewer than about 60 rows, too few to tell one checkpoint
// from another, and on the small data sets measured (bench/suite) no
// network came near the SVM.
const minNetRows = 500

// nsvmPinned reports whether cfg pins something only NSVMs have.
func (c *FitConfig) nsvmPinned() bool {
	return c.Arch != "" || c.LR > 0 || c.Momentum != nil || c.WeightDecay != nil || c.Optimizer != "" ||
		c.Schedule != "" || c.Mu > 0 || c.Loss != "" || c.Solver2 != "" || c.Reg.Name != "" || c.Steps2 > 0 ||
		c.Target != "" || c.Balanced != nil || c.Objective != "" || c.Augment != "" || c.TestAugment != ""
}

// candidates returns the recipes the search tries, cheapest first.
func candidates(d *fitData, c *FitConfig) ([]*recipe, error) {
	if c.Batch > d.n {
		return nil, fmt.Errorf("%w: batch size %d exceeds the %d training points", model.ErrBadData, c.Batch, d.n)
	}
	scheme := string(c.Multiclass)
	if scheme == "" {
		scheme = model.OneVsOne
		if c.Probability && c.Algorithm == "nsvm3" || c.Algorithm == "linear" || c.Algorithm == "" && d.sp != nil {
			// LIBLINEAR's arrangement for linear SVMs: one head per class.
			scheme = model.OneVsRest
		}
	}
	if d.sp != nil {
		if err := sparseSupported(d, c); err != nil {
			return nil, err
		}
	}
	if c.Algorithm == "nsvm3" && d.nclass() > 2 {
		scheme = model.OneVsRest
	}
	if err := d.checkMemory(c, scheme); err != nil {
		return nil, err
	}
	if c.Augment != "" && !d.image() {
		return nil, configErr("augmentation %q needs images: give the input shape (--input-shape CxHxW)", c.Augment)
	}
	if c.TestAugment != "" && !d.image() {
		return nil, configErr("test-time augmentation %q needs images: give the input shape (--input-shape CxHxW)", c.TestAugment)
	}
	if c.TestAugment == "shift" {
		if err := model.CheckTestShiftShape(d.shape, 1); err != nil {
			return nil, configErr("%v", errmsg.Strip(err))
		}
	}
	if c.Objective == paper.ObjectiveSoftmax && d.task != model.Classification {
		return nil, configErr("the softmax objective needs classes; the task is regression")
	}
	var out []*recipe
	switch alg := nsvmAlg(string(c.Algorithm)); {
	case alg >= 1 && alg <= 3:
		r, err := paperRecipe(d, c, alg, scheme)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	case alg == 4:
		rs, err := autoNSVMRecipes(d, c, scheme)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	case c.Algorithm != "":
		rs, err := svmRecipes(d, c, string(c.Algorithm), scheme)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	case d.sp != nil:
		// Sparse rows: the linear SVM's C path, and, on as many rows as a
		// kernel SVM trains on in the search, SMO's RBF SVM; an MLP NSVM
		// (its first layer multiplying the sparse rows) where its first
		// layer and epochs stay small.
		if !c.nsvmPinned() {
			rs, err := svmRecipes(d, c, "linear", scheme)
			if err != nil {
				return nil, err
			}
			out = append(out, rs...)
			if d.n <= sparseKernelRows {
				rs, err := svmRecipes(d, c, "smo", scheme)
				if err != nil {
					return nil, err
				}
				out = append(out, rs...)
			}
		}
		if c.nsvmPinned() || d.n >= minNetRows && d.n <= sparseNetRows && d.d*sparseNetWidth <= sparseNetParams {
			rs, err := autoNSVMRecipes(d, c, scheme)
			if err != nil {
				return nil, err
			}
			out = append(out, rs...)
		}
	default:
		if !c.nsvmPinned() {
			rs, err := svmRecipes(d, c, "smo", scheme)
			if err != nil {
				return nil, err
			}
			out = append(out, rs...)
		}
		if d.n >= minNetRows || c.nsvmPinned() {
			rs, err := autoNSVMRecipes(d, c, scheme)
			if err != nil {
				return nil, err
			}
			out = append(out, rs...)
		}
	}
	sortByCost(out)
	for _, r := range out {
		r.name = r.describe()
	}
	return out, nil
}

// sparseSupported reports what Fit cannot do on sparse rows (yet).
func sparseSupported(d *fitData, c *FitConfig) error {
	switch {
	case d.task == model.Regression:
		return fmt.Errorf("%w: regression on sparse rows is not supported; read the data dense (layout dense)", model.ErrBadData)
	case c.Scaling != "" && c.Scaling != ScaleNone:
		return configErr("scaling %s would make sparse rows dense; sparse rows train unscaled (scaling none), or read them dense (layout dense)", c.Scaling)
	case c.Algorithm != "" && c.Algorithm != "linear" && c.Algorithm != "smo" && c.Algorithm != "pegasos" && c.Algorithm != "nsvm4":
		return configErr("%s takes dense rows; the data are sparse (%d × %d): use linear, smo, pegasos or nsvm4, or read them dense (layout dense)", c.Algorithm, d.n, d.d)
	case c.Arch != "":
		if ok, err := nn.SparseArch(c.Arch, d.shape); err == nil && !ok {
			return configErr("network %q takes dense rows; on sparse rows a network must start with a dense layer", c.Arch)
		}
	}
	return nil
}

// Sparse rows and networks: an MLP NSVM joins the search on sparse data
// of minNetRows to sparseNetRows rows whose first layer, sparseNetWidth
// wide, has at most sparseNetParams weights. Its optimizer step updates
// every first-layer weight (Adam's moments, weight decay), so that an
// epoch costs about N/k·D·width: on 8000 rows of the Debian descriptions
// (56056 features, 3.6 million first-layer weights) Part I ran for more
// than 7 minutes on a loaded machine, where the linear path took 20 s.
const (
	sparseNetRows   = 5000
	sparseNetWidth  = 64
	sparseNetParams = 1 << 20
)

// scalings returns the input scalings to try for a classical SVM.
func scalings(d *fitData, c *FitConfig) []string {
	if c.Scaling != "" {
		return []string{string(c.Scaling)}
	}
	if d.sp != nil {
		return []string{ScaleNone}
	}
	if d.d == 1 {
		return []string{ScaleStandardize}
	}
	return []string{ScaleStandardize, ScaleGlobal}
}

// svmRecipes returns the classical SVMs of solver over the grid of the
// parameters cfg leaves open.
func svmRecipes(d *fitData, c *FitConfig, solver, scheme string) ([]*recipe, error) {
	if d.task == model.Regression && solver != "smo" && solver != "pegasos" {
		return nil, configErr("regression needs smo, pegasos or nsvm4, not %s", solver)
	}
	name := c.Kernel
	if name == "" {
		name = "rbf"
	}
	if linearSolver(solver) {
		if c.Kernel != "" && c.Kernel != "linear" {
			return nil, configErr("%s learns a linear function of the inputs; it takes no %s kernel", solver, c.Kernel)
		}
		name = "linear"
	}
	gammas := []float64{0}
	if name != "linear" && c.Gamma == 0 {
		gammas = gridGammaD
	}
	cs := []float64{1}
	if c.C > 0 {
		cs = []float64{c.C}
	} else if solver == "linear" {
		cs = linearC
	} else if solver != "perceptron" && (solver != "pegasos" && solver != "pegasos-linear" || c.Lambda == 0) {
		cs = gridC
		if d.task == model.Regression {
			// On standardised targets C = 100 fits noise at great cost;
			// the refinement extends the grid when the best C is 10.
			cs = gridC[:len(gridC)-1]
		}
	}
	epss := []float64{0}
	if d.task == model.Regression {
		epss = gridEps
		if c.Epsilon != nil {
			epss = []float64{0} // pinned in target units: fitHeads converts it
		}
	}
	// The ν types: ν takes the place of C (ν-SVC) or of ε (ν-SVR).
	nus := []float64{0}
	if solver == "smo" && (c.SVMType == SVMNuSVC || c.SVMType == SVMNuSVR) {
		solver, nus = "nu-smo", c.nus()
		if c.SVMType == SVMNuSVC {
			cs = []float64{1}
		}
		epss = []float64{0}
	}
	losses := []svm.DCDLoss{svm.SquaredHinge}
	if solver == "linear" {
		var err error
		if losses, err = c.linearLosses(); err != nil {
			return nil, err
		}
	}
	var out []*recipe
	unit := d.gammaUnit()
	for _, sc := range scalings(d, c) {
		for _, g := range gammas {
			for _, loss := range losses {
				spec := kernel.Spec{Name: "linear"}
				if !linearSolver(solver) {
					var err error
					if spec, err = c.kernelSpec(g * unit); err != nil {
						return nil, err
					}
				}
				for _, cc := range cs {
					for _, e := range epss {
						for _, nu := range nus {
							r := &recipe{scaling: sc, scheme: scheme, cfg: c, solver: solver, kern: spec, c: cc, eps: e, loss: loss, nu: nu,
								blend: solver == "linear" && c.LinearLoss == "l2+l1", cost: math.Log(cc+1) + 0.1*math.Abs(math.Log(g+1e-9))}
							r.incumbent = solver == "smo" && sc == ScaleStandardize && spec.Name == "rbf" && !spec.Normalized &&
								spec.Gamma == unit && cc == 1 && (d.task != model.Regression || e == 0.1)
							if d.sp != nil {
								// On sparse rows the linear SVM at C = 1 (LIBLINEAR's
								// default) is the default to beat.
								r.incumbent = solver == "linear" && loss == svm.SquaredHinge && cc == 1
							}
							out = append(out, r)
						}
					}
				}
			}
		}
	}
	return out, nil
}

// sparseKernelRows bounds the rows of sparse data on which the search
// tries kernel SVMs unasked: on more, the linear SVM trains on every row
// while a kernel SVM would see a sample (svmSearchRows), and on wide,
// sparse data (text) a linear model of all the rows is the one to beat.
const sparseKernelRows = svmSearchRows

// gammaUnit is the unit of the γ grid: 1/D, scikit-learn's gamma="scale"
// on standardised inputs; for sparse rows, which are not scaled, one over
// the mean squared norm of a row (so that γ·‖a − b‖² is of order one).
func (d *fitData) gammaUnit() float64 {
	if d.sp == nil {
		return 1 / float64(d.d)
	}
	var s float64
	for _, v := range d.sp.Val {
		s += float64(v) * float64(v)
	}
	if s == 0 {
		return 1
	}
	return float64(d.n) / s
}

// linearC is the C grid of the linear solver: 10^(k/2) from 0.01 to 100,
// which its C paths walk from C = 1 (see walkLinearPath).
var linearC = func() []float64 {
	var cs []float64
	for k := -4; k <= 4; k++ {
		cs = append(cs, math.Pow(10, float64(k)/2))
	}
	return cs
}()

// linearLosses returns the losses of the linear solver to try.
func (c *FitConfig) linearLosses() ([]svm.DCDLoss, error) {
	switch c.LinearLoss {
	case "":
		return []svm.DCDLoss{svm.SquaredHinge, svm.Hinge}, nil
	case "l2", "l2+l1":
		return []svm.DCDLoss{svm.SquaredHinge}, nil
	case "l1":
		return []svm.DCDLoss{svm.Hinge}, nil
	}
	return nil, configErr("unknown linear loss %q (want l2, l1 or l2+l1)", c.LinearLoss)
}

// paperRecipe returns Algorithm 1, 2 or 3 with the paper's preset for the
// data's kind (the MNIST preset for images, the Ringnorm preset for
// vectors) and the pinned fields of cfg.
func paperRecipe(d *fitData, c *FitConfig, alg int, scheme string) (*recipe, error) {
	if d.task != model.Classification {
		return nil, configErr("algorithm %d is a classifier; regression needs nsvm4, smo or pegasos", alg)
	}
	if d.nclass() > 2 && alg != 3 {
		return nil, fmt.Errorf("%w: algorithm %d is binary and the data has %d classes; use nsvm3 or nsvm4 (multiclass NSVMs) or a classical solver", model.ErrBadData, alg, d.nclass())
	}
	if c.Batch > d.n {
		return nil, fmt.Errorf("%w: batch size %d exceeds the %d training points", model.ErrBadData, c.Batch, d.n)
	}
	var p paper.Preset
	var err error
	if d.image() {
		p, err = paper.MNISTPreset(alg)
	} else {
		p, err = paper.RingnormPreset(alg)
	}
	if err != nil {
		return nil, err
	}
	if c.Arch != "" {
		p.Arch = c.Arch
	}
	if alg == 3 && d.nclass() > 2 {
		multiclassAlg3Preset(&p)
	}
	if err := c.pinPreset(&p); err != nil {
		return nil, err
	}
	sc := ScaleStandardize
	if d.image() {
		sc = ScaleNone
	}
	if c.Scaling != "" {
		sc = string(c.Scaling)
	}
	if p.Alg3.Batch > d.n && c.Batch == 0 {
		p.Alg3.Batch = d.n
	}
	return &recipe{scaling: sc, scheme: scheme, cfg: c, alg: alg, arch: p.Arch, preset: p, kern: p.Config().Kernel}, nil
}

// multiclassAlg3Preset adapts Algorithm 3's preset to the joint training of
// more than two one-vs-rest heads (TrainMulticlassAlg3): Adam at 1e-3,
// μ = 0.1 and λ = 1e-5, with class-balanced alignment labels unless
// FitConfig.Balanced says otherwise. The paper's binary settings (plain SGD,
// μ = 1, λ = 1e-4, ±1 labels) let the C−1 negatives of every head pull the
// features towards a constant: on sklearn's digits (10 classes) they give a
// chance-level model (10 % on the test split of seed 0), these settings
// 97.6 % (96.4 %, 96.9 % on seeds 1, 2); iris and wine stay at 100 %.
func multiclassAlg3Preset(p *paper.Preset) {
	p.Alg3.Opt = paper.OptConfig{Name: "adam", LR: 1e-3}
	p.Alg3.Mu = 0.1
	p.Alg3.Lambda = 1e-5
}

// pinPreset applies the pinned trainer fields of c to p.
func (c *FitConfig) pinPreset(p *paper.Preset) error {
	cf := p.Config()
	if c.Kernel != "" || c.Gamma > 0 || c.NormalizeKernel {
		s, err := c.kernelSpec(cf.Kernel.Gamma)
		if err != nil {
			return err
		}
		cf.Kernel = s
	}
	if c.Lambda > 0 {
		cf.Lambda = c.Lambda
		p.Alg4.Part2.Lambda = c.Lambda
	}
	if c.Steps > 0 {
		cf.T = c.Steps
	}
	cf.Opt = cf.Opt.With(c.LR, c.Momentum, c.WeightDecay, string(c.Optimizer), string(c.Schedule))
	if c.Mu > 0 {
		p.Alg3.Mu = c.Mu
	}
	cf.Bias = c.Bias
	if c.Batch > 0 {
		p.Alg3.Batch, p.Alg4.Batch = c.Batch, c.Batch
	}
	if c.Chunk > 0 {
		p.Alg2.Chunk = c.Chunk
	}
	if c.Loss != "" {
		p.Alg4.Loss = paper.AlignLosses[string(c.Loss)]
	}
	if c.Objective != "" {
		p.Alg4.Objective = string(c.Objective)
	}
	p.Alg3.Reg, p.Alg4.Reg = c.reg(), c.reg()
	p2 := &p.Alg4.Part2
	if c.Solver2 != "" {
		p2.Solver = string(c.Solver2)
	}
	if c.Steps2 > 0 {
		p2.T = c.Steps2
	}
	if c.C > 0 {
		p2.C = c.C
	}
	p2.Eps, p2.CacheMB = c.Tol, c.CacheMB
	return nil
}

// autoNSVMRecipes returns the Algorithm 4 candidates for the data: a
// network sized from the data (an MLP for vectors, a CNN and an MLP for
// images), Part I counted in epochs with early stopping, an SMO head whose
// C is chosen on the validation rows.
func autoNSVMRecipes(d *fitData, c *FitConfig, scheme string) ([]*recipe, error) {
	type net struct {
		arch  string
		image bool
	}
	var nets []net
	if c.Arch != "" {
		nets = []net{{c.Arch, d.image()}}
	} else {
		if d.image() {
			if a := cnnArch(d.shape); a != "" {
				nets = append(nets, net{a, true})
			}
		}
		nets = append(nets, net{mlpArch(d), false})
	}
	var out []*recipe
	for _, nt := range nets {
		r, err := autoNSVM(d, c, scheme, nt.arch, nt.image)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func autoNSVM(d *fitData, c *FitConfig, scheme, arch string, conv bool) (*recipe, error) {
	if _, err := nn.ParamCount(arch, d.shape); err != nil {
		return nil, configErr("network %q does not fit inputs of shape %v: %v", arch, d.shape, err)
	}
	if c.Batch > d.n {
		return nil, fmt.Errorf("%w: batch size %d exceeds the %d training points", model.ErrBadData, c.Batch, d.n)
	}
	k := 16
	if d.task == model.Classification {
		k = min(256, max(16, 6*d.nclass()))
	}
	if conv {
		k = max(k, 64)
	}
	k = min(k, d.n)
	k = max(k, 2)
	opt := paper.OptConfig{Name: "adam", LR: 1e-3, WeightDecay: 1e-4, Schedule: "invt", T0: 3000}
	if d.task == model.Regression {
		opt = paper.OptConfig{Name: "sgd", LR: 1e-2, Momentum: 0.9, WeightDecay: 1e-4, Schedule: "invt"}
		// The regression defaults validated on Friedman #1 and the diabetes
		// data (bench/README-svr.md): an L2-normalised output and a larger
		// rate.
		opt.LR = 3e-2
		if !conv && c.Arch == "" {
			arch += ",l2norm"
		}
	}
	// Up to 40 epochs (at least 500 and at most 20000 steps); early
	// stopping usually ends Part I before. A CNN on images runs imageEpochs
	// on a one-cycle schedule, which ends at a low rate.
	T := min(20000, max(500, 40*d.n/k))
	if conv && d.task == model.Classification {
		T = min(20000, max(500, imageEpochs*d.n/k))
		opt.Schedule = "onecycle"
	}
	cfg := paper.Alg4Config{Config: paper.Config{Lambda: 1e-4, T: T, Kernel: kernel.Spec{Name: "rbf", Gamma: 1}, Opt: opt},
		Batch: k, Part2: paper.Part2Config{Solver: "smo", C: 1, Lambda: 1e-4, T: 20 * d.n}}
	if conv {
		cfg.Kernel.Gamma = 1 / float64(max(1, outSize(arch, d.shape)))
	}
	p := paper.Preset{Task: "auto", Alg: 4, Arch: arch, Alg4: cfg}
	if err := c.pinPreset(&p); err != nil {
		return nil, err
	}
	auto := c.Steps == 0
	sc := ScaleStandardize
	switch {
	case conv:
		sc = ScaleGlobal
	case d.sp != nil:
		sc = ScaleNone
	}
	if c.Scaling != "" {
		sc = string(c.Scaling)
	}
	r := &recipe{scaling: sc, scheme: scheme, cfg: c, alg: 4, arch: arch, preset: p, auto: auto,
		kern: p.Alg4.Kernel, c: p.Alg4.Part2.C, eps: 0.1, cost: 100}
	if conv && d.shape[1] >= 8 && d.shape[2] >= 8 {
		r.shift = 1
	}
	if conv && auto && d.task == model.Classification {
		r.arms = imageArms(c)
	}
	return r, nil
}

// outSize returns the network's output size (0 if it does not build).
func outSize(arch string, shape []int) int {
	net, err := nn.New(arch, shape, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return 0
	}
	return net.OutSize()
}

// mlpArch sizes an MLP for the data: two hidden layers of width h =
// clamp(2·D, 32, 256) and h/2, and h/4 (at least 16) ReLU features.
func mlpArch(d *fitData) string {
	h := min(256, max(32, roundUp(2*d.d, 16)))
	if d.sp != nil {
		h = sparseNetWidth
	}
	return fmt.Sprintf("dense(%d),relu,dense(%d),relu,dense(%d),relu", h, h/2, max(16, h/4))
}

func roundUp(v, m int) int { return (v + m - 1) / m * m }

// imageEpochs is the length of a CNN's Part I on images, in epochs.
const imageEpochs = 20

// cnnArch sizes a CNN for C×H×W images: 5×5 convolutions with 2×2
// max-pooling (the paper's MNIST network, 32 and 64 channels) for images
// of at least 20×20, with a third block of 128 3×3 channels from 48×48;
// 3×3 convolutions for smaller ones; "" when the image is too small for
// two convolutions. A dense layer of 256 ReLU features with dropout
// follows: the features the SVM head sees.
func cnnArch(shape []int) string {
	h, w := shape[1], shape[2]
	s := min(h, w)
	var layers []string
	switch {
	case s >= 48:
		layers = []string{"conv(32,5)", "maxpool(2)", "batchnorm", "relu", "conv(64,5)", "maxpool(2)", "batchnorm", "relu", "conv(128,3)", "maxpool(2)", "batchnorm", "relu", "flatten"}
	case s >= 20:
		layers = []string{"conv(32,5)", "maxpool(2)", "batchnorm", "relu", "conv(64,5)", "maxpool(2)", "batchnorm", "relu", "flatten"}
	case s >= 8:
		layers = []string{"conv(32,3)", "batchnorm", "relu", "conv(64,3)", "maxpool(2)", "batchnorm", "relu", "flatten"}
	case s >= 5:
		layers = []string{"conv(32,3)", "batchnorm", "relu", "conv(64,3)", "batchnorm", "relu", "flatten"}
	default:
		return ""
	}
	layers = append(layers, "dense(256)", "batchnorm", "relu", "dropout(0.5)")
	arch := strings.Join(layers, ",")
	if _, err := nn.ParamCount(arch, shape); err != nil {
		return ""
	}
	return arch
}
