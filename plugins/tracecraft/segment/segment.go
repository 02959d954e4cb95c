// Package segment turns an image into the segmentation the tracers of Tracecraft share:
// a palette (package quantize), a map of regions with their colours (package regions)
// and the planar map of their boundaries (package planar). tracecraft draws the regions
// with fitted curves; other engines can draw the same segmentation their own way.
package segment

import (
	"context"
	"image"
	"image/color"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/planar"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/quantize"
	"github.com/tracecraft/tracecraft/plugins/tracecraft/regions"
	"github.com/tracecraft/tracecraft/sdk"
)

// Options control Segment.
//
// Its tags declare the fields as engine parameters (see sdk.Describe), so that tracecraft
// and the engines built on its segmentation embed Options in their parameters and share
// one declaration of maxColors and minRegion.
type Options struct {
	// MaxColors bounds the palette (2..256).
	MaxColors int `param:"maxColors" min:"2" max:"256" default:"16" desc:"palette size for median-cut quantization: colours are picked in the Oklab perceptual space, weighted by pixel count, and the output uses at most this many"`
	// MinRegion is the size in pixels below which a region merges into its most
	// similar neighbour.
	MinRegion int `param:"minRegion" min:"0" max:"1024" default:"25" desc:"merge regions smaller than this many pixels: each joins its most similar neighbour (0 keeps every region)"`
	// Palette, when not empty, holds the only colours the output may use (CSS colours,
	// as sdk.ParseColor reads them, their alpha ignored).
	Palette []string `param:"palette" format:"color" maxItems:"256" desc:"the only colours the output may use, as CSS colours (for example [\"#1d3557\", \"white\"]): each colour of the quantized palette becomes the nearest of them in Oklab, neighbouring regions that end up the same colour merge, and no other colour appears; an alpha is ignored (palette colours are opaque); empty or not given means no constraint"`
}

// Segmentation is an image cut into flat-coloured regions.
type Segmentation struct {
	// Quant is the palette and each pixel's palette index before merging.
	Quant *quantize.Result
	// Regions is the region of each pixel and each region's colour.
	Regions *regions.Map
	// Planar holds the shared boundaries and each region's rings of them.
	Planar *planar.Map
}

// Segment quantises img, finds its regions, merges the small ones and builds the planar
// map. img must be non-empty; its bounds need not start at (0, 0).
func Segment(ctx context.Context, img *image.NRGBA, opt Options) (*Segmentation, error) {
	seg, err := Regions(ctx, img, opt)
	if err != nil {
		return nil, err
	}
	if seg.Planar, err = planar.Build(ctx, seg.Regions); err != nil {
		return nil, err
	}
	return seg, nil
}

// Regions is Segment without the planar map (Planar is nil), for engines that draw the
// regions from their pixels (potrace2).
func Regions(ctx context.Context, img *image.NRGBA, opt Options) (*Segmentation, error) {
	if img.Rect.Min != (image.Point{}) {
		img = &image.NRGBA{Pix: img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y):], Stride: img.Stride,
			Rect: image.Rect(0, 0, img.Rect.Dx(), img.Rect.Dy())}
	}
	q, err := quantize.Quantize(ctx, img, quantize.Options{MaxColors: opt.MaxColors})
	if err != nil {
		return nil, err
	}
	if len(opt.Palette) > 0 {
		to, err := parsePalette(opt.Palette)
		if err != nil {
			return nil, err
		}
		q.Restrict(to)
	}
	rm, err := regions.Build(ctx, img, q, regions.Options{MinRegion: opt.MinRegion})
	if err != nil {
		return nil, err
	}
	return &Segmentation{Quant: q, Regions: rm}, nil
}

// parsePalette parses the palette parameter's colours, opaque: an alpha is ignored. The sdk has checked them when they
// came through the parameters; a caller that sets Options directly gets an
// invalid_settings error naming the first bad one.
func parsePalette(list []string) ([]color.NRGBA, error) {
	out := make([]color.NRGBA, len(list))
	for i, s := range list {
		c, err := sdk.ParseColor(s)
		if err != nil {
			return nil, sdk.Errorf(sdk.CodeInvalidSettings, "palette[%d] %q is not a CSS colour", i, s)
		}
		c.A = 255 // palettes are inks: opaque
		out[i] = c
	}
	return out, nil
}
