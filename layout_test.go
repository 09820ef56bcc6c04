package nsvm_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layers ranks the module's packages, as README.md's Layout table lists
// them: a package may import only packages of a lower rank. A package not
// listed fails the test, so that a new one is placed deliberately.
var layers = map[string]int{
	"internal/vec": 0, "internal/numparse": 0, "internal/atomicfile": 0, "internal/countio": 0,
	"internal/errmsg": 0, "internal/metric": 0, "internal/cliflag": 0, "internal/sysmem": 0,
	"internal/safetensors": 1, "internal/atomicfile/devtest": 1,
	"data":          2,
	"data/datasets": 3, "kernel": 3, "nn": 3, "svm/libsvm": 4,
	"svm":   5,
	"model": 6, "svm/lecture": 6,
	"paper": 7, "serve": 7, "model/onnx": 7,
	"search": 8, "experiment": 8,
	"report": 9, ".": 9,
	"capi": 10, "toy": 10, "toy/plane": 10, "toy/wasm": 11,
	"cmd/nsvm": 11, "bench/cmd/scaling": 11, "bench/cmd/svmbench": 11, "bench/cmd/zipfgen": 11,
	"bench/oneclass/ocnsvm": 11, "bench/python/latency": 11, "bench/serve/abuse": 11, "bench/onnx": 11,
}

const modulePath = "github.com/nsvm-go/nsvm"

// moduleImports returns the packages of the module (directories relative
// to its root, "." for the root) and the module's packages each one's
// non-test files import. Directories with a go.mod of their own (beam,
// the assembly generator) are other modules, left out.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	graph := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "." {
				return nil
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir // another module, or not code
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if _, ok := graph[pkg]; !ok {
			graph[pkg] = nil
		}
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			switch {
			case p == modulePath:
				p = "."
			case strings.HasPrefix(p, modulePath+"/"):
				p = strings.TrimPrefix(p, modulePath+"/")
			default:
				continue
			}
			if !slices.Contains(graph[pkg], p) {
				graph[pkg] = append(graph[pkg], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return graph
}

// TestLayout: imports flow one way, down the layers; the server needs
// neither the trainers nor the search.
func TestLayout(t *testing.T) {
	if _, err := os.Stat("go.mod"); err != nil {
		t.Skip("not run from the module's root")
	}
	graph := moduleImports(t)
	for pkg, imports := range graph {
		r, ok := layers[pkg]
		if !ok {
			t.Errorf("package %s is not placed in the layers (layout_test.go, README.md's Layout)", pkg)
			continue
		}
		for _, im := range imports {
			if ri, ok := layers[im]; ok && ri >= r {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must go down", pkg, r, im, ri)
			}
		}
	}
	// What serve needs, through every import.
	deps := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, im := range graph[p] {
			if !deps[im] {
				deps[im] = true
				walk(im)
			}
		}
	}
	walk("serve")
	for _, p := range []string{".", "paper", "search", "experiment", "report"} {
		if deps[p] {
			t.Errorf("serve depends on %s", p)
		}
	}
	if !deps["model"] {
		t.Errorf("serve does not depend on model: %v", deps)
	}
}
