package sdk

import (
	"bytes"
	"image"
	"image/draw"
	_ "image/jpeg" // register decoders for the interim decoder
	_ "image/png"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"
)

// decodeStd is the interim decoder used until package raster lands: the standard
// decoders, the pixel limit from the header, a conversion to NRGBA.
func decodeStd(data []byte, maxPixels int64) (*image.NRGBA, error) {
	if len(data) == 0 {
		return nil, Errorf(CodeEmptyImage, "the image is empty")
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, Errorf(CodeCorruptImage, "the image cannot be read: %v", err)
	}
	if maxPixels > 0 && int64(cfg.Width)*int64(cfg.Height) > maxPixels {
		return nil, Errorf(CodeTooManyPixels, "the image has %d x %d pixels, over the limit of %d", cfg.Width, cfg.Height, maxPixels)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, Errorf(CodeCorruptImage, "the image cannot be decoded: %v", err)
	}
	if n, ok := img.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) {
		return n, nil
	}
	b := img.Bounds()
	n := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(n, n.Rect, img, b.Min, draw.Src)
	return n, nil
}
