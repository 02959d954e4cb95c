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

func TestAJobIsForecastFromItsKindsTimePerPixel(t *testing.T) {
	m := newJobTimes(time.Second)
	if got := m.predict("vtracer", 1000); got != time.Second {
		t.Errorf("before any job: %v, want the initial 1s", got)
	}
	m.observe("vtracer", 1000, 2*time.Second)
	m.observe("potrace", 1000, 100*time.Millisecond)
	tests := []struct {
		kind   string
		pixels int64
		want   time.Duration
	}{
		{"vtracer", 4000, 8 * time.Second},
		{"potrace", 4000, 400 * time.Millisecond},
		{"potrace", 1, minJobTime},
		{"unknown", 4000, m.avg},
		{"vtracer", 0, m.avg},
	}
	for _, tt := range tests {
		if got := m.predict(tt.kind, tt.pixels); got != tt.want {
			t.Errorf("%s on %d pixels: %v, want %v", tt.kind, tt.pixels, got, tt.want)
		}
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
// at 12 s), not all the same time; the running jobs' elapsed time counts; a client
// that comes back takes its place, and places not claimed are given up when long
// overdue.
func TestRefusedClientsAreToldSuccessivePlaces(t *testing.T) {
	c := &clock{now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	l := New(Config{Name: "public", Workers: 2, Capacity: 3, InitialJobTime: 4 * time.Second, Now: c.Now})
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
	if want := []int{4, 4, 8, 8, 12}; !reflect.DeepEqual(got, want) {
		t.Errorf("successive refusals told %v, want %v", got, want)
	}

	// 3 s later (no job has ended, the forecast holds), and the five booked retries
	// still outstanding, the next is told the sixth place: 12 - 3 = 9 s.
	c.advance(3 * time.Second)
	if got := retryAfter(t, l, ""); got != 9 {
		t.Errorf("after 3 s: %d, want 9", got)
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
	// a runs (3 s), then b (3 s), then a's waiting job starts: at 6 s.
	var fe *fault.Error
	if err := l.Full("a"); !errors.As(err, &fe) || fe.RetryAfter != 6 {
		t.Errorf("a refused with %v, want queue_full for its share, retry after 6 s", err)
	}
	close(g.release)
	for _, ch := range errs {
		if err := <-ch; err != nil {
			t.Error(err)
		}
	}
}
