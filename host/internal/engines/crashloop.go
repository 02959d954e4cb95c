package engines

import (
	"sync"
	"time"
)

// crashLoop tells an engine that crashes over and over: limit crashes within window
// start a back-off, during which its jobs are refused; each back-off that follows
// another without a successful job in between is twice as long, up to 16 times the
// first.
type crashLoop struct {
	limit           int
	window, backoff time.Duration

	mu      sync.Mutex
	times   []time.Time // the recent crashes, oldest first
	until   time.Time   // end of the current back-off
	strikes int         // back-offs since the last success
}

// crashed records a crash at now and returns the end of the back-off it starts, or the
// zero time.
func (l *crashLoop) crashed(now time.Time) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	keep := l.times[:0]
	for _, t := range l.times {
		if now.Sub(t) < l.window {
			keep = append(keep, t)
		}
	}
	l.times = append(keep, now)
	if len(l.times) < l.limit || now.Before(l.until) {
		return time.Time{}
	}
	l.until = now.Add(l.backoff << min(l.strikes, 4))
	l.strikes++
	l.times = l.times[:0]
	return l.until
}

// succeeded records a job that succeeded: the next back-off starts short again.
func (l *crashLoop) succeeded() {
	l.mu.Lock()
	l.strikes = 0
	l.mu.Unlock()
}

// backingOff returns how long the current back-off lasts after now, or 0.
func (l *crashLoop) backingOff(now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(0, l.until.Sub(now))
}
