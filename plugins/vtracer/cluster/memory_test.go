package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/enginetest"
)

// summary describes a hierarchy completely: its shapes and every pixel's owner.
func summary(h *Hierarchy) string {
	return fmt.Sprint(h.Width, h.Height, h.Shapes, h.owner)
}

// TestBigSums takes the path of clusters too large for uint32 sums (lowering the limit
// to a few pixels) and expects the very same hierarchy.
func TestBigSums(t *testing.T) {
	imgs := map[string]func() *Hierarchy{}
	for _, s := range enginetest.Samples() {
		for _, cfg := range []Config{
			{Shift: 2, Tolerance: 1, SpeckleArea: 16, LayerDifference: 16},
			{SpeckleArea: 4},
		} {
			imgs[fmt.Sprintf("%s %+v", s.Name, cfg)] = func() *Hierarchy { return build(t, s.Image, cfg) }
		}
	}
	noise := enginetest.Noise(40, 30, 3)
	imgs["noise"] = func() *Hierarchy {
		return build(t, noise, Config{Shift: 3, Tolerance: 1, SpeckleArea: 4, LayerDifference: 8})
	}
	defer func(a int32) { smallArea = a }(smallArea)
	for name, f := range imgs {
		smallArea = 1 << 24
		want := summary(f())
		for _, limit := range []int32{1, 3, 50} {
			smallArea = limit
			if got := summary(f()); got != want {
				t.Errorf("%s, sums in uint64 from area %d: hierarchy differs", name, limit+1)
			}
		}
	}
}

// TestQueue checks the tournament tree against a sorted list while areas grow and
// clusters die in random order.
func TestQueue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 5, 31, 32, 33, 100, 1000} {
		area := make([]int32, n)
		state := make([]uint32, n)
		for i := range area {
			area[i] = int32(1 + r.IntN(20))
		}
		q := newQueue(area, state)
		for {
			best := int32(-1)
			for c := range area {
				if state[c]&absorbed == 0 && (best < 0 || area[c] < area[best]) {
					best = int32(c)
				}
			}
			if got := q.min(); got != best {
				t.Fatalf("n=%d: min %d, want %d", n, got, best)
			}
			if best < 0 {
				break
			}
			// Kill the best one, or, half the time, let a random live one grow.
			c := best
			if r.IntN(2) == 0 {
				c = int32(r.IntN(n))
				if state[c]&absorbed == 0 {
					area[c] += int32(r.IntN(5))
					q.update(c)
					continue
				}
				c = best
			}
			state[c] = root
			q.update(c)
		}
	}
}

func TestTopEdges(t *testing.T) {
	img := enginetest.Noise(24, 20, 5)
	h := build(t, img, Config{Shift: 4, Tolerance: 1, SpeckleArea: 4, LayerDifference: 16})
	for _, m := range []Mode{Stacked, Cutout} {
		for i := range h.Shapes {
			var want []int32
			for _, p := range h.Pixels(nil, i) {
				if h.Covers(i, m, int(p)) && (int(p) < h.Width || !h.Covers(i, m, int(p)-h.Width)) {
					want = append(want, p)
				}
			}
			got := h.TopEdges(nil, i, m)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("mode %d shape %d: top edges %v, want %v", m, i, got, want)
			}
		}
	}
}

// TestPixelRuns checks that every shape's pixels, a run of links from its first, are
// exactly the pixels its subtree owns (the ring splicing of merge keeps each absorbed
// cluster one run).
func TestPixelRuns(t *testing.T) {
	img := enginetest.Noise(30, 30, 9)
	h := build(t, img, Config{Shift: 3, Tolerance: 1, SpeckleArea: 4, LayerDifference: 8})
	for i := range h.Shapes {
		var want []int32
		for p := range h.Width * h.Height {
			if o := h.Owner(p); o >= 0 && h.Shapes[o].pre >= h.Shapes[i].pre && h.Shapes[o].pre < h.Shapes[i].post {
				want = append(want, int32(p))
			}
		}
		got := h.Pixels(nil, i)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("shape %d: %d pixels in its run, %d owned by its subtree", i, len(got), len(want))
		}
	}
}
