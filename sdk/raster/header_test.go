package raster_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/tracecraft/tracecraft/sdk"
	"github.com/tracecraft/tracecraft/sdk/raster"
)

// TestSniffRecognisesFormatsByMagicBytes covers every format Sniff names.
func TestSniffRecognisesFormatsByMagicBytes(t *testing.T) {
	tests := []struct {
		name string
		data string
		want raster.Format
	}{
		{"png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", raster.PNG},
		{"jpeg", "\xff\xd8\xff\xe0\x00\x10JFIF", raster.JPEG},
		{"webp", "RIFF\x24\x00\x00\x00WEBPVP8 ", raster.WebP},
		{"a RIFF that is not webp (wav)", "RIFF\x24\x00\x00\x00WAVEfmt ", raster.Unknown},
		{"bmp", "BM\x36\x00\x00\x00", raster.BMP},
		{"tiff little-endian", "II*\x00\x08\x00\x00\x00", raster.TIFF},
		{"tiff big-endian", "MM\x00*\x00\x00\x00\x08", raster.TIFF},
		{"gif87a", "GIF87a\x01\x00", raster.GIF},
		{"gif89a", "GIF89a\x01\x00", raster.GIF},
		{"svg", `<svg xmlns="http://www.w3.org/2000/svg"></svg>`, raster.SVG},
		{"svg after an xml declaration, a BOM and space", "\xef\xbb\xbf \n<?xml version=\"1.0\"?>\n<!-- x -->\n<svg/>", raster.SVG},
		{"xml that is not svg", `<?xml version="1.0"?><note/>`, raster.XML},
		{"html", "<!doctype html><html>", raster.XML},
		{"pdf", "%PDF-1.4\n", raster.PDF},
		{"heic", "\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", raster.HEIC},
		{"heif (mif1 major brand)", "\x00\x00\x00\x10ftypmif1\x00\x00\x00\x00", raster.HEIC},
		{"avif", "\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf", raster.AVIF},
		{"avif named by a compatible brand", "\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00avif", raster.AVIF},
		{"an mp4 video", "\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2", raster.Unknown},
		{"ico", "\x00\x00\x01\x00\x01\x00\x10\x10", raster.ICO},
		{"cur", "\x00\x00\x02\x00\x01\x00\x10\x10", raster.ICO},
		{"psd", "8BPS\x00\x01", raster.PSD},
		{"jpeg 2000 (jp2)", "\x00\x00\x00\x0cjP  \r\n\x87\n\x00\x00", raster.JPEG2000},
		{"jpeg 2000 codestream", "\xff\x4f\xff\x51\x00\x2f", raster.JPEG2000},
		{"jpeg xl codestream", "\xff\x0a\xfa\x7f", raster.JPEGXL},
		{"jpeg xl container", "\x00\x00\x00\x0cJXL \r\n\x87\n", raster.JPEGXL},
		{"qoi", "qoif\x00\x00\x00\x10", raster.QOI},
		{"plain text", "hello", raster.Unknown},
		{"a lone '<'", "< 3", raster.Unknown},
		{"nothing", "", raster.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := raster.Sniff([]byte(tt.data)); got != tt.want {
				t.Errorf("Sniff(%q) = %q, want %q", tt.data, got, tt.want)
			}
		})
	}
}

// TestFormatNamesAndSupport checks the words messages use.
func TestFormatNamesAndSupport(t *testing.T) {
	tests := []struct {
		format    raster.Format
		name      string
		supported bool
	}{
		{raster.PNG, "PNG", true}, {raster.JPEG, "JPEG", true}, {raster.WebP, "WebP", true},
		{raster.BMP, "BMP", true}, {raster.TIFF, "TIFF", true},
		{raster.GIF, "GIF", false}, {raster.SVG, "SVG", false}, {raster.XML, "XML or HTML", false},
		{raster.PDF, "PDF", false}, {raster.HEIC, "HEIC", false}, {raster.AVIF, "AVIF", false},
		{raster.ICO, "ICO", false}, {raster.PSD, "PSD", false}, {raster.JPEG2000, "JPEG 2000", false},
		{raster.JPEGXL, "JPEG XL", false}, {raster.QOI, "QOI", false}, {raster.Unknown, "unknown", false},
	}
	for _, tt := range tests {
		if tt.format.Name() != tt.name || tt.format.Supported() != tt.supported {
			t.Errorf("%q: Name() = %q, Supported() = %v; want %q, %v",
				tt.format, tt.format.Name(), tt.format.Supported(), tt.name, tt.supported)
		}
	}
}

// TestHeaderReadsDimensionsWithoutDecoding checks Header on a file whose pixel data is
// missing or cut: it needs the header only.
func TestHeaderReadsDimensionsWithoutDecoding(t *testing.T) {
	pngData := encPNG(t, noise(300, 200))
	jpegData := encJPEG(t, noise(300, 200))
	webpData := fixture(t, "webp-lossy.webp")
	tests := []struct {
		name string
		data []byte
		want raster.Info
	}{
		{"png without its image data", pngData[:40], raster.Info{Format: raster.PNG, Width: 300, Height: 200, Orientation: 1}},
		{"jpeg cut in its scan", jpegData[:len(jpegData)/2], raster.Info{Format: raster.JPEG, Width: 300, Height: 200, Orientation: 1}},
		{"webp cut in its bitstream", webpData[:50], raster.Info{Format: raster.WebP, Width: fixW, Height: fixH, Orientation: 1}},
		{"animated webp", fixture(t, "webp-animated.webp"), raster.Info{Format: raster.WebP, Width: fixW, Height: fixH, Orientation: 1}},
		{"a png declaring 100000 x 100000", pngDeclaring(100000, 100000), raster.Info{Format: raster.PNG, Width: 100000, Height: 100000, Orientation: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := raster.Header(tt.data)
			if err != nil {
				t.Fatalf("Header: %v", err)
			}
			if got != tt.want {
				t.Errorf("Header = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestHeaderKeepsTheFormatOnError lets callers name the format in logs.
func TestHeaderKeepsTheFormatOnError(t *testing.T) {
	info, err := raster.Header(encGIF(t, base()))
	if sdk.ErrorCode(err) != sdk.CodeUnsupportedFormat || info.Format != raster.GIF {
		t.Errorf("Header(gif) = %+v, %v; want format gif and %s", info, err, sdk.CodeUnsupportedFormat)
	}
}

// TestHeaderOfAHugePNGIsCheap answers a 100000 x 100000 header in microseconds without a
// big allocation.
func TestHeaderOfAHugePNGIsCheap(t *testing.T) {
	data := pngDeclaring(100000, 100000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	const n = 100
	for range n {
		if _, err := raster.Header(data); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(start) / n
	runtime.ReadMemStats(&after)
	perCall := (after.TotalAlloc - before.TotalAlloc) / n
	if perCall > 64<<10 {
		t.Errorf("Header allocated %d bytes per call, want under 64 KiB", perCall)
	}
	if elapsed > 2*time.Millisecond { // generous: microseconds on an idle machine
		t.Errorf("Header took %v per call, want microseconds", elapsed)
	}
}

// TestCheckCompleteFindsCutPNGAndWebPFiles checks the structural walk alone.
func TestCheckCompleteFindsCutPNGAndWebPFiles(t *testing.T) {
	pngData := encPNG(t, noise(64, 64))
	webpData := fixture(t, "webp-lossless.webp")
	tests := []struct {
		name string
		data []byte
		code string // "" for no error
	}{
		{"a whole png", pngData, ""},
		{"a png with bytes after IEND", append(append([]byte{}, pngData...), "trailing"...), ""},
		{"a png cut in its image data", pngData[:len(pngData)/2], sdk.CodeTruncatedImage},
		{"a png cut inside IEND", pngData[:len(pngData)-2], sdk.CodeTruncatedImage},
		{"a png without IEND", pngData[:len(pngData)-12], sdk.CodeTruncatedImage},
		{"a png with an impossible chunk length", append(append([]byte{}, pngData[:33]...), 0xff, 0xff, 0xff, 0xff, 'I', 'D', 'A', 'T'), sdk.CodeCorruptImage},
		{"a whole webp", webpData, ""},
		{"a webp cut short", webpData[:len(webpData)-5], sdk.CodeTruncatedImage},
		{"a jpeg (not inspected)", []byte("\xff\xd8\xff"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := raster.CheckComplete(tt.data)
			if got := codeOf(err); got != tt.code {
				t.Errorf("CheckComplete = %v, want code %q", err, tt.code)
			}
		})
	}
}

func codeOf(err error) string {
	if err == nil {
		return ""
	}
	return sdk.ErrorCode(err)
}
