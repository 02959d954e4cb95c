package quantize

import (
	"context"
	"image"
	"image/color"
	"math/rand"
	"slices"
	"testing"
)

// TestHistogramWithListedPixelsCountsAsOnePass checks that adding pixels to a histogram
// with counts.with gives the histogram one pass over all of them gives: the same cells,
// sums and first pixels, in the raster order of their first pixel (median cut depends on
// that order). The flat pixels' histogram plus every opaque edge pixel must equal the
// histogram that counts edges, in any order the edge pixels are listed.
func TestHistogramWithListedPixelsCountsAsOnePass(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, sz := range []struct{ w, h, colours int }{{1, 1, 1}, {17, 9, 3}, {64, 40, 6}, {200, 120, 40}} {
		img := image.NewNRGBA(image.Rect(0, 0, sz.w, sz.h))
		pal := make([]color.NRGBA, sz.colours)
		for i := range pal {
			pal[i] = color.NRGBA{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(100 + rng.Intn(156))}
		}
		// Blocks of one colour with noise, so that both flat and edge pixels occur.
		for y := range sz.h {
			for x := range sz.w {
				c := pal[(x/5+y/4*7)%len(pal)]
				if rng.Intn(6) == 0 {
					c = pal[rng.Intn(len(pal))]
				}
				img.SetNRGBA(x, y, c)
			}
		}
		flat := make([]uint8, sz.w*sz.h)
		if _, _, err := markFlat(context.Background(), img, flat); err != nil {
			t.Fatal(err)
		}
		var edges []int32
		for i, f := range flat {
			if f != 1 && img.Pix[4*i+3] >= 128 {
				edges = append(edges, int32(i))
			}
		}
		rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
		flatOnly, err := histogram(context.Background(), img, flat, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := histogram(context.Background(), img, flat, true)
		if err != nil {
			t.Fatal(err)
		}
		got := flatOnly.with(img, sz.w, edges)
		if !slices.Equal(got.keys, want.keys) || !slices.Equal(got.first, want.first) || !slices.Equal(got.sums, want.sums) {
			t.Errorf("%dx%d: flat histogram with %d edge pixels has %d cells %v first %v, want %d cells %v first %v",
				sz.w, sz.h, len(edges), len(got.keys), got.keys, got.first, len(want.keys), want.keys, want.first)
		}
		if len(flatOnly.keys) > len(want.keys) {
			t.Errorf("%dx%d: with changed its receiver", sz.w, sz.h)
		}
	}
}
