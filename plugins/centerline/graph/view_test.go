package graph

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// directionPlain and radiusPlain are direction and radius by their definitions: the
// edge's points copied and reversed for its side 1, measured whole.
func directionPlain(g *work, ee int) (float64, float64) {
	e := g.edges[ee/2]
	pts, n := e.points, e.a
	if ee%2 == 1 {
		pts, n = reversed(pts), e.b
	}
	r := g.nodes[n].r
	s0, s1 := r, r+max(4, 2*r)
	total := polyLength(pts)
	if s1 > total {
		s1 = total
		s0 = min(s0, total/2)
	}
	a, b := pointAt(pts, s0), pointAt(pts, s1)
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	if l == 0 {
		return 0, 0
	}
	return dx / l, dy / l
}

func radiusPlain(g *work, ee int) float64 {
	e := g.edges[ee/2]
	pts, n := e.points, e.a
	if ee%2 == 1 {
		pts, n = reversed(pts), e.b
	}
	r := g.nodes[n].r
	s0, s1 := r, r+max(4, 2*r)
	var rs []float64
	var l float64
	for i := 1; i < len(pts); i++ {
		l += dist(pts[i-1], pts[i])
		if l >= s0 && l <= s1 && !pts[i].Junction {
			rs = append(rs, pts[i].R)
		}
	}
	if len(rs) == 0 {
		return r
	}
	slices.Sort(rs)
	return rs[len(rs)/2]
}

func TestEdgeEndsAreMeasuredAsOnTheirReversedCopies(t *testing.T) {
	tests := []struct {
		name   string
		points int
		step   float64 // the points' spacing
		r      float64 // the nodes' largest radius
		grid   bool    // unit steps along the axes and whole radii, so that sums hit the limits exactly
	}{
		{"short edges", 4, 1, 3, false},
		{"long edges", 200, 1.2, 4, false},
		{"edges about as long as the stretch looked at", 12, 0.9, 5, false},
		{"repeated points", 30, 0, 2, false},
		{"two points", 2, 3, 1, false},
		{"unit steps on the grid", 20, 1, 6, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tt.points), 29))
			for range 200 {
				pts := make([]Point, tt.points)
				x, y, a := rng.Float64()*50, rng.Float64()*50, rng.Float64()*6.3
				for i := range pts {
					pts[i] = Point{X: x, Y: y, R: rng.Float64() * 4, Junction: rng.IntN(5) == 0}
					a += rng.NormFloat64() * 0.3
					step := tt.step * rng.Float64() * 2
					if rng.IntN(6) == 0 {
						step = 0
					}
					if tt.grid {
						x++
						continue
					}
					x, y = x+step*math.Cos(a), y+step*math.Sin(a)
				}
				g := &work{
					nodes: []node{{r: rng.Float64() * tt.r}, {r: rng.Float64() * tt.r}},
					edges: []edge{{a: 0, b: 1, points: pts}},
				}
				if tt.grid {
					g.nodes[0].r, g.nodes[1].r = float64(rng.IntN(int(tt.r))), float64(rng.IntN(int(tt.r)))
				}
				for ee := range 2 {
					gx, gy := g.direction(ee)
					wx, wy := directionPlain(g, ee)
					if math.Float64bits(gx) != math.Float64bits(wx) || math.Float64bits(gy) != math.Float64bits(wy) {
						t.Fatalf("end %d of %v: direction (%v, %v), want (%v, %v)", ee, pts, gx, gy, wx, wy)
					}
					if got, want := g.radius(ee), radiusPlain(g, ee); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("end %d of %v: radius %v, want %v", ee, pts, got, want)
					}
				}
			}
		})
	}
}

// polyLength, pointAt and reversed are the plain forms of view's lengthUpTo and
// pointAt and of reading it backwards, which the tests measure it against.
func polyLength(pts []Point) float64 {
	var l float64
	for i := 1; i < len(pts); i++ {
		l += dist(pts[i-1], pts[i])
	}
	return l
}

func pointAt(pts []Point, s float64) Point {
	for i := 1; i < len(pts); i++ {
		l := dist(pts[i-1], pts[i])
		if s <= l && l > 0 {
			t := s / l
			return Point{X: pts[i-1].X + t*(pts[i].X-pts[i-1].X), Y: pts[i-1].Y + t*(pts[i].Y-pts[i-1].Y)}
		}
		s -= l
	}
	return pts[len(pts)-1]
}

func reversed(pts []Point) []Point {
	r := slices.Clone(pts)
	slices.Reverse(r)
	return r
}
