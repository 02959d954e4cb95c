package engine

import (
	"strings"

	"github.com/tracecraft/tracecraft/plugins/vtracer/trace"
	"github.com/tracecraft/tracecraft/sdk"
)

// Parameter names, as in the service specification (section 2.6).
const (
	pColorMode       = "colorMode"
	pHierarchical    = "hierarchical"
	pMode            = "mode"
	pPreset          = "preset"
	pFilterSpeckle   = "filterSpeckle"
	pColorPrecision  = "colorPrecision"
	pGradientStep    = "gradientStep"
	pCornerThreshold = "cornerThreshold"
	pSegmentLength   = "segmentLength"
	pSpliceThreshold = "spliceThreshold"
	pPathPrecision   = "pathPrecision"
)

// maxIterations is VTracer's max_iterations: subdivision passes of the smoothing.
const maxIterations = 10

// params is the engine's parameter schema, in the specification's order. Each
// description starts with the specification's words.
var params = []sdk.Param{
	{Name: pColorMode, Type: sdk.Enum, Values: []string{"color", "bw"}, Default: "color",
		Description: "color traces every colour; bw traces the dark areas of the image (composited over white) as black shapes"},
	{Name: pHierarchical, Type: sdk.Enum, Values: []string{"stacked", "cutout"}, Default: "stacked",
		Description: "stacked draws shapes on top of each other, larger first (fewer, hole-free shapes); cutout cuts each shape out of the ones below so that no shapes overlap"},
	{Name: pMode, Type: sdk.Enum, Values: []string{"spline", "polygon", "pixel"}, Default: "spline",
		Description: "spline fits smooth curves, polygon keeps the simplified straight-edged outline, pixel keeps the exact pixel outline"},
	{Name: pPreset, Type: sdk.Enum, Values: []string{"none", "bw", "poster", "photo"}, Default: "none",
		Description: "applies VTracer's preset (bw: black and white; poster: color precision 8; photo: speckle 10, color precision 8, gradient step 48, corner threshold 180) to the parameters not given explicitly"},
	{Name: pFilterSpeckle, Type: sdk.Number, Min: 0, Max: 128, Default: 4.0, Integer: true,
		Description: "suppress speckles up to this pixel size: areas smaller than its square are merged into their neighbours"},
	{Name: pColorPrecision, Type: sdk.Number, Min: 1, Max: 8, Default: 6.0, Integer: true,
		Description: "significant bits for color quantization: pixels that agree on this many bits per channel form one area"},
	{Name: pGradientStep, Type: sdk.Number, Min: 0, Max: 256, Default: 16.0, Integer: true,
		Description: "color difference between gradient layers: a merge that changes the color by more keeps a separate shape"},
	{Name: pCornerThreshold, Type: sdk.Number, Min: 0, Max: 180, Default: 60.0,
		Description: "angle threshold for corners, degrees: a turn at least this sharp stays a corner in spline mode"},
	{Name: pSegmentLength, Type: sdk.Number, Min: 3.5, Max: 10, Default: 4.0,
		Description: "max segment length before subdivision: smoothing subdivides edges until they are this short (pixels)"},
	{Name: pSpliceThreshold, Type: sdk.Number, Min: 0, Max: 180, Default: 45.0,
		Description: "angle threshold for splicing, degrees: a curve is split into a new Bézier segment once it has turned this much"},
	{Name: pPathPrecision, Type: sdk.Number, Min: 1, Max: 8, Default: 8.0, Integer: true,
		Description: "decimal precision for path coordinates"},
}

// presets are VTracer's own presets (its command line's --preset), as the values they
// give the parameters. Parameters a preset does not name keep their defaults.
var presets = map[string]map[string]any{
	"bw": {pColorMode: "bw", pHierarchical: "stacked", pFilterSpeckle: 4.0, pColorPrecision: 6.0,
		pGradientStep: 16.0, pMode: "spline", pCornerThreshold: 60.0, pSegmentLength: 4.0, pSpliceThreshold: 45.0},
	"poster": {pColorMode: "color", pHierarchical: "stacked", pFilterSpeckle: 4.0, pColorPrecision: 8.0,
		pGradientStep: 16.0, pMode: "spline", pCornerThreshold: 60.0, pSegmentLength: 4.0, pSpliceThreshold: 45.0},
	"photo": {pColorMode: "color", pHierarchical: "stacked", pFilterSpeckle: 10.0, pColorPrecision: 8.0,
		pGradientStep: 48.0, pMode: "spline", pCornerThreshold: 180.0, pSegmentLength: 4.0, pSpliceThreshold: 45.0},
}

// Resolved returns the value of every parameter for one trace: the client's where it
// gave one, else the preset's, else the default.
func Resolved(p sdk.Params) map[string]any {
	preset := presets[p.String(pPreset)]
	given := p.Values()
	out := make(map[string]any, len(params))
	for _, d := range params {
		v := given[d.Name]
		if pv, ok := preset[d.Name]; ok && !p.Given(d.Name) {
			v = pv
		}
		out[d.Name] = v
	}
	return out
}

// Options returns the tracing options p stands for (see Resolved), or an
// sdk.CodeInvalidSettings error naming every value outside the schema.
func Options(p sdk.Params) (trace.Options, error) {
	vals := Resolved(p)
	var problems []string
	for _, d := range params {
		if msg := d.Check(vals[d.Name]); msg != "" {
			problems = append(problems, d.Name+" "+msg)
		}
	}
	if len(problems) > 0 {
		return trace.Options{}, sdk.Errorf(sdk.CodeInvalidSettings, "vtracer: %s", strings.Join(problems, "; "))
	}
	num := func(name string) float64 { return vals[name].(float64) }
	whole := func(name string) int { return int(num(name)) }
	o := trace.Options{
		BW:              vals[pColorMode] == "bw",
		Cutout:          vals[pHierarchical] == "cutout",
		FilterSpeckle:   whole(pFilterSpeckle),
		ColorPrecision:  whole(pColorPrecision),
		LayerDifference: whole(pGradientStep),
		CornerThreshold: num(pCornerThreshold),
		LengthThreshold: num(pSegmentLength),
		MaxIterations:   maxIterations,
		SpliceThreshold: num(pSpliceThreshold),
		PathPrecision:   whole(pPathPrecision),
	}
	switch vals[pMode] {
	case "polygon":
		o.Mode = trace.Polygon
	case "pixel":
		o.Mode = trace.Pixel
	}
	return o, nil
}
