package report

import (
	"fmt"
	"io"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgimg" // png
	_ "gonum.org/v1/plot/vg/vgpdf" // pdf
	_ "gonum.org/v1/plot/vg/vgsvg" // svg
)

// Figure is a grid of plots drawn on one canvas of w×h pixels, with an
// optional legend in a column of its own at the right (Curves, Boundary).
type Figure struct {
	plots  [][]*plot.Plot
	w, h   int
	legend *plot.Legend
	// legendNames are the legend's entries, for its width.
	legendNames []string
}

// pixels converts a size in pixels to a vg length, so that a PNG (96 dpi)
// has exactly that many pixels.
func pixels(n int) vg.Length { return vg.Length(n) * vg.Inch / 96 }

// Encode renders the figure to w as an image of the format: "png", "svg"
// or "pdf".
func (f *Figure) Encode(w io.Writer, format string) error {
	c, err := draw.NewFormattedCanvas(pixels(f.w), pixels(f.h), format)
	if err != nil {
		return fmt.Errorf("nsvm: %w", err)
	}
	dc := draw.New(c)
	if f.legend != nil {
		lw := 12*vg.Millimeter + f.legend.ThumbnailWidth
		for _, e := range f.legendNames {
			lw = max(lw, 12*vg.Millimeter+f.legend.ThumbnailWidth+f.legend.TextStyle.Width(e))
		}
		f.legend.Top, f.legend.Left = true, true
		f.legend.Padding = vg.Points(3)
		f.legend.YOffs = -12 * vg.Millimeter
		f.legend.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-lw, 0, 0, 0))
		dc = draw.Crop(dc, 0, -lw, 0, 0)
	}
	tiles := draw.Tiles{Rows: len(f.plots), Cols: len(f.plots[0]), PadX: vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	canvases := plot.Align(f.plots, tiles, dc)
	for i, row := range f.plots {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("nsvm: rendering the figure: %w", err)
	}
	return nil
}

// plainTicks are gonum's default ticks labelled without trailing zeros.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// runningMean returns the centred running mean of the y values over a
// window of w points (shorter at the ends).
func runningMean(xy plotter.XYs, w int) plotter.XYs {
	out := make(plotter.XYs, len(xy))
	var sum float64
	lo, hi := 0, 0 // the window is xy[lo:hi]
	for i := range xy {
		for hi < len(xy) && hi <= i+w/2 {
			sum += xy[hi].Y
			hi++
		}
		for lo < i-w/2 {
			sum -= xy[lo].Y
			lo++
		}
		out[i] = plotter.XY{X: xy[i].X, Y: sum / float64(hi-lo)}
	}
	return out
}

// lineThumb draws a line style as a legend thumbnail.
type lineThumb draw.LineStyle

func (l lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle(l), c.Min.X, y, c.Max.X, y)
}
