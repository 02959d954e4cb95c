// Package engine is the experimental tracecraft2 engine: tracecraft's segmentation and
// shared-edge fitting (packages plugins/tracecraft/segment, refine and svgout), drawn
// as stacked shapes, with every shape whose outline is a rectangle, circle or ellipse
// written as a <rect>, <circle> or <ellipse> element (package primitive). It aims at the
// smallest files of all engines.
//
// Where the bytes go:
//   - Shapes are stacked (tracecraft's shapeStacking "stacked"): each shape is drawn
//     solid over the ones it lies in, so a boundary is written once, as the outline of
//     the upper shape, not twice as in cut-outs. Holes that show transparency stay
//     holes.
//   - A shape whose filled outline is a basic shape within primitiveTolerance becomes
//     that element; with holes it stays a path whose outer subpath is written with
//     arcs. Everything else stays tracecraft's fitted paths, all shapes of one paint in
//     one path element.
//   - Path numbers get the fewest decimals that keep each point within a fraction of
//     the fit tolerance (package pathw): a fifth of it for end points, four fifths for
//     control points.
//   - The gap filler is tracecraft's "auto": on at 1 px except for fine-detail images,
//     so that abutting shapes leave no seams. As in tracecraft it is drawn as fill, not
//     as a stroke: a shape reaches 1 px under each opaque shape painted above it (its
//     path's edges there moved by fit.Path.Parallel; a basic shape that borders only
//     shapes above it and the image border grows by 1 px, one that also borders others
//     is written as a path), so one fill colour paints a shape and its gap filler and an
//     editor that recolours the fill leaves no outline of the old colour.
package engine

import (
	"bytes"
	"context"
	"image"
	"slices"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/fit"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/paint"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/planar"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/refine"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/svgout"
	"github.com/tracecraft/tracecraft/plugins/tracecraft2/pathw"
	"github.com/tracecraft/tracecraft/plugins/tracecraft2/primitive"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/parallel"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// Engine is the tracecraft2 tracer.
type Engine struct{}

var (
	_ sdk.Engine[Params] = (*Engine)(nil)
	_ sdk.MemoryBounded  = (*Engine)(nil)
)

// New returns the engine.
func New() *Engine { return &Engine{} }

// Params are the engine's parameters.
type Params struct {
	segment.Options
	Tolerance          float64 `param:"tolerance" min:"0" max:"5" default:"0.5" desc:"curve fit tolerance in pixels: how far the lines and curves of the paths may stray from the boundary; larger gives smaller files (path numbers are also rounded to within a fraction of it)"`
	Primitives         bool    `param:"primitives" default:"true" desc:"write shapes that are rectangles (rotated or not, rounded or not), circles or ellipses as <rect>, <circle> and <ellipse> elements"`
	PrimitiveTolerance float64 `param:"primitiveTolerance" min:"0.05" max:"3" step:"0.05" default:"0.5" desc:"how far in pixels a shape's outline may stray from a rectangle, circle or ellipse to be written as one"`
	FixedSize          bool    `param:"fixedSize" default:"false" desc:"emit width/height attributes (the image's size in pixels); the viewBox is always there"`
}

// JobMemory bounds the memory of a trace of an image of pixels pixels (see
// sdk.MemoryBounded). The pipeline keeps at most about 11 bytes a pixel alive (the decoded
// image 4, region labels 4, palette indices and flat marks 3; on a 16.8 MP photograph the
// live heap peaked at 180 MB); 64 MiB and 14 bytes a pixel leave room for one stage's
// temporaries, and bring the process's peak on that photograph from 438 MB to about 300 MB.
func (*Engine) JobMemory(pixels int) int64 { return 64<<20 + 14*int64(pixels) }

// Describe returns the engine's name and parameters.
func (*Engine) Describe() sdk.Descriptor {
	return sdk.Descriptor{
		Name:        "tracecraft2",
		Version:     "0.1.0",
		Stability:   sdk.Experimental,
		Description: "primitive recognition (rect, circle, ellipse); smallest files: tracecraft's shared-edge tracing drawn as stacked shapes, where shapes that are rectangles, circles or ellipses become those SVG elements.",
		Params:      sdk.Describe[Params](),
	}
}

// settings are the parameters as the pipeline takes them.
type settings struct {
	maxColors, minRegion int
	palette              []string
	tolerance            float64
	primitives           bool
	primTol              float64
	fixedSize            bool
}

func options(p Params) (settings, error) {
	if err := sdk.Check(p); err != nil {
		return settings{}, err
	}
	s := settings{
		maxColors:  p.MaxColors,
		minRegion:  p.MinRegion,
		palette:    p.Palette,
		tolerance:  p.Tolerance,
		primitives: p.Primitives,
		primTol:    p.PrimitiveTolerance,
		fixedSize:  p.FixedSize,
	}
	return s, nil
}

// numberTolerances returns how far path end points and control points may move when
// they are written with fewer decimals (package pathw), at a fit tolerance: a fifth of
// it for end points, four fifths for control points, whose error moves the curve by at
// most three quarters of it. Measured on the bench corpus at the default 0.5 px, this
// costs 0.0005 SSIM on logos and 0.0003 on posters and saves a quarter of the bytes of
// fixed one-decimal numbers; twice as much for control points cost three times more.
func numberTolerances(tol float64) (end, ctrl float64) {
	return tol / 5, tol * 4 / 5
}

// Trace converts img into an SVG document.
func (e *Engine) Trace(ctx context.Context, img *image.NRGBA, p Params) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := options(p)
	if err != nil {
		return nil, err
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w <= 0 || h <= 0 {
		return svg.Empty(max(w, 1), max(h, 1), s.fixedSize), nil
	}
	res, plan, out, err := s.trace(ctx, img)
	if err != nil {
		return nil, err
	}
	wr := writer{res: res, plan: plan, out: out, s: s}
	return wr.write(ctx)
}

// trace runs tracecraft's pipeline for stacked shapes.
func (s settings) trace(ctx context.Context, img *image.NRGBA) (*refine.Result, *paint.Plan, paint.Options, error) {
	seg, err := segment.Segment(ctx, img, segment.Options{MaxColors: s.maxColors, MinRegion: s.minRegion, Palette: s.palette})
	if err != nil {
		return nil, nil, paint.Options{}, err
	}
	out := paint.Options{Stacked: true, GapFillerWidth: paint.AutoGapFillerWidth, Underlap: true}
	out.GapFiller = !paint.FineDetail(seg, out.GapFillerWidth)
	plan := paint.NewPlan(seg, out)
	res, err := refine.Fit(ctx, img, seg, plan, s.tolerance)
	if err != nil {
		return nil, nil, paint.Options{}, err
	}
	return res, plan, out, nil
}

// writer writes the stacked shapes of a traced segmentation.
type writer struct {
	res  *refine.Result
	plan *paint.Plan
	out  paint.Options
	s    settings
	buf  bytes.Buffer
	segs []fit.Segment // reused for each ring written
	ids  svg.IDs
}

// minPrimitivePixels is the area (pixels) from which a region is matched with basic
// shapes: smaller ones save a few bytes at most, and are many in photographs.
const minPrimitivePixels = 40

// sampleStep is the spacing (pixels) of the points on which outlines are matched with
// basic shapes.
const sampleStep = 0.5

// recognize returns the basic shape of region r's outer outline, or one of Kind None,
// and whether the outline runs clockwise (false for Kind None). The shape is recognised
// on the fitted outline (ring outer of the planar map), then placed by least squares on
// the boundary positions the anti-aliasing measured, which the fitted curves follow only
// within their tolerance.
// pts is scratch space for the outline's samples. It reads w and changes nothing in it,
// so regions can be recognised in parallel.
func (w *writer) recognize(r int, outer fit.Path, pts *[]fit.Point) (primitive.Shape, bool) {
	*pts = primitive.Sample(outer, sampleStep, (*pts)[:0])
	pm := w.res.Seg.Planar
	width, height := float64(pm.Width), float64(pm.Height)
	opt := primitive.Options{Tolerance: w.s.primTol, Width: width, Height: height, MinSize: 2}
	s := primitive.Recognize(*pts, opt)
	if s.Kind == primitive.None {
		// The direction is read only for basic shapes (most regions are none).
		return s, false
	}
	clockwise := primitive.Clockwise(*pts)
	var samples []fit.Point
	for _, h := range pm.Rings[pm.RegionRings[r][0]].Half {
		e := w.res.Samples(h.Edge())
		if h.Reversed() {
			for i := len(e) - 1; i >= 0; i-- {
				samples = append(samples, e[i])
			}
		} else {
			samples = append(samples, e...)
		}
	}
	placed := primitive.Refit(s, samples, width, height)
	// Keep the placed shape only if it still follows the drawn outline.
	if primitive.Within(placed, *pts, opt) {
		s = placed
	}
	return s, clockwise
}

func (w *writer) write(ctx context.Context) ([]byte, error) {
	pm := w.res.Seg.Planar
	groups := w.plan.Groups()
	svg.Header(&w.buf, pm.Width, pm.Height, w.s.fixedSize, "")
	holes := svgout.StackedHoles(w.res.Seg)
	shapes, clockwise, err := w.recognizeAll(ctx, groups)
	if err != nil {
		return nil, err
	}
	endTol, ctrlTol := numberTolerances(w.s.tolerance)
	path := pathw.New(endTol, ctrlTol)
	var prims []byte
	var elems [][]byte
	for _, g := range groups {
		path.Reset()
		prims = prims[:0]
		elems = elems[:0]
		for _, r := range g.Regions {
			shape := shapes[r]
			if shape.Kind != primitive.None {
				shape = w.underlapShape(r, shape)
			}
			switch {
			case shape.Kind != primitive.None && len(holes[r]) == 0:
				elems = append(elems, shape.AppendElement(nil, ""))
				continue
			case shape.Kind != primitive.None:
				prims = shape.AppendSubpath(prims, clockwise[r])
			default:
				var outer fit.Path
				outer, w.segs = svgout.UnderlapRing(w.res, w.plan, r, int(pm.RegionRings[r][0]), w.segs[:0])
				svgout.AddRing(path, outer)
			}
			for _, ri := range holes[r] {
				svgout.AddRing(path, w.res.Ring(int(ri)).Reverse())
			}
		}
		w.group(g, path.Bytes(), prims, elems)
	}
	svg.Footer(&w.buf)
	return w.buf.Bytes(), nil
}

// underlapShape returns the basic shape s of region r with the gap filler: s itself
// when r's outline borders no opaque shape painted above it; s grown by the filler's
// width when every part of its outline that does not border the image border borders
// such a shape, by the same width (the shape then reaches under all of them, and out
// of the view box); Kind None otherwise, so that r is written as a path that reaches
// under the shapes above and nowhere else.
func (w *writer) underlapShape(r int, s primitive.Shape) primitive.Shape {
	pm := w.res.Seg.Planar
	var ds []float64 // the different underlaps along the outline, border left out
	for _, h := range pm.Rings[pm.RegionRings[r][0]].Half {
		e := &pm.Edges[h.Edge()]
		other := e.Right
		if h.Reversed() {
			other = e.Left
		}
		if other == planar.Outside {
			continue
		}
		if d := w.plan.Underlap(int32(r), other); !slices.Contains(ds, d) {
			ds = append(ds, d)
		}
	}
	switch {
	case len(ds) == 0 || len(ds) == 1 && ds[0] == 0:
		return s
	case len(ds) == 1:
		return s.Grow(ds[0])
	}
	return primitive.Shape{}
}

// recognizeAll returns, per region, the basic shape of the drawn regions that are
// large enough to be one (Kind None for the others) and whether its outline runs
// clockwise. Regions are independent, so they are recognised in parallel.
func (w *writer) recognizeAll(ctx context.Context, groups []paint.Group) ([]primitive.Shape, []bool, error) {
	n := len(w.res.Seg.Regions.Regions)
	shapes, clockwise := make([]primitive.Shape, n), make([]bool, n)
	if !w.s.primitives {
		return shapes, clockwise, nil
	}
	var todo []int
	for _, g := range groups {
		for _, r := range g.Regions {
			if w.res.Seg.Regions.Regions[r].Pixels >= minPrimitivePixels {
				todo = append(todo, r)
			}
		}
	}
	pts := make([][]fit.Point, parallel.Workers(len(todo), recognizeGrain))
	err := parallel.For(ctx, len(todo), recognizeGrain, func(worker, lo, hi int) {
		for _, r := range todo[lo:hi] {
			outer := w.res.Ring(int(w.res.Seg.Planar.RegionRings[r][0]))
			shapes[r], clockwise[r] = w.recognize(r, outer, &pts[worker])
		}
	})
	return shapes, clockwise, err
}

// recognizeGrain is the fewest regions worth handing to a goroutine of their own.
const recognizeGrain = 4

// group writes one paint group: its elements, then its path (path data d followed by
// the subpaths prims); several in a <g> holding the paint and the colour's id, each with
// a shape id, one alone with the paint and the colour's id (see svg.IDs).
func (w *writer) group(g paint.Group, d, prims []byte, elems [][]byte) {
	paint := svg.Paint("fill", g.Paint)
	n := len(elems)
	hasPath := len(d)+len(prims) > 0
	if hasPath {
		n++
	}
	wrap := n > 1
	colour := svg.IDAttr(w.ids.Colour(g.Paint))
	attrs := func() string { return colour + paint }
	if wrap {
		w.buf.WriteString("<g" + colour + paint + ">")
		attrs = func() string { return svg.IDAttr(w.ids.Shape()) }
	}
	for _, e := range elems {
		// Elements are written without paint: the id goes after the name, the paint
		// before "/>".
		name := bytes.IndexByte(e, ' ')
		w.buf.Write(e[:name])
		if wrap {
			w.buf.WriteString(attrs())
		} else {
			w.buf.WriteString(colour)
		}
		w.buf.Write(e[name : len(e)-2])
		if !wrap {
			w.buf.WriteString(paint)
		}
		w.buf.WriteString("/>")
	}
	if hasPath {
		w.buf.WriteString("<path" + attrs() + ` d="`)
		w.buf.Write(d)
		w.buf.Write(prims)
		w.buf.WriteString(`"/>`)
	}
	if wrap {
		w.buf.WriteString("</g>")
	}
}
