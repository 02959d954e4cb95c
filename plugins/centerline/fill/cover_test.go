package fill

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// coverPlain is Cover by its definition: every pixel of in whose centre lies in a disc.
func coverPlain(b, in []bool, w, h int, discs []Disc) []bool {
	if b == nil {
		b = make([]bool, w*h)
	}
	for _, c := range discs {
		for y := range h {
			for x := range w {
				dx, dy := float64(x)+0.5-c.X, float64(y)+0.5-c.Y
				if in[y*w+x] && dx*dx+dy*dy <= c.R*c.R {
					b[y*w+x] = true
				}
			}
		}
	}
	return b
}

func TestCoverMatchesThePlainDefinitionOnRandomStrokes(t *testing.T) {
	tests := []struct {
		name    string
		w, h    int
		strokes int
		step    float64 // distance between a stroke's discs
		maxR    float64
	}{
		{"dense discs along strokes", 40, 30, 4, 0.7, 4},
		{"sparse discs", 40, 30, 3, 5, 3},
		{"wide discs off the image", 25, 20, 5, 1, 9},
		{"tiny discs", 30, 30, 6, 0.5, 0.8},
		{"tall, across bands of rows", 30, 300, 8, 1, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(20) {
				rng := rand.New(rand.NewPCG(seed, 31))
				in := make([]bool, tt.w*tt.h)
				for i := range in {
					in[i] = rng.Float64() < 0.8
				}
				var discs []Disc
				for range tt.strokes {
					x, y := rng.Float64()*float64(tt.w), rng.Float64()*float64(tt.h)
					a := rng.Float64() * 2 * math.Pi
					for range 20 {
						discs = append(discs, Disc{X: x, Y: y, R: rng.Float64() * tt.maxR})
						a += rng.NormFloat64() * 0.3
						x, y = x+tt.step*math.Cos(a), y+tt.step*math.Sin(a)
					}
				}
				var start []bool
				if seed%2 == 1 {
					start = make([]bool, tt.w*tt.h)
					for i := range start {
						start[i] = rng.Float64() < 0.1
					}
				}
				want := coverPlain(slices.Clone(start), in, tt.w, tt.h, discs)
				got := Cover(slices.Clone(start), in, tt.w, tt.h, discs)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d: Cover differs from the plain definition:\n got %v\nwant %v", seed, got, want)
				}
			}
		})
	}
}
