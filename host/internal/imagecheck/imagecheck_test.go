package imagecheck_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"sync"
	"testing"

	"github.com/tracecraft/tracecraft/host/internal/fault"
	"github.com/tracecraft/tracecraft/host/internal/imagecheck"
)

func solid(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = uint8(i)
	}
	return m
}

func encode(t testing.TB, enc func(*bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := enc(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngChunk(typ string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// pngDeclaring returns a tiny, well-formed PNG whose header declares w x h pixels.
func pngDeclaring(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", []byte{0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01})...)
	return append(out, pngChunk("IEND", nil)...)
}

// losslessWebPHeader returns the start of a lossless WebP declaring w x h pixels: the
// RIFF header and a VP8L chunk holding only the bitstream's 5-byte header.
func losslessWebPHeader(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14
	vp8l := append([]byte{0x2f}, binary.LittleEndian.AppendUint32(nil, bits)...)
	body := append([]byte("WEBPVP8L"), binary.LittleEndian.AppendUint32(nil, uint32(len(vp8l)))...)
	body = append(body, vp8l...)
	body = append(body, 0) // padding to an even length
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
}

// jpegWithOrientation inserts an APP1 Exif segment with the orientation after SOI.
func jpegWithOrientation(j []byte, o uint16) []byte {
	exif := []byte("Exif\x00\x00MM\x00*\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01")
	exif = binary.BigEndian.AppendUint16(exif, o)
	exif = append(exif, 0, 0, 0, 0, 0, 0)
	seg := binary.BigEndian.AppendUint16([]byte{0xff, 0xe1}, uint16(len(exif)+2))
	return append(append(append([]byte{}, j[:2]...), append(seg, exif...)...), j[2:]...)
}

// TestCheckAcceptsSupportedImages reads format, size and orientation from headers.
func TestCheckAcceptsSupportedImages(t *testing.T) {
	pngData := encode(t, func(b *bytes.Buffer) error { return png.Encode(b, solid(40, 30)) })
	jpegData := encode(t, func(b *bytes.Buffer) error { return jpeg.Encode(b, solid(40, 30), nil) })
	webpData := losslessWebPHeader(640, 480)
	turned := jpegWithOrientation(jpegData, 6)
	tests := []struct {
		name string
		data []byte
		want imagecheck.Info
	}{
		{"a png", pngData, imagecheck.Info{Format: "png", Width: 40, Height: 30, Orientation: 1, Bytes: int64(len(pngData))}},
		{"a jpeg", jpegData, imagecheck.Info{Format: "jpeg", Width: 40, Height: 30, Orientation: 1, Bytes: int64(len(jpegData))}},
		{"a jpeg turned by exif", turned, imagecheck.Info{Format: "jpeg", Width: 30, Height: 40, Orientation: 6, Bytes: int64(len(turned))}},
		{"a webp", webpData, imagecheck.Info{Format: "webp", Width: 640, Height: 480, Orientation: 1, Bytes: int64(len(webpData))}},
		{"a png at exactly the pixel limit", pngDeclaring(1000, 1000), imagecheck.Info{Format: "png", Width: 1000, Height: 1000, Orientation: 1, Bytes: int64(len(pngDeclaring(1, 1)))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := imagecheck.Check(tt.data, imagecheck.Limits{MaxBytes: 1 << 20, MaxPixels: 1_000_000})
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if got != tt.want {
				t.Errorf("Check = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestCheckRefusesBadUploads checks each refusal's code and message.
func TestCheckRefusesBadUploads(t *testing.T) {
	pngData := encode(t, func(b *bytes.Buffer) error { return png.Encode(b, solid(64, 64)) })
	gifData := encode(t, func(b *bytes.Buffer) error {
		return gif.Encode(b, image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black}), nil)
	})
	lim := imagecheck.Limits{MaxBytes: 1 << 20, MaxPixels: 40_000_000}
	tests := []struct {
		name     string
		data     []byte
		lim      imagecheck.Limits
		code     string
		contains string
	}{
		{"no bytes", nil, lim, fault.EmptyImage, "empty"},
		{"a file over the byte limit", padded(pngData, 3<<19), lim, fault.ImageTooLarge,
			"the file is 1.5 MB, over the limit of 1 MB"},
		{"a file one byte over the limit", make([]byte, 1<<20+1), lim, fault.ImageTooLarge, "the file is 1.1 MB, over the limit of 1 MB"},
		{"a gif", gifData, lim, fault.UnsupportedFormat, "GIF images are not supported; send PNG, JPEG, WebP, BMP or TIFF"},
		{"an svg", []byte("<svg xmlns='http://www.w3.org/2000/svg'/>"), lim, fault.UnsupportedFormat, "SVG"},
		{"a text file", []byte("just some words"), lim, fault.UnsupportedFormat, "send PNG, JPEG, WebP, BMP or TIFF"},
		{"a png cut inside its header", pngData[:20], lim, fault.TruncatedImage, "header"},
		{"a png cut inside its image data", pngData[:len(pngData)/2], lim, fault.TruncatedImage, "cut off"},
		{"a png without IEND", pngData[:len(pngData)-12], lim, fault.TruncatedImage, "cut off"},
		{"a png declaring zero width", pngDeclaring(0, 10), lim, fault.CorruptImage, "damaged"},
		{"a png declaring 30000 x 30000", pngDeclaring(30000, 30000), lim, fault.TooManyPixels,
			"the image is 30000 x 30000 pixels (900 megapixels), over the limit of 40 megapixels"},
		{"a png just over the pixel limit", pngDeclaring(6325, 6325), lim, fault.TooManyPixels,
			"(40.1 megapixels), over the limit of 40 megapixels"},
		{"a png over the default pixel limit with zero limits", pngDeclaring(10000, 10000), imagecheck.Limits{}, fault.TooManyPixels,
			"over the limit of 40 megapixels"},
		{"a webp cut short", losslessWebPHeader(10, 10)[:24], lim, fault.TruncatedImage, "WebP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := imagecheck.Check(tt.data, tt.lim)
			var fe *fault.Error
			if !errors.As(err, &fe) {
				t.Fatalf("Check = %v (%T), want a *fault.Error", err, err)
			}
			if fe.Code != tt.code || !strings.Contains(fe.Message, tt.contains) {
				t.Errorf("Check = %q, want code %s and a message containing %q", err, tt.code, tt.contains)
			}
			if strings.Count(strings.TrimSuffix(fe.Message, "."), ". ") != 0 {
				t.Errorf("message %q is more than one sentence", fe.Message)
			}
		})
	}
}

// padded returns data followed by zeros up to n bytes.
func padded(data []byte, n int) []byte {
	out := make([]byte, n)
	copy(out, data)
	return out
}

// TestCheckReportsTheFormatOfARefusedFile lets the host log what was sent.
func TestCheckReportsTheFormatOfARefusedFile(t *testing.T) {
	info, err := imagecheck.Check(pngDeclaring(30000, 30000), imagecheck.Limits{})
	if err == nil || info.Format != "png" || info.Width != 30000 || info.Bytes == 0 {
		t.Errorf("Check = %+v, %v; want the png's format, size and bytes with the error", info, err)
	}
}

// png10MB is a noise PNG of about 10 MB, stored uncompressed so it is quick to make.
var png10MB = sync.OnceValue(func() []byte {
	m := image.NewNRGBA(image.Rect(0, 0, 1600, 1600))
	s := uint32(1)
	for i := range m.Pix {
		s = s*1664525 + 1013904223
		m.Pix[i] = uint8(s >> 24)
	}
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&b, m); err != nil {
		panic(err)
	}
	return b.Bytes()
})

// BenchmarkCheck_PNG10MB checks a 10 MB PNG: the header and a walk over its chunks.
func BenchmarkCheck_PNG10MB(b *testing.B) {
	data := png10MB()
	lim := imagecheck.Limits{MaxBytes: 11 << 20}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := imagecheck.Check(data, lim); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data))/(1<<20), "MB")
}
