package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	_ "gonum.org/v1/plot/vg/vgimg" // png
	_ "gonum.org/v1/plot/vg/vgpdf" // pdf
	_ "gonum.org/v1/plot/vg/vgsvg" // svg

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/report"
)

const plotUsage = `plot --log FILE --out curves.png
       nsvm plot --model M --data FILE --out boundary.png`

func (e *env) plot(args []string) error {
	var df dataFlags
	var logPath, model, out string
	var width, height, grid int
	fs := e.newFlags("plot", plotUsage)
	df.Register(fs)
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
	if err := checkOutputs("plot", []file{{"--out", out}}, []file{{"--log", logPath}, {"--model", model}, {"--data", df.Path}, {"--labels", df.Labels}}); err != nil {
		return err
	}
	err := checkWritable(out, "image")
	if err != nil {
		return err
	}
	var img *report.Figure
	var summary string
	if logPath != "" {
		img, summary, err = curves(logPath, width, height)
	} else {
		var m *nsvm.Model
		var ds *data.Dataset
		if m, ds, err = e.loadFor("plot", model, &df); err != nil {
			return err
		}
		title := fmt.Sprintf("%s on %s: decision function g", m.Algorithm, filepath.Base(df.Path))
		img, summary, err = report.Boundary(m, ds, title, width, height, grid)
	}
	if err != nil {
		return fmt.Errorf("nsvm plot: %w", errmsg.Strip(err))
	}
	var buf bytes.Buffer
	if err := img.Encode(&buf, format); err != nil {
		return fmt.Errorf("nsvm plot: %w", errmsg.Strip(err))
	}
	if err := writeAtomicContext(e.ctx, out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %s\n", out, summary)
	return nil
}

// curves draws the training curves of the log file at path.
func curves(path string, width, height int) (*report.Figure, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	recs, err := report.ReadLog(f, path)
	if err != nil {
		return nil, "", err
	}
	img, summary, err := report.Curves(recs, width, height)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, errmsg.Strip(err))
	}
	return img, summary, nil
}
