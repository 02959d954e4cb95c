package engine

import (
	"github.com/tracecraft/tracecraft/plugins/vtracer/trace"
	"github.com/tracecraft/tracecraft/sdk"
)

// maxIterations is VTracer's max_iterations: subdivision passes of the smoothing.
const maxIterations = 10

// Params are the engine's parameters, in the specification's order. Each description
// starts with the specification's words. The parameters a preset sets are Explicit: a
// preset yields to the values the client gives.
type Params struct {
	ColorMode       sdk.Explicit[string]  `param:"colorMode" enum:"color,bw" default:"color" desc:"color traces every colour; bw traces the dark areas of the image (composited over white) as black shapes"`
	Hierarchical    sdk.Explicit[string]  `param:"hierarchical" enum:"stacked,cutout" default:"stacked" desc:"stacked draws shapes on top of each other, larger first (fewer, hole-free shapes); cutout cuts each shape out of the ones below so that no shapes overlap"`
	Mode            sdk.Explicit[string]  `param:"mode" enum:"spline,polygon,pixel" default:"spline" desc:"spline fits smooth curves, polygon keeps the simplified straight-edged outline, pixel keeps the exact pixel outline"`
	Preset          string                `param:"preset" enum:"none,bw,poster,photo" default:"none" desc:"applies VTracer's preset (bw: black and white; poster: color precision 8; photo: speckle 10, color precision 8, gradient step 48, corner threshold 180) to the parameters not given explicitly"`
	FilterSpeckle   sdk.Explicit[int]     `param:"filterSpeckle" min:"0" max:"128" default:"4" desc:"suppress speckles up to this pixel size: areas smaller than its square are merged into their neighbours"`
	ColorPrecision  sdk.Explicit[int]     `param:"colorPrecision" min:"1" max:"8" default:"6" desc:"significant bits for color quantization: pixels that agree on this many bits per channel form one area"`
	GradientStep    sdk.Explicit[int]     `param:"gradientStep" min:"0" max:"256" default:"16" desc:"color difference between gradient layers: a merge that changes the color by more keeps a separate shape"`
	CornerThreshold sdk.Explicit[float64] `param:"cornerThreshold" min:"0" max:"180" default:"60" desc:"angle threshold for corners, degrees: a turn at least this sharp stays a corner in spline mode"`
	SegmentLength   sdk.Explicit[float64] `param:"segmentLength" min:"3.5" max:"10" default:"4" desc:"max segment length before subdivision: smoothing subdivides edges until they are this short (pixels)"`
	SpliceThreshold sdk.Explicit[float64] `param:"spliceThreshold" min:"0" max:"180" default:"45" desc:"angle threshold for splicing, degrees: a curve is split into a new Bézier segment once it has turned this much"`
	PathPrecision   int                   `param:"pathPrecision" min:"1" max:"8" default:"8" desc:"decimal precision for path coordinates"`
	Palette         []string              `param:"palette" format:"color" maxItems:"256" desc:"the only colours the output may use, as CSS colours (for example [\"#1d3557\", \"white\"]): each colour cluster is painted with the nearest of them (least sum of red, green and blue differences, VTracer's colour difference), a cluster that ends up its parent's colour merges into it, and no other colour appears; an alpha is ignored (palette colours are opaque; a translucent cluster keeps its opacity); empty or not given means no constraint"`
}

// preset is the values a preset gives the parameters it names.
type preset struct {
	colorMode, hierarchical, mode                   string
	filterSpeckle, colorPrecision, gradientStep     int
	cornerThreshold, segmentLength, spliceThreshold float64
}

// presets are VTracer's own presets (its command line's --preset). A preset names every
// parameter it sets.
var presets = map[string]preset{
	"bw":     {colorMode: "bw", hierarchical: "stacked", filterSpeckle: 4, colorPrecision: 6, gradientStep: 16, mode: "spline", cornerThreshold: 60, segmentLength: 4, spliceThreshold: 45},
	"poster": {colorMode: "color", hierarchical: "stacked", filterSpeckle: 4, colorPrecision: 8, gradientStep: 16, mode: "spline", cornerThreshold: 60, segmentLength: 4, spliceThreshold: 45},
	"photo":  {colorMode: "color", hierarchical: "stacked", filterSpeckle: 10, colorPrecision: 8, gradientStep: 48, mode: "spline", cornerThreshold: 180, segmentLength: 4, spliceThreshold: 45},
}

// orPreset sets e to v unless the client gave it.
func orPreset[T any](e *sdk.Explicit[T], v T) {
	if !e.Given {
		e.Value = v
	}
}

// Resolved returns p with its preset applied: every parameter the preset names and the
// client did not give takes the preset's value.
func Resolved(p Params) Params {
	pr, ok := presets[p.Preset]
	if !ok {
		return p
	}
	orPreset(&p.ColorMode, pr.colorMode)
	orPreset(&p.Hierarchical, pr.hierarchical)
	orPreset(&p.Mode, pr.mode)
	orPreset(&p.FilterSpeckle, pr.filterSpeckle)
	orPreset(&p.ColorPrecision, pr.colorPrecision)
	orPreset(&p.GradientStep, pr.gradientStep)
	orPreset(&p.CornerThreshold, pr.cornerThreshold)
	orPreset(&p.SegmentLength, pr.segmentLength)
	orPreset(&p.SpliceThreshold, pr.spliceThreshold)
	return p
}

// Options returns the tracing options p stands for (see Resolved), or an
// sdk.CodeInvalidSettings error naming every value outside the schema.
func Options(p Params) (trace.Options, error) {
	p = Resolved(p)
	if err := sdk.Check(p); err != nil {
		return trace.Options{}, sdk.Errorf(sdk.CodeInvalidSettings, "vtracer: %s", err.(*sdk.Error).Message)
	}
	o := trace.Options{
		BW:              p.ColorMode.Value == "bw",
		Cutout:          p.Hierarchical.Value == "cutout",
		FilterSpeckle:   p.FilterSpeckle.Value,
		ColorPrecision:  p.ColorPrecision.Value,
		LayerDifference: p.GradientStep.Value,
		CornerThreshold: p.CornerThreshold.Value,
		LengthThreshold: p.SegmentLength.Value,
		MaxIterations:   maxIterations,
		SpliceThreshold: p.SpliceThreshold.Value,
		PathPrecision:   p.PathPrecision,
	}
	for _, s := range p.Palette {
		c, err := sdk.ParseColor(s)
		if err != nil {
			return trace.Options{}, sdk.Errorf(sdk.CodeInvalidSettings, "vtracer: palette colour %q is not a CSS colour", s)
		}
		c.A = 255 // palettes are inks: opaque
		o.Palette = append(o.Palette, c)
	}
	switch p.Mode.Value {
	case "polygon":
		o.Mode = trace.Polygon
	case "pixel":
		o.Mode = trace.Pixel
	}
	return o, nil
}
