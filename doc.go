// Package nsvm trains Neural Support Vector Machines: a neural feature map
// F_θ (package nn) feeding a kernel SVM, with the Pegasos-based Algorithms
// 1–4 of L. Simon and M. Radons, "Algorithms for the Training of Neural
// Support Vector Machines" (2023), and the classical SVMs they build on.
//
// This package is the face: Fit, FitConfig, Load and Model are what a user
// reads first; the packages below it do the work, and every name here is
// one of theirs (an alias or a one-line call).
//
// # Training on your own data
//
// Fit is the estimator: one call from a data.Dataset to a Model, as
// LIBSVM's svm_train or scikit-learn's fit.
//
//	ds, err := data.Open("train.csv", data.OpenOptions{})
//	m, err := nsvm.Fit(ctx, ds, nil)            // nil: choose everything
//	err = m.Save("model.nsvm")
//	label := m.Predict(x)                        // x: one row of raw inputs
//
// Fit maps the labels (any integral class labels; real targets make a
// regressor), scales the inputs and, unless FitConfig pins them, chooses
// the input scaling, the algorithm and its hyper-parameters by validation
// on the training data: stratified k-fold (hold-out for large data) over
// the classical RBF SVM (SMO, a C × γ grid searched along its C paths and
// refined around the best) and NSVMs whose networks follow the data
// (package paper's Algorithm 4: MLPs for vectors, CNNs when the input shape is an
// image), whose Part I stops early on a hold-out of its rows. The winner is
// trained on all the data; Model.Selection records every candidate's
// validation score. The model carries what prediction needs: the scaler
// (Mean, Std), the labels, the input shape. Probabilities (FitConfig.
// Probability) are calibrated on out-of-fold decision values. CrossValidate
// estimates how well a configuration generalises (LIBSVM's svm-train -v).
// Search is Fit's selection with its rounds of candidates handed to an
// executor, to be scored in other processes (module nsvm/beam runs them on
// Apache Beam's workers); its model is Fit's.
//
// Continue trains a model on from new rows, as scikit-learn's partial_fit:
// an NSVM's network continues its steps and its kernel head continues
// Pegasos over a support set held to a budget; a kernel SVM continues by
// budgeted kernel Pegasos, a linear SVM by Pegasos from its weights.
//
// The paper's trainers (TrainAlg1 … TrainAlg4 and their presets, which
// nsvm reproduce runs) are the layer below; Fit calls them.
//
// # Packages
//
// Each package has one job, and imports flow one way, down this list:
//
//	nsvm         the face: Fit, FitConfig, Continue, Load, Read, Model, CrossValidate
//	experiment   the paper's experiments (§5), which nsvm reproduce runs
//	report       plots and text reports of models, fits and runs
//	search       the estimator's model selection (Fit)
//	paper        Algorithms 1–4, their losses, regularisers, checkpoints, presets
//	model        the trained artifact: prediction, evaluation, model files
//	svm, nn      classical SVM solvers; the neural feature-map engine
//	kernel, data kernels; data sets, readers and writers
//
// serve (the HTTP inference server) needs only model; the command line
// (cmd/nsvm) maps flags to these packages and renders what they return.
//
// # Conventions
//
// The library never prints: progress goes to a ProgressFunc, randomness comes
// from the caller's *rand.Rand, and cancellation from the context. The same
// seed, data and configuration give the same model.
package nsvm
