package fill

import (
	"math"
	"math/rand/v2"
	"testing"
)

// areaPlain is Area's definition, as it was written before: each point's successor
// found by its index's remainder.
func areaPlain(poly []Pt) float64 {
	var a float64
	for i, p := range poly {
		q := poly[(i+1)%len(poly)]
		a += p.X*q.Y - q.X*p.Y
	}
	return a / 2
}

func TestAreaMatchesItsDefinitionBitForBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2))
	tests := []struct {
		name   string
		points int
		scale  float64
	}{
		{"no points", 0, 1},
		{"one point", 1, 10},
		{"two points", 2, 10},
		{"a triangle", 3, 100},
		{"a long outline of subpixel points", 500, 1000},
		{"points far from the origin", 50, 1e6},
	}
	for _, tt := range tests {
		for trial := range 20 {
			poly := make([]Pt, tt.points)
			for i := range poly {
				poly[i] = Pt{X: rng.Float64() * tt.scale, Y: rng.Float64() * tt.scale}
			}
			if got, want := Area(poly), areaPlain(poly); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("%s, trial %d: %v, want %v", tt.name, trial, got, want)
			}
		}
	}
}
