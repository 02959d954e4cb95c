// Package lanes runs jobs on fixed sets of workers behind bounded queues. A Lane refuses a
// job at once when its queue is full, with an estimate of when to retry; inside a lane,
// jobs of different keys are served round-robin so that one key cannot take every
// worker while others wait.
package lanes

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/tracecraft/tracecraft/host/internal/fault"
)

// ErrClosed reports that the lane is shutting down.
var ErrClosed = errors.New("lane closed")

// Full returns the fault.QueueFull error of lane: the whole queue is full, or with
// perKey only the key's own share of it; a retry has a fair chance after retryAfter
// seconds.
func Full(lane string, retryAfter int, perKey bool) *fault.Error {
	e := &fault.Error{Code: fault.QueueFull, RetryAfter: retryAfter,
		Message: "the queue is full; retry after the number of seconds in the Retry-After header",
		Err:     errors.New("lane " + lane + ": queue full")}
	if perKey {
		e.Message = "this key already has its share of the queue waiting; retry after the number of seconds in the Retry-After header"
		e.Err = errors.New("lane " + lane + ": this key's share of the queue is full")
	}
	return e
}

// Config configures a Lane.
type Config struct {
	// Name names the lane in errors and statistics.
	Name string
	// Workers is how many jobs run at once (at least 1).
	Workers int
	// Capacity is how many jobs may wait beyond those running (0: none wait).
	Capacity int
	// PerKey bounds the waiting jobs of one key; 0 means no bound beyond Capacity.
	PerKey int
	// InitialJobTime seeds the job-time estimate before any job has finished.
	InitialJobTime time.Duration
}

// Lane is a pool of workers with a bounded, per-key round-robin queue.
type Lane struct {
	cfg Config

	mu      sync.Mutex
	wake    *sync.Cond
	queues  map[string][]*job
	ring    []string // keys with waiting jobs, in service order
	next    int      // index in ring of the key served next
	pending int
	busy    int
	avg     time.Duration // moving average of job durations
	closed  bool
	done    sync.WaitGroup
}

type job struct {
	ctx     context.Context
	key     string
	fn      func(context.Context)
	queued  time.Time
	started time.Time
	done    chan struct{}
}

// New starts a lane's workers; Close stops them.
func New(cfg Config) *Lane {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Capacity < 0 {
		cfg.Capacity = 0
	}
	if cfg.InitialJobTime <= 0 {
		cfg.InitialJobTime = time.Second
	}
	l := &Lane{cfg: cfg, queues: map[string][]*job{}, avg: cfg.InitialJobTime}
	l.wake = sync.NewCond(&l.mu)
	l.done.Add(cfg.Workers)
	for i := 0; i < cfg.Workers; i++ {
		go l.work()
	}
	return l
}

// Do runs fn on a worker of the lane as the job of key and waits for it to finish. It
// returns at once with a *FullError when the queue is full, and with ctx's error if ctx
// ends while the job waits (the job is then dropped); once fn has started, Do waits for
// it to return, and fn is responsible for honouring ctx. It reports how long the job
// waited in the queue.
func (l *Lane) Do(ctx context.Context, key string, fn func(context.Context)) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return 0, ErrClosed
	}
	if err := l.admit(key); err != nil {
		l.mu.Unlock()
		return 0, err
	}
	j := &job{ctx: ctx, key: key, fn: fn, queued: time.Now(), done: make(chan struct{})}
	if len(l.queues[key]) == 0 {
		l.ring = append(l.ring, key)
	}
	l.queues[key] = append(l.queues[key], j)
	l.pending++
	l.wake.Signal()
	l.mu.Unlock()

	select {
	case <-j.done:
		return j.started.Sub(j.queued), nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	if j.started.IsZero() {
		l.remove(j)
		l.mu.Unlock()
		return time.Since(j.queued), ctx.Err()
	}
	l.mu.Unlock()
	<-j.done
	return j.started.Sub(j.queued), nil
}

// Full reports whether a job of key would be refused now, with the error it would get;
// the host checks it before reading an upload, so a full queue is answered at once.
func (l *Lane) Full(key string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.admit(key)
}

// admit returns a fault.QueueFull error if a new job of key cannot be queued. l.mu is
// held.
func (l *Lane) admit(key string) error {
	idle := l.cfg.Workers - l.busy
	waiting := l.pending - idle // jobs that will actually wait, this one not counted
	if waiting >= l.cfg.Capacity {
		return Full(l.cfg.Name, l.retryAfter(), false)
	}
	if l.cfg.PerKey > 0 && len(l.queues[key]) >= l.cfg.PerKey+idle {
		return Full(l.cfg.Name, l.retryAfter(), true)
	}
	return nil
}

// retryAfter estimates, in whole seconds, how long until the jobs now waiting have
// started: the average job time times the queue depth over the workers. l.mu is held.
func (l *Lane) retryAfter() int {
	ahead := max(1, l.pending)
	secs := l.avg.Seconds() * float64(ahead) / float64(l.cfg.Workers)
	return max(1, min(3600, int(math.Ceil(secs))))
}

// remove drops a job that has not started. l.mu is held.
func (l *Lane) remove(j *job) {
	q := l.queues[j.key]
	for i, x := range q {
		if x == j {
			q = append(q[:i], q[i+1:]...)
			break
		}
	}
	l.pending--
	if len(q) > 0 {
		l.queues[j.key] = q
		return
	}
	if i := slices.Index(l.ring, j.key); i >= 0 {
		l.dropKey(i)
	}
}

// dropKey removes the key at ring index i, whose queue has emptied, keeping next on
// the key that was to be served next. l.mu is held.
func (l *Lane) dropKey(i int) {
	delete(l.queues, l.ring[i])
	l.ring = append(l.ring[:i], l.ring[i+1:]...)
	if l.next > i {
		l.next--
	}
	if len(l.ring) > 0 {
		l.next %= len(l.ring)
	} else {
		l.next = 0
	}
}

// pop takes the next job in round-robin order across keys. l.mu is held and pending > 0.
func (l *Lane) pop() *job {
	l.next %= len(l.ring)
	key := l.ring[l.next]
	q := l.queues[key]
	j := q[0]
	if len(q) == 1 {
		l.dropKey(l.next)
	} else {
		l.queues[key] = q[1:]
		l.next = (l.next + 1) % len(l.ring)
	}
	l.pending--
	return j
}

func (l *Lane) work() {
	defer l.done.Done()
	for {
		l.mu.Lock()
		for l.pending == 0 && !l.closed {
			l.wake.Wait()
		}
		if l.pending == 0 {
			l.mu.Unlock()
			return
		}
		j := l.pop()
		j.started = time.Now()
		l.busy++
		l.mu.Unlock()

		j.fn(j.ctx)
		took := time.Since(j.started)

		l.mu.Lock()
		l.busy--
		// Exponential moving average over roughly the last ten jobs.
		l.avg += (took - l.avg) / 5
		l.mu.Unlock()
		close(j.done)
	}
}

// Stats is a snapshot of a lane, for the health endpoint.
type Stats struct {
	Name     string `json:"name"`
	Workers  int    `json:"workers"`
	Busy     int    `json:"busy"`
	Queued   int    `json:"queued"`
	Capacity int    `json:"capacity"`
	// AvgJobMs is the moving average of recent job times.
	AvgJobMs int64 `json:"avgJobMs"`
}

// Stats returns the lane's current state.
func (l *Lane) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Stats{Name: l.cfg.Name, Workers: l.cfg.Workers, Busy: l.busy, Queued: l.pending, Capacity: l.cfg.Capacity, AvgJobMs: l.avg.Milliseconds()}
}

// Close stops accepting jobs, lets the queued ones run, and waits for the workers to
// finish.
func (l *Lane) Close() {
	l.mu.Lock()
	l.closed = true
	l.wake.Broadcast()
	l.mu.Unlock()
	l.done.Wait()
}
