// Package metrics holds the host's Prometheus metrics: a registry of its own (never the
// global default) with the collectors of requests, jobs, lanes and engine processes,
// all named tracecraft_*, and the handler that serves them in the Prometheus text
// format. Every label takes a bounded set of values: routes are templates, engines are
// installed engine names, lanes and outcomes are fixed lists.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/lanes"
)

// Namespace prefixes every metric of the host's own.
const Namespace = "tracecraft"

// Unmatched is the route label of a request that matched no route.
const Unmatched = "unmatched"

// NoLane is the lane label of a request that was not admitted to a lane.
const NoLane = "none"

// JobBuckets are the bounds, in seconds, of the job duration histogram: from a small
// logo (a few milliseconds) to the default job time limit and beyond.
var JobBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}

// Metrics is the host's metrics registry and its collectors. It implements
// engines.Observer. The zero value is not usable; call New.
type Metrics struct {
	reg     *prometheus.Registry
	handler http.Handler

	requests *prometheus.CounterVec
	bytesIn  *prometheus.CounterVec
	bytesOut *prometheus.CounterVec

	jobs       *prometheus.HistogramVec
	starts     *prometheus.CounterVec
	crashes    *prometheus.CounterVec
	timeouts   *prometheus.CounterVec
	badOutputs *prometheus.CounterVec
}

var _ engines.Observer = (*Metrics)(nil)

// New returns the metrics of a host of the given build version, with the Go runtime's
// and the process's standard collectors beside the host's own.
func New(build string) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		v := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help}, labels)
		m.reg.MustRegister(v)
		return v
	}
	m.requests = counter("http_requests_total",
		"HTTP requests answered, by route template, method, status and lane (none: not admitted to a lane).",
		"route", "method", "status", "lane")
	m.bytesIn = counter("http_request_body_bytes_total",
		"Bytes read from request bodies, by route template and lane.", "route", "lane")
	m.bytesOut = counter("http_response_body_bytes_total",
		"Bytes written in response bodies, by route template and lane.", "route", "lane")
	m.jobs = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "engine_job_duration_seconds",
		Help: "Time a job held an engine process, by engine and outcome (ok, refused, timeout, canceled, crashed, bad_output). " +
			"For auto, the engine that measures the image and the one that traces it each count their part.",
		Buckets: JobBuckets}, []string{"engine", "outcome"})
	m.reg.MustRegister(m.jobs)
	m.starts = counter("engine_process_starts_total", "Engine processes started (handshake passed), by engine.", "engine")
	m.crashes = counter("engine_process_crashes_total",
		"Engine processes that died unasked, during a job or while idle, by engine.", "engine")
	m.timeouts = counter("engine_job_timeouts_total",
		"Jobs that passed the job time limit, their process killed, by engine.", "engine")
	m.badOutputs = counter("engine_bad_outputs_total",
		"SVGs refused because they failed the output check (engine_bad_output), by engine.", "engine")
	info := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: "build_info",
		Help: "Always 1; the label names the host's build version.", ConstLabels: prometheus.Labels{"version": build}})
	info.Set(1)
	m.reg.MustRegister(info,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler { return m.handler }

// Registry returns the registry the metrics live in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// ObserveRequest counts one answered request. route is the route template (Unmatched
// when none matched), lane the lane it was admitted to (NoLane when none), in and out
// the body bytes read and written.
func (m *Metrics) ObserveRequest(route, method string, status int, lane string, in, out int64) {
	m.requests.WithLabelValues(route, knownMethod(method), statusText(status), lane).Inc()
	if in > 0 {
		m.bytesIn.WithLabelValues(route, lane).Add(float64(in))
	}
	if out > 0 {
		m.bytesOut.WithLabelValues(route, lane).Add(float64(out))
	}
}

// ProcessStarted counts a started engine process. The engine's crash and timeout
// counters appear at zero with its first process, so a scrape shows them before they
// first move.
func (m *Metrics) ProcessStarted(engine string) {
	m.starts.WithLabelValues(engine).Inc()
	m.crashes.WithLabelValues(engine)
	m.timeouts.WithLabelValues(engine)
	m.badOutputs.WithLabelValues(engine)
}

// ProcessCrashed counts an engine process that died unasked.
func (m *Metrics) ProcessCrashed(engine string) { m.crashes.WithLabelValues(engine).Inc() }

// JobDone records the time a job held a process of engine, and counts timeouts.
func (m *Metrics) JobDone(engine string, took time.Duration, outcome engines.Outcome) {
	m.jobs.WithLabelValues(engine, string(outcome)).Observe(took.Seconds())
	switch outcome {
	case engines.TimedOut:
		m.timeouts.WithLabelValues(engine).Inc()
	case engines.BadOutput:
		m.badOutputs.WithLabelValues(engine).Inc()
	}
}

// WatchLanes adds gauges read from the lanes' statistics at each scrape: queue depth,
// busy workers, workers and queue capacity per lane.
func (m *Metrics) WatchLanes(ls ...*lanes.Lane) {
	gauge := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "lane", name), help, []string{"lane"}, nil)
	}
	queued := gauge("queue_depth", "Jobs waiting in the lane's queue.")
	busy := gauge("busy_workers", "Workers of the lane running a job.")
	workers := gauge("workers", "Workers of the lane.")
	capacity := gauge("queue_capacity", "Jobs that may wait in the lane's queue beyond those running.")
	m.reg.MustRegister(collector{descs: []*prometheus.Desc{queued, busy, workers, capacity}, collect: func(ch chan<- prometheus.Metric) {
		for _, l := range ls {
			st := l.Stats()
			ch <- prometheus.MustNewConstMetric(queued, prometheus.GaugeValue, float64(st.Queued), st.Name)
			ch <- prometheus.MustNewConstMetric(busy, prometheus.GaugeValue, float64(st.Busy), st.Name)
			ch <- prometheus.MustNewConstMetric(workers, prometheus.GaugeValue, float64(st.Workers), st.Name)
			ch <- prometheus.MustNewConstMetric(capacity, prometheus.GaugeValue, float64(st.Capacity), st.Name)
		}
	}})
}

// WatchEngines adds gauges read from the engines' statuses at each scrape: whether each
// engine is ready, and its live and busy processes.
func (m *Metrics) WatchEngines(statuses func() []engines.Status) {
	gauge := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "engine", name), help, []string{"engine"}, nil)
	}
	ready := gauge("ready", "1 when the engine is loaded and serving, 0 when its file failed to load.")
	procs := gauge("processes", "Live processes of the engine.")
	busy := gauge("busy_processes", "Processes of the engine running a job.")
	m.reg.MustRegister(collector{descs: []*prometheus.Desc{ready, procs, busy}, collect: func(ch chan<- prometheus.Metric) {
		for _, st := range statuses() {
			up := 0.0
			if st.Status == "ready" {
				up = 1
			}
			ch <- prometheus.MustNewConstMetric(ready, prometheus.GaugeValue, up, st.Name)
			ch <- prometheus.MustNewConstMetric(procs, prometheus.GaugeValue, float64(st.Processes), st.Name)
			ch <- prometheus.MustNewConstMetric(busy, prometheus.GaugeValue, float64(st.Busy), st.Name)
		}
	}})
}

// collector reads its values when scraped.
type collector struct {
	descs   []*prometheus.Desc
	collect func(chan<- prometheus.Metric)
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

// statusTexts holds the decimal text of every HTTP status, so counting a request does
// not format one.
var statusTexts = func() (t [600]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

func statusText(status int) string {
	if status >= 0 && status < len(statusTexts) {
		return statusTexts[status]
	}
	return "other"
}

// knownMethod returns method if it is a standard HTTP method, else "other": clients may
// send any token as a method, and a label must not take unbounded values.
func knownMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}
