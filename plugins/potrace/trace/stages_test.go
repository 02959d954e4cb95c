package trace

import (
	"math"
	"slices"
	"testing"
)

// disc returns a bitmap holding a black disc of radius r, with a margin of 2 pixels.
func disc(r int) *Bitmap {
	n := 2*r + 4
	bm := NewBitmap(n, n)
	c := float64(r + 2)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			dx, dy := float64(x)+0.5-c, float64(y)+0.5-c
			bm.Set(x, y, dx*dx+dy*dy < float64(r*r))
		}
	}
	return bm
}

// staircase returns a right triangle of pixels: row y (2..9) is black from x=2 to x=y,
// so the hypotenuse is an 8-step diagonal staircase.
func staircase() *Bitmap {
	bm := NewBitmap(12, 12)
	for y := 2; y < 10; y++ {
		for x := 2; x <= y; x++ {
			bm.Set(x, y, true)
		}
	}
	return bm
}

// polygonOf runs stages 1 and 2 on the first path of bm and returns that path and its
// optimal polygon's vertices.
func polygonOf(t *testing.T, bm *Bitmap, s *scratch) (rawPath, []point) {
	t.Helper()
	paths := mustDecompose(t, bm, TurnMinority, 0)
	if len(paths) == 0 {
		t.Fatal("no paths")
	}
	p := paths[0]
	s.prefixSums(p.pts)
	s.straightRuns(p.pts)
	s.bestPolygon(p.pts)
	var vs []point
	for _, i := range s.poly {
		vs = append(vs, p.pts[i])
	}
	return p, vs
}

func TestStraightRunsReachOneVertexRoundACorner(t *testing.T) {
	// On a 20x20 square (corners (2,22), (2,2), (22,2), (22,22) in y-up coordinates)
	// the straight path from any vertex of the left side reaches (3,2), one step round
	// the bottom left corner, which is index 21: the line from (2,22) to (2.5,2) passes
	// within 1/2 of every vertex up to there.
	var s scratch
	p, _ := polygonOf(t, square(24, 24, 2, 2, 20), &s)
	if p.pts[21] != (point{3, 2}) {
		t.Fatalf("vertex 21 is %v, want (3,2)", p.pts[21])
	}
	for i := 0; i <= 17; i++ {
		if s.lon[i] != 21 {
			t.Errorf("lon[%d] = %d, want 21", i, s.lon[i])
		}
	}
}

func TestPenaltyIsZeroForStraightSidesAndGrowsWithDeviation(t *testing.T) {
	var s scratch
	p, _ := polygonOf(t, square(24, 24, 2, 2, 20), &s)
	if got := s.penalty(p.pts, 0, 20); got != 0 {
		t.Errorf("penalty of the left side = %v, want 0", got)
	}
	if got := s.penalty(p.pts, 60, 80); got != 0 {
		t.Errorf("penalty of the top side, wrapping to v_0, = %v, want 0", got)
	}
	// v_0 to v_21 = (3,2): the vertices sit up to 1 away from that line.
	if got := s.penalty(p.pts, 0, 21); !(got > 0) {
		t.Errorf("penalty round the corner = %v, want > 0", got)
	}
	// Hand-computed: the side (0,0)->(2,0) through (0,0),(1,0),(2,0) lies on its line;
	// through (0,0),(1,1),(2,0) the middle vertex is 1 away, so the mean squared
	// distance is 1/3 and the penalty 2*sqrt(1/3).
	tri := []point{{0, 0}, {1, 1}, {2, 0}, {1, -1}}
	s.prefixSums(tri)
	if got, want := s.penalty(tri, 0, 2), 2*math.Sqrt(1.0/3); math.Abs(got-want) > 1e-12 {
		t.Errorf("penalty = %v, want %v", got, want)
	}
}

func TestOptimalPolygons(t *testing.T) {
	tests := []struct {
		name string
		bm   *Bitmap
		want []point
	}{
		{"a 4x4 square is its four corners", square(8, 8, 2, 2, 4), []point{{2, 6}, {2, 2}, {6, 2}, {6, 6}}},
		{"a 20x20 square is its four corners", square(24, 24, 2, 2, 20), []point{{2, 22}, {2, 2}, {22, 2}, {22, 22}}},
		// The triangle's 8-step staircase becomes a single side from (10,2) to (3,10);
		// the one-pixel step at the top, (3,10) to (2,10), stays a side of its own.
		{"a staircase's diagonal is one side", staircase(), []point{{2, 10}, {2, 2}, {10, 2}, {3, 10}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s scratch
			_, got := polygonOf(t, tt.bm, &s)
			if !slices.Equal(got, tt.want) {
				t.Errorf("polygon %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPolygonOfADiscIsFewSidedAndStartsAtTheFirstVertex(t *testing.T) {
	var s scratch
	p, vs := polygonOf(t, disc(40), &s)
	if vs[0] != p.pts[0] {
		t.Errorf("polygon starts at %v, want the path's first vertex %v", vs[0], p.pts[0])
	}
	// A disc of radius 40 has a boundary of ~320 unit moves; its polygon needs only a
	// few dozen sides.
	if n := len(vs); n < 8 || n > 40 {
		t.Errorf("%d sides for a disc of radius 40, want between 8 and 40", n)
	}
}

func TestAdjustedVerticesStayInTheirUnitSquares(t *testing.T) {
	tests := []struct {
		name string
		bm   *Bitmap
		want []vec // nil: only check the unit squares
	}{
		// The sides' best-fit lines are the square's own sides: the corners stay put.
		{"square", square(24, 24, 2, 2, 20), []vec{{2, 22}, {2, 2}, {22, 2}, {22, 22}}},
		{"staircase", staircase(), nil},
		{"disc", disc(30), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s scratch
			p, vs := polygonOf(t, tt.bm, &s)
			s.adjustVertices(p.pts)
			if tt.want != nil && !slices.Equal(s.vertex, tt.want) {
				t.Errorf("vertices %v, want %v", s.vertex, tt.want)
			}
			moved := false
			for i, v := range s.vertex {
				dx, dy := v.x-float64(vs[i].x), v.y-float64(vs[i].y)
				if math.Abs(dx) > 0.5 || math.Abs(dy) > 0.5 {
					t.Errorf("vertex %d moved from %v to %v, more than 1/2", i, vs[i], v)
				}
				moved = moved || dx != 0 || dy != 0
			}
			if tt.want == nil && !moved {
				t.Errorf("no vertex moved, want the staircase's to move onto the fitted lines")
			}
		})
	}
}

// smoothed runs stages 1 to 4 on the first path of bm.
func smoothed(t *testing.T, bm *Bitmap, alphaMax float64) *curve {
	t.Helper()
	var s scratch
	p, _ := polygonOf(t, bm, &s)
	s.adjustVertices(p.pts)
	s.smooth(alphaMax)
	return &s.smoothed
}

func countCorners(c *curve) int {
	n := 0
	for _, k := range c.corner {
		if k {
			n++
		}
	}
	return n
}

func TestSmoothingTurnsVerticesIntoCornersOrCurvesByAlphaMax(t *testing.T) {
	tests := []struct {
		name        string
		bm          *Bitmap
		alphaMax    float64
		wantCorners int // -1: all
	}{
		// A 20x20 square's vertices stick out 10 (dd = 400/40) from the line through
		// their neighbours: alpha = (1 - 1/10)/0.75 = 1.2.
		{"20x20 square, alphaMax 1: corners", square(24, 24, 2, 2, 20), 1, 4},
		{"20x20 square, alphaMax 1.2: corners", square(24, 24, 2, 2, 20), 1.2, 4},
		{"20x20 square, alphaMax 1.21: curves", square(24, 24, 2, 2, 20), 1.21, 0},
		// A 4x4 square: dd = 16/8 = 2, alpha = 2/3, rounded even by default.
		{"4x4 square, alphaMax 1: curves", square(8, 8, 2, 2, 4), 1, 0},
		{"4x4 square, alphaMax 0.6: corners", square(8, 8, 2, 2, 4), 0.6, 4},
		{"disc, alphaMax 0: all corners (a polygon)", disc(30), 0, -1},
		{"disc, alphaMax 1: no corners", disc(30), 1, 0},
		{"disc, alphaMax 4/3: no corners", disc(30), 4.0 / 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := smoothed(t, tt.bm, tt.alphaMax)
			want := tt.wantCorners
			if want < 0 {
				want = len(c.corner)
			}
			if got := countCorners(c); got != want {
				t.Errorf("%d corners of %d segments, want %d (alphas %v)", got, len(c.corner), want, c.alpha)
			}
		})
	}
}

func TestSmoothCurvesRunBetweenSideMidpoints(t *testing.T) {
	// The 4x4 square's vertices (2,6) (2,2) (6,2) (6,6) with alpha 2/3: the segment
	// round (2,2) runs from (2,4) to (4,2), its control points on the sides, (1+alpha)/2
	// = 5/6 of the way from the neighbouring vertices towards (2,2).
	c := smoothed(t, square(8, 8, 2, 2, 4), 1)
	want := [3]vec{{2, 6 - 4*(0.5+0.5*0.6666666666666666)}, {6 - 4*(0.5+0.5*0.6666666666666666), 2}, {4, 2}}
	got := c.c[1]
	for k := range got {
		if math.Abs(got[k].x-want[k].x) > 1e-12 || math.Abs(got[k].y-want[k].y) > 1e-12 {
			t.Fatalf("segment 1 = %v, want %v", got, want)
		}
	}
	if start := c.c[0][2]; start != (vec{2, 4}) {
		t.Errorf("segment 1 starts at %v, want (2,4)", start)
	}
}

func TestCurveOptimisationJoinsSegmentsWithinTheTolerance(t *testing.T) {
	tests := []struct {
		r     int
		tol   float64
		wantN int
	}{
		{15, -1, 12}, // not optimised: one segment per polygon vertex
		{15, 0, 12},  // no deviation allowed: nothing joins
		{15, 0.2, 3},
		{15, 1, 3},
		{40, -1, 17},
		{40, 0.2, 12},
		{40, 1, 3},
	}
	for _, tt := range tests {
		var s scratch
		p, _ := polygonOf(t, disc(tt.r), &s)
		s.adjustVertices(p.pts)
		s.smooth(1)
		got := len(s.smoothed.c)
		if tt.tol >= 0 {
			s.optimize(tt.tol)
			got = len(s.optimized.c)
			// The joined curve keeps some of the original segments' end points, and
			// the last one.
			ends := map[vec]bool{}
			for _, c := range s.smoothed.c {
				ends[c[2]] = true
			}
			for i, c := range s.optimized.c {
				if !ends[c[2]] {
					t.Errorf("r=%d tol=%v: segment %d ends at %v, not at an original end", tt.r, tt.tol, i, c[2])
				}
			}
		}
		if got != tt.wantN {
			t.Errorf("disc r=%d, tolerance %v: %d segments, want %d", tt.r, tt.tol, got, tt.wantN)
		}
	}
}
