package fill

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
)

// TestOutlinesTracedInHalvesAreTheOneTracesOutlines checks EdgeOutlines and
// SelectEdgeOutlines, which trace large masks in two halves of their parts at once,
// against one trace of the whole mask (outlines), on masks of minHalves pixels and
// more: specks, blobs with holes, and parts of every size.
func TestOutlinesTracedInHalvesAreTheOneTracesOutlines(t *testing.T) {
	tests := []struct {
		name        string
		w, h        int
		shape, blob float64 // densities of the shape's pixels, and of b's within it
	}{
		{"many specks", 150, 120, 0.3, 0.9},
		{"parts with holes", 160, 100, 0.55, 0.8},
		{"one part almost everywhere", 100, 100, 0.75, 0.95},
		{"a solid image", 80, 80, 1.01, 1.01},
		{"wide rows", 400, 20, 0.5, 0.7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(6) {
				rng := rand.New(rand.NewPCG(seed, 13))
				in := make([]bool, tt.w*tt.h)
				b := make([]bool, tt.w*tt.h)
				g := &ink.Image{W: tt.w, H: tt.h, Pix: make([]uint8, tt.w*tt.h)}
				for i := range in {
					in[i] = rng.Float64() < tt.shape
					b[i] = in[i] && rng.Float64() < tt.blob
					g.Pix[i] = uint8(rng.IntN(256))
				}
				parts := NewParts(in, tt.w, tt.h)
				check := func(what string, got [][]Pt, gotFirsts []Pt, mask []bool) {
					t.Helper()
					want, wantFirsts := outlines(mask, distance.FindRuns(mask, tt.w, tt.h), tt.w, tt.h, g, 0.5)
					if len(got) != len(want) || !slices.Equal(gotFirsts, wantFirsts) {
						t.Fatalf("seed %d, %s: %d outlines from %v, want %d from %v", seed, what, len(got), gotFirsts, len(want), wantFirsts)
					}
					for i := range got {
						if !slices.Equal(got[i], want[i]) {
							t.Fatalf("seed %d, %s: outline %d is %v, want %v", seed, what, i, got[i], want[i])
						}
					}
				}
				got, firsts := parts.EdgeOutlines(b, g, 0.5)
				check("EdgeOutlines", got, firsts, b)
				sel := make([]bool, parts.Len())
				for k := range sel {
					sel[k] = rng.IntN(3) > 0
				}
				got, firsts = parts.SelectEdgeOutlines(sel, g, 0.5)
				var mask []bool
				if mask = parts.Select(sel); mask == nil {
					mask = make([]bool, tt.w*tt.h)
				}
				check("SelectEdgeOutlines", got, firsts, mask)
			}
		})
	}
}
