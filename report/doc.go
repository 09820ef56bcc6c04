// Package report draws and writes what the library makes, for people:
// figures (gonum/plot) of training curves from a trainer's progress log
// (Log, ReadLog, Curves) and of a 2-D model's decision function
// (Boundary), encoded as PNG, SVG or PDF (Figure.Encode); and text reports
// of an evaluation (Evaluation, Confusion), a fit (SummarizeFit, FitLines
// for its progress, CrossValidation) and the paper's experiments
// (Reproduction, MNIST10). The command line renders with it; it computes
// nothing a model, the search or an experiment does not already return.
package report
