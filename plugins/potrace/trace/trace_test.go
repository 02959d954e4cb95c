package trace

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/svg"
)

func mustTrace(t *testing.T, bm *Bitmap, opts Options) []*Path {
	t.Helper()
	roots, err := Trace(context.Background(), bm, opts)
	if err != nil {
		t.Fatal(err)
	}
	return roots
}

// signedArea returns the area enclosed by a curve in image coordinates (y down),
// flattening each Bézier into 64 chords: negative for a counterclockwise curve as seen
// on screen.
func signedArea(c []Segment) float64 {
	var pts []Point
	cur := c[len(c)-1].End
	for _, s := range c {
		if s.Corner {
			pts = append(pts, s.Vertex, s.End)
		} else {
			for k := 1; k <= 64; k++ {
				u := float64(k) / 64
				w := 1 - u
				pts = append(pts, Point{
					w*w*w*cur.X + 3*w*w*u*s.Ctrl1.X + 3*w*u*u*s.Ctrl2.X + u*u*u*s.End.X,
					w*w*w*cur.Y + 3*w*w*u*s.Ctrl1.Y + 3*w*u*u*s.Ctrl2.Y + u*u*u*s.End.Y,
				})
			}
		}
		cur = s.End
	}
	a := 0.0
	for i, p := range pts {
		q := pts[(i+1)%len(pts)]
		a += p.X*q.Y - q.X*p.Y
	}
	return a / 2
}

func TestTraceBuildsOuterBoundariesWithTheirHoles(t *testing.T) {
	// A ring whose hole holds an island, and a separate square.
	bm := bitmapOf(
		"###########...",
		"###########...",
		"##.......##...",
		"##.......##.##",
		"##..###..##.##",
		"##..###..##...",
		"##..###..##...",
		"##.......##...",
		"##.......##...",
		"###########...",
		"###########...")
	roots := mustTrace(t, bm, Options{AlphaMax: 1})
	if len(roots) != 2 {
		t.Fatalf("%d roots, want the ring and the square", len(roots))
	}
	ring, sq := roots[0], roots[1]
	if ring.Area != 121 || sq.Area != 4 || ring.Hole || sq.Hole {
		t.Errorf("roots: areas %d, %d, holes %v, %v; want 121 and 4, no holes", ring.Area, sq.Area, ring.Hole, sq.Hole)
	}
	if len(ring.Children) != 1 || !ring.Children[0].Hole || ring.Children[0].Area != 49 {
		t.Fatalf("the ring's children: %+v, want one hole of 49 pixels", ring.Children)
	}
	hole := ring.Children[0]
	if len(hole.Children) != 1 || hole.Children[0].Hole || hole.Children[0].Area != 9 {
		t.Fatalf("the hole's children: %+v, want one island of 9 pixels", hole.Children)
	}
	var shapes []*Path
	EachShape(roots, func(p *Path) { shapes = append(shapes, p) })
	if len(shapes) != 3 || shapes[0] != ring || shapes[1] != hole.Children[0] || shapes[2] != sq {
		t.Errorf("EachShape visited %d shapes, want the ring, the island, then the square", len(shapes))
	}
}

func TestTracedCurvesEncloseThePixelAreaWithOpposedOrientations(t *testing.T) {
	// A ring: a disc of radius 30 with a hole of radius 12.
	bm := disc(30)
	for y := 0; y < bm.Height; y++ {
		for x := 0; x < bm.Width; x++ {
			dx, dy := float64(x)+0.5-32, float64(y)+0.5-32
			if dx*dx+dy*dy < 144 {
				bm.Set(x, y, false)
			}
		}
	}
	for _, opts := range []Options{DefaultOptions(), {AlphaMax: 0}, {AlphaMax: 1.334, OptCurve: true, OptTolerance: 1}} {
		roots := mustTrace(t, bm, opts)
		if len(roots) != 1 || len(roots[0].Children) != 1 {
			t.Fatalf("%+v: want one ring with one hole", opts)
		}
		outer, hole := signedArea(roots[0].Curve), signedArea(roots[0].Children[0].Curve)
		if outer >= 0 || hole <= 0 {
			t.Errorf("%+v: signed areas %.1f and %.1f, want the outer negative (counterclockwise on screen) and the hole positive", opts, outer, hole)
		}
		// The curves run through the middle of the pixel staircase: within a few
		// percent of the pixel areas.
		if a, want := -outer, float64(roots[0].Area); math.Abs(a-want) > 0.02*want {
			t.Errorf("%+v: outer curve encloses %.1f, pixels %v", opts, a, want)
		}
		if a, want := hole, float64(roots[0].Children[0].Area); math.Abs(a-want) > 0.04*want {
			t.Errorf("%+v: hole curve encloses %.1f, pixels %v", opts, a, want)
		}
	}
}

func TestTraceHandlesDegenerateBitmaps(t *testing.T) {
	tests := []struct {
		name  string
		bm    *Bitmap
		roots int
	}{
		{"nil", nil, 0},
		{"0x0", NewBitmap(0, 0), 0},
		{"1x1 white", NewBitmap(1, 1), 0},
		{"1x1 black", square(1, 1, 0, 0, 1), 0}, // area 1 <= turdSize 2
		{"1x1 black, turdSize 0", square(1, 1, 0, 0, 1), 1},
		{"1x200 black", square(1, 200, 0, 0, 1), 0},
		{"65x65 black", square(65, 65, 0, 0, 65), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := DefaultOptions()
			if tt.name == "1x1 black, turdSize 0" {
				opts.TurdSize = 0
			}
			roots := mustTrace(t, tt.bm, opts)
			if len(roots) != tt.roots {
				t.Errorf("%d roots, want %d", len(roots), tt.roots)
			}
			for _, r := range roots {
				if len(r.Curve) == 0 {
					t.Errorf("empty curve")
				}
			}
		})
	}
}

func TestTraceStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Trace(ctx, disc(20), DefaultOptions()); !errors.Is(err, context.Canceled) {
		t.Errorf("Trace with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestAppendShapeWritesCornersAsLinesAndHolesAsSubpaths(t *testing.T) {
	// A 20x20 square at (2,2) with a 6x6 hole at (9,9): every vertex is a sharp corner,
	// so each side is two lines meeting at its midpoint. Without curve optimisation a
	// curve starts at the midpoint of its last side. The outline runs counterclockwise
	// on screen (left along the top first), the hole clockwise (right along its top).
	bm := square(24, 24, 2, 2, 20)
	for y := 9; y < 15; y++ {
		for x := 9; x < 15; x++ {
			bm.Set(x, y, false)
		}
	}
	roots := mustTrace(t, bm, Options{AlphaMax: 0})
	d := svg.NewPath(1)
	AppendShape(d, roots[0])
	want := "M12 2H2V12 22H12 22V12 2H12Zm0 7h3v3 3H12 9V12 9h3Z"
	if got := d.String(); got != want {
		t.Errorf("path data %q, want %q", got, want)
	}
}

func TestTurnPolicyNamesRoundTrip(t *testing.T) {
	for p := TurnMinority; p <= TurnRight; p++ {
		got, err := ParseTurnPolicy(p.String())
		if err != nil || got != p {
			t.Errorf("ParseTurnPolicy(%q) = %v, %v; want %v", p.String(), got, err, p)
		}
	}
	if _, err := ParseTurnPolicy("random"); err == nil {
		t.Errorf("ParseTurnPolicy(\"random\") succeeded, want an error")
	}
}

func TestTraceSurvivesRandomBitmaps(t *testing.T) {
	// Deterministic noise of several densities, every policy and option extreme: no
	// panic, and every curve non-empty and finite.
	seed := uint32(1)
	next := func() uint32 {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return seed
	}
	for _, density := range []uint32{20, 50, 80} {
		bm := NewBitmap(37, 29)
		for y := 0; y < bm.Height; y++ {
			for x := 0; x < bm.Width; x++ {
				bm.Set(x, y, next()%100 < density)
			}
		}
		for p := TurnMinority; p <= TurnRight; p++ {
			for _, opts := range []Options{
				{TurnPolicy: p},
				{TurnPolicy: p, AlphaMax: 1, OptCurve: true, OptTolerance: 0.2},
				{TurnPolicy: p, AlphaMax: 1.334, OptCurve: true, OptTolerance: 1},
			} {
				var check func(ps []*Path)
				check = func(ps []*Path) {
					for _, path := range ps {
						if len(path.Curve) == 0 {
							t.Fatalf("density %d %+v: empty curve", density, opts)
						}
						for _, s := range path.Curve {
							for _, v := range []float64{s.Ctrl1.X, s.Ctrl1.Y, s.Ctrl2.X, s.Ctrl2.Y, s.Vertex.X, s.Vertex.Y, s.End.X, s.End.Y} {
								if math.IsNaN(v) || math.IsInf(v, 0) {
									t.Fatalf("density %d %+v: coordinate %v", density, opts, v)
								}
							}
						}
						check(path.Children)
					}
				}
				check(mustTrace(t, bm, opts))
			}
		}
	}
}
