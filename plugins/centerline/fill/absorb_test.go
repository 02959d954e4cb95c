package fill

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
)

// absorbByPixels is Absorb as it was written before AbsorbRuns: b's pixels counted one
// by one over each run of the shape.
func absorbByPixels(p *Parts, b []bool, share float64) []bool {
	r := &p.r
	size := make([]int, p.n)
	covered := make([]int, p.n)
	for i := range r.len() {
		k := p.number[i]
		lo, hi := r.span(i, p.w)
		size[k] += hi - lo
		for _, v := range b[lo:hi] {
			if v {
				covered[k]++
			}
		}
	}
	for i := range r.len() {
		k := p.number[i]
		if covered[k] > 0 && float64(covered[k]) >= share*float64(size[k]) {
			lo, hi := r.span(i, p.w)
			for j := lo; j < hi; j++ {
				b[j] = true
			}
		}
	}
	return b
}

func TestAbsorbRunsCountsAsThePixelsDo(t *testing.T) {
	tests := []struct {
		name        string
		w, h        int
		shape, blob float64 // densities of the shape, and of b within it
		share       float64
	}{
		{"specks", 40, 30, 0.3, 0.5, 0.3},
		{"large parts, little blob", 50, 40, 0.6, 0.1, 0.05},
		{"large parts, much blob", 50, 40, 0.6, 0.5, 0.5},
		{"everything", 20, 20, 1.01, 1.01, 0.3},
		{"no blob", 30, 20, 0.5, 0, 0.3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(20) {
				rng := rand.New(rand.NewPCG(seed, 37))
				in := make([]bool, tt.w*tt.h)
				b := make([]bool, tt.w*tt.h)
				for i := range in {
					in[i] = rng.Float64() < tt.shape
					b[i] = in[i] && rng.Float64() < tt.blob
				}
				p := NewParts(in, tt.w, tt.h)
				want := absorbByPixels(p, slices.Clone(b), tt.share)
				got, whole := p.AbsorbRuns(slices.Clone(b), distance.FindRuns(b, tt.w, tt.h), tt.share)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d: absorbed %v, want %v", seed, got, want)
				}
				// The parts said absorbed whole are those b covered at least share
				// of, now set whole; Except leaves them out.
				rest := make([]bool, len(in))
				for i := range in {
					k := p.At(i%tt.w, i/tt.w)
					if k >= 0 && !whole[k] {
						rest[i] = true
					}
					if k >= 0 && whole[k] && !got[i] {
						t.Fatalf("seed %d: pixel %d of part %d, absorbed whole, is not set", seed, i, k)
					}
				}
				for k, w := range whole {
					share := coveredShare(p, b, k, tt.w)
					if w != (share > 0 && share >= tt.share) {
						t.Fatalf("seed %d: part %d covered %.3f: absorbed %v, with share %.3f", seed, k, share, w, tt.share)
					}
				}
				if gotRuns, wantRuns := p.Except(whole), distance.FindRuns(rest, tt.w, tt.h); !slices.Equal(gotRuns.Spans, wantRuns.Spans) || !slices.Equal(gotRuns.Start, wantRuns.Start) {
					t.Fatalf("seed %d: Except gave runs %v, want %v", seed, gotRuns, wantRuns)
				}
			}
		})
	}
}

// coveredShare is the share of part k's pixels (p's shape, w pixels wide) set in b.
func coveredShare(p *Parts, b []bool, k, w int) float64 {
	var n, in int
	for i, v := range b {
		if p.At(i%w, i/w) == k {
			n++
			if v {
				in++
			}
		}
	}
	return float64(in) / float64(n)
}
