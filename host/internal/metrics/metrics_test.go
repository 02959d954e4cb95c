package metrics

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/lanes"
)

func TestRequestsAreCountedByBoundedLabels(t *testing.T) {
	m := New("test")
	m.ObserveRequest("/api/vectorize", "POST", 200, "public", 1000, 300)
	m.ObserveRequest("/api/vectorize", "POST", 200, "public", 500, 0)
	m.ObserveRequest(Unmatched, "BREW", 404, NoLane, 0, 90)
	m.ObserveRequest(Unmatched, "GET", 1000, NoLane, 0, 0)

	for _, tc := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"/api/vectorize", "POST", "200", "public"}, 2},
		{[]string{Unmatched, "other", "404", NoLane}, 1},
		{[]string{Unmatched, "GET", "other", NoLane}, 1},
	} {
		if got := testutil.ToFloat64(m.requests.WithLabelValues(tc.labels...)); got != tc.want {
			t.Errorf("requests%v = %v, want %v", tc.labels, got, tc.want)
		}
	}
	if got := testutil.ToFloat64(m.bytesIn.WithLabelValues("/api/vectorize", "public")); got != 1500 {
		t.Errorf("bytes in = %v, want 1500", got)
	}
	if got := testutil.ToFloat64(m.bytesOut.WithLabelValues(Unmatched, NoLane)); got != 90 {
		t.Errorf("bytes out of unmatched = %v, want 90", got)
	}
}

func TestEngineEventsMoveTheirCounters(t *testing.T) {
	m := New("test")
	m.ProcessStarted("potrace")
	if got := testutil.ToFloat64(m.crashes.WithLabelValues("potrace")); got != 0 {
		t.Errorf("crashes before any = %v", got)
	}
	m.ProcessStarted("potrace")
	m.ProcessCrashed("potrace")
	m.JobDone("potrace", 20*time.Millisecond, engines.Succeeded)
	m.JobDone("potrace", 2*time.Second, engines.TimedOut)

	for _, tc := range []struct {
		name string
		got  float64
		want float64
	}{
		{"starts", testutil.ToFloat64(m.starts.WithLabelValues("potrace")), 2},
		{"crashes", testutil.ToFloat64(m.crashes.WithLabelValues("potrace")), 1},
		{"timeouts", testutil.ToFloat64(m.timeouts.WithLabelValues("potrace")), 1},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if n := testutil.CollectAndCount(m.jobs, "tracecraft_engine_job_duration_seconds"); n != 2 {
		t.Errorf("job histograms = %d, want 2 (ok and timeout)", n)
	}
}

func TestTheHandlerServesEveryCollectorInTextFormat(t *testing.T) {
	m := New("v1.2.3")
	lane := lanes.New(lanes.Config{Name: "public", Workers: 2, Capacity: 5})
	defer lane.Close()
	started := make(chan struct{})
	release := make(chan struct{})
	go func() {
		_, _ = lane.Do(context.Background(), lanes.Job{}, func(context.Context) { close(started); <-release })
	}()
	<-started
	defer close(release)
	m.WatchLanes(lane)
	m.WatchEngines(func() []engines.Status {
		return []engines.Status{{Name: "vtracer", Status: "ready", Processes: 2, Busy: 1}, {Name: "broken", Status: "failed"}}
	})
	m.ObserveRequest("/api/schema", "GET", 200, NoLane, 0, 10)

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	text := string(body)
	for _, want := range []string{
		`tracecraft_build_info{version="v1.2.3"} 1`,
		`tracecraft_http_requests_total{lane="none",method="GET",route="/api/schema",status="200"} 1`,
		`tracecraft_lane_busy_workers{lane="public"} 1`,
		`tracecraft_lane_queue_depth{lane="public"} 0`,
		`tracecraft_lane_workers{lane="public"} 2`,
		`tracecraft_lane_queue_capacity{lane="public"} 5`,
		`tracecraft_engine_ready{engine="vtracer"} 1`,
		`tracecraft_engine_ready{engine="broken"} 0`,
		`tracecraft_engine_busy_processes{engine="vtracer"} 1`,
		"go_goroutines ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the scrape lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("scrape:\n%s", text)
	}
}

// BenchmarkObserveRequest is the cost the metrics add to each request once its series
// exist.
func BenchmarkObserveRequest(b *testing.B) {
	m := New("bench")
	b.ReportAllocs()
	for b.Loop() {
		m.ObserveRequest("/api/vectorize", "POST", 200, "keyed", 123456, 4567)
	}
}
