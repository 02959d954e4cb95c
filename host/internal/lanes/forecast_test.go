package lanes

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/fault"
)

func TestScheduleTakesTheJobsAheadOnTheFirstWorkerFree(t *testing.T) {
	s := time.Second
	tests := []struct {
		name          string
		workers       int
		running       []time.Duration
		ahead         []time.Duration
		starts, finis []time.Duration
	}{
		{"one worker runs the jobs one after the other", 1, []time.Duration{2 * s}, []time.Duration{s, 3 * s},
			[]time.Duration{2 * s, 3 * s}, []time.Duration{2 * s, 3 * s, 6 * s}},
		{"two workers take the next job as each frees", 2, []time.Duration{s, 4 * s}, []time.Duration{2 * s, 2 * s, s},
			[]time.Duration{s, 3 * s, 4 * s}, []time.Duration{s, 3 * s, 4 * s, 5 * s, 5 * s}},
		{"an idle worker starts a job at once", 2, []time.Duration{3 * s}, []time.Duration{s},
			[]time.Duration{0}, []time.Duration{s, 3 * s}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			starts, finishes := schedule(tt.workers, tt.running, tt.ahead)
			if !reflect.DeepEqual(starts, tt.starts) || !reflect.DeepEqual(finishes, tt.finis) {
				t.Errorf("starts %v finishes %v, want %v and %v", starts, finishes, tt.starts, tt.finis)
			}
		})
	}
}

func TestAJobIsForecastFromItsKindsTimePerPixelUnderFullLoad(t *testing.T) {
	m := newJobTimes(time.Second, 2)
	if got := m.predict("vtracer", 1000); got != 2*time.Second {
		t.Errorf("before any job: %v, want the initial 1s twice as slow under full load", got)
	}
	m.observe("vtracer", 1000, 2*time.Second, false)       // alone: 2 ms a pixel
	m.observe("potrace", 1000, 100*time.Millisecond, true) // full: 0.1 ms a pixel
	if got := m.predict("vtracer", 4000); got != 16*time.Second {
		t.Errorf("a kind seen alone: %v, want 4000 pixels at 2 ms, twice as slow", got)
	}
	m.observe("vtracer", 1000, 3*time.Second, true) // full: 1.5 times its time alone
	tests := []struct {
		name   string
		kind   string
		pixels int64
		want   time.Duration
	}{
		{"a kind seen under full load", "vtracer", 4000, 12 * time.Second},
		{"another", "potrace", 4000, 400 * time.Millisecond},
		{"a tiny image", "potrace", 1, minJobTime},
		{"an unknown kind: the average job under full load", "unknown", 4000, 680 * time.Millisecond},
		{"an unknown size", "vtracer", 0, 680 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := m.predict(tt.kind, tt.pixels); got != tt.want {
			t.Errorf("%s (%s on %d pixels): %v, want %v", tt.name, tt.kind, tt.pixels, got, tt.want)
		}
	}
	// The slowdown learned from vtracer (2 towards 1.5: 1.9) scales a kind seen alone.
	m.observe("tracecraft", 1000, time.Second, false)
	if got := m.predict("tracecraft", 1000); got != 1900*time.Millisecond {
		t.Errorf("a kind seen alone after the slowdown was learned: %v, want 1.9s", got)
	}
}

// clock is a fake time for a lane.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// retryAfter returns the Retry-After of a job of key refused by l, failing if admitted.
func retryAfter(t *testing.T, l *Lane, key string) int {
	t.Helper()
	var fe *fault.Error
	if err := l.Full(key); !errors.As(err, &fe) || fe.Code != fault.QueueFull {
		t.Fatalf("got %v, want queue_full", err)
	}
	return fe.RetryAfter
}

// TestRefusedClientsAreToldSuccessivePlaces fills a lane of 2 workers and 3 places with
// jobs forecast at 4 s, on a fake clock: the clients refused one after the other are
// told when successive places free (two at 4 s as the running jobs end, two at 8 s, one
// at 12 s, each with the forecast's margin of a quarter), not all the same time; the
// running jobs' elapsed time counts; places not claimed are given up when long overdue.
func TestRefusedClientsAreToldSuccessivePlaces(t *testing.T) {
	c := &clock{now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	l := New(Config{Name: "public", Workers: 2, Capacity: 3, InitialJobTime: 4 * time.Second, Cores: 1, Now: c.Now})
	defer l.Close()
	g := newGate()
	var errs []chan error
	for range 5 {
		errs = append(errs, submit(l, context.Background(), "", g.job("")))
	}
	waitStats(t, l, 2, 3)
	var got []int
	for range 5 {
		got = append(got, retryAfter(t, l, ""))
	}
	if want := []int{5, 5, 10, 10, 15}; !reflect.DeepEqual(got, want) {
		t.Errorf("successive refusals told %v, want %v", got, want)
	}

	// 3 s later (no job has ended, the forecast holds), and the five booked retries
	// still outstanding, the next is told the sixth place: 12 - 3 = 9 s, 11.25 s with
	// the margin.
	c.advance(3 * time.Second)
	if got := retryAfter(t, l, ""); got != 12 {
		t.Errorf("after 3 s: %d, want 12", got)
	}
	// Long after every booked retry was due, none of them counts: the first place
	// frees when the running jobs, late now, need a tenth of their time more.
	c.advance(20 * time.Second)
	if got := retryAfter(t, l, ""); got != 1 {
		t.Errorf("after the retries expired: %d, want 1", got)
	}
	close(g.release)
	for _, ch := range errs {
		if err := <-ch; err != nil {
			t.Error(err)
		}
	}
}

// TestAKeysShareFreesWhenItsWaitingJobStarts: a key refused for its share of the keyed
// lane is told when its own waiting job starts, which round-robin serves after another
// key's.
func TestAKeysShareFreesWhenItsWaitingJobStarts(t *testing.T) {
	c := &clock{now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	l := New(Config{Name: "keyed", Workers: 1, Capacity: 4, PerKey: 1, InitialJobTime: 3 * time.Second, Now: c.Now})
	defer l.Close()
	g := newGate()
	errs := []chan error{submit(l, context.Background(), "a", g.job("a"))}
	<-g.started
	errs = append(errs, submit(l, context.Background(), "b", g.job("b")))
	waitStats(t, l, 1, 1)
	errs = append(errs, submit(l, context.Background(), "a", g.job("a")))
	waitStats(t, l, 1, 2)
	// a runs (3 s), then b (3 s), then a's waiting job starts: at 6 s, 7.5 s with the
	// margin.
	var fe *fault.Error
	if err := l.Full("a"); !errors.As(err, &fe) || fe.RetryAfter != 8 {
		t.Errorf("a refused with %v, want queue_full for its share, retry after 8 s", err)
	}
	close(g.release)
	for _, ch := range errs {
		if err := <-ch; err != nil {
			t.Error(err)
		}
	}
}

// TestNextFinishIsWhenTheFirstRunningJobEnds: with no job running there is nothing to
// forecast; with jobs forecast at 4 s running, the first ends in 4 s (5 with the margin),
// and 3 s later in 1 s (2 with the margin, rounded up).
func TestNextFinishIsWhenTheFirstRunningJobEnds(t *testing.T) {
	c := &clock{now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	l := New(Config{Name: "public", Workers: 2, Capacity: 3, InitialJobTime: 4 * time.Second, Cores: 1, Now: c.Now})
	defer l.Close()
	if secs, ok := l.NextFinish(); ok {
		t.Errorf("an idle lane: %d s, want none", secs)
	}
	g := newGate()
	var errs []chan error
	for range 2 {
		errs = append(errs, submit(l, context.Background(), "", g.job("")))
	}
	waitStats(t, l, 2, 0)
	if secs, ok := l.NextFinish(); !ok || secs != 5 {
		t.Errorf("two jobs just started: %d s (%v), want 5", secs, ok)
	}
	c.advance(3 * time.Second)
	if secs, ok := l.NextFinish(); !ok || secs != 2 {
		t.Errorf("3 s later: %d s (%v), want 2", secs, ok)
	}
	close(g.release)
	for _, ch := range errs {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
}
