// Package svm trains classical kernel support vector machines on fixed
// features: the SVM head of an NSVM, the paper's Algorithm 0 and the
// baselines it is compared with.
//
// # Problem and model
//
// A Problem holds N points x_i ∈ ℝᴰ (row-major float32, or sparse rows:
// data.CSR) with labels y_i ∈ {−1, +1} and optional point weights; a
// RegProblem holds real targets instead, a ClassProblem class indices
// 0 … C−1. Every solver returns a Model, the kernel expansion
//
//	decision(x) = Σ_j Coef_j·K(SV_j, x) + Bias,
//
// over its support vectors, with the class Pos where decision(x) ≥ 0 and Neg
// elsewhere (−1 and +1 unless the caller maps labels). Models save to and
// load from one safetensors file (tensors "sv", "coef"; kernel, bias and
// labels in the metadata) and export to LIBSVM's model format.
//
// # Sparse rows and point weights
//
// As LIBSVM's rows of index:value nodes, sparse rows (Problem.Sparse,
// ClassProblem.Sparse) are never densified: the kernels compute on rows of
// either kind from their dot products and cached squared norms
// (kernel.RowVec), and one row seam (rows) is all that SMO's kernel
// columns, the kernel matrix, GridSMO and Pegasos see of the difference.
// A model trained on sparse rows keeps sparse support vectors
// (Model.SVSparse) and takes rows of either kind (DecisionVec,
// DecisionCSR). SMO, KernelMatrix fits, GridSMO, FitOneVsOne and Pegasos
// take sparse rows and point weights (W_i scales point i's bound C, or its
// hinge loss for Pegasos); NuSVC, OneClass, NuSVR, NuSVCOneVsOne and
// SMOSVR take sparse rows (RegProblem.Sparse for the regressions) but no
// weights; Chunking and the other regression solvers take dense,
// unweighted rows and say so.
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
//	Budgeted       budgeted SGD (BSGD, Wang, Crammer & Vucetic 2012): kernel Pegasos for one or
//	               many heads over one support set of at most B points, kept by merging (RBF)
//	               or removal; continues a model row by row (search.Continue)
//	LinearStream   Pegasos steps on linear heads w, b from a solver's weights (a warm start)
//	SMO            dual C-SVM  min ½αᵀQα − eᵀα, 0 ≤ α_i ≤ C_i, yᵀα = 0 (LIBSVM's solver;
//	               C_i = C·WeightPos or C·WeightNeg by class, svm-train -wi, times W_i)
//	SMOSVR         dual ε-SVR  min ½(α−α*)ᵀK(α−α*) + εeᵀ(α+α*) + zᵀ(α*−α), 0 ≤ α, α* ≤ C,
//	               eᵀ(α−α*) = 0 on a RegProblem (svm-train -s 3): the same solver on 2N variables
//	NuSVC          dual ν-SVC  min ½αᵀQα, 0 ≤ α_i ≤ 1, yᵀα = 0, eᵀα = νN (svm-train -s 1):
//	               the same solver with LIBSVM's Solver_NU working sets; model scaled by 1/r
//	OneClass       dual one-class SVM  min ½αᵀKα, 0 ≤ α_i ≤ 1, eᵀα = νN (svm-train -s 2)
//	NuSVR          dual ν-SVR  min ½(α−α*)ᵀK(α−α*) + zᵀ(α*−α), 0 ≤ α, α* ≤ C, eᵀ(α−α*) = 0,
//	               eᵀ(α+α*) = CνN (svm-train -s 4): the tube width ε is found, not set
//	LinearDCD      linear SVM  min ½‖w‖² + CΣ max(0, 1 − y_i wᵀx̃_i)^q, q = 1 or 2, x̃ = (x, B),
//	               by dual coordinate descent (liblinear-train -s 3 / -s 1 with -B)
//	LinearDCDSVR   linear SVR  min ½‖w‖² + CΣ max(0, |y_i − wᵀx̃_i| − ε)^q by dual coordinate
//	               descent (liblinear-train -s 13 / -s 12)
//	Chunking       the C-SVM dual, solved by the lecture's chunking with SMO on the chunks
//
// The lecture's other two teaching solvers, the dual perceptron and naive
// dual gradient ascent, are in package svm/lecture, built on Expansion (the
// kernel expansion Pegasos grows).
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
// f(α) = ½αᵀQα − eᵀα from such a model. SMO and SMOSVR share one solver,
// LIBSVM's Solver for min ½αᵀQα + pᵀα, 0 ≤ α_i ≤ C_i, yᵀα = Δ, and differ
// only in Q, p and y; the ν solvers add LIBSVM's Solver_NU (the working
// pair within one sign of y, a threshold per sign). For SMOSVR and NuSVR,
// Coef_j = α_j − α*_j; for NuSVC, α_j·y_j/r and Bias = −ρ/r, as LIBSVM
// scales them. The linear solvers return one row w with Coef = [1] and the
// bias feature's weight times B as Bias.
//
// # LIBSVM's files and precomputed kernels
//
// Package svm/libsvm holds LIBSVM's model files as they stand
// (libsvm.Model of any svm_type and kernel_type, libsvm.ReadModel, Write),
// predicting as svm-predict does, with float64 kernel values on libsvm.Row
// rows (libsvm.ReadRows), the one-vs-one vote and LIBSVM's pair order; this
// package converts them to its models (HeadsOf) and back (NewLIBSVMModel,
// NewLIBSVMOneVsOne; Model.WriteLIBSVM).
// A precomputed kernel (svm-train -t 4) is a KernelMatrix of given values
// (NewGramMatrix, PrecomputedMatrix) beside the kernel.Kernel interface,
// since there are no features to compute it from; its models have the
// indicators of the training points' columns as support vectors (their
// serials, Model.Serials) and are linear in rows of kernel values.
//
// # Model selection
//
// A KernelMatrix holds the Gram matrix of N points (one GEMM), and
// KernelMatrix.SMO and KernelMatrix.SMOSVR train on index sets of it
// (LIBSVM's precomputed kernel). GridSMO and GridSMOSVR score a grid of
// kernels × C (× ε) by cross-validation over Folds (KFold, StratifiedKFold):
// multiclass problems by one-vs-one heads and voting, regression by the mean
// squared error. One kernel matrix per kernel serves every fold, pair and C,
// and each C starts from the solution of the previous one;
// KernelMatrix.GridSMO runs the C grid on a matrix's own values, given
// ones included. FitOneVsOne fits the final heads.
//
// # Numerics
//
// Kernel values are computed in float32 by kernel.Row over contiguous dense
// rows, or from float64 gathers by kernel.RowVec over sparse ones, with
// precomputed squared norms (the SMO cache stores float32 columns like
// LIBSVM's Qfloat); every sum over support vectors, every gradient and every
// objective is accumulated in float64.
package svm
