package fidelity

import (
	"context"
	"fmt"
	"image"
	"image/color"

	"github.com/tracecraft/tracecraft/host/internal/vector"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// BandPixels bounds the pixels of the trace painted at once: a larger image is painted in
// bands of rows, so scoring it never holds a second whole image besides the input. An
// image of up to BandPixels pixels is painted whole.
const BandPixels = 1 << 22

// bandPixels is BandPixels, but for tests.
var bandPixels = BandPixels

// minBandRows keeps bands from getting so thin that each path's set-up (flattening,
// sorting its edges), done once per band, dominates.
const minBandRows = 16

// ScoreSVG paints the SVG (an engine's checked SVG, whose viewBox is the image's size)
// at ref's size as resvg would (vector.Paint) and scores it against ref, both over white.
// It stops early, returning ctx's error, when ctx ends.
func ScoreSVG(ctx context.Context, ref image.Image, svg []byte) (Score, error) {
	doc, err := vector.Parse(svg)
	if err != nil {
		return Score{}, err
	}
	w, h := ref.Bounds().Dx(), ref.Bounds().Dy()
	m := NewMeter(w, h)
	ra, rb := make([]float32, 3*w), make([]float32, 3*w)
	rows := max(minBandRows, bandPixels/max(1, w))
	for y0 := 0; y0 < h; y0 += rows {
		y1 := min(h, y0+rows)
		band, err := vector.Paint(ctx, doc, w, h, y0, y1, color.RGBA{255, 255, 255, 255})
		if err != nil {
			return Score{}, err
		}
		for y := y0; y < y1; y++ {
			if y%64 == 0 && ctx.Err() != nil {
				return Score{}, ctx.Err()
			}
			Flatten(ref, y, ra)
			Flatten(band, y-y0, rb)
			m.Add(ra, rb)
		}
	}
	return m.Score(), nil
}

// ScoreFile decodes the image file data as engines do (sdk/raster: upright, at most
// maxPixels pixels) and scores the SVG traced from it against it (see ScoreSVG). data is
// the file the engine traced (tracing.Result.Traced), so a removed background is
// compared as removed.
func ScoreFile(ctx context.Context, data []byte, maxPixels int64, svg []byte) (Score, error) {
	ref, _, err := raster.Decode(data, maxPixels)
	if err != nil {
		return Score{}, fmt.Errorf("decoding the image: %w", err)
	}
	return ScoreSVG(ctx, ref, svg)
}
