package model

import (
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

func TestPairOf(t *testing.T) {
	for c := 2; c <= 6; c++ {
		q := 0
		for i := 0; i < c; i++ {
			for j := i + 1; j < c; j++ {
				if a, b := pairOf(q, c); a != i || b != j {
					t.Fatalf("pairOf(%d, %d) = (%d, %d), want (%d, %d)", q, c, a, b, i, j)
				}
				q++
			}
		}
		if q != HeadCount(OneVsOne, c) {
			t.Fatalf("%d pairs for %d classes, numHeads says %d", q, c, HeadCount(OneVsOne, c))
		}
	}
}

// TestShortRow: a row of the wrong length is a panic that names the method
// and both lengths, not an index out of range deep inside.
func TestShortRow(t *testing.T) {
	m := &Model{Head: &svm.Model{Kernel: kernel.Spec{Name: "linear"}, D: 4, Neg: -1, Pos: 1}}
	for name, f := range map[string]func(){"Predict": func() { m.Predict([]float32{1, 2, 3}) }, "Decision": func() { m.Decision(make([]float32, 5)) }} {
		func() {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, "Model."+name+": the row has") || !strings.Contains(msg, "the model takes 4") {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			f()
		}()
	}
}
