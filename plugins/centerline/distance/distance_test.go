package distance

import (
	"math"
	"math/rand/v2"
	"testing"
)

// brute is the transform by definition.
func brute(in []bool, w, h int) []int32 {
	d := make([]int32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if !in[y*w+x] {
				continue
			}
			best := int32(math.MaxInt32)
			for yy := -1; yy <= h; yy++ {
				for xx := -1; xx <= w; xx++ {
					if xx >= 0 && yy >= 0 && xx < w && yy < h && in[yy*w+xx] {
						continue
					}
					dd := int32((xx-x)*(xx-x) + (yy-y)*(yy-y))
					best = min(best, dd)
				}
			}
			d[y*w+x] = best
		}
	}
	return d
}

func TestTransformEqualsTheDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		w, h int
		fill float64
	}{{1, 1, 1}, {7, 5, 0.9}, {20, 13, 0.7}, {31, 31, 0.97}, {16, 1, 1}, {1, 9, 1},
		{200, 20, 0.995}, {20, 200, 0.999}, {400, 3, 0.9}} {
		in := make([]bool, tc.w*tc.h)
		for i := range in {
			in[i] = r.Float64() < tc.fill
		}
		got, want := Transform(in, tc.w, tc.h), brute(in, tc.w, tc.h)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%dx%d: pixel (%d,%d) = %v, want %v", tc.w, tc.h, i%tc.w, i/tc.w, got[i], want[i])
			}
		}
	}
}

func TestToSetIgnoresTheBorder(t *testing.T) {
	set := make([]bool, 5*3)
	set[1*5+1] = true
	d := ToSet(set, 5, 3)
	want := []int32{2, 1, 2, 5, 10, 1, 0, 1, 4, 9, 2, 1, 2, 5, 10}
	for i := range want {
		if d[i] != want[i] {
			t.Fatalf("ToSet = %v, want %v", d, want)
		}
	}
	if d := ToSet(make([]bool, 6), 2, 3); d[0] < 25 {
		t.Errorf("distance to an empty set = %v, want at least (w+h)² = 25", d[0])
	}
}

// bruteToSet is ToSet by definition.
func bruteToSet(set []bool, w, h int) []int32 {
	d := make([]int32, w*h)
	for i := range d {
		x, y := i%w, i/w
		best := int32(math.MaxInt32)
		for j, on := range set {
			if on {
				xx, yy := j%w, j/w
				best = min(best, int32((xx-x)*(xx-x)+(yy-y)*(yy-y)))
			}
		}
		d[i] = best
	}
	return d
}

func TestToSetEqualsTheDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		w, h int
		fill float64
	}{{1, 1, 1}, {9, 4, 0.1}, {23, 17, 0.02}, {64, 5, 0.01}, {5, 64, 0.05}, {300, 30, 0.001}} {
		set := make([]bool, tc.w*tc.h)
		set[r.IntN(len(set))] = true
		for i := range set {
			set[i] = set[i] || r.Float64() < tc.fill
		}
		got, want := ToSet(set, tc.w, tc.h), bruteToSet(set, tc.w, tc.h)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%dx%d: pixel (%d,%d) = %v, want %v", tc.w, tc.h, i%tc.w, i/tc.w, got[i], want[i])
			}
		}
	}
}

func TestWithinEqualsTheDistanceToTheSet(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name string
		w, h int
		r    float64
	}{
		{"small discs", 40, 30, 1.5},
		{"radius 3", 60, 50, 3},
		{"radius 4.2", 70, 40, 4.2},
		{"a thin image", 120, 12, 2.5},
	} {
		// Random blocks and discs of ink, so that discs of radius r fit in some places.
		in := make([]bool, tc.w*tc.h)
		for range 8 {
			cx, cy, rr := r.IntN(tc.w), r.IntN(tc.h), 2+r.IntN(9)
			square := r.IntN(2) == 0
			for y := 0; y < tc.h; y++ {
				for x := 0; x < tc.w; x++ {
					dx, dy := x-cx, y-cy
					if square && max(abs(dx), abs(dy)) <= rr || !square && dx*dx+dy*dy <= rr*rr {
						in[y*tc.w+x] = true
					}
				}
			}
		}
		d := Transform(in, tc.w, tc.h)
		r2 := tc.r * tc.r
		set := make([]bool, len(in))
		any := false
		for i, v := range d {
			set[i] = float64(v) >= r2
			any = any || set[i]
		}
		if !any {
			t.Fatalf("%s: no disc of radius %v fits; the case tests nothing", tc.name, tc.r)
		}
		got := Within(set, in, tc.w, tc.h, r2)
		want := bruteToSet(set, tc.w, tc.h)
		for i := range got {
			if w := in[i] && float64(want[i]) <= r2; got[i] != w {
				t.Fatalf("%s: pixel (%d,%d) within %v, want %v", tc.name, i%tc.w, i/tc.w, got[i], w)
			}
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
