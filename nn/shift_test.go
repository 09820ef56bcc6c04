package nn

import (
	"slices"
	"testing"
)

// TestShiftImages checks ShiftImages against the definition out(i, j) =
// in(i−dy, j−dx) (outside the image: zero, or the border image's pixel),
// pixel by pixel, for every move up to beyond the image's size, on several
// images of several channels: stale values in dst must not survive.
func TestShiftImages(t *testing.T) {
	const rows, c, h, w = 2, 3, 4, 5
	d := c * h * w
	src := make([]float32, rows*d)
	for i := range src {
		src[i] = float32(i + 1)
	}
	border := make([]float32, d)
	for i := range border {
		border[i] = float32(-1000 - i)
	}
	for _, bd := range [][]float32{nil, border} {
		for dy := -h - 1; dy <= h+1; dy++ {
			for dx := -w - 1; dx <= w+1; dx++ {
				dst := make([]float32, rows*d)
				for i := range dst {
					dst[i] = -1
				}
				ShiftImages(dst, src, rows, c, h, w, dy, dx, bd)
				want := make([]float32, rows*d)
				for l := 0; l < rows*c; l++ {
					for i := 0; i < h; i++ {
						for j := 0; j < w; j++ {
							if si, sj := i-dy, j-dx; si >= 0 && si < h && sj >= 0 && sj < w {
								want[l*h*w+i*w+j] = src[l*h*w+si*w+sj]
							} else if bd != nil {
								want[l*h*w+i*w+j] = bd[l%c*h*w+i*w+j]
							}
						}
					}
				}
				if !slices.Equal(dst, want) {
					t.Fatalf("shift (%d, %d), border %v:\n got %v\nwant %v", dy, dx, bd != nil, dst, want)
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("ShiftImages into a short dst did not panic")
		}
	}()
	ShiftImages(make([]float32, d), src, rows, c, h, w, 1, 1, nil)
}
