// Package parallel spreads work that splits into independent index ranges (the rows of a
// per-pixel pass, the edges of a planar map) over the machine's cores, for engines that
// must stay deterministic: the ranges are fixed by the size alone, each range is handled
// by exactly one goroutine, and the caller combines per-worker partial results in worker
// order, so the output never depends on the number of cores or on scheduling.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers returns how many goroutines For uses for n items handed out at least grain at
// a time: GOMAXPROCS, fewer when n is small, at least 1.
func Workers(n, grain int) int {
	grain = max(1, grain)
	return max(1, min(runtime.GOMAXPROCS(0), (n+grain-1)/grain))
}

// For calls fn(worker, lo, hi) for consecutive ranges [lo, hi) covering [0, n), on
// Workers(n, grain) goroutines (worker numbers 0 up, so fn can keep scratch space per
// worker), and returns when every call has returned. Ranges hold at least grain items
// (the last may be shorter) and are taken in turn by whichever worker is free, so fn
// must write only what belongs to its range and its worker. With one worker everything
// runs on the calling goroutine. Between ranges ctx is checked; For returns its error
// when it was cancelled, and the items not yet handed out are then skipped.
func For(ctx context.Context, n, grain int, fn func(worker, lo, hi int)) error {
	if n <= 0 {
		return ctx.Err()
	}
	grain = max(1, grain)
	workers := Workers(n, grain)
	// Several ranges per worker even out ranges of unequal cost.
	size := max(grain, (n+4*workers-1)/(4*workers))
	if workers == 1 {
		for lo := 0; lo < n; lo += size {
			if err := ctx.Err(); err != nil {
				return err
			}
			fn(0, lo, min(n, lo+size))
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				lo := int(next.Add(int64(size))) - size
				if lo >= n {
					return
				}
				fn(w, lo, min(n, lo+size))
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}
