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

var _ sdk.Engine = (*Engine)(nil)

// New returns the engine.
func New() *Engine { return &Engine{} }

// Describe returns the engine's name and the parameters of spec section 2.5.
func (*Engine) Describe() sdk.Descriptor {
	return sdk.Descriptor{
		Name:        "tracecraft",
		Version:     "1.0.0",
		Stability:   sdk.Stable,
		Description: "in-house engine: planar shared-edge topology, render-and-refine. Best for flat images (logos, icons, posters): neighbouring shapes share each boundary, fitted once where the anti-aliasing puts it, so they never leave gaps or overlaps.",
		Params: append(SegmentParams(), []sdk.Param{
			{Name: "tolerance", Type: sdk.Number, Min: 0, Max: 5, Default: 0.5,
				Description: "curve fit tolerance in pixels: how far the lines and curves may stray from the boundary; larger gives fewer segments and smaller files (boundaries between similar colours may stray up to 4 times as far)"},
			{Name: "drawStyle", Type: sdk.Enum, Values: []string{"fill", "strokeShapes", "strokeEdges"}, Default: "fill",
				Description: "fill shapes, outline each shape, or stroke each shared boundary exactly once"},
			{Name: "shapeStacking", Type: sdk.Enum, Values: []string{"cutouts", "stacked"}, Default: "cutouts",
				Description: "exact cut-out holes versus solid stacked shapes (editability): cutouts never overlap; stacked draws each shape without the holes its neighbours fill, bottom to top (holes that show transparency stay holes)"},
			{Name: "groupBy", Type: sdk.Enum, Values: []string{"none", "color"}, Default: "none",
				Description: "merge per color (smallest output) or group paths per color (editable): none merges all shapes of a colour into one path, color writes one <g> per colour holding one path per shape"},
			{Name: "fixedSize", Type: sdk.Boolean, Default: false,
				Description: "emit width/height attributes (the image's size in pixels); the viewBox is always there"},
			{Name: "gapFiller", Type: sdk.Enum, Values: []string{"auto", "on", "off"}, Default: "auto",
				Description: "anti-conflation same-paint stroke; auto means on except for fine-detail images: shapes bordering others get a stroke of their own paint that hides the background seams renderers leave along shared edges, and edges move by half its width so it does not fatten the shapes; auto is off when hairline shapes (thinner than the stroke) border over a tenth of all boundary length, and uses 1 px unless gapFillerWidth is given"},
			{Name: "gapFillerWidth", Type: sdk.Number, Min: 0.05, Max: 4, Default: 0.25,
				Description: "gap filler stroke width in px: 1 or more hides seams completely, less only narrows them"},
			{Name: "strokeWidth", Type: sdk.Number, Min: 0.05, Max: 20, Default: 1.0,
				Description: "stroke width for stroke draw styles, in px"},
			{Name: "overrideColor", Type: sdk.String, Format: sdk.FormatColor,
				Description: "forces the stroke color in stroke draw styles: any CSS color (hex, rgb(), hsl() or a name); without it each stroke has its shape's colour"},
			{Name: "nonScalingStroke", Type: sdk.Boolean, Default: false,
				Description: "applies vector-effect non-scaling-stroke: strokes keep their width when the SVG is scaled"},
		}...),
	}
}

// SegmentParams returns the parameters of the tracecraft segmentation, maxColors and
// minRegion, for tracecraft and the engines built on its segmentation.
func SegmentParams() []sdk.Param {
	return []sdk.Param{
		{Name: "maxColors", Type: sdk.Number, Min: 2, Max: 256, Default: 16.0, Integer: true,
			Description: "palette size for median-cut quantization: colours are picked in the Oklab perceptual space, weighted by pixel count, and the output uses at most this many"},
		{Name: "minRegion", Type: sdk.Number, Min: 0, Max: 1024, Default: 25.0, Integer: true,
			Description: "merge regions smaller than this many pixels: each joins its most similar neighbour (0 keeps every region)"},
	}
}

// Trace converts img into an SVG document.
func (e *Engine) Trace(ctx context.Context, img *image.NRGBA, p sdk.Params) ([]byte, error) {
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
	seg, err := segment.Segment(ctx, img, segment.Options{MaxColors: opt.maxColors, MinRegion: opt.minRegion})
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
	tolerance            float64
	gapFiller            string
	out                  svgout.Options
}

func options(p sdk.Params) (settings, error) {
	s := settings{
		maxColors: p.Int("maxColors"),
		minRegion: p.Int("minRegion"),
		tolerance: p.Number("tolerance"),
		gapFiller: p.String("gapFiller"),
	}
	s.out = svgout.Options{
		Paint:            paint.Options{Stacked: p.String("shapeStacking") == "stacked"},
		GroupByColor:     p.String("groupBy") == "color",
		FixedSize:        p.Bool("fixedSize"),
		StrokeWidth:      p.Number("strokeWidth"),
		NonScalingStroke: p.Bool("nonScalingStroke"),
		Precision:        precision(s.tolerance),
	}
	switch p.String("drawStyle") {
	case "strokeShapes":
		s.out.Paint.Style = paint.StrokeShapes
	case "strokeEdges":
		s.out.Paint.Style = paint.StrokeEdges
	}
	if p.Has("overrideColor") {
		c, err := sdk.ParseColor(p.String("overrideColor"))
		if err != nil {
			return s, sdk.Errorf(sdk.CodeInvalidSettings, "overrideColor %q is not a CSS colour", p.String("overrideColor"))
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
func gapFiller(p sdk.Params, seg *segment.Segmentation) (bool, float64) {
	width := p.Number("gapFillerWidth")
	switch p.String("gapFiller") {
	case "on":
		return true, width
	case "off":
		return false, width
	}
	if !p.Given("gapFillerWidth") {
		width = paint.AutoGapFillerWidth
	}
	return !paint.FineDetail(seg, width), width
}
