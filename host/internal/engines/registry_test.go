package engines

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/internal/testbin"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// setup returns a registry over a fresh plugins folder holding the named test engines.
func setup(t *testing.T, processes int, names ...string) (*Registry, string) {
	t.Helper()
	return setupWith(t, Config{Processes: processes}, names...)
}

// setupWith is setup with the rest of the registry's configuration given.
func setupWith(t *testing.T, cfg Config, names ...string) (*Registry, string) {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		testbin.Install(t, testbin.TestEngine(t, n, ""), dir, n)
	}
	cfg.Dir, cfg.RunDir = dir, filepath.Join(t.TempDir(), "run")
	cfg.Logger = hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: testWriter{t}})
	r := New(cfg)
	t.Cleanup(r.Close)
	if _, err := r.Reload(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return r, dir
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func tinyPNG(t *testing.T) []byte {
	return testbin.SolidPNG(t, 3, 2, color.NRGBA{200, 200, 200, 200})
}

func job(t *testing.T, params map[string]any) pluginhost.TraceRequest {
	return pluginhost.TraceRequest{Image: tinyPNG(t), Params: params}
}

func TestReloadLoadsEveryEngineInTheFolder(t *testing.T) {
	r, _ := setup(t, 2, "alpha", "beta")
	var names []string
	for _, s := range r.Statuses() {
		names = append(names, s.Name+":"+s.Status)
	}
	if got := strings.Join(names, ","); got != "alpha:ready,beta:ready" {
		t.Fatalf("statuses %s", got)
	}
	res, err := r.Trace(context.Background(), "beta", job(t, nil))
	if err != nil || res.Engine != "beta" || res.Width != 3 || !bytes.Contains(res.SVG, []byte("<path")) {
		t.Fatalf("trace: %+v %v", res, err)
	}
	if _, err := r.Trace(context.Background(), "gamma", job(t, nil)); fault.Code(err) != fault.EngineUnavailable {
		t.Errorf("unknown engine gave %v, want %s", err, fault.EngineUnavailable)
	}
}

func TestAJobPastItsDeadlineIsKilledAndTheEngineReplaced(t *testing.T) {
	r, _ := setup(t, 1, "alpha")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	pids := processesOf(t, r, "alpha")
	start := time.Now()
	_, err := r.Trace(ctx, "alpha", job(t, map[string]any{"action": "spawn", "ms": 60000.0}))
	if fault.Code(err) != fault.JobTimeout {
		t.Fatalf("got %v, want %s", err, fault.JobTimeout)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the timeout took %v to answer", took)
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
	if _, err := r.Trace(context.Background(), "alpha", job(t, nil)); err != nil {
		t.Fatalf("the next job failed: %v", err)
	}
}

// TestACancelledJobIsStoppedInTheEngine cancels a job the way a client that goes away
// does: an engine that honours its context stops and its process takes the next job;
// one that ignores it is killed once the cancel grace has passed, and replaced.
func TestACancelledJobIsStoppedInTheEngine(t *testing.T) {
	tests := []struct {
		name   string
		action string
		kept   bool
	}{
		{"an engine that honours cancellation keeps its process", "sleep", true},
		{"an engine that ignores cancellation is killed after the grace", "hang", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := setupWith(t, Config{Processes: 1, CancelGrace: 300 * time.Millisecond}, "alpha")
			pids := processesOf(t, r, "alpha")
			if len(pids) != 1 {
				t.Fatalf("want one warm process, found %v", pids)
			}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			start := time.Now()
			_, err := r.Trace(ctx, "alpha", job(t, map[string]any{"action": tt.action, "ms": 60000.0}))
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v, want context.Canceled", err)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("the cancelled job took %v to return", took)
			}
			if tt.kept {
				if now := processesOf(t, r, "alpha"); len(now) != 1 || now[0] != pids[0] {
					t.Errorf("processes %v after the cancellation, want the same %v", now, pids)
				}
			} else {
				waitGone(t, pids[0])
			}
			res, err := r.Trace(context.Background(), "alpha", job(t, nil))
			if err != nil || !bytes.Contains(res.SVG, []byte("<path")) {
				t.Fatalf("the next job: %v", err)
			}
			if now := processesOf(t, r, "alpha"); tt.kept && (len(now) != 1 || now[0] != pids[0]) {
				t.Errorf("the next job ran on %v, want the kept process %v", now, pids)
			}
		})
	}
}

func TestACrashedEngineIsReplacedAndTheNextJobSucceeds(t *testing.T) {
	r, _ := setup(t, 1, "alpha")
	for _, action := range []string{"panic", "exit"} {
		_, err := r.Trace(context.Background(), "alpha", job(t, map[string]any{"action": action}))
		if fault.Code(err) != fault.EngineCrashed {
			t.Fatalf("%s: got %v, want %s", action, err, fault.EngineCrashed)
		}
		if _, err := r.Trace(context.Background(), "alpha", job(t, nil)); err != nil {
			t.Fatalf("after %s the next job failed: %v", action, err)
		}
	}
}

func TestAnEngineKilledFromOutsideMidJobIsReportedAsACrash(t *testing.T) {
	r, _ := setup(t, 1, "alpha")
	pids := processesOf(t, r, "alpha")
	if len(pids) != 1 {
		t.Fatalf("want one warm process, found %v", pids)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		syscall.Kill(pids[0], syscall.SIGKILL)
	}()
	_, err := r.Trace(context.Background(), "alpha", job(t, map[string]any{"action": "sleep", "ms": 10000.0}))
	if fault.Code(err) != fault.EngineCrashed {
		t.Fatalf("got %v, want %s", err, fault.EngineCrashed)
	}
	if _, err := r.Trace(context.Background(), "alpha", job(t, nil)); err != nil {
		t.Fatalf("the next job failed: %v", err)
	}
}

func TestAnUpgradeLetsJobsInFlightFinishOnTheOldProcess(t *testing.T) {
	r, dir := setup(t, 2, "alpha")
	oldPids := processesOf(t, r, "alpha")
	var wg sync.WaitGroup
	var inFlight Result
	var inFlightErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		inFlight, inFlightErr = r.Trace(context.Background(), "alpha", job(t, map[string]any{"action": "sleep", "ms": 1500.0}))
	}()
	waitFor(t, func() bool { s := r.Statuses(); return len(s) == 1 && s[0].Busy == 1 })
	testbin.Install(t, testbin.TestEngine(t, "alpha", "version2"), dir, "alpha")
	if _, err := r.Reload(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	res, err := r.Trace(context.Background(), "alpha", job(t, nil))
	if err != nil || res.Version != "2.0.0" {
		t.Fatalf("a new job ran on %q (%v), want version 2.0.0", res.Version, err)
	}
	wg.Wait()
	if inFlightErr != nil || inFlight.Version != "1.0.0" {
		t.Fatalf("the job in flight got %q, %v; want it finished by version 1.0.0", inFlight.Version, inFlightErr)
	}
	for _, pid := range oldPids {
		waitGone(t, pid)
	}
}

func TestABrokenPluginIsSkippedAndTheOthersKeepServing(t *testing.T) {
	r, dir := setup(t, 1, "alpha")
	testbin.Install(t, testbin.TestEngine(t, "broken", "badschema"), dir, "broken")
	testbin.Install(t, testbin.TestEngine(t, "future", "protocol9"), dir, "future")
	testbin.Install(t, testbin.TestEngine(t, "misnamed", ""), dir, "other")
	if err := os.WriteFile(filepath.Join(dir, FilePrefix+"garbage"), []byte("not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reload(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"alpha": "ready", "broken": "failed", "future": "failed", "other": "failed", "garbage": "failed"}
	for _, s := range r.Statuses() {
		if want[s.Name] != s.Status {
			t.Errorf("%s is %s (%s), want %s", s.Name, s.Status, s.Error, want[s.Name])
		}
		delete(want, s.Name)
	}
	if len(want) > 0 {
		t.Errorf("missing statuses for %v", want)
	}
	if _, err := r.Trace(context.Background(), "alpha", job(t, nil)); err != nil {
		t.Fatalf("alpha stopped serving: %v", err)
	}
	// A broken upgrade keeps the old generation serving and says why.
	testbin.Install(t, testbin.TestEngine(t, "alpha", "badschema"), dir, "alpha")
	if _, err := r.Reload(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	res, err := r.Trace(context.Background(), "alpha", job(t, nil))
	if err != nil || res.Version != "1.0.0" {
		t.Fatalf("after a broken upgrade: %v %v", res.Version, err)
	}
	for _, s := range r.Statuses() {
		if s.Name == "alpha" && (s.Status != "ready" || !strings.Contains(s.Error, "invalid description")) {
			t.Errorf("alpha status %+v, want ready with the upgrade's error", s)
		}
	}
}

func TestWatchLoadsANewBinaryAndDropsARemovedOne(t *testing.T) {
	r, dir := setup(t, 1, "alpha")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { r.Watch(ctx, nil); close(done) }()
	defer func() { cancel(); <-done }()
	time.Sleep(100 * time.Millisecond) // let the watcher start
	testbin.Install(t, testbin.TestEngine(t, "beta", ""), dir, "beta")
	waitFor(t, func() bool { _, ok := r.Get("beta"); return ok })
	os.Remove(filepath.Join(dir, FilePrefix+"alpha"))
	waitFor(t, func() bool { _, ok := r.Get("alpha"); return !ok })
}

func TestAnalyzeUsesAnyLoadedEngine(t *testing.T) {
	r, _ := setup(t, 1, "beta")
	a, _, err := r.AnalyzeAndTrace(context.Background(), []string{"alpha", "beta"}, pluginhost.AnalyzeRequest{Image: tinyPNG(t)},
		func(pluginhost.Analysis) (string, pluginhost.TraceRequest, error) {
			return "beta", pluginhost.TraceRequest{Image: tinyPNG(t)}, nil
		})
	if err != nil || a.Width != 3 || a.Features["colors"] != 1 {
		t.Fatalf("analysis %+v, %v", a, err)
	}
}

func TestAnEngineErrorKeepsItsCodeAndTheProcess(t *testing.T) {
	r, _ := setup(t, 1, "alpha")
	pids := processesOf(t, r, "alpha")
	_, err := r.Trace(context.Background(), "alpha", job(t, map[string]any{"action": "fail"}))
	var se *sdk.Error
	if !errors.As(err, &se) || se.Code != sdk.CodeInvalidSettings {
		t.Fatalf("got %v, want the engine's invalid_settings", err)
	}
	if now := processesOf(t, r, "alpha"); len(now) != 1 || now[0] != pids[0] {
		t.Errorf("processes %v, want the same %v", now, pids)
	}
}

// processesOf returns the pids of live processes running a copy of the named engine.
// processesOf returns the live processes of engine name that r started: those run from
// r's own run folder, so that engines of tests running in parallel do not count.
func processesOf(t *testing.T, r *Registry, name string) []int {
	t.Helper()
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !testbin.Alive(pid) {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && strings.HasPrefix(filepath.Base(exe), name+"-") && strings.HasPrefix(exe, r.cfg.RunDir+"/") {
			pids = append(pids, pid)
		}
	}
	return pids
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, func() bool { return !testbin.Alive(pid) })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	if !testbin.Eventually(10*time.Second, cond) {
		t.Fatal("condition not met within 10s")
	}
}

func TestAnalyzeAndTraceDecodesOnceWhenTheMeasuringEngineIsChosen(t *testing.T) {
	r, _ := setup(t, 1, "alpha", "beta")
	var b bytes.Buffer
	img := image.NewNRGBA(image.Rect(0, 0, 400, 400))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	choose := func(engine string) Chooser {
		return func(pluginhost.Analysis) (string, pluginhost.TraceRequest, error) {
			return engine, pluginhost.TraceRequest{Image: data}, nil
		}
	}
	ctx := context.Background()
	a, res, err := r.AnalyzeAndTrace(ctx, []string{"alpha"}, pluginhost.AnalyzeRequest{Image: data}, choose("alpha"))
	if err != nil || a.Decode <= 0 || res.Engine != "alpha" || res.Decode != 0 || res.Width != 400 {
		t.Errorf("same engine: %+v / %+v, %v; want one decode, in the analysis", a, res, err)
	}
	a, res, err = r.AnalyzeAndTrace(ctx, []string{"alpha"}, pluginhost.AnalyzeRequest{Image: data}, choose("beta"))
	if err != nil || a.Decode <= 0 || res.Engine != "beta" || res.Decode <= 0 {
		t.Errorf("other engine: %+v / %+v, %v; want a decode in each", a, res, err)
	}
	wantErr := errors.New("no choice")
	_, _, err = r.AnalyzeAndTrace(ctx, []string{"alpha"}, pluginhost.AnalyzeRequest{Image: data}, func(pluginhost.Analysis) (string, pluginhost.TraceRequest, error) {
		return "", pluginhost.TraceRequest{}, wantErr
	})
	if !errors.Is(err, wantErr) {
		t.Errorf("chooser error: got %v", err)
	}
	if _, res, err := r.AnalyzeAndTrace(ctx, []string{"alpha"}, pluginhost.AnalyzeRequest{Image: data}, choose("alpha")); err != nil || res.Engine != "alpha" {
		t.Errorf("after a chooser error the engine still serves: %+v, %v", res, err)
	}
}
