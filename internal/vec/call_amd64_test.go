//go:build amd64 && !noasm

package vec

import "testing"

// TestBadKernel: a block size outside a family's kernels panics instead of
// calling a kernel of another size or another family (kern(1, 4) would be
// kern2x8's number, dotKern(1, 5) dotk2x1's, convDWKern(2, 7) a hole).
func TestBadKernel(t *testing.T) {
	var ka kernArgs
	var ca convArgs
	for _, c := range []struct {
		name string
		call func()
	}{
		{"kern(1, 4)", func() { kern(1, 4, &ka) }},
		{"kern(0, 0)", func() { kern(0, 0, &ka) }},
		{"kern(7, 0)", func() { kern(7, 0, &ka) }},
		{"dotKern(1, 5)", func() { dotKern(1, 5, &ka) }},
		{"dotKern(4, 1)", func() { dotKern(4, 1, &ka) }},
		{"convFwdKern(1, 4)", func() { convFwdKern(1, 4, &ca) }},
		{"convFwdKern(7, 1)", func() { convFwdKern(7, 1, &ca) }},
		{"convDXKern(1, 3)", func() { convDXKern(1, 3, &ca) }},
		{"convDWKern(2, 7)", func() { convDWKern(2, 7, &ca) }},
		{"convDWKern(3, 5)", func() { convDWKern(3, 5, &ca) }},
		{"convDWKern(4, 1)", func() { convDWKern(4, 1, &ca) }},
		{"convDWKern(1, 9)", func() { convDWKern(1, 9, &ca) }},
	} {
		func() {
			defer func() {
				if r := recover(); r != "vec: bad kernel" {
					t.Errorf("%s: recovered %v, want the bad kernel panic", c.name, r)
				}
			}()
			c.call()
		}()
	}
}
