package regions

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSizeQueuePopsSmallestFirst pushes distinct items in a random order, some before
// init and some after, and checks that they come out sorted by size, then index.
func TestSizeQueuePopsSmallestFirst(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 1000} {
		r := rand.New(rand.NewPCG(uint64(n), 1))
		var all []queued
		for i := range n {
			all = append(all, queued{size: int32(r.IntN(20)), id: int32(i)})
		}
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		q := &sizeQueue{items: append([]queued(nil), all[:n/2]...)}
		q.init()
		for _, it := range all[n/2:] {
			q.push(it)
		}
		var got []queued
		for q.Len() > 0 {
			got = append(got, q.pop())
		}
		want := slices.Clone(all)
		slices.SortFunc(want, func(a, b queued) int {
			if a.size != b.size {
				return int(a.size - b.size)
			}
			return int(a.id - b.id)
		})
		if !slices.Equal(got, want) {
			t.Errorf("%d items: popped %v, want %v", n, got, want)
		}
	}
}
