// Package engine is the vtracer engine of Tracecraft: VTracer's colour tracer (package
// trace) behind the sdk.Engine contract, with the parameters of the service
// specification, section 2.6.
package engine

import (
	"context"
	"image"

	"github.com/tracecraft/tracecraft/plugins/vtracer/trace"
	"github.com/tracecraft/tracecraft/sdk"
)

// Engine traces images the way VTracer does. The zero value is ready to use.
type Engine struct{}

var _ sdk.Engine[Params] = (*Engine)(nil)

// New returns a vtracer engine.
func New() *Engine { return &Engine{} }

// Describe returns the engine's name and its parameters (service specification 2.6).
func (*Engine) Describe() sdk.Descriptor {
	return sdk.Descriptor{
		Name:        "vtracer",
		Version:     "1.0.0",
		Stability:   sdk.Stable,
		Description: "VTracer's classic colour tracer: stacked layers of colour clusters with smooth spline outlines, good for posters, illustrations and photographs.",
		Params:      sdk.Describe[Params](),
	}
}

// Trace converts img into an SVG document. Parameters out of range (which the host
// rejects before calling) give an sdk.Error with code sdk.CodeInvalidSettings.
func (*Engine) Trace(ctx context.Context, img *image.NRGBA, p Params) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o, err := Options(p)
	if err != nil {
		return nil, err
	}
	return trace.Trace(ctx, img, o)
}
