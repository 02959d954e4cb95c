package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// sent is a tracing request in flight, which the test may abandon as a client that goes
// away does: cancelling its context closes the connection.
type sent struct {
	cancel context.CancelFunc
	done   chan reply
}

// send starts a tracing request of img with settings and the key (if any) in the
// background.
func (h *host) send(img []byte, settings, key string) *sent {
	ctx, cancel := context.WithCancel(context.Background())
	req := h.vectorizeRequest(img, settings).WithContext(ctx)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	s := &sent{cancel: cancel, done: make(chan reply, 1)}
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			s.done <- reply{status: -1, body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		var r reply
		r.status, r.header = resp.StatusCode, resp.Header
		_ = json.NewDecoder(resp.Body).Decode(&r.json)
		s.done <- r
	}()
	return s
}

// wait returns the request's answer, failing the test after a minute.
func (s *sent) wait(t testing.TB) reply {
	t.Helper()
	select {
	case r := <-s.done:
		return r
	case <-time.After(time.Minute):
		t.Fatal("no answer within a minute")
		return reply{}
	}
}

// lane returns the state of the named lane from /api/health.
func (h *host) lane(name string) map[string]any {
	for _, l := range h.get("/api/health").json["lanes"].([]any) {
		if l := l.(map[string]any); l["name"] == name {
			return l
		}
	}
	h.t.Fatalf("no lane %q in /api/health", name)
	return nil
}

// waitLane waits until the named lane has busy running and queued waiting jobs.
func (h *host) waitLane(t testing.TB, name string, busy, queued float64) {
	t.Helper()
	if !testbin.Eventually(10*time.Second, func() bool {
		l := h.lane(name)
		return l["busy"] == busy && l["queued"] == queued
	}) {
		t.Fatalf("lane %s never had %v busy and %v queued: %v", name, busy, queued, h.lane(name))
	}
}

// metric returns the value of the Prometheus sample whose line starts with name.
func (h *host) metric(name string) string {
	for _, line := range strings.Split(string(h.get("/metrics").body), "\n") {
		if strings.HasPrefix(line, name+" ") {
			return strings.TrimPrefix(line, name+" ")
		}
	}
	return "0"
}

// serverPart is how long a traced request spent in the host after its queue: its total
// minus its wait, from the answer's timings.
func serverPart(r reply) time.Duration {
	tm, _ := r.json["timings"].(map[string]any)
	total, _ := tm["totalMs"].(float64)
	queue, _ := tm["queueMs"].(float64)
	return time.Duration((total - queue) * float64(time.Millisecond))
}

var killedProcess = regexp.MustCompile(`killing engine process`)

// TestAClientThatGoesAwayCancelsItsJob abandons keyed requests the way a client that
// closes its connection (or a page that aborts its fetch) does. A job that waits leaves
// the queue: the job behind it starts as soon as the worker is free, not after the
// abandoned one would have run. A running job is cancelled in the engine process, which
// stops (the test engine's sleep honours its context) and takes the next job without
// being killed. Both count in the key's usage as cancelled, not as successes or
// failures.
func TestAClientThatGoesAwayCancelsItsJob(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	key, errOut, code := tracecraft(t, nil, "keys", "create", "--name", "leaver", "--data-dir", data)
	if code != 0 {
		t.Fatalf("keys create: %s", errOut)
	}
	key = strings.TrimSpace(key)
	h := startHost(t, newPlugins(t, "testengine"), data, "--workers", "1", "--queue", "8")
	img := photoPNG(t, 64, 64)
	sleep := func(ms int) string {
		b, _ := json.Marshal(map[string]any{"engine": "testengine", "testengine": map[string]any{"action": "sleep", "ms": ms}})
		return string(b)
	}
	starts := h.metric(`tracecraft_engine_process_starts_total{engine="testengine"}`)

	t.Run("a job that waits leaves the queue", func(t *testing.T) {
		holder := h.send(img, sleep(1500), key)
		h.waitLane(t, "keyed", 1, 0)
		leaver := h.send(img, sleep(20000), key)
		h.waitLane(t, "keyed", 1, 1)
		next := h.send(img, sleep(0), key)
		h.waitLane(t, "keyed", 1, 2)
		leaver.cancel()
		h.waitLane(t, "keyed", 1, 1)
		first := holder.wait(t)
		finished := time.Now()
		r := next.wait(t)
		if first.status != 200 || r.status != 200 {
			t.Fatalf("the held job %v, the next one %v; want 200 and 200", first, r)
		}
		// The next job starts once the holder's worker is free, not 20 s later.
		if started := time.Since(finished) - serverPart(r); started > 5*time.Second {
			t.Errorf("the job behind the abandoned one started %v after the worker was free", started)
		} else {
			t.Logf("the job behind the abandoned one started within %v of the answer before it", started.Round(time.Millisecond))
		}
	})

	t.Run("a running job is stopped in the engine, which takes the next job", func(t *testing.T) {
		leaver := h.send(img, sleep(60000), key)
		h.waitLane(t, "keyed", 1, 0)
		next := h.send(img, sleep(0), key)
		h.waitLane(t, "keyed", 1, 1)
		time.Sleep(200 * time.Millisecond) // the engine is in its sleep
		gone := time.Now()
		leaver.cancel()
		r := next.wait(t)
		if r.status != 200 {
			t.Fatalf("the next job: %v", r)
		}
		free := time.Since(gone) - serverPart(r)
		if free > 5*time.Second {
			t.Errorf("the worker was free %v after the client went away", free)
		} else {
			t.Logf("the worker was free about %v after the client went away", free.Round(time.Millisecond))
		}
		if now := h.metric(`tracecraft_engine_process_starts_total{engine="testengine"}`); now != starts {
			t.Errorf("engine processes started: %s, then %s; want no new one (the cancelled one kept)", starts, now)
		}
		if killedProcess.MatchString(h.log.String()) {
			t.Errorf("the host killed an engine process:\n%s", h.log.String())
		}
		if got := h.metric(`tracecraft_engine_job_duration_seconds_count{engine="testengine",outcome="canceled"}`); got != "1" {
			t.Errorf("engine jobs counted as canceled: %s, want 1", got)
		}
	})

	req, _ := http.NewRequest(http.MethodGet, h.url+"/api/usage", nil)
	req.Header.Set("X-API-Key", key)
	u := do(t, req)
	total, _ := u.json["total"].(map[string]any)
	if total["requests"] != 5.0 || total["successes"] != 3.0 || total["cancelled"] != 2.0 || len(total["failures"].(map[string]any)) != 0 {
		t.Errorf("usage %s, want 5 requests: 3 successes, 2 cancelled, no failures", u.body)
	}
}
