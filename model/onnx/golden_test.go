package onnx

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nsvm-go/nsvm/model"
)

var update = flag.Bool("update", false, "rewrite the golden ONNX files in testdata/golden")

// TestGolden: the graphs of model's golden model files (a binary MLP
// NSVM with scaling and probabilities, a one-vs-one SVM, an NSVM
// regressor, a CNN, a scaled SVM) are fixed by checked-in files, with
// standard and ai.onnx.ml operators. A change in what Write writes fails
// here; rerun with -update when it changes on purpose.
func TestGolden(t *testing.T) {
	for _, name := range []string{"binary", "multiclass-ovo", "regression", "cnn", "selection"} {
		m, err := model.Load(filepath.Join("..", "testdata", "golden", name+".nsvm"))
		if err != nil {
			t.Fatal(err)
		}
		for _, ops := range []Operators{Standard, ML} {
			got, err := Marshal(m, &Options{Operators: ops})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", name+"-"+string(ops)+".onnx")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: Write writes %d bytes that differ from %s (%d bytes)", name, len(got), path, len(want))
			}
		}
	}
}

// Example writes a calibrated binary NSVM (a network, an RBF head, input
// scaling) as an ONNX graph and lists its inputs and outputs.
func Example() {
	m, err := model.Load(filepath.Join("..", "testdata", "golden", "binary.nsvm"))
	if err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer
	if err := Write(&buf, m, nil); err != nil {
		fmt.Println(err)
		return
	}
	top, _ := decode(buf.Bytes())
	graph := msgs(top, modelGraph)[0]
	for _, v := range msgs(graph, graphInput) {
		fmt.Println("input", str(v, valueName))
	}
	for _, v := range msgs(graph, graphOutput) {
		fmt.Println("output", str(v, valueName))
	}
	// Output:
	// input X
	// output label
	// output scores
	// output probabilities
}
