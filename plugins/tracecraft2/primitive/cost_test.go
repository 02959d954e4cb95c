package primitive

import (
	"math/rand"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
)

// TestCostWithinAnswersAsTheFullCostDoes checks the early stop of costWithin against the
// whole sum: for shapes of every kind, points near and far from them, some on the
// border, and limits below, at and above the cost, costWithin(limit) == (cost <= limit).
func TestCostWithinAnswersAsTheFullCostDoes(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	shapes := []Shape{
		{Kind: Circle, Center: fit.Point{X: 20, Y: 20}, R: 8},
		{Kind: Ellipse, Center: fit.Point{X: 30, Y: 15}, RX: 10, RY: 4, Angle: 30},
		{Kind: Rect, Center: fit.Point{X: 12, Y: 18}, W: 10, H: 6, Angle: 15},
	}
	for _, s := range shapes {
		for range 50 {
			n := 1 + rng.Intn(40)
			pts, border := make([]fit.Point, n), make([]bool, n)
			spread := []float64{0.5, 5, 50}[rng.Intn(3)]
			for i := range pts {
				pts[i] = fit.Point{X: s.Center.X + (rng.Float64()-0.5)*spread, Y: s.Center.Y + (rng.Float64()-0.5)*spread}
				border[i] = rng.Intn(5) == 0
			}
			c := s.cost(pts, border)
			for _, limit := range []float64{0, c / 2, c, c * 1.0000001, c * 2, rng.Float64() * 100} {
				if got, want := s.costWithin(pts, border, limit), c <= limit; got != want {
					t.Errorf("%v, %d points, limit %g (cost %g): costWithin %v, want %v", s.Kind, n, limit, c, got, want)
				}
			}
		}
	}
}
