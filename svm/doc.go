// Package svm trains classical kernel support vector machines on fixed
// features: the SVM head of an NSVM, the paper's Algorithm 0 and the
// baselines it is compared with.
//
// # Problem and model
//
// A Problem holds N points x_i ∈ ℝᴰ (row-major float32) with labels
// y_i ∈ {−1, +1}. Every solver returns a Model, the kernel expansion
//
//	decision(x) = Σ_j Coef_j·K(SV_j, x) + Bias,
//
// over its support vectors, with the class Pos where decision(x) ≥ 0 and Neg
// elsewhere (−1 and +1 unless the caller maps labels). Models save to and
// load from one safetensors file (tensors "sv", "coef"; kernel, bias and
// labels in the metadata) and export to LIBSVM's model format.
//
// # Solvers and the problems they solve
//
//	Pegasos        primal  min_f λ/2‖f‖²_H + 1/N Σ max(0, 1 − y_i f(x_i)), no bias;
//	               stochastic sub-gradient, paper Algorithm 0 (and its mini-batch variant);
//	               with PegasosConfig.Bias, f + b with an unregularised b (its own step)
//	PegasosSVR     primal ε-SVR  min_{f,b} λ/2‖f‖²_H + 1/N Σ max(0, |y_i − f(x_i) − b| − ε)
//	               on a RegProblem (real targets); the same stochastic sub-gradient steps;
//	               SVRConfig.Average returns the mean iterate of the second half of the steps
//	PegasosLinear  Pegasos with a linear kernel, on w directly (optional bias, projection)
//	SMO            dual C-SVM  min ½αᵀQα − eᵀα, 0 ≤ α ≤ C, yᵀα = 0 (LIBSVM's solver)
//	Chunking       the same dual, solved by the lecture's chunking with SMO on the chunks
//	DualSGA        the dual without yᵀα = 0 (no bias) by the lecture's naive coordinate ascent
//	Perceptron     the lecture's dual perceptron (no objective; stops when separating)
//
// Each solver takes a context (checked between iterations), the problem, a
// kernel.Kernel, a typed config whose zero value is a documented default, a
// *rand.Rand where it draws, and an optional ProgressFunc; Info in the
// returned model records the solver, its parameters and the outcome
// (iterations, objective, …).
//
// # Mapping to the paper (NSVM paper §2, Algorithm 0)
//
//	m, n           Problem.N, Problem.D
//	(x_i, y_i)     row i of Problem.X, Problem.Y[i]
//	λ, T           PegasosConfig.Lambda, PegasosConfig.T
//	α_j            the number of violations of point j; α_j·y_j/(λT) = Model.Coef
//	g(x)           Model.Decision: 1/(λT)·Σ_j α_j·y_j·K(x_j, x)
//	K              kernel.Kernel (Model.Kernel is its Spec)
//
// For SMO and its relatives, Coef_j = α_j·y_j with α the dual variables of
// the C-SVM, and Bias = −ρ as in LIBSVM; DualObjective evaluates
// f(α) = ½αᵀQα − eᵀα from such a model.
//
// # Numerics
//
// Kernel values are computed in float32 by kernel.Row over contiguous rows
// with precomputed squared norms (the SMO cache stores float32 columns like
// LIBSVM's Qfloat); every sum over support vectors, every gradient and every
// objective is accumulated in float64.
package svm
