package serve

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus metrics.
type metrics struct {
	requests  *prometheus.CounterVec   // by protocol and status code
	errors    *prometheus.CounterVec   // by kind
	latency   *prometheus.HistogramVec // by protocol
	batchRows prometheus.Histogram     // rows per forward pass
	instances prometheus.Counter
	reloads   *prometheus.CounterVec // by result
	// memReleases counts the returns of memory to the OS after a burst.
	memReleases prometheus.Counter
}

func newMetrics(reg *prometheus.Registry, inFlight, memInUse func() float64, memLimit float64) metrics {
	m := metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nsvm_requests_total",
			Help: "HTTP requests handled, by protocol (v1, v2, other) and status code."}, []string{"protocol", "code"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nsvm_request_errors_total",
			Help: "Requests answered with an error, by kind (json, input, limit, body, content, method, path, model, overload, memory)."}, []string{"kind"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "nsvm_request_duration_seconds",
			Help:    "Time from receiving a request to writing its answer, by protocol.",
			Buckets: prometheus.ExponentialBuckets(50e-6, 2, 18)}, []string{"protocol"}),
		batchRows: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "nsvm_batch_rows",
			Help:    "Rows per forward pass (requests gathered by the micro-batcher).",
			Buckets: prometheus.ExponentialBuckets(1, 2, 14)}),
		instances: prometheus.NewCounter(prometheus.CounterOpts{Name: "nsvm_instances_total",
			Help: "Rows predicted."}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "nsvm_model_reloads_total",
			Help: "Model reloads, by result (ok, refused)."}, []string{"result"}),
		memReleases: prometheus.NewCounter(prometheus.CounterOpts{Name: "nsvm_memory_releases_total",
			Help: "Returns of freed memory to the operating system after a burst of requests."}),
	}
	reg.MustRegister(m.requests, m.errors, m.latency, m.batchRows, m.instances, m.reloads, m.memReleases,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "nsvm_requests_in_flight",
			Help: "Requests being handled."}, inFlight),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "nsvm_memory_in_flight_bytes",
			Help: "Bytes reserved by the requests in flight (bodies, decoded rows, predictions, answers)."}, memInUse),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "nsvm_memory_limit_bytes",
			Help: "The bound on nsvm_memory_in_flight_bytes (MaxMemory)."}, func() float64 { return memLimit }),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
