package data

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCSVLabelNames: a label column that is not all numbers is read as
// class names (sorted, Y indexing them), through ReadCSV and Open alike;
// a first row whose only text field is the label is data when the next
// row's label is text too, and a header when it is a number.
func TestCSVLabelNames(t *testing.T) {
	tests := []struct {
		name, text string
		n          int
		names      []string
		y          []float64
	}{
		{"iris-like, no header", "5.1,3.5,setosa\n4.9,3.0,setosa\n6.0,2.2,virginica\n", 3, []string{"setosa", "virginica"}, []float64{0, 0, 1}},
		{"header", "a,b,species\n5.1,3.5,setosa\n6.0,2.2,virginica\n4.9,3.0,setosa\n", 3, []string{"setosa", "virginica"}, []float64{0, 1, 0}},
		{"numeric column names", "0,1,target\n1,2,0\n3,4,1\n", 2, nil, []float64{0, 1}},
		{"a name after numbers", "1,2,1\n3,4,1.0\n5,6,x\n", 3, []string{"1", "x"}, []float64{0, 0, 1}},
		{"quoted names", "x,label\n1,\"b, c\"\n2,a\n", 2, []string{"a", "b, c"}, []float64{1, 0}},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		path := filepath.Join(dir, "t.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := ReadCSV(strings.NewReader(tc.text), "t.csv", CSVOptions{LabelCol: LabelAuto})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, err := Open(path, OpenOptions{CSV: CSVOptions{LabelCol: LabelAuto}})
		if err != nil {
			t.Fatalf("%s: Open: %v", tc.name, err)
		}
		for _, ds := range []*Dataset{a, b} {
			if ds.N != tc.n || !slices.Equal(ds.LabelNames, tc.names) || !slices.Equal(ds.Y, tc.y) {
				t.Errorf("%s: N %d, names %q, Y %v; want %d, %q, %v", tc.name, ds.N, ds.LabelNames, ds.Y, tc.n, tc.names, tc.y)
			}
			if err := ds.Validate(); err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		}
		// WriteCSV writes the names; reading them back gives the same data.
		var buf bytes.Buffer
		if err := WriteCSV(&buf, a, true); err != nil {
			t.Fatal(err)
		}
		c, err := ReadCSV(&buf, "w.csv", CSVOptions{LabelCol: LabelAuto})
		if err != nil {
			t.Fatalf("%s: reading WriteCSV's output: %v", tc.name, err)
		}
		if !bitsEqual(a, c) {
			t.Errorf("%s: WriteCSV and ReadCSV do not round-trip: names %q, Y %v", tc.name, c.LabelNames, c.Y)
		}
	}
}

func TestValidateLabelNames(t *testing.T) {
	ds := &Dataset{X: []float32{1, 2}, Y: []float64{0, 2}, N: 2, D: 1, LabelNames: []string{"a", "b"}}
	if err := ds.Validate(); err == nil || !strings.Contains(err.Error(), "not an index") {
		t.Fatalf("label 2 of 2 names: error %v", err)
	}
	sub := (&Dataset{X: []float32{1, 2}, Y: []float64{0, 1}, N: 2, D: 1, LabelNames: []string{"a", "b"}}).Subset([]int{1})
	if !slices.Equal(sub.LabelNames, []string{"a", "b"}) || sub.Y[0] != 1 {
		t.Fatalf("Subset: names %q, Y %v", sub.LabelNames, sub.Y)
	}
}
