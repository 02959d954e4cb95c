package raster_test

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"image/png"
	"sync"
	"testing"

	"github.com/tracecraft/tracecraft/sdk/raster"
)

// photo4MP is a 2000 x 2000 image of smooth gradients, hard edges and mild noise, close
// enough to an upload for decoding costs; it is encoded once per test binary.
var photo4MP = sync.OnceValue(func() *image.NRGBA {
	const size = 2000
	m := image.NewNRGBA(image.Rect(0, 0, size, size))
	s := uint32(7)
	for y := range size {
		for x := range size {
			s = s*1664525 + 1013904223
			n := uint8(s>>29) * 2
			i := m.PixOffset(x, y)
			m.Pix[i] = uint8(x*255/size) + n
			m.Pix[i+1] = uint8(y*255/size) + n
			m.Pix[i+2] = uint8((x/100+y/100)%2*200) + n
			m.Pix[i+3] = 255
		}
	}
	return m
})

var (
	png4MP = sync.OnceValue(func() []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, photo4MP()); err != nil {
			panic(err)
		}
		return b.Bytes()
	})
	jpeg4MP = sync.OnceValue(func() []byte {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, photo4MP(), &jpeg.Options{Quality: 90}); err != nil {
			panic(err)
		}
		return b.Bytes()
	})
)

func benchmarkDecode(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := raster.Decode(data, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode_PNG4MP decodes a 4-megapixel RGBA PNG (Go's decoder returns NRGBA:
// no conversion copy).
func BenchmarkDecode_PNG4MP(b *testing.B) { benchmarkDecode(b, png4MP()) }

// BenchmarkDecode_JPEG4MP decodes a 4-megapixel 4:2:0 JPEG (YCbCr converted row by row).
func BenchmarkDecode_JPEG4MP(b *testing.B) { benchmarkDecode(b, jpeg4MP()) }

// BenchmarkDecode_JPEG4MPRotated adds EXIF orientation 6, the usual portrait photo.
func BenchmarkDecode_JPEG4MPRotated(b *testing.B) {
	benchmarkDecode(b, withJPEGExif(jpeg4MP(), exifBlock(binary.LittleEndian, 6, true)))
}

// BenchmarkToNRGBA_YCbCr4MP measures the conversion alone.
func BenchmarkToNRGBA_YCbCr4MP(b *testing.B) {
	src, err := jpeg.Decode(bytes.NewReader(jpeg4MP()))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		raster.ToNRGBA(src, 1)
	}
}

// BenchmarkToNRGBA_YCbCr4MPRotated measures the conversion with orientation 6, where
// source rows become destination columns.
func BenchmarkToNRGBA_YCbCr4MPRotated(b *testing.B) {
	src, err := jpeg.Decode(bytes.NewReader(jpeg4MP()))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		raster.ToNRGBA(src, 6)
	}
}

// BenchmarkHeader_HugePNG reads the header of a PNG declaring 100000 x 100000 pixels.
func BenchmarkHeader_HugePNG(b *testing.B) {
	data := pngDeclaring(100000, 100000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := raster.Header(data); err != nil {
			b.Fatal(err)
		}
	}
}
