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

var (
	_ sdk.Engine[Params] = (*Engine)(nil)
	_ sdk.MemoryBounded  = (*Engine)(nil)
)

// New returns the centerline engine.
func New() *Engine { return &Engine{} }

// MaxFixedWidth bounds a numeric strokeWidth, in pixels.
const MaxFixedWidth = 100

// Params are the engine's parameters.
type Params struct {
	ThresholdMode string  `param:"thresholdMode" enum:"auto,fixed,otsu,adaptive" default:"auto" desc:"how ink is told from paper: auto evens out the paper's lighting when it varies across the image (a photographed page) and then applies the fixed threshold; fixed is a luma threshold alone, otsu the threshold chosen from the image's histogram, adaptive a Sauvola threshold per neighbourhood"`
	Threshold     int     `param:"threshold" min:"0" max:"255" default:"128" desc:"with thresholdMode auto or fixed: a pixel composited over white (and, with auto, its paper evened out) is ink when its luma (0.299 R + 0.587 G + 0.114 B) is below this"`
	MinLength     float64 `param:"minLength" min:"0" max:"1000" step:"0.5" default:"4" desc:"drop strokes whose drawn extent (length plus width) is shorter than this many pixels: specks and dust"`
	Tolerance     float64 `param:"tolerance" min:"0.05" max:"10" step:"0.05" default:"0.5" desc:"curve fit tolerance in pixels: how far the lines and curves may stray from the measured centre line; larger gives fewer segments"`
	StrokeWidth   string  `param:"strokeWidth" default:"auto" maxLength:"16" desc:"auto: each stroke gets its own median width measured from the ink; variable: a stroke is split where its width changes a lot, each part with its own width; a number (0.1 to 100) forces one width in pixels"`
	JoinGaps      float64 `param:"joinGaps" min:"0" max:"100" step:"0.5" default:"0" desc:"bridge gaps up to this many pixels between two stroke ends that point at each other (0 bridges none)"`
	FillMode      string  `param:"fillMode" enum:"outline,hatch" default:"outline" desc:"solid areas much wider than the typical line, and (unless strokeWidth is a number) strokes whose width varies too much for one stroke width, such as a brush's taper, and the lines joined to a solid area where it makes up at least a third of their connected ink (a silhouette's legs and tail) or where the whole outline costs fewer path segments than the lines (a woodcut): outline draws them as filled shapes; hatch keeps every stroke and draws solid areas as parallel strokes one line width apart (for plotters)"`
	CloseLoops    bool    `param:"closeLoops" default:"true" desc:"close strokes whose two ends meet (a ring, an o) with Z instead of leaving them open"`
	Colors        int     `param:"colors" min:"1" max:"16" default:"1" desc:"number of pen colours: 1 traces all ink as black strokes; more groups the strokes per ink colour found in the image, one <g> per colour, for multi-pen plotters"`
}

// Describe returns the engine's name, version and parameters.
func (*Engine) Describe() sdk.Descriptor {
	return sdk.Descriptor{
		Name:        "centerline",
		Version:     "0.1.0",
		Stability:   sdk.Stable,
		Description: "centre-line tracing: one stroke down the middle of each line with its width, for line art, handwriting, pen plotters, lasers and engravers.",
		Params:      sdk.Describe[Params](),
	}
}

// Options returns the tracing options p stands for.
func Options(p Params) (trace.Options, error) {
	mode, err := ink.ParseMode(p.ThresholdMode)
	if err != nil {
		return trace.Options{}, sdk.Errorf(sdk.CodeInvalidSettings, "thresholdMode: %v", err)
	}
	o := trace.DefaultOptions()
	o.Threshold = mode
	o.Level = float64(p.Threshold)
	o.MinLength = p.MinLength
	o.Tolerance = p.Tolerance
	o.JoinGaps = p.JoinGaps
	o.CloseLoops = p.CloseLoops
	o.Colors = p.Colors
	if p.FillMode == "hatch" {
		o.Fill = trace.FillHatch
	}
	switch sw := strings.TrimSpace(p.StrokeWidth); sw {
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

// JobMemory bounds the memory of a trace of an image of pixels pixels (see
// sdk.MemoryBounded): 64 MiB and 12 bytes a pixel, about what a trace keeps alive at
// its largest, while it thins (the image 4, its darkness 1, the ink mask 1, the
// distance map 4, the thinning's grid 1, with the visit order's 4 bytes an ink pixel),
// so that the garbage of its earlier steps is collected rather than piled on top.
func (*Engine) JobMemory(pixels int) int64 { return 64<<20 + 12*int64(pixels) }

// Trace traces img's centre lines into an SVG document.
func (*Engine) Trace(ctx context.Context, img *image.NRGBA, p Params) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o, err := Options(p)
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
