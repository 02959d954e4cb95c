package width

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/graph"
	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
)

// measurePlain is Measure with every sample read through g.Bilinear, as it was before
// the common case was written out in Measure's loop.
func measurePlain(s graph.Stroke, g *ink.Image, level float64) Measured {
	pts := slices.Clone(s.Points)
	m := Measured{Points: pts, Widths: make([]float64, len(pts)), Closed: s.Closed}
	near := nearJunction(s)
	for i := range pts {
		m.Widths[i] = math.NaN()
		if near[i] {
			continue
		}
		tx, ty := tangent(s.Points, i, s.Closed)
		if tx == 0 && ty == 0 {
			m.Widths[i] = 2 * s.Points[i].R
			continue
		}
		nx, ny := -ty, tx
		p := s.Points[i]
		reach := p.R + 2.5
		const step = sampleStep
		var sum, moment float64
		for _, sign := range [2]float64{1, -1} {
			for t := 0.0; t <= reach; t += step {
				if t == 0 && sign < 0 {
					continue
				}
				c := g.Bilinear(p.X+sign*t*nx, p.Y+sign*t*ny) / level
				if c < 0.08 && t > 0.5 {
					break
				}
				c = min(c, 1)
				sum += c * step
				moment += sign * t * c * step
			}
		}
		if sum <= 0 {
			continue
		}
		off := moment / sum
		if math.Abs(off) > 1 {
			continue
		}
		pts[i].X += off * nx
		pts[i].Y += off * ny
		m.Widths[i] = sum
	}
	bridge(&m, near)
	return m
}

// sameFloats says whether a and b hold the same values bit for bit (NaN equal to NaN).
func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

func TestMeasureMatchesBilinearSamplingBitForBit(t *testing.T) {
	tests := []struct {
		name   string
		w, h   int
		margin float64 // how far off the image the strokes may run
		maxR   float64
	}{
		{"strokes inside the image", 40, 30, -4, 3},
		{"strokes across the image's edges", 30, 20, 3, 4},
		{"a one-pixel-high image", 25, 1, 1, 1},
		{"wide strokes", 50, 50, 0, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(10) {
				rng := rand.New(rand.NewPCG(seed, 41))
				g := &ink.Image{W: tt.w, H: tt.h, Pix: make([]uint8, tt.w*tt.h)}
				for i := range g.Pix {
					g.Pix[i] = uint8(rng.IntN(256))
				}
				var s graph.Stroke
				x := -tt.margin + rng.Float64()*(float64(tt.w)+2*tt.margin)
				y := -tt.margin + rng.Float64()*(float64(tt.h)+2*tt.margin)
				a := rng.Float64() * 2 * math.Pi
				for k := range 40 {
					s.Points = append(s.Points, graph.Point{X: x, Y: y, R: rng.Float64() * tt.maxR, Junction: k%13 == 6})
					a += rng.NormFloat64() * 0.2
					x, y = x+math.Cos(a), y+math.Sin(a)
				}
				s.Closed = seed%3 == 0
				level := 0.25 + 0.75*rng.Float64()
				got, want := Measure(s, g, level), measurePlain(s, g, level)
				for i := range want.Points {
					if got.Points[i] != want.Points[i] {
						t.Fatalf("seed %d: point %d is %+v, want %+v", seed, i, got.Points[i], want.Points[i])
					}
				}
				if !sameFloats(got.Widths, want.Widths) {
					t.Fatalf("seed %d: widths %v, want %v", seed, got.Widths, want.Widths)
				}
			}
		})
	}
}
