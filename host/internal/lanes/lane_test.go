package lanes

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/fault"
)

// gate is a job function that blocks until released, recording its key when it starts.
type gate struct {
	mu      sync.Mutex
	order   []string
	release chan struct{}
	started chan string
}

func newGate() *gate { return &gate{release: make(chan struct{}), started: make(chan string, 100)} }

func (g *gate) job(key string) func(context.Context) {
	return func(context.Context) {
		g.mu.Lock()
		g.order = append(g.order, key)
		g.mu.Unlock()
		g.started <- key
		<-g.release
	}
}

func submit(l *Lane, ctx context.Context, key string, fn func(context.Context)) chan error {
	ch := make(chan error, 1)
	go func() { _, err := l.Do(ctx, Job{Key: key}, fn); ch <- err }()
	return ch
}

func waitStats(t *testing.T, l *Lane, busy, queued int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := l.Stats()
		if s.Busy == busy && s.Queued == queued {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v, want busy %d queued %d", s, busy, queued)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAFullQueueRefusesAtOnceWithARetryEstimate(t *testing.T) {
	l := New(Config{Name: "public", Workers: 2, Capacity: 3, InitialJobTime: 4 * time.Second, Cores: 1})
	defer l.Close()
	g := newGate()
	var errs []chan error
	for i := 0; i < 5; i++ {
		errs = append(errs, submit(l, context.Background(), "", g.job("")))
	}
	waitStats(t, l, 2, 3)
	start := time.Now()
	_, err := l.Do(context.Background(), Job{}, g.job(""))
	var full *fault.Error
	if !errors.As(err, &full) || full.Code != fault.QueueFull || full.RetryAfter < 1 {
		t.Fatalf("got %v, want a queue_full error with a Retry-After", err)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("refusal took %v", took)
	}
	// Two jobs of about 4 s running: a place frees in 4 s, 5 s with the margin.
	if full.RetryAfter != 5 {
		t.Errorf("RetryAfter %d, want 5", full.RetryAfter)
	}
	if l.Full("") == nil {
		t.Error("Full reports room in a full queue")
	}
	close(g.release)
	for _, ch := range errs {
		if err := <-ch; err != nil {
			t.Error(err)
		}
	}
}

func TestKeysAreServedRoundRobin(t *testing.T) {
	l := New(Config{Name: "keyed", Workers: 1, Capacity: 10})
	defer l.Close()
	g := newGate()
	var errs []chan error
	errs = append(errs, submit(l, context.Background(), "a", g.job("a")))
	<-g.started
	for i := 0; i < 4; i++ {
		errs = append(errs, submit(l, context.Background(), "a", g.job("a")))
		waitStats(t, l, 1, i+1)
	}
	errs = append(errs, submit(l, context.Background(), "b", g.job("b")))
	waitStats(t, l, 1, 5) // b queues before c
	errs = append(errs, submit(l, context.Background(), "c", g.job("c")))
	waitStats(t, l, 1, 6)
	for range 6 {
		g.release <- struct{}{}
		<-g.started
	}
	g.release <- struct{}{}
	for _, ch := range errs {
		if err := <-ch; err != nil {
			t.Error(err)
		}
	}
	if got := strings.Join(g.order, ""); got != "aabcaaa" {
		t.Errorf("service order %s, want aabcaaa: b and c must not wait behind all of a", got)
	}
}

func TestOneKeyCannotFillTheWholeQueue(t *testing.T) {
	l := New(Config{Name: "keyed", Workers: 1, Capacity: 4, PerKey: 2})
	defer l.Close()
	g := newGate()
	var errs []chan error
	for i := 0; i < 3; i++ { // one running, two waiting
		errs = append(errs, submit(l, context.Background(), "a", g.job("a")))
	}
	waitStats(t, l, 1, 2)
	var full *fault.Error
	if _, err := l.Do(context.Background(), Job{Key: "a"}, g.job("a")); !errors.As(err, &full) || full.Code != fault.QueueFull || !strings.Contains(full.Message, "this key") {
		t.Fatalf("a third waiting job of one key got %v, want a per-key queue_full error", err)
	}
	errs = append(errs, submit(l, context.Background(), "b", g.job("b")))
	waitStats(t, l, 1, 3)
	close(g.release)
	for _, ch := range errs {
		if err := <-ch; err != nil {
			t.Error(err)
		}
	}
}

func TestAJobWhoseContextEndsWhileQueuedNeverRuns(t *testing.T) {
	l := New(Config{Name: "public", Workers: 1, Capacity: 2})
	defer l.Close()
	g := newGate()
	first := submit(l, context.Background(), "", g.job("first"))
	<-g.started
	ctx, cancel := context.WithCancel(context.Background())
	second := submit(l, ctx, "", g.job("second"))
	waitStats(t, l, 1, 1)
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	waitStats(t, l, 1, 0)
	close(g.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	l.Close()
	if strings.Join(g.order, ",") != "first" {
		t.Errorf("ran %v, want only first", g.order)
	}
}

func TestAtMostWorkersJobsRunAtOnce(t *testing.T) {
	l := New(Config{Name: "public", Workers: 3, Capacity: 20})
	var mu sync.Mutex
	running, peak := 0, 0
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := l.Do(context.Background(), Job{}, func(context.Context) {
				mu.Lock()
				running++
				peak = max(peak, running)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
				mu.Lock()
				running--
				mu.Unlock()
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	l.Close()
	if peak != 3 {
		t.Errorf("peak concurrency %d, want 3", peak)
	}
	if _, err := l.Do(context.Background(), Job{}, func(context.Context) {}); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close got %v, want ErrClosed", err)
	}
}

// goroutineID returns the running goroutine's number, from its stack's first line.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	return strings.Fields(string(buf))[1]
}

// TestAJobRunsInItsCallerWhenAPlaceIsFreeAndNoneWaits: with a worker's place free and
// no job queued, Do runs the job in the caller's own goroutine (no handoff to a worker
// and back); with every place taken, the job queues and a worker runs it once one
// frees, in the order of the queue.
func TestAJobRunsInItsCallerWhenAPlaceIsFreeAndNoneWaits(t *testing.T) {
	l := New(Config{Name: "public", Workers: 1, Capacity: 4})
	defer l.Close()
	caller := goroutineID()
	ran := ""
	if _, err := l.Do(context.Background(), Job{}, func(context.Context) { ran = goroutineID() }); err != nil {
		t.Fatal(err)
	}
	if ran != caller {
		t.Errorf("a job with a free place ran in goroutine %s, want its caller's %s", ran, caller)
	}
	g := newGate()
	first := submit(l, context.Background(), "", g.job("first"))
	<-g.started
	second := submit(l, context.Background(), "", g.job("second"))
	waitStats(t, l, 1, 1)
	third := submit(l, context.Background(), "", g.job("third"))
	waitStats(t, l, 1, 2)
	close(g.release)
	for _, done := range []chan error{first, second, third} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(g.order, ","); got != "first,second,third" {
		t.Errorf("ran %s, want first,second,third", got)
	}
}

// TestJobsInCallersAndWorkersTogetherStayWithinWorkers runs bursts of jobs, some finding
// a free place (run by their callers) and some queued (run by workers), and checks that
// no more than Workers run at once, that every job runs, and that Close waits for the
// jobs running in their callers.
func TestJobsInCallersAndWorkersTogetherStayWithinWorkers(t *testing.T) {
	for _, workers := range []int{1, 2, 3} {
		l := New(Config{Name: "public", Workers: workers, Capacity: 100})
		var running, peak, ran atomic.Int64
		var wg sync.WaitGroup
		for i := range 60 {
			wg.Go(func() {
				time.Sleep(time.Duration(i%7) * time.Millisecond)
				_, err := l.Do(context.Background(), Job{}, func(context.Context) {
					n := running.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					time.Sleep(time.Duration(i%3) * time.Millisecond)
					running.Add(-1)
					ran.Add(1)
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if peak.Load() > int64(workers) || ran.Load() != 60 {
			t.Errorf("%d workers: peak %d at once, %d jobs ran; want at most %d, and 60", workers, peak.Load(), ran.Load(), workers)
		}
		// Close waits for a job its caller runs.
		release, finished := make(chan struct{}), make(chan struct{})
		go l.Do(context.Background(), Job{}, func(context.Context) { <-release; close(finished) })
		waitStats(t, l, 1, 0)
		closed := make(chan struct{})
		go func() { l.Close(); close(closed) }()
		select {
		case <-closed:
			t.Fatalf("%d workers: Close returned while a job ran", workers)
		case <-time.After(50 * time.Millisecond):
		}
		close(release)
		<-closed
		select {
		case <-finished:
		default:
			t.Errorf("%d workers: Close returned before the job finished", workers)
		}
	}
}

// TestAJobThatPanicsFailsAloneWhereverItRuns: a job's panic, whether the job ran in its
// caller's goroutine (a place was free) or in a worker's (it was queued), comes back
// from Do as a fault.Internal error naming the panic, and the lane keeps serving: its
// place is free again and the next job, queued behind a running one, runs.
func TestAJobThatPanicsFailsAloneWhereverItRuns(t *testing.T) {
	for _, queued := range []bool{false, true} {
		where := map[bool]string{false: "in its caller", true: "queued, in a worker"}[queued]
		t.Run(where, func(t *testing.T) {
			l := New(Config{Name: "public", Workers: 1, Capacity: 4})
			defer l.Close()
			boom := func(context.Context) { panic("boom") }
			var err error
			if queued {
				g := newGate()
				first := submit(l, context.Background(), "", g.job("first"))
				<-g.started
				failed := submit(l, context.Background(), "", boom)
				waitStats(t, l, 1, 1)
				close(g.release)
				if err := <-first; err != nil {
					t.Fatal(err)
				}
				err = <-failed
			} else {
				_, err = l.Do(context.Background(), Job{}, boom)
			}
			var fe *fault.Error
			if !errors.As(err, &fe) || fe.Code != fault.Internal || !strings.Contains(fe.Err.Error(), "boom") {
				t.Fatalf("a job that panicked %s: Do returned %v, want an internal error naming the panic", where, err)
			}
			waitStats(t, l, 0, 0)
			// The lane still serves, in callers and in workers.
			g := newGate()
			first := submit(l, context.Background(), "", g.job("after"))
			<-g.started
			second := submit(l, context.Background(), "", g.job("after"))
			waitStats(t, l, 1, 1)
			close(g.release)
			for _, done := range []chan error{first, second} {
				if err := <-done; err != nil {
					t.Errorf("a job after the panic: %v", err)
				}
			}
		})
	}
}
