package model

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/kernel"
	"github.com/nsvm-go/nsvm/svm"
)

// TestColumnsOfDates: a model records a column of dates (its format and
// fill) and a pandas index left out, and reads them back; columns whose
// dates no reader knows are refused.
func TestColumnsOfDates(t *testing.T) {
	cols := []data.Column{{Dropped: true, RowIndex: true}, {Name: "signup", Dates: "DD/MM/YYYY", DateFill: []float64{19000.5, 2022, 6.5, 3}},
		{Name: "plan", Categories: []string{"basic", "pro"}}, {Name: "spend"}}
	w := data.Width(cols)
	m := &Model{Algorithm: "smo", Columns: cols,
		Head: &svm.Model{Kernel: kernel.Spec{Name: "rbf", Gamma: 0.5}, SV: make([]float32, 2*w), NSV: 2, D: w, Coef: []float64{1, -1}, Neg: -1, Pos: 1}}
	b := saved(t, m)
	back, err := Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Columns, cols) || back.InSize() != 7 {
		t.Fatalf("columns read back %+v (%d inputs)", back.Columns, back.InSize())
	}
	for _, bad := range []data.Column{
		{Name: "d", Dates: "YYYY-DD-MM"},
		{Name: "d", Dates: "YYYY-MM-DD", DateFill: []float64{1, 2}},
		{Name: "d", Dates: "YYYY-MM-DD", Categories: []string{"a", "b", "c", "e"}},
	} {
		bm := &Model{Algorithm: m.Algorithm, Head: m.Head, Columns: []data.Column{bad, {Name: "x"}, {Name: "y"}, {Name: "z"}}}
		if data.Width(bm.Columns) != w {
			t.Fatalf("width %d", data.Width(bm.Columns))
		}
		_, err := Read(bytes.NewReader(saved(t, bm)))
		if err == nil || !strings.Contains(err.Error(), "bad input_columns") {
			t.Errorf("columns %+v: %v", bm.Columns, err)
		}
	}
}
