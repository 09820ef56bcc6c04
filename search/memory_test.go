package search

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
)

// classRows returns k named classes of per rows each, two random features.
func classRows(k, per int) *data.Dataset {
	rng := rand.New(rand.NewPCG(1, 2))
	ds := &data.Dataset{N: k * per, D: 2, X: make([]float32, 2*k*per), Y: make([]float64, k*per), LabelNames: make([]string, k)}
	for c := range k {
		ds.LabelNames[c] = "c" + strconv.Itoa(c)
		for r := range per {
			i := c*per + r
			ds.Y[i] = float64(c)
			ds.X[2*i], ds.X[2*i+1] = rng.Float32(), rng.Float32()
		}
	}
	return ds
}

// TestFitMemoryBound: what many classes or many features imply is refused
// before it is allocated, with an error naming the cause and the way out.
func TestFitMemoryBound(t *testing.T) {
	ctx := context.Background()
	many := classRows(5000, 10)
	_, err := Fit(ctx, many, &FitConfig{MaxMemory: 8 << 30})
	if !errors.Is(err, ErrMemory) {
		t.Fatalf("5000 classes: %v, want ErrMemory", err)
	}
	for _, want := range []string{"5000 classes in 50000 rows", "12497500 heads", "--multiclass ovr", "--label-col", "--max-memory"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("5000 classes: %q lacks %q", err, want)
		}
	}
	_, err = Fit(ctx, many, &FitConfig{MaxMemory: 1 << 30, Multiclass: model.OneVsRest})
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "one-vs-rest's 5000 heads") {
		t.Fatalf("5000 classes, one-vs-rest in 1 GiB: %v", err)
	}
	// A row an identifier: no one-vs-rest advice, which would not fit either.
	_, err = Fit(ctx, classRows(50000, 2), nil)
	if !errors.Is(err, ErrMemory) || strings.Contains(err.Error(), "--multiclass ovr") {
		t.Fatalf("50000 classes of 2 rows: %v", err)
	}

	// 300 rows of two billion features.
	wide := &data.Dataset{N: 300, D: 2_000_000_000, Sparse: &data.CSR{Ptr: make([]int64, 301)}, Y: make([]float64, 300)}
	for i := range 300 {
		wide.Sparse.Idx = append(wide.Sparse.Idx, int32(i%7))
		wide.Sparse.Val = append(wide.Sparse.Val, float32(i%3))
		wide.Sparse.Ptr[i+1] = int64(i + 1)
		wide.Y[i] = float64(i % 2)
	}
	_, err = Fit(ctx, wide, &FitConfig{MaxMemory: 4 << 30})
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "2000000000 features") || !strings.Contains(err.Error(), "--dim") {
		t.Fatalf("two billion features: %v", err)
	}

	if err := (&FitConfig{MaxMemory: -1}).Validate(); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("a negative bound: %v", err)
	}
}

// TestHoldoutWithoutValidationRows: classes too small for a hold-out to
// take a row of any get an error that says so.
func TestHoldoutWithoutValidationRows(t *testing.T) {
	_, err := Fit(context.Background(), classRows(400, 2), &FitConfig{Folds: 1, Algorithm: "smo", MaxMemory: 1 << 40})
	if !errors.Is(err, model.ErrBadData) || !strings.Contains(err.Error(), "left no validation rows") || !strings.Contains(err.Error(), "at most 2 rows") {
		t.Fatalf("400 classes of 2 rows, hold-out: %v", err)
	}
}

// TestRegressionTargetTooLarge: a target beyond float32's range is named,
// not left to overflow into a NaN R².
func TestRegressionTargetTooLarge(t *testing.T) {
	ds := classRows(30, 10)
	ds.LabelNames = nil
	for i := range ds.Y {
		ds.Y[i] = float64(i%17) / 3
	}
	ds.Y[57] = 1e308
	_, err := Fit(context.Background(), ds, &FitConfig{Task: model.Regression})
	if !errors.Is(err, model.ErrBadData) || !strings.Contains(err.Error(), "row 58's target 1e+308 is too large") {
		t.Fatalf("target 1e308: %v", err)
	}
}
