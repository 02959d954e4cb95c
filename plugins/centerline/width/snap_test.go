package width

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/graph"
)

// rayHit returns the distance t >= 0 along the ray from (ox, oy) in unit direction
// (ux, uy) at which it crosses segment ab, if it does: firstHit's definition, a
// segment at a time.
func rayHit(ox, oy, ux, uy float64, a, b graph.Point) (float64, bool) {
	dx, dy := b.X-a.X, b.Y-a.Y
	den := ux*dy - uy*dx
	if math.Abs(den) < 1e-9 {
		return 0, false
	}
	ax, ay := a.X-ox, a.Y-oy
	t := (ax*dy - ay*dx) / den
	s := (ax*uy - ay*ux) / den
	if t < 0 || s < 0 || s > 1 {
		return 0, false
	}
	return t, true
}

// randomPolyline returns n points wandering from a random point of a 20 x 20 square,
// some of them repeated (segments of no length) or in line.
func randomPolyline(rng *rand.Rand, n int) []graph.Point {
	q := make([]graph.Point, n)
	x, y := rng.Float64()*20, rng.Float64()*20
	for i := range q {
		q[i] = graph.Point{X: x, Y: y}
		switch rng.IntN(5) {
		case 0: // stay
		case 1: // axis-parallel
			x += float64(rng.IntN(3) - 1)
		default:
			x, y = x+rng.NormFloat64(), y+rng.NormFloat64()
		}
	}
	return q
}

func TestFirstHitIsTheNearestCrossingOfAnySegment(t *testing.T) {
	tests := []struct {
		name  string
		limit float64
		bestT float64
	}{
		{"no limit to speak of", 100, math.Inf(1)},
		{"a short ray", 3, math.Inf(1)},
		{"a crossing known already", 100, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tt.limit), 17))
			for range 2000 {
				q := randomPolyline(rng, 1+rng.IntN(60))
				ox, oy := rng.Float64()*20, rng.Float64()*20
				a := rng.Float64() * 2 * math.Pi
				ux, uy := math.Cos(a), math.Sin(a)
				if rng.IntN(4) == 0 { // along an axis, as many strokes run
					ux, uy = 1, 0
				}
				want := tt.bestT
				for k := 1; k < len(q); k++ {
					if hit, ok := rayHit(ox, oy, ux, uy, q[k-1], q[k]); ok && hit < want && hit <= tt.limit {
						want = hit
					}
				}
				_, cs := chunkBoxes(q, nil)
				ray := box{ox, oy, ox, oy}.add(ox+tt.limit*ux, oy+tt.limit*uy)
				if got := firstHit(ox, oy, ux, uy, q, cs, ray, tt.limit, tt.bestT); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("ray from (%v, %v) along (%v, %v) over %v: %v, want %v", ox, oy, ux, uy, q, got, want)
				}
			}
		})
	}
}

func TestChunkBoxesHoldTheirPointsAndSegments(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for range 500 {
		q := randomPolyline(rng, rng.IntN(70))
		b, cs := chunkBoxes(q, nil)
		if want := (len(q) + chunk - 1) / chunk; len(cs) != want {
			t.Fatalf("%d points in %d chunks, want %d", len(q), len(cs), want)
		}
		for k, p := range q {
			in := func(c box) bool { return c.x0 <= p.X && p.X <= c.x1 && c.y0 <= p.Y && p.Y <= c.y1 }
			if !in(b) || !in(cs[k/chunk]) || k > 0 && !in(cs[(k-1)/chunk]) {
				t.Fatalf("point %d of %v is outside its boxes %v, %v", k, q, b, cs)
			}
		}
	}
}

func TestChunkBoxesAreTheBoxesOfTheirPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	for range 500 {
		q := randomPolyline(rng, rng.IntN(70))
		for k := range q { // some points exactly on each other's coordinates, or at zero
			if rng.IntN(8) == 0 {
				q[k].X = q[rng.IntN(len(q))].Y
			}
			if rng.IntN(16) == 0 {
				q[k].Y = 0
			}
		}
		gotB, cs := chunkBoxes(q, nil)
		// The definition: each chunk's box grown point by point with min and max, the
		// whole box grown by the chunks'.
		empty := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		wantB := empty
		for c := 0; c*chunk < len(q); c++ {
			want := empty
			for _, p := range q[c*chunk : min(len(q), c*chunk+chunk+1)] {
				want = want.add(p.X, p.Y)
			}
			if cs[c] != want {
				t.Fatalf("chunk %d of %v: box %v, want %v", c, q, cs[c], want)
			}
			wantB = box{min(wantB.x0, want.x0), min(wantB.y0, want.y0), max(wantB.x1, want.x1), max(wantB.y1, want.y1)}
		}
		if gotB != wantB {
			t.Fatalf("%v: box %v, want %v", q, gotB, wantB)
		}
	}
}

func TestNearestInsideIsTheFirstNearestInnerPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		o := randomPolyline(rng, rng.IntN(60))
		x, y := rng.Float64()*20, rng.Float64()*20
		if len(o) > 0 && rng.IntN(3) == 0 { // on a point, or as far from two
			x, y = o[rng.IntN(len(o))].X, o[rng.IntN(len(o))].Y
		}
		best := rng.Float64() * 6
		wantK, wantD := -1, best
		for k := 1; k+1 < len(o); k++ {
			if d := math.Hypot(o[k].X-x, o[k].Y-y); d < wantD {
				wantK, wantD = k, d
			}
		}
		_, cs := chunkBoxes(o, nil)
		if k, d := nearestInside(o, cs, x, y, best); k != wantK || d != wantD {
			t.Fatalf("nearest to (%v, %v) below %v of %v: %d at %v, want %d at %v", x, y, best, o, k, d, wantK, wantD)
		}
	}
}
