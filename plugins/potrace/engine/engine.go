// Package engine is the potrace engine: Potrace 1.16's tracing (package trace) behind
// the sdk.Engine interface, with Potrace's parameters and its style of SVG.
package engine

import (
	"context"
	"image"
	"image/color"

	"github.com/tracecraft/tracecraft/plugins/potrace/trace"
	"github.com/tracecraft/tracecraft/sdk"
)

// Precision is the number of decimals of the SVG coordinates: Potrace's own SVG keeps
// tenths of a pixel.
const Precision = 1

// Engine traces images like the potrace command-line tool: the image is composited over
// white and thresholded to black and white, then traced into black shapes.
type Engine struct{}

var _ sdk.Engine[Params] = (*Engine)(nil)

// New returns the potrace engine.
func New() *Engine { return &Engine{} }

// Params are the parameters of spec section 2.7.
type Params struct {
	Threshold    int     `param:"threshold" min:"0" max:"255" default:"128" desc:"black/white threshold: a pixel composited over white is black when its luma (0.299 R + 0.587 G + 0.114 B) is below this"`
	TurdSize     int     `param:"turdSize" min:"0" max:"100" default:"2" desc:"suppress speckles up to this pixel size: shapes and holes enclosing at most this many pixels are dropped"`
	TurnPolicy   string  `param:"turnPolicy" enum:"black,white,left,right,minority,majority" default:"minority" desc:"how to resolve pixels touching only at a corner: connect black, connect white, always turn left or right, or connect the colour that is rarer (minority) or commoner (majority) nearby"`
	AlphaMax     float64 `param:"alphaMax" min:"0" max:"1.334" step:"0.01" default:"1" desc:"corner smoothness (0 sharp, 1.334 smooth): corners sharper than this stay corners"`
	OptCurve     bool    `param:"optCurve" default:"true" desc:"optimize Bézier curves: join consecutive curve segments where the result stays within optTolerance"`
	OptTolerance float64 `param:"optTolerance" min:"0" max:"1" step:"0.01" default:"0.2" desc:"curve optimization tolerance in pixels: larger values give fewer segments but less accuracy"`
	// The parameters below go beyond Potrace, whose one global threshold turns the dark
	// side of an unevenly lit page black; their defaults keep Potrace's behaviour.
	ThresholdMode  string  `param:"thresholdMode" enum:"global,adaptive,auto" default:"global" desc:"global: one threshold for the whole image, as Potrace; adaptive: Sauvola's local threshold from the mean and spread of the luma around each pixel (adaptiveWindow, adaptiveK), for scans and photographs of pages with uneven lighting (threshold is then unused); auto: global, unless it turns over a twentieth of the image black where the adaptive threshold sees shadowed paper"`
	AdaptiveWindow int     `param:"adaptiveWindow" min:"3" max:"255" default:"15" desc:"adaptive threshold: the side in pixels of the square around each pixel whose luma sets its threshold; a few times the width of a stroke"`
	AdaptiveK      float64 `param:"adaptiveK" min:"0.01" max:"1" step:"0.01" default:"0.2" desc:"adaptive threshold: Sauvola's k; larger values keep less as black where the local contrast is low (stains, shading)"`
	// Ink goes beyond Potrace's fixed --color: the image's own ink colour.
	Ink string `param:"ink" enum:"black,image" default:"black" desc:"colour of the traced shapes: black, as Potrace; image: the colour of the image's ink (the mean of the darker half of the pixels the threshold turned black), so that a gray or coloured glyph keeps its colour"`
}

// Describe returns the engine's name, version and parameters.
func (e *Engine) Describe() sdk.Descriptor {
	return sdk.Descriptor{
		Name:        "potrace",
		Version:     "1.0.0",
		Stability:   sdk.Stable,
		Description: "Potrace 1.16: smooth black-and-white outlines, best for lineart, text, scans and monochrome logos.",
		Params:      sdk.Describe[Params](),
	}
}

// Options returns the tracing options params stand for.
func Options(params Params) (trace.Options, error) {
	policy, err := trace.ParseTurnPolicy(params.TurnPolicy)
	if err != nil {
		return trace.Options{}, sdk.Errorf(sdk.CodeInvalidSettings, "turnPolicy: %v", err)
	}
	return trace.Options{
		TurdSize:     params.TurdSize,
		TurnPolicy:   policy,
		AlphaMax:     params.AlphaMax,
		OptCurve:     params.OptCurve,
		OptTolerance: params.OptTolerance,
	}, nil
}

// Trace thresholds img, traces it and returns the SVG: one path element per outer
// boundary, holding its holes as further subpaths, painted black or in the image's ink
// colour (params.Ink).
func (e *Engine) Trace(ctx context.Context, img *image.NRGBA, params Params) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts, err := Options(params)
	if err != nil {
		return nil, err
	}
	var bm *trace.Bitmap
	switch params.ThresholdMode {
	case "adaptive":
		bm = trace.AdaptiveThreshold(img, params.AdaptiveWindow, params.AdaptiveK)
	case "auto":
		bm = trace.AutoThreshold(img, float64(params.Threshold), params.AdaptiveWindow, params.AdaptiveK)
	default:
		bm = trace.Threshold(img, float64(params.Threshold))
	}
	roots, err := trace.Trace(ctx, bm, opts)
	if err != nil {
		return nil, err
	}
	ink := color.NRGBA{A: 255}
	if params.Ink == "image" {
		ink = trace.InkColour(img, bm)
	}
	return trace.DocumentInk(bm.Width, bm.Height, roots, Precision, ink), nil
}
