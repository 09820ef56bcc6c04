// Package search is the estimator's model selection: Fit, as LIBSVM's
// svm_train or scikit-learn's fit, from a data.Dataset to a model.Model. It
// maps the labels (any class labels; real targets make a regressor), scales
// the inputs and, unless FitConfig pins them, chooses the input scaling, the
// algorithm and its hyper-parameters by validation on the training data:
// stratified k-fold (a hold-out for large data) over candidates sized from
// the data — the classical RBF SVM (SMO over a C × γ grid searched along its
// C paths from shared kernel matrices and refined around the best), the
// linear SVM's warm-started C paths on wide sparse rows (walked from
// LIBLINEAR's default C = 1 while a C beats the best by more than noise; on
// sparse rows they go first, and the kernel SVMs get time only if a probe
// on samples says they can catch up), and NSVMs (package
// paper's Algorithm 4) whose networks follow the data (MLPs for vectors,
// CNNs for images) with early stopping on a hold-out of their rows. The
// classical default (RBF, standardised inputs, γ = 1/D, C = 1) is the
// incumbent: another candidate wins only by more than one standard error of
// the paired differences. The winner is trained on all the data;
// Model.Selection records every candidate's score.
//
// Continue trains a model on from new rows (partial_fit): the first fit
// chose the family, and each kind goes on with its own training, an NSVM's
// network by gradient steps and every kernel head by budgeted kernel
// Pegasos over a support set of bounded size (svm.Budgeted), a linear
// model by Pegasos from its weights.
//
// FitStream selects on a sample of a stream too large to hold;
// FitPrecomputed on rows of kernel values (LIBSVM's -t 4); CrossValidate
// estimates how well a configuration generalises (svm-train -v); Search
// hands the selection's rounds to an Executor (the Beam module's workers).
//
// # Images: the Part I race
//
// On images Fit does not
// assume it: an image recipe races its Part I variants (the softmax
// objective with one-pixel shifts, with shifts and mirror images, without
// augmentation, and the alignment with shifts) on its hold-out. Each arm is
// a short complete training of the same initial network (one-cycle over 7
// epochs of a stratified quarter of the rows: early in a long schedule
// augmentation only costs, and its gain shows once a network starts to
// overfit, which on a quarter of the rows it does within a few epochs),
// scored with a quick SVM head on all the held-out rows. The first arm is
// the incumbent; another wins only by more than one standard error of the
// paired per-row differences. On rows too few for a quarter to stand for
// them (the race would cost more than half the training it chooses for),
// the first arm trains without a race. The winner then trains on all the rows to the
// end of its one-cycle schedule, scored on the hold-out as it goes (it
// returns to earlier parameters only if its last ones score worse by more
// than noise). The networks Fit sizes for images normalise their batches
// (nn's batchnorm after each convolution block and after the dense feature
// layer); on Fashion-MNIST this gained half a point of test accuracy. The model records the choice (Info "part1_objective",
// "augment") and every arm's score ("part1_race"); FitConfig.Objective and
// FitConfig.Augment pin them.
//
// # Conventions
//
// The search never prints: progress goes to FitConfig.Progress, whose last
// report says where the fit's time went, phase by phase. The same
// data, configuration and seed give the same model, bit for bit, on any
// number of cores (unless the budget runs out).
package search
