// Package lecture trains the online teaching solvers of the SVM lecture on
// fixed features: the dual (kernel) perceptron ("Dual form of the Perceptron
// algorithm") and naive stochastic gradient ascent on the dual ("Naive
// stochastic gradient ascent"). They are baselines to compare the solvers
// of package svm with, not solvers to train a model for use.
//
// Both take an svm.Problem of dense, unweighted rows and return an
// svm.Model, the kernel expansion decision(x) = Σ_j α_j·y_j·K(x_j, x) (+ a
// bias for DualSGA with a bias feature), built on svm.Expansion, as
// Pegasos builds its own. Both visit the points in epochs, each in a fresh
// random order drawn from the caller's *rand.Rand, check the context every
// 1024 points and report an svm.Progress after every epoch.
//
//	Perceptron  no objective: α_i += 1 for every point with margin ≤ 0;
//	            stops after an epoch without mistakes (separable data)
//	DualSGA     max_α Σ_i α_i − ½·Σ_ij α_i·α_j·y_i·y_j·K(x_i, x_j), 0 ≤ α_i ≤ C,
//	            without yᵀα = 0 (no bias), one exact coordinate step per point
//
// The lecture's third algorithm, chunking (the C-SVM dual solved on growing
// working sets), is svm.Chunking: it runs SMO's own solver, warm-started,
// on each working set, and so lives beside it.
//
// Symbols: α_i is a point's dual variable (Model.Coef_j = α_j·y_j), C the
// box constraint (DualSGAConfig.C), K the kernel (kernel.Kernel).
package lecture
