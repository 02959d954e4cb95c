package main

import (
	"fmt"
	"image/color"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/store/postgres/pgtest"
	"github.com/tracecraft/tracecraft/internal/testbin"
)

// These tests run several host processes on one PostgreSQL database, as operators do
// behind a load balancer. Each test gets a database of its own (pgtest.FreshDatabase),
// so they never see the rows of the store tests running in parallel packages.

// startHostsOn starts n hosts at once on the database dsn, each with its own data dir,
// so that they apply the schema migrations at the same moment, and waits for all of
// them to listen.
func startHostsOn(t *testing.T, n int, dsn string, flags ...string) []*host {
	t.Helper()
	plugins := newPlugins(t, "testengine")
	hosts := make([]*host, n)
	for i := range hosts {
		hosts[i] = spawnHost(t, plugins, "", append([]string{"--db", dsn}, flags...)...)
	}
	for _, h := range hosts {
		h.waitListening()
	}
	return hosts
}

// createKey makes a key with the keys CLI on the database dsn and returns it.
func createKey(t *testing.T, dsn, name string) string {
	t.Helper()
	out, errOut, code := tracecraft(t, nil, "keys", "create", "--name", name, "--db", dsn)
	key := strings.TrimSpace(out)
	if code != 0 || !regexp.MustCompile(`^tc_[A-Za-z0-9]{32}$`).MatchString(key) {
		t.Fatalf("keys create --db: %q %q exit %d", out, errOut, code)
	}
	return key
}

// usageTotal returns the total of GET /api/usage for key from h.
func usageTotal(t *testing.T, h *host, key string) map[string]any {
	t.Helper()
	r := do(t, mustRequest(t, "GET", h.url+"/api/usage", "X-API-Key", key))
	if r.status != 200 {
		t.Fatalf("usage from %s: %s", h.url, r)
	}
	total, _ := r.json["total"].(map[string]any)
	return total
}

func TestTwoHostsOnOneDatabaseCountEveryRequestExactly(t *testing.T) {
	t.Parallel()
	dsn := pgtest.FreshDatabase(t)
	hosts := startHostsOn(t, 2, dsn, "--workers", "2", "--queue", "64")

	// The keys CLI works on the same database, from the flag or the environment.
	key := createKey(t, dsn, "acme")
	if _, errOut, code := tracecraft(t, []string{"TRACECRAFT_DB=" + dsn}, "keys", "create", "--name", "other"); code != 0 {
		t.Fatalf("keys create with TRACECRAFT_DB: %s", errOut)
	}
	out, errOut, code := tracecraft(t, nil, "keys", "list", "--db", dsn)
	if code != 0 || !strings.Contains(out, "acme") || !strings.Contains(out, "other") || strings.Contains(out, key) {
		t.Fatalf("keys list --db: %q %q exit %d", out, errOut, code)
	}

	// 240 requests from 16 clients, alternating between the hosts; every fifth has
	// settings the host refuses (400), which count as failures. Two image sizes make
	// the byte and pixel sums tell requests apart.
	const requests, clients = 240, 16
	small := testbin.SolidPNG(t, 16, 16, color.NRGBA{9, 9, 9, 255})
	large := testbin.SolidPNG(t, 40, 30, color.NRGBA{200, 9, 9, 255})
	var wantOK, wantBad, wantIn, wantPixels int64
	type job struct {
		h        *host
		img      []byte
		settings string
		want     int
	}
	jobs := make(chan job, requests)
	for i := range requests {
		j := job{h: hosts[i%2], img: small, settings: `{"engine":"testengine"}`, want: 200}
		if i%3 == 0 {
			j.img = large
		}
		if i%5 == 0 {
			j.settings, j.want = `{"engine":"nope"}`, 400
			wantBad++
		} else {
			wantOK++
			if i%3 == 0 {
				wantPixels += 40 * 30
			} else {
				wantPixels += 16 * 16
			}
		}
		wantIn += int64(len(j.img))
		jobs <- j
	}
	close(jobs)
	var wg sync.WaitGroup
	problems := make(chan string, requests)
	for range clients {
		wg.Go(func() {
			for j := range jobs {
				resp, err := httpDo(j.h.vectorizeRequest(j.img, j.settings, "X-API-Key", key))
				if err != nil {
					problems <- err.Error()
				} else if resp.status != j.want {
					problems <- fmt.Sprintf("%s answered %s, want %d", j.h.url, resp, j.want)
				}
			}
		})
	}
	wg.Wait()
	close(problems)
	for p := range problems {
		t.Error(p)
	}

	want := map[string]any{
		"requests": float64(requests), "successes": float64(wantOK), "inputBytes": float64(wantIn),
		"pixels": float64(wantPixels), "failures": map[string]any{"400": float64(wantBad)},
	}
	for _, h := range hosts {
		total := usageTotal(t, h, key)
		for field, w := range want {
			if fmt.Sprint(total[field]) != fmt.Sprint(w) {
				t.Errorf("usage read through %s: %s = %v, want %v (total %v)", h.url, field, total[field], w, total)
			}
		}
	}
}

func TestKeyRevokedOnTheSharedDatabaseIsRefusedByEveryHostWithinASecond(t *testing.T) {
	t.Parallel()
	dsn := pgtest.FreshDatabase(t)
	hosts := startHostsOn(t, 3, dsn, "--workers", "1")
	key := createKey(t, dsn, "acme")
	img := testbin.SolidPNG(t, 8, 8, color.NRGBA{1, 2, 3, 255})
	for _, h := range hosts {
		if r := h.vectorize(img, `{"engine":"testengine"}`, "X-API-Key", key); r.status != 200 {
			t.Fatalf("%s before the revoke: %s", h.url, r)
		}
	}

	if _, errOut, code := tracecraft(t, nil, "keys", "revoke", "acme", "--db", dsn); code != 0 {
		t.Fatalf("keys revoke --db: %s", errOut)
	}
	revoked := time.Now()
	for _, h := range hosts {
		var r reply
		refused := testbin.Eventually(time.Second, func() bool {
			r = h.vectorize(img, `{"engine":"testengine"}`, "X-API-Key", key)
			return r.status == 401
		})
		after := time.Since(revoked)
		if !refused || r.errorCode() != "invalid_api_key" {
			t.Errorf("%s still answers the revoked key %v after the revoke: %s", h.url, after, r)
			continue
		}
		t.Logf("%s refuses the revoked key %v after the revoke returned", h.url, after.Round(time.Millisecond))
	}
}

func TestKeyedRequestsGet503WhileTheDatabaseIsDownAndRecover(t *testing.T) {
	t.Parallel()
	dsn := pgtest.FreshDatabase(t)
	proxy := pgtest.NewProxy(t, dsn)
	h := startHostsOn(t, 1, pgtest.WithHost(t, dsn, proxy.Addr))[0]
	key := createKey(t, dsn, "acme")
	img := testbin.SolidPNG(t, 8, 8, color.NRGBA{1, 2, 3, 255})
	const settings = `{"engine":"testengine"}`

	health := func() (string, map[string]any) {
		r := h.get("/api/health")
		st, _ := r.json["store"].(map[string]any)
		s, _ := r.json["status"].(string)
		return s, st
	}
	if status, st := health(); status != "ok" || st["dialect"] != "postgres" || st["status"] != "ok" {
		t.Fatalf("health with the database up: status %q, store %v; want ok, postgres ok", status, st)
	}
	if r := h.vectorize(img, settings, "X-API-Key", key); r.status != 200 {
		t.Fatalf("keyed request with the database up: %s", r)
	}

	proxy.Cut()
	if r := h.vectorize(img, settings); r.status != 200 || r.json["lane"] != "public" {
		t.Errorf("anonymous request with the database down: %s; want 200 in the public lane", r)
	}
	start := time.Now()
	r := h.vectorize(img, settings, "X-API-Key", key, "X-Request-Id", "keyed-while-down")
	took := time.Since(start)
	if r.status != 503 || r.errorCode() != "store_unavailable" {
		t.Errorf("keyed request with the database down: %s; want 503 store_unavailable", r)
	}
	if took > 7*time.Second {
		t.Errorf("the keyed request with the database down took %v to be refused", took)
	}
	// The request log line of the refused request names no engine: no trace ran.
	line := h.log.waitFor(t, regexp.MustCompile(`request: .*id=keyed-while-down`), 5*time.Second)
	if strings.Contains(line, "engine=") {
		t.Errorf("the refused keyed request ran a trace: %s", line)
	}
	if r := do(t, mustRequest(t, "GET", h.url+"/api/usage", "X-API-Key", key)); r.status != 503 || r.errorCode() != "store_unavailable" {
		t.Errorf("usage with the database down: %s; want 503 store_unavailable", r)
	}
	if status, st := health(); status != "degraded" || st["status"] != "unreachable" {
		t.Errorf("health with the database down: status %q, store %v; want degraded, unreachable", status, st)
	}

	proxy.Restore(t)
	var last reply
	if !testbin.Eventually(3*time.Second, func() bool {
		last = h.vectorize(img, settings, "X-API-Key", key)
		return last.status == 200
	}) {
		t.Fatalf("keyed requests still fail 3 s after the database came back: %s", last)
	}
	if status, st := health(); status != "ok" || st["status"] != "ok" {
		t.Errorf("health after the database came back: status %q, store %v; want ok", status, st)
	}
	// Counted: the two keyed requests that were answered, not the refused one.
	if total := usageTotal(t, h, key); total["requests"] != 2.0 || total["successes"] != 2.0 {
		t.Errorf("usage after the outage: %v; want 2 requests, 2 successes", total)
	}
}

func TestHealthNamesTheEmbeddedStoreByDefault(t *testing.T) {
	t.Parallel()
	h := startHost(t, newPlugins(t, "testengine"), "")
	r := h.get("/api/health")
	st, _ := r.json["store"].(map[string]any)
	if r.status != 200 || r.json["status"] != "ok" || st["dialect"] != "sqlite" || st["status"] != "ok" {
		t.Errorf("health of a host on its embedded SQLite: %s; want status ok and store sqlite ok", r)
	}
}

// httpDo is do for client goroutines: it returns an error rather than failing the test.
func httpDo(req *http.Request) (reply, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

func TestHostStartedDuringADatabaseOutageServesThePublicLaneThenOpensTheDatabase(t *testing.T) {
	t.Parallel()
	dsn := pgtest.FreshDatabase(t)
	key := createKey(t, dsn, "acme") // also applies the migrations
	proxy := pgtest.NewProxy(t, dsn)
	proxy.Cut()
	h := startHostsOn(t, 1, pgtest.WithHost(t, dsn, proxy.Addr))[0]
	img := testbin.SolidPNG(t, 8, 8, color.NRGBA{1, 2, 3, 255})
	const settings = `{"engine":"testengine"}`

	if r := h.vectorize(img, settings); r.status != 200 {
		t.Errorf("anonymous request to a host started without its database: %s", r)
	}
	if r := h.vectorize(img, settings, "X-API-Key", key); r.status != 503 || r.errorCode() != "store_unavailable" {
		t.Errorf("keyed request to a host started without its database: %s; want 503 store_unavailable", r)
	}
	if r := h.get("/api/health"); r.json["status"] != "degraded" {
		t.Errorf("health of a host started without its database: %s; want degraded", r)
	}

	proxy.Restore(t)
	var last reply
	if !testbin.Eventually(10*time.Second, func() bool {
		last = h.vectorize(img, settings, "X-API-Key", key)
		return last.status == 200
	}) {
		t.Fatalf("keyed requests still fail 10 s after the database became reachable: %s", last)
	}
	if r := h.get("/api/health"); r.json["status"] != "ok" {
		t.Errorf("health once the database is open: %s; want ok", r)
	}
}
