package serve

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/data"
)

// TestDateColumns: a model trained on data with a column of dates takes
// raw rows with dates (V1 arrays and objects keyed by column name, V2
// BYTES) and answers as on the rows encoded; a value that is not a date,
// or a missing one, is a 400 naming the instance and the column.
func TestDateColumns(t *testing.T) {
	var text strings.Builder
	text.WriteString("signup,spend,label\n")
	rng := rand.New(rand.NewPCG(3, 3))
	t0 := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 200 {
		day := rng.IntN(365)
		fmt.Fprintf(&text, "%s,%.2f,%d\n", t0.AddDate(0, 0, day).Format("2006-01-02"), rng.NormFloat64(), min(day/200, 1))
	}
	ds, err := data.ReadCSV(strings.NewReader(text.String()), "d.csv", data.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Columns[0].Dates == "" {
		t.Fatalf("columns %+v", ds.Columns)
	}
	m, err := nsvm.Fit(context.Background(), ds, &nsvm.FitConfig{Algorithm: "smo", C: 1, Gamma: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "d.nsvm")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, path, nil)
	rows := [][]string{{"2022-02-01", "0.5"}, {"2022-11-30T18:00:00Z", "-1"}, {"2022-08-01 09:00:00+02:00", "0"}}
	w := m.InSize()
	enc := make([]float32, len(rows)*w)
	for i, row := range rows {
		if err := data.EncodeRow(m.Columns, row, enc[i*w:(i+1)*w]); err != nil {
			t.Fatal(err)
		}
	}
	want := make([]float64, len(rows))
	m.PredictBatch(want, enc, len(rows))
	check := func(what string, code int, got []float64) {
		t.Helper()
		if code != 200 || !slices.Equal(got, want) {
			t.Errorf("%s: status %d, predictions %v, want %v", what, code, got, want)
		}
	}
	code, out := post(t, ts.URL+"/v1/models/m:predict", `{"instances":[["2022-02-01",0.5],["2022-11-30T18:00:00Z",-1],["2022-08-01 09:00:00+02:00",0]]}`)
	check("V1 raw", code, floats(out["predictions"]))
	code, out = post(t, ts.URL+"/v1/models/m:predict", `{"instances":[{"signup":"2022-02-01","spend":0.5},{"spend":-1,"signup":"2022-11-30T18:00:00Z"},{"signup":"2022-08-01 09:00:00+02:00","spend":0}]}`)
	check("V1 named", code, floats(out["predictions"]))
	code, out = post(t, ts.URL+"/v2/models/m/infer", `{"inputs":[{"name":"input","shape":[3,2],"datatype":"BYTES","data":["2022-02-01","0.5","2022-11-30T18:00:00Z","-1","2022-08-01 09:00:00+02:00","0"]}]}`)
	if code == 200 {
		check("V2 BYTES", code, floats(out["outputs"].([]any)[0].(map[string]any)["data"]))
	} else {
		t.Errorf("V2 BYTES: status %d: %v", code, out)
	}
	for _, c := range []struct{ body, want string }{
		{`[["2022-02-01",0.5],["01/02/2022",1]]`, `instance 1: data: column "signup": "01/02/2022" is not a date (YYYY-MM-DD)`},
		{`[{"signup":null,"spend":1}]`, `instance 0: data: column "signup": missing date ""`},
	} {
		code, out := post(t, ts.URL+"/v1/models/m:predict", `{"instances":`+c.body+`}`)
		if code != 400 || !strings.Contains(fmt.Sprint(out["error"]), c.want) {
			t.Errorf("%s: status %d, %v; want 400 and %q", c.body, code, out, c.want)
		}
	}
	resp, err := http.Get(ts.URL + "/v2/models/m")
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `"columns":[{"name":"signup","type":"dates","format":"YYYY-MM-DD"},{"name":"spend","type":"number"}]`; !strings.Contains(string(meta), want) {
		t.Errorf("metadata %s lacks %s", meta, want)
	}
}
