package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeChurn writes a churn table of n rows: an identifier, a signup date
// (one of 700 days), a plan, a number and a label that depends on the
// tenure (days from the signup to 2023-01-01). A row from bad on holds
// the text bad in place of its date.
func writeChurn(t *testing.T, path string, n int, seed uint64, label bool) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	t0 := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	b.WriteString("customer,signup_date,plan,spend")
	if label {
		b.WriteString(",label")
	}
	b.WriteString("\n")
	for i := range n {
		day := rng.IntN(700)
		fmt.Fprintf(&b, "c%d-%d,%s,%s,%.2f", seed, i, t0.AddDate(0, 0, day).Format("2006-01-02"), []string{"basic", "pro"}[rng.IntN(2)], 20+10*rng.NormFloat64())
		if label {
			churn := 0
			if day > 450 {
				churn = 1
			}
			fmt.Fprintf(&b, ",%d", churn)
		}
		b.WriteString("\n")
	}
	writeFile(t, path, b.String())
}

// TestDateColumns: a column of dates trains as four numbers, with a
// notice, not as hundreds of categories or an identifier left out; info
// shows it, eval and predict encode new files' dates so, and a value that
// is not a date is an error naming its line and column.
func TestDateColumns(t *testing.T) {
	dir := t.TempDir()
	train, test, m := filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv"), filepath.Join(dir, "m.nsvm")
	writeChurn(t, train, 400, 1, true)
	writeChurn(t, test, 200, 2, true)
	_, errs, code := runCLI(t, "train", "--data", train, "--model", m, "--algo", "smo", "-C", "10")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "nsvm train: column signup_date holds dates (YYYY-MM-DD): 4 features (days since 1970-01-01, year, month, day of week)\n") ||
		strings.Contains(errs, "feature column signup_date") {
		t.Fatalf("train's notices:\n%s", errs)
	}
	info := mustRun(t, "info", m)
	if !strings.Contains(info, "signup_date (dates, YYYY-MM-DD: days since 1970-01-01, year, month, day of week)") || !strings.Contains(info, "7 values a row") {
		t.Fatalf("info:\n%s", info)
	}
	out := mustRun(t, "eval", "--model", m, "--data", test)
	if !strings.Contains(out, "accuracy") {
		t.Fatalf("eval:\n%s", out)
	}
	var acc float64
	for _, l := range strings.Split(out, "\n") {
		if _, err := fmt.Sscanf(l, "accuracy %f%%", &acc); err == nil {
			break
		}
	}
	if acc < 90 {
		t.Errorf("accuracy %.1f %% on a label the signup date decides:\n%s", acc, out)
	}
	unlabelled := filepath.Join(dir, "new.csv")
	writeChurn(t, unlabelled, 5, 3, false)
	if rows := strings.Split(strings.TrimSpace(mustRun(t, "predict", "--model", m, "--data", unlabelled)), "\n"); len(rows) != 5 {
		t.Fatalf("predict: %q", rows)
	}
	text, _ := os.ReadFile(unlabelled)
	lines := strings.Split(string(text), "\n")
	f := strings.Split(lines[2], ",")
	f[1] = "2022-02-30"
	lines[2] = strings.Join(f, ",")
	bad := filepath.Join(dir, "bad.csv")
	writeFile(t, bad, strings.Join(lines, "\n"))
	_, errs, code = runCLI(t, "predict", "--model", m, "--data", bad)
	if code != 1 || !strings.Contains(errs, `bad.csv:3: value "2022-02-30" in column "signup_date" is not a date (the model's column 1 holds dates, YYYY-MM-DD)`) {
		t.Fatalf("a date that is not one: exit %d, %q", code, errs)
	}
}

// TestPandasIndexColumn: the unnamed first column DataFrame.to_csv writes
// is left out with a notice, and files with it or without it predict
// alike.
func TestPandasIndexColumn(t *testing.T) {
	dir := t.TempDir()
	frame, m := filepath.Join(dir, "frame.csv"), filepath.Join(dir, "m.nsvm")
	with, without := filepath.Join(dir, "with.csv"), filepath.Join(dir, "without.csv")
	rng := rand.New(rand.NewPCG(5, 6))
	var b, w, wo strings.Builder
	b.WriteString(",x1,x2,label\n")
	w.WriteString(",x1,x2\n")
	wo.WriteString("x1,x2\n")
	for i := range 200 {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		y := 0
		if x1+x2 > 0 {
			y = 1
		}
		fmt.Fprintf(&b, "%d,%.4f,%.4f,%d\n", i, x1, x2, y)
		if i < 10 {
			fmt.Fprintf(&w, "%d,%.4f,%.4f\n", i, x1, x2)
			fmt.Fprintf(&wo, "%.4f,%.4f\n", x1, x2)
		}
	}
	writeFile(t, frame, b.String())
	writeFile(t, with, w.String())
	writeFile(t, without, wo.String())
	_, errs, code := runCLI(t, "train", "--data", frame, "--model", m, "--algo", "smo", "-C", "1")
	if code != 0 || !strings.Contains(errs, "nsvm train: the first column, unnamed and holding 0…N−1, is a pandas index: left out\n") || strings.Contains(errs, "different texts") {
		t.Fatalf("train: exit %d:\n%s", code, errs)
	}
	if info := mustRun(t, "info", m); !strings.Contains(info, "column 0 (left out: a pandas index), x1, x2") || !strings.Contains(info, "2 values a row") {
		t.Fatalf("info:\n%s", info)
	}
	a := mustRun(t, "predict", "--model", m, "--data", with)
	c := mustRun(t, "predict", "--model", m, "--data", without)
	if a != c || strings.Count(a, "\n") != 10 {
		t.Fatalf("with the index:\n%s\nwithout:\n%s", a, c)
	}
	if _, errs, _ := runCLI(t, "predict", "--model", m, "--data", with); strings.Contains(errs, "ignored") {
		t.Errorf("predict with the index: %s", errs)
	}
}
