package main

import (
	"bytes"
	"image/color"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tracecraft/tracecraft/host/internal/api"
	"github.com/tracecraft/tracecraft/internal/testbin"
)

// scrape is one reading of /metrics.
type scrape map[string]*dto.MetricFamily

// scrapeMetrics reads and parses the host's /metrics.
func scrapeMetrics(t *testing.T, h *host) scrape {
	t.Helper()
	r := h.get("/metrics")
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %s", r)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("/metrics is not in the Prometheus text format: %v\n%s", err, r.body)
	}
	return fams
}

// value returns the sum over the series of name whose labels include the given
// name/value pairs: a counter's or gauge's value, or a histogram's sample count.
func (s scrape) value(name string, labels ...string) float64 {
	fam := s[name]
	if fam == nil {
		return 0
	}
	total := 0.0
	for _, m := range fam.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.Counter.GetValue()
		case m.Gauge != nil:
			total += m.Gauge.GetValue()
		case m.Histogram != nil:
			total += float64(m.Histogram.GetSampleCount())
		}
	}
	return total
}

// labelValues returns every value label takes across the families.
func (s scrape) labelValues(label string) map[string]bool {
	out := map[string]bool{}
	for _, fam := range s {
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					out[l.GetValue()] = true
				}
			}
		}
	}
	return out
}

func TestMetricsCountRequestsJobsLanesAndEngineProcesses(t *testing.T) {
	t.Parallel()
	dir := newPlugins(t, "tracecraft", "vtracer", "potrace")
	data := t.TempDir()
	h := startHost(t, dir, data, "--workers", "1", "--job-timeout", "2s")
	key, errOut, code := tracecraft(t, nil, "keys", "create", "--name", "metrics", "--data-dir", data)
	if code != 0 {
		t.Fatalf("keys create: %s", errOut)
	}
	key = strings.TrimSpace(key)
	img := testbin.SolidPNG(t, 10, 10, color.NRGBA{10, 200, 10, 255})

	before := scrapeMetrics(t, h)
	if got := before.value("tracecraft_engine_process_starts_total", "engine", "tracecraft"); got < 1 {
		t.Errorf("starts of tracecraft before any job = %v, want at least the process that described it", got)
	}

	// The requests, each with what it should count.
	var publicIn, publicOut, keyedIn int
	send := func(req *http.Request, want int, in, out *int) {
		t.Helper()
		size := int(req.ContentLength)
		r := do(t, req)
		if r.status != want {
			t.Fatalf("%s %s: %s, want %d", req.Method, req.URL.Path, r, want)
		}
		if in != nil {
			*in += size
		}
		if out != nil {
			*out += len(r.body)
		}
	}
	for range 3 {
		send(h.vectorizeRequest(img, `{"engine":"tracecraft"}`), 200, &publicIn, &publicOut)
	}
	send(h.vectorizeRequest(img, `{"engine":"tracecraft","tracecraft":{"action":"panic"}}`), 500, &publicIn, &publicOut)
	send(h.vectorizeRequest(img, `{"engine":"tracecraft","tracecraft":{"action":"sleep","ms":10000}}`), 503, &publicIn, &publicOut)
	send(h.vectorizeRequest(img, `{"engine":"tracecraft"}`, "X-API-Key", key), 200, &keyedIn, nil)
	get := func(path string) *http.Request {
		req, _ := http.NewRequest(http.MethodGet, h.url+path, nil)
		return req
	}
	send(get("/api/schema"), 200, nil, nil)
	send(get("/no/such/path?x=1"), 404, nil, nil)
	send(get("/api/schema/"+strings.Repeat("z", 40)), 404, nil, nil)

	// Replacements of the crashed and the killed process start in the background.
	var after scrape
	if !testbin.Eventually(15*time.Second, func() bool {
		after = scrapeMetrics(t, h)
		return after.value("tracecraft_engine_process_starts_total", "engine", "tracecraft")-
			before.value("tracecraft_engine_process_starts_total", "engine", "tracecraft") >= 2
	}) {
		t.Errorf("the crashed and the timed-out processes were not counted as replaced")
	}

	delta := func(name string, labels ...string) float64 {
		return after.value(name, labels...) - before.value(name, labels...)
	}
	for _, tc := range []struct {
		what   string
		name   string
		labels []string
		want   float64
	}{
		{"public traces", "tracecraft_http_requests_total", []string{"route", "/api/vectorize", "method", "POST", "status", "200", "lane", "public"}, 3},
		{"keyed traces", "tracecraft_http_requests_total", []string{"route", "/api/vectorize", "status", "200", "lane", "keyed"}, 1},
		{"the crash's 500", "tracecraft_http_requests_total", []string{"route", "/api/vectorize", "status", "500", "lane", "public"}, 1},
		{"the timeout's 503", "tracecraft_http_requests_total", []string{"route", "/api/vectorize", "status", "503", "lane", "public"}, 1},
		{"schema reads", "tracecraft_http_requests_total", []string{"route", "/api/schema", "method", "GET", "status", "200", "lane", "none"}, 1},
		{"unmatched paths", "tracecraft_http_requests_total", []string{"route", "unmatched", "status", "404", "lane", "none"}, 2},
		{"good jobs", "tracecraft_engine_job_duration_seconds", []string{"engine", "tracecraft", "outcome", "ok"}, 4},
		{"crashed jobs", "tracecraft_engine_job_duration_seconds", []string{"engine", "tracecraft", "outcome", "crashed"}, 1},
		{"timed-out jobs", "tracecraft_engine_job_duration_seconds", []string{"engine", "tracecraft", "outcome", "timeout"}, 1},
		{"crashes", "tracecraft_engine_process_crashes_total", []string{"engine", "tracecraft"}, 1},
		{"timeouts", "tracecraft_engine_job_timeouts_total", []string{"engine", "tracecraft"}, 1},
		{"bytes in, public lane", "tracecraft_http_request_body_bytes_total", []string{"route", "/api/vectorize", "lane", "public"}, float64(publicIn)},
		{"bytes in, keyed lane", "tracecraft_http_request_body_bytes_total", []string{"route", "/api/vectorize", "lane", "keyed"}, float64(keyedIn)},
		{"bytes out, public lane", "tracecraft_http_response_body_bytes_total", []string{"route", "/api/vectorize", "lane", "public"}, float64(publicOut)},
		{"crashes of an engine not used", "tracecraft_engine_process_crashes_total", []string{"engine", "potrace"}, 0},
	} {
		if got := delta(tc.name, tc.labels...); got != tc.want {
			t.Errorf("%s: %s%v moved by %v, want %v", tc.what, tc.name, tc.labels, got, tc.want)
		}
	}
	if got := after.value("tracecraft_http_requests_total", "route", "/metrics", "status", "200"); got < 1 {
		t.Errorf("scrapes counted = %v, want at least the first", got)
	}
	if got := after.value("tracecraft_engine_ready", "engine", "vtracer"); got != 1 {
		t.Errorf("vtracer ready = %v, want 1", got)
	}

	// Route labels are route templates, never raw paths.
	templates := map[string]bool{"unmatched": true}
	for _, rt := range (&api.Server{}).Routes() {
		templates[rt.Path] = true
	}
	for route := range after.labelValues("route") {
		if !templates[route] {
			t.Errorf("route label %q is not a route template", route)
		}
	}

	// The lane gauges show a running job and one waiting behind it (one worker).
	slow := `{"engine":"tracecraft","tracecraft":{"action":"sleep","ms":1500}}`
	done := make(chan reply, 2)
	for range 2 {
		go func() { done <- do(t, h.vectorizeRequest(img, slow)) }()
	}
	var during scrape
	if !testbin.Eventually(5*time.Second, func() bool {
		during = scrapeMetrics(t, h)
		return during.value("tracecraft_lane_queue_depth", "lane", "public") == 1
	}) {
		t.Errorf("queue depth never showed the waiting job")
	}
	if got := during.value("tracecraft_lane_busy_workers", "lane", "public"); got != 1 {
		t.Errorf("busy public workers = %v, want 1", got)
	}
	if got := during.value("tracecraft_engine_busy_processes", "engine", "tracecraft"); got != 1 {
		t.Errorf("busy tracecraft processes = %v, want 1", got)
	}
	if got := during.value("tracecraft_lane_busy_workers", "lane", "keyed"); got != 0 {
		t.Errorf("busy keyed workers = %v, want 0", got)
	}
	for range 2 {
		if r := <-done; r.status != 200 {
			t.Errorf("slow job: %s", r)
		}
	}
	end := scrapeMetrics(t, h)
	if q, b := end.value("tracecraft_lane_queue_depth", "lane", "public"), end.value("tracecraft_lane_busy_workers", "lane", "public"); q != 0 || b != 0 {
		t.Errorf("after the jobs: queue depth %v and busy workers %v, want 0 and 0", q, b)
	}
}
