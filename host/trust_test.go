package main

import (
	"encoding/json"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// TestHealthShowsNoRawLoadErrors installs plugins that fail to load in different ways
// and checks that /api/health, which anyone may read, says why in the host's words,
// without file paths or go-plugin's text, while the log has the whole error.
func TestHealthShowsNoRawLoadErrors(t *testing.T) {
	t.Parallel()
	dir := newPlugins(t, "testengine")
	h := startHost(t, dir, "")
	testbin.Install(t, testbin.TestEngine(t, "future", "protocol9"), dir, "future")
	script := filepath.Join(dir, "tracecraft-engine-script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho not a plugin >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.log.waitFor(t, regexp.MustCompile(`engine not loaded.*engine=script`), 30*time.Second)
	h.log.waitFor(t, regexp.MustCompile(`engine not loaded.*engine=future`), 30*time.Second)
	h.log.waitFor(t, regexp.MustCompile(`handshake failed: start `), time.Second)

	var health struct {
		Engines []struct{ Name, Status, Error string } `json:"engines"`
	}
	if err := json.Unmarshal(h.get("/api/health").body, &health); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range health.Engines {
		if e.Name != "script" && e.Name != "future" {
			continue
		}
		seen++
		if e.Status != "failed" || !strings.Contains(e.Error, "handshake") || !strings.Contains(e.Error, "log") {
			t.Errorf("%s: status %q, error %q; want failed, the reason in words and a pointer to the log", e.Name, e.Status, e.Error)
		}
		for _, leak := range []string{"/", dir, "exec", "plugin:", "Unrecognized", "exit status", "not a plugin"} {
			if strings.Contains(e.Error, leak) {
				t.Errorf("%s: /api/health shows %q: %s", e.Name, leak, e.Error)
			}
		}
	}
	if seen != 2 {
		t.Errorf("/api/health lists %d of the 2 failed engines: %+v", seen, health.Engines)
	}
}

// TestAHalfCopiedEngineIsNotLoaded writes half of an engine binary into the plugins
// folder, executable, and pauses past the watcher's debounce: the host must wait, not
// run it, and load it once the copy completes.
func TestAHalfCopiedEngineIsNotLoaded(t *testing.T) {
	t.Parallel()
	dir := newPlugins(t, "testengine")
	h := startHost(t, dir, "")
	bin, err := os.ReadFile(testbin.TestEngine(t, "late", ""))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "tracecraft-engine-late"), os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(bin[:len(bin)/2]); err != nil {
		t.Fatal(err)
	}
	h.log.waitFor(t, regexp.MustCompile(`engine file not complete yet; waiting: engine=late`), 10*time.Second)
	time.Sleep(3 * time.Second) // several debounces
	if regexp.MustCompile(`engine not loaded.*engine=late|engine loaded.*engine=late`).MatchString(h.log.String()) {
		t.Fatalf("the half-copied file was started:\n%s", h.log.String())
	}
	if strings.Contains(string(h.get("/api/health").body), `"late"`) {
		t.Errorf("/api/health lists the half-copied engine: %s", h.get("/api/health").body)
	}
	if _, err := f.Write(bin[len(bin)/2:]); err != nil {
		t.Fatal(err)
	}
	h.log.waitFor(t, regexp.MustCompile(`engine loaded: engine=late`), 20*time.Second)
	if r := h.vectorize(testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255}), `{"engine":"late"}`); r.status != 200 {
		t.Errorf("the completed engine: %s", r)
	}
}

// TestACrashLoopIsRefusedForAWhile crashes one engine --crash-limit times: it is then
// failing in /api/health and its jobs get 503 engine_unavailable with Retry-After, while
// another engine keeps serving; after the back-off it is tried again.
func TestACrashLoopIsRefusedForAWhile(t *testing.T) {
	t.Parallel()
	h := startHost(t, newPlugins(t, "testengine", "other"), "", "--crash-limit", "3", "--crash-window", "1m", "--crash-backoff", "3s")
	img := testbin.SolidPNG(t, 4, 4, color.NRGBA{1, 2, 3, 255})
	for i := range 3 {
		if r := h.vectorize(img, `{"engine":"testengine","testengine":{"action":"panic"}}`); r.status != 500 || r.errorCode() != "engine_crashed" {
			t.Fatalf("crash %d: %s", i+1, r)
		}
	}
	r := h.vectorize(img, `{"engine":"testengine"}`)
	if r.status != 503 || r.errorCode() != "engine_unavailable" || r.header.Get("Retry-After") == "" {
		t.Fatalf("after 3 crashes: %s with Retry-After %q, want 503 engine_unavailable with a Retry-After", r, r.header.Get("Retry-After"))
	}
	var health struct {
		Engines []struct{ Name, Status, Error string } `json:"engines"`
	}
	if err := json.Unmarshal(h.get("/api/health").body, &health); err != nil {
		t.Fatal(err)
	}
	for _, e := range health.Engines {
		if want := map[string]string{"testengine": "failing", "other": "ready"}[e.Name]; e.Status != want {
			t.Errorf("%s is %q (%s) in /api/health, want %q", e.Name, e.Status, e.Error, want)
		}
	}
	if r := h.vectorize(img, `{"engine":"other"}`); r.status != 200 {
		t.Errorf("the other engine during the back-off: %s", r)
	}
	if !testbin.Eventually(10*time.Second, func() bool { return h.vectorize(img, `{"engine":"testengine"}`).status == 200 }) {
		t.Error("the engine was not tried again after its back-off")
	}
}
