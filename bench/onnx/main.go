// Command onnx checks and measures nsvm's ONNX export on every kind of
// model: it trains each kind with nsvm train on real data (scikit-learn's
// bundled data sets, generated Ringnorm), exports it with nsvm export
// --format onnx (standard operators, and ai.onnx.ml's where the model has
// that form), runs it in onnxruntime-node on the held-out rows and
// compares it row by row with nsvm predict: labels, decision values,
// probabilities, regression values. It then times ONNX Runtime, nsvm
// predict and the Go library's PredictDataset on the same 10⁵ rows (the
// held-out rows repeated) and prints one table. With -web it runs some of
// the models in headless Chromium with onnxruntime-web's wasm backend
// too. See README.md.
//
// Usage (from the repository's root):
//
//	npm install --prefix bench/out/onnx --ignore-scripts onnxruntime-node@1.30.0 onnxruntime-web@1.30.0 playwright-core
//	go run ./bench/onnx -node-modules bench/out/onnx/node_modules [-web categorical,nsvm-cnn] [-check]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nsvm-go/nsvm/model"
)

type config struct {
	out, nsvm, modules, sklearn, chromium string
	rows, batch                           int
	only, web                             string
	check                                 bool
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench/onnx:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	var c config
	fs := flag.NewFlagSet("onnx", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.out, "out", filepath.Join("bench", "out", "onnx"), "working directory: data, models, outputs, summary.json")
	fs.StringVar(&c.nsvm, "nsvm", "", "the nsvm binary (default: built into -out from ./cmd/nsvm)")
	fs.StringVar(&c.modules, "node-modules", os.Getenv("NSVM_ONNXRUNTIME"), "node_modules directory with onnxruntime-node (and for -web onnxruntime-web and playwright-core); default $NSVM_ONNXRUNTIME")
	fs.StringVar(&c.sklearn, "sklearn-data", "/usr/lib/python3/dist-packages/sklearn/datasets/data", "scikit-learn's bundled data sets (Debian's python3-sklearn)")
	fs.StringVar(&c.chromium, "chromium", "/usr/bin/chromium", "the Chromium binary for -web")
	fs.IntVar(&c.rows, "rows", 100000, "rows timed (the held-out rows repeated)")
	fs.IntVar(&c.batch, "batch", 10000, "rows per ONNX Runtime call when timing")
	fs.StringVar(&c.only, "only", "", "comma-separated kinds to run (default: all): "+kindIDs())
	fs.StringVar(&c.web, "web", "", "comma-separated kinds to run in headless Chromium too (onnxruntime-web, wasm)")
	fs.BoolVar(&c.check, "check", false, "exit with an error unless every kind agrees: labels on ≥ 99.9 % of held-out rows (the others within 1e-4 of a decision boundary), probabilities within 1e-3, values within 1e-3 relative")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.modules == "" {
		return fmt.Errorf("no -node-modules (or $NSVM_ONNXRUNTIME): install ONNX Runtime with npm install --ignore-scripts onnxruntime-node@1.30.0")
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	var err error
	if c.out, err = filepath.Abs(c.out); err != nil {
		return err
	}
	if c.modules, err = filepath.Abs(c.modules); err != nil {
		return err
	}
	if c.nsvm == "" {
		c.nsvm = filepath.Join(c.out, "nsvm")
		if out, err := exec.Command("go", "build", "-o", c.nsvm, "./cmd/nsvm").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/nsvm: %v\n%s", err, out)
		}
	}
	selected := kinds
	if c.only != "" {
		selected = nil
		for _, id := range strings.Split(c.only, ",") {
			k, ok := kindByID(id)
			if !ok {
				return fmt.Errorf("unknown kind %q (want %s)", id, kindIDs())
			}
			selected = append(selected, k)
		}
	}
	web := map[string]bool{}
	for _, id := range strings.Split(c.web, ",") {
		if id == "" {
			continue
		}
		if _, ok := kindByID(id); !ok {
			return fmt.Errorf("unknown -web kind %q (want %s)", id, kindIDs())
		}
		web[id] = true
	}
	sets, err := prepare(&c, selected)
	if err != nil {
		return err
	}
	var results []*result
	for _, k := range selected {
		fmt.Fprintf(stderr, "bench/onnx: %s …\n", k.name)
		r, err := runKind(&c, k, sets[k.data], web[k.id])
		if err != nil {
			return fmt.Errorf("%s: %w", k.id, err)
		}
		results = append(results, r)
	}
	printTables(stdout, &c, results)
	js, _ := json.MarshalIndent(results, "", " ")
	if err := os.WriteFile(filepath.Join(c.out, "summary.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if c.check {
		var bad []string
		for _, r := range results {
			for _, p := range r.Problems {
				bad = append(bad, r.ID+": "+p)
			}
		}
		if len(bad) > 0 {
			return fmt.Errorf("the ONNX models disagree with nsvm predict:\n  %s", strings.Join(bad, "\n  "))
		}
		fmt.Fprintln(stdout, "\nevery kind agrees with nsvm predict within the bounds")
	}
	return nil
}

func kindIDs() string {
	var ids []string
	for _, k := range kinds {
		ids = append(ids, k.id)
	}
	return strings.Join(ids, ", ")
}

func kindByID(id string) (kind, bool) {
	i := slices.IndexFunc(kinds, func(k kind) bool { return k.id == id })
	if i < 0 {
		return kind{}, false
	}
	return kinds[i], true
}

// dataSet is a data set's files: training rows, held-out rows, and the
// held-out rows repeated to the timed count.
type dataSet struct {
	name               string
	train, test, big   string
	trainRows, testRow int
}

// prepare writes the data sets the kinds need into the working directory.
func prepare(c *config, ks []kind) (map[string]*dataSet, error) {
	need := map[string]bool{}
	for _, k := range ks {
		need[k.data] = true
	}
	sets := map[string]*dataSet{}
	for name := range need {
		var t *table
		var err error
		ext, base := ".csv", name
		switch name {
		case "ringnorm":
			t, err = ringnormTable(c.nsvm, c.out, 7400)
		case "cancer":
			t, err = sklearnTable(c.sklearn, "breast_cancer")
		case "digits", "digits-sparse":
			t, err = sklearnTable(c.sklearn, "digits")
			if name == "digits-sparse" {
				ext = ".libsvm"
			}
		case "diabetes":
			t, err = sklearnTable(c.sklearn, "diabetes")
		case "boston", "boston-cat", "boston-cat-class":
			t, err = sklearnTable(c.sklearn, "boston")
			if err == nil && name != "boston" {
				t = bostonCategorical(t, name == "boston-cat-class")
			}
		default:
			err = fmt.Errorf("unknown data set %s", name)
		}
		if err != nil {
			return nil, fmt.Errorf("data set %s: %w (scikit-learn's bundled data: Debian's python3-sklearn)", name, err)
		}
		train, test := t.split(0.75)
		ds := &dataSet{name: name, trainRows: len(train.rows), testRow: len(test.rows)}
		write := func(t *table, suffix string) (string, error) {
			p := filepath.Join(c.out, base+"-"+suffix+ext)
			if ext == ".libsvm" {
				return p, t.writeLIBSVM(p)
			}
			return p, t.writeCSV(p)
		}
		if ds.train, err = write(train, "train"); err != nil {
			return nil, err
		}
		if ds.test, err = write(test, "test"); err != nil {
			return nil, err
		}
		if ds.big, err = write(test.tile(c.rows), "timed"); err != nil {
			return nil, err
		}
		sets[name] = ds
	}
	return sets, nil
}

// nsvmRun runs the nsvm binary and returns its wall time.
func nsvmRun(c *config, args ...string) (time.Duration, error) {
	cmd := exec.Command(c.nsvm, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	if err != nil {
		return 0, fmt.Errorf("nsvm %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return time.Since(start), nil
}

// loadModel reads a model file with the library.
func loadModel(path string) (*model.Model, error) { return model.Load(path) }
