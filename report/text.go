package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nsvm-go/nsvm/experiment"
	"github.com/nsvm-go/nsvm/model"
	"github.com/nsvm-go/nsvm/paper"
)

// Confusion writes the confusion matrix of s (rows: true class, columns:
// predicted), one column per class, named as the model names them.
func Confusion(w io.Writer, r model.Scores) {
	fmt.Fprintln(w, "confusion (rows: true, columns: predicted)")
	name := func(i int) string {
		if r.Names != nil {
			return r.Names[i]
		}
		return strconv.FormatFloat(r.Labels[i], 'g', -1, 64)
	}
	wd := 10 // column width
	for i := range r.Labels {
		wd = max(wd, utf8.RuneCountInString(name(i)))
	}
	fmt.Fprintf(w, "%*s", wd+2, "")
	for i := range r.Labels {
		fmt.Fprintf(w, " %*s", wd, name(i))
	}
	fmt.Fprintln(w)
	for i, row := range r.Confusion {
		fmt.Fprintf(w, "%*s", wd+2, name(i))
		for _, v := range row {
			fmt.Fprintf(w, " %*d", wd, v)
		}
		fmt.Fprintln(w)
	}
}

// Evaluation writes the scores of a model on labelled data as nsvm eval
// prints them: accuracy, balanced accuracy, F1, ROC AUC (two classes) and
// the confusion matrix of a classifier; RMSE, MAE and R² of a regressor.
func Evaluation(w io.Writer, s model.Scores) {
	if s.Task == model.Regression {
		fmt.Fprintf(w, "RMSE %.6g, MAE %.6g, R² %.4f (%d points)\n", s.RMSE, s.MAE, s.R2, s.N)
		return
	}
	fmt.Fprintf(w, "accuracy %.4f%% (%d/%d correct, %d errors)\n", 100*s.Accuracy, s.N-s.Errors, s.N, s.Errors)
	fmt.Fprintf(w, "balanced accuracy %.4f, F1 %.4f", s.BalancedAccuracy, s.F1)
	if s.ROCAUC > 0 {
		fmt.Fprintf(w, ", ROC AUC %.4f", s.ROCAUC)
	}
	fmt.Fprintln(w)
	Confusion(w, s)
}

// Reproduction writes the table of a reproduction (experiment.Run) beside
// the paper's results, as nsvm reproduce prints it.
func Reproduction(w io.Writer, task string, validation bool, rs []experiment.Result) {
	if len(rs) == 0 {
		return
	}
	what := "test"
	if validation {
		what = "validation"
	}
	fmt.Fprintf(w, "%s (%s set, %d run(s) each)\n", task, what, len(rs[0].Accuracies))
	fmt.Fprintf(w, "%-4s %-12s %-18s %-16s %8s %9s  %s\n", "alg", "steps", "accuracy %", "errors", "#SV", "train s", "paper")
	for _, r := range rs {
		errs := make([]string, len(r.Errors))
		for i, v := range r.Errors {
			errs[i] = strconv.Itoa(v)
		}
		paper := ""
		if r.PaperAcc != nil {
			paper = fmt.Sprintf("%.1f %%", 100**r.PaperAcc)
		}
		if r.PaperErrors != nil {
			if paper != "" {
				paper += ", "
			}
			paper += fmt.Sprintf("%d errors", *r.PaperErrors)
		}
		fmt.Fprintf(w, "%-4d %-12s %6.2f ± %-9.2f %-16s %8.0f %9.1f  %s\n", r.Algo, r.Steps,
			100*r.AccuracyMean, 100*r.AccuracyStd, strings.Join(errs, ",")+fmt.Sprintf(" /%d", r.NTest), r.NSVMean, r.TrainSecMean, paper)
	}
}

// MNIST10 writes the table of the runs of experiment.RunMNIST10 with the
// network arch and configuration c.
func MNIST10(w io.Writer, validation bool, arch string, c paper.MulticlassConfig, rs []experiment.MNIST10Result) {
	what := "test"
	if validation {
		what = "validation"
	}
	fmt.Fprintf(w, "mnist10 (%s set, %d run(s)): %s, %s heads, Part I %d steps, Part II %s %d steps per head\n",
		what, len(rs), arch, c.Scheme, c.T, c.Part2.Solver, c.Part2.T)
	fmt.Fprintf(w, "%-5s %-11s %-12s %8s %9s %9s %9s\n", "seed", "accuracy %", "errors", "#SV", "part I s", "part II s", "train s")
	for _, r := range rs {
		fmt.Fprintf(w, "%-5d %-11.2f %-12s %8d %9.1f %9.1f %9.1f\n", r.Seed, 100*r.Accuracy,
			fmt.Sprintf("%d/%d", r.Errors, r.NTest), r.NSV, r.Part1Sec, r.Part2Sec, r.TrainSec)
	}
	fmt.Fprintln(w, "references: LeNet-5 99.05 %, RBF-SVM on pixels (one-vs-one) 98.58 %")
}

// EvaluationJSON is the form of scores nsvm eval --json prints: a
// classifier's accuracy, balanced accuracy, F1, ROC AUC (two classes),
// errors and confusion matrix over its labels (and their names); a
// regressor's RMSE, MAE and R² (null when infinite: JSON has no infinities).
func EvaluationJSON(s model.Scores) any {
	if s.Task == model.Regression {
		var r2 any = s.R2
		if math.IsInf(s.R2, 0) {
			r2 = nil
		}
		return struct {
			RMSE float64 `json:"rmse"`
			MAE  float64 `json:"mae"`
			R2   any     `json:"r2"`
			N    int     `json:"n"`
		}{s.RMSE, s.MAE, r2, s.N}
	}
	return struct {
		Accuracy         float64   `json:"accuracy"`
		BalancedAccuracy float64   `json:"balanced_accuracy"`
		F1               float64   `json:"f1"`
		ROCAUC           float64   `json:"roc_auc,omitempty"`
		Errors           int       `json:"errors"`
		N                int       `json:"n"`
		Labels           []float64 `json:"labels"`
		Names            []string  `json:"names,omitempty"`
		Confusion        [][]int   `json:"confusion"`
	}{s.Accuracy, s.BalancedAccuracy, s.F1, s.ROCAUC, s.Errors, s.N, s.Labels, s.Names, s.Confusion}
}
