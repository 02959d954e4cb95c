// Package selector holds the presets and the rule that picks one for an image when a
// client leaves the choice to the service (preset or engine "auto"): flat images go to
// tracecraft, complex ones to vtracer, monochrome ones to potrace.
package selector

import (
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
	"github.com/tracecraft/tracecraft/host/internal/settings"
	"github.com/tracecraft/tracecraft/sdk/analysis"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// The preset categories, in the order the schema lists them.
const (
	Logo    = "logo"
	Poster  = "poster"
	Photo   = "photo"
	Lineart = "lineart"
)

// Presets returns the bundled presets. Each is an engine and the parameters it sets;
// the other parameters keep the engine's defaults. They were tuned on the bench corpus
// (scripts/tune-presets.sh) so that each beats, on its own category, every engine at its
// defaults in median SSIM with no more bytes than the best of them; the README gives the
// figures.
func Presets() []settings.Preset {
	return []settings.Preset{
		{Name: Logo, Engine: "tracecraft", Description: "flat logos, icons, brand marks: tracecraft with shapes stacked for editing and a tighter fit",
			Params: map[string]any{"shapeStacking": "stacked", "tolerance": 0.4}},
		{Name: Photo, Engine: "vtracer", Description: "photographs and smooth gradients: vtracer with full colour precision, finer gradient layers and 0.1 px coordinates",
			Params: map[string]any{"colorPrecision": 8.0, "gradientStep": 14.0, "pathPrecision": 1.0}},
		{Name: Poster, Engine: "tracecraft", Description: "illustrations and bold flat shapes: tracecraft with shapes stacked for editing and a tighter fit",
			Params: map[string]any{"shapeStacking": "stacked", "tolerance": 0.4}},
		{Name: Lineart, Engine: "potrace", Description: "sketches, engravings, text, monochrome art: potrace keeping corners sharp, in the ink's own colour, with a local threshold for pages in uneven light; photographs of pages (smooth shading) go to vtracer in full colour precision",
			Params: map[string]any{"alphaMax": 0.1, "thresholdMode": "auto", "ink": "image"},
			Variants: []settings.Variant{{Name: Shaded, When: "a gray image with smooth shading (a photograph of a page or of a drawing): black and white cannot hold its paper's shades",
				Engine: "vtracer", Params: map[string]any{"colorPrecision": 8.0, "gradientStep": 14.0, "pathPrecision": 1.0, "filterSpeckle": 2.0}}}},
	}
}

// Shaded is the variant of the lineart preset for images with smooth shading.
const Shaded = "shaded"

// PreferredAnalyzers are the engines whose processes measure images for Choose, in
// order of preference, when nothing hints at the likely choice; also the engines an
// auto choice falls back to when its category's engine is not installed.
var PreferredAnalyzers = []string{"tracecraft", "vtracer", "potrace"}

// NamedOnly are the stable bundled engines traced only when a request names them:
// an auto choice never picks them, nor falls back to them. The centre-line engine
// draws each line as one stroke, for a pen plotter or an engraver, which a client
// asks for; as the trace of an image chosen for it, it would surprise one who did not.
var NamedOnly = []string{"centerline"}

// photoBytesPerPixel: a compressed file this large per pixel holds a photograph's
// noise; flat art compresses to a small fraction of it.
const photoBytesPerPixel = 0.6

// LikelyEngines orders the engines by how likely Choose is to pick them for the image,
// from its file alone (format, PNG colour type, bytes per pixel) and the header info
// already read from it: the engine that measures the image then traces it too when it
// is the one chosen, without decoding it again. A wrong guess costs one decode, never a
// wrong choice.
func LikelyEngines(data []byte, info imagecheck.Info) []string {
	if info.Pixels() == 0 {
		return PreferredAnalyzers
	}
	// PNG colour type (IHDR byte 25): 0 gray, 4 gray with alpha.
	grayPNG := info.Format == string(raster.PNG) && len(data) > 25 && (data[25] == 0 || data[25] == 4)
	switch {
	case grayPNG:
		return []string{"potrace", "tracecraft", "vtracer"}
	case info.Format == string(raster.JPEG) || float64(len(data))/float64(info.Pixels()) > photoBytesPerPixel:
		return []string{"vtracer", "tracecraft", "potrace"}
	}
	return PreferredAnalyzers
}

// Thresholds of Choose. Each separates two kinds of image by a property they differ in
// widely, with room on both sides; none is tuned to a single image.
const (
	// monochromeGray: nearly every opaque pixel is a shade of gray.
	monochromeGray = 0.97
	// fewTones: the 4 commonest colours cover this much of a drawing or a print; a
	// photograph spreads over many more.
	fewTones = 0.85
	// denseStrokes: more edges than this (share of pixels) is text or hatching, not a
	// photograph's occasional contour.
	denseStrokes = 0.10
	// iconOutline: edges per opaque pixel below this, on a transparent canvas, is a
	// filled glyph (an icon), not a line drawing.
	iconOutline = 0.07
	// flatShading: flat art has little smooth shading; photographs have a lot.
	flatShading = 0.15
	// logoColors: a logo's 4 commonest colours cover nearly all of it.
	logoColors = 0.9
)

// Variant returns the variant of the preset called preset that applies to an image with
// the features f, or "" for the preset's own settings: a gray image with as much smooth
// shading as a photograph (a page in uneven light, a photographed sketch) is traced in
// colour under lineart, since black and white loses its paper's shades.
func Variant(preset string, f map[string]float64) string {
	if preset == Lineart && f[analysis.GrayShare] > monochromeGray && f[analysis.GradientShare] >= flatShading {
		return Shaded
	}
	return ""
}

// runnersUp lists, for each category, the categories whose settings are the next most
// likely to trace its images best, in order: a category's neighbours in Choose's rule.
var runnersUp = map[string][]string{
	Lineart: {Logo},          // ink drawings traced as colour regions keep their anti-aliasing
	Logo:    {Poster, Photo}, // a logo with shading is closer to an illustration or a photograph
	Poster:  {Photo},         // an illustration with smooth areas may be a photograph
	Photo:   {Poster},        // a photograph with large flat areas may trace best as flat art
}

// Candidates returns the choices preset best traces an image with the features f with,
// most likely first: Choose's category and its runners-up, each with its variant. A gray
// image's first runner-up is lineart, its neighbour in Choose's rule (a gray photograph
// and a photographed page differ only in stroke density). Duplicates of settings are the
// caller's to remove.
func Candidates(f map[string]float64) []settings.Choice {
	first := Choose(f)
	out := []settings.Choice{{Category: first, Variant: Variant(first, f)}}
	next := runnersUp[first]
	if first != Lineart && f[analysis.GrayShare] > monochromeGray {
		next = append([]string{Lineart}, next...)
	}
	for _, c := range next {
		out = append(out, settings.Choice{Category: c, Variant: Variant(c, f)})
	}
	return out
}

// Thresholds of Unambiguous: regions of the measures where Choose's category alone lost
// at most 0.0052 SSIM to the best setting on each of the 15 images of the design half of
// the labelled set (issue 20) that fall in them; set on that half only, never on the
// bench corpus.
const (
	// flatFineColours: the 16 commonest colours at 6 bits per channel cover this much of
	// flat art: no slow gradient, no texture to trace.
	flatFineColours = 0.9
	// photoTexture and photoFineColours: a photograph's grain or texture covers over
	// half of its pixels off edges, and its colours spread so that the 16 commonest at 6
	// bits cover less than this. Drawn art with smooth gradients has far less texture;
	// small shaded icons as much, but with their colours gathered.
	photoTexture     = 0.5
	photoFineColours = 0.35
)

// Unambiguous reports whether the features f leave no doubt about Choose's category:
// flat art with few colours (even at 6 bits per channel) for logo and poster, a
// textured photograph with colours spread wide for photo. Line art is never
// unambiguous: a glyph traced in black and white and the same glyph traced as colour
// regions keeping its anti-aliasing each win on about half of the line art measured.
// An engine measuring with an older sdk reports neither texture nor 6-bit colours, and
// its images are ambiguous.
func Unambiguous(f map[string]float64) bool {
	switch Choose(f) {
	case Logo, Poster:
		return f[analysis.Top16FineShare] >= flatFineColours
	case Photo:
		return f[analysis.TextureShare] >= photoTexture && f[analysis.Top16FineShare] > 0 && f[analysis.Top16FineShare] < photoFineColours
	}
	return false
}

// AutoCandidates returns the settings auto traces an image with the features f with:
// Choose's category alone when the measures are unambiguous; otherwise also its
// runner-up (Candidates), traced at once, and the trace with the higher quality score
// is kept, as preset best does. Duplicates of settings are the caller's to remove.
func AutoCandidates(f map[string]float64) []settings.Choice {
	c := Candidates(f)
	if Unambiguous(f) || len(c) == 1 {
		return c[:1]
	}
	return c
}

// Choose returns the preset category for an image's features (see package analysis).
//
// The rule, in order:
//   - line art: a gray image with few tones or dense strokes (ink on paper, scanned
//     text), unless it is a single filled glyph on a transparent canvas (an icon);
//   - logo: 4 colours cover nearly all of it and it has little smooth shading;
//   - poster: little smooth shading, any number of colours;
//   - photo: everything else (smooth shading: photographs, gradients).
func Choose(f map[string]float64) string {
	gray := f[analysis.GrayShare] > monochromeGray
	opaque := 1 - f[analysis.TransparentShare]
	icon := f[analysis.TransparentShare] > 0.05 && opaque > 0 && f[analysis.EdgeShare]/opaque < iconOutline
	switch {
	case gray && !icon && (f[analysis.Top4Share] > fewTones || f[analysis.EdgeShare] > denseStrokes):
		return Lineart
	case f[analysis.Top4Share] > logoColors && f[analysis.GradientShare] < flatShading:
		return Logo
	case f[analysis.GradientShare] < flatShading:
		return Poster
	}
	return Photo
}
