// Package trace is VTracer's colour tracing pipeline: hierarchical colour clustering
// (package cluster), path walking (package contour), staircase removal, penalty-limited
// simplification, corner detection, subdivision smoothing, splicing and cubic fitting
// (package pathfit), written out as an SVG document.
package trace

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"runtime"

	"github.com/tracecraft/tracecraft/plugins/vtracer/cluster"
	"github.com/tracecraft/tracecraft/plugins/vtracer/contour"
	"github.com/tracecraft/tracecraft/plugins/vtracer/pathfit"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// Mode is how outlines are drawn.
type Mode int

// The outline modes.
const (
	// Spline fits smooth cubic Bézier curves, keeping corners sharp.
	Spline Mode = iota
	// Polygon draws the simplified, straight-edged outline.
	Polygon
	// Pixel draws the exact outline of the pixels.
	Pixel
)

// Options are VTracer's settings (its names in brackets).
type Options struct {
	// BW traces the dark areas of the image composited over white, as black shapes,
	// instead of every colour (color_mode binary).
	BW bool
	// Cutout cuts each shape out of the ones below it instead of stacking them
	// (hierarchical cutout).
	Cutout bool
	// Mode is how outlines are drawn (mode).
	Mode Mode
	// FilterSpeckle drops, by merging into a neighbour, areas smaller than its square in
	// pixels (filter_speckle).
	FilterSpeckle int
	// ColorPrecision is the number of significant bits per channel compared when
	// grouping pixels, 1..8 (color_precision).
	ColorPrecision int
	// LayerDifference is the colour difference a merge must exceed to keep the merged
	// area as a shape of its own (layer_difference, gradient step).
	LayerDifference int
	// CornerThreshold is the turn, in degrees, from which a vertex is a corner
	// (corner_threshold).
	CornerThreshold float64
	// LengthThreshold is the edge length, in pixels, smoothing subdivides down to
	// (length_threshold, segment length).
	LengthThreshold float64
	// MaxIterations bounds the subdivision passes of smoothing (max_iterations).
	MaxIterations int
	// SpliceThreshold is the turn, in degrees, after which a curve starts a new Bézier
	// segment (splice_threshold).
	SpliceThreshold float64
	// PathPrecision is the number of decimals of path coordinates (path_precision).
	PathPrecision int
	// Palette, when not empty, holds the only colours the shapes are painted with (see
	// cluster.Hierarchy.Repaint; in BW mode, the black shapes take the palette colour
	// nearest black). Its colours are opaque.
	Palette []color.NRGBA
}

// DefaultOptions returns VTracer's defaults (colour, stacked, spline, speckle 4,
// precision 6, layer difference 16, corner 60, length 4, 10 iterations, splice 45) with
// 8 decimals.
func DefaultOptions() Options {
	return Options{
		FilterSpeckle: 4, ColorPrecision: 6, LayerDifference: 16, CornerThreshold: 60,
		LengthThreshold: 4, MaxIterations: 10, SpliceThreshold: 45, PathPrecision: 8,
	}
}

// Check returns an error naming the first option out of its range.
func (o Options) Check() error {
	switch {
	case o.Mode < Spline || o.Mode > Pixel:
		return fmt.Errorf("unknown mode %d", o.Mode)
	case o.FilterSpeckle < 0:
		return fmt.Errorf("filter speckle %d is negative", o.FilterSpeckle)
	case o.ColorPrecision < 1 || o.ColorPrecision > 8:
		return fmt.Errorf("color precision %d is not within 1..8", o.ColorPrecision)
	case o.LayerDifference < 0:
		return fmt.Errorf("layer difference %d is negative", o.LayerDifference)
	case !(o.CornerThreshold >= 0 && o.CornerThreshold <= 180):
		return fmt.Errorf("corner threshold %v is not within 0..180", o.CornerThreshold)
	case !(o.SpliceThreshold >= 0 && o.SpliceThreshold <= 180):
		return fmt.Errorf("splice threshold %v is not within 0..180", o.SpliceThreshold)
	case !(o.LengthThreshold >= 0.5 && o.LengthThreshold <= 1e6):
		return fmt.Errorf("length threshold %v is not within 0.5..1e6", o.LengthThreshold)
	case o.MaxIterations < 0 || o.MaxIterations > 32:
		return fmt.Errorf("max iterations %d is not within 0..32", o.MaxIterations)
	case o.PathPrecision < 0 || o.PathPrecision > 8:
		return fmt.Errorf("path precision %d is not within 0..8", o.PathPrecision)
	}
	return nil
}

// collectArea is the image area from which Trace collects garbage between stages: the
// clustering's per-cluster state before tracing, the hierarchy before the document is
// joined. Otherwise the heap grows to about twice its live size (GOGC) while one stage's
// garbage waits beside the next stage's data; on a 16 MP photo the peak heap would be
// about 120 MB higher. Each collection costs milliseconds (the large arrays hold no
// pointers).
const collectArea = 1 << 20

// sameColorTolerance is how many quantised steps neighbouring pixels may differ by per
// channel (and twice that in all) and still start in the same cluster.
const sameColorTolerance = 1

// Trace converts img into an SVG document with xmlns and viewBox="0 0 W H": one path
// per shape, bottom shapes first. Fully transparent pixels are in no shape. It returns
// ctx.Err() when ctx is cancelled, and an error when o fails Check.
func Trace(ctx context.Context, img *image.NRGBA, o Options) ([]byte, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.BW {
		return traceBW(ctx, img, o)
	}
	return traceClusters(ctx, img, o, cluster.Config{
		Shift:           8 - o.ColorPrecision,
		Tolerance:       sameColorTolerance,
		Diagonal:        o.LayerDifference == 0,
		SpeckleArea:     o.FilterSpeckle * o.FilterSpeckle,
		LayerDifference: o.LayerDifference,
	})
}

// checkArea is how many pixels of shapes traceClusters traces between two checks of its
// context: a few milliseconds of work.
const checkArea = 1 << 18

// traceClusters traces the shapes of img's colour hierarchy, clustered with cfg.
func traceClusters(ctx context.Context, img *image.NRGBA, o Options, cfg cluster.Config) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	mode := cluster.Stacked
	if o.Cutout {
		mode = cluster.Cutout
	}
	hier, err := cluster.Build(ctx, img, cfg)
	if err != nil {
		return nil, err
	}
	hier.Repaint(o.Palette)
	if w*h >= collectArea {
		// Clustering leaves about 6 bytes a pixel of garbage on a photo (per-cluster state)
		// that the heap would otherwise keep beside everything tracing allocates next.
		runtime.GC()
	}
	wr := newWriter(w, h, o)
	var starts []int32
	area := 0 // pixels of the shapes traced since ctx was checked
	for i := range hier.Shapes {
		if i&63 == 0 || area >= checkArea {
			// The first shapes, the largest, cost about their area each.
			area = 0
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		area += hier.Shapes[i].Area
		if hier.Shapes[i].Folded {
			continue
		}
		starts = hier.TopEdges(starts[:0], i, mode)
		wr.shape(starts, func(p int) bool { return hier.Covers(i, mode, p) }, hier.Shapes[i].Color)
	}
	if w*h >= collectArea {
		// The hierarchy (8 bytes a pixel) is garbage now: collect it before the
		// document is joined into one slice.
		runtime.GC()
	}
	return wr.finish(), nil
}

// writer writes the SVG document, one path per shape.
type writer struct {
	t     *tracer
	out   blocks
	path  *svg.Path
	rings []contour.Ring
	head  bytes.Buffer
	ids   svg.IDs
}

// newWriter starts the document of a w x h image.
func newWriter(w, h int, o Options) *writer {
	wr := &writer{t: &tracer{o: o, walker: contour.NewWalker(w, h)}, path: svg.NewPath(o.PathPrecision)}
	svg.Header(&wr.head, w, h, false, "")
	wr.out.write(wr.head.Bytes())
	return wr
}

// shape writes the path of the set of pixels p for which in(p) is true, in colour c;
// starts lists the set's pixels below the top edges of its outlines (see
// contour.Walker.Trace). Nothing is written for an empty outline.
func (wr *writer) shape(starts []int32, in func(p int) bool, c color.NRGBA) {
	wr.rings = wr.t.walker.Trace(wr.rings[:0], starts, in)
	path := wr.path
	path.Reset()
	for _, r := range wr.rings {
		wr.t.draw(path, r)
	}
	if path.Len() == 0 {
		return
	}
	out := &wr.out
	out.writeString(`<path`)
	out.writeString(svg.IDAttr(wr.ids.Shape()))
	out.writeString(svg.Paint("fill", c))
	out.writeString(` d="`)
	out.write(path.Bytes())
	out.writeString(`"/>`)
}

// finish ends the document and returns it.
func (wr *writer) finish() []byte {
	wr.head.Reset()
	svg.Footer(&wr.head)
	wr.out.write(wr.head.Bytes())
	return wr.out.bytes()
}

// blocks collects a document in blocks of growing size, so that a large document is
// never copied while it grows (a bytes.Buffer briefly holds up to three times its
// length); bytes joins them once.
type blocks struct {
	full [][]byte
	cur  []byte
	n    int
}

// maxBlock is the size blocks grow to.
const maxBlock = 1 << 20

func (b *blocks) write(p []byte) {
	if len(b.cur)+len(p) > cap(b.cur) {
		if b.cur != nil {
			b.full = append(b.full, b.cur)
		}
		b.cur = make([]byte, 0, max(min(2*cap(b.cur), maxBlock), len(p), 4096))
	}
	b.cur = append(b.cur, p...)
	b.n += len(p)
}

func (b *blocks) writeString(s string) {
	if len(b.cur)+len(s) > cap(b.cur) {
		b.write([]byte(s))
		return
	}
	b.cur = append(b.cur, s...)
	b.n += len(s)
}

// bytes returns the document in one slice.
func (b *blocks) bytes() []byte {
	if len(b.full) == 0 {
		return b.cur
	}
	out := make([]byte, 0, b.n)
	for _, f := range b.full {
		out = append(out, f...)
	}
	return append(out, b.cur...)
}

// Binarize returns the image the bw mode traces: opaque black where the image,
// composited over white, is dark (BT.601 luma below 128), transparent elsewhere. So
// transparent areas, white over white, draw nothing (VTracer's own bw mode reads the
// colour of a transparent pixel and often draws it black).
func Binarize(img *image.NRGBA) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		off := img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y)
		row := img.Pix[off : off+4*w]
		dst := out.Pix[y*out.Stride : y*out.Stride+4*w]
		for x := 0; x < w; x++ {
			if dark(row[4*x : 4*x+4]) {
				dst[4*x+3] = 0xff
			}
		}
	}
	return out
}

// dark reports whether the pixel px (R, G, B, A) composited over white has a BT.601 luma
// below 128.
func dark(px []byte) bool {
	// 1000*255*luma of the colour over white: a*Y(rgb) + (255-a)*255.
	a := int(px[3])
	l := (299*int(px[0]) + 587*int(px[1]) + 114*int(px[2])) * a
	l += (255 - a) * 255 * 1000
	return l < 128*255*1000
}

// tracer turns pixel outlines into path data, reusing its buffers.
type tracer struct {
	o       Options
	walker  *contour.Walker
	pts     []pathfit.Point
	simple  []pathfit.Point
	corner  []bool
	cuts    []int
	cubics  []pathfit.Cubic
	smooth  []pathfit.Point
	scratch []bool
	sm      pathfit.Smoother
	fit     pathfit.Fitter
}

// draw adds the closed outline r to path, as the mode asks.
func (t *tracer) draw(path *svg.Path, r contour.Ring) {
	t.pts = t.pts[:0]
	for _, p := range r {
		t.pts = append(t.pts, pathfit.Point{X: float64(p.X), Y: float64(p.Y)})
	}
	if t.o.Mode == Pixel {
		polygon(path, t.pts)
		return
	}
	t.simple = pathfit.RemoveStaircase(t.simple[:0], t.pts)
	t.pts = pathfit.LimitPenalties(t.pts[:0], t.simple, pathfit.Penalty)
	if t.o.Mode == Polygon {
		polygon(path, t.pts)
		return
	}
	t.corner = pathfit.Corners(t.corner[:0], t.pts, t.o.CornerThreshold)
	// Smooth may hand back either buffer; keep both for the next outline.
	t.smooth = append(t.smooth[:0], t.pts...)
	t.scratch = append(t.scratch[:0], t.corner...)
	pts, corner := t.sm.Smooth(t.smooth, t.scratch, t.o.LengthThreshold, t.o.MaxIterations)
	t.cuts = pathfit.Splice(t.cuts[:0], pts, corner, t.o.SpliceThreshold)
	t.cubics = t.fit.Fit(t.cubics[:0], pts, t.cuts)
	start := pts[t.cuts[0]]
	path.MoveTo(start.X, start.Y)
	from := start
	for i, c := range t.cubics {
		last := i == len(t.cubics)-1
		switch {
		case c.IsLine(from) && last:
			// the close draws it
		case c.IsLine(from):
			path.LineTo(c.P.X, c.P.Y)
		default:
			path.CubicTo(c.C1.X, c.C1.Y, c.C2.X, c.C2.Y, c.P.X, c.P.Y)
		}
		from = c.P
	}
	path.Close()
	t.smooth, t.scratch = pts[:0], corner[:0]
}

// polygon adds the closed polygon pts to path.
func polygon(path *svg.Path, pts []pathfit.Point) {
	path.MoveTo(pts[0].X, pts[0].Y)
	for _, p := range pts[1:] {
		path.LineTo(p.X, p.Y)
	}
	path.Close()
}
