package api

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/auth"
	"github.com/tracecraft/tracecraft/host/internal/engines"
	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/lanes"
	"github.com/tracecraft/tracecraft/host/internal/store"
	_ "github.com/tracecraft/tracecraft/host/internal/store/sqlite" // store dialect
	"github.com/tracecraft/tracecraft/host/internal/tracing"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// memParams are the in-memory engine's parameters.
type memParams struct {
	Color string `param:"color" enum:"red,blue" default:"red" desc:"the colour to draw"`
	Fail  string `param:"fail" enum:"none,settings,timeout,crash,panic" default:"none" desc:"how to fail"`
}

// memEngines stands in for the engine processes: one engine, "mem", that draws a
// rectangle of the image's size in its colour, or fails as the registry would report
// it. A job waits while hold is non-nil and open.
type memEngines struct {
	hold chan struct{}
}

func (m *memEngines) Engines() []*engines.Engine {
	return []*engines.Engine{{Desc: sdk.Descriptor{Name: "mem", Version: "1.0.0", Stability: sdk.Stable,
		Description: "an in-memory engine for the handler's tests", Params: sdk.Describe[memParams]()}}}
}

func (m *memEngines) Statuses() []engines.Status {
	return []engines.Status{{Name: "mem", Version: "1.0.0", Status: "ready"}}
}

func (m *memEngines) Trace(ctx context.Context, name string, req pluginhost.TraceRequest) (engines.Result, error) {
	if m.hold != nil {
		select {
		case <-m.hold:
		case <-ctx.Done():
			return engines.Result{}, ctx.Err()
		}
	}
	p, err := sdk.Decode[memParams](req.Params)
	if err != nil {
		return engines.Result{}, fault.FromSDK(err)
	}
	switch p.Fail {
	case "settings":
		return engines.Result{}, fault.FromSDK(sdk.Errorf(sdk.CodeInvalidSettings, "the engine refuses these settings"))
	case "timeout":
		return engines.Result{}, fault.New(fault.JobTimeout, "engine %q did not finish within the job time limit", name)
	case "crash":
		return engines.Result{}, fault.New(fault.EngineCrashed, "engine %q crashed", name)
	case "panic":
		panic("the in-memory engine panics")
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(req.Image))
	if err != nil {
		return engines.Result{}, fault.FromSDK(sdk.Errorf(sdk.CodeCorruptImage, "%v", err))
	}
	fill := map[string]string{"red": "#f00", "blue": "#00f"}[p.Color]
	svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + strconv.Itoa(cfg.Width) + ` ` + strconv.Itoa(cfg.Height) + `"><path fill="` + fill + `" d="M0 0H1V1Z"/></svg>`
	return engines.Result{TraceResult: pluginhost.TraceResult{SVG: []byte(svg), Width: cfg.Width, Height: cfg.Height}, Engine: "mem", Version: "1.0.0"}, nil
}

func (m *memEngines) AnalyzeAndTrace(ctx context.Context, prefer []string, image pluginhost.AnalyzeRequest, choose engines.Chooser) (pluginhost.Analysis, engines.Result, error) {
	return pluginhost.Analysis{}, engines.Result{}, fault.New(fault.EngineUnavailable, "the in-memory engine does not measure images")
}

// newTestServer returns the service's handler over mem, with lanes of one worker and
// capacity queue, and the store holding its keys.
func newTestServer(t testing.TB, mem *memEngines, queue int) (*Server, *auth.Keys) {
	t.Helper()
	st, err := store.Open(context.Background(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	public := lanes.New(lanes.Config{Name: "public", Workers: 1, Capacity: queue})
	keyed := lanes.New(lanes.Config{Name: "keyed", Workers: 1, Capacity: queue, PerKey: 1})
	t.Cleanup(public.Close)
	t.Cleanup(keyed.Close)
	keys := &auth.Keys{Store: st}
	s := &Server{
		Tracing: &tracing.Service{Engines: mem, MaxPixels: 1 << 20, JobTimeout: 10 * time.Second,
			Public: public, Keyed: keyed, Uploads: tracing.NewBudget(64 << 20), Usage: st},
		Keys: keys, Store: st,
	}
	return s, keys
}

func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	img.SetNRGBA(0, 0, color.NRGBA{0, 0, 0, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// post sends a multipart upload to POST /api/vectorize.
func post(t testing.TB, h http.Handler, img []byte, settings string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	return postContext(t, context.Background(), h, img, settings, header...)
}

// postContext is post with a context that ends the request.
func postContext(t testing.TB, ctx context.Context, h http.Handler, img []byte, settings string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if img != nil {
		fw, _ := mw.CreateFormFile("image", "in.png")
		fw.Write(img)
	}
	if settings != "" {
		mw.WriteField("settings", settings)
	}
	mw.Close()
	req := httptest.NewRequestWithContext(ctx, "POST", "/api/vectorize", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestVectorizeInProcess runs the handler over the in-memory engine: successes in JSON and
// bare, a key's lane, and each kind of refusal with its status and code.
func TestVectorizeInProcess(t *testing.T) {
	s, keys := newTestServer(t, &memEngines{}, 4)
	h := s.Handler()
	plain, _, err := keys.Create(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	img := pngOf(t, 6, 4)
	tests := []struct {
		name     string
		img      []byte
		settings string
		header   []string
		status   int
		code     string // of the error, or "" for success
		contains []string
	}{
		{"defaults", img, `{"engine":"mem"}`, nil, 200, "", []string{`"engine":"mem"`, `fill=\"#f00\"`, `"color":"red"`, `"lane":"public"`}},
		{"a parameter", img, `{"engine":"mem","mem":{"color":"blue"}}`, nil, 200, "", []string{`fill=\"#00f\"`, `"color":"blue"`}},
		{"the bare SVG", img, `{"engine":"mem"}`, []string{"Accept", "image/svg+xml"}, 200, "", []string{`<svg xmlns=`}},
		{"a key's lane", img, `{"engine":"mem"}`, []string{"X-API-Key", plain}, 200, "", []string{`"lane":"keyed"`}},
		{"a bad key", img, `{"engine":"mem"}`, []string{"X-API-Key", "tc_nope"}, 401, fault.InvalidAPIKey, nil},
		{"every settings problem", img, `{"engine":"mem","mem":{"color":"green","size":3}}`, nil, 400, fault.InvalidSettings, []string{"mem.color", "mem.size"}},
		{"no image", nil, `{"engine":"mem"}`, nil, 400, fault.MissingImage, nil},
		{"not an image", []byte("GIF89a...."), `{"engine":"mem"}`, nil, 400, fault.UnsupportedFormat, nil},
		{"an engine's refusal", img, `{"engine":"mem","mem":{"fail":"settings"}}`, nil, 400, fault.InvalidSettings, []string{"refuses"}},
		{"a timeout", img, `{"engine":"mem","mem":{"fail":"timeout"}}`, nil, 503, fault.JobTimeout, nil},
		{"a crash", img, `{"engine":"mem","mem":{"fail":"crash"}}`, nil, 500, fault.EngineCrashed, nil},
		{"an engine that is not installed", img, `{"engine":"vtracer"}`, nil, 400, fault.InvalidSettings, []string{"vtracer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(t, h, tt.img, tt.settings, tt.header...)
			body := rec.Body.String()
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, body)
			}
			if tt.code != "" {
				var e struct {
					Error struct{ Code string } `json:"error"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error.Code != tt.code {
					t.Errorf("error code %q (%v), want %q: %s", e.Error.Code, err, tt.code, body)
				}
			}
			for _, want := range tt.contains {
				if !strings.Contains(body, want) {
					t.Errorf("the answer lacks %s: %s", want, body)
				}
			}
			if rec.Header().Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "sandbox") {
				t.Errorf("headers %v lack nosniff or the CSP", rec.Header())
			}
		})
	}
}

// TestAFullLaneIsRefusedWithRetryAfter fills the one worker and the one queue place of
// the public lane with held jobs; the next request is 429 with Retry-After.
func TestAFullLaneIsRefusedWithRetryAfter(t *testing.T) {
	mem := &memEngines{hold: make(chan struct{})}
	s, _ := newTestServer(t, mem, 1)
	h := s.Handler()
	img := pngOf(t, 3, 3)
	done := make(chan int, 2)
	for range 2 {
		go func() { done <- post(t, h, img, `{"engine":"mem"}`).Code }()
	}
	deadline := time.Now().Add(10 * time.Second)
	for st := s.Tracing.Public.Stats(); st.Busy+st.Queued < 2; st = s.Tracing.Public.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("the held jobs did not reach the lane: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	rec := post(t, h, img, `{"engine":"mem"}`)
	close(mem.hold)
	if rec.Code != 429 || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), fault.QueueFull) {
		t.Fatalf("got %d %v %s, want 429 queue_full with Retry-After", rec.Code, rec.Header(), rec.Body)
	}
	for range 2 {
		if code := <-done; code != 200 {
			t.Errorf("a held job ended with %d, want 200", code)
		}
	}
}

// TestAJobThatPanicsIsAnInternalErrorAndTheHostServesOn: a job that panics in the host,
// whether it ran in its request's goroutine or, queued behind another, in a lane
// worker's, is answered 500 internal and counted in the key's usage as such, and the
// host keeps serving.
func TestAJobThatPanicsIsAnInternalErrorAndTheHostServesOn(t *testing.T) {
	for _, queued := range []bool{false, true} {
		t.Run(map[bool]string{false: "run by its request", true: "queued, run by a worker"}[queued], func(t *testing.T) {
			mem := &memEngines{}
			s, keys := newTestServer(t, mem, 2)
			h := s.Handler()
			plain, key, err := keys.Create(context.Background(), "alice")
			if err != nil {
				t.Fatal(err)
			}
			img := pngOf(t, 3, 3)
			var first chan int
			if queued {
				mem.hold = make(chan struct{})
				first = make(chan int, 1)
				go func() { first <- post(t, h, img, `{"engine":"mem"}`, "X-API-Key", plain).Code }()
				waitBusy(t, s.Tracing.Keyed, 1, 0)
				go func() {
					waitBusy(t, s.Tracing.Keyed, 1, 1)
					close(mem.hold)
				}()
			}
			rec := post(t, h, img, `{"engine":"mem","mem":{"fail":"panic"}}`, "X-API-Key", plain)
			if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"code":"`+fault.Internal+`"`) {
				t.Fatalf("a job that panicked got %d %s, want 500 %s", rec.Code, rec.Body, fault.Internal)
			}
			if queued {
				if code := <-first; code != 200 {
					t.Errorf("the job before it got %d, want 200", code)
				}
			}
			if rec := post(t, h, img, `{"engine":"mem"}`, "X-API-Key", plain); rec.Code != 200 {
				t.Errorf("the next request got %d, want 200: %s", rec.Code, rec.Body)
			}
			day := store.Day(time.Now())
			u, err := s.Store.Usage(context.Background(), key.ID, day, day)
			if err != nil || len(u) != 1 || u[0].Failures[500] != 1 {
				t.Errorf("usage %+v (%v), want the panicked job counted as one 500", u, err)
			}
		})
	}
}

// waitBusy waits until lane l has busy jobs running and queued waiting.
func waitBusy(t *testing.T, l *lanes.Lane, busy, queued int) {
	deadline := time.Now().Add(10 * time.Second)
	for st := l.Stats(); st.Busy != busy || st.Queued != queued; st = l.Stats() {
		if time.Now().After(deadline) {
			t.Errorf("lane %+v, want %d busy and %d queued", st, busy, queued)
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}
