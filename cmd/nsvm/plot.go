package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgimg" // png
	_ "gonum.org/v1/plot/vg/vgpdf" // pdf
	_ "gonum.org/v1/plot/vg/vgsvg" // svg

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

const plotUsage = `plot --log FILE --out curves.png
       nsvm plot --model M --data FILE --out boundary.png`

func (e *env) plot(args []string) error {
	var df dataFlags
	var logPath, model, out string
	var width, height, grid int
	fs := e.newFlags("plot", plotUsage)
	df.register(fs)
	fs.StringVar(&logPath, "log", "", "draw the training curves of this `file` (written by train or reproduce --log)")
	fs.StringVar(&model, "model", "", "draw the decision function of this model `file` on the 2-D points of --data")
	fs.StringVar(&out, "out", "", "image `file` to write: .png, .svg or .pdf (required)")
	fs.IntVar(&width, "width", 0, "image width in pixels (default 1000 for curves, 800 for a boundary)")
	fs.IntVar(&height, "height", 0, "image height in pixels (default 260 per curve panel; 700 for a boundary)")
	fs.IntVar(&grid, "grid", 300, "boundary: evaluate the decision function on a grid of this many points per axis")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	if (logPath == "") == (model == "") {
		return usagef("nsvm plot: give either --log (training curves) or --model with --data (decision boundary)")
	}
	if out == "" {
		return usagef("nsvm plot: --out is required")
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
	switch format {
	case "png", "svg", "pdf":
	default:
		return usagef("nsvm plot: --out %s: unknown image type %q (want .png, .svg or .pdf)", out, filepath.Ext(out))
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"width", width}, {"height", height}} {
		if c.v != 0 && (c.v < 100 || c.v > 10000) {
			return usagef("nsvm plot: --%s must be between 100 and 10000 pixels, got %d", c.name, c.v)
		}
	}
	if grid < 10 || grid > 2000 {
		return usagef("nsvm plot: --grid must be between 10 and 2000, got %d", grid)
	}
	if err := checkWritable(out, "image"); err != nil {
		return err
	}
	var img *figure
	var err error
	var summary string
	if logPath != "" {
		img, summary, err = curvesFigure(logPath, width, height)
	} else {
		img, summary, err = e.boundaryFigure(model, &df, width, height, grid)
	}
	if err != nil {
		return err
	}
	if err := img.save(out, format); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %s\n", out, summary)
	return nil
}

// figure is a column of plots drawn on one canvas of w×h pixels, with an
// optional legend in a column of its own at the right.
type figure struct {
	plots  [][]*plot.Plot
	w, h   int
	legend *plot.Legend
	// legendNames are the legend's entries, for its width.
	legendNames []string
}

// pixels converts a size in pixels to a vg length, so that a PNG (96 dpi)
// has exactly that many pixels.
func pixels(n int) vg.Length { return vg.Length(n) * vg.Inch / 96 }

func (f *figure) save(path, format string) error {
	c, err := draw.NewFormattedCanvas(pixels(f.w), pixels(f.h), format)
	if err != nil {
		return fmt.Errorf("nsvm plot: %w", err)
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
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return fmt.Errorf("nsvm plot: rendering %s: %w", path, err)
	}
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// readLog reads the JSON lines of a --log file.
func readLog(path string) ([]logRecord, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("nsvm plot: %w", err)
	}
	defer fh.Close()
	var recs []logRecord
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var r logRecord
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || dec.More() {
			return nil, fmt.Errorf("nsvm plot: %s:%d: not a progress record of nsvm train --log", path, line)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("nsvm plot: reading %s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("nsvm plot: %s holds no progress records", path)
	}
	return recs, nil
}

// panel is one curve plot: a quantity against the step for every run.
type panel struct {
	title, ylabel string
	key           string // short name for the summary line
	phase         string // records of this phase
	algs          func(alg int) bool
	value         func(r logRecord) float64
	xlabel        string
	// smooth draws a running mean over the (noisy, per-report) values.
	smooth bool
	// zero puts 0 on the y axis.
	zero bool
}

var curvePanels = []panel{
	{title: "Margin violations (y·g̃ < 1) since the previous report", ylabel: "violation rate", key: "violation rate",
		phase: "train", xlabel: "step t", smooth: true, zero: true,
		algs: func(a int) bool { return a >= 1 && a <= 3 }, value: func(r logRecord) float64 { return r.ViolationRate }},
	{title: "θ-objective of the last step", ylabel: "loss", key: "loss", phase: "train", xlabel: "step t", smooth: true,
		algs: func(a int) bool { return a >= 3 }, value: func(r logRecord) float64 { return r.Loss }},
	{title: "Kernel-target alignment of the last batch", ylabel: "alignment A", key: "alignment", phase: "train",
		xlabel: "step t", smooth: true,
		algs: func(a int) bool { return a >= 3 }, value: func(r logRecord) float64 { return r.Alignment }},
	{title: "Support vectors", ylabel: "#SV", key: "#SV", phase: "train", xlabel: "step t", zero: true,
		algs: func(a int) bool { return a >= 1 && a <= 3 }, value: func(r logRecord) float64 { return float64(r.NSV) }},
	{title: "SVM on fixed features (Algorithm 4 Part II or a classical solver)", ylabel: "#SV", key: "solver #SV",
		phase: "svm", xlabel: "solver step", zero: true,
		algs: func(int) bool { return true }, value: func(r logRecord) float64 { return float64(r.NSV) }},
}

// curvesFigure draws the curves of a log: one row of panels per quantity the
// log holds, one column per algorithm (step counts differ by orders of
// magnitude between them), one line per run.
func curvesFigure(path string, width, height int) (*figure, string, error) {
	recs, err := readLog(path)
	if err != nil {
		return nil, "", err
	}
	var runs []string
	var algs []int
	for _, r := range recs {
		if !slices.Contains(runs, r.Run) {
			runs = append(runs, r.Run)
		}
		if !slices.Contains(algs, r.Algorithm) {
			algs = append(algs, r.Algorithm)
		}
	}
	slices.Sort(algs)
	var plots [][]*plot.Plot
	var names []string
	legendDone := make([]bool, len(algs))
	for _, pn := range curvePanels {
		row := make([]*plot.Plot, len(algs))
		any := false
		for col, alg := range algs {
			if !pn.algs(alg) {
				continue
			}
			p, err := curvePanel(pn, recs, runs, alg, !legendDone[col])
			if err != nil {
				return nil, "", fmt.Errorf("nsvm plot: %s: %w", path, err)
			}
			if p != nil {
				row[col], any, legendDone[col] = p, true, true
			}
		}
		if any {
			plots = append(plots, row)
			names = append(names, pn.key)
		}
	}
	if len(plots) == 0 {
		return nil, "", fmt.Errorf("nsvm plot: %s holds no curves to draw", path)
	}
	// Name each column in its top panel.
	for col, alg := range algs {
		for _, row := range plots {
			if p := row[col]; p != nil {
				name := "Algorithm " + strconv.Itoa(alg)
				if alg == 0 {
					name = "SVM solver"
				}
				if len(runs) == 1 {
					name = runs[0]
				}
				p.Title.Text = name + " — " + p.Title.Text
				break
			}
		}
	}
	if width == 0 {
		width = max(1000, 560*len(algs))
	}
	if height == 0 {
		height = 260 * len(plots)
	}
	return &figure{plots: plots, w: width, h: height},
		fmt.Sprintf("%d run(s), %d records, panels: %s", len(runs), len(recs), strings.Join(names, ", ")), nil
}

// curvePanel draws one quantity of the runs of one algorithm, or returns
// nil when they have no records of it. With legend set, runs are named in a
// legend (by seed when the names differ only in it).
func curvePanel(pn panel, recs []logRecord, runs []string, alg int, legend bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = pn.title
	p.X.Label.Text = pn.xlabel
	p.Y.Label.Text = pn.ylabel
	p.Y.Tick.Marker = plainTicks{}
	p.X.Tick.Marker = plainTicks{}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	var mine []string // this algorithm's runs
	seeds := map[string]uint64{}
	for _, r := range recs {
		if r.Algorithm == alg && !slices.Contains(mine, r.Run) {
			mine = append(mine, r.Run)
			seeds[r.Run] = r.Seed
		}
	}
	// Runs named "… seed S" (nsvm reproduce) are told apart by their seed.
	bySeed := true
	for _, run := range mine {
		bySeed = bySeed && strings.HasSuffix(run, " seed "+strconv.FormatUint(seeds[run], 10))
	}
	lines := 0
	for i, run := range mine {
		var xy plotter.XYs
		for _, r := range recs {
			if r.Run == run && r.Algorithm == alg && r.Phase == pn.phase {
				xy = append(xy, plotter.XY{X: float64(r.Step), Y: pn.value(r)})
			}
		}
		if len(xy) == 0 {
			continue
		}
		col := plotutil.Color(i)
		dashes := plotutil.Dashes(i / len(plotutil.DefaultColors))
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = col, vg.Points(1.4), dashes
		if pn.smooth && len(xy) >= 10 {
			// The raw reports faintly, their running mean on top.
			r, g, b, _ := col.RGBA()
			l.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x50}
			l.Width = vg.Points(0.8)
			p.Add(l)
			if l, err = plotter.NewLine(runningMean(xy, max(3, len(xy)/15))); err != nil {
				return nil, err
			}
			l.Color, l.Width, l.Dashes = col, vg.Points(1.8), dashes
		}
		p.Add(l)
		if len(xy) < 5 {
			// A few reports only: show them as points too.
			sc, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
		if legend && len(mine) > 1 {
			name := run
			if bySeed {
				name = "seed " + strconv.FormatUint(seeds[run], 10)
			}
			p.Legend.Add(name, l)
		}
		lines++
	}
	if lines == 0 {
		return nil, nil
	}
	if pn.zero {
		p.Y.Min = min(p.Y.Min, 0)
	}
	return p, nil
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

// decisionGrid is the decision function on a regular grid, for contours.
type decisionGrid struct {
	xs, ys []float64
	z      []float64 // z[r*len(xs)+c] at (xs[c], ys[r])
}

func (g *decisionGrid) Dims() (c, r int)   { return len(g.xs), len(g.ys) }
func (g *decisionGrid) Z(c, r int) float64 { return g.z[r*len(g.xs)+c] }
func (g *decisionGrid) X(c int) float64    { return g.xs[c] }
func (g *decisionGrid) Y(r int) float64    { return g.ys[r] }

var (
	negColor = color.NRGBA{R: 0x1f, G: 0x5f, B: 0xb4, A: 0xff} // blue
	posColor = color.NRGBA{R: 0xd6, G: 0x3a, B: 0x1e, A: 0xff} // red
)

// boundaryFigure draws the decision function of a model on 2-D data: shaded
// regions (colour by class, intensity by |g|), the contours g = 0 and
// g = ±1, the points by class, and the support vectors.
func (e *env) boundaryFigure(modelPath string, df *dataFlags, width, height, grid int) (*figure, string, error) {
	m, ds, err := e.loadFor("plot", modelPath, df)
	if err != nil {
		return nil, "", err
	}
	if m.InSize() != 2 {
		return nil, "", fmt.Errorf("nsvm plot: a decision boundary needs a model of 2-D inputs; %s takes %d", modelPath, m.InSize())
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
			return nil, "", fmt.Errorf("nsvm plot: the model's decision function is not finite on the plotted window")
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

	// The points by class.
	for _, cl := range []struct {
		label float64
		col   color.NRGBA
		shape draw.GlyphDrawer
	}{{m.Head.Neg, negColor, draw.CircleGlyph{}}, {m.Head.Pos, posColor, draw.TriangleGlyph{}}} {
		var xy plotter.XYs
		for i := 0; i < ds.N; i++ {
			if ds.Y[i] == cl.label {
				xy = append(xy, plotter.XY{X: float64(ds.X[2*i]), Y: float64(ds.X[2*i+1])})
			}
		}
		if len(xy) == 0 {
			continue
		}
		sc, _ := plotter.NewScatter(xy)
		sc.GlyphStyle = draw.GlyphStyle{Color: cl.col, Radius: vg.Points(2.6), Shape: cl.shape}
		p.Add(sc)
		addLegend(fmt.Sprintf("class %g (%d)", cl.label, len(xy)), sc)
	}

	// The support vectors.
	sv, note := supportPoints(m, ds)
	if len(sv) > 0 {
		sc, _ := plotter.NewScatter(sv)
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4.5), Shape: draw.RingGlyph{}}
		p.Add(sc)
		addLegend(fmt.Sprintf("support vectors (%d)", len(sv)), sc)
	}
	p.Title.Text = fmt.Sprintf("%s on %s: decision function g", m.Algorithm, filepath.Base(df.path))
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
	return &figure{plots: [][]*plot.Plot{{p}}, w: width, h: height, legend: &legend, legendNames: names}, summary, nil
}

// supportPoints returns the support vectors of m as points of the input
// plane. A classical model's support vectors are (standardised) inputs; for
// an NSVM they are features, and the training points whose features they are
// are marked instead — found by nearest feature vector, which works when the
// head was fitted on the final features (Algorithm 4 and the classical
// solvers). The note says why support vectors were left out.
func supportPoints(m *nsvm.Model, ds *data.Dataset) (plotter.XYs, string) {
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

// lineThumb draws a line style as a legend thumbnail.
type lineThumb draw.LineStyle

func (l lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle(l), c.Min.X, y, c.Max.X, y)
}
