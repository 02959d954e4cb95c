package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/store"
)

// brokenLedger is a store whose usage recording fails, as an unreachable database's does.
type brokenLedger struct{ store.Store }

func (brokenLedger) RecordRequest(context.Context, int64, store.Request) error {
	return errors.New("dial tcp 10.0.0.9:5432: connection refused")
}

// getUsage reads GET /api/usage with the key plain and the query.
func getUsage(t *testing.T, s *Server, plain, query string) (int, usageBody, string) {
	t.Helper()
	req := httptest.NewRequest("GET", "/api/usage"+query, nil)
	if plain != "" {
		req.Header.Set("X-API-Key", plain)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	var body usageBody
	if rec.Code == 200 {
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("usage body: %v: %s", err, rec.Body)
		}
	}
	return rec.Code, body, rec.Body.String()
}

// TestKeyedRequestsAreCountedInTheirUsage sends a success, a refusal and a public
// request, and reads the key's usage: the two keyed requests, with the image's bytes
// and pixels, and the SVG's bytes; the public request is not counted.
func TestKeyedRequestsAreCountedInTheirUsage(t *testing.T) {
	s, keys := newTestServer(t, &memEngines{}, 4)
	h := s.Handler()
	plain, _, err := keys.Create(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	img := pngOf(t, 6, 4)
	ok := post(t, h, img, `{"engine":"mem"}`, "X-API-Key", plain, "Accept", "image/svg+xml")
	refused := post(t, h, img, `{"engine":"mem","mem":{"color":"green"}}`, "X-API-Key", plain)
	public := post(t, h, img, `{"engine":"mem"}`)
	if ok.Code != 200 || refused.Code != 400 || public.Code != 200 {
		t.Fatalf("statuses %d %d %d, want 200 400 200", ok.Code, refused.Code, public.Code)
	}
	code, u, raw := getUsage(t, s, plain, "")
	if code != 200 {
		t.Fatalf("usage: %d %s", code, raw)
	}
	tot := u.Total
	// The refusal was read (its bytes count) but never measured (no pixels).
	want := usageDay{Day: "total", Requests: 2, Successes: 1, Failures: map[string]int64{"400": 1},
		InputBytes: 2 * int64(len(img)), OutputBytes: int64(ok.Body.Len()), Pixels: 24}
	if tot.Requests != want.Requests || tot.Successes != want.Successes || tot.Failures["400"] != 1 || len(tot.Failures) != 1 ||
		tot.InputBytes != want.InputBytes || tot.OutputBytes != want.OutputBytes || tot.Pixels != want.Pixels {
		t.Errorf("usage total %+v, want %+v", tot, want)
	}
	if u.Key.Name != "alice" || u.Key.LastUsedAt == nil || len(u.Days) != 1 {
		t.Errorf("usage %+v: want alice's key, last used, on one day", u)
	}
}

// TestAKeyedAnswerThatCannotBeCountedIsNotGiven makes usage recording fail: a keyed
// request gets 503 store_unavailable without the cause; a public one is traced.
func TestAKeyedAnswerThatCannotBeCountedIsNotGiven(t *testing.T) {
	s, keys := newTestServer(t, &memEngines{}, 4)
	plain, _, err := keys.Create(context.Background(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	s.Tracing.Usage = brokenLedger{s.Store}
	h := s.Handler()
	img := pngOf(t, 3, 3)
	rec := post(t, h, img, `{"engine":"mem"}`, "X-API-Key", plain)
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), fault.StoreUnavailable) || strings.Contains(rec.Body.String(), "10.0.0.9") {
		t.Errorf("keyed: got %d %s, want 503 store_unavailable without the cause", rec.Code, rec.Body)
	}
	if rec := post(t, h, img, `{"engine":"mem"}`); rec.Code != 200 {
		t.Errorf("public: got %d %s, want 200", rec.Code, rec.Body)
	}
}

// TestAClientThatGoesAwayIsCountedAsCancelled cancels a keyed request while its job
// waits behind a held one: the handler ends with 499, counted in the key's usage as
// cancelled, neither a success nor a failure.
func TestAClientThatGoesAwayIsCountedAsCancelled(t *testing.T) {
	mem := &memEngines{hold: make(chan struct{})}
	s, keys := newTestServer(t, mem, 4)
	plain, _, err := keys.Create(context.Background(), "carol")
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	img := pngOf(t, 3, 3)
	first := make(chan int, 1)
	go func() { first <- post(t, h, img, `{"engine":"mem"}`).Code }()
	for s.Tracing.Public.Stats().Busy < 1 {
		time.Sleep(time.Millisecond)
	}
	// Public and keyed lanes are separate: hold the keyed lane's worker too.
	second := make(chan int, 1)
	other, _, err := keys.Create(context.Background(), "dave")
	if err != nil {
		t.Fatal(err)
	}
	go func() { second <- post(t, h, img, `{"engine":"mem"}`, "X-API-Key", other).Code }()
	for s.Tracing.Keyed.Stats().Busy < 1 {
		time.Sleep(time.Millisecond)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- postContext(t, ctx, h, img, `{"engine":"mem"}`, "X-API-Key", plain) }()
	for s.Tracing.Keyed.Stats().Queued < 1 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	rec := <-done
	close(mem.hold)
	if rec.Code != 499 {
		t.Errorf("the abandoned request ended with %d, want 499", rec.Code)
	}
	if <-first != 200 || <-second != 200 {
		t.Error("a held request failed")
	}
	_, u, raw := getUsage(t, s, plain, "")
	if u.Total.Requests != 1 || u.Total.Cancelled != 1 || u.Total.Successes != 0 || len(u.Total.Failures) != 0 {
		t.Errorf("usage %s, want one request counted as cancelled", raw)
	}
}

// TestUsageRefusesWhatItCannotAnswer checks the refusals of GET /api/usage.
func TestUsageRefusesWhatItCannotAnswer(t *testing.T) {
	s, keys := newTestServer(t, &memEngines{}, 1)
	plain, _, err := keys.Create(context.Background(), "erin")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, key, query string
		status           int
		code             string
	}{
		{"no key", "", "", 401, fault.MissingAPIKey},
		{"an unknown key", "tc_nope", "", 401, fault.InvalidAPIKey},
		{"a bad date", plain, "?from=yesterday", 400, fault.InvalidRequest},
		{"a range backwards", plain, "?from=2026-02-02&to=2026-01-01", 400, fault.InvalidRequest},
		{"a good range with nothing in it", plain, "?from=2026-01-01&to=2026-01-31", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, u, raw := getUsage(t, s, tt.key, tt.query)
			if code != tt.status || !strings.Contains(raw, tt.code) {
				t.Errorf("got %d %s, want %d %s", code, raw, tt.status, tt.code)
			}
			if code == 200 && (u.Total.Requests != 0 || u.Days == nil) {
				t.Errorf("usage %s, want no requests and an empty list of days", raw)
			}
		})
	}
}
