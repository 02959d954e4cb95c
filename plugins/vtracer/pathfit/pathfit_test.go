package pathfit

import (
	"math"
	"slices"
	"testing"
)

func poly(xy ...float64) []Point {
	var p []Point
	for i := 0; i < len(xy); i += 2 {
		p = append(p, Point{xy[i], xy[i+1]})
	}
	return p
}

// square is the clockwise (on screen) outline of an n x n square at the origin.
func square(n float64) []Point { return poly(0, 0, n, 0, n, n, 0, n) }

func near(a, b Point) bool { return math.Abs(a.X-b.X) < 1e-9 && math.Abs(a.Y-b.Y) < 1e-9 }

func TestRemoveStaircase(t *testing.T) {
	tests := []struct {
		name string
		in   []Point
		want []Point
	}{
		{
			// A right triangle whose hypotenuse is a staircase of unit steps: the
			// concave step corners go, the outer ones stay.
			name: "staircase becomes its outer line",
			in:   poly(0, 0, 1, 0, 1, 1, 2, 1, 2, 2, 3, 2, 3, 3, 0, 3),
			want: poly(0, 0, 1, 0, 2, 1, 3, 2, 3, 3, 0, 3),
		},
		{
			name: "a square has no staircase",
			in:   square(5),
			want: square(5),
		},
		{
			// Every vertex of a one-pixel square is on a unit edge, but none is
			// concave, so nothing goes.
			name: "single pixel stays",
			in:   square(1),
			want: square(1),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RemoveStaircase(nil, tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("RemoveStaircase = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLimitPenalties(t *testing.T) {
	tests := []struct {
		name      string
		in        []Point
		tolerance float64
		want      []Point
	}{
		{
			name:      "collinear vertices go",
			in:        poly(0, 0, 2, 0, 4, 0, 6, 0, 6, 6, 3, 6, 0, 6),
			tolerance: Penalty,
			want:      poly(0, 0, 6, 0, 6, 6, 0, 6),
		},
		{
			// (5, 0.5) is 0.5 off the chord (0,0)-(10,0): penalty 0.25*100/40 =
			// 0.625, within 1, but beyond 0.5.
			name:      "a small bump is flattened within tolerance",
			in:        poly(0, 0, 5, 0.5, 10, 0, 10, 10, 0, 10),
			tolerance: 1,
			want:      poly(0, 0, 10, 0, 10, 10, 0, 10),
		},
		{
			name:      "the same bump stays under a tighter tolerance",
			in:        poly(0, 0, 5, 0.5, 10, 0, 10, 10, 0, 10),
			tolerance: 0.5,
			want:      poly(0, 0, 5, 0.5, 10, 0, 10, 10, 0, 10),
		},
		{
			name:      "a triangle is left alone",
			in:        poly(0, 0, 4, 0, 0, 4),
			tolerance: Penalty,
			want:      poly(0, 0, 4, 0, 0, 4),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LimitPenalties(nil, tt.in, tt.tolerance); !slices.Equal(got, tt.want) {
				t.Errorf("LimitPenalties = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCorners(t *testing.T) {
	// A regular octagon turns 45 degrees at every vertex.
	var octagon []Point
	for i := 0; i < 8; i++ {
		a := float64(i) * math.Pi / 4
		octagon = append(octagon, Point{10 * math.Cos(a), 10 * math.Sin(a)})
	}
	tests := []struct {
		name      string
		in        []Point
		threshold float64
		want      int // corners found
	}{
		{"square at 60 degrees", square(4), 60, 4},
		{"square at 90 degrees", square(4), 90, 4},
		{"square at 91 degrees", square(4), 91, 0},
		{"octagon at 60 degrees", octagon, 60, 0},
		{"octagon at 44 degrees", octagon, 44, 8},
		{"octagon at 0 degrees", octagon, 0, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := 0
			for _, c := range Corners(nil, tt.in, tt.threshold) {
				if c {
					got++
				}
			}
			if got != tt.want {
				t.Errorf("%d corners, want %d", got, tt.want)
			}
		})
	}
}

func TestSmooth(t *testing.T) {
	t.Run("corners keep straight edges, cut in halves", func(t *testing.T) {
		pts, corner := Smooth(square(16), []bool{true, true, true, true}, 4, 10)
		if len(pts) != 16 {
			t.Fatalf("%d points, want 16 (each side in 4 pieces of 4)", len(pts))
		}
		for i, p := range pts {
			onEdge := p.X == 0 || p.X == 16 || p.Y == 0 || p.Y == 16
			isGrid := math.Mod(p.X, 4) == 0 && math.Mod(p.Y, 4) == 0
			if !onEdge || !isGrid {
				t.Errorf("point %d = %v, want a multiple of 4 on the square's edge", i, p)
			}
			if corner[i] != (i%4 == 0) {
				t.Errorf("corner[%d] = %v", i, corner[i])
			}
		}
	})
	t.Run("without corners the four-point rule bulges out", func(t *testing.T) {
		pts, _ := Smooth(square(8), make([]bool, 4), 7, 1)
		// Edge (0,0)-(8,0), neighbours (0,8) and (8,8): (9*(0,0)+9*(8,0)-(0,8)-(8,8))/16.
		want := poly(0, 0, 4, -1, 8, 0, 9, 4, 8, 8, 4, 9, 0, 8, -1, 4)
		if !slices.EqualFunc(pts, want, near) {
			t.Errorf("Smooth = %v, want %v", pts, want)
		}
	})
	t.Run("short edges are left alone", func(t *testing.T) {
		pts, _ := Smooth(square(4), make([]bool, 4), 4, 10)
		if !slices.Equal(pts, square(4)) {
			t.Errorf("Smooth = %v", pts)
		}
	})
}

func TestSplice(t *testing.T) {
	// A circle of 32 points turns 11.25 degrees at each: a cut every 4 points at 44
	// degrees (45 reached), every 8 at 89.
	var circle []Point
	for i := 0; i < 32; i++ {
		a := float64(i) * math.Pi / 16
		circle = append(circle, Point{10 * math.Cos(a), 10 * math.Sin(a)})
	}
	noCorners := make([]bool, 32)
	tests := []struct {
		name      string
		pts       []Point
		corner    []bool
		threshold float64
		want      []int
	}{
		{"square: at the corners", square(4), []bool{true, true, true, true}, 45, []int{0, 1, 2, 3}},
		{"circle at 44 degrees", circle, noCorners, 44, []int{0, 4, 8, 12, 16, 20, 24, 28}},
		{"circle at 89 degrees", circle, noCorners, 89, []int{0, 8, 16, 24}},
		// An S: turning right, then left; the inflection is a cut.
		{"inflection", poly(0, 0, 4, 1, 8, 0, 12, 1, 16, 0, 16, 8, 0, 8), []bool{true, false, false, false, true, true, true}, 180, []int{0, 2, 4, 5, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Splice(nil, tt.pts, tt.corner, tt.threshold); !slices.Equal(got, tt.want) {
				t.Errorf("Splice = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFit(t *testing.T) {
	t.Run("a square is four straight cubics", func(t *testing.T) {
		sq := square(4)
		cubics := Fit(nil, sq, []int{0, 1, 2, 3})
		if len(cubics) != 4 {
			t.Fatalf("%d cubics", len(cubics))
		}
		from := sq[0]
		for i, c := range cubics {
			if !c.IsLine(from) || c.P != sq[(i+1)%4] {
				t.Errorf("cubic %d = %+v from %v, want the line to %v", i, c, from, sq[(i+1)%4])
			}
			from = c.P
		}
	})
	t.Run("a quarter circle is one cubic close to it", func(t *testing.T) {
		var arc []Point
		for i := 0; i <= 16; i++ {
			a := float64(i) * math.Pi / 32
			arc = append(arc, Point{10 * math.Cos(a), 10 * math.Sin(a)})
		}
		// Close the piece through the centre so Fit sees a closed polygon.
		pts := append(slices.Clone(arc), Point{0, 0})
		cubics := Fit(nil, pts, []int{0, 16, 17})
		if len(cubics) != 3 {
			t.Fatalf("%d cubics, want 3", len(cubics))
		}
		c := cubics[0]
		for i := 0; i <= 20; i++ {
			p := c.point(arc[0], float64(i)/20)
			// The end tangents are the end chords, 2.8 degrees off the circle's.
			if r := math.Hypot(p.X, p.Y); math.Abs(r-10) > 0.1 {
				t.Errorf("t=%v: radius %v, want 10 within 0.1", float64(i)/20, r)
			}
		}
	})
	t.Run("a long straight run ending in a bend is split", func(t *testing.T) {
		// An L with no cut at its bend: one cubic cannot follow it within MaxError.
		pts := poly(0, 0, 10, 0, 20, 0, 30, 0, 30, 10, 30, 20)
		cubics := new(Fitter).fitSplit(nil, pts, 0)
		if len(cubics) < 2 {
			t.Errorf("%d cubics, want the piece split", len(cubics))
		}
		if last := cubics[len(cubics)-1].P; last != pts[len(pts)-1] {
			t.Errorf("ends at %v, want %v", last, pts[len(pts)-1])
		}
	})
}

// TestReuse runs one Smoother and one Fitter over outlines of different sizes, in turn,
// and expects the results of fresh calls each time.
func TestReuse(t *testing.T) {
	outline := func(n int, r float64) []Point {
		var p []Point
		for i := 0; i < n; i++ {
			a := 2 * math.Pi * float64(i) / float64(n)
			p = append(p, Point{math.Round(r*math.Cos(a)) + 0.5*float64(i%3), math.Round(r * math.Sin(a))})
		}
		return p
	}
	var sm Smoother
	var f Fitter
	var cubics []Cubic
	for round := 0; round < 3; round++ {
		for _, n := range []int{4, 40, 7, 120, 12} {
			pts := outline(n, float64(n))
			corner := Corners(nil, pts, 60)
			wantPts, wantCorner := Smooth(slices.Clone(pts), slices.Clone(corner), 4, 10)
			gotPts, gotCorner := sm.Smooth(slices.Clone(pts), slices.Clone(corner), 4, 10)
			if !slices.Equal(gotPts, wantPts) || !slices.Equal(gotCorner, wantCorner) {
				t.Fatalf("round %d, %d points: reused Smoother differs", round, n)
			}
			cuts := Splice(nil, wantPts, wantCorner, 45)
			want := Fit(nil, wantPts, cuts)
			cubics = f.Fit(cubics[:0], gotPts, cuts)
			if !slices.Equal(cubics, want) {
				t.Fatalf("round %d, %d points: reused Fitter differs", round, n)
			}
		}
	}
}
