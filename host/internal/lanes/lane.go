// Package lanes runs jobs on fixed sets of workers behind bounded queues. A Lane refuses a
// job at once when its queue is full, with a forecast of when a place will be free for
// it (see RetryAfter); inside a lane, jobs of different keys are served round-robin so
// that one key cannot take every worker while others wait.
package lanes

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
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
	// InitialJobTime seeds the job-time forecast before any job has finished.
	InitialJobTime time.Duration
	// Cores is how many CPU cores the jobs share; 0 means runtime.NumCPU(). Until the
	// lane has seen jobs run with every worker busy, it takes them to run min(Workers,
	// Cores) times slower then than alone, as jobs that each use every core would.
	Cores int
	// Now returns the time; nil means time.Now. Tests set a fake clock.
	Now func() time.Time
}

// Job describes a job to its lane: whose it is, and what forecasts its time.
type Job struct {
	// Key is the job's API key name, "" for none: keys are served round-robin.
	Key string
	// Kind groups the jobs whose time per pixel is alike: the engine asked for, say.
	Kind string
	// Pixels is the size of the job's image; 0 if unknown.
	Pixels int64
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
	running map[*job]struct{}
	times   *jobTimes
	retries promises // the retries refused clients were told to make
	closed  bool
	done    sync.WaitGroup
}

type job struct {
	ctx     context.Context
	key     string
	kind    string
	pixels  int64
	fn      func(context.Context)
	queued  time.Time
	started time.Time
	// predicted is the forecast of the job's time, made when it was queued.
	predicted time.Duration
	// alone says whether a worker of the lane was idle at some point while it ran.
	alone bool
	// panicked is the error of a job whose function panicked, set before done closes.
	panicked error
	done     chan struct{}
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
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Cores <= 0 {
		cfg.Cores = runtime.NumCPU()
	}
	l := &Lane{cfg: cfg, queues: map[string][]*job{}, running: map[*job]struct{}{},
		times: newJobTimes(cfg.InitialJobTime, float64(min(cfg.Workers, cfg.Cores)))}
	l.wake = sync.NewCond(&l.mu)
	l.done.Add(cfg.Workers)
	for i := 0; i < cfg.Workers; i++ {
		go l.work()
	}
	return l
}

// Do runs fn on a worker of the lane as the job described by jb and waits for it to
// finish. It returns at once with a fault.QueueFull error when the queue is full, and
// with ctx's error if ctx ends while the job waits (the job is then dropped); once fn
// has started, Do waits for it to return, and fn is responsible for honouring ctx. A
// panic in fn is recovered, wherever the job ran (in the caller's goroutine or a
// worker's): Do returns it as a fault.Internal error with its stack, and the lane keeps
// serving. It reports how long the job waited in the queue.
func (l *Lane) Do(ctx context.Context, jb Job, fn func(context.Context)) (time.Duration, error) {
	key := jb.Key
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
	now := l.cfg.Now()
	l.retries.claim(key, now)
	j := &job{ctx: ctx, key: key, kind: jb.Kind, pixels: jb.Pixels, fn: fn, queued: now,
		predicted: l.times.predict(jb.Kind, jb.Pixels), done: make(chan struct{})}
	if l.pending == 0 && len(l.running) < l.cfg.Workers {
		// A worker's place is free and no job waits for one: the job runs here, in
		// the caller's goroutine, as a worker would run it, without two handoffs
		// between goroutines (to a worker and back) on the way.
		l.start(j, now)
		// Close waits for it as for the workers (they are still counted: the lane is
		// open).
		l.done.Add(1)
		l.mu.Unlock()
		l.runHere(j)
		return 0, j.panicked
	}
	if len(l.queues[key]) == 0 {
		l.ring = append(l.ring, key)
	}
	l.queues[key] = append(l.queues[key], j)
	l.pending++
	l.wake.Signal()
	l.mu.Unlock()

	select {
	case <-j.done:
		return j.started.Sub(j.queued), j.panicked
	case <-ctx.Done():
	}
	l.mu.Lock()
	if j.started.IsZero() {
		l.remove(j)
		l.mu.Unlock()
		return l.cfg.Now().Sub(j.queued), ctx.Err()
	}
	l.mu.Unlock()
	<-j.done
	return j.started.Sub(j.queued), j.panicked
}

// Full reports whether a job of key would be refused now, with the error it would get;
// the host checks it before reading an upload, so a full queue is answered at once. A
// refusal, here or by Do, books the retry it asks for (see RetryAfter).
func (l *Lane) Full(key string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.admit(key)
}

// admit returns a fault.QueueFull error if a new job of key cannot be queued. l.mu is
// held.
func (l *Lane) admit(key string) error {
	idle := l.cfg.Workers - len(l.running)
	waiting := l.pending - idle // jobs that will actually wait, this one not counted
	perKey := false
	switch {
	case waiting >= l.cfg.Capacity:
	case l.cfg.PerKey > 0 && len(l.queues[key]) >= l.cfg.PerKey+idle:
		perKey = true
	default:
		return nil
	}
	now := l.cfg.Now()
	l.retries.expire(now)
	secs := seconds(l.forecast(key, perKey, now))
	l.retries.add(key, now.Add(time.Duration(secs)*time.Second))
	return Full(l.cfg.Name, secs, perKey)
}

// forecast returns how long until a job of key refused now would find a place: the
// work ahead played on the workers (see schedule) — the running jobs' forecast rest,
// the waiting jobs in the order they will be served, and the jobs of the clients told
// to come back before this one. A place in the lane frees when a job finishes, so the
// refused client's is the one freed after those of the clients told before it; a place
// in a key's share frees when one of the key's waiting jobs starts. l.mu is held.
func (l *Lane) forecast(key string, perKey bool, now time.Time) time.Duration {
	running := make([]time.Duration, 0, len(l.running))
	for j := range l.running {
		running = append(running, remaining(j.predicted, now.Sub(j.started)))
	}
	order := l.serviceOrder()
	ahead := make([]time.Duration, len(order), len(order)+len(l.retries))
	for i, j := range order {
		ahead[i] = j.predicted
	}
	typical := l.times.predict("", 0)
	for range l.retries {
		ahead = append(ahead, typical)
	}
	starts, finishes := schedule(l.cfg.Workers, running, ahead)
	if !perKey {
		return scale(finishes[min(len(l.retries), len(finishes)-1)])
	}
	// The key's place: its waiting job after those its earlier refused clients take.
	want, seen := l.retries.of(key), 0
	last := time.Duration(0)
	for i, j := range order {
		if j.key != key {
			continue
		}
		if seen == want {
			return scale(starts[i])
		}
		seen++
		last = starts[i]
	}
	// More clients of the key were told to come back than it has jobs waiting: each
	// later place comes a round of the keys later.
	round := typical * time.Duration(max(1, len(l.ring))) / time.Duration(l.cfg.Workers)
	return scale(last + round*time.Duration(want-seen+1))
}

// NextFinish forecasts in how many whole seconds (as a Retry-After header gives them)
// the first of the lane's running jobs finishes, with the forecast's margin, and reports
// false when none runs. A finished job's request gives back the upload memory it held,
// so the host tells a client refused for a spent upload budget to come back then.
func (l *Lane) NextFinish() (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.cfg.Now()
	first, found := time.Duration(0), false
	for j := range l.running {
		if d := remaining(j.predicted, now.Sub(j.started)); !found || d < first {
			first, found = d, true
		}
	}
	return seconds(scale(first)), found
}

// scale adds the forecast's margin to a wait.
func scale(wait time.Duration) time.Duration { return time.Duration(float64(wait) * margin) }

// serviceOrder returns the waiting jobs in the order pop will take them, if no other
// job comes. l.mu is held.
func (l *Lane) serviceOrder() []*job {
	ring := slices.Clone(l.ring)
	taken := make(map[string]int, len(ring))
	next := l.next
	order := make([]*job, 0, l.pending)
	for len(ring) > 0 {
		next %= len(ring)
		key := ring[next]
		q := l.queues[key]
		order = append(order, q[taken[key]])
		taken[key]++
		if taken[key] == len(q) {
			ring = append(ring[:next], ring[next+1:]...)
		} else {
			next++
		}
	}
	return order
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

// work runs queued jobs, one at a time, while a place among the running jobs is free:
// the lane's Workers goroutines share the places with the jobs Do runs in their
// callers' goroutines.
func (l *Lane) work() {
	defer l.done.Done()
	for {
		l.mu.Lock()
		for (l.pending == 0 || len(l.running) >= l.cfg.Workers) && !l.closed {
			l.wake.Wait()
		}
		if l.pending == 0 {
			l.mu.Unlock()
			return
		}
		if len(l.running) >= l.cfg.Workers {
			// Closing, and the jobs still queued wait for a place.
			l.wake.Wait()
			l.mu.Unlock()
			continue
		}
		j := l.pop()
		l.start(j, l.cfg.Now())
		l.mu.Unlock()

		l.run(j)
		l.finish(j)
		close(j.done)
	}
}

// start marks j as running from now. l.mu is held.
func (l *Lane) start(j *job, now time.Time) {
	j.started = now
	l.running[j] = struct{}{}
	l.noteIdle()
}

// runHere runs j, which start has marked running, in the calling goroutine, and frees
// its place.
func (l *Lane) runHere(j *job) {
	defer l.done.Done()
	defer l.finish(j)
	l.run(j)
}

// run calls j's function, recovering a panic into j.panicked: a job's panic fails that
// job alone, the same way whichever goroutine runs it, and never the process.
func (l *Lane) run(j *job) {
	defer func() {
		if p := recover(); p != nil {
			j.panicked = fault.As(fmt.Errorf("lane %s: job panicked: %v\n%s", l.cfg.Name, p, debug.Stack()))
		}
	}()
	j.fn(j.ctx)
}

// finish ends a job that ran: its time goes into the forecast and its place is free,
// for a queued job if one waits (a worker waiting for a place is woken; when the lane
// closes, every waiting worker, for those with nothing left to run to return).
func (l *Lane) finish(j *job) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if j.ctx.Err() == nil && j.panicked == nil {
		// A cancelled or failed job's time says little about the next ones.
		l.times.observe(j.kind, j.pixels, l.cfg.Now().Sub(j.started), !j.alone)
	}
	delete(l.running, j)
	l.noteIdle()
	switch {
	case l.closed:
		l.wake.Broadcast()
	case l.pending > 0:
		l.wake.Signal()
	}
}

// noteIdle marks the running jobs as not run under full load when a worker is idle.
// l.mu is held.
func (l *Lane) noteIdle() {
	if len(l.running) < l.cfg.Workers {
		for j := range l.running {
			j.alone = true
		}
	}
}

// Stats is a snapshot of a lane, for the health endpoint.
type Stats struct {
	Name     string `json:"name"`
	Workers  int    `json:"workers"`
	Busy     int    `json:"busy"`
	Queued   int    `json:"queued"`
	Capacity int    `json:"capacity"`
	// AvgJobMs is the forecast of a job's time when every worker is busy, from recent
	// job times.
	AvgJobMs int64 `json:"avgJobMs"`
}

// Stats returns the lane's current state.
func (l *Lane) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Stats{Name: l.cfg.Name, Workers: l.cfg.Workers, Busy: len(l.running), Queued: l.pending, Capacity: l.cfg.Capacity, AvgJobMs: l.times.predict("", 0).Milliseconds()}
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
