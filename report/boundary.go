package report

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"

	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/model"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// decisionGrid is the decision function on a regular grid, for contours.
type decisionGrid struct {
	xs, ys []float64
	z      []float64 // z[r*len(xs)+c] at (xs[c], ys[r])
}

func (g *decisionGrid) Dims() (c, r int) { return len(g.xs), len(g.ys) }

func (g *decisionGrid) Z(c, r int) float64 { return g.z[r*len(g.xs)+c] }

func (g *decisionGrid) X(c int) float64 { return g.xs[c] }

func (g *decisionGrid) Y(r int) float64 { return g.ys[r] }

var (
	negColor = color.NRGBA{R: 0x1f, G: 0x5f, B: 0xb4, A: 0xff} // blue
	posColor = color.NRGBA{R: 0xd6, G: 0x3a, B: 0x1e, A: 0xff} // red
)

// Boundary draws the decision function of a binary model of 2-D inputs on
// the labelled points of ds: shaded regions (colour by class, intensity by
// |g|), the contours g = 0 and g = ±1, the points by class, and the support
// vectors. title heads the plot; width and height are in pixels (0: 900 ×
// 700); the function is evaluated on grid × grid points. It also returns a
// one-line summary of what it drew.
func Boundary(m *model.Model, ds *data.Dataset, title string, width, height, grid int) (*Figure, string, error) {
	if m.InSize() != 2 || ds.D != 2 || ds.X == nil {
		return nil, "", fmt.Errorf("nsvm: a decision boundary needs a model of 2-D inputs and dense 2-D points; the model takes %d, the data have %d", m.InSize(), ds.D)
	}
	if m.Multiclass() || m.Regression() {
		return nil, "", fmt.Errorf("nsvm: a decision boundary is drawn for a binary classifier")
	}
	if grid < 2 {
		return nil, "", fmt.Errorf("nsvm: the grid needs at least 2 points per axis, got %d", grid)
	}
	// The plotted window: the data's range with a margin.
	lo := [2]float64{math.Inf(1), math.Inf(1)}
	hi := [2]float64{math.Inf(-1), math.Inf(-1)}
	for i := 0; i < ds.N; i++ {
		for j := 0; j < 2; j++ {
			v := float64(ds.X[2*i+j])
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
		}
	}
	for j := range 2 {
		pad := 0.06 * (hi[j] - lo[j])
		if pad == 0 {
			pad = 1
		}
		lo[j], hi[j] = lo[j]-pad, hi[j]+pad
	}
	g := &decisionGrid{xs: make([]float64, grid), ys: make([]float64, grid), z: make([]float64, grid*grid)}
	for c := range grid {
		g.xs[c] = lo[0] + (hi[0]-lo[0])*float64(c)/float64(grid-1)
		g.ys[c] = lo[1] + (hi[1]-lo[1])*float64(c)/float64(grid-1)
	}
	pts := make([]float32, 2*grid*grid)
	for r := range grid {
		for c := range grid {
			k := r*grid + c
			pts[2*k], pts[2*k+1] = float32(g.xs[c]), float32(g.ys[r])
		}
	}
	m.DecisionBatch(g.z, pts, grid*grid)
	zmin, zmax, scale := math.Inf(1), math.Inf(-1), 0.0
	abs := make([]float64, 0, len(g.z))
	for _, v := range g.z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, "", fmt.Errorf("nsvm: the model's decision function is not finite on the plotted window")
		}
		zmin, zmax = min(zmin, v), max(zmax, v)
		abs = append(abs, math.Abs(v))
	}
	slices.Sort(abs)
	if scale = abs[len(abs)*95/100]; scale == 0 {
		scale = 1
	}

	// Shaded regions: white at g = 0, the class colour with growing |g|.
	img := image.NewNRGBA(image.Rect(0, 0, grid, grid))
	for r := range grid {
		for c := range grid {
			v := g.z[r*grid+c]
			base := posColor
			if v < 0 {
				base = negColor
			}
			t := 0.45 * math.Pow(min(math.Abs(v)/scale, 1), 0.6)
			mix := func(b uint8) uint8 { return uint8(math.Round(255*(1-t) + float64(b)*t)) }
			img.SetNRGBA(c, grid-1-r, color.NRGBA{R: mix(base.R), G: mix(base.G), B: mix(base.B), A: 0xff})
		}
	}
	p := plot.New()
	p.Add(plotter.NewImage(img, lo[0], lo[1], hi[0], hi[1]))
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo[0], hi[0], lo[1], hi[1]
	p.X.Label.Text, p.Y.Label.Text = "x₁", "x₂"
	legend := plot.NewLegend()
	var names []string
	addLegend := func(name string, th ...plot.Thumbnailer) {
		legend.Add(name, th...)
		names = append(names, name)
	}

	// Contours g = −1, 0, +1 where the function crosses them.
	for _, lv := range []struct {
		level  float64
		name   string
		width  vg.Length
		dashes []vg.Length
		col    color.Color
	}{
		{0, "g(x) = 0", vg.Points(2), nil, color.Black},
		{-1, "g(x) = ±1", vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}, color.Gray{Y: 0x50}},
		{1, "", vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}, color.Gray{Y: 0x50}},
	} {
		if !(zmin < lv.level && lv.level < zmax) {
			continue
		}
		ct := plotter.NewContour(g, []float64{lv.level}, nil)
		ct.LineStyles = []draw.LineStyle{{Color: lv.col, Width: lv.width, Dashes: lv.dashes}}
		p.Add(ct)
		if lv.name != "" {
			addLegend(lv.name, lineThumb(ct.LineStyles[0]))
		}
	}

	// The points by class (the data's labels as the model's).
	y, err := m.DataLabels(ds)
	if err != nil {
		return nil, "", err
	}
	for _, cl := range []struct {
		label float64
		col   color.NRGBA
		shape draw.GlyphDrawer
	}{{m.Head.Neg, negColor, draw.CircleGlyph{}}, {m.Head.Pos, posColor, draw.TriangleGlyph{}}} {
		var xy plotter.XYs
		for i := 0; i < ds.N; i++ {
			if y[i] == cl.label {
				xy = append(xy, plotter.XY{X: float64(ds.X[2*i]), Y: float64(ds.X[2*i+1])})
			}
		}
		if len(xy) == 0 {
			continue
		}
		sc, _ := plotter.NewScatter(xy)
		sc.GlyphStyle = draw.GlyphStyle{Color: cl.col, Radius: vg.Points(2.6), Shape: cl.shape}
		p.Add(sc)
		addLegend(fmt.Sprintf("class %s (%d)", m.LabelName(cl.label), len(xy)), sc)
	}

	// The support vectors.
	sv, note := supportPoints(m, ds)
	if len(sv) > 0 {
		sc, _ := plotter.NewScatter(sv)
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4.5), Shape: draw.RingGlyph{}}
		p.Add(sc)
		addLegend(fmt.Sprintf("support vectors (%d)", len(sv)), sc)
	}
	p.Title.Text = title
	if width == 0 {
		width = 900
	}
	if height == 0 {
		height = 700
	}
	summary := fmt.Sprintf("decision function of %s on %d points, %d support vectors marked", m.Algorithm, ds.N, len(sv))
	if note != "" {
		summary += "; " + note
	}
	return &Figure{plots: [][]*plot.Plot{{p}}, w: width, h: height, legend: &legend, legendNames: names}, summary, nil
}

// supportPoints returns the support vectors of m as points of the input
// plane. A classical model's support vectors are (standardised) inputs; for
// an NSVM they are features, and the training points whose features they are
// are marked instead — found by nearest feature vector, which works when the
// head was fitted on the final features (Algorithm 4 and the classical
// solvers). The note says why support vectors were left out.
func supportPoints(m *model.Model, ds *data.Dataset) (plotter.XYs, string) {
	h := m.Head
	if h.NSV == 0 {
		return nil, ""
	}
	if m.Net == nil {
		xy := make(plotter.XYs, h.NSV)
		for s := range h.NSV {
			for j := range 2 {
				v := float64(h.SV[s*2+j])
				if m.Mean != nil {
					v = v*m.Std[j] + m.Mean[j]
				}
				if j == 0 {
					xy[s].X = v
				} else {
					xy[s].Y = v
				}
			}
		}
		return xy, ""
	}
	n := h.D
	if int64(h.NSV)*int64(ds.N)*int64(n) > 2e8 {
		return nil, "too many support vectors and points to match them; not marked"
	}
	z := make([]float32, ds.N*n)
	m.Features(z, ds.X, ds.N)
	var xy plotter.XYs
	missed := 0
	for s := range h.NSV {
		sv := h.SV[s*n : s*n+n]
		best, bestD := -1, math.Inf(1)
		var norm float64
		for _, v := range sv {
			norm += float64(v) * float64(v)
		}
		for i := 0; i < ds.N; i++ {
			var d float64
			for j, v := range z[i*n : i*n+n] {
				t := float64(v) - float64(sv[j])
				d += t * t
			}
			if d < bestD {
				best, bestD = i, d
			}
		}
		if bestD <= 1e-8*(1+norm) {
			xy = append(xy, plotter.XY{X: float64(ds.X[2*best]), Y: float64(ds.X[2*best+1])})
		} else {
			missed++
		}
	}
	switch {
	case missed == h.NSV:
		return nil, fmt.Sprintf("its %d support vectors are features from training time, not the current features of these points, so none is marked", h.NSV)
	case missed > 0:
		return xy, fmt.Sprintf("%d of %d support vectors match no point's features and are not marked", missed, h.NSV)
	}
	return xy, ""
}
