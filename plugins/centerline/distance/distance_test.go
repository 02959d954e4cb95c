package distance

import (
	"math/rand/v2"
	"testing"
)

// brute is the transform by definition.
func brute(in []bool, w, h int) []float64 {
	d := make([]float64, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if !in[y*w+x] {
				continue
			}
			best := 1e18
			for yy := -1; yy <= h; yy++ {
				for xx := -1; xx <= w; xx++ {
					if xx >= 0 && yy >= 0 && xx < w && yy < h && in[yy*w+xx] {
						continue
					}
					dd := float64((xx-x)*(xx-x) + (yy-y)*(yy-y))
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
	}{{1, 1, 1}, {7, 5, 0.9}, {20, 13, 0.7}, {31, 31, 0.97}, {16, 1, 1}} {
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
	want := []float64{2, 1, 2, 5, 10, 1, 0, 1, 4, 9, 2, 1, 2, 5, 10}
	for i := range want {
		if d[i] != want[i] {
			t.Fatalf("ToSet = %v, want %v", d, want)
		}
	}
	if d := ToSet(make([]bool, 4), 2, 2); d[0] < 1e12 {
		t.Errorf("distance to an empty set = %v, want at least 1e12", d[0])
	}
}
