// Package kernel provides positive semidefinite kernels on float32 feature
// vectors, their gradients, and diagnostics of kernel matrices.
//
// A Kernel evaluates K(a, b) for single pairs (Eval), for one point against
// many (Row, the hot path of every Pegasos-style trainer), and for two sets of
// points at once (Cross, built on one GEMM). GradB gives ∂K(a,b)/∂b, which the
// NSVM trainers need to push a cotangent from the kernel value back into the
// feature map; since every kernel here is symmetric, ∂K(a,b)/∂a = GradB(b, a).
//
// The four classical kernels are functions of a·b, ‖a‖² and ‖b‖²:
//
//	Linear   K(a,b) = a·b
//	Poly     K(a,b) = (γ·a·b + coef0)^degree
//	RBF      K(a,b) = exp(−γ‖a−b‖²)
//	Sigmoid  K(a,b) = tanh(γ·a·b + coef0)   (not PSD for all parameters)
//
// Normalized wraps any kernel with K(a,a) > 0 into
// K̃(a,b) = K(a,b)/√(K(a,a)·K(b,b)) (paper §4.1.3), which maps every input
// onto the unit sphere of the RKHS.
//
// The rows of a data set may be dense or sparse (data.Vec). EvalVec and
// RowVec evaluate every dot-product kernel of the package (OnRows) on rows
// of either kind from their dot products and cached squared norms, as
// LIBSVM computes on its index:value nodes: RowVec takes K(z_j, b) for
// many rows against one query b scattered once into a dense row, each
// sparse z_j costing one gather at its nonzeros.
//
// Kernel values are computed in float32 where they are stored (rows, matrices)
// and in float64 by Eval; callers accumulate sums in float64.
//
// The diagnostics of paper §6 — kernel-target alignment (Cristianini et al.
// 2001), the normalised von Neumann entropy, ‖K−I‖_F and ‖K−11ᵀ‖_F — take a
// dense n×n kernel matrix.
//
// Spec is the serialisable description of a kernel (name and parameters), used
// by model files and the command line.
package kernel
