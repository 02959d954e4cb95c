package trace

import (
	"context"
	"image"
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/centerline/fill"
	"github.com/tracecraft/tracecraft/plugins/centerline/fit"
	"github.com/tracecraft/tracecraft/plugins/centerline/graph"
	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
	"github.com/tracecraft/tracecraft/plugins/centerline/svgout"
)

// disc paints an anti-aliased round-capped line from (x0, y0) to (x1, y1) of width wd
// in black on img, by supersampling each pixel 4 x 4.
func line(img *image.NRGBA, x0, y0, x1, y1, wd float64) {
	b := img.Rect
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			cov := 0
			for sy := 0; sy < 4; sy++ {
				for sx := 0; sx < 4; sx++ {
					px, py := float64(x)+(float64(sx)+0.5)/4, float64(y)+(float64(sy)+0.5)/4
					dx, dy := x1-x0, y1-y0
					t := math.Max(0, math.Min(1, ((px-x0)*dx+(py-y0)*dy)/(dx*dx+dy*dy)))
					if math.Hypot(px-x0-t*dx, py-y0-t*dy) <= wd/2 {
						cov++
					}
				}
			}
			if cov > 0 {
				c := img.NRGBAAt(x, y)
				v := uint8(int(c.R) * (16 - cov) / 16)
				img.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
			}
		}
	}
}

func white(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	return img
}

func TestALineGivesOneStrokeOfItsWidth(t *testing.T) {
	for _, wd := range []float64{1.5, 3, 6, 11} {
		img := white(80, 60)
		line(img, 10, 15, 70, 45, wd)
		res, err := Trace(context.Background(), img, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if res.Strokes != 1 {
			t.Errorf("width %v: %d strokes, want 1:\n%s", wd, res.Strokes, res.SVG)
			continue
		}
		got := res.Groups[0].Strokes[0].Width
		if math.Abs(got-wd) > 0.5 {
			t.Errorf("width %v: measured %v", wd, got)
		}
		if !strings.Contains(string(res.SVG), `fill="none"`) {
			t.Errorf("no fill=none:\n%s", res.SVG)
		}
	}
}

func TestACrossGivesTwoStrokes(t *testing.T) {
	img := white(80, 80)
	line(img, 10, 40, 70, 40, 4)
	line(img, 40, 10, 40, 70, 4)
	res, err := Trace(context.Background(), img, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Strokes != 2 {
		t.Errorf("%d strokes, want 2:\n%s", res.Strokes, res.SVG)
	}
}

// wedge paints, anti-aliased, a horizontal stroke along y = 30 from x = 10 to 110 whose
// width grows from w0 to w1.
func wedge(img *image.NRGBA, w0, w1 float64) {
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			cov := 0
			for sy := 0; sy < 4; sy++ {
				for sx := 0; sx < 4; sx++ {
					px, py := float64(x)+(float64(sx)+0.5)/4, float64(y)+(float64(sy)+0.5)/4
					t := (px - 10) / 100
					if t >= 0 && t <= 1 && math.Abs(py-30) <= (w0+t*(w1-w0))/2 {
						cov++
					}
				}
			}
			v := uint8(255 * (16 - cov) / 16)
			img.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
}

func TestAStrokeTooUnevenForOneWidthIsFilled(t *testing.T) {
	hatch := DefaultOptions()
	hatch.Fill = FillHatch
	fixed := DefaultOptions()
	fixed.Width, fixed.FixedWidth = WidthFixed, 4
	tests := []struct {
		name          string
		w0, w1        float64
		o             Options
		strokes, fill int
	}{
		{"an even line is a stroke", 8, 8, DefaultOptions(), 1, 0},
		{"a line a little wider at one end is a stroke", 6, 8, DefaultOptions(), 1, 0},
		{"a wedge is a filled outline", 2, 18, DefaultOptions(), 0, 1},
		{"a wedge stays a stroke when hatching", 2, 18, hatch, 1, 0},
		{"a wedge stays a stroke at a fixed width", 2, 18, fixed, 1, 0},
	}
	for _, tt := range tests {
		img := white(120, 60)
		wedge(img, tt.w0, tt.w1)
		res, err := Trace(context.Background(), img, tt.o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Strokes != tt.strokes || len(res.Groups[0].Fills) != tt.fill {
			t.Errorf("%s: %d strokes and %d filled outlines, want %d and %d:\n%s", tt.name, res.Strokes, len(res.Groups[0].Fills), tt.strokes, tt.fill, res.SVG)
		}
	}
}

func TestAFilledShapeIsOutlinedWithItsLimbs(t *testing.T) {
	hatch := DefaultOptions()
	hatch.Fill = FillHatch
	fixed := DefaultOptions()
	fixed.Width, fixed.FixedWidth = WidthFixed, 3
	tests := []struct {
		name    string
		o       Options
		strokes bool // whether the limb is a stroke
	}{
		{"outlined with the body", DefaultOptions(), false},
		{"a stroke when hatching", hatch, true},
		{"a stroke at a fixed width", fixed, true},
	}
	for _, tt := range tests {
		// A body, a disc 40 px across, and a 3 px limb 50 px long leaving it.
		img := white(140, 80)
		line(img, 40, 40, 40.01, 40, 40)
		line(img, 55, 40, 120, 40, 3)
		res, err := Trace(context.Background(), img, tt.o)
		if err != nil {
			t.Fatal(err)
		}
		if (res.Strokes > 0) != tt.strokes {
			t.Errorf("%s: %d strokes, want strokes %v:\n%s", tt.name, res.Strokes, tt.strokes, res.SVG)
		}
	}
}

// crosses draws a black cross on a w x h white image for each centre column cx: two
// bars 20 x 6, the upright one over columns cx-3..cx+2 and rows 10..29, the level one
// over columns cx-10..cx+9 and rows 17..22. It returns the ink's mask and darkness.
func crosses(w, h int, cxs ...int) ([]bool, *ink.Image) {
	m := make([]bool, w*h)
	img := white(w, h)
	for _, cx := range cxs {
		for y := 10; y < 30; y++ {
			for x := cx - 10; x < cx+10; x++ {
				if (x >= cx-3 && x < cx+3) || (y >= 17 && y < 23) {
					m[y*w+x] = true
					img.SetNRGBA(x, y, color.NRGBA{A: 255})
				}
			}
		}
	}
	g, _ := ink.Binarise(ink.Darkness(img), ink.Fixed, 128)
	return m, g
}

func TestAPartlyFilledPartIsOutlinedWholeWhereThatIsCheaper(t *testing.T) {
	// Two crosses of ink, A and B, of 20 x 6 bars centred on (20, 20) and (50, 20)
	// (outlines of a dozen corners); a and b are points in them, and edgeA and edgeB
	// the midpoints of their outlines' first cracks, atop the upright bars.
	const w, h = 70, 40
	m, g := crosses(w, h, 20, 50)
	a, b := graph.Point{X: 20.5, Y: 20.5}, graph.Point{X: 50.5, Y: 20.5}
	edgeA, edgeB := fill.Pt{X: 17.5, Y: 10}, fill.Pt{X: 47.5, Y: 10}
	// stroke returns a graph stroke through pts and its drawing in n segments.
	stroke := func(n int, pts ...graph.Point) (graph.Stroke, []svgout.Stroke) {
		segs := make([]fit.Segment, n)
		for i := range segs {
			segs[i] = fit.Segment{Line: true, P0: fit.Vec{X: pts[0].X, Y: pts[0].Y}, P3: fit.Vec{X: pts[0].X + 1, Y: pts[0].Y}}
		}
		return graph.Stroke{Points: pts}, []svgout.Stroke{{Segments: segs, Width: 3}}
	}
	fillAt := func(first fill.Pt, n int) loop {
		return loop{segs: make([]fit.Segment, n), first: first}
	}
	tests := []struct {
		name      string
		strokes   [][]graph.Point
		segs      int // each stroke's segments
		fills     []loop
		outlinedA bool
		outlinedB bool
	}{
		{"a part with costly strokes and a fill is outlined", [][]graph.Point{{a}}, 40, []loop{fillAt(edgeA, 4)}, true, false},
		{"a part with strokes and no fill is not", [][]graph.Point{{a}}, 40, nil, false, false},
		{"a part drawn in fewer segments than its outline is not", [][]graph.Point{{a}}, 1, []loop{fillAt(edgeA, 1)}, false, false},
		{"only the part with the fill is outlined", [][]graph.Point{{a}, {b}}, 40, []loop{fillAt(edgeB, 4)}, false, true},
		{"a stroke bridging two parts keeps both", [][]graph.Point{{a, b}}, 40, []loop{fillAt(edgeA, 4), fillAt(edgeB, 4)}, false, false},
	}
	for _, tt := range tests {
		var ss []graph.Stroke
		var fitted [][]svgout.Stroke
		for _, pts := range tt.strokes {
			s, f := stroke(tt.segs, pts...)
			ss, fitted = append(ss, s), append(fitted, f)
		}
		var firsts []fill.Pt
		for _, f := range tt.fills {
			firsts = append(firsts, f.first)
		}
		fitFills := func(_ func(int) int, done func(int, []fit.Segment)) ([]loop, error) {
			for i, f := range tt.fills {
				done(i, f.segs)
			}
			return slices.Clone(tt.fills), nil
		}
		gotStrokes, gotFills, err := outlineWhereCheaper(context.Background(), fill.NewParts(m, w, h), g, 1, ss, fitted, firsts, fitFills)
		if err != nil {
			t.Fatal(err)
		}
		// A part is outlined when its strokes are gone and an outline starts on its
		// edge that is not one of the fills given.
		outlined := func(pt graph.Point, edge fill.Pt) bool {
			for i, s := range ss {
				if s.Points[0] == pt && len(gotStrokes[i]) > 0 {
					return false
				}
			}
			for _, f := range gotFills {
				if f.first == edge && len(f.segs) > 0 && f.segs[0] != (fit.Segment{}) {
					return true
				}
			}
			return false
		}
		if gotA, gotB := outlined(a, edgeA), outlined(b, edgeB); gotA != tt.outlinedA || gotB != tt.outlinedB {
			t.Errorf("%s: A outlined %v, B %v; want %v, %v", tt.name, gotA, gotB, tt.outlinedA, tt.outlinedB)
		}
	}
}

// TestTheFillsOfAPartRedrawnAreFittedOnlyAsFarAsItTakesToTell checks that the fills
// of a part that may be redrawn are given limits: the first fit stops short of its
// 40 segments (the cross's outline costs about 14), and once it has spent what the
// outline leaves to its strokes, the other fills are left out; the part is still
// outlined.
func TestTheFillsOfAPartRedrawnAreFittedOnlyAsFarAsItTakesToTell(t *testing.T) {
	const w, h = 70, 40
	m, g := crosses(w, h, 20)
	a := graph.Point{X: 20.5, Y: 20.5}
	edgeA := fill.Pt{X: 17.5, Y: 10}
	ss := []graph.Stroke{{Points: []graph.Point{a}}}
	fitted := [][]svgout.Stroke{{{Segments: []fit.Segment{{Line: true, P0: fit.Vec{X: 20, Y: 20}, P3: fit.Vec{X: 21, Y: 20}}}, Width: 3}}}
	firsts := []fill.Pt{edgeA, edgeA, edgeA}
	var limits []int
	fitFills := func(limit func(int) int, done func(int, []fit.Segment)) ([]loop, error) {
		var out []loop
		for i := range firsts {
			l := limit(i)
			limits = append(limits, l)
			if l < 0 {
				continue
			}
			segs := make([]fit.Segment, 40)
			if l > 0 {
				segs = segs[:min(40, l+1)]
			}
			done(i, segs)
			out = append(out, loop{segs: segs, first: firsts[i]})
		}
		return out, nil
	}
	gotStrokes, _, err := outlineWhereCheaper(context.Background(), fill.NewParts(m, w, h), g, 1, ss, fitted, firsts, fitFills)
	if err != nil {
		t.Fatal(err)
	}
	if len(limits) != 3 || limits[0] <= 0 || limits[0] >= 39 || limits[1] != -1 || limits[2] != -1 {
		t.Errorf("limits %v, want the first in 1..38 and the others -1", limits)
	}
	if len(gotStrokes[0]) != 0 {
		t.Errorf("the part kept its strokes; want it outlined")
	}
}

// outlineWhereCheaper is planRedraw, redrawPlan.selectWhole and redrawPlan.finish in
// turn, as traceMask calls them apart, for fitted strokes (firsts: the fills' loops'
// firsts).
func outlineWhereCheaper(ctx context.Context, parts *fill.Parts, g *ink.Image, level float64, ss []graph.Stroke, fitted [][]svgout.Stroke, firsts []fill.Pt, fitFills func(limit func(int) int, done func(int, []fit.Segment)) ([]loop, error)) ([][]svgout.Stroke, []loop, error) {
	drawn := make([]bool, len(fitted))
	for i, f := range fitted {
		drawn[i] = len(f) > 0
	}
	pl := planRedraw(parts, partsOfStrokes(parts, ss, drawn), firsts, nil)
	pl.selectWhole(g, level)
	return pl.finish(ctx, fitted, fitFills)
}

// TestOutlinesFoundInSetsAreThoseFoundAtOnce: the outlines of parts found and fitted
// in several sets (ahead of the plan, and the rest after it), merged, are the loops
// that one set of all those parts gives, for the parts asked for alone: as
// redrawPlan.finish had them before any were found ahead.
func TestOutlinesFoundInSetsAreThoseFoundAtOnce(t *testing.T) {
	const w, h = 160, 120
	// Rings and discs of several sizes: parts with holes, some large.
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.NRGBA{255, 255, 255, 255}
			for i, cx := range []float64{20, 60, 110, 140} {
				cy := 30 + float64(i%2)*55
				r := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
				if r < 6+3*float64(i) && (i%2 == 0 || r > 3+float64(i)) {
					c = color.NRGBA{0, 0, 0, 255}
				}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	o := DefaultOptions()
	g, m := ink.Binarise(ink.Darkness(img), o.Threshold, o.Level)
	parts := fill.NewParts(m.Pix, w, h)
	n := parts.Len()
	if n != 4 {
		t.Fatalf("%d parts, want 4", n)
	}
	sel := func(ks ...int) []bool {
		s := make([]bool, n)
		for _, k := range ks {
			s[k] = true
		}
		return s
	}
	all := sel(0, 1, 2, 3)
	for _, tc := range []struct {
		name string
		sets [][]bool
		of   []bool
	}{
		{"two sets, all asked for", [][]bool{sel(0, 2), sel(1, 3)}, all},
		{"three sets, some asked for", [][]bool{sel(3), sel(0), sel(1, 2)}, sel(0, 1, 3)},
		{"a set of parts not asked for", [][]bool{sel(0, 1), sel(2, 3)}, sel(2, 3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			one := &wholeOutlines{sel: all}
			one.find(parts, g, 200)
			if err := one.fit(context.Background(), tc.of); err != nil {
				t.Fatal(err)
			}
			want := mergeLoops(tc.of, []*wholeOutlines{one})
			var sets []*wholeOutlines
			for i, s := range tc.sets {
				wo := &wholeOutlines{sel: s, ready: make(chan struct{})}
				wo.find(parts, g, 200)
				<-wo.ready
				// The first set fitted for every part it holds, as ahead of the plan;
				// the others for those asked for alone.
				of := tc.of
				if i == 0 {
					of = all
				}
				if err := wo.fit(context.Background(), of); err != nil {
					t.Fatal(err)
				}
				if err := wo.fit(context.Background(), tc.of); err != nil {
					t.Fatal(err)
				}
				sets = append(sets, wo)
			}
			got := mergeLoops(tc.of, sets)
			if len(want) == 0 || len(got) != len(want) {
				t.Fatalf("%d loops, want %d (and some)", len(got), len(want))
			}
			for i := range got {
				if got[i].first != want[i].first || !slices.Equal(got[i].segs, want[i].segs) {
					t.Fatalf("loop %d: %v from %v, want %v from %v", i, got[i].segs, got[i].first, want[i].segs, want[i].first)
				}
			}
		})
	}
}
