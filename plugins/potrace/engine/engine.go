// Package engine is the potrace engine: Potrace 1.16's tracing (package trace) behind
// the sdk.Engine interface, with Potrace's parameters and its style of SVG.
package engine

import (
	"context"
	"image"

	"github.com/tracecraft/tracecraft/plugins/potrace/trace"
	"github.com/tracecraft/tracecraft/sdk"
)

// Precision is the number of decimals of the SVG coordinates: Potrace's own SVG keeps
// tenths of a pixel.
const Precision = 1

// Engine traces images like the potrace command-line tool: the image is composited over
// white and thresholded to black and white, then traced into black shapes.
type Engine struct{}

var _ sdk.Engine = (*Engine)(nil)

// New returns the potrace engine.
func New() *Engine { return &Engine{} }

// Describe returns the engine's name, version and the parameters of spec section 2.7.
func (e *Engine) Describe() sdk.Descriptor {
	return sdk.Descriptor{
		Name:        "potrace",
		Version:     "1.0.0",
		Stability:   sdk.Stable,
		Description: "Potrace 1.16: smooth black-and-white outlines, best for lineart, text, scans and monochrome logos.",
		Params: []sdk.Param{
			{Name: "threshold", Type: sdk.Number, Min: 0, Max: 255, Default: 128.0, Integer: true,
				Description: "black/white threshold: a pixel composited over white is black when its luma (0.299 R + 0.587 G + 0.114 B) is below this"},
			{Name: "turdSize", Type: sdk.Number, Min: 0, Max: 100, Default: 2.0, Integer: true,
				Description: "suppress speckles up to this pixel size: shapes and holes enclosing at most this many pixels are dropped"},
			{Name: "turnPolicy", Type: sdk.Enum, Values: []string{"black", "white", "left", "right", "minority", "majority"}, Default: "minority",
				Description: "how to resolve pixels touching only at a corner: connect black, connect white, always turn left or right, or connect the colour that is rarer (minority) or commoner (majority) nearby"},
			{Name: "alphaMax", Type: sdk.Number, Min: 0, Max: 1.334, Default: 1.0, Step: 0.01,
				Description: "corner smoothness (0 sharp, 1.334 smooth): corners sharper than this stay corners"},
			{Name: "optCurve", Type: sdk.Boolean, Default: true,
				Description: "optimize Bézier curves: join consecutive curve segments where the result stays within optTolerance"},
			{Name: "optTolerance", Type: sdk.Number, Min: 0, Max: 1, Default: 0.2, Step: 0.01,
				Description: "curve optimization tolerance in pixels: larger values give fewer segments but less accuracy"},
		},
	}
}

// Options returns the tracing options params stand for.
func Options(params sdk.Params) (trace.Options, error) {
	policy, err := trace.ParseTurnPolicy(params.String("turnPolicy"))
	if err != nil {
		return trace.Options{}, sdk.Errorf(sdk.CodeInvalidSettings, "turnPolicy: %v", err)
	}
	return trace.Options{
		TurdSize:     params.Int("turdSize"),
		TurnPolicy:   policy,
		AlphaMax:     params.Number("alphaMax"),
		OptCurve:     params.Bool("optCurve"),
		OptTolerance: params.Number("optTolerance"),
	}, nil
}

// Trace thresholds img, traces it and returns the SVG: one black path element per
// outer boundary, holding its holes as further subpaths.
func (e *Engine) Trace(ctx context.Context, img *image.NRGBA, params sdk.Params) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts, err := Options(params)
	if err != nil {
		return nil, err
	}
	bm := trace.Threshold(img, params.Number("threshold"))
	roots, err := trace.Trace(ctx, bm, opts)
	if err != nil {
		return nil, err
	}
	return trace.Document(bm.Width, bm.Height, roots, Precision), nil
}
