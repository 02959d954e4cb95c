package engines

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tracecraft/tracecraft/sdk/pluginhost"
)

// errPoolClosed reports that a generation was retired while a job waited for it.
var errPoolClosed = errors.New("engine generation retired")

// pool holds the processes of one engine generation. A process runs one job at a time;
// at most max processes exist, started on demand and kept while idle.
type pool struct {
	name    string
	launch  pluginhost.Launch
	cgroups *Cgroups // where processes start; nil: in process groups
	obs     Observer
	slots   chan struct{} // one token per job using a process
	// onDrained runs once the pool is closed and its last process is gone.
	onDrained func()
	// onStart, if set, hears of each process the pool starts.
	onStart func(*pluginhost.Client)

	mu      sync.Mutex
	idle    []*proc // most recently used last
	live    int     // processes alive or starting
	busy    int
	closed  bool
	drained bool
}

// proc is one plugin process.
type proc struct {
	client   *pluginhost.Client
	lastUsed time.Time
}

func newPool(name string, l pluginhost.Launch, max int, obs Observer, cg *Cgroups) *pool {
	return &pool{name: name, launch: l, cgroups: cg, obs: obs, slots: make(chan struct{}, max)}
}

// adopt adds an already started process as idle (the one that described the engine).
func (p *pool) adopt(c *pluginhost.Client) {
	p.mu.Lock()
	p.live++
	p.idle = append(p.idle, &proc{client: c, lastUsed: time.Now()})
	p.mu.Unlock()
}

// get returns a process for one job, waiting for a free slot; the caller must hand it
// back with put or discard.
func (p *pool) get(ctx context.Context) (*proc, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	for {
		if p.closed {
			p.mu.Unlock()
			<-p.slots
			return nil, errPoolClosed
		}
		n := len(p.idle)
		if n == 0 {
			break
		}
		pr := p.idle[n-1]
		p.idle = p.idle[:n-1]
		if !pr.client.Exited() {
			p.busy++
			p.mu.Unlock()
			return pr, nil
		}
		// Died while idle (killed from outside): replace it.
		p.live--
		p.obs.ProcessCrashed(p.name)
		go pr.client.Kill()
	}
	p.live++
	p.busy++
	p.mu.Unlock()
	c, err := p.cgroups.start(p.name, p.launch)
	if err != nil {
		p.mu.Lock()
		p.live--
		p.busy--
		p.mu.Unlock()
		<-p.slots
		p.checkDrained()
		return nil, err
	}
	p.started(c)
	return &proc{client: c}, nil
}

// put returns a healthy process after a job.
func (p *pool) put(pr *proc) {
	pr.lastUsed = time.Now()
	p.mu.Lock()
	p.busy--
	if p.closed {
		p.live--
		p.mu.Unlock()
		pr.client.Close()
	} else {
		p.idle = append(p.idle, pr)
		p.mu.Unlock()
	}
	<-p.slots
	p.checkDrained()
}

// discard kills a process that crashed, hung or may still be working on an abandoned
// job, and starts a replacement in the background when no process is left, so the
// next job does not wait for a start.
func (p *pool) discard(pr *proc) {
	pr.client.Kill()
	p.mu.Lock()
	p.busy--
	p.live--
	replace := !p.closed && p.live == 0
	if replace {
		p.live++
	}
	p.mu.Unlock()
	<-p.slots
	if replace {
		go p.warm()
	}
	p.checkDrained()
}

// warm starts one idle process; the caller has counted it in live.
func (p *pool) warm() {
	c, err := p.cgroups.start(p.name, p.launch)
	p.mu.Lock()
	if err != nil || p.closed {
		p.live--
		p.mu.Unlock()
		if c != nil {
			c.Close()
		}
		if p.launch.Logger != nil && err != nil {
			p.launch.Logger.Error("cannot start a replacement process", "error", err)
		}
		p.checkDrained()
		return
	}
	p.idle = append(p.idle, &proc{client: c, lastUsed: time.Now()})
	p.mu.Unlock()
	p.started(c)
}

// started reports a process the pool started.
func (p *pool) started(c *pluginhost.Client) {
	p.obs.ProcessStarted(p.name)
	if p.onStart != nil {
		p.onStart(c)
	}
}

// reap ends idle processes unused since before cutoff, keeping at least one process.
func (p *pool) reap(cutoff time.Time) {
	p.mu.Lock()
	var old []*proc
	kept := p.idle[:0]
	for _, pr := range p.idle {
		if pr.lastUsed.Before(cutoff) && p.live-len(old) > 1 {
			old = append(old, pr)
			continue
		}
		kept = append(kept, pr)
	}
	p.idle = kept
	p.live -= len(old)
	p.mu.Unlock()
	for _, pr := range old {
		pr.client.Close()
	}
}

// close retires the pool: idle processes end now, busy ones when their job ends.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.live -= len(idle)
	p.mu.Unlock()
	for _, pr := range idle {
		pr.client.Close()
	}
	p.checkDrained()
}

// counts returns the number of live and busy processes.
func (p *pool) counts() (live, busy int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live, p.busy
}

func (p *pool) checkDrained() {
	p.mu.Lock()
	fire := p.closed && p.live == 0 && !p.drained
	if fire {
		p.drained = true
	}
	p.mu.Unlock()
	if fire && p.onDrained != nil {
		p.onDrained()
	}
}

func (p *pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}
