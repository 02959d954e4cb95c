package engines

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/tracecraft/tracecraft/internal/testbin"
)

// recorder is an Observer that keeps what it hears.
type recorder struct {
	mu      sync.Mutex
	starts  map[string]int
	crashes map[string]int
	jobs    map[string]map[Outcome]int
	short   int // jobs reported as taking no time
}

func newRecorder() *recorder {
	return &recorder{starts: map[string]int{}, crashes: map[string]int{}, jobs: map[string]map[Outcome]int{}}
}

func (r *recorder) ProcessStarted(e string) { r.mu.Lock(); r.starts[e]++; r.mu.Unlock() }
func (r *recorder) ProcessCrashed(e string) { r.mu.Lock(); r.crashes[e]++; r.mu.Unlock() }
func (r *recorder) JobDone(e string, took time.Duration, o Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.jobs[e] == nil {
		r.jobs[e] = map[Outcome]int{}
	}
	r.jobs[e][o]++
	if took <= 0 {
		r.short++
	}
}

func (r *recorder) startsOf(e string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.starts[e]
}

func TestTheObserverHearsOfStartsCrashesTimeoutsAndEveryJob(t *testing.T) {
	dir := t.TempDir()
	testbin.Install(t, testbin.TestEngine(t, "alpha", ""), dir, "alpha")
	rec := newRecorder()
	r := New(Config{Dir: dir, RunDir: filepath.Join(t.TempDir(), "run"), Processes: 1, Observer: rec,
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Error, Output: testWriter{t}})})
	t.Cleanup(r.Close)
	if _, err := r.Reload(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := rec.startsOf("alpha"); got != 1 {
		t.Fatalf("after loading, starts = %d, want 1 (the process that described the engine)", got)
	}

	steps := []struct {
		name    string
		params  map[string]any
		timeout time.Duration
		starts  int // processes started by the end of the step
	}{
		{"a good job", nil, 0, 1},
		{"an engine refusal", map[string]any{"action": "fail"}, 0, 1},
		{"a crash, replaced in the background", map[string]any{"action": "panic"}, 0, 2},
		{"a timeout, replaced in the background", map[string]any{"action": "sleep", "ms": 60000.0}, 300 * time.Millisecond, 3},
	}
	for _, s := range steps {
		ctx := context.Background()
		if s.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, s.timeout)
			defer cancel()
		}
		_, _ = r.Trace(ctx, "alpha", job(t, s.params))
		waitFor(t, func() bool { return rec.startsOf("alpha") >= s.starts })
		if got := rec.startsOf("alpha"); got != s.starts {
			t.Errorf("after %s, starts = %d, want %d", s.name, got, s.starts)
		}
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	want := map[Outcome]int{Succeeded: 1, Refused: 1, Crashed: 1, TimedOut: 1}
	for o, n := range want {
		if rec.jobs["alpha"][o] != n {
			t.Errorf("jobs with outcome %s = %d, want %d (all: %v)", o, rec.jobs["alpha"][o], n, rec.jobs["alpha"])
		}
	}
	if rec.crashes["alpha"] != 1 {
		t.Errorf("crashes = %d, want 1", rec.crashes["alpha"])
	}
	if rec.short > 0 {
		t.Errorf("%d jobs were reported as taking no time", rec.short)
	}
}
