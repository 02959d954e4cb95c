package engine

import (
	"context"
	"image"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/paint"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/refine"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/segment"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/svgout"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// Engine is the tracecraft tracer.
type Engine struct{}

var (
	_ sdk.Engine[Params] = (*Engine)(nil)
	_ sdk.MemoryBounded  = (*Engine)(nil)
)

// New returns the engine.
func New() *Engine { return &Engine{} }

// Params are the parameters of spec section 2.5.
type Params struct {
	segment.Options
	Tolerance        float64               `param:"tolerance" min:"0" max:"5" default:"0.5" desc:"curve fit tolerance in pixels: how far the lines and curves may stray from the boundary; larger gives fewer segments and smaller files (boundaries between similar colours may stray up to 4 times as far)"`
	DrawStyle        string                `param:"drawStyle" enum:"fill,strokeShapes,strokeEdges" default:"fill" desc:"fill shapes, outline each shape, or stroke each shared boundary exactly once"`
	ShapeStacking    string                `param:"shapeStacking" enum:"cutouts,stacked" default:"cutouts" desc:"exact cut-out holes versus solid stacked shapes (editability): cutouts never overlap; stacked draws each shape without the holes its neighbours fill, bottom to top (holes that show transparency stay holes)"`
	GroupBy          string                `param:"groupBy" enum:"none,color,parent" default:"none" desc:"merge per color (smallest output) or group paths per color (editable): none merges all shapes of a colour into one path, color writes one <g> per colour holding one path per shape, parent writes one path per shape with the shapes it encloses after it in a <g> of their own, nested as the shapes are (best with shapeStacking stacked)"`
	FixedSize        bool                  `param:"fixedSize" default:"false" desc:"emit width/height attributes (the image's size in pixels); the viewBox is always there"`
	GapFiller        string                `param:"gapFiller" enum:"auto,on,off" default:"auto" desc:"anti-conflation gap filler in the shape's own paint; auto means on except for fine-detail images: a shape bordering an opaque shape painted above it reaches gapFillerWidth under it with its own fill (no stroke), which hides the background seams renderers leave along shared edges, moves no visible edge, and recolours with the fill in an editor; auto is off when hairline shapes (thinner than the filler) border over a tenth of all boundary length, and uses 1 px unless gapFillerWidth is given"`
	GapFillerWidth   sdk.Explicit[float64] `param:"gapFillerWidth" min:"0.05" max:"4" default:"0.25" desc:"gap filler width in px (how far a shape reaches under the one above): 1 or more hides seams completely, less only narrows them"`
	StrokeWidth      float64               `param:"strokeWidth" min:"0.05" max:"20" default:"1" desc:"stroke width for stroke draw styles, in px"`
	OverrideColor    sdk.Explicit[string]  `param:"overrideColor" format:"color" desc:"forces the stroke color in stroke draw styles: any CSS color (hex, rgb(), hsl() or a name); without it each stroke has its shape's colour"`
	NonScalingStroke bool                  `param:"nonScalingStroke" default:"false" desc:"applies vector-effect non-scaling-stroke: strokes keep their width when the SVG is scaled"`
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
		Name:        "tracecraft",
		Version:     "1.0.0",
		Stability:   sdk.Stable,
		Description: "in-house engine: planar shared-edge topology, render-and-refine. Best for flat images (logos, icons, posters): neighbouring shapes share each boundary, fitted once where the anti-aliasing puts it, so they never leave gaps or overlaps.",
		Params:      sdk.Describe[Params](),
	}
}

// Trace converts img into an SVG document.
func (e *Engine) Trace(ctx context.Context, img *image.NRGBA, p Params) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	opt, err := options(p)
	if err != nil {
		return nil, err
	}
	if w <= 0 || h <= 0 {
		return svg.Empty(max(w, 1), max(h, 1), opt.out.FixedSize), nil
	}
	seg, err := segment.Segment(ctx, img, segment.Options{MaxColors: opt.maxColors, MinRegion: opt.minRegion, Palette: opt.palette})
	if err != nil {
		return nil, err
	}
	out := opt.out
	out.Paint.GapFiller, out.Paint.GapFillerWidth = gapFiller(p, seg)
	plan := paint.NewPlan(seg, out.Paint)
	res, err := refine.Fit(ctx, img, seg, plan, opt.tolerance)
	if err != nil {
		return nil, err
	}
	return svgout.Write(res, plan, out), nil
}

// settings are the parameters in the form the pipeline takes them.
type settings struct {
	maxColors, minRegion int
	palette              []string
	tolerance            float64
	gapFiller            string
	out                  svgout.Options
}

func options(p Params) (settings, error) {
	s := settings{
		maxColors: p.MaxColors,
		minRegion: p.MinRegion,
		palette:   p.Palette,
		tolerance: p.Tolerance,
		gapFiller: p.GapFiller,
	}
	s.out = svgout.Options{
		Paint:            paint.Options{Stacked: p.ShapeStacking == "stacked", Underlap: true},
		GroupByColor:     p.GroupBy == "color",
		GroupByParent:    p.GroupBy == "parent",
		FixedSize:        p.FixedSize,
		StrokeWidth:      p.StrokeWidth,
		NonScalingStroke: p.NonScalingStroke,
		Precision:        precision(s.tolerance),
	}
	switch p.DrawStyle {
	case "strokeShapes":
		s.out.Paint.Style = paint.StrokeShapes
	case "strokeEdges":
		s.out.Paint.Style = paint.StrokeEdges
	}
	if p.OverrideColor.Given {
		c, err := sdk.ParseColor(p.OverrideColor.Value)
		if err != nil {
			return s, sdk.Errorf(sdk.CodeInvalidSettings, "overrideColor %q is not a CSS colour", p.OverrideColor.Value)
		}
		s.out.Paint.Override = &c
	}
	return s, nil
}

// precision returns the decimals coordinates need at a fit tolerance: a tenth of it,
// at least one decimal place.
func precision(tol float64) int {
	switch {
	case tol >= 1:
		return 1
	case tol >= 0.1:
		return 2
	}
	return 3
}

// gapFiller decides whether filled shapes get the gap filler stroke, and how wide.
func gapFiller(p Params, seg *segment.Segmentation) (bool, float64) {
	width := p.GapFillerWidth.Value
	switch p.GapFiller {
	case "on":
		return true, width
	case "off":
		return false, width
	}
	if !p.GapFillerWidth.Given {
		width = paint.AutoGapFillerWidth
	}
	return !paint.FineDetail(seg, width), width
}
