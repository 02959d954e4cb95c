package raster_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"strings"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// TestDecodeReadsEveryFormatAndVariant decodes one image per format and variant, made by
// Go's encoders where they can and taken from testdata/ where they cannot, and checks its
// size and where its coloured blocks landed.
func TestDecodeReadsEveryFormatAndVariant(t *testing.T) {
	opaque := quadProbes(fixW, fixH, red, green, blue, yellow)
	alpha := quadProbes(fixW, fixH, red, green, blue, transparent)
	grayProbes := quadProbes(fixW, fixH, grayOf(red), grayOf(green), grayOf(blue), grayOf(yellow))
	// ImageMagick converts to gray with Rec. 709 weights.
	imGray := quadProbes(fixW, fixH, gray709(red), gray709(green), gray709(blue), gray709(yellow))
	imGrayAlpha := quadProbes(fixW, fixH, gray709(red), gray709(green), gray709(blue), transparent)
	pal := color.Palette{red, green, blue, yellow}
	palTRNS := color.Palette{red, green, blue, transparent}
	// The first frame of the animations is the middle 16 x 8 of baseAlpha, placed at
	// (8, 4) on a transparent 32 x 16 canvas.
	animated := []probe{{10, 5, red}, {20, 5, green}, {10, 10, blue}, {20, 10, transparent}, {2, 2, transparent}, {28, 14, transparent}, {4, 12, transparent}}

	tests := []struct {
		name   string
		data   func(t *testing.T) []byte
		format raster.Format
		probes []probe
		tol    int
	}{
		{"png rgba 8-bit", func(t *testing.T) []byte { return encPNG(t, baseAlpha()) }, raster.PNG, alpha, 0},
		{"png rgb 8-bit", func(t *testing.T) []byte { return encPNG(t, toRGBA(base())) }, raster.PNG, opaque, 0},
		{"png rgb 16-bit", func(t *testing.T) []byte { return encPNG(t, toRGBA64(base())) }, raster.PNG, opaque, 0},
		{"png rgba 16-bit", func(t *testing.T) []byte { return encPNG(t, toNRGBA64(baseAlpha())) }, raster.PNG, alpha, 0},
		{"png gray 8-bit", func(t *testing.T) []byte { return encPNG(t, toGray(base())) }, raster.PNG, grayProbes, 0},
		{"png gray 16-bit", func(t *testing.T) []byte { return encPNG(t, toGray16(base())) }, raster.PNG, grayProbes, 1},
		{"png palette", func(t *testing.T) []byte { return encPNG(t, toPaletted(base(), pal)) }, raster.PNG, opaque, 0},
		{"png palette with tRNS", func(t *testing.T) []byte { return encPNG(t, toPaletted(baseAlpha(), palTRNS)) }, raster.PNG, alpha, 0},
		{"png gray+alpha 8-bit", file("png-gray-alpha8.png"), raster.PNG, imGrayAlpha, 1},
		{"png gray+alpha 16-bit", file("png-gray-alpha16.png"), raster.PNG, imGrayAlpha, 1},
		{"png interlaced", file("png-interlaced.png"), raster.PNG, alpha, 0},

		{"jpeg ycbcr", func(t *testing.T) []byte { return encJPEG(t, base()) }, raster.JPEG, opaque, 24},
		{"jpeg gray", func(t *testing.T) []byte { return encJPEG(t, toGray(base())) }, raster.JPEG, grayProbes, 8},
		{"jpeg progressive", file("jpeg-progressive.jpg"), raster.JPEG, opaque, 24},
		{"jpeg cmyk (adobe)", file("jpeg-cmyk.jpg"), raster.JPEG, opaque, 24},

		{"webp lossy", file("webp-lossy.webp"), raster.WebP, opaque, 24},
		{"webp lossless", file("webp-lossless.webp"), raster.WebP, opaque, 0},
		{"webp lossy with alpha", file("webp-lossy-alpha.webp"), raster.WebP, alpha, 24},
		{"webp lossless with alpha", file("webp-lossless-alpha.webp"), raster.WebP, alpha, 0},
		{"webp animated, lossless first frame at an offset", file("webp-animated.webp"), raster.WebP, animated, 0},
		{"webp animated, lossy+alpha first frame at an offset", file("webp-animated-lossy-alpha.webp"), raster.WebP, animated, 24},

		{"bmp 24-bit", func(t *testing.T) []byte { return encBMP(t, base()) }, raster.BMP, opaque, 0},
		// x/image/bmp writes 32-bit pixels under a 40-byte header, whose fourth byte
		// readers (browsers included) take as padding, not alpha.
		{"bmp 32-bit, alpha ignored", func(t *testing.T) []byte { return encBMP(t, baseAlpha()) }, raster.BMP,
			quadProbes(fixW, fixH, red, green, blue, color.NRGBA{0, 0, 0, 255}), 0},
		{"bmp 32-bit with alpha (v5 header)", file("bmp-v5-alpha.bmp"), raster.BMP, alpha, 0},
		{"bmp 8-bit palette", func(t *testing.T) []byte { return encBMP(t, toPaletted(base(), pal)) }, raster.BMP, opaque, 0},
		{"bmp gray", func(t *testing.T) []byte { return encBMP(t, toGray(base())) }, raster.BMP, grayProbes, 0},

		{"tiff rgba", func(t *testing.T) []byte { return encTIFF(t, toRGBA(base()), tiff.Uncompressed) }, raster.TIFF, opaque, 0},
		{"tiff nrgba deflate", func(t *testing.T) []byte { return encTIFF(t, baseAlpha(), tiff.Deflate) }, raster.TIFF, alpha, 0},
		{"tiff gray", func(t *testing.T) []byte { return encTIFF(t, toGray(base()), tiff.Uncompressed) }, raster.TIFF, grayProbes, 0},
		{"tiff gray 16-bit (go)", func(t *testing.T) []byte { return encTIFF(t, toGray16(base()), tiff.Deflate) }, raster.TIFF, grayProbes, 1},
		{"tiff rgba 16-bit (go)", func(t *testing.T) []byte { return encTIFF(t, toNRGBA64(baseAlpha()), tiff.Uncompressed) }, raster.TIFF, alpha, 0},
		{"tiff palette", func(t *testing.T) []byte { return encTIFF(t, toPaletted(base(), pal), tiff.Deflate) }, raster.TIFF, opaque, 0},
		{"tiff lzw", file("tiff-lzw.tif"), raster.TIFF, opaque, 0},
		{"tiff rgb 16-bit deflate (libtiff)", file("tiff-rgb16-deflate.tif"), raster.TIFF, opaque, 0},
		{"tiff rgba 16-bit (libtiff)", file("tiff-rgba16.tif"), raster.TIFF, alpha, 0},
		{"tiff gray 16-bit (libtiff)", file("tiff-gray16.tif"), raster.TIFF, imGray, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data(t)
			img, info, err := raster.Decode(data, 0)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			want := raster.Info{Format: tt.format, Width: fixW, Height: fixH, Orientation: 1}
			if info != want {
				t.Errorf("info = %+v, want %+v", info, want)
			}
			if img.Rect != image.Rect(0, 0, fixW, fixH) {
				t.Fatalf("Rect = %v, want %v", img.Rect, image.Rect(0, 0, fixW, fixH))
			}
			checkProbes(t, img, tt.probes, tt.tol)
		})
	}
}

func file(name string) func(t *testing.T) []byte {
	return func(t *testing.T) []byte { return fixture(t, name) }
}

// orientationLayouts says, for each EXIF orientation applied to base(), the upright size
// and the colours of its top-left, top-right, bottom-left and bottom-right quarters.
var orientationLayouts = map[int]struct {
	w, h           int
	tl, tr, bl, br color.NRGBA
}{
	1: {32, 16, red, green, blue, yellow},
	2: {32, 16, green, red, yellow, blue}, // mirrored left-right
	3: {32, 16, yellow, blue, green, red}, // rotated 180°
	4: {32, 16, blue, yellow, red, green}, // mirrored top-bottom
	5: {16, 32, red, blue, green, yellow}, // transposed
	6: {16, 32, blue, red, yellow, green}, // rotated 90° clockwise
	7: {16, 32, yellow, green, blue, red}, // transversed
	8: {16, 32, green, yellow, red, blue}, // rotated 90° counter-clockwise
}

// TestDecodeAppliesJPEGExifOrientation injects an APP1 Exif segment, in both byte orders,
// into a Go-encoded JPEG for each orientation and checks where the blocks land.
func TestDecodeAppliesJPEGExifOrientation(t *testing.T) {
	plain := encJPEG(t, base())
	for o := 1; o <= 8; o++ {
		for _, order := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
			t.Run(order.String()+"/"+string(rune('0'+o)), func(t *testing.T) {
				data := withJPEGExif(plain, exifBlock(order, uint16(o), true))
				checkOrientation(t, data, o, 24)
			})
		}
	}
}

func checkOrientation(t *testing.T, data []byte, o, tol int) {
	t.Helper()
	l := orientationLayouts[o]
	info, err := raster.Header(data)
	if err != nil {
		t.Fatalf("Header: %v", err)
	}
	if info.Orientation != o || info.Width != l.w || info.Height != l.h {
		t.Errorf("Header = %+v, want orientation %d, %d x %d", info, o, l.w, l.h)
	}
	img, _, err := raster.Decode(data, 0)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if img.Rect != image.Rect(0, 0, l.w, l.h) {
		t.Fatalf("Rect = %v, want %d x %d", img.Rect, l.w, l.h)
	}
	checkProbes(t, img, quadProbes(l.w, l.h, l.tl, l.tr, l.bl, l.br), tol)
}

// TestDecodeAppliesOrientationOfOtherFormats covers the TIFF Orientation tag (set by
// libtiff's tiffset), a WebP EXIF chunk and a PNG eXIf chunk.
func TestDecodeAppliesOrientationOfOtherFormats(t *testing.T) {
	lossless := fixture(t, "webp-lossless.webp")
	t.Run("tiff orientation tag 6", func(t *testing.T) {
		checkOrientation(t, fixture(t, "tiff-orient6.tif"), 6, 0)
	})
	for _, o := range []int{3, 6, 8} {
		t.Run("webp exif chunk "+string(rune('0'+o)), func(t *testing.T) {
			data := webpFile(vp8x(0x08, fixW, fixH), firstChunk(t, lossless),
				riffChunk("EXIF", exifBlock(binary.BigEndian, uint16(o), false)))
			checkOrientation(t, data, o, 0)
		})
		t.Run("webp exif chunk with Exif prefix "+string(rune('0'+o)), func(t *testing.T) {
			data := webpFile(vp8x(0x08, fixW, fixH), firstChunk(t, lossless),
				riffChunk("EXIF", exifBlock(binary.LittleEndian, uint16(o), true)))
			checkOrientation(t, data, o, 0)
		})
		t.Run("png eXIf chunk "+string(rune('0'+o)), func(t *testing.T) {
			data := withPNGChunk(encPNG(t, base()), "eXIf", exifBlock(binary.LittleEndian, uint16(o), false))
			checkOrientation(t, data, o, 0)
		})
	}
}

// TestDecodeIgnoresDamagedExif checks that EXIF blocks that cannot be read, or carry an
// orientation outside 1-8, leave the image as stored instead of failing.
func TestDecodeIgnoresDamagedExif(t *testing.T) {
	plain := encJPEG(t, base())
	good := exifBlock(binary.LittleEndian, 6, true)
	tests := map[string][]byte{
		"orientation 0":           exifBlock(binary.LittleEndian, 0, true),
		"orientation 9":           exifBlock(binary.BigEndian, 9, true),
		"cut after the header":    good[:14],
		"cut inside the entry":    good[:len(good)-10],
		"IFD offset past the end": append(append([]byte{}, good[:10]...), 0xff, 0xff, 0xff, 0x7f),
		"bad byte order mark":     append([]byte("Exif\x00\x00XX*\x00"), good[10:]...),
		"nothing but the prefix":  []byte("Exif\x00\x00"),
	}
	for name, exif := range tests {
		t.Run(name, func(t *testing.T) {
			checkOrientation(t, withJPEGExif(plain, exif), 1, 24)
		})
	}
}

// TestDecodeReducesSixteenBitSamplesByTheirHighByte guards against keeping the low byte.
func TestDecodeReducesSixteenBitSamplesByTheirHighByte(t *testing.T) {
	m := image.NewNRGBA64(image.Rect(0, 0, 2, 1))
	m.SetNRGBA64(0, 0, color.NRGBA64{0x12ff, 0x3401, 0xfe80, 0xffff})
	m.SetNRGBA64(1, 0, color.NRGBA64{0x8001, 0x7fff, 0x0100, 0x80ff})
	g := image.NewGray16(image.Rect(0, 0, 1, 1))
	g.SetGray16(0, 0, color.Gray16{0xa0ff})
	tests := []struct {
		name string
		data []byte
		want []color.NRGBA
	}{
		{"png rgba 16-bit", encPNG(t, m), []color.NRGBA{{0x12, 0x34, 0xfe, 0xff}, {0x80, 0x7f, 0x01, 0x80}}},
		{"png gray 16-bit", encPNG(t, g), []color.NRGBA{{0xa0, 0xa0, 0xa0, 0xff}}},
		{"tiff rgba 16-bit", encTIFF(t, m, tiff.Uncompressed), []color.NRGBA{{0x12, 0x34, 0xfe, 0xff}, {0x80, 0x7f, 0x01, 0x80}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, _, err := raster.Decode(tt.data, 0)
			if err != nil {
				t.Fatal(err)
			}
			for x, want := range tt.want {
				if got := img.NRGBAAt(x, 0); got != want {
					t.Errorf("pixel %d = %v, want %v", x, got, want)
				}
			}
		})
	}
}

// TestDecodeRefusesBadInput checks the code and message of every kind of failure.
func TestDecodeRefusesBadInput(t *testing.T) {
	pngData := encPNG(t, base())
	jpegData := encJPEG(t, noise(64, 64))
	bmpData := encBMP(t, base())
	tiffData := encTIFF(t, toRGBA(base()), tiff.Uncompressed)
	webpData := fixture(t, "webp-lossy.webp")
	zeroWidth := pngDeclaring(0, 16)
	badCRC := append([]byte{}, pngData...)
	badCRC[30] ^= 0xff
	badIDAT := append([]byte{}, pngData...)
	for i := 45; i < len(badIDAT)-20; i++ {
		badIDAT[i] ^= 0x55
	}
	withoutIEND := pngData[:len(pngData)-12]

	tests := []struct {
		name     string
		data     []byte
		code     string
		contains string
	}{
		{"no bytes", nil, sdk.CodeEmptyImage, "empty"},
		{"a GIF", encGIF(t, base()), sdk.CodeUnsupportedFormat, "GIF images are not supported; send PNG, JPEG, WebP, BMP or TIFF"},
		{"an SVG", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>`), sdk.CodeUnsupportedFormat, "SVG"},
		{"an HTML page", []byte("<!DOCTYPE html><html></html>"), sdk.CodeUnsupportedFormat, "HTML"},
		{"a PDF", []byte("%PDF-1.7\n"), sdk.CodeUnsupportedFormat, "PDF"},
		{"a HEIC", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"), sdk.CodeUnsupportedFormat, "HEIC"},
		{"an AVIF", []byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf"), sdk.CodeUnsupportedFormat, "AVIF"},
		{"plain text", []byte("hello, world"), sdk.CodeUnsupportedFormat, "not in a recognised image format"},
		{"a BMP compressed with RLE", fixture(t, "bmp-rle8.bmp"), sdk.CodeUnsupportedFormat, "RLE"},
		{"a CMYK TIFF", fixture(t, "tiff-cmyk.tif"), sdk.CodeUnsupportedFormat, "CMYK TIFF"},
		{"a JPEG-compressed TIFF", fixture(t, "tiff-jpeg.tif"), sdk.CodeUnsupportedFormat, "JPEG-compressed TIFF"},
		{"a 2-bit palette TIFF", fixture(t, "tiff-palette2.tif"), sdk.CodeUnsupportedFormat, "BitsPerSample"},

		{"png cut inside its signature", pngData[:4], sdk.CodeTruncatedImage, "PNG file ends before its header"},
		{"png cut inside IHDR", pngData[:20], sdk.CodeTruncatedImage, "PNG file ends before its header"},
		{"png cut inside its image data", pngData[:len(pngData)/2], sdk.CodeTruncatedImage, "PNG file ends before its image data"},
		{"png without IEND", withoutIEND, sdk.CodeTruncatedImage, "cut off"},
		{"jpeg cut inside its header", jpegData[:40], sdk.CodeTruncatedImage, "JPEG file ends before its header"},
		{"jpeg cut inside its scan", jpegData[:len(jpegData)-100], sdk.CodeTruncatedImage, "JPEG file ends before its image data"},
		{"webp cut inside its header", webpData[:16], sdk.CodeTruncatedImage, "WebP file ends before its header"},
		{"webp cut inside its bitstream", webpData[:60], sdk.CodeTruncatedImage, "WebP file ends before its image data"},
		{"bmp cut inside its header", bmpData[:30], sdk.CodeTruncatedImage, "BMP file ends before its header"},
		{"bmp cut inside its pixels", bmpData[:len(bmpData)-50], sdk.CodeTruncatedImage, "BMP file ends before its image data"},
		{"tiff cut inside its header", tiffData[:6], sdk.CodeTruncatedImage, "TIFF file ends before its header"},

		{"png with zero width", zeroWidth, sdk.CodeCorruptImage, "damaged"},
		{"png with a bad IHDR checksum", badCRC, sdk.CodeCorruptImage, "checksum"},
		{"png with scrambled image data", badIDAT, sdk.CodeCorruptImage, "damaged"},
		{"jpeg with a reserved marker", []byte("\xff\xd8\xff\x02\x00\x04\x00\x00"), sdk.CodeCorruptImage, "unknown marker"},
		{"webp whose first chunk is not image data", webpFile(riffChunk("JUNK", make([]byte, 12))), sdk.CodeCorruptImage, "JUNK"},
		{"animated webp without frames", webpFile(vp8x(0x02, 8, 8), riffChunk("ANIM", make([]byte, 6))), sdk.CodeCorruptImage, "without frames"},

		{"a tiny png declaring 30000 x 30000", pngDeclaring(30000, 30000), sdk.CodeTooManyPixels,
			"the image is 30000 x 30000 pixels (900 megapixels), over the limit of 40 megapixels"},
		{"a png declaring 100000 x 100000", pngDeclaring(100000, 100000), sdk.CodeTooManyPixels, "100000 x 100000"},
		{"a webp declaring a 16M x 16M canvas", webpFile(vp8x(0x02, 1<<24, 1<<24), riffChunk("ANIM", make([]byte, 6)), riffChunk("ANMF", make([]byte, 16))), sdk.CodeTooManyPixels, "16777216 x 16777216"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, _, err := raster.Decode(tt.data, 0)
			if err == nil {
				t.Fatalf("Decode succeeded with a %v image, want error %s", img.Rect, tt.code)
			}
			var se *sdk.Error
			if !asSDKError(err, &se) {
				t.Fatalf("error %v (%T) is not an *sdk.Error", err, err)
			}
			if se.Code != tt.code || !strings.Contains(se.Message, tt.contains) {
				t.Errorf("error = %q, want code %s and a message containing %q", err, tt.code, tt.contains)
			}
			if img != nil {
				t.Errorf("image = %v, want nil with an error", img.Rect)
			}
		})
	}
}

func asSDKError(err error, target **sdk.Error) bool {
	se, ok := err.(*sdk.Error)
	*target = se
	return ok
}

// TestDecodeHonoursThePixelLimit checks the limit is exact and counts upright pixels.
func TestDecodeHonoursThePixelLimit(t *testing.T) {
	data := encPNG(t, base()) // 512 pixels
	if _, _, err := raster.Decode(data, 512); err != nil {
		t.Errorf("Decode at exactly the limit: %v", err)
	}
	_, _, err := raster.Decode(data, 511)
	if sdk.ErrorCode(err) != sdk.CodeTooManyPixels {
		t.Errorf("Decode one pixel over the limit: %v, want %s", err, sdk.CodeTooManyPixels)
	}
}

// TestDecodeReturnsAnNRGBADecodeAsItIs checks the NRGBA fast path copies nothing.
func TestDecodeReturnsAnNRGBADecodeAsItIs(t *testing.T) {
	m := baseAlpha()
	if got := raster.ToNRGBA(m, 1); got != m {
		t.Error("ToNRGBA copied an *image.NRGBA at 0,0 with orientation 1")
	}
}

// TestDecodeContextStopsWhenItsContextEnds: with a live context DecodeContext returns
// what Decode does; with an ended one it stops with the context's error, not a corrupt
// image, for the formats it reads as a stream.
func TestDecodeContextStopsWhenItsContextEnds(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"png", encPNG(t, baseAlpha())},
		{"jpeg", encJPEG(t, base())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, _, err := raster.Decode(tt.data, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := raster.DecodeContext(context.Background(), tt.data, 0)
			if err != nil || !bytes.Equal(got.Pix, want.Pix) || got.Rect != want.Rect {
				t.Errorf("with a live context: %v, and not Decode's image", err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if img, _, err := raster.DecodeContext(ctx, tt.data, 0); img != nil || !errors.Is(err, context.Canceled) {
				t.Errorf("with an ended context: %v, want context.Canceled and no image", err)
			}
		})
	}
}
