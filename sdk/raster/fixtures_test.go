package raster_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// The test images are 32 x 16 with four 16 x 8 blocks of distinct colour, so a test can
// tell where each block lands after decoding and orientation.
const fixW, fixH = 32, 16

var (
	red         = color.NRGBA{255, 0, 0, 255}
	green       = color.NRGBA{0, 255, 0, 255}
	blue        = color.NRGBA{0, 0, 255, 255}
	yellow      = color.NRGBA{255, 255, 0, 255}
	transparent = color.NRGBA{0, 0, 0, 0}
)

// quadrants returns a w x h image whose top-left, top-right, bottom-left and bottom-right
// quarters are tl, tr, bl and br.
func quadrants(w, h int, tl, tr, bl, br color.NRGBA) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := tl
			switch {
			case x >= w/2 && y < h/2:
				c = tr
			case x < w/2 && y >= h/2:
				c = bl
			case x >= w/2 && y >= h/2:
				c = br
			}
			m.SetNRGBA(x, y, c)
		}
	}
	return m
}

// base is the standard opaque test image; baseAlpha has a transparent bottom-right block.
func base() *image.NRGBA      { return quadrants(fixW, fixH, red, green, blue, yellow) }
func baseAlpha() *image.NRGBA { return quadrants(fixW, fixH, red, green, blue, transparent) }

// probe is a pixel a test expects at a point.
type probe struct {
	x, y int
	c    color.NRGBA
}

// quadProbes expects tl, tr, bl, br at the centres of the four quarters of a w x h image.
func quadProbes(w, h int, tl, tr, bl, br color.NRGBA) []probe {
	return []probe{{w / 4, h / 4, tl}, {3 * w / 4, h / 4, tr}, {w / 4, 3 * h / 4, bl}, {3 * w / 4, 3 * h / 4, br}}
}

// checkProbes reports every probe whose pixel differs from the expected colour by more
// than tol in a channel. A probe expecting alpha 0 checks alpha alone.
func checkProbes(t *testing.T, img *image.NRGBA, probes []probe, tol int) {
	t.Helper()
	for _, p := range probes {
		got := img.NRGBAAt(p.x, p.y)
		if p.c.A == 0 {
			if got.A != 0 {
				t.Errorf("pixel (%d,%d) = %v, want transparent", p.x, p.y, got)
			}
			continue
		}
		if !near(got, p.c, tol) {
			t.Errorf("pixel (%d,%d) = %v, want %v (±%d)", p.x, p.y, got, p.c, tol)
		}
	}
}

func near(a, b color.NRGBA, tol int) bool {
	d := func(x, y uint8) bool { return abs(int(x)-int(y)) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B) && d(a.A, b.A)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// grayOf is c's luma (Rec. 601, as Go's gray conversion), as an opaque gray colour.
func grayOf(c color.NRGBA) color.NRGBA {
	if c.A == 0 {
		return transparent
	}
	g := color.GrayModel.Convert(c).(color.Gray).Y
	return color.NRGBA{g, g, g, 255}
}

// gray709 is c's luma with Rec. 709 weights, as ImageMagick computes it.
func gray709(c color.NRGBA) color.NRGBA {
	if c.A == 0 {
		return transparent
	}
	g := uint8(0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B) + 0.5)
	return color.NRGBA{g, g, g, 255}
}

// noise returns a w x h opaque image of pseudo-random pixels, the same on every call.
func noise(w, h int) *image.NRGBA {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	s := uint32(1)
	for i := range m.Pix {
		s = s*1664525 + 1013904223
		m.Pix[i] = uint8(s >> 24)
		if i%4 == 3 {
			m.Pix[i] = 255
		}
	}
	return m
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustEncode(t testing.TB, encode func(*bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encPNG(t testing.TB, m image.Image) []byte {
	return mustEncode(t, func(b *bytes.Buffer) error { return png.Encode(b, m) })
}

func encJPEG(t testing.TB, m image.Image) []byte {
	return mustEncode(t, func(b *bytes.Buffer) error { return jpeg.Encode(b, m, &jpeg.Options{Quality: 95}) })
}

func encBMP(t testing.TB, m image.Image) []byte {
	return mustEncode(t, func(b *bytes.Buffer) error { return bmp.Encode(b, m) })
}

func encTIFF(t testing.TB, m image.Image, c tiff.CompressionType) []byte {
	return mustEncode(t, func(b *bytes.Buffer) error { return tiff.Encode(b, m, &tiff.Options{Compression: c}) })
}

func encGIF(t testing.TB, m image.Image) []byte {
	return mustEncode(t, func(b *bytes.Buffer) error { return gif.Encode(b, m, nil) })
}

// convertTo draws m into a new image of the given kind.
func toGray(m image.Image) *image.Gray {
	out := image.NewGray(m.Bounds())
	for y := m.Bounds().Min.Y; y < m.Bounds().Max.Y; y++ {
		for x := m.Bounds().Min.X; x < m.Bounds().Max.X; x++ {
			out.Set(x, y, m.At(x, y))
		}
	}
	return out
}

func toGray16(m image.Image) *image.Gray16 {
	out := image.NewGray16(m.Bounds())
	for y := m.Bounds().Min.Y; y < m.Bounds().Max.Y; y++ {
		for x := m.Bounds().Min.X; x < m.Bounds().Max.X; x++ {
			out.Set(x, y, m.At(x, y))
		}
	}
	return out
}

func toRGBA64(m image.Image) *image.RGBA64 {
	out := image.NewRGBA64(m.Bounds())
	for y := m.Bounds().Min.Y; y < m.Bounds().Max.Y; y++ {
		for x := m.Bounds().Min.X; x < m.Bounds().Max.X; x++ {
			out.Set(x, y, m.At(x, y))
		}
	}
	return out
}

func toNRGBA64(m image.Image) *image.NRGBA64 {
	out := image.NewNRGBA64(m.Bounds())
	for y := m.Bounds().Min.Y; y < m.Bounds().Max.Y; y++ {
		for x := m.Bounds().Min.X; x < m.Bounds().Max.X; x++ {
			out.Set(x, y, m.At(x, y))
		}
	}
	return out
}

func toRGBA(m image.Image) *image.RGBA {
	out := image.NewRGBA(m.Bounds())
	for y := m.Bounds().Min.Y; y < m.Bounds().Max.Y; y++ {
		for x := m.Bounds().Min.X; x < m.Bounds().Max.X; x++ {
			out.Set(x, y, m.At(x, y))
		}
	}
	return out
}

func toPaletted(m image.Image, p color.Palette) *image.Paletted {
	out := image.NewPaletted(m.Bounds(), p)
	for y := m.Bounds().Min.Y; y < m.Bounds().Max.Y; y++ {
		for x := m.Bounds().Min.X; x < m.Bounds().Max.X; x++ {
			out.Set(x, y, m.At(x, y))
		}
	}
	return out
}

// pngChunk returns a PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// pngDeclaring returns a tiny but well-formed PNG file (valid CRCs, an IDAT holding a few
// bytes of zlib data, IEND) whose header declares w x h 8-bit RGBA pixels: a
// decompression bomb as far as a decoder trusting the header is concerned.
func pngDeclaring(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, pngChunk("IHDR", ihdr)...)
	out = append(out, pngChunk("IDAT", []byte{0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01})...)
	return append(out, pngChunk("IEND", nil)...)
}

// withPNGChunk inserts a chunk right after IHDR.
func withPNGChunk(p []byte, typ string, data []byte) []byte {
	const afterIHDR = 8 + 25
	out := append([]byte{}, p[:afterIHDR]...)
	out = append(out, pngChunk(typ, data)...)
	return append(out, p[afterIHDR:]...)
}

// byteOrder is binary.LittleEndian or binary.BigEndian.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// exifBlock returns a TIFF structure (EXIF's) in the given byte order whose first IFD
// holds an Orientation tag, behind JPEG's "Exif\0\0" prefix when prefixed.
func exifBlock(order byteOrder, orientation uint16, prefixed bool) []byte {
	var b []byte
	if prefixed {
		b = append(b, "Exif\x00\x00"...)
	}
	if order == binary.LittleEndian {
		b = append(b, "II*\x00"...)
	} else {
		b = append(b, "MM\x00*"...)
	}
	b = order.AppendUint32(b, 8)
	b = order.AppendUint16(b, 2) // two entries: a harmless one, then Orientation
	// ImageDescription, ASCII, pointing outside the block: readers must not care.
	b = order.AppendUint16(b, 270)
	b = order.AppendUint16(b, 2)
	b = order.AppendUint32(b, 100)
	b = order.AppendUint32(b, 0xfffffff0)
	b = order.AppendUint16(b, 274)
	b = order.AppendUint16(b, 3)
	b = order.AppendUint32(b, 1)
	b = order.AppendUint16(b, orientation)
	b = order.AppendUint16(b, 0)
	return order.AppendUint32(b, 0) // no next IFD
}

// withJPEGExif inserts an APP1 Exif segment right after SOI.
func withJPEGExif(j []byte, exif []byte) []byte {
	seg := []byte{0xff, 0xe1}
	seg = binary.BigEndian.AppendUint16(seg, uint16(len(exif)+2))
	seg = append(seg, exif...)
	out := append([]byte{}, j[:2]...)
	out = append(out, seg...)
	return append(out, j[2:]...)
}

// riffChunk returns a RIFF chunk with its padding byte.
func riffChunk(id string, payload []byte) []byte {
	out := append([]byte(id), binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))...)
	out = append(out, payload...)
	if len(payload)%2 == 1 {
		out = append(out, 0)
	}
	return out
}

// webpFile wraps chunks in a RIFF WEBP container.
func webpFile(chunks ...[]byte) []byte {
	body := []byte("WEBP")
	for _, c := range chunks {
		body = append(body, c...)
	}
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
}

// vp8x returns a VP8X chunk with the given flags and canvas size.
func vp8x(flags byte, w, h int) []byte {
	p := []byte{flags, 0, 0, 0,
		byte(w - 1), byte((w - 1) >> 8), byte((w - 1) >> 16),
		byte(h - 1), byte((h - 1) >> 8), byte((h - 1) >> 16)}
	return riffChunk("VP8X", p)
}

// firstChunk returns the first chunk (header and payload) after a WebP file's header.
func firstChunk(t testing.TB, webp []byte) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(webp[16:20]))
	if 20+n > len(webp) {
		t.Fatalf("chunk of %d bytes runs past the %d-byte file", n, len(webp))
	}
	return webp[12 : 20+n+n%2]
}
