package tracing

import (
	"math"
	"slices"
	"sync"
	"time"
)

// Budget bounds the bytes of uploads the host holds at once, received or being received,
// so that many large uploads arriving together cannot exhaust its memory. A request
// reserves its upload's bytes a step at a time as they arrive (Request.Hold), not from
// the size its headers claim: a connection that announces 10 MB and sends nothing holds
// at most one step.
type Budget struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

// NewBudget returns a budget of limit bytes.
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// TryTake reserves n bytes if they fit. One reservation always fits in an unused
// budget, however large. A nil budget holds anything.
func (b *Budget) TryTake(n int64) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.fits(n) {
		return false
	}
	b.used += n
	return true
}

// Fits reports whether TryTake(n) would succeed now, reserving nothing.
func (b *Budget) Fits(n int64) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fits(n)
}

// fits is Fits with b.mu held.
func (b *Budget) fits(n int64) bool { return b.used+n <= b.limit || b.used == 0 }

// Give returns n bytes.
func (b *Budget) Give(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// Used returns the bytes reserved now.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// ClientUploads bounds the uploads that one client address sends at once, so that one
// address cannot hold every connection and the upload budget with slow or idle bodies.
// An upload counts from its admission until its body has been read. It keeps each
// upload's progress, to forecast when an address may send again.
type ClientUploads struct {
	mu      sync.Mutex
	max     int
	sending map[string][]*upload
}

// upload is the progress of one upload: admitted at start, announcing size bytes (-1:
// unknown), of which got had come by the time at.
type upload struct {
	start, at time.Time
	size, got int64
}

// NewClientUploads returns a bound of max uploads at once per address; max < 1 bounds
// nothing.
func NewClientUploads(max int) *ClientUploads {
	return &ClientUploads{max: max, sending: map[string][]*upload{}}
}

// Max is the most uploads one address may send at once; 0 means no bound.
func (c *ClientUploads) Max() int {
	if c == nil || c.max < 1 {
		return 0
	}
	return c.max
}

// bounds reports whether the uploads of addr are bounded and counted.
func (c *ClientUploads) bounds(addr string) bool {
	return c != nil && c.max >= 1 && addr != ""
}

// tryAdd counts u among the uploads of addr if they are within the bound. A nil bound
// or an empty address is not bounded, and counts nothing.
func (c *ClientUploads) tryAdd(addr string, u *upload) bool {
	if !c.bounds(addr) {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.sending[addr]) >= c.max {
		return false
	}
	c.sending[addr] = append(c.sending[addr], u)
	return true
}

// progress notes that got bytes of u had come by the time at.
func (c *ClientUploads) progress(u *upload, got int64, at time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	u.got, u.at = got, at
}

// done ends the count of u among the uploads of addr; the map keeps only addresses
// sending now.
func (c *ClientUploads) done(addr string, u *upload) {
	if !c.bounds(addr) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	left := slices.DeleteFunc(c.sending[addr], func(v *upload) bool { return v == u })
	if len(left) == 0 {
		delete(c.sending, addr)
	} else {
		c.sending[addr] = left
	}
}

// Sending returns the uploads addr sends now.
func (c *ClientUploads) Sending(addr string) int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sending[addr])
}

// forecast returns in how many whole seconds, at least 1, the first upload of addr is
// expected to end, as of now: an upload whose size is known and of which some has come
// ends at the rate it has come so far, or when pace cuts it off if that is sooner; one
// without that measure holds its place at most until pace cuts it off. 1 when nothing
// bounds any of them.
func (c *ClientUploads) forecast(addr string, now time.Time, pace UploadPace) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first time.Time
	for _, u := range c.sending[addr] {
		end := pace.latest(u.start, u.size, u.got, u.at)
		if u.size >= 0 && u.got > 0 && u.at.After(u.start) {
			took := u.at.Sub(u.start)
			rest := time.Duration(float64(took) * float64(u.size-u.got) / float64(u.got))
			if at := u.at.Add(rest); end.IsZero() || at.Before(end) {
				end = at
			}
		}
		if !end.IsZero() && (first.IsZero() || end.Before(first)) {
			first = end
		}
	}
	if first.IsZero() {
		return 1
	}
	return max(1, int(math.Ceil(first.Sub(now).Seconds())))
}
