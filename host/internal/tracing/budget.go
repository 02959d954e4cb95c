package tracing

import "sync"

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
// An upload counts from its admission until its body has been read.
type ClientUploads struct {
	mu      sync.Mutex
	max     int
	sending map[string]int
}

// NewClientUploads returns a bound of max uploads at once per address; max < 1 bounds
// nothing.
func NewClientUploads(max int) *ClientUploads {
	return &ClientUploads{max: max, sending: map[string]int{}}
}

// Max is the most uploads one address may send at once; 0 means no bound.
func (c *ClientUploads) Max() int {
	if c == nil || c.max < 1 {
		return 0
	}
	return c.max
}

// tryAdd counts one more upload from addr if it is within the bound. A nil bound or an
// empty address is not bounded.
func (c *ClientUploads) tryAdd(addr string) bool {
	if c == nil || c.max < 1 || addr == "" {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sending[addr] >= c.max {
		return false
	}
	c.sending[addr]++
	return true
}

// done counts one upload from addr fewer; the map keeps only addresses sending now.
func (c *ClientUploads) done(addr string) {
	if c == nil || c.max < 1 || addr == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.sending[addr]; n > 1 {
		c.sending[addr] = n - 1
	} else {
		delete(c.sending, addr)
	}
}

// Sending returns the uploads addr sends now.
func (c *ClientUploads) Sending(addr string) int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sending[addr]
}
