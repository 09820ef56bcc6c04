package nn

import "fmt"

// ShiftImages sets dst to the images of src moved by dy pixels down and
// dx pixels right: rows images of c channels of h×w pixels each, row-major
// (NCHW), out(i, j) = in(i−dy, j−dx). The pixels the move uncovers take
// their values from border, one image of c·h·w values (the background:
// the scaled value of a black pixel, for images that are scaled), or are
// zero when border is nil. dst and src hold at least rows·c·h·w values and
// must not overlap. It is the translation of data augmentation
// (paper.RandomShift) and of the averaged views of a model's features
// (model.Model.TestShift).
func ShiftImages(dst, src []float32, rows, c, h, w, dy, dx int, border []float32) {
	d := c * h * w
	if rows < 0 || c < 1 || h < 1 || w < 1 || len(dst) < rows*d || len(src) < rows*d || border != nil && len(border) != d {
		panic(fmt.Sprintf("nn: ShiftImages: %d images of %d×%d×%d in %d values to %d (border %d)", rows, c, h, w, len(src), len(dst), len(border)))
	}
	// The columns j of an output line that come from the input line:
	// lo ≤ j < hi, from j − dx.
	lo, hi := max(0, dx), min(w, w+dx)
	fill := func(line []float32, l, i, from int) {
		if border == nil {
			clear(line)
			return
		}
		b := l % c * h * w
		copy(line, border[b+i*w+from:])
	}
	for l := 0; l < rows*c; l++ {
		out, in := dst[l*h*w:(l+1)*h*w], src[l*h*w:(l+1)*h*w]
		for i := 0; i < h; i++ {
			line := out[i*w : (i+1)*w]
			si := i - dy
			if si < 0 || si >= h || lo >= hi {
				fill(line, l, i, 0)
				continue
			}
			fill(line[:lo], l, i, 0)
			copy(line[lo:hi], in[si*w+lo-dx:si*w+hi-dx])
			fill(line[hi:], l, i, hi)
		}
	}
}
