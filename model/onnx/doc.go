// Package onnx writes a trained model as an ONNX graph that ONNX Runtime
// (and any other ONNX runtime) runs without nsvm: Write(w, m, nil). Every
// model nsvm trains or reads has one, but a model of precomputed kernel
// values (refused with an error wrapping model.ErrNotExportable): classical
// SVMs (C-SVC, ν-SVC, ε- and ν-SVR, one-class) on linear, polynomial, RBF,
// sigmoid and normalized kernels, linear models on dense or sparse rows,
// and NSVMs whose network (dense, conv, maxpool, meanpool, batchnorm,
// relu, tanh, sigmoid, dropout, flatten, l2norm, scale) feeds kernel or
// linear heads; binary, one-vs-one and one-vs-rest classifiers,
// regressors and one-class models; calibrated or not.
//
// # Graph contract
//
// Inputs. A model whose CSV columns are all numbers (or that was not
// trained on a CSV file) takes one input X, float32 [N, D], D =
// Model.InSize(): rows as nsvm's readers produce them (what nsvm data
// convert writes). The graph applies what the model applies after reading
// a row: a NaN in a column whose missing values the model fills
// (train --fill-missing) becomes the fill value, then the
// standardisation (x − mean)/std, per feature or global. A model read from
// svm-train's file takes as many features as its support vectors' largest
// index (LIBSVM's index space has no width; see Model.WidenInput). A model trained
// on a CSV file with columns of text takes one input per column it uses
// (columns of identifiers it left out take none), named by the column's
// header (x1, x2, … by position without one), each [N, 1]: float32 for a
// column of numbers (NaN for a missing value it fills), string for a
// categorical column, one-hot encoded as nsvm does: a category the model
// has not seen encodes as zeros, or as the "other" feature of a column
// whose rare categories were grouped. A column of dates is float32 [N, 4]:
// the graph parses no text, so its dates come as nsvm computes them (days
// since 1970-01-01, year, month, day of week; data.DateFeatures), NaN in
// every place for a missing date the model fills.
//
// Outputs. A classifier (and a one-class model) gives
//
//	label          [N]    int64 class labels, or strings for named classes; one-class: +1 inlier, −1 outlier
//	scores         [N, H] float32 decision values of the H heads, as nsvm predict --decision-values
//	                      prints them: H = 1 for a binary or one-class model (g, ≥ 0 for the
//	                      second class of Labels()), K for one-vs-rest (the classes' order),
//	                      K(K−1)/2 for one-vs-one (LIBSVM's pair order (0,1), (0,2), …, (1,2), …)
//	probabilities  [N, K] float32, when the model is calibrated: every class's probability in the
//	                      order of the classes, as nsvm predict --probability prints them
//
// and a regressor value [N] float32. The label is nsvm predict's: the sign
// of the decision, the one-vs-rest head with the largest decision, or the
// one-vs-one vote (ties to the first class), also when probabilities are
// given (the most probable class, which svm-predict -b 1 and nsvm predict
// --out-format libsvm print, is ArgMax of the probabilities). The
// metadata (metadata_props) name the task (nsvm_task), the classes
// (nsvm_classes, JSON) and the columns of scores (nsvm_scores, JSON).
//
// # Operators
//
// The graph uses ONNX's operator set 17 and IR version 8 (and ai.onnx.ml
// 3 for the categorical columns' OneHotEncoder), which onnx 1.12's
// checker accepts and ONNX Runtime 1.30 runs on its CPU, in Node and in
// the browser (onnxruntime-web's wasm backend). By default (Standard)
// the heads are standard operators: the kernel rows of a batch are one
// MatMul of the features against the distinct support vectors of all the
// heads, the decision values one Gemm of the kernel rows with their
// coefficients (a linear kernel folds into one Gemm of weights). The
// network runs in float32, as nsvm's does; the heads in float64, from the
// float32 features and support vectors, with the coefficients nsvm keeps
// in float64: the RBF distances ‖z‖² + ‖s‖² − 2z·s then keep their digits
// without the [N, S, F] tensor that subtracting first would need, and the
// sums of a regressor's large coefficients (scaled to the target's units)
// do not cancel away the value. The graph's decision values are then
// closer to float64 arithmetic than nsvm predict's own (float32 kernel
// rows). Options{Operators: ML} writes the expansions with ai.onnx.ml's
// SVMClassifier (one-vs-one heads in LIBSVM's layout, ONNX's rho being
// −LIBSVM's), SVMRegressor and LinearRegressor instead: float32
// throughout, with the RBF distances subtracted first, which ONNX Runtime
// runs on the CPU only and, for RBF kernels, one row and one support
// vector at a time. The README's "Exporting to ONNX" measures both.
//
// The calibration is computed in float64: Platt's sigmoid of each head,
// normalised for one-vs-rest; for one-vs-one LIBSVM's pairwise coupling
// (Wu, Lin and Weng 2004) step for step, as an ONNX Loop of sweeps that
// ends each row's iteration where LIBSVM's does.
//
// The writer encodes the protocol buffers itself (proto.go): the few
// messages of onnx.proto an inference graph needs.
package onnx
