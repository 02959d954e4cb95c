package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/selector"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/internal/testbin"
	clengine "github.com/tracecraft/tracecraft/plugins/centerline/engine"
	potrace "github.com/tracecraft/tracecraft/plugins/potrace/engine"
	p2engine "github.com/tracecraft/tracecraft/plugins/potrace2/engine"
	tcengine "github.com/tracecraft/tracecraft/plugins/tracecraft/engine"
	tc2engine "github.com/tracecraft/tracecraft/plugins/tracecraft2/engine"
	vtracer "github.com/tracecraft/tracecraft/plugins/vtracer/engine"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

func TestKeysLanesAndUsage(t *testing.T) {
	t.Parallel()
	dir := newPlugins(t, "testengine")
	data := t.TempDir()
	h := startHost(t, dir, data, "--workers", "2")
	img := testbin.SolidPNG(t, 16, 16, color.NRGBA{9, 9, 9, 255})

	// Keys are made by the CLI while the server runs on the same data dir.
	key, errOut, code := tracecraft(t, nil, "keys", "create", "--name", "acme", "--data-dir", data)
	key = strings.TrimSpace(key)
	if code != 0 || !regexp.MustCompile(`^tc_[A-Za-z0-9]{32}$`).MatchString(key) {
		t.Fatalf("keys create: %q %q exit %d", key, errOut, code)
	}
	if _, _, code := tracecraft(t, nil, "keys", "create", "--name", "acme", "--data-dir", data); code == 0 {
		t.Error("a second key with the same name was created")
	}
	// The environment sets flags too.
	if _, errOut, code := tracecraft(t, []string{"TRACECRAFT_DATA_DIR=" + data}, "keys", "create", "--name", "other"); code != 0 {
		t.Fatalf("keys create with TRACECRAFT_DATA_DIR: %s", errOut)
	}

	for _, bad := range []string{"", "tc_short", "tc_" + strings.Repeat("A", 32)} {
		r := h.vectorize(img, "", "X-API-Key", bad)
		if r.status != 401 || r.errorCode() != "invalid_api_key" {
			t.Errorf("key %q: %s", bad, r)
		}
	}

	const n = 16 // within one key's share of the keyed queue (2 workers + 16 waiting)
	var wg sync.WaitGroup
	statuses := make(chan int, n)
	for range n {
		wg.Go(func() {
			r := h.vectorize(img, `{"engine":"testengine"}`, "X-API-Key", key)
			if r.json["lane"] != "keyed" {
				t.Errorf("lane = %v", r.json["lane"])
			}
			statuses <- r.status
		})
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != 200 {
			t.Errorf("keyed request: %d", s)
		}
	}
	// One failure, counted by status.
	if r := h.vectorize(img, `{"engine":"nope"}`, "X-API-Key", key); r.status != 400 {
		t.Errorf("bad settings with key: %s", r)
	}

	wantUsage := func(h *host) {
		t.Helper()
		r := do(t, mustRequest(t, "GET", h.url+"/api/usage", "X-API-Key", key))
		total, _ := r.json["total"].(map[string]any)
		failures, _ := total["failures"].(map[string]any)
		if r.status != 200 || total["requests"] != float64(n+1) || total["successes"] != float64(n) || failures["400"] != 1.0 ||
			total["inputBytes"] != float64((n+1)*len(img)) || total["pixels"] != float64(n*256) {
			t.Errorf("usage: %s", r)
		}
	}
	wantUsage(h)

	// Usage survives a restart.
	h.stop()
	h2 := startHost(t, dir, data)
	wantUsage(h2)

	out, _, code := tracecraft(t, nil, "keys", "list", "--data-dir", data)
	if code != 0 || !strings.Contains(out, "acme") || strings.Contains(out, key) || !strings.Contains(out, "LAST USED") {
		t.Errorf("keys list: %s", out)
	}
	// A revoke holds at once.
	if _, errOut, code := tracecraft(t, nil, "keys", "revoke", "acme", "--data-dir", data); code != 0 {
		t.Fatalf("revoke: %s", errOut)
	}
	if r := h2.vectorize(img, "", "X-API-Key", key); r.status != 401 || r.errorCode() != "invalid_api_key" {
		t.Errorf("revoked key: %s", r)
	}
	if _, _, code := tracecraft(t, nil, "keys", "revoke", "nobody", "--data-dir", data); code == 0 {
		t.Error("revoking an unknown key succeeded")
	}
}

func mustRequest(t *testing.T, method, url string, header ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// jsonObject decodes a JSON object.
func jsonObject(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPluginsDieWithTheHost kills the host with SIGKILL: its engine processes must not
// outlive it.
func TestPluginsDieWithTheHost(t *testing.T) {
	t.Parallel()
	dir := newPlugins(t, "alpha", "beta")
	h := startHost(t, dir, "")
	img := testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255})
	for _, e := range []string{"alpha", "beta"} {
		if r := h.vectorize(img, `{"engine":"`+e+`"}`); r.status != 200 {
			t.Fatalf("%s: %s", e, r)
		}
	}
	plugins := children(h.cmd.Process.Pid)
	if len(plugins) < 2 {
		t.Fatalf("host has %d child processes, want at least 2", len(plugins))
	}
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-h.exited
	if !testbin.Eventually(10*time.Second, func() bool {
		for _, p := range plugins {
			if testbin.Alive(p) {
				return false
			}
		}
		return true
	}) {
		t.Errorf("engine processes %v outlived the killed host", plugins)
	}
}

func TestEnginesReloadWithoutRestart(t *testing.T) {
	t.Parallel()
	dir := newPlugins(t, "testengine")
	h := startHost(t, dir, "", "--workers", "1", "--log-level", "debug")
	img := testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255})
	if r := h.vectorize(img, `{"engine":"testengine"}`); r.json["engineVersion"] != "1.0.0" {
		t.Fatalf("before: %s", r)
	}

	// A job in flight finishes on the old process while the file is replaced.
	inflight := make(chan reply, 1)
	go func() {
		inflight <- h.vectorize(img, `{"engine":"testengine","testengine":{"action":"sleep","ms":2500}}`)
	}()
	if !testbin.Eventually(10*time.Second, func() bool {
		r := h.get("/api/health")
		return r.json["lanes"].([]any)[0].(map[string]any)["busy"] == 1.0
	}) {
		t.Fatal("the slow job never started")
	}
	testbin.Install(t, testbin.TestEngine(t, "testengine", "version2"), dir, "testengine")
	h.log.waitFor(t, regexp.MustCompile(`engine upgraded: engine=testengine from=1\.0\.0 to=2\.0\.0`), 15*time.Second)
	if r := <-inflight; r.status != 200 || r.json["engineVersion"] != "1.0.0" {
		t.Errorf("in-flight job: %s", r)
	}
	if r := h.vectorize(img, `{"engine":"testengine"}`); r.status != 200 || r.json["engineVersion"] != "2.0.0" {
		t.Errorf("after the upgrade: %s", r)
	}

	// Broken plugins are logged and skipped; the host keeps serving.
	testbin.Install(t, testbin.TestEngine(t, "badschema", "badschema"), dir, "badschema")
	testbin.Install(t, testbin.TestEngine(t, "future", "protocol9"), dir, "future")
	h.log.waitFor(t, regexp.MustCompile(`engine=badschema`), 15*time.Second)
	h.log.waitFor(t, regexp.MustCompile(`engine=future`), 15*time.Second)
	r := h.get("/api/health")
	if r.json["status"] != "degraded" || !strings.Contains(string(r.body), `"failed"`) {
		t.Errorf("health with broken plugins: %s", r)
	}
	if r := h.vectorize(img, `{"engine":"testengine"}`); r.status != 200 {
		t.Errorf("with broken plugins: %s", r)
	}
	if r := h.vectorize(img, `{"engine":"badschema"}`); r.status != 400 {
		t.Errorf("a skipped engine is not offered: %s", r)
	}

	// SIGHUP rescans the folder too.
	if err := h.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	h.log.waitFor(t, regexp.MustCompile(`rescanned: why=signal`), 10*time.Second)
	// A removed engine is retired.
	if err := os.Remove(filepath.Join(dir, "tracecraft-engine-badschema")); err != nil {
		t.Fatal(err)
	}
	if !testbin.Eventually(10*time.Second, func() bool { return !strings.Contains(string(h.get("/api/health").body), "badschema") }) {
		t.Error("a removed engine is still listed")
	}
}

// sceneImage draws discs, a ring, a gradient band and a transparent corner: enough for
// every engine and parameter to matter.
func sceneImage(t testing.TB) []byte {
	const w, h = 160, 120
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{240, 235, 220, 255}
			dx, dy := float64(x-50), float64(y-60)
			switch d := math.Hypot(dx, dy); {
			case d < 18:
				c = color.NRGBA{200, 30, 40, 255}
			case d > 26 && d < 34:
				c = color.NRGBA{20, 20, 30, 255}
			}
			if math.Hypot(float64(x-120), float64(y-40)) < 22 {
				c = color.NRGBA{30, 90, 200, 255}
			}
			if y > 95 {
				c = color.NRGBA{uint8(x * 255 / w), 160, uint8(255 - x*255/w), 255}
			}
			if x > 140 && y > 80 {
				c.A = 0
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// erased is an engine with its parameter type erased, so that engines of different
// parameter structs share a table.
type erased struct {
	desc  sdk.Descriptor
	trace func(ctx context.Context, img *image.NRGBA, given map[string]any) ([]byte, error)
}

func erase[P any](e sdk.Engine[P]) erased {
	return erased{desc: e.Describe(), trace: func(ctx context.Context, img *image.NRGBA, given map[string]any) ([]byte, error) {
		p, err := sdk.Decode[P](given)
		if err != nil {
			return nil, err
		}
		return e.Trace(ctx, img, p)
	}}
}

// TestBundledEnginesThroughTheService traces an image with the real plugins through
// HTTP and the trace command, with each parameter changed in turn: both give exactly
// what the engine's package gives.
func TestBundledEnginesThroughTheService(t *testing.T) {
	t.Parallel()
	engines := []struct {
		name   string
		engine erased
		params []string
	}{
		{"potrace", erase(potrace.New()), []string{`{}`, `{"threshold":200}`, `{"turdSize":50}`, `{"turnPolicy":"black"}`, `{"turnPolicy":"right"}`,
			`{"alphaMax":0}`, `{"alphaMax":1.334}`, `{"optCurve":false}`, `{"optTolerance":1}`}},
		{"vtracer", erase(vtracer.New()), []string{`{}`, `{"colorMode":"bw"}`, `{"hierarchical":"cutout"}`, `{"mode":"polygon"}`, `{"mode":"pixel"}`,
			`{"preset":"photo"}`, `{"preset":"poster","colorPrecision":5}`, `{"filterSpeckle":0}`, `{"colorPrecision":3}`, `{"gradientStep":64}`,
			`{"cornerThreshold":22.5}`, `{"segmentLength":9}`, `{"spliceThreshold":10}`, `{"pathPrecision":2}`,
			`{"palette":["navy","#e63946","white"]}`, `{"colorMode":"bw","palette":["#e63946","gold"]}`}},
		{"tracecraft", erase(tcengine.New()), []string{`{}`, `{"maxColors":4}`, `{"minRegion":0}`, `{"tolerance":2}`, `{"drawStyle":"strokeShapes"}`,
			`{"drawStyle":"strokeEdges","strokeWidth":3,"overrideColor":"rgb(10 20 30)","nonScalingStroke":true}`, `{"shapeStacking":"stacked"}`,
			`{"groupBy":"color"}`, `{"groupBy":"parent","shapeStacking":"stacked"}`, `{"fixedSize":true}`, `{"gapFiller":"off"}`, `{"gapFiller":"on","gapFillerWidth":2}`,
			`{"palette":["navy","#e63946","white"]}`}},
		{"tracecraft2", erase(tc2engine.New()), []string{`{}`, `{"maxColors":4,"minRegion":0,"tolerance":1}`, `{"primitives":false}`,
			`{"primitiveTolerance":1.5,"fixedSize":true}`, `{"palette":["navy","#e63946","white"]}`}},
		{"potrace2", erase(p2engine.New()), []string{`{}`, `{"maxColors":4,"minRegion":0}`, `{"turdSize":20,"alphaMax":0.2}`,
			`{"optTolerance":0.5,"upscale":1}`, `{"palette":["navy","#e63946","white"]}`}},
		{"centerline", erase(clengine.New()), []string{`{}`, `{"colors":3}`, `{"strokeWidth":"variable","fillMode":"hatch"}`}},
	}
	dir := t.TempDir()
	for _, e := range engines {
		testbin.Install(t, testbin.Build(t, "./plugins/"+e.name), dir, e.name)
	}
	h := startHost(t, dir, "")
	schema := h.get("/api/schema")
	if got := schema.json["engines"]; !reflect.DeepEqual(got, []any{"tracecraft", "auto", "vtracer", "potrace"}) {
		t.Errorf("engines = %v", got)
	}
	if got := schema.json["experimentalEngines"]; !reflect.DeepEqual(got, []any{"potrace2", "tracecraft2"}) {
		t.Errorf("experimentalEngines = %v", got)
	}
	if got := schema.json["namedEngines"]; !reflect.DeepEqual(got, []any{"centerline"}) {
		t.Errorf("namedEngines = %v", got)
	}
	for _, e := range engines {
		params, _ := schema.json[e.name].(map[string]any)
		if len(params) != len(e.engine.desc.Params) {
			t.Errorf("schema of %s: %v", e.name, params)
		}
	}
	img := sceneImage(t)
	file := filepath.Join(t.TempDir(), "scene.png")
	if err := os.WriteFile(file, img, 0o644); err != nil {
		t.Fatal(err)
	}
	decoded, _, err := raster.Decode(img, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range engines {
		for _, params := range e.params {
			settings := `{"engine":"` + e.name + `","` + e.name + `":` + params + `}`
			want, err := e.engine.trace(context.Background(), decoded, jsonObject(t, params))
			if err != nil {
				t.Fatal(err)
			}
			r := h.vectorize(img, settings, "Accept", "image/svg+xml")
			if r.status != 200 {
				t.Fatalf("%s: %s", settings, r)
			}
			out, errOut, code := tracecraft(t, nil, "trace", "--settings", settings, "--plugins-dir", dir, file)
			if code != 0 {
				t.Fatalf("trace: %s", errOut)
			}
			if !bytes.Equal(r.body, want) || out != string(want) {
				t.Errorf("%s: service (%d bytes) and trace command (%d bytes) differ from the package (%d bytes)", settings, len(r.body), len(out), len(want))
			}
		}
	}
}

func TestTraceCommandReportsBadInput(t *testing.T) {
	t.Parallel()
	dir := newPlugins(t, "testengine")
	tmp := t.TempDir()
	good := filepath.Join(tmp, "good.png")
	bad := filepath.Join(tmp, "bad.png")
	_ = os.WriteFile(good, testbin.SolidPNG(t, 3, 3, color.NRGBA{0, 0, 0, 255}), 0o644)
	_ = os.WriteFile(bad, []byte("GIF89a..."), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{good}, 0, "<svg"},
		{[]string{bad}, 1, "unsupported_format"},
		{[]string{filepath.Join(tmp, "missing.png")}, 1, "no such file"},
		{[]string{"--settings", `{"testengine":{"ms":"x"}}`, good}, 1, "testengine.ms"},
		{[]string{}, 2, "usage"},
	} {
		out, errOut, code := tracecraft(t, nil, append([]string{"trace", "--plugins-dir", dir}, tc.args...)...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("trace %v: exit %d, out %.100q, err %q; want exit %d and %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
	}
}

// TestEngineKilledFromOutside kills the engine process with SIGKILL in the middle of a
// job: the job is answered 500 engine_crashed and the next one succeeds.
func TestEngineKilledFromOutside(t *testing.T) {
	t.Parallel()
	h := startHost(t, newPlugins(t, "testengine"), "", "--workers", "1")
	img := testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255})
	done := make(chan reply, 1)
	go func() {
		done <- h.vectorize(img, `{"engine":"testengine","testengine":{"action":"sleep","ms":30000}}`)
	}()
	if !testbin.Eventually(10*time.Second, func() bool {
		return h.get("/api/health").json["lanes"].([]any)[0].(map[string]any)["busy"] == 1.0
	}) {
		t.Fatal("the job never started")
	}
	for _, pid := range children(h.cmd.Process.Pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if r := <-done; r.status != 500 || r.errorCode() != "engine_crashed" {
		t.Errorf("killed mid-job: %s", r)
	}
	if r := h.vectorize(img, `{"engine":"testengine"}`); r.status != 200 {
		t.Errorf("after the kill: %s", r)
	}
}

// TestLargestImagesPass sends a file just under 10 MB and an image of 40 megapixels: both
// cross the gRPC connection to the engine and are traced.
func TestLargestImagesPass(t *testing.T) {
	t.Parallel()
	h := startHost(t, newPlugins(t, "testengine"), "", "--workers", "1")
	big := noisePNG(t, 1600, 1600)
	if len(big) < 10_000_000 || len(big) > 10<<20 {
		t.Fatalf("test file is %d bytes", len(big))
	}
	if r := h.vectorize(big, `{"engine":"testengine"}`); r.status != 200 || r.json["width"] != 1600.0 {
		t.Errorf("10 MB file: %s", r)
	}
	huge := testbin.SolidPNG(t, 8000, 5000, color.NRGBA{10, 200, 30, 255})
	if r := h.vectorize(huge, `{"engine":"testengine"}`); r.status != 200 || r.json["width"] != 8000.0 || !strings.Contains(r.json["svg"].(string), "#0ac81e") {
		t.Errorf("40 MP image: %s", r)
	}
}

// TestPresetsFitTheBundledEngines checks every preset parameter against the bundled
// engine's schema: the host silently leaves out preset parameters an engine does not
// take (for replaced engines), so a typo here would go unnoticed.
func TestPresetsFitTheBundledEngines(t *testing.T) {
	t.Parallel()
	bundled := map[string]sdk.Descriptor{"potrace": potrace.New().Describe(), "vtracer": vtracer.New().Describe(), "tracecraft": tcengine.New().Describe()}
	for _, p := range selector.Presets() {
		sets := append([]settings.Variant{{Name: "", Engine: p.Engine, Params: p.Params}}, p.Variants...)
		for _, v := range sets {
			e, ok := bundled[v.Engine]
			if !ok {
				t.Errorf("preset %s %s names engine %s, which is not bundled", p.Name, v.Name, v.Engine)
				continue
			}
			for k, val := range v.Params {
				param, ok := e.Param(k)
				if !ok {
					t.Errorf("preset %s %s: %s has no parameter %s", p.Name, v.Name, v.Engine, k)
				} else if msg := param.Check(val); msg != "" {
					t.Errorf("preset %s %s: %s.%s = %v %s", p.Name, v.Name, v.Engine, k, val, msg)
				}
			}
		}
	}
}
