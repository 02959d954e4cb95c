package parallel_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/parallel"
)

func TestForCoversEveryItemExactlyOnce(t *testing.T) {
	for _, tc := range []struct{ n, grain, procs int }{
		{0, 1, 4}, {1, 1, 4}, {7, 3, 1}, {1000, 1, 4}, {1000, 64, 2}, {1001, 7, 3}, {5, 100, 8},
	} {
		prev := runtime.GOMAXPROCS(tc.procs)
		hits := make([]int, tc.n)
		workers := parallel.Workers(tc.n, tc.grain)
		err := parallel.For(context.Background(), tc.n, tc.grain, func(w, lo, hi int) {
			if w < 0 || w >= workers {
				t.Errorf("n %d grain %d: worker %d outside 0..%d", tc.n, tc.grain, w, workers-1)
			}
			if hi-lo < tc.grain && hi != tc.n {
				t.Errorf("n %d grain %d: range [%d,%d) shorter than the grain", tc.n, tc.grain, lo, hi)
			}
			for i := lo; i < hi; i++ {
				hits[i]++ // ranges are disjoint, so no two workers write one entry
			}
		})
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range hits {
			if h != 1 {
				t.Errorf("n %d grain %d procs %d: item %d handled %d times, want once", tc.n, tc.grain, tc.procs, i, h)
			}
		}
	}
}

func TestForStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	if err := parallel.For(ctx, 100, 1, func(int, int, int) { calls++ }); err == nil {
		t.Error("For on a cancelled context returned no error")
	}
	if calls != 0 {
		t.Errorf("For on a cancelled context made %d calls, want 0", calls)
	}
}
