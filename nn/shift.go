package nn

import "fmt"

// ShiftImages sets dst to the images of src moved by dy pixels down and
// dx pixels right: rows images of c channels of h×w pixels each, row-major
// (NCHW), out(i, j) = in(i−dy, j−dx), with the pixels the move uncovers
// set to zero. dst and src hold at least rows·c·h·w values and must not
// overlap. It is the translation of data augmentation (paper.RandomShift)
// and of the averaged views of a model's features (model.Model.TestShift).
func ShiftImages(dst, src []float32, rows, c, h, w, dy, dx int) {
	d := c * h * w
	if rows < 0 || c < 1 || h < 1 || w < 1 || len(dst) < rows*d || len(src) < rows*d {
		panic(fmt.Sprintf("nn: ShiftImages: %d images of %d×%d×%d in %d values to %d", rows, c, h, w, len(src), len(dst)))
	}
	// The columns j of an output line that come from the input line:
	// lo ≤ j < hi, from j − dx.
	lo, hi := max(0, dx), min(w, w+dx)
	for l := 0; l < rows*c; l++ {
		out, in := dst[l*h*w:(l+1)*h*w], src[l*h*w:(l+1)*h*w]
		for i := 0; i < h; i++ {
			line := out[i*w : (i+1)*w]
			si := i - dy
			if si < 0 || si >= h || lo >= hi {
				clear(line)
				continue
			}
			clear(line[:lo])
			copy(line[lo:hi], in[si*w+lo-dx:si*w+hi-dx])
			clear(line[hi:])
		}
	}
}
