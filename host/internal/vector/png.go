package vector

import (
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
)

// Rasterize paints the document on a transparent w x h raster, the viewBox stretched
// over it, as resvg renders it (see Paint). It stops early, returning ctx's error, when
// ctx ends.
func Rasterize(ctx context.Context, d *Document, w, h int) (*image.RGBA, error) {
	return Paint(ctx, d, w, h, 0, h, color.RGBA{})
}

// WritePNG rasterises the document at w x h pixels and writes it as a PNG.
func WritePNG(ctx context.Context, out io.Writer, d *Document, w, h int) error {
	img, err := Rasterize(ctx, d, w, h)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return enc.Encode(out, img)
}
