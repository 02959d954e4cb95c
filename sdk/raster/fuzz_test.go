package raster_test

import (
	"encoding/binary"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// fuzzMaxPixels keeps each fuzz input's decode small, so the fuzzer explores formats
// rather than waiting on large allocations.
const fuzzMaxPixels = 1 << 16

// FuzzDecode feeds Decode arbitrary bytes, seeded with every fixture and a small image of
// each format Go encodes. Decode must never panic, must answer with an *sdk.Error of a
// known code, and on success return an image of the size its Info states, at the origin.
func FuzzDecode(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil && filepath.Ext(n) != ".md" {
			f.Add(b)
		}
	}
	small := quadrants(8, 6, red, green, blue, transparent)
	f.Add(encPNG(f, small))
	f.Add(encPNG(f, toPaletted(small, []color.Color{red, green, blue, transparent})))
	f.Add(encPNG(f, toNRGBA64(small)))
	f.Add(encJPEG(f, small))
	f.Add(withJPEGExif(encJPEG(f, small), exifBlock(binary.BigEndian, 6, true)))
	f.Add(encBMP(f, small))
	f.Add(encTIFF(f, small, tiff.Deflate))
	f.Add(pngDeclaring(30000, 30000))

	known := map[string]bool{
		sdk.CodeEmptyImage: true, sdk.CodeUnsupportedFormat: true, sdk.CodeTruncatedImage: true,
		sdk.CodeCorruptImage: true, sdk.CodeTooManyPixels: true,
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, info, err := raster.Decode(data, fuzzMaxPixels)
		if err != nil {
			se, ok := err.(*sdk.Error)
			if !ok || !known[se.Code] || se.Message == "" {
				t.Fatalf("error %#v is not an *sdk.Error with a known code and a message", err)
			}
			return
		}
		if img.Rect != image.Rect(0, 0, info.Width, info.Height) || len(img.Pix) < 4*info.Width*info.Height {
			t.Fatalf("image %v (%d bytes) does not match info %+v", img.Rect, len(img.Pix), info)
		}
		if h, err := raster.Header(data); err != nil || h != info {
			t.Fatalf("Header = %+v, %v after Decode gave %+v", h, err, info)
		}
	})
}
