package search

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/model"
)

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	Folds int `json:"folds"`
	// Accuracy (classification) or RMSE (regression) over all held-out
	// points, and per fold.
	Score      float64   `json:"score"`
	Metric     string    `json:"metric"`
	FoldScores []float64 `json:"fold_scores"`
	// Selected names the model each fold's Fit chose ("" when nothing was
	// selected).
	Selected []string `json:"selected"`
	Seconds  float64  `json:"seconds"`
}

// CrossValidate estimates how well Fit(ds, cfg) generalises, as LIBSVM's
// svm-train -v: ds is split into k stratified folds (shuffled folds for
// regression) exactly as svm-train splits them, with the C library's rand()
// seeded by cfg.Seed (svm-train's folds are those of the default seed 1),
// and for each fold Fit trains on the others — including its
// own model selection on them when cfg leaves it open (nested
// cross-validation) — and predicts the fold. The score is the accuracy
// over all held-out points (RMSE for regression). cfg.Progress receives the
// reports of every fold's Fit.
func CrossValidate(ctx context.Context, ds *data.Dataset, cfg *FitConfig, k int) (*CVResult, error) {
	return crossValidate(ctx, ds, cfg, k, false)
}

// CrossValidateSelected is CrossValidate of the configuration that Fit's
// selection chooses on all of ds, alone: the selection runs once, and each
// fold trains its winner (as Fit's final fit trains it) on the other folds.
// It takes the time of one selection and k fits, where CrossValidate runs
// the selection in every fold; its score is optimistic by what choosing
// on all the rows learned of the held-out ones, as a grid search's best
// cross-validated score is.
func CrossValidateSelected(ctx context.Context, ds *data.Dataset, cfg *FitConfig, k int) (*CVResult, error) {
	return crossValidate(ctx, ds, cfg, k, true)
}

// crossValidate is CrossValidate, or with selected CrossValidateSelected.
func crossValidate(ctx context.Context, ds *data.Dataset, cfg *FitConfig, k int, selected bool) (*CVResult, error) {
	ctx, c, err := fitArgs(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if c.SVMType == SVMOneClass {
		return nil, configErr("cross-validation scores predictions against labels; a one-class SVM has no classes to score")
	}
	if k < 2 {
		return nil, fmt.Errorf("nsvm: cross-validation needs at least 2 folds, got %d", k)
	}
	d, err := prepareFit(ds, &c)
	if err != nil {
		return nil, err
	}
	if k > d.n {
		return nil, fmt.Errorf("%w: %d folds for %d rows", model.ErrBadData, k, d.n)
	}
	c.Task = Task(d.task)
	start := time.Now()
	var splits []split
	for _, sp := range libsvmFolds(d, ds.Y, k, c.Seed) {
		if len(sp.val) > 0 && (d.task != model.Classification || !slices.Contains(d.classCounts(sp.train), 0)) {
			splits = append(splits, sp)
		}
	}
	if len(splits) < 2 {
		return nil, fmt.Errorf("%w: the data cannot be split into %d folds with every class in every training part", model.ErrBadData, k)
	}
	train := func(f int, train *data.Dataset) (*model.Model, error) {
		fc := c
		fc.Seed = c.Seed + uint64(f)
		return Fit(ctx, train, &fc)
	}
	if selected {
		cands, err := candidates(d, &c)
		if err != nil {
			return nil, err
		}
		win := cands[0]
		if len(cands) > 1 {
			if win, _, err = newSearch(ctx, d, &c, start).run(cands); err != nil {
				return nil, err
			}
		}
		train = func(f int, train *data.Dataset) (*model.Model, error) {
			fd, err := prepare(train, &c)
			if err != nil {
				return nil, err
			}
			t, err := win.fit(ctx, fd, fd.all(), c.Seed+uint64(f), 0, nil)
			if err != nil {
				return nil, fmt.Errorf("training %s: %w", win.name, err)
			}
			t.m.Info["selected"] = win.name
			if d.task == model.Regression {
				t.m.Task = model.Regression
			}
			t.m.LabelNames = slices.Clone(d.names)
			return t.m, nil
		}
	}
	r := &CVResult{Folds: len(splits), Metric: "accuracy"}
	if d.task == model.Regression {
		r.Metric = "rmse"
	}
	var ok int
	var ss float64
	total := 0
	for f, sp := range splits {
		trainDS := &data.Dataset{X: d.rows(sp.train), Y: labelsOf(ds, sp.train), N: len(sp.train), D: d.d, Shape: d.shape, LabelNames: ds.LabelNames}
		test := &data.Dataset{X: d.rows(sp.val), Y: labelsOf(ds, sp.val), N: len(sp.val), D: d.d, Shape: d.shape, LabelNames: ds.LabelNames}
		m, err := train(f, trainDS)
		if err != nil {
			return nil, fmt.Errorf("nsvm: cross-validation fold %d: %w", f+1, errmsg.Strip(err))
		}
		s, err := m.Evaluate(test)
		if err != nil {
			return nil, err
		}
		r.Selected = append(r.Selected, m.Info["selected"])
		total += s.N
		if d.task == model.Regression {
			ss += s.RMSE * s.RMSE * float64(s.N)
			r.FoldScores = append(r.FoldScores, s.RMSE)
		} else {
			ok += s.N - s.Errors
			r.FoldScores = append(r.FoldScores, s.Accuracy)
		}
	}
	if d.task == model.Regression {
		r.Score = math.Sqrt(ss / float64(total))
	} else {
		r.Score = float64(ok) / float64(total)
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

func labelsOf(ds *data.Dataset, idx []int) []float64 {
	y := make([]float64, len(idx))
	for k, i := range idx {
		y[k] = ds.Y[i]
	}
	return y
}
