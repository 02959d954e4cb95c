package fill

import (
	"math"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/distance"
	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
)

// shape returns a 60 x 40 mask: a 2 px line along y = 5 and a 20 x 20 block.
func shape() ([]bool, int, int) {
	w, h := 60, 40
	in := make([]bool, w*h)
	for x := 5; x < 55; x++ {
		in[5*w+x], in[6*w+x] = true, true
	}
	for y := 15; y < 35; y++ {
		for x := 20; x < 40; x++ {
			in[y*w+x] = true
		}
	}
	return in, w, h
}

func TestBlobsKeepTheBlockAndNotTheLine(t *testing.T) {
	in, w, h := shape()
	b := Blobs(in, distance.Transform(in, w, h), w, h, 6)
	if b == nil {
		t.Fatal("no blobs")
	}
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	// The opening rounds the block's corners off: up to (4 - pi) 36 pixels go.
	if b[5*w+30] || !b[25*w+30] || !b[15*w+30] || b[15*w+20] || n < 360 || n > 395 {
		t.Errorf("line %v, block centre %v, top edge %v, corner %v, %d blob pixels; want false, true, true, false and 360 to 395", b[5*w+30], b[25*w+30], b[15*w+30], b[15*w+20], n)
	}
	if Blobs(in, distance.Transform(in, w, h), w, h, 12) != nil {
		t.Error("a disc of radius 12 fits nowhere, yet there are blobs")
	}
}

func TestOutlinesAndHatchOfABlock(t *testing.T) {
	w, h := 10, 8
	b := make([]bool, w*h)
	for y := 2; y < 6; y++ {
		for x := 3; x < 8; x++ {
			b[y*w+x] = true
		}
	}
	polys := Outlines(b, w, h)
	if len(polys) != 1 || len(polys[0]) != 18 {
		t.Fatalf("%d outlines (%v), want one of 18 crack midpoints", len(polys), polys)
	}
	lines := Hatch(b, w, h, 2)
	// Rows 1, 3, 5, 7 at spacing 2: rows 3 and 5 cross the block.
	// The run spans x 3 to 8: a 2 px pen from 4 to 7 covers it.
	if len(lines) != 2 || lines[0][0].Y != 3.5 || lines[1][0].Y != 5.5 || lines[0][0].X != 4 || lines[0][1].X != 7 {
		t.Errorf("hatch %v, want two lines at y 3.5 and 5.5 from x 4 to 7", lines)
	}
}

// TestBlobsLeaveALineJustWiderThanTheLimit: a long band 12 px wide fits a disc of
// radius 6 only along its middle two rows: it is a wide line, not a filled area,
// while a 24 px band is all core and rim, and is one.
func TestBlobsLeaveALineJustWiderThanTheLimit(t *testing.T) {
	tests := []struct {
		name  string
		width int
		blob  bool
	}{
		{"a band 12 px wide is a line", 12, false},
		{"a band 24 px wide is a filled area", 24, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h := 120, tt.width+10
			in := make([]bool, w*h)
			for y := 5; y < 5+tt.width; y++ {
				for x := 5; x < 115; x++ {
					in[y*w+x] = true
				}
			}
			b := Blobs(in, distance.Transform(in, w, h), w, h, 6)
			if got := b != nil; got != tt.blob {
				t.Errorf("blobs found: %v, want %v", got, tt.blob)
			}
		})
	}
}

func TestCoverMarksTheInkInsideTheDiscs(t *testing.T) {
	const w, h = 20, 10
	in := make([]bool, w*h)
	for y := 2; y < 8; y++ {
		for x := 0; x < w; x++ {
			in[y*w+x] = x != 10 // ink rows 2..7, but column 10
		}
	}
	b := Cover(nil, in, w, h, []Disc{{X: 5.5, Y: 5.5, R: 2}, {X: 10.5, Y: 5.5, R: 1}})
	tests := []struct {
		x, y int
		want bool
	}{
		{5, 5, true}, {7, 5, true}, {8, 5, false}, {5, 3, true}, {5, 2, false},
		{10, 5, false}, // not ink
		{11, 5, true}, {12, 5, false}, {5, 8, false}, {0, 0, false},
	}
	for _, tt := range tests {
		if got := b[tt.y*w+tt.x]; got != tt.want {
			t.Errorf("(%d, %d): %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}

func TestGrowSpreadsOverTheInkOnly(t *testing.T) {
	const w, h = 9, 3
	in := make([]bool, w*h)
	for x := 0; x < w; x++ {
		in[w+x] = x != 6 // the middle row is ink but for a gap at column 6
	}
	b := make([]bool, w*h)
	b[w+2] = true
	NewParts(in, w, h).Grow(b, in, 3)
	for x := 0; x < w; x++ {
		if want := x <= 5; b[w+x] != want {
			t.Errorf("middle row x=%d: %v, want %v", x, b[w+x], want)
		}
		if b[x] || b[2*w+x] {
			t.Errorf("x=%d: paper above or below was grown into", x)
		}
	}
}

func TestSubpixelPlacesTheEdgeWhereTheGreyCrossesHalf(t *testing.T) {
	// A row: paper, a pixel of 1/4 ink, ink; and a column the same way down.
	g := &ink.Image{W: 3, H: 3, Pix: []uint8{
		0, 64, 255,
		0, 64, 255,
		255, 255, 255,
	}}
	polys := [][]Pt{{{X: 2, Y: 0.5}, {X: 1, Y: 0.5}, {X: 0.5, Y: 2}, {X: 2.5, Y: 3}}}
	Subpixel(polys, g, 0.5)
	want := []Pt{
		{X: 2 - 0.5 + (0.5-64.0/255)/(1-64.0/255), Y: 0.5}, // between 1/4 and full ink
		{X: 1, Y: 0.5}, // paper to 1/4 ink: no crossing, stays
		{X: 0.5, Y: 2}, // paper to full ink down: crosses midway, stays
		{X: 2.5, Y: 3}, // the image's edge: ink to paper outside, midway
	}
	for k, p := range polys[0] {
		if math.Abs(p.X-want[k].X) > 1e-9 || math.Abs(p.Y-want[k].Y) > 1e-9 {
			t.Errorf("point %d: %v, want %v", k, p, want[k])
		}
	}
}

func TestAreaOfOutlinesIsTheirPixelsArea(t *testing.T) {
	// A 4 x 3 block with a 1-pixel hole: the outer boundary's crack midpoints enclose
	// 4 x 3 less the half-pixel corners, the hole's half a pixel, turning the other way.
	const w, h = 6, 5
	b := make([]bool, w*h)
	for y := 1; y < 4; y++ {
		for x := 1; x < 5; x++ {
			b[y*w+x] = !(x == 2 && y == 2)
		}
	}
	var pos, neg float64
	for _, p := range Outlines(b, w, h) {
		if a := Area(p); a > 0 {
			pos += a
		} else {
			neg += a
		}
	}
	if math.Abs(pos-(12-4*0.125)) > 1e-9 || math.Abs(neg+0.5) > 1e-9 {
		t.Errorf("areas %v and %v, want %v and -0.5", pos, neg, 12-4*0.125)
	}
}

func TestOutlinesOfShapesOnTheImageEdges(t *testing.T) {
	for _, tc := range []struct {
		name       string
		w, h       int
		rows       []string
		points     int
		area, hole float64
	}{
		{"the whole image", 5, 4, []string{"#####", "#####", "#####", "#####"}, 18, 20 - 0.5, 0},
		{"a frame", 4, 4, []string{"####", "#..#", "#..#", "####"}, 16 + 8, 16 - 0.5, -(4 - 0.5)},
		{"one column", 1, 3, []string{"#", "#", "#"}, 8, 3 - 0.5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := make([]bool, tc.w*tc.h)
			for y, r := range tc.rows {
				for x, c := range r {
					b[y*tc.w+x] = c == '#'
				}
			}
			var pos, neg float64
			n := 0
			for _, p := range Outlines(b, tc.w, tc.h) {
				n += len(p)
				if a := Area(p); a > 0 {
					pos += a
				} else {
					neg += a
				}
			}
			if n != tc.points || math.Abs(pos-tc.area) > 1e-9 || math.Abs(neg-tc.hole) > 1e-9 {
				t.Errorf("%d points, areas %v and %v; want %d, %v and %v", n, pos, neg, tc.points, tc.area, tc.hole)
			}
		})
	}
}

func TestAbsorbOutlinesAPartWholeWhenEnoughOfItIsFilled(t *testing.T) {

	// line from the block's right edge, 100 px in all, that touches the block.
	joinedShape := func() ([]bool, int, int) {
		in, w, h := shape()
		for x := 40; x < 90 && x < w; x++ {
			in[25*w+x], in[26*w+x] = true, true
		}
		return in, w, h
	}
	tests := []struct {
		name       string
		in         func() ([]bool, int, int)
		share      float64
		line, limb bool // whether the line at y = 5 and the limb at y = 25 join b
		pixels     int  // b's pixels after
	}{
		{"the block is outlined whole, a part apart from it is left", shape, 0.3, false, false, 400},
		{"a limb of the block joins it", joinedShape, 0.3, false, true, 440},
		{"nothing joins when the blob is too small a share of its part", joinedShape, 0.95, false, false, 399},
	}
	for _, tt := range tests {
		in, w, h := tt.in()
		// b: the block as Blobs would find it, less a corner the opening rounds off.
		b := make([]bool, w*h)
		for y := 15; y < 35; y++ {
			for x := 20; x < 40; x++ {
				b[y*w+x] = true
			}
		}
		b[15*w+20] = false
		got := NewParts(in, w, h).Absorb(b, tt.share)
		n := 0
		for _, v := range got {
			if v {
				n++
			}
		}
		if got[5*w+30] != tt.line || got[25*w+50] != tt.limb || n != tt.pixels {
			t.Errorf("%s: line %v, limb %v, %d pixels; want %v, %v, %d", tt.name, got[5*w+30], got[25*w+50], n, tt.line, tt.limb, tt.pixels)
		}
	}
	if NewParts(make([]bool, 4), 2, 2).Absorb(nil, 0.3) != nil {
		t.Error("Absorb of no blobs is not nil")
	}
}

func TestPartsNumberTheShapesPartsInRasterOrder(t *testing.T) {
	in, w, h := shape() // the line (part 0) above the block (part 1)
	p := NewParts(in, w, h)
	tests := []struct {
		name string
		x, y int
		want int
	}{
		{"the line", 30, 6, 0},
		{"the block", 25, 30, 1},
		{"paper", 10, 30, -1},
		{"left of the image", -1, 6, -1},
		{"below the image", 30, h, -1},
	}
	for _, tt := range tests {
		if got := p.At(tt.x, tt.y); got != tt.want {
			t.Errorf("%s: At(%d, %d) = %d, want %d", tt.name, tt.x, tt.y, got, tt.want)
		}
	}
	if p.Len() != 2 {
		t.Errorf("%d parts, want 2", p.Len())
	}
	// Each outline's first crack lies beside its own part.
	for _, poly := range Outlines(in, w, h) {
		want := 1
		if poly[0].Y < 10 {
			want = 0
		}
		if got := p.Beside(poly[0]); got != want {
			t.Errorf("outline starting at %v: beside part %d, want %d", poly[0], got, want)
		}
	}
	for _, tt := range []struct {
		name string
		q    Pt
		want int
	}{
		{"the block's left edge", Pt{X: 20, Y: 25.5}, 1},
		{"the block's right edge", Pt{X: 40, Y: 25.5}, 1},
		{"the line's underside", Pt{X: 30.5, Y: 7}, 0},
		{"a crack between paper pixels", Pt{X: 10, Y: 25.5}, -1},
	} {
		if got := p.Beside(tt.q); got != tt.want {
			t.Errorf("%s: Beside(%v) = %d, want %d", tt.name, tt.q, got, tt.want)
		}
	}
	sel := p.Select([]bool{false, true})
	for i := range in {
		if sel[i] != (in[i] && i/w >= 15) {
			t.Fatalf("Select of the block: pixel (%d, %d) %v", i%w, i/w, sel[i])
		}
	}
	if p.Select([]bool{false, false}) != nil {
		t.Error("Select of no part is not nil")
	}
}

func TestSetBoolsSetsItsSliceAndNothingAround(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lo, n   int
		outside bool // the bools around, before
	}{
		{"none", 3, 0, false},
		{"fewer than a word", 1, 5, false},
		{"a word", 0, 8, false},
		{"a word and a bit, off a word's start", 5, 9, false},
		{"many words and a bit", 7, 43, false},
		{"a word and seven", 4, 15, false},
		{"many words among set bools", 2, 40, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := make([]bool, tc.lo+tc.n+11)
			for i := range s {
				s[i] = tc.outside
			}
			setBools(s[tc.lo : tc.lo+tc.n])
			for i, v := range s {
				if want := tc.outside || i >= tc.lo && i < tc.lo+tc.n; v != want {
					t.Fatalf("bool %d is %v, want %v", i, v, want)
				}
			}
		})
	}
}
