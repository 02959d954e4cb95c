package fill

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
)

// dropThinByFlood is dropThin by its definition: a flood fill of each 8-connected part.
func dropThinByFlood(b []bool, d []int32, r2 float64, w, h int) bool {
	seen := make([]bool, len(b))
	left := false
	for i, on := range b {
		if !on || seen[i] {
			continue
		}
		part, stack := []int{}, []int{i}
		seen[i] = true
		inCore := 0
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			part = append(part, p)
			if float64(d[p]) >= r2 {
				inCore++
			}
			x, y := p%w, p/w
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					qx, qy := x+dx, y+dy
					if qx >= 0 && qy >= 0 && qx < w && qy < h && b[qy*w+qx] && !seen[qy*w+qx] {
						seen[qy*w+qx] = true
						stack = append(stack, qy*w+qx)
					}
				}
			}
		}
		if float64(inCore) < MinCoreShare*float64(len(part)) {
			for _, p := range part {
				b[p] = false
			}
			continue
		}
		left = true
	}
	return left
}

func TestDropThinEqualsAFloodFillOfEachPart(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	dropped, kept := 0, 0
	for _, tc := range []struct {
		name string
		w, h int
		fill float64
	}{
		{"sparse specks", 30, 20, 0.2},
		{"half full, parts touching at corners", 40, 25, 0.5},
		{"mostly full", 25, 30, 0.85},
		{"one row", 50, 1, 0.6},
	} {
		b := make([]bool, tc.w*tc.h)
		d := make([]int32, tc.w*tc.h)
		for i := range b {
			b[i] = r.Float64() < tc.fill
			if b[i] {
				d[i] = int32(r.IntN(12))
			}
		}
		want := slices.Clone(b)
		wantLeft := dropThinByFlood(want, d, 6.5, tc.w, tc.h)
		before := slices.Clone(b)
		keptRuns, left := dropThin(b, distance.FindRuns(b, tc.w, tc.h), d, 6.5, tc.w)
		if left != wantLeft || !slices.Equal(b, want) {
			t.Errorf("%s: dropThin left %v and %v, want %v and %v", tc.name, left, b, wantLeft, want)
		}
		if wantRuns := distance.FindRuns(want, tc.w, tc.h); !slices.Equal(keptRuns.Start, wantRuns.Start) || !slices.Equal(keptRuns.Spans, wantRuns.Spans) {
			t.Errorf("%s: dropThin kept the runs %v, want those of what is left, %v", tc.name, keptRuns, wantRuns)
		}
		for i := range b {
			if before[i] && !b[i] {
				dropped++
			} else if b[i] {
				kept++
			}
		}
	}
	if dropped == 0 || kept == 0 {
		t.Errorf("%d pixels dropped, %d kept: the cases must do both", dropped, kept)
	}
}

// growByScan is Grow's definition: each step, every pixel of in with a 4-neighbour
// in b joins b, decided on the whole image before any joins.
func growByScan(b, in []bool, w, h, steps int) {
	next := make([]bool, len(b))
	for range steps {
		copy(next, b)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				i := y*w + x
				if b[i] || !in[i] {
					continue
				}
				if (x > 0 && b[i-1]) || (x+1 < w && b[i+1]) || (y > 0 && b[i-w]) || (y+1 < h && b[i+w]) {
					next[i] = true
				}
			}
		}
		copy(b, next)
	}
}

func TestGrowEqualsAScanOfTheWholeImageEachStep(t *testing.T) {
	for _, tc := range []struct {
		name        string
		w, h, steps int
		seed        uint64
		// inPct: the percentage of pixels in in; bPerMille: the per mille of those in b
		// (long runs of ink with few pixels of b take Grow's eight-at-a-time path).
		inPct, bPerMille int
	}{
		{"one row", 37, 1, 3, 1, 70, 50},
		{"one column", 1, 29, 2, 2, 70, 50},
		{"square, no step", 20, 20, 0, 3, 70, 50},
		{"square, one step", 20, 20, 1, 6, 70, 50},
		{"square", 40, 40, 2, 4, 70, 50},
		{"wide, many steps", 90, 30, 7, 5, 70, 50},
		{"tall, across bands of rows", 30, 300, 2, 4, 70, 50},
		{"solid ink, few pixels of b", 70, 60, 2, 8, 99, 4},
		{"solid ink, one step, few pixels of b", 13, 90, 1, 9, 100, 8},
		{"solid ink, b nearly all of it", 64, 40, 1, 10, 100, 950},
		{"solid ink, b half of it", 33, 33, 3, 11, 98, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(tc.seed, 7))
			in := make([]bool, tc.w*tc.h)
			b := make([]bool, tc.w*tc.h)
			for i := range in {
				in[i] = r.IntN(100) < tc.inPct
				b[i] = in[i] && r.IntN(1000) < tc.bPerMille
			}
			want := slices.Clone(b)
			growByScan(want, in, tc.w, tc.h, tc.steps)
			NewParts(in, tc.w, tc.h).Grow(b, in, tc.steps)
			if !slices.Equal(b, want) {
				t.Fatalf("Grow differs from the whole-image scan")
			}
		})
	}
}
