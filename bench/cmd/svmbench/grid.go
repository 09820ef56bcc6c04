package main

// Grid mode: cross-validated model selection over (γ, C) — and ε for
// regression — by svm.GridSMO / svm.GridSMOSVR, against the same grid run
// as independent svm.SMO fits and against scikit-learn's GridSearchCV.
//
// Classification: sklearn's digits (1797×64, 10 classes) and breast_cancer
// (569×30, 2 classes) from python3-sklearn's data files, standardised on
// all points as StandardScaler does (population sd, constant columns left
// at 0), γ ∈ {scale, 0.003, 0.01, 0.03, 0.1, 0.3} with scale = 1/(D·Var X),
// C ∈ {0.1, 1, 10, 100}, 5 stratified folds in scikit-learn's assignment,
// one-vs-one voting. Regression: the diabetes data (features and target
// standardised), γ ∈ {scale, 0.01, 0.03, 0.1, 0.3}, the same C,
// ε ∈ {0.05, 0.1, 0.2}, 5 unshuffled folds, mean squared error. Every time
// includes the refit of the best model on all points, as GridSearchCV's.

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

const sklearnData = "/usr/lib/python3/dist-packages/sklearn/datasets/data"

// gridRow is one method's run of one grid.
type gridRow struct {
	Data       string  `json:"dataset"`
	Method     string  `json:"method"`
	Seconds    float64 `json:"seconds"`
	CPU        float64 `json:"cpu_seconds"`
	Fits       int     `json:"fits,omitempty"`
	Iterations int64   `json:"iterations,omitempty"`
	Gamma      float64 `json:"best_gamma"`
	C          float64 `json:"best_C"`
	Epsilon    float64 `json:"best_epsilon,omitempty"`
	Score      float64 `json:"best_score"`
	// MaxDiff is the largest difference of a cell's mean validation score
	// from scikit-learn's (NaN: not compared).
	MaxDiff float64 `json:"max_score_diff_vs_sklearn"`
	Note    string  `json:"note,omitempty"`
}

// readTable reads a (possibly gzipped) file of numbers separated by commas
// or blanks, skipping skip lines.
func readTable(path string, skip int) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var rows [][]float64
	for line := 0; sc.Scan(); line++ {
		if line < skip || strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var row []float64
		for _, fld := range strings.FieldsFunc(sc.Text(), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			v, err := strconv.ParseFloat(fld, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line+1, err)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}

// standardizeAll scales the columns of the n×d matrix x to mean 0 and
// population sd 1 (constant columns to 0) and returns it as float32 with
// 1/(d·Var) of the scaled entries (scikit-learn's gamma='scale').
func standardizeAll(x [][]float64, d int) ([]float32, float64) {
	n := len(x)
	out := make([]float32, n*d)
	var ss float64
	for j := 0; j < d; j++ {
		var m, v float64
		for _, r := range x {
			m += r[j]
		}
		m /= float64(n)
		for _, r := range x {
			v += (r[j] - m) * (r[j] - m)
		}
		sd := math.Sqrt(v / float64(n))
		if sd == 0 {
			sd = 1
		}
		for i, r := range x {
			z := (r[j] - m) / sd
			out[i*d+j] = float32(z)
			ss += z * z
		}
	}
	// The scaled columns have mean 0 (or are 0), so Var = mean of squares.
	return out, 1 / (float64(d) * ss / float64(n*d))
}

func loadClassSet(name string) (svm.ClassProblem, float64, error) {
	var rows [][]float64
	var err error
	var d int
	switch name {
	case "digits":
		rows, err = readTable(filepath.Join(sklearnData, "digits.csv.gz"), 0)
		d = 64
	case "breast_cancer":
		rows, err = readTable(filepath.Join(sklearnData, "breast_cancer.csv"), 1)
		d = 30
	}
	if err != nil {
		return svm.ClassProblem{}, 0, err
	}
	p := svm.ClassProblem{N: len(rows), D: d, Y: make([]int, len(rows))}
	var x [][]float64
	for i, r := range rows {
		if len(r) != d+1 {
			return p, 0, fmt.Errorf("%s: row %d has %d values, want %d", name, i, len(r), d+1)
		}
		x = append(x, r[:d])
		p.Y[i] = int(r[d])
		p.C = max(p.C, p.Y[i]+1)
	}
	var scale float64
	p.X, scale = standardizeAll(x, d)
	return p, scale, nil
}

func loadDiabetes() (svm.RegProblem, float64, error) {
	x, err := readTable(filepath.Join(sklearnData, "diabetes_data_raw.csv.gz"), 0)
	if err != nil {
		return svm.RegProblem{}, 0, err
	}
	y, err := readTable(filepath.Join(sklearnData, "diabetes_target.csv.gz"), 0)
	if err != nil {
		return svm.RegProblem{}, 0, err
	}
	if len(x) != len(y) || len(x) == 0 {
		return svm.RegProblem{}, 0, fmt.Errorf("diabetes: %d rows and %d targets", len(x), len(y))
	}
	p := svm.RegProblem{N: len(x), D: len(x[0]), Y: make([]float64, len(y))}
	var scale float64
	p.X, scale = standardizeAll(x, p.D)
	var m, v float64
	for _, r := range y {
		m += r[0]
	}
	m /= float64(len(y))
	for _, r := range y {
		v += (r[0] - m) * (r[0] - m)
	}
	sd := math.Sqrt(v / float64(len(y)))
	for i, r := range y {
		p.Y[i] = (r[0] - m) / sd
	}
	return p, scale, nil
}

// sklearnRun is one line of bench/svm_grid.py.
type sklearnRun struct {
	Data    string             `json:"dataset"`
	Wall    float64            `json:"wall_seconds"`
	CPU     float64            `json:"cpu_seconds"`
	Jobs    int                `json:"jobs"`
	Best    map[string]float64 `json:"best"`
	Score   float64            `json:"best_score"`
	Scores  map[string]float64 `json:"scores"`
	Scale   float64            `json:"gamma_scale"`
	parsed  [][]float64        // keys as numbers
	parsedV []float64
}

// runSklearn runs the peer script; a missing python3 or scikit-learn is a
// note, not an error.
func runSklearn(ctx context.Context, cfg config) (map[string]*sklearnRun, string) {
	if cfg.sklearn == "" {
		return nil, "scikit-learn skipped (-sklearn \"\")"
	}
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		return nil, "no " + py
	}
	out, err := exec.CommandContext(ctx, py, cfg.sklearn, "--reps", strconv.Itoa(cfg.reps)).Output()
	if err != nil {
		return nil, fmt.Sprintf("%s failed: %v", cfg.sklearn, err)
	}
	runs := map[string]*sklearnRun{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r sklearnRun
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Sprintf("%s: bad output line %q", cfg.sklearn, line)
		}
		for k, v := range r.Scores {
			var key []float64
			for _, f := range strings.Split(k, ",") {
				x, _ := strconv.ParseFloat(f, 64)
				key = append(key, x)
			}
			r.parsed = append(r.parsed, key)
			r.parsedV = append(r.parsedV, v)
		}
		runs[r.Data] = &r
	}
	return runs, ""
}

// lookup returns scikit-learn's score of the cell key (γ, C[, ε]).
func (r *sklearnRun) lookup(key ...float64) (float64, bool) {
	for i, k := range r.parsed {
		if len(k) != len(key) {
			continue
		}
		ok := true
		for j := range k {
			if math.Abs(k[j]-key[j]) > 1e-9*math.Abs(key[j]) {
				ok = false
			}
		}
		if ok {
			return r.parsedV[i], true
		}
	}
	return 0, false
}

func runGrid(ctx context.Context, cfg config, stdout io.Writer) error {
	sk, skNote := runSklearn(ctx, cfg)
	var rows []gridRow
	cs := []float64{0.1, 1, 10, 100}
	for _, name := range []string{"digits", "breast_cancer"} {
		p, scale, err := loadClassSet(name)
		if err != nil {
			return err
		}
		gammas := []float64{scale, 0.003, 0.01, 0.03, 0.1, 0.3}
		ks := rbfKernels(gammas)
		folds, err := svm.StratifiedKFold(p.Y, 5, nil)
		if err != nil {
			return err
		}
		variants := gridVariants("svm.GridSMO", cfg.workers)
		if cfg.workers == 2 {
			variants = variants[1:]
		}
		for _, v := range variants {
			var res *svm.GridResult
			wall, cpu, err := bestOf(cfg.reps, func() error {
				r, err := svm.GridSMO(ctx, p, ks, cs, folds, v.gcfg, nil)
				if err != nil {
					return err
				}
				res = r
				k, c, _ := r.Params(r.Best)
				_, err = svm.FitOneVsOne(ctx, p, kernel.RBF{Gamma: k.Gamma}, c, v.gcfg)
				return err
			})
			if err != nil {
				return err
			}
			k, c, _ := res.Params(res.Best)
			row := gridRow{Data: name, Method: v.method, Seconds: wall, CPU: cpu, Fits: res.Fits, Iterations: res.Iterations,
				Gamma: k.Gamma, C: c, Score: res.Score[res.Best], MaxDiff: math.NaN()}
			if s := sk[name]; s != nil {
				row.MaxDiff = 0
				for ki, g := range gammas {
					for ci, c := range cs {
						if want, ok := s.lookup(g, c); ok {
							row.MaxDiff = max(row.MaxDiff, math.Abs(res.Score[res.Index(ki, ci, 0)]-want))
						}
					}
				}
			}
			rows = append(rows, row)
		}
		// The same grid as independent fits: SMO on a copy of each pair's
		// points per (γ, C, fold), DecisionBatch on the validation points.
		var best gridRow
		wall, cpu, err := bestOf(cfg.reps, func() error {
			best = gridRow{Data: name, Method: "independent svm.SMO fits", Score: -1, MaxDiff: math.NaN()}
			for _, g := range gammas {
				for _, c := range cs {
					acc, fits, err := independentCV(ctx, p, kernel.RBF{Gamma: g}, c, folds)
					if err != nil {
						return err
					}
					best.Fits += fits
					if acc > best.Score {
						best.Score, best.Gamma, best.C = acc, g, c
					}
				}
			}
			_, err := svm.FitOneVsOne(ctx, p, kernel.RBF{Gamma: best.Gamma}, best.C, svm.GridConfig{Workers: 1, MatrixMB: -1})
			return err
		})
		if err != nil {
			return err
		}
		best.Seconds, best.CPU = wall, cpu
		rows = append(rows, best)
		rows = append(rows, sklearnRow(name, sk[name], skNote))
	}

	rp, scale, err := loadDiabetes()
	if err != nil {
		return err
	}
	gammas := []float64{scale, 0.01, 0.03, 0.1, 0.3}
	eps := []float64{0.05, 0.1, 0.2}
	ks := rbfKernels(gammas)
	folds, err := svm.KFold(rp.N, 5, nil)
	if err != nil {
		return err
	}
	for _, v := range gridVariants("svm.GridSMOSVR", cfg.workers) {
		var res *svm.GridResult
		wall, cpu, err := bestOf(cfg.reps, func() error {
			r, err := svm.GridSMOSVR(ctx, rp, ks, cs, eps, folds, v.gcfg, nil)
			if err != nil {
				return err
			}
			res = r
			k, c, e := r.Params(r.Best)
			_, err = svm.SMOSVR(ctx, rp, kernel.RBF{Gamma: k.Gamma}, svm.SMOSVRConfig{C: c, Epsilon: e}, nil)
			return err
		})
		if err != nil {
			return err
		}
		k, c, e := res.Params(res.Best)
		row := gridRow{Data: "diabetes", Method: v.method, Seconds: wall, CPU: cpu, Fits: res.Fits, Iterations: res.Iterations,
			Gamma: k.Gamma, C: c, Epsilon: e, Score: -res.Score[res.Best], MaxDiff: math.NaN()}
		if s := sk["diabetes"]; s != nil {
			row.MaxDiff = 0
			for ki, g := range gammas {
				for ci, c := range cs {
					for ei, e := range eps {
						if want, ok := s.lookup(g, c, e); ok {
							row.MaxDiff = max(row.MaxDiff, math.Abs(-res.Score[res.Index(ki, ci, ei)]-want))
						}
					}
				}
			}
		}
		rows = append(rows, row)
	}
	rows = append(rows, sklearnRow("diabetes", sk["diabetes"], skNote))

	fmt.Fprintf(stdout, "Cross-validated grid search, 5 folds, refit of the best model included; best of %d runs; GOMAXPROCS %d.\n", cfg.reps, runtime.GOMAXPROCS(0))
	fmt.Fprintf(stdout, "Score: mean validation accuracy (classification), minus the mean squared error on the standardised target (regression).\n")
	fmt.Fprintf(stdout, "Δ sklearn: largest difference of a grid cell's score from scikit-learn's.\n\n")
	fmt.Fprintf(stdout, "%-13s %-48s %8s %8s %6s %9s %9s %5s %5s %8s %9s\n", "data", "method", "time s", "CPU s", "fits", "iters", "γ", "C", "ε", "score", "Δ sklearn")
	for _, r := range rows {
		if r.Note != "" && r.Seconds == 0 {
			fmt.Fprintf(stdout, "%-13s %-48s %s\n", r.Data, r.Method, r.Note)
			continue
		}
		diff, eps, iters, fits := "", "", "", ""
		if !math.IsNaN(r.MaxDiff) {
			diff = fmt.Sprintf("%.4f", r.MaxDiff)
		}
		if r.Epsilon != 0 {
			eps = fmtG(r.Epsilon)
		}
		if r.Iterations > 0 {
			iters = strconv.FormatInt(r.Iterations, 10)
		}
		if r.Fits > 0 {
			fits = strconv.Itoa(r.Fits)
		}
		fmt.Fprintf(stdout, "%-13s %-48s %8.3f %8.3f %6s %9s %9.4g %5g %5s %8.4f %9s\n", r.Data, r.Method, r.Seconds, r.CPU, fits, iters, r.Gamma, r.C, eps, r.Score, diff)
	}
	out := slices.Clone(rows)
	for i := range out {
		if math.IsNaN(out[i].MaxDiff) {
			out[i].MaxDiff = -1 // JSON has no NaN
		}
	}
	return writeJSONL(stdout, cfg.jsonl, out)
}

func sklearnRow(name string, s *sklearnRun, note string) gridRow {
	if s == nil {
		return gridRow{Data: name, Method: "scikit-learn GridSearchCV", Note: note, MaxDiff: math.NaN()}
	}
	r := gridRow{Data: name, Method: fmt.Sprintf("scikit-learn GridSearchCV, n_jobs=%d", s.Jobs), Seconds: s.Wall, CPU: s.CPU,
		Gamma: s.Best["gamma"], C: s.Best["C"], Epsilon: s.Best["epsilon"], Score: s.Score, MaxDiff: math.NaN()}
	return r
}

// bestOf runs f reps times and returns the fastest wall time and the CPU
// time of that run.
func bestOf(reps int, f func() error) (wall, cpu float64, err error) {
	wall = math.Inf(1)
	for r := 0; r < reps; r++ {
		runtime.GC()
		t0, c0 := time.Now(), processCPU()
		if err := f(); err != nil {
			return 0, 0, err
		}
		if w := time.Since(t0).Seconds(); w < wall {
			wall, cpu = w, (processCPU() - c0).Seconds()
		}
	}
	return wall, cpu, nil
}

// independentCV returns the one-vs-one cross-validation accuracy of kernel
// k and box c from plain svm.SMO fits on copies of every pair's training
// points, and the number of fits.
func independentCV(ctx context.Context, p svm.ClassProblem, k kernel.Kernel, c float64, folds []svm.Fold) (float64, int, error) {
	var acc float64
	fits := 0
	for _, fd := range folds {
		val := make([]float32, 0, len(fd.Validation)*p.D)
		for _, i := range fd.Validation {
			val = append(val, p.X[i*p.D:(i+1)*p.D]...)
		}
		nv := len(fd.Validation)
		votes := make([]int, nv*p.C)
		dec := make([]float64, nv)
		for a := 0; a < p.C; a++ {
			for b := a + 1; b < p.C; b++ {
				sub := svm.Problem{D: p.D}
				for _, i := range fd.Train {
					if p.Y[i] == a || p.Y[i] == b {
						sub.X = append(sub.X, p.X[i*p.D:(i+1)*p.D]...)
						y := float32(1)
						if p.Y[i] == b {
							y = -1
						}
						sub.Y = append(sub.Y, y)
						sub.N++
					}
				}
				m, err := svm.SMO(ctx, sub, k, svm.SMOConfig{C: c}, nil)
				if err != nil {
					return 0, 0, err
				}
				fits++
				m.DecisionBatch(dec, val, nv)
				for v, d := range dec {
					if d >= 0 {
						votes[v*p.C+a]++
					} else {
						votes[v*p.C+b]++
					}
				}
			}
		}
		ok := 0
		for v, i := range fd.Validation {
			best := 0
			for cl := 1; cl < p.C; cl++ {
				if votes[v*p.C+cl] > votes[v*p.C+best] {
					best = cl
				}
			}
			if best == p.Y[i] {
				ok++
			}
		}
		acc += float64(ok) / float64(nv) / float64(len(folds))
	}
	return acc, fits, nil
}
