package tracing

import "sync"

// Budget bounds the bytes of uploads the host holds at once, received or being received,
// so that many large uploads arriving together cannot exhaust its memory: a request
// that does not fit is answered 429 before its body is read.
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
	if b.used+n > b.limit && b.used > 0 {
		return false
	}
	b.used += n
	return true
}

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
