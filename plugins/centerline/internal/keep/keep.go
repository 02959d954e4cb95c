// Package keep holds scratch buffers between calls of the centre-line tracer's pixel
// stages, so that a trace of a small image does not allocate them again each time: on
// the horse of the line-art corpus (400 x 328) their allocation made the garbage
// collector run more often than some stages cost, and keeping them cut its wall time
// per trace by about a sixth.
package keep

import (
	"sync"
	"sync/atomic"
)

// MaxPixels is the most pixels of an image whose buffers a Cache keeps in its slot (a
// 2000 x 2000 image's): a larger image's go to the sync.Pool, which the garbage
// collector empties. The callers of Put compare their buffers' sizes with it, in
// pixels or in bytes a pixel times it.
const MaxPixels = 2000 * 2000

// Cache keeps buffers of type T between calls: the last one put in a slot the garbage
// collector does not empty, others (those of calls that overlapped) in a sync.Pool. A
// sync.Pool alone missed on 40 to 45 % of the horse's calls (its object in the private
// slot of another P, or dropped by two collections), and each miss allocated the
// buffers again. The zero Cache is ready to use; a Cache must not be copied.
type Cache[T any] struct {
	last atomic.Pointer[T]
	pool sync.Pool
}

// Get returns a buffer put before, or a new zero one.
func (c *Cache[T]) Get() *T {
	if p := c.last.Swap(nil); p != nil {
		return p
	}
	if p, ok := c.pool.Get().(*T); ok {
		return p
	}
	return new(T)
}

// Put keeps p for a later Get: in the slot when small (the caller's size limit, so that
// a large image's buffers go back to the garbage collector) and the slot is free, else
// in the pool.
func (c *Cache[T]) Put(p *T, small bool) {
	if small && c.last.CompareAndSwap(nil, p) {
		return
	}
	c.pool.Put(p)
}

// Take returns a slice of n elements from a buffer c kept (given back by a Put), when
// one is there and large enough, and says so (dirty: its elements hold whatever they
// held); else a new zero one (a buffer too small is left to the garbage collector).
func Take[T any](c *Cache[[]T], n int) (buf []T, dirty bool) {
	if p := c.Get(); cap(*p) >= n {
		return (*p)[:n], true
	}
	return make([]T, n), false
}

// Grown returns buf resliced to n elements, reallocated only when its capacity is
// short; the elements keep whatever they held.
func Grown[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}
