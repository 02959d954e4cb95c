package ink

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// countInkPlain is countInk's definition, a pixel at a time.
func countInkPlain(dark *[256]int, row []uint8, mask []bool, tb int) {
	for i, d := range row {
		dark[d]++
		mask[i] = int(d) > tb
	}
}

func TestCountInkMatchesItsDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 3))
	tests := []struct {
		name  string
		paper float64 // the share of runs of paper (0), of ink (255) and of greys
		ink   float64
		n     int
		tb    int
	}{
		{"all paper", 1, 0, 300, 128},
		{"long runs of paper between greys", 0.8, 0, 500, 128},
		{"paper, full ink and greys", 0.5, 0.3, 500, 100},
		{"mostly full ink at a threshold of 255", 0.1, 0.8, 200, 255},
		{"greys only", 0, 0, 100, 0},
		{"short rows", 0.6, 0.2, 7, 128},
		{"an empty row", 0.5, 0.5, 0, 128},
	}
	for _, tt := range tests {
		for trial := range 30 {
			row := make([]uint8, 0, tt.n)
			for len(row) < tt.n {
				run := 1 + rng.IntN(70)
				r := rng.Float64()
				for range min(run, tt.n-len(row)) {
					switch {
					case r < tt.paper:
						row = append(row, 0)
					case r < tt.paper+tt.ink:
						row = append(row, 255)
					default:
						row = append(row, uint8(rng.IntN(256)))
					}
				}
			}
			var got, want [256]int
			gotMask, wantMask := make([]bool, len(row)), make([]bool, len(row))
			countInk(&got, row, gotMask, tt.tb)
			countInkPlain(&want, row, wantMask, tt.tb)
			if got != want || !slices.Equal(gotMask, wantMask) {
				t.Errorf("%s, trial %d: the counts or the mask differ from the definition's", tt.name, trial)
			}
		}
	}
}
