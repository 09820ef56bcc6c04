package report

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// panel is one curve plot: a quantity against the step for every run.
type panel struct {
	title, ylabel string
	key           string // short name for the summary line
	phase         string // records of this phase
	algs          func(alg int) bool
	value         func(r Record) float64
	xlabel        string
	// smooth draws a running mean over the (noisy, per-report) values.
	smooth bool
	// zero puts 0 on the y axis.
	zero bool
}

var curvePanels = []panel{
	{title: "Margin violations (y·g̃ < 1) since the previous report", ylabel: "violation rate", key: "violation rate",
		phase: "train", xlabel: "step t", smooth: true, zero: true,
		algs: func(a int) bool { return a >= 1 && a <= 3 }, value: func(r Record) float64 { return r.ViolationRate }},
	{title: "θ-objective of the last step", ylabel: "loss", key: "loss", phase: "train", xlabel: "step t", smooth: true,
		algs: func(a int) bool { return a >= 3 }, value: func(r Record) float64 { return r.Loss }},
	{title: "Kernel-target alignment of the last batch", ylabel: "alignment A", key: "alignment", phase: "train",
		xlabel: "step t", smooth: true,
		algs: func(a int) bool { return a >= 3 }, value: func(r Record) float64 { return r.Alignment }},
	{title: "Support vectors", ylabel: "#SV", key: "#SV", phase: "train", xlabel: "step t", zero: true,
		algs: func(a int) bool { return a >= 1 && a <= 3 }, value: func(r Record) float64 { return float64(r.NSV) }},
	{title: "SVM on fixed features (Algorithm 4 Part II or a classical solver)", ylabel: "#SV", key: "solver #SV",
		phase: "svm", xlabel: "solver step", zero: true,
		algs: func(int) bool { return true }, value: func(r Record) float64 { return float64(r.NSV) }},
}

// Curves draws the training curves of the records of a log: one row of
// panels per quantity the log holds, one column per algorithm (step counts
// differ by orders of magnitude between them), one line per run. width and
// height are in pixels (0: sized from the panels). It also returns a one-line
// summary of what it drew.
func Curves(recs []Record, width, height int) (*Figure, string, error) {
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
				return nil, "", fmt.Errorf("nsvm: %w", err)
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
		return nil, "", fmt.Errorf("nsvm: the log holds no curves to draw")
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
	return &Figure{plots: plots, w: width, h: height},
		fmt.Sprintf("%d run(s), %d records, panels: %s", len(runs), len(recs), strings.Join(names, ", ")), nil
}

// curvePanel draws one quantity of the runs of one algorithm, or returns
// nil when they have no records of it. With legend set, runs are named in a
// legend (by seed when the names differ only in it).
func curvePanel(pn panel, recs []Record, runs []string, alg int, legend bool) (*plot.Plot, error) {
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
