// Command scaling turns the outputs of bench/scaling.sh into one table, a
// JSON summary and two log–log figures: time per step against the number of
// support vectors (kernel Pegasos in nsvm and PyTorch, Algorithm 1 in nsvm)
// and SMO training time against the number of training points (nsvm and
// LIBSVM's svm-train).
//
//	go run ./bench/cmd/scaling -go FILE -torch FILE -smo FILE -out DIR
//
// -go is `go test -bench` output holding BenchmarkPegasosStep/nsv=N and
// BenchmarkAlg1Step/nsv=N lines, -torch the output of bench/pegasos_torch.py
// (`PegasosStep/nsv=N ns` lines), -smo the JSON lines of bench/cmd/svmbench.
// Missing or empty inputs leave their rows out.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// series is one curve: y (seconds) against x.
type series struct {
	Name string    `json:"name"`
	X    []float64 `json:"x"`
	Y    []float64 `json:"seconds"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scaling:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("scaling", flag.ContinueOnError)
	goOut := fs.String("go", "", "go test -bench output (PegasosStep, Alg1Step)")
	torchOut := fs.String("torch", "", "bench/pegasos_torch.py output")
	smoOut := fs.String("smo", "", "bench/cmd/svmbench JSON lines")
	out := fs.String("out", "bench/out", "directory for scaling.json and the figures")
	if err := fs.Parse(args); err != nil {
		return err
	}
	goBench := regexp.MustCompile(`^Benchmark(PegasosStep|Alg1Step)/nsv=(\d+)(/workers=(\d+))?(-\d+)?\s+\d+\s+([\d.]+) ns/op`)
	torchBench := regexp.MustCompile(`^PegasosStep/nsv=(\d+)\s+([\d.]+)`)
	steps := map[string]*series{}
	add := func(name string, x, ns float64) {
		s := steps[name]
		if s == nil {
			s = &series{Name: name}
			steps[name] = s
		}
		s.X = append(s.X, x)
		s.Y = append(s.Y, ns*1e-9)
	}
	if err := eachLine(*goOut, func(l string) {
		if m := goBench.FindStringSubmatch(l); m != nil {
			n, _ := strconv.ParseFloat(m[2], 64)
			ns, _ := strconv.ParseFloat(m[6], 64)
			name := map[string]string{"PegasosStep": "kernel Pegasos, nsvm", "Alg1Step": "Algorithm 1 (violation step), nsvm"}[m[1]]
			if m[4] != "" {
				name += ", " + m[4] + " goroutines"
			}
			add(name, n, ns)
		}
	}); err != nil {
		return err
	}
	if err := eachLine(*torchOut, func(l string) {
		if m := torchBench.FindStringSubmatch(l); m != nil {
			n, _ := strconv.ParseFloat(m[1], 64)
			ns, _ := strconv.ParseFloat(m[2], 64)
			add("kernel Pegasos, PyTorch 1 thread", n, ns)
		}
	}); err != nil {
		return err
	}
	smo := map[string]*series{"SMO, nsvm": {Name: "SMO, nsvm"}, "svm-train": {Name: "svm-train"}}
	if err := eachLine(*smoOut, func(l string) {
		var r struct {
			N    int `json:"n_train"`
			Ours struct {
				Seconds float64 `json:"seconds"`
			} `json:"ours"`
			Lib *struct {
				Seconds float64 `json:"seconds"`
			} `json:"libsvm"`
		}
		if json.Unmarshal([]byte(l), &r) != nil || r.N == 0 {
			return
		}
		s := smo["SMO, nsvm"]
		s.X, s.Y = append(s.X, float64(r.N)), append(s.Y, r.Ours.Seconds)
		if r.Lib != nil && r.Lib.Seconds > 0 {
			s := smo["svm-train"]
			s.X, s.Y = append(s.X, float64(r.N)), append(s.Y, r.Lib.Seconds)
		}
	}); err != nil {
		return err
	}

	stepList, smoList := sorted(steps), sorted(smo)
	fmt.Fprintln(w, "time per step against the number of support vectors (d = 20, RBF)")
	printTable(w, "#SV", stepList, 1e6, "µs")
	fmt.Fprintln(w, "\nSMO training time against the number of training points (Ringnorm, γ = 0.05, C = 1)")
	printTable(w, "n", smoList, 1, "s")

	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(map[string]any{"steps": stepList, "smo": smoList}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "scaling.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := figure(filepath.Join(*out, "scaling_steps.svg"), "Time per step", "support vectors", "seconds per step", stepList); err != nil {
		return err
	}
	if err := figure(filepath.Join(*out, "scaling_smo.svg"), "SMO training time", "training points", "seconds", smoList); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nwrote scaling.json and scaling_{steps,smo}.{svg,png} in %s\n", *out)
	return nil
}

// eachLine calls f on every line of the file; an empty path does nothing.
func eachLine(path string, f func(string)) error {
	if path == "" {
		return nil
	}
	fh, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f(sc.Text())
	}
	return sc.Err()
}

func sorted(m map[string]*series) []*series {
	var l []*series
	for _, s := range m {
		if len(s.X) == 0 {
			continue
		}
		idx := make([]int, len(s.X))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return s.X[idx[a]] < s.X[idx[b]] })
		x, y := make([]float64, len(idx)), make([]float64, len(idx))
		for i, j := range idx {
			x[i], y[i] = s.X[j], s.Y[j]
		}
		s.X, s.Y = x, y
		l = append(l, s)
	}
	sort.Slice(l, func(a, b int) bool { return l[a].Name < l[b].Name })
	return l
}

// printTable prints one row per x with a column per series, plus the
// ratio of the first two series when there are two of the same x.
func printTable(w io.Writer, xname string, l []*series, scale float64, unit string) {
	xs := map[float64]bool{}
	for _, s := range l {
		for _, x := range s.X {
			xs[x] = true
		}
	}
	var keys []float64
	for x := range xs {
		keys = append(keys, x)
	}
	sort.Float64s(keys)
	fmt.Fprintf(w, "%8s", xname)
	for _, s := range l {
		fmt.Fprintf(w, "  %38s", s.Name+" ("+unit+")")
	}
	fmt.Fprintln(w)
	for _, x := range keys {
		fmt.Fprintf(w, "%8.0f", x)
		for _, s := range l {
			v := math.NaN()
			for i, sx := range s.X {
				if sx == x {
					v = s.Y[i] * scale
				}
			}
			if math.IsNaN(v) {
				fmt.Fprintf(w, "  %38s", "–")
			} else {
				fmt.Fprintf(w, "  %38.4g", v)
			}
		}
		fmt.Fprintln(w)
	}
}

var palette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, color.RGBA{0x94, 0x67, 0xbd, 0xff},
}

// figure draws the series on log–log axes.
func figure(path, title, xl, yl string, l []*series) error {
	if len(l) == 0 {
		return nil
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xl, yl
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	for i, s := range l {
		xy := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xy[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		line, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		c := palette[i%len(palette)]
		line.Color, line.Width = c, vg.Points(1.5)
		pts.Color = c
		p.Add(line, pts)
		p.Legend.Add(s.Name, line, pts)
	}
	if err := p.Save(6*vg.Inch, 4*vg.Inch, path); err != nil {
		return err
	}
	return p.Save(6*vg.Inch, 4*vg.Inch, strings.TrimSuffix(path, ".svg")+".png")
}
