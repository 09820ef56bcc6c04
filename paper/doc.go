// Package paper implements the training algorithms of L. Simon and M.
// Radons, "Algorithms for the Training of Neural Support Vector Machines"
// (2023): Algorithms 1–4 exactly as §4 states them (TrainAlg1 … TrainAlg4),
// the kernel-target alignment and its losses (§4.4), the kernel-matrix
// regularisers of §6, checkpoints of long runs, and what the paper leaves to
// future work (§7): multiclass NSVMs (TrainMulticlass, TrainMulticlassAlg3),
// NSVM regression (TrainRegression) and a bias term; with the presets that
// reproduce its experiments (§5; package experiment runs them). Every
// trainer returns a model.Model. Package search builds Fit's candidates on
// these trainers; this package knows nothing of the search.
//
// # The problem
//
// Given (x_i, y_i) ∈ ℝᵈ × {−1, 1}, the algorithms approach
//
//	minimize  λ/2·‖f‖²_H + 1/m Σ_i max(0, 1 − y_i·f(F_θ(x_i)))   over f ∈ H, θ      (1)
//
// and return a decision function g: the predicted class is +1 when g(x) ≥ 0.
//
// # Paper symbols and their names here
//
//	x_i, y_i        Problem.X (N×D rows), Problem.Y (±1)
//	m               Problem.N
//	F_θ, θ          FeatureMap / *nn.Net and its Params
//	K, K̃            Config.Kernel (kernel.Spec; Normalized selects K̃ of §4.1.3)
//	λ               Config.Lambda
//	T               Config.T (Part I steps for Algorithm 4; Part2Config.T for Part II)
//	μ, k            Alg3Config.Mu, Alg3Config.Batch / Alg4Config.Batch
//	𝓛               Alg4Config.Loss (AlignLoss; default (1−A)²)
//	α, Y, Z         folded into Model.Head: SV rows are the z_s, Coef_s = α_s·y_s/(λT)
//	Θ               the network's parameters after training (Model.Net)
//	g               Model.Decision
//
// # Algorithms
//
// TrainAlg1 (§4.1) stores the features z_t = F_θt(x_it) as computed at step t
// and takes a θ-step only on margin violations. TrainAlg2 (§4.2) keeps α over
// the m training points and recomputes the support vectors' features under
// the current θ (cached until θ moves). TrainAlg3 (§4.3) works on mini-batches
// of k with the μ-weighted ‖f‖²-replacement and the kernel-target alignment
// term. TrainAlg4 (§4.4) first maximises batch kernel-target alignment, then
// fits any SVM of package svm on the fixed features.
//
// Every θ-objective is a closed-form function of the features through the
// kernel, so the trainers compute the cotangent ∂objective/∂F_θ(x) from kernel
// gradients and hand it to the network's Backward (a vector-Jacobian product).
//
// Where the paper leaves room, this package reads it as follows: Algorithms 1
// and 2 step θ only on a violation, Algorithm 3 steps every iteration from
// t = 2 and Algorithm 4 every Part I iteration; dropout is active exactly in
// the forward passes that carry a gradient, and every θ-objective is
// evaluated at the outputs of the pass it backpropagates (Algorithm 2
// replays a chunk's masks when its gradient batch spans several chunks);
// margin tests, stored and cached support-vector features, Algorithm 4's
// Part II features and prediction use the dropout-free (inference-mode)
// features, so a violation step of Algorithm 1 runs x_it twice, in
// inference mode for g̃_t and the stored z_t and in train mode for the
// θ-step; prediction uses T = the number of steps run. Preset.Dropout (nsvm
// reproduce --dropout) sets the rate of the network's dropout layers, 0
// removing them.
//
// # Bias term
//
// The paper's SVMs have no bias (§2); §7 names one as future work.
// Config.Bias adds an unregularised b, g = h(F_Θ(x)) + b, learnt as in
// svm.PegasosConfig.Bias: b₁ = 0 and after the violations of step t,
// b += κ/(λt + 1)·(1/k)·Σ_{violators} y_i (k = 1 for Algorithms 1 and 2),
// where κ, the mean K(z, z) over the training features at the start (1 for
// RBF and normalised kernels), only scales the step. The margin test becomes
// y·(g̃ + b) < 1. What the bias does in each algorithm:
//
//	Algorithms 1, 2  b shifts the violation test of every step, so it changes
//	                 which steps update α and take a θ-step; the θ-objective
//	                 (the hinge term) does not depend on b, so the θ-gradient
//	                 is unchanged; b is checkpointed and ends up in Head.Bias.
//	Algorithm 3      the same for the batch's violators (and with them α and
//	                 the weighted-alignment term P); the alignment terms do not
//	                 see b.
//	Algorithm 4      Part I is unchanged; Part II runs Pegasos with the bias
//	                 (SMO always fits one, as LIBSVM does).
//
// Without Config.Bias every algorithm runs exactly as before (same random
// stream, same arithmetic, same model and checkpoint files). TestBiasOnShiftedData
// shows the case where it matters: two clusters along the diagonal of the
// positive quadrant with a linear kernel, 50 % without a bias and 100 % with.
//
// # Kernel-matrix regularisers (§6)
//
// Alg3Config.Reg and Alg4Config.Reg (RegConfig; also used by the
// multiclass and regression Part I) add ρ·R(K) of the batch kernel matrix
// to the θ-objective, keeping K away from 11ᵀ (underfitting: every point
// alike) and from I (overfitting: every point orthogonal): "entropy" (a
// barrier −log S − log(1−S) on the normalised von Neumann entropy S, or
// (S − s₀)²), "frob-i" / "frob-ones" (a barrier −log d on the normalised
// squared Frobenius distance to I / 11ᵀ, or max(0, t − d)²) and "frob"
// (both). ∂R/∂K is closed-form (an eigendecomposition for the entropy);
// the zero value is off and bit-identical to the paper's objectives.
// Algorithms 1 and 2 have no Reg: their steps see a single point, whose
// kernel "matrix" K(z_t, z_t) is a constant (1 for RBF kernels), and
// regularising the kernel matrix of all support vectors instead would be
// another objective than §6's, at m² kernel values and an m×m
// eigendecomposition per step.
// With the tuned presets no regulariser helps beyond the noise; they do
// rescue the underfitting regime §6 describes (a kernel far too wide for
// the features). The measurements and the commands that reproduce them are
// in bench/README-nsvm.md.
//
// # Multiclass NSVMs
//
// The paper leaves multiclass problems to future work (§5.2, §7).
// TrainMulticlass trains one feature map F_θ shared by all C classes with
// Part I of Algorithm 4, where the batch alignment uses the multiclass
// target kernel
//
//	Y_ij = 1 if y_i = y_j, −1/(C−1) otherwise,    A = ⟨K, Y⟩_F / (‖K‖_F ‖Y‖_F),
//
// the Gram matrix of the class codes at the vertices of a regular simplex
// (yyᵀ for C = 2, so the binary alignment is the special case). It then
// fits binary SVM heads on the fixed features with the Part II solver:
// one-vs-rest (one head per class, the largest decision value wins) or
// one-vs-one (one head per pair of classes on their points, majority vote,
// ties to the smaller class, as LIBSVM). Heads are fitted in parallel, each
// with its own random stream. FitHeads does the same on any fixed features
// (the command line uses it for classical SVMs on more than two classes).
// Algorithms 1 and 2 remain binary.
//
// # The softmax objective
//
// Alg4Config.Objective = ObjectiveSoftmax replaces Part I's alignment by
// the cross-entropy of a temporary linear softmax head on the features,
// trained with the network by the same optimizer and discarded when Part I
// ends: the model is still F_θ followed by the SVM heads of Part II. It is
// an extension, not one of the paper's algorithms. A search (package search) races it against the
// alignment on images.
//
// TrainMulticlassAlg3 is the joint mini-batch Algorithm 3 for C classes:
// the C one-vs-rest problems (y^c_i = +1 for class c, else −1) each keep
// their own α^c, updated on the shared batch exactly as binary Algorithm 3
// updates α, and θ takes one step per batch on the sum over the classes of
// Algorithm 3's θ-objective, Σ_c (μ·P_c − A_c) (+ C·ρ·R(K)). The heads are
// the C kernel expansions over the final features, and the class with the
// largest g_c wins. For C = 2 it is binary Algorithm 3 at twice the SGD
// learning rate, with head 0 the negation of head 1. For C ≥ 6 the ±1
// alignment terms prefer constant features; MulticlassAlg3Config.Balanced
// swaps in class-balanced labels. Its cost and accuracy against
// TrainMulticlass on ten MNIST digits are in bench/README-nsvm.md: the joint
// Algorithm 3 recomputes the features of all support vectors of all
// classes every step, where Algorithm 4 fits its heads once on the final
// features.
//
// # Regression
//
// TrainRegression (paper §7 leaves regression open) trains an NSVM
// regressor on real targets y (an svm.RegProblem): Part I of Algorithm 4
// with the batch alignment replaced by the centred alignment (Cortes, Mohri
// and Rostamizadeh 2012)
//
//	A_c = ⟨HKH, Y⟩_F / (‖HKH‖_F ‖Y‖_F),   H = I − 11ᵀ/k,
//
// against a double-centred regression target kernel Y: TargetLinear (ỹỹᵀ,
// ỹ the batch targets minus their mean, the analogue of yyᵀ) or TargetRBF
// (H·exp(−(y_i − y_j)²/2σ²)·H, σ the targets' standard deviation: points
// with close targets should get close features). Centring removes the
// constant that an RBF Gram matrix always shares with any target. Part II
// is an ε-SVR on the fixed features, svm.PegasosSVR (kernel Pegasos on the
// ε-insensitive loss, with an unregularised bias and, unless
// RegressionConfig.LastIterate, the iterates averaged over the second half
// of the steps). The model's Decision, Predict and PredictBatch return the
// regression function; Model.Task is Regression (Model.Regression).
// Model.ScaleOutput maps a regressor trained on standardised targets back to
// target units inside the head, so the file needs no target statistics. The
// command line (nsvm train --task regression) standardises the targets this
// way, takes ε in target units, and defaults to λ = 1/N (C = 1) and, for
// vectors, the MLP 40-30-20 with L2-normalised output; bench/svr_libsvm.sh
// compares it with LIBSVM's ε-SVR.
//
// # Conventions
//
// The trainers never print: progress goes to a ProgressFunc, randomness
// comes from Options.Seed, and cancellation from the context. The same
// seed, data and configuration give the same model, bit for bit.
package paper
