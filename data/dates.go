package data

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Columns of dates. A text column whose every value (but the missing ones)
// is a date, or a date and a time, in one format is read as four numbers
// instead of one 0/1 feature per distinct date (see Column.Dates):
//
//	days since 1970-01-01 (fractional with a time of day), year, month
//	(1–12), day of the week (0 Monday … 6 Sunday)
//
// A value with an offset (Z, +02:00, -0500) is the instant it names; one
// without is read as UTC; the calendar fields are those of the instant in
// UTC.

// DateWidth is the number of features a column of dates makes.
const DateWidth = 4

// DateFeatures names the features of a column of dates, in their order.
var DateFeatures = [DateWidth]string{"days since 1970-01-01", "year", "month", "day of week"}

// The formats of dates (Column.Dates). Each may be followed by a time of
// day, after a 'T' or a space: hh:mm, hh:mm:ss or hh:mm:ss.fff…, then
// optionally Z or an offset ±hh, ±hhmm, ±hh:mm. Day and month may have one
// digit or two; the year has four.
var dateFormats = []string{
	"YYYY-MM-DD", // ISO 8601
	"YYYY/MM/DD",
	"YYYY.MM.DD",
	"DD/MM/YYYY",
	"MM/DD/YYYY",
	"DD-MM-YYYY",
	"MM-DD-YYYY",
	"DD.MM.YYYY",
}

// dateFormat is a format of dateFormats, parsed: the order of the fields
// and their separator.
type dateFormat struct {
	order string // "ymd", "dmy" or "mdy"
	sep   byte
}

// parseDateFormat returns the dateFormat of a name of dateFormats.
func parseDateFormat(name string) (dateFormat, bool) {
	if !slices.Contains(dateFormats, name) {
		return dateFormat{}, false
	}
	f := dateFormat{sep: name[2]}
	switch {
	case name[0] == 'Y':
		f.order, f.sep = "ymd", name[4]
	case name[0] == 'D':
		f.order = "dmy"
	default:
		f.order = "mdy"
	}
	return f, true
}

// dateFields splits the date part of s, three runs of digits separated by
// sep (the year's of four digits, the others of one or two), from what
// follows. ok is false when s does not start so.
func dateFields(s string, sep byte) (a, b, c int, rest string, yearFirst, ok bool) {
	var runs [3]int
	var lens [3]int
	i := 0
	for r := range 3 {
		if r > 0 {
			if i >= len(s) || s[i] != sep {
				return 0, 0, 0, "", false, false
			}
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && i-start < 4 {
			runs[r] = 10*runs[r] + int(s[i]-'0')
			i++
		}
		lens[r] = i - start
		if lens[r] == 0 || i < len(s) && s[i] >= '0' && s[i] <= '9' {
			return 0, 0, 0, "", false, false
		}
	}
	switch {
	case lens[0] == 4 && lens[1] <= 2 && lens[2] <= 2:
		yearFirst = true
	case lens[2] == 4 && lens[0] <= 2 && lens[1] <= 2:
	default:
		return 0, 0, 0, "", false, false
	}
	return runs[0], runs[1], runs[2], s[i:], yearFirst, true
}

// parseTime parses what may follow a date: nothing, or 'T' or a space,
// hh:mm[:ss[.fff…]], then Z or an offset. It returns the time of day in
// nanoseconds and the offset from UTC in seconds.
func parseTime(s string) (ns int64, offset int, ok bool) {
	if s == "" {
		return 0, 0, true
	}
	if s[0] != 'T' && s[0] != 't' && s[0] != ' ' {
		return 0, 0, false
	}
	s = s[1:]
	num := func(n int) (int, bool) {
		if len(s) < n {
			return 0, false
		}
		v := 0
		for i := range n {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			v = 10*v + int(s[i]-'0')
		}
		s = s[n:]
		return v, true
	}
	colon := func() bool {
		if s != "" && s[0] == ':' {
			s = s[1:]
			return true
		}
		return false
	}
	h, ok1 := num(2)
	if !ok1 || !colon() {
		return 0, 0, false
	}
	m, ok2 := num(2)
	if !ok2 || h > 23 || m > 59 {
		return 0, 0, false
	}
	sec, frac := 0, int64(0)
	if colon() {
		var ok3 bool
		if sec, ok3 = num(2); !ok3 || sec > 59 {
			return 0, 0, false
		}
		if s != "" && (s[0] == '.' || s[0] == ',') {
			s = s[1:]
			n := 0
			for n < len(s) && s[n] >= '0' && s[n] <= '9' {
				if n < 9 {
					frac = 10*frac + int64(s[n]-'0')
				}
				n++
			}
			if n == 0 {
				return 0, 0, false
			}
			for k := n; k < 9; k++ {
				frac *= 10
			}
			s = s[n:]
		}
	}
	ns = (int64(h)*3600+int64(m)*60+int64(sec))*1e9 + frac
	switch {
	case s == "":
		return ns, 0, true
	case s == "Z" || s == "z":
		return ns, 0, true
	case s[0] != '+' && s[0] != '-':
		return 0, 0, false
	}
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	s = s[1:]
	oh, ok4 := num(2)
	if !ok4 || oh > 23 {
		return 0, 0, false
	}
	om := 0
	if s != "" {
		colon()
		var ok5 bool
		if om, ok5 = num(2); !ok5 || om > 59 || s != "" {
			return 0, 0, false
		}
	}
	return ns, sign * (oh*3600 + om*60), true
}

// parseDate parses s in the format f: the instant it names.
func parseDate(s string, f dateFormat) (time.Time, bool) {
	a, b, c, rest, yearFirst, ok := dateFields(s, f.sep)
	if !ok || yearFirst != (f.order == "ymd") {
		return time.Time{}, false
	}
	y, m, d := a, b, c
	switch f.order {
	case "dmy":
		y, m, d = c, b, a
	case "mdy":
		y, m, d = c, a, b
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return time.Time{}, false
	}
	ns, offset, ok := parseTime(rest)
	if !ok {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return t.Add(time.Duration(ns) - time.Duration(offset)*time.Second), true
}

// daysIn returns the number of days of month m of year y.
func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// dateValues returns the features of the instant t (see DateFeatures).
func dateValues(t time.Time) [DateWidth]float64 {
	days := float64(t.Unix())/86400 + float64(t.Nanosecond())/86400e9
	return [DateWidth]float64{days, float64(t.Year()), float64(t.Month()), float64((int(t.Weekday()) + 6) % 7)}
}

// dateOf returns the features of s, a date in the format named format.
func dateOf(s, format string) ([DateWidth]float64, bool) {
	f, ok := parseDateFormat(format)
	if !ok {
		return [DateWidth]float64{}, false
	}
	t, ok := parseDate(s, f)
	if !ok {
		return [DateWidth]float64{}, false
	}
	return dateValues(t), true
}

// detectDates returns the format (a name of dateFormats) in which every
// value of vals, missing ones apart, is a date, or "" when there is none:
// no value but missing ones, a value not a date, values in two formats,
// or day and month whose order no value tells (03/05/2024 with no day
// after the 12th).
func detectDates(vals []string) string {
	var sep byte
	yearFirst, seen := false, false
	dayFirst, monthFirst := false, false // a first (second) field > 12 somewhere
	for _, s := range vals {
		if s == "" || isMissing(s) {
			continue
		}
		if !seen {
			i := strings.IndexAny(s, "-/.")
			if i < 0 {
				return ""
			}
			sep = s[i]
		}
		a, b, _, rest, yf, ok := dateFields(s, sep)
		if !ok || seen && yf != yearFirst {
			return ""
		}
		if _, _, ok := parseTime(rest); !ok {
			return ""
		}
		seen, yearFirst = true, yf
		if !yf {
			dayFirst = dayFirst || a > 12
			monthFirst = monthFirst || b > 12
		}
	}
	if !seen {
		return ""
	}
	var name string
	switch {
	case yearFirst:
		name = fmt.Sprintf("YYYY%cMM%cDD", sep, sep)
	case dayFirst == monthFirst:
		return "" // both orders, or neither told
	case dayFirst:
		name = fmt.Sprintf("DD%cMM%cYYYY", sep, sep)
	default:
		name = fmt.Sprintf("MM%cDD%cYYYY", sep, sep)
	}
	f, ok := parseDateFormat(name)
	if !ok {
		return ""
	}
	for _, s := range vals {
		if s == "" || isMissing(s) {
			continue
		}
		if _, ok := parseDate(s, f); !ok {
			return ""
		}
	}
	return name
}

// mostlyDates returns, for a column whose n values (value(r), each a name
// of names) are not all dates of one format (detectDates), the format of
// dateFormats in which most of them are (nine in ten, of at least 20
// rows, missing ones counted as dates) and the first row whose value is
// neither such a date nor missing; "" and −1 when no format holds that
// many.
func mostlyDates(names []string, n int, value func(r int) string) (string, int) {
	best, most := "", 0
	for _, name := range dateFormats {
		f, _ := parseDateFormat(name)
		ok := make(map[string]bool, len(names))
		dates := 0
		for _, s := range names {
			_, date := parseDate(s, f)
			ok[s] = date || s == "" || isMissing(s)
			if date {
				dates++
			}
		}
		if dates == 0 {
			continue // a column of texts: no row to count
		}
		k := 0
		for r := range n {
			if ok[value(r)] {
				k++
			}
		}
		if k > most {
			best, most = name, k
		}
	}
	if most == n || !mostlyNumbers(most, n) {
		return "", -1
	}
	f, _ := parseDateFormat(best)
	for r := range n {
		s := value(r)
		if _, date := parseDate(s, f); !date && s != "" && !isMissing(s) {
			return best, r
		}
	}
	return "", -1
}

// dateCodes interns the values of a column of dates as a reader meets
// them: a row holds its value's code, which stands for the value's
// features (vals; NaN for a missing value).
type dateCodes struct {
	format string
	idx    map[string]int
	vals   [][DateWidth]float32
}

// code returns the code of s, parsing it if it is new; ok is false when s
// is neither a date of the format nor missing (missing: "", NA, ?, …).
func (dc *dateCodes) code(s string) (int, bool) {
	if k, ok := dc.idx[s]; ok {
		return k, true
	}
	var v [DateWidth]float32
	if s == "" || isMissing(s) {
		v = nanDate()
	} else {
		f, ok := dateOf(s, dc.format)
		if !ok {
			return 0, false
		}
		v = toFloat32(f)
	}
	if dc.idx == nil {
		dc.idx = map[string]int{}
	}
	k := len(dc.vals)
	dc.idx[s] = k
	dc.vals = append(dc.vals, v)
	return k, true
}

// nanDate is the features of a missing date.
func nanDate() [DateWidth]float32 {
	nan := float32(math.NaN())
	return [DateWidth]float32{nan, nan, nan, nan}
}

func toFloat32(v [DateWidth]float64) [DateWidth]float32 {
	var f [DateWidth]float32
	for i, x := range v {
		f[i] = float32(x)
	}
	return f
}

// isMissingDate reports whether features are those of a missing date.
func isMissingDate(v [DateWidth]float32) bool { return v[0] != v[0] }

// fillDates replaces the features of missing dates among vals with fill
// (Column.DateFill).
func fillDates(vals [][DateWidth]float32, fill []float64) {
	for i := range vals {
		if isMissingDate(vals[i]) {
			for j := range vals[i] {
				vals[i][j] = float32(fill[j])
			}
		}
	}
}

// CheckColumns returns an error when one of cols is not a column the
// readers make: a format of dates they do not know, a DateFill of other
// than DateWidth values, a column both of categories and of dates. A
// model's columns are checked so when it is loaded.
func CheckColumns(cols []Column) error {
	for k, c := range cols {
		switch {
		case c.Dates == "" && c.DateFill != nil:
			return fmt.Errorf("data: column %d has a fill of dates but holds no dates", k)
		case c.Dates == "":
		case !slices.Contains(dateFormats, c.Dates):
			return fmt.Errorf("data: column %d holds dates in an unknown format %s (known: %s)", k, Quote(c.Dates), strings.Join(dateFormats, ", "))
		case c.Categories != nil || c.Other || c.Fill != nil:
			return fmt.Errorf("data: column %d holds both dates and categories or numbers", k)
		case c.DateFill != nil && len(c.DateFill) != DateWidth:
			return fmt.Errorf("data: column %d has a fill of %d values for its dates, want %d", k, len(c.DateFill), DateWidth)
		}
	}
	return nil
}
