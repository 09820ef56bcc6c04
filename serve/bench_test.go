package serve

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkHandlerV1 measures the handler alone (no network) on 64-instance
// requests to a Ringnorm model: JSON in, batcher, prediction, JSON out.
func BenchmarkHandlerV1(b *testing.B) {
	path, _, ds := trainModel(b, b.TempDir(), "nsvm")
	s, err := New(Config{ModelPath: path, Name: "m", Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.batch.close()
	body := []byte(`{"instances":` + rowsJSON(ds, 0, 64) + `}`)
	h := s.Handler()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodPost, "/v1/models/m:predict", bytes.NewReader(body))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatal(w.Code)
			}
		}
	})
	b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "predictions/s")
}
