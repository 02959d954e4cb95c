// Package engine is the centerline engine: the centre-line tracer (package trace)
// behind the sdk.Engine interface. It is the only package of the plugin that knows the
// sdk's parameters; it turns them into trace.Options.
package engine

import (
	"context"
	"image"
	"strconv"
	"strings"

	"github.com/tracecraft/tracecraft/plugins/centerline/ink"
	"github.com/tracecraft/tracecraft/plugins/centerline/trace"
	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/svg"
)

// Engine traces the centre lines of strokes: one open path down the middle of each
// line, with its width.
type Engine struct{}

var _ sdk.Engine = (*Engine)(nil)

// New returns the centerline engine.
func New() *Engine { return &Engine{} }

// MaxFixedWidth bounds a numeric strokeWidth, in pixels.
const MaxFixedWidth = 100

// Describe returns the engine's name, version and parameters.
func (*Engine) Describe() sdk.Descriptor {
	return sdk.Descriptor{
		Name:        "centerline",
		Version:     "0.1.0",
		Stability:   sdk.Experimental,
		Description: "centre-line tracing: one stroke down the middle of each line with its width, for line art, handwriting, pen plotters, lasers and engravers.",
		Params: []sdk.Param{
			{Name: "thresholdMode", Type: sdk.Enum, Values: []string{"fixed", "otsu", "adaptive"}, Default: "fixed",
				Description: "how ink is told from paper: a fixed luma threshold, Otsu's threshold chosen from the image, or an adaptive (Sauvola) threshold per neighbourhood for uneven lighting"},
			{Name: "threshold", Type: sdk.Number, Min: 0, Max: 255, Default: 128.0, Integer: true,
				Description: "with thresholdMode fixed: a pixel composited over white is ink when its luma (0.299 R + 0.587 G + 0.114 B) is below this"},
			{Name: "minLength", Type: sdk.Number, Min: 0, Max: 1000, Default: 4.0, Step: 0.5,
				Description: "drop strokes whose drawn extent (length plus width) is shorter than this many pixels: specks and dust"},
			{Name: "tolerance", Type: sdk.Number, Min: 0.05, Max: 10, Default: 0.5, Step: 0.05,
				Description: "curve fit tolerance in pixels: how far the lines and curves may stray from the measured centre line; larger gives fewer segments"},
			{Name: "strokeWidth", Type: sdk.String, Default: "auto", MaxLength: 16,
				Description: "auto: each stroke gets its own median width measured from the ink; variable: a stroke is split where its width changes a lot, each part with its own width; a number (0.1 to 100) forces one width in pixels"},
			{Name: "joinGaps", Type: sdk.Number, Min: 0, Max: 100, Default: 0.0, Step: 0.5,
				Description: "bridge gaps up to this many pixels between two stroke ends that point at each other (0 bridges none)"},
			{Name: "fillMode", Type: sdk.Enum, Values: []string{"outline", "hatch"}, Default: "outline",
				Description: "solid areas much wider than the typical line: outline draws them as filled shapes, hatch as parallel strokes one line width apart (for plotters)"},
			{Name: "closeLoops", Type: sdk.Boolean, Default: true,
				Description: "close strokes whose two ends meet (a ring, an o) with Z instead of leaving them open"},
			{Name: "colors", Type: sdk.Number, Min: 1, Max: 16, Default: 1.0, Integer: true,
				Description: "number of pen colours: 1 traces all ink as black strokes; more groups the strokes per ink colour found in the image, one <g> per colour, for multi-pen plotters"},
		},
	}
}

// Options returns the tracing options params stand for.
func Options(params sdk.Params) (trace.Options, error) {
	mode, err := ink.ParseMode(params.String("thresholdMode"))
	if err != nil {
		return trace.Options{}, sdk.Errorf(sdk.CodeInvalidSettings, "thresholdMode: %v", err)
	}
	o := trace.DefaultOptions()
	o.Threshold = mode
	o.Level = params.Number("threshold")
	o.MinLength = params.Number("minLength")
	o.Tolerance = params.Number("tolerance")
	o.JoinGaps = params.Number("joinGaps")
	o.CloseLoops = params.Bool("closeLoops")
	o.Colors = params.Int("colors")
	if params.String("fillMode") == "hatch" {
		o.Fill = trace.FillHatch
	}
	switch sw := strings.TrimSpace(params.String("strokeWidth")); sw {
	case "auto":
		o.Width = trace.WidthAuto
	case "variable":
		o.Width = trace.WidthVariable
	default:
		f, err := strconv.ParseFloat(sw, 64)
		if err != nil || f < 0.1 || f > MaxFixedWidth {
			return trace.Options{}, sdk.Errorf(sdk.CodeInvalidSettings,
				"strokeWidth %q: give auto, variable or a number of pixels from 0.1 to %d, such as \"2.5\"", sw, MaxFixedWidth)
		}
		o.Width, o.FixedWidth = trace.WidthFixed, f
	}
	return o, nil
}

// Trace traces img's centre lines into an SVG document.
func (*Engine) Trace(ctx context.Context, img *image.NRGBA, params sdk.Params) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o, err := Options(params)
	if err != nil {
		return nil, err
	}
	if img.Rect.Empty() {
		return svg.Empty(max(1, img.Rect.Dx()), max(1, img.Rect.Dy()), false), nil
	}
	res, err := trace.Trace(ctx, img, o)
	if err != nil {
		return nil, err
	}
	return res.SVG, nil
}
