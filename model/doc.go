// Package model is the trained artifact: a Model (an NSVM — a network's
// features followed by kernel SVM heads — or a classical SVM on the
// inputs) with what prediction needs (input scaling, labels and their
// names, CSV columns, probability calibration, how it was chosen), its
// predictions (Predict, Decision, PredictBatch, Predictions, Probabilities,
// PredictDataset on dense or sparse rows), its scores on labelled data
// (Evaluate) and its files: nsvm model files (Save, Load, WriteTo, Read)
// and LIBSVM's (ReadLIBSVMModel, WriteLIBSVM). It imports no trainer:
// packages paper and search make Models; serve and the Beam module only
// load and apply them.
//
// A Model is safe for concurrent prediction without a lock; it must not be
// changed while it predicts.
//
// # Probabilities
//
// FitProbability calibrates a trained model with Platt scaling on labelled
// points it was not trained on (the command line holds out a stratified
// fraction of the training data): P(Pos | x) = 1/(1 + exp(A·g(x))) with the
// sigmoid's offset fixed at 0 (svm.Platt), so that P(Pos | x) ≥ 1/2 exactly
// when Predict says Pos. One-vs-rest multiclass models share one slope over
// their heads and normalise, so the most probable class is the predicted
// one. The slope is stored as the metadata "platt_a".
//
// # Model file
//
// Model.Save writes one file in the safetensors layout: an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype,
// shape and byte offsets plus a "__metadata__" string map, then the raw
// little-endian tensor data. Tensors: "theta.<param>" (F32, PyTorch layout),
// "sv" (F32, NSV×n feature-space support vectors), "coef" (F64, NSV),
// and optionally "input_mean", "input_std" (F64, D). Metadata: format
// ("nsvm/1"), algorithm, arch (the nn spec), in_shape (JSON), kernel (JSON
// kernel.Spec), bias, label_neg, label_pos, and training information (lambda,
// steps, …). A multiclass model replaces sv, coef, bias and the labels by
// "head.<h>.sv", "head.<h>.coef" and "head.<h>.bias" for every head h, with
// the metadata classes (JSON array of labels), multiclass (ovr or ovo) and
// heads (their number); binary files are unchanged. A last tensor,
// "__sha256__" (U8, 32 bytes), holds the SHA-256 of every byte before it:
// Load and Read refuse a file that does not match ("the model file is
// corrupt: checksum mismatch") or that holds a tensor no model has, and
// flag a file without one (written before checksums) Model.Unchecked. The
// format stays "nsvm/1": readers that do not know the checksum ignore the
// extra tensor, and files without it still load. The file is written to a
// temporary name beside it and renamed into place (a symbolic link is
// followed, the mode kept; a device is written in place).
//
// A model whose decisions cannot be finite (a kernel that overflows on its
// own support vectors) is refused on load, and PredictDataset and
// Evaluate return an error for a decision that is not finite.
package model
