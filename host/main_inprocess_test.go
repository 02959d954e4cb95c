package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// TestMainServesInProcessAndLeavesNoGoroutine runs the serve command as a Main value in
// the test process (no plugins, an embedded store), asks it for its health, stops it by
// ending its context and checks that Run returned and every goroutine it started has
// ended, the SIGHUP watcher included. It does not run in parallel with the other tests:
// it counts the test process's goroutines, theirs included.
func TestMainServesInProcessAndLeavesNoGoroutine(t *testing.T) {
	// The runtime's signal loop starts with the first signal.Notify and never ends:
	// start it before counting.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGHUP)
	signal.Stop(sig)
	before := runtime.NumGoroutine()
	var log bytes.Buffer
	m := &Main{Stderr: &log}
	if err := m.ParseFlags([]string{"--addr", "127.0.0.1:0", "--plugins-dir", t.TempDir(), "--data-dir", t.TempDir(), "--workers", "1"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := m.Open(ctx); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- m.Run(ctx) }()

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + m.Addr().String() + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	var health struct {
		Lanes   []any `json:"lanes"`
		Engines []any `json:"engines"`
	}
	err = json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(health.Lanes) != 2 || len(health.Engines) != 0 {
		t.Fatalf("health: %d %+v %v", resp.StatusCode, health, err)
	}

	cancel()
	select {
	case err := <-ran:
		if err != nil {
			t.Errorf("Run returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	m.Close()
	if !testbin.Eventually(5*time.Second, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before Open, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
	if !bytes.Contains(log.Bytes(), []byte("stopped")) {
		t.Errorf("the log lacks the stop:\n%s", log.String())
	}
}
