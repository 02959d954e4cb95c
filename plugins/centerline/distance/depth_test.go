package distance

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// medianRunDepthPlain is MedianRunDepth as its definition reads: every run of every
// row and column, its deepest pixel, the median of those.
func medianRunDepthPlain(in []bool, d []int32, w, h int) (int32, bool) {
	var deepest []int32
	for y := range h {
		for x := 0; x < w; {
			if !in[y*w+x] {
				x++
				continue
			}
			m := int32(0)
			for ; x < w && in[y*w+x]; x++ {
				m = max(m, d[y*w+x])
			}
			deepest = append(deepest, m)
		}
	}
	for x := range w {
		for y := 0; y < h; {
			if !in[y*w+x] {
				y++
				continue
			}
			m := int32(0)
			for ; y < h && in[y*w+x]; y++ {
				m = max(m, d[y*w+x])
			}
			deepest = append(deepest, m)
		}
	}
	if len(deepest) == 0 {
		return 0, false
	}
	slices.Sort(deepest)
	return deepest[len(deepest)/2], true
}

func TestMedianRunDepthIsTheMedianOfTheRunsDeepest(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, tc := range []struct {
		name string
		w, h int
		// ink: the share of pixels set at random; discs: solid discs of radius rad to
		// rad+19 drawn over it, inside; deep: the median is past the counted table
		// (listed).
		ink        float64
		discs, rad int
		deep       bool
	}{
		{"empty", 17, 9, 0, 0, 0, false},
		{"one pixel", 1, 1, 1, 0, 0, false},
		{"one row", 300, 1, 0.7, 0, 0, false},
		{"one column", 1, 300, 0.7, 0, 0, false},
		{"sparse", 200, 150, 0.2, 0, 0, false},
		{"dense", 150, 200, 0.9, 0, 0, false},
		{"discs", 400, 330, 0.05, 3, 40, false},
		{"deep disc", 420, 420, 0, 1, 140, true},
		{"full", 70, 130, 1, 0, 0, false},
	} {
		in := make([]bool, tc.w*tc.h)
		for i := range in {
			in[i] = r.Float64() < tc.ink
		}
		for range tc.discs {
			rad := tc.rad + r.IntN(20)
			cx, cy := rad+r.IntN(tc.w-2*rad), rad+r.IntN(tc.h-2*rad) // inside
			for y := range tc.h {
				for x := range tc.w {
					if (x-cx)*(x-cx)+(y-cy)*(y-cy) <= rad*rad {
						in[y*tc.w+x] = true
					}
				}
			}
		}
		d := Transform(in, tc.w, tc.h)
		want, wantOK := medianRunDepthPlain(in, d, tc.w, tc.h)
		if got, ok := MedianRunDepth(FindRuns(in, tc.w, tc.h), d, tc.w); got != want || ok != wantOK {
			t.Errorf("%s: MedianRunDepth = %d, %v; want %d, %v", tc.name, got, ok, want, wantOK)
		}
		if tc.deep != (want >= depthSmall) {
			t.Errorf("%s: the median %d, deep %v, is on the wrong side of the counted table's %d", tc.name, want, tc.deep, depthSmall)
		}
	}
}
