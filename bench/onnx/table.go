package main

import (
	"fmt"
	"io"
	"strings"
)

// printTables prints the results as Markdown tables: per kind with
// standard operators; standard against ai.onnx.ml operators; Chromium.
func printTables(w io.Writer, c *config, rs []*result) {
	fmt.Fprintf(w, "\nEvery kind on its held-out rows, the ONNX graph (standard operators) in onnxruntime-node against nsvm predict;\n"+
		"throughput on %d rows (the held-out rows repeated): ONNX Runtime in batches of %d rows, nsvm predict (read, predict, write),\n"+
		"and nsvm's library (PredictDataset on rows in memory).\n\n", c.rows, c.batch)
	fmt.Fprintln(w, "| kind | data (train/test rows) | ONNX size | labels agree | max Δ decision | max Δ probability | max rel. Δ value | ORT rows/s | nsvm predict rows/s | library rows/s |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %s (%d/%d) | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Name, r.Data, r.TrainRows, r.TestRows,
			size(r.Size), labels(r, &r.Std), diff(r.Std.MaxScore, r), prob(r, &r.Std), value(r, &r.Std),
			rate(r.ORT), rate(r.Predict), rate(r.Library))
	}
	fmt.Fprintln(w, "\nStandard operators against ai.onnx.ml's (SVMClassifier, SVMRegressor, LinearRegressor), both in onnxruntime-node:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Decision values' largest error against float64 arithmetic on the model's features (relative to max(1, |g|)).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| kind | size standard | size ai.onnx.ml | ORT rows/s standard | ORT rows/s ai.onnx.ml | ai.onnx.ml labels agree | error: nsvm predict | error: standard | error: ai.onnx.ml |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		if r.ML == nil {
			fmt.Fprintf(w, "| %s | %s | — | %s | — | %s | %.1e | %.1e | — |\n", r.Name, size(r.Size), rate(r.ORT),
				strings.TrimPrefix(r.MLRefused, "nsvm export: "), r.Err[0], r.Err[1])
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %.1e | %.1e | %.1e |\n", r.Name, size(r.Size), size(r.SizeML), rate(r.ORT), rate(r.ORTML),
			labels(r, r.ML), r.Err[0], r.Err[1], r.Err[2])
	}
	var notes []string
	for _, r := range rs {
		for _, n := range r.Notes {
			notes = append(notes, r.ID+", "+n)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range notes {
			fmt.Fprintln(w, "- "+n)
		}
	}
	var web []*result
	for _, r := range rs {
		if r.Web != nil {
			web = append(web, r)
		}
	}
	if len(web) > 0 {
		fmt.Fprintln(w, "\nIn headless Chromium, onnxruntime-web's wasm backend, against nsvm predict:")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| kind | labels agree | max Δ decision | max Δ probability | max rel. Δ value |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
		for _, r := range web {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", r.Name, labels(r, r.Web), diff(r.Web.MaxScore, r), prob(r, r.Web), value(r, r.Web))
		}
	}
}

func size(b int64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%.1f KB", float64(b)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(b)/(1<<20))
}

func labels(r *result, a *agreement) string {
	if a.Rows == 0 {
		return "—"
	}
	if r.Regression {
		return "—"
	}
	s := fmt.Sprintf("%d/%d", a.Agree, a.Rows)
	if a.Near > 0 {
		s += fmt.Sprintf(" (+%d at a boundary)", a.Near)
	}
	return s
}

func diff(v float64, r *result) string {
	if r.Regression {
		return "—"
	}
	return fmt.Sprintf("%.1e", v)
}

func prob(r *result, a *agreement) string {
	if !r.Calibrated {
		return "—"
	}
	return fmt.Sprintf("%.1e", a.MaxProb)
}

func value(r *result, a *agreement) string {
	if !r.Regression {
		return "—"
	}
	return fmt.Sprintf("%.1e", a.MaxValue)
}

func rate(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2f M", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0f k", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
