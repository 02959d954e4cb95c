package width

import (
	"math"
	"slices"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/graph"
	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
)

// band returns a 40 x 20 darkness image of a horizontal band of ink between y0 and
// y1 (real numbers; edge pixels partly covered).
func band(y0, y1 float64) *ink.Image {
	g := &ink.Image{W: 40, H: 20, Pix: make([]uint8, 800)}
	for y := 0; y < 20; y++ {
		c := math.Max(0, math.Min(float64(y+1), y1)-math.Max(float64(y), y0))
		for x := 0; x < 40; x++ {
			g.Pix[y*40+x] = uint8(math.Round(255 * c))
		}
	}
	return g
}

func TestMeasureCentresAndMeasuresABand(t *testing.T) {
	tests := []struct{ y0, y1 float64 }{{8, 11}, {7.3, 12.1}, {9.5, 10.5}, {5, 15}}
	for _, tt := range tests {
		g := band(tt.y0, tt.y1)
		var s graph.Stroke
		for x := 5; x < 35; x++ {
			s.Points = append(s.Points, graph.Point{X: float64(x) + 0.5, Y: 10.5, R: (tt.y1 - tt.y0) / 2})
		}
		m := Measure(s, g, 1)
		wantY, wantW := (tt.y0+tt.y1)/2, tt.y1-tt.y0
		if got := m.Points[15].Y; math.Abs(got-wantY) > 0.05 {
			t.Errorf("band %v-%v: centre %.3f, want %.3f", tt.y0, tt.y1, got, wantY)
		}
		if got := m.Median(0); math.Abs(got-wantW) > 0.1 {
			t.Errorf("band %v-%v: width %.3f, want %.3f", tt.y0, tt.y1, got, wantW)
		}
	}
}

func TestSplitCutsWhereTheWidthChanges(t *testing.T) {
	m := Measured{}
	for i := 0; i < 60; i++ {
		m.Points = append(m.Points, graph.Point{X: float64(i)})
		w := 2.0
		if i >= 30 {
			w = 6
		}
		m.Widths = append(m.Widths, w)
	}
	parts := Split(m, 1.5, 8)
	if len(parts) != 2 || parts[0].Median(0) != 2 || parts[1].Median(0) != 6 {
		t.Errorf("%d parts, want 2 of widths 2 and 6", len(parts))
	}
	m.Widths[30] = 6
	for i := range m.Widths {
		m.Widths[i] = 3 + float64(i%2)*0.5
	}
	if parts := Split(m, 1.5, 8); len(parts) != 1 {
		t.Errorf("a steady width was split into %d parts", len(parts))
	}
}

// TestEndsMovesAnEndToTheCentreOfItsCap gives Ends a horizontal band 8 px wide whose
// round right end is centred at x 30, with the stroke's last point short of it by
// various amounts (a thinned end stops short where its fork was pruned): the end must
// land on the cap's centre.
func TestEndsMovesAnEndToTheCentreOfItsCap(t *testing.T) {
	const r, cx, cy = 4.0, 30.0, 10.0
	g := &ink.Image{W: 40, H: 20, Pix: make([]uint8, 800)}
	for y := 0; y < 20; y++ {
		for x := 0; x < 40; x++ {
			// coverage by 4 x 4 samples of the capsule from x 5 to 30
			var c float64
			for sy := 0; sy < 4; sy++ {
				for sx := 0; sx < 4; sx++ {
					px, py := float64(x)+(float64(sx)+0.5)/4, float64(y)+(float64(sy)+0.5)/4
					if math.Hypot(math.Max(0, px-cx), py-cy) <= r && px >= 5 {
						c++
					}
				}
			}
			g.Pix[y*40+x] = uint8(math.Round(255 * c / 16))
		}
	}
	tests := []struct {
		name  string
		short float64
	}{
		{"at the centre", 0},
		{"two pixels short", 2},
		{"a radius and a half short", 6},
		{"a pixel past", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Measured
			for x := 8.0; x <= cx-tt.short; x++ {
				m.Points = append(m.Points, graph.Point{X: x, Y: cy, R: r})
				m.Widths = append(m.Widths, 2*r)
			}
			Ends(&m, g, 1, 2*r)
			if got := m.Points[len(m.Points)-1].X; math.Abs(got-cx) > 0.5 {
				t.Errorf("the end is at x %.2f, want %.1f", got, cx)
			}
		})
	}
}

// TestSnapExtendsAStemToItsBar gives Snap a T: a horizontal bar along y 20 and a stem
// coming up x 20 whose skeleton bends aside as it enters the bar's junction (no width
// measured there): the stem must end where its own line meets the bar, (20, 20), and
// run straight to it, whatever the bend.
func TestSnapExtendsAStemToItsBar(t *testing.T) {
	tests := []struct {
		name string
		bend float64 // the skeleton's sideways drift per pixel inside the junction
	}{
		{"a straight stem", 0},
		{"a stem bent right", 1},
		{"a stem bent left", -0.6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var bar, stem Measured
			for x := 0.0; x <= 40; x++ {
				bar.Points = append(bar.Points, graph.Point{X: x, Y: 20, R: 4})
				bar.Widths = append(bar.Widths, 8)
			}
			for y := 40.0; y >= 22; y-- {
				x, wd := 20.0, 2.0
				if y < 27 {
					x += (27 - y) * tt.bend
				}
				if y < 28 {
					wd = math.NaN()
				}
				stem.Points = append(stem.Points, graph.Point{X: x, Y: y, R: 1})
				stem.Widths = append(stem.Widths, wd)
			}
			last := len(stem.Points) - 1
			stem.Points[last].Junction, stem.Points[last].R = true, 4
			ms := []Measured{bar, stem}
			Snap(ms, solid(80, 80), 1)
			if p := ms[1].Points[last]; math.Hypot(p.X-20, p.Y-20) > 1e-6 {
				t.Errorf("the stem ends at (%.2f, %.2f), want (20, 20)", p.X, p.Y)
			}
			for _, p := range ms[1].Points {
				if math.Abs(p.X-20) > 1e-6 {
					t.Errorf("the stem passes (%.2f, %.2f), off its line x = 20", p.X, p.Y)
					break
				}
			}
		})
	}
}

// TestSplitKeepsOneWidthAcrossAnOutlier: a stroke of one width whose widths near a
// junction are disturbed (a few too wide, then none measured) stays one part.
func TestSplitKeepsOneWidthAcrossAnOutlier(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		widths func(i int) float64
		parts  int
	}{
		{"wide ink beside the last measured points", func(i int) float64 {
			switch {
			case i >= 33:
				return nan
			case i >= 30:
				return 5
			}
			return 2
		}, 1},
		{"a real change of width still splits", func(i int) float64 {
			if i >= 20 {
				return 5
			}
			return 2
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Measured
			for i := 0; i < 40; i++ {
				m.Points = append(m.Points, graph.Point{X: float64(i)})
				m.Widths = append(m.Widths, tt.widths(i))
			}
			if parts := Split(m, 1.5, 8); len(parts) != tt.parts {
				t.Errorf("%d parts, want %d", len(parts), tt.parts)
			}
		})
	}
}

// TestSnapLeavesAnUnmeasuredStrokeItsShape: a stroke whose widths are unknown far
// beyond its junction (a curve whose ink was not measured) keeps its points: only
// the part inside the junction may be straightened.
func TestSnapLeavesAnUnmeasuredStrokeItsShape(t *testing.T) {
	var bar, arc Measured
	for x := 0.0; x <= 60; x++ {
		bar.Points = append(bar.Points, graph.Point{X: x, Y: 20, R: 4})
		bar.Widths = append(bar.Widths, 8)
	}
	// A quarter circle of radius 30 from (30, 22) curving away, unmeasured but for its
	// far end.
	for i := 0; i <= 47; i++ {
		a := float64(i) / 47 * math.Pi / 2
		arc.Points = append(arc.Points, graph.Point{X: 60 - 30*math.Cos(a), Y: 52 - 30*math.Sin(a), R: 1})
		w := math.NaN()
		if i < 8 {
			w = 2
		}
		arc.Widths = append(arc.Widths, w)
	}
	last := len(arc.Points) - 1
	arc.Points[last].Junction, arc.Points[last].R = true, 4
	want := slices.Clone(arc.Points[:last])
	ms := []Measured{bar, arc}
	Snap(ms, solid(80, 80), 1)
	for i, p := range want {
		if q := ms[1].Points[i]; q != p {
			t.Fatalf("point %d moved from (%.2f, %.2f) to (%.2f, %.2f)", i, p.X, p.Y, q.X, q.Y)
		}
	}
}

// solid returns a w x h darkness image that is ink everywhere.
func solid(w, h int) *ink.Image {
	g := &ink.Image{W: w, H: h, Pix: make([]uint8, w*h)}
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	return g
}

// TestSnapKeepsTheExtensionOnInk: where the stem's extended line would cross paper
// (the junction seen through a gap), the stem keeps its points and only its end moves.
func TestSnapKeepsTheExtensionOnInk(t *testing.T) {
	var bar, stem Measured
	for x := 0.0; x <= 40; x++ {
		bar.Points = append(bar.Points, graph.Point{X: x, Y: 20, R: 4})
		bar.Widths = append(bar.Widths, 8)
	}
	for y := 40.0; y >= 22; y-- {
		wd := 2.0
		if y < 28 {
			wd = math.NaN()
		}
		stem.Points = append(stem.Points, graph.Point{X: 20, Y: y, R: 1})
		stem.Widths = append(stem.Widths, wd)
	}
	last := len(stem.Points) - 1
	stem.Points[last].Junction, stem.Points[last].R = true, 4
	g := solid(80, 80)
	for x := 0; x < 80; x++ {
		g.Pix[25*80+x] = 0 // a row of paper across the stem
	}
	ms := []Measured{bar, stem}
	Snap(ms, g, 1)
	for i := 0; i < last; i++ {
		if ms[1].Points[i] != stem.Points[i] {
			t.Fatalf("point %d moved to (%.2f, %.2f)", i, ms[1].Points[i].X, ms[1].Points[i].Y)
		}
	}
}

func TestSpreadIsTheMeanDistanceFromTheWidth(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name      string
		widths    []float64
		wd        float64
		px, share float64
	}{
		{"even", []float64{4, 4, 4}, 4, 0, 0},
		{"a taper", []float64{2, 4, 6}, 4, 4.0 / 3, 4.0 / 12},
		{"unknown widths are left out", []float64{nan, 2, 6, nan}, 4, 2, 0.5},
		{"none known", []float64{nan}, 4, 0, 0},
	}
	for _, tt := range tests {
		m := Measured{Widths: tt.widths}
		px, share := m.Spread(tt.wd)
		if math.Abs(px-tt.px) > 1e-12 || math.Abs(share-tt.share) > 1e-12 {
			t.Errorf("%s: Spread = %v, %v, want %v, %v", tt.name, px, share, tt.px, tt.share)
		}
	}
}

// inkLevelOf is InkLevel's definition: the darkness at which the mask pixels at least
// two pixels deep (or all mask pixels, when none is so deep), in increasing order,
// reach n - n/10 of their number n, over 255 and at least 0.25; 1 when there are none.
func inkLevelOf(g *ink.Image, mask []bool, d []int32) float64 {
	var vs []int
	for i, on := range mask {
		if on && d[i] >= 4 {
			vs = append(vs, int(g.Pix[i]))
		}
	}
	if len(vs) == 0 {
		for i, on := range mask {
			if on {
				vs = append(vs, int(g.Pix[i]))
			}
		}
	}
	if len(vs) == 0 {
		return 1
	}
	slices.Sort(vs)
	return max(float64(vs[len(vs)-len(vs)/10-1])/255, 0.25)
}

func TestInkLevelIsThe90thPercentileOfTheDeepInk(t *testing.T) {
	seed := uint32(5)
	rnd := func(n uint32) uint32 {
		seed = seed*1664525 + 1013904223
		return seed >> 8 % n
	}
	tests := []struct {
		name       string
		w, h       int
		ink, depth uint32 // percent of pixels in the mask, and of those two pixels deep
	}{
		{"no ink", 30, 200, 0, 0},
		{"ink, none deep", 30, 200, 40, 0},
		{"some deep ink", 30, 200, 40, 30},
		{"a tall image, bands of rows", 7, 1000, 50, 50},
		{"an image with no columns", 0, 9, 0, 0},
	}
	for _, tt := range tests {
		n := tt.w * tt.h
		g := &ink.Image{W: tt.w, H: tt.h, Pix: make([]uint8, n)}
		mask, d := make([]bool, n), make([]int32, n)
		for i := range n {
			g.Pix[i] = uint8(rnd(256))
			if rnd(100) < tt.ink {
				mask[i], d[i] = true, 1+int32(rnd(3))
				if rnd(100) < tt.depth {
					d[i] = 4 + int32(rnd(9))
				}
			}
		}
		if got, want := InkLevel(g, mask, d), inkLevelOf(g, mask, d); got != want {
			t.Errorf("%s: %v, want %v", tt.name, got, want)
		}
	}
}

func TestBoxGridFindsEveryBoxNearInOrder(t *testing.T) {
	seed := uint32(21)
	rnd := func() float64 {
		seed = seed*1664525 + 1013904223
		return float64(seed>>8)/(1<<24)*260 - 30 // some off the 200 x 150 image
	}
	const w, h, n = 200, 150, 300
	boxes := make([]box, n)
	c := newBoxGrid(w, h, n)
	for j := range boxes {
		x, y := rnd(), rnd()
		boxes[j] = box{x, y, x + math.Abs(rnd())/8, y + math.Abs(rnd())/20}
		if j%50 == 0 {
			boxes[j] = box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)} // no points
		}
		c.add(j, boxes[j])
	}
	// Boxes that change after they were listed (Snap moves a stroke's end).
	for j := 0; j < n; j += 7 {
		boxes[j] = boxes[j].add(rnd(), rnd())
		c.add(j, boxes[j])
	}
	for q := range 500 {
		x, y := rnd(), rnd()
		b, d := box{x, y, x + float64(q%3)*math.Abs(rnd())/10, y}, float64(q%5)
		got := c.near(b, d)
		if !slices.IsSorted(got) {
			t.Fatalf("query %d: %v not in increasing order", q, got)
		}
		for j, bj := range boxes {
			if bj.near(b, d) && !slices.Contains(got, j) {
				t.Fatalf("query %d (%v grown by %v): box %d %v is near but not found", q, b, d, j, bj)
			}
		}
	}
}
