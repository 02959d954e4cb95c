package svgout_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"math"
	"regexp"
	"testing"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/svgraster"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/internal/testimg"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/paint"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/refine"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/svgout"
)

// trace runs the pipeline on img and writes it with opt.
func trace(t *testing.T, img *image.NRGBA, opt svgout.Options) (*refine.Result, []byte) {
	t.Helper()
	ctx := context.Background()
	seg, err := segment.Segment(ctx, img, segment.Options{MaxColors: 16})
	if err != nil {
		t.Fatal(err)
	}
	if opt.Precision == 0 {
		opt.Precision = 2
	}
	plan := paint.NewPlan(seg, opt.Paint)
	res, err := refine.Run(ctx, img, seg, refine.Options{Tolerance: 0.5, Passes: 1, EdgeShift: plan.EdgeShifts(seg)})
	if err != nil {
		t.Fatal(err)
	}
	return res, svgout.Write(res, plan, opt)
}

// subpaths counts the subpaths (M commands) in all d attributes of doc.
func subpaths(doc []byte) int {
	n := 0
	for _, m := range regexp.MustCompile(` d="([^"]*)"`).FindAllSubmatch(doc, -1) {
		n += bytes.Count(m[1], []byte("M")) + bytes.Count(m[1], []byte("m"))
	}
	return n
}

// TestSharedEdgeFittedOnce traces two rectangles sharing a side: the planar map has one
// edge between them, fitted once, and both shapes draw exactly that curve.
func TestSharedEdgeFittedOnce(t *testing.T) {
	res, _ := trace(t, testimg.TwoRects(40, 30), svgout.Options{})
	pm := res.Seg.Planar
	shared := -1
	for i, e := range pm.Edges {
		if e.Left >= 0 && e.Right >= 0 {
			if shared >= 0 {
				t.Fatalf("edges %d and %d both lie between the rectangles", shared, i)
			}
			shared = i
		}
	}
	if shared < 0 {
		t.Fatal("no shared edge")
	}
	p := res.Edges[shared]
	if len(p.Segs) != 1 || p.Segs[0].Cubic || p.From.X != 20 || p.End().X != 20 {
		t.Errorf("shared edge fitted as %+v, want one line along x = 20", p)
	}
	// Each region's ring holds the shared edge's one fit, forwards for one region
	// and backwards for the other.
	var found [2]bool
	for ri, ring := range pm.Rings {
		for _, h := range ring.Half {
			if h.Edge() != shared {
				continue
			}
			found[b2i(h.Reversed())] = true
			got, want := res.Half(h), res.Edges[shared]
			if h.Reversed() {
				want = want.Reverse()
			}
			if !samePath(got, want) {
				t.Errorf("ring %d draws %+v, want the shared fit %+v", ri, got, want)
			}
		}
	}
	if !found[0] || !found[1] {
		t.Errorf("shared edge used forwards %v, backwards %v; want both", found[0], found[1])
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func samePath(a, b fit.Path) bool {
	if a.From != b.From || len(a.Segs) != len(b.Segs) {
		return false
	}
	for i := range a.Segs {
		if a.Segs[i] != b.Segs[i] {
			return false
		}
	}
	return true
}

// TestRingKeepsHole traces a ring around a transparent hole and around a white one: the
// hole stays a hole in both stackings, and in cut-outs the white hole is cut from the
// ring and drawn as its own shape.
func TestRingKeepsHole(t *testing.T) {
	const size = 32
	tests := []struct {
		name    string
		bg      color.NRGBA
		stacked bool
		// want is the colour at the centre, composited over black.
		want color.NRGBA
		// ringSubpaths is the number of subpaths of the ring's path.
		ringSubpaths int
	}{
		{"transparent hole, cutouts", testimg.Clear, false, color.NRGBA{0, 0, 0, 255}, 2},
		{"transparent hole, stacked", testimg.Clear, true, color.NRGBA{0, 0, 0, 255}, 2},
		{"white hole, cutouts", testimg.White, false, testimg.White, 2},
		{"white hole, stacked", testimg.White, true, testimg.White, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, doc := trace(t, testimg.Ring(size, tt.bg), svgout.Options{Paint: paint.Options{Stacked: tt.stacked}})
			c, err := svgraster.Render(doc, size, size, svgraster.Over)
			if err != nil {
				t.Fatal(err)
			}
			img := svgraster.OverBackground(c, color.NRGBA{0, 0, 0, 255})
			if got := img.NRGBAAt(size/2, size/2); got != tt.want {
				t.Errorf("centre is %v, want %v\n%s", got, tt.want, doc)
			}
			ring := regexp.MustCompile(`<path id="c-c81e28" fill="#c81e28"[^>]* d="([^"]*)"`).FindSubmatch(doc)
			if ring == nil {
				t.Fatalf("no red path in\n%s", doc)
			}
			if n := bytes.Count(ring[1], []byte("M")) + bytes.Count(ring[1], []byte("m")); n != tt.ringSubpaths {
				t.Errorf("ring path has %d subpaths, want %d: %s", n, tt.ringSubpaths, ring[1])
			}
		})
	}
}

// TestStackedEqualsCutouts renders nested shapes traced as cut-outs and stacked: the
// images agree, shapes drawn solid and covered by the ones above look exactly like
// shapes with holes cut out.
func TestStackedEqualsCutouts(t *testing.T) {
	img := testimg.Nested(40, 32)
	w, h := img.Rect.Dx(), img.Rect.Dy()
	for _, gap := range []bool{false, true} {
		render := func(stacked bool) (*image.NRGBA, []byte) {
			_, doc := trace(t, img, svgout.Options{Paint: paint.Options{Stacked: stacked, GapFiller: gap, GapFillerWidth: 1}})
			c, err := svgraster.Render(doc, w, h, svgraster.Over)
			if err != nil {
				t.Fatal(err)
			}
			return svgraster.OverBackground(c, color.NRGBA{255, 255, 255, 255}), doc
		}
		cut, cutDoc := render(false)
		stack, stackDoc := render(true)
		if bytes.Equal(cutDoc, stackDoc) {
			t.Fatalf("gap filler %v: stacked and cut-out SVGs are the same", gap)
		}
		// Without the gap filler the cut-outs show anti-aliasing seams on edges that
		// do not lie on pixel borders; these rectangles' edges all do.
		worst := 0.0
		for i := 0; i < len(cut.Pix); i++ {
			worst = math.Max(worst, math.Abs(float64(cut.Pix[i])-float64(stack.Pix[i])))
		}
		if worst > 2 {
			t.Errorf("gap filler %v: renders differ by up to %v\ncut-outs: %s\nstacked: %s", gap, worst, cutDoc, stackDoc)
		}
	}
}

// TestStrokeEdgesOnce checks that strokeEdges strokes every boundary between painted
// shapes (and between a shape and the image border) exactly once, while strokeShapes
// outlines every shape, so that shared boundaries are stroked twice.
func TestStrokeEdgesOnce(t *testing.T) {
	img := testimg.Nested(40, 32)
	res, edgesDoc := trace(t, img, svgout.Options{Paint: paint.Options{Style: paint.StrokeEdges}, StrokeWidth: 1})
	pm := res.Seg.Planar
	wantEdges, wantRings := len(pm.Edges), len(pm.Rings)
	t.Logf("%d edges, %d rings", wantEdges, wantRings)
	if got := subpaths(edgesDoc); got != wantEdges {
		t.Errorf("strokeEdges drew %d subpaths, want one per edge: %d\n%s", got, wantEdges, edgesDoc)
	}
	_, shapesDoc := trace(t, img, svgout.Options{Paint: paint.Options{Style: paint.StrokeShapes}, StrokeWidth: 1})
	if got := subpaths(shapesDoc); got != wantRings {
		t.Errorf("strokeShapes drew %d subpaths, want one per ring: %d", got, wantRings)
	}
	// Every piece of boundary is drawn: the stroked length of both styles agrees,
	// counting shared boundaries twice for strokeShapes.
	length := func(doc []byte) float64 {
		var l float64
		for _, m := range regexp.MustCompile(` d="([^"]*)"`).FindAllSubmatch(doc, -1) {
			paths, closed, err := svgraster.ParsePath(string(m[1]))
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range paths {
				l += pathLength(p, closed[i])
			}
		}
		return l
	}
	var shared, border float64
	for ei, e := range pm.Edges {
		l := pathLength(res.Edges[ei], e.Closed)
		if e.Left >= 0 && e.Right >= 0 {
			shared += l
		} else {
			border += l
		}
	}
	if got, want := length(edgesDoc), shared+border; math.Abs(got-want) > 0.01*want {
		t.Errorf("strokeEdges length %.2f, want %.2f", got, want)
	}
	if got, want := length(shapesDoc), 2*shared+border; math.Abs(got-want) > 0.01*want {
		t.Errorf("strokeShapes length %.2f, want %.2f", got, want)
	}
	if !bytes.Contains(edgesDoc, []byte(`fill="none"`)) {
		t.Error("strokeEdges output is not unfilled")
	}
}

func pathLength(p fit.Path, closed bool) float64 {
	l := 0.0
	cur := p.From
	for _, s := range p.Segs {
		const n = 16
		for k := 1; k <= n; k++ {
			q := s.Eval(cur, float64(k)/n)
			l += q.Sub(cur).Len()
			cur = q
		}
		cur = s.To
	}
	if closed {
		l += p.From.Sub(cur).Len()
	}
	return l
}
