package data

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestParseDates: the features of dates and timestamps in every format,
// against the time package's; values that are no date are refused.
func TestParseDates(t *testing.T) {
	day := func(y, m, d, h, mi, s, ns int, off int) time.Time {
		return time.Date(y, time.Month(m), d, h, mi, s, ns, time.FixedZone("", off))
	}
	cases := []struct {
		s, format string
		want      time.Time
	}{
		{"2024-03-05", "YYYY-MM-DD", day(2024, 3, 5, 0, 0, 0, 0, 0)},
		{"2024-03-05T14:30:00", "YYYY-MM-DD", day(2024, 3, 5, 14, 30, 0, 0, 0)},
		{"2024-03-05 14:30", "YYYY-MM-DD", day(2024, 3, 5, 14, 30, 0, 0, 0)},
		{"2024-03-05T14:30:00Z", "YYYY-MM-DD", day(2024, 3, 5, 14, 30, 0, 0, 0)},
		{"2024-03-05T14:30:00.25+02:00", "YYYY-MM-DD", day(2024, 3, 5, 14, 30, 0, 250e6, 2*3600)},
		{"2024-03-05 23:30:00-0500", "YYYY-MM-DD", day(2024, 3, 5, 23, 30, 0, 0, -5*3600)},
		{"2024-03-05 14:30:00+00:00", "YYYY-MM-DD", day(2024, 3, 5, 14, 30, 0, 0, 0)},
		{"1969-12-31T18:00:00", "YYYY-MM-DD", day(1969, 12, 31, 18, 0, 0, 0, 0)},
		{"2024-02-29", "YYYY-MM-DD", day(2024, 2, 29, 0, 0, 0, 0, 0)},
		{"2024/3/5", "YYYY/MM/DD", day(2024, 3, 5, 0, 0, 0, 0, 0)},
		{"05/03/2024", "DD/MM/YYYY", day(2024, 3, 5, 0, 0, 0, 0, 0)},
		{"03/05/2024 08:15:30", "MM/DD/YYYY", day(2024, 3, 5, 8, 15, 30, 0, 0)},
		{"5.3.2024", "DD.MM.YYYY", day(2024, 3, 5, 0, 0, 0, 0, 0)},
	}
	for _, c := range cases {
		got, ok := dateOf(c.s, c.format)
		u := c.want.UTC()
		days := float64(u.Unix())/86400 + float64(u.Nanosecond())/86400e9
		want := [DateWidth]float64{days, float64(u.Year()), float64(u.Month()), float64((int(u.Weekday()) + 6) % 7)}
		if !ok || math.Abs(got[0]-want[0]) > 1e-9 || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
			t.Errorf("%s (%s): %v, %v; want %v", c.s, c.format, got, ok, want)
		}
	}
	// 2024-03-05 is a Tuesday, 19787 days after 1970-01-01.
	if v, _ := dateOf("2024-03-05", "YYYY-MM-DD"); v != [DateWidth]float64{19787, 2024, 3, 1} {
		t.Errorf("2024-03-05: %v", v)
	}
	// An offset moves the instant, and with it the calendar fields (UTC).
	if v, _ := dateOf("2024-03-05T23:30:00-05:00", "YYYY-MM-DD"); v[0] != 19788+4.5/24 || v[3] != 2 {
		t.Errorf("2024-03-05T23:30:00-05:00: %v", v)
	}
	for _, s := range []string{"2024-02-30", "2023-02-29", "2024-13-01", "2024-00-10", "2024-03-05T24:00", "2024-03-05T12:60",
		"2024-03-05T12", "2024-03-05X", "2024-03-05 12:00 PM", "24-03-05", "2024-03-05+01", "20240305", "2024-03", "2024-03-05T1:00"} {
		if v, ok := dateOf(s, "YYYY-MM-DD"); ok {
			t.Errorf("%q parsed as %v", s, v)
		}
	}
	if _, ok := dateOf("2024/03/05", "YYYY-MM-DD"); ok {
		t.Errorf("2024/03/05 parsed in YYYY-MM-DD")
	}
	if _, ok := dateOf("2024-03-05", "DD-MM-YYYY"); ok {
		t.Errorf("2024-03-05 parsed in DD-MM-YYYY")
	}
}

// TestDetectDates: a column is of dates when every value but the missing
// ones is a date in one format; day and month only when a value tells
// their order.
func TestDetectDates(t *testing.T) {
	cases := []struct {
		vals []string
		want string
	}{
		{[]string{"2024-03-05", "2023-12-31"}, "YYYY-MM-DD"},
		{[]string{"2024-03-05", "", "NA", "2023-12-31T08:00:00Z"}, "YYYY-MM-DD"},
		{[]string{"2024/03/05", "2024/12/31 10:00"}, "YYYY/MM/DD"},
		{[]string{"03/05/2024", "04/06/2024"}, ""}, // which is the day?
		{[]string{"03/05/2024", "13/06/2024"}, "DD/MM/YYYY"},
		{[]string{"03/05/2024", "06/13/2024"}, "MM/DD/YYYY"},
		{[]string{"13/05/2024", "06/13/2024"}, ""}, // both orders
		{[]string{"31.12.2023", "1.2.2024"}, "DD.MM.YYYY"},
		{[]string{"2024-03-05", "2024/03/06"}, ""},
		{[]string{"2024-03-05", "05-03-2024"}, ""},
		{[]string{"2024-03-05", "soon"}, ""},
		{[]string{"2024-02-30"}, ""},
		{[]string{"", "NA"}, ""},
		{[]string{"red", "blue"}, ""},
		{[]string{"1.5.2.2024"}, ""},
	}
	for _, c := range cases {
		if got := detectDates(c.vals); got != c.want {
			t.Errorf("%q: %q; want %q", c.vals, got, c.want)
		}
	}
}

// churnText is a table of n rows: an identifier, a signup date (ISO, or
// in layout), a plan, a number and a label.
func churnText(n int, layout string) string {
	var b strings.Builder
	b.WriteString("customer,signup_date,plan,spend,label\n")
	t0 := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		d := t0.AddDate(0, 0, (i*37)%700).Format(layout)
		fmt.Fprintf(&b, "c%05d,%s,%s,%d,%d\n", i, d, []string{"basic", "pro"}[i%2], i%13, i%2)
	}
	return b.String()
}

// TestCSVDates: a column of dates, even one of a different date in most
// rows, becomes four numbers (with a notice), not hundreds of categories
// nor an identifier left out; read with the columns, its dates are
// encoded so, and one that is not a date is an error naming its line and
// column.
func TestCSVDates(t *testing.T) {
	text := churnText(600, "2006-01-02")
	for _, how := range []string{"ReadCSV", "Open"} {
		var ds *Dataset
		var err error
		if how == "ReadCSV" {
			ds, err = ReadCSV(strings.NewReader(text), "churn.csv", CSVOptions{})
		} else {
			path := filepath.Join(t.TempDir(), "churn.csv")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			ds, err = Open(path, OpenOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		want := []Column{{Name: "customer", Dropped: true, Distinct: 600}, {Name: "signup_date", Dates: "YYYY-MM-DD"},
			{Name: "plan", Categories: []string{"basic", "pro"}}, {Name: "spend"}}
		if ds.D != 7 || fmt.Sprint(ds.Columns) != fmt.Sprint(want) {
			t.Fatalf("%s: D %d, columns %+v", how, ds.D, ds.Columns)
		}
		// Row 1: 2021-01-01 + 37 days = 2021-02-07, a Sunday.
		if got := ds.Row(1); !slices.Equal(got, []float32{18665, 2021, 2, 6, 0, 1, 1}) {
			t.Fatalf("%s: row 1 %v", how, got)
		}
		note := "column signup_date holds dates (YYYY-MM-DD): 4 features (days since 1970-01-01, year, month, day of week)"
		if !slices.Contains(ds.Notices, note) {
			t.Fatalf("%s: notices %q", how, ds.Notices)
		}
	}
	ds, _ := ReadCSV(strings.NewReader(text), "churn.csv", CSVOptions{})

	// New data read with the model's columns: timestamps and offsets in
	// the column's format, no label column.
	p, err := ReadCSV(strings.NewReader("customer,signup_date,plan,spend\nx,2021-02-07T12:00:00+12:00,pro,3\ny,2021-02-07,basic,4\n"), "new.csv",
		CSVOptions{Columns: ds.Columns})
	if err != nil {
		t.Fatal(err)
	}
	if p.Y != nil || !slices.Equal(p.Row(0), []float32{18665, 2021, 2, 6, 0, 1, 3}) || !slices.Equal(p.Row(1), []float32{18665, 2021, 2, 6, 1, 0, 4}) {
		t.Fatalf("read with the columns: Y %v, rows %v %v", p.Y, p.Row(0), p.Row(1))
	}
	_, err = ReadCSV(strings.NewReader("customer,signup_date,plan,spend\nx,2021-02-07,pro,3\ny,07/02/2021,basic,4\n"), "new.csv", CSVOptions{Columns: ds.Columns})
	if err == nil || !strings.Contains(err.Error(), `new.csv:3: value "07/02/2021" in column "signup_date" is not a date (the model's column 1 holds dates, YYYY-MM-DD)`) {
		t.Fatalf("a value that is not a date: %v", err)
	}
	_, err = ReadCSV(strings.NewReader("customer,signup_date,plan,spend\nx,,pro,3\n"), "new.csv", CSVOptions{Columns: ds.Columns})
	var me *MissingValueError
	if !errors.As(err, &me) || !me.Dates || me.Line != 2 || me.Column != "signup_date" || !strings.Contains(err.Error(), "a column of dates") {
		t.Fatalf("a missing date with the columns: %v", err)
	}

	// Day and month in an order no value tells: categories, as before.
	var ab strings.Builder
	for i, line := range strings.Split(strings.TrimSpace(churnText(40, "01/02/2006")), "\n") {
		if i > 0 {
			f := strings.Split(line, ",")
			f[1] = fmt.Sprintf("%02d/%02d/2021", 1+i%12, 1+i%12)
			line = strings.Join(f, ",")
		}
		ab.WriteString(line + "\n")
	}
	ads, err := ReadCSV(strings.NewReader(ab.String()), "amb.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := ads.Columns[1]; c.Dates != "" || len(c.Categories) != 12 {
		t.Fatalf("ambiguous day and month: %+v", c)
	}
	// The same with a day after the 12th: dates, day first.
	dmy, err := ReadCSV(strings.NewReader(churnText(600, "02/01/2006")), "dmy.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := dmy.Columns[1]; c.Dates != "DD/MM/YYYY" || !slices.Equal(dmy.Row(1), ds.Row(1)) {
		t.Fatalf("day first: %+v, row %v", c, dmy.Row(1))
	}
}

// TestCSVMissingDates: a missing date is an error naming its line and
// column, unless FillMissing, which fills each of the date's features with
// its mean over the other rows.
func TestCSVMissingDates(t *testing.T) {
	text := "d,x,label\n2024-01-01,1,0\n2024-01-03,2,1\nNA,3,0\n2024-01-05T12:00:00,4,1\n"
	_, err := ReadCSV(strings.NewReader(text), "m.csv", CSVOptions{})
	var me *MissingValueError
	if !errors.As(err, &me) || me.Line != 4 || me.Column != "d" || me.Value != "NA" || !me.Dates {
		t.Fatalf("missing date: %v", err)
	}
	if want := `data: m.csv:4: missing value "NA" in column "d", a column of dates`; err.Error() != want {
		t.Fatalf("missing date: %q; want %q", err, want)
	}
	// A missing value before the first date.
	_, err = ReadCSV(strings.NewReader("d,x,label\n,1,0\n2024-01-03,2,1\n"), "m.csv", CSVOptions{})
	if !errors.As(err, &me) || me.Line != 2 || me.Value != "" {
		t.Fatalf("missing date first: %v", err)
	}
	ds, err := ReadCSV(strings.NewReader(text), "m.csv", CSVOptions{FillMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	// 2024-01-01 is day 19723, a Monday; -03 a Wednesday, -05 a Friday.
	days := (19723 + 19725 + 19727.5) / 3
	fill := []float64{float64(float32(days)), 2024, 1, float64(float32(2.0))}
	c := ds.Columns[0]
	if c.Dates != "YYYY-MM-DD" || !slices.Equal(c.DateFill, fill) {
		t.Fatalf("filled: %+v; want fill %v", c, fill)
	}
	if got := ds.Row(2); !slices.Equal(got, []float32{float32(days), 2024, 1, 2, 3}) {
		t.Fatalf("filled row %v", got)
	}
	// Read with the columns, a missing date takes the fill, as EncodeRow
	// gives it.
	p, err := ReadCSV(strings.NewReader("d,x\n?,7\n"), "p.csv", CSVOptions{Columns: ds.Columns})
	if err != nil {
		t.Fatal(err)
	}
	row := make([]float32, Width(ds.Columns))
	if err := EncodeRow(ds.Columns, []string{"?", "7"}, row); err != nil || !slices.Equal(p.Row(0), row) || row[0] != float32(days) {
		t.Fatalf("fill with the columns: %v, EncodeRow %v (%v)", p.Row(0), row, err)
	}
}

// TestCSVMixedDates: a column of dates of one format but for a few values
// in another is an error naming the first such value and its row, not a
// column of texts left out as an identifier; a column of texts, or one
// with as many values of each format, is no such error.
func TestCSVMixedDates(t *testing.T) {
	var b strings.Builder
	b.WriteString("when,x,label\n")
	for i := range 40 {
		d := fmt.Sprintf("2024-%02d-%02d", i%12+1, i%28+1)
		if i == 30 {
			d = "10/22/2024"
		}
		fmt.Fprintf(&b, "%s,%d,%d\n", d, i, i%2)
	}
	_, err := ReadCSV(strings.NewReader(b.String()), "d.csv", CSVOptions{})
	const want = `data: d.csv: value "10/22/2024" in column "when" (row 31) is not a date of the format of the column's other values (YYYY-MM-DD); write every date of a column in one format`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v; want %q", err, want)
	}
	b.Reset()
	b.WriteString("when,x,label\n")
	for i := range 40 {
		d := fmt.Sprintf("2024-%02d-%02d", i%12+1, i%28+1)
		if i%2 == 1 {
			d = fmt.Sprintf("%02d/%02d/2024", i%12+1, i%28+1)
		}
		fmt.Fprintf(&b, "%s,%d,%d\n", d, i, i%2)
	}
	if _, err := ReadCSV(strings.NewReader(b.String()), "d.csv", CSVOptions{}); err != nil {
		t.Fatalf("half in each format: %v", err)
	}
}

// TestEncodeRowDates: EncodeRow encodes a date as a file read with the
// columns does; a value that is not a date, or a missing one without a
// fill, is an error naming the column.
func TestEncodeRowDates(t *testing.T) {
	cols := []Column{{Name: "when", Dates: "YYYY-MM-DD"}, {Name: "x"}}
	row := make([]float32, 5)
	if err := EncodeRow(cols, []string{"2024-03-05 06:00", "2"}, row); err != nil || !slices.Equal(row, []float32{19787.25, 2024, 3, 1, 2}) {
		t.Fatalf("row %v, %v", row, err)
	}
	for v, want := range map[string]string{
		"05/03/2024": `data: column "when": "05/03/2024" is not a date (YYYY-MM-DD)`,
		"":           `data: column "when": missing date "", and the model has no fill for it`,
	} {
		if err := EncodeRow(cols, []string{v, "2"}, row); err == nil || err.Error() != want {
			t.Errorf("%q: %v; want %s", v, err, want)
		}
	}
}

// TestPandasIndex: the unnamed first column DataFrame.to_csv writes,
// holding 0…N−1, is left out with a notice; files with it or without it
// read alike with the columns. An unnamed column of other numbers, or a
// named one, stays a feature.
func TestPandasIndex(t *testing.T) {
	var b strings.Builder
	b.WriteString(",age,colour,label\n")
	for i := range 50 {
		fmt.Fprintf(&b, "%d,%d,%s,%d\n", i, 20+i%40, []string{"red", "blue"}[i%2], i%2)
	}
	text := b.String()
	path := filepath.Join(t.TempDir(), "frame.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"ReadCSV", "Open"} {
		var ds *Dataset
		var err error
		if how == "ReadCSV" {
			ds, err = ReadCSV(strings.NewReader(text), "frame.csv", CSVOptions{})
		} else {
			ds, err = Open(path, OpenOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		want := []Column{{Dropped: true, RowIndex: true}, {Name: "age"}, {Name: "colour", Categories: []string{"blue", "red"}}}
		if ds.D != 3 || fmt.Sprint(ds.Columns) != fmt.Sprint(want) || !slices.Equal(ds.Row(3), []float32{23, 1, 0}) {
			t.Fatalf("%s: D %d, columns %+v, row 3 %v", how, ds.D, ds.Columns, ds.Row(3))
		}
		if !slices.Contains(ds.Notices, "the first column, unnamed and holding 0…N−1, is a pandas index: left out") {
			t.Fatalf("%s: notices %q", how, ds.Notices)
		}
	}
	ds, _ := ReadCSV(strings.NewReader(text), "frame.csv", CSVOptions{})
	with, err := ReadCSV(strings.NewReader(",age,colour\n0,33,blue\n1,41,red\n"), "with.csv", CSVOptions{Columns: ds.Columns})
	if err != nil {
		t.Fatal(err)
	}
	without, err := ReadCSV(strings.NewReader("age,colour\n33,blue\n41,red\n"), "without.csv", CSVOptions{Columns: ds.Columns})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(with.X, without.X) || !slices.Equal(with.X, []float32{33, 1, 0, 41, 0, 1}) || with.Notices != nil {
		t.Fatalf("with the index %v (%q), without %v", with.X, with.Notices, without.X)
	}
	row := make([]float32, 3)
	if err := EncodeRow(ds.Columns, []string{"", "33", "blue"}, row); err != nil || !slices.Equal(row, []float32{33, 1, 0}) {
		t.Fatalf("EncodeRow: %v, %v", row, err)
	}

	// An unnamed first column of other numbers, or a named index: features.
	for _, other := range []string{
		strings.Replace(text, "\n7,", "\n8,", 1),
		strings.Replace(text, ",age,", "id,age,", 1),
		strings.Replace(text, "\n0,", "\n1,", 1),
	} {
		ds, err := ReadCSV(strings.NewReader(other), "other.csv", CSVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ds.D != 4 || ds.Columns[0].Dropped {
			t.Fatalf("not an index: D %d, columns %+v", ds.D, ds.Columns)
		}
	}
}
