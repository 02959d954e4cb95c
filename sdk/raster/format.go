// Package raster turns the bytes of an uploaded bitmap into the upright, non-premultiplied
// *image.NRGBA an engine traces. It recognises formats by their magic bytes, reads
// dimensions from the header alone so oversized images are refused before any pixel is
// decoded, and reports every failure as an *sdk.Error with a code and a sentence a person
// can act on.
//
// Supported: PNG, JPEG (baseline and progressive, gray, YCbCr, CMYK/YCCK), WebP (lossy,
// lossless, alpha, the first frame of an animation), BMP and TIFF (the first image). EXIF
// orientation is applied for JPEG, WebP, PNG (eXIf) and TIFF (the Orientation tag).
package raster

import "bytes"

// Format is an image file format, named in lower case ("png", "jpeg"). Sniff recognises
// the supported formats and, so that errors can name them, common unsupported ones.
type Format string

// Formats Sniff recognises. Only PNG, JPEG, WebP, BMP and TIFF are decoded.
const (
	PNG  Format = "png"
	JPEG Format = "jpeg"
	WebP Format = "webp"
	BMP  Format = "bmp"
	TIFF Format = "tiff"

	GIF      Format = "gif"
	SVG      Format = "svg"
	XML      Format = "xml" // XML or HTML text that is not recognisably SVG
	PDF      Format = "pdf"
	HEIC     Format = "heic"
	AVIF     Format = "avif"
	ICO      Format = "ico"
	PSD      Format = "psd"
	JPEG2000 Format = "jp2"
	JPEGXL   Format = "jxl"
	QOI      Format = "qoi"
	Unknown  Format = "unknown"
)

// supportedList is how messages name what the service accepts.
const supportedList = "PNG, JPEG, WebP, BMP or TIFF"

// Supported reports whether Decode can decode the format.
func (f Format) Supported() bool {
	switch f {
	case PNG, JPEG, WebP, BMP, TIFF:
		return true
	}
	return false
}

// Name returns the name people know the format by ("PNG", "JPEG XL").
func (f Format) Name() string {
	switch f {
	case PNG, BMP, TIFF, GIF, SVG, PDF, HEIC, AVIF, ICO, PSD, QOI:
		return string(bytes.ToUpper([]byte(f)))
	case JPEG:
		return "JPEG"
	case WebP:
		return "WebP"
	case XML:
		return "XML or HTML"
	case JPEG2000:
		return "JPEG 2000"
	case JPEGXL:
		return "JPEG XL"
	}
	return "unknown"
}

// Sniff returns the format of data by its magic bytes; the file's name and declared
// content type play no part. It returns Unknown when nothing matches.
func Sniff(data []byte) Format {
	switch {
	case bytes.HasPrefix(data, pngMagic):
		return PNG
	case bytes.HasPrefix(data, jpegMagic):
		return JPEG
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return WebP
	case bytes.HasPrefix(data, []byte("BM")):
		return BMP
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return TIFF
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return GIF
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return PDF
	case bytes.HasPrefix(data, []byte("8BPS")):
		return PSD
	case bytes.HasPrefix(data, []byte("qoif")):
		return QOI
	case bytes.HasPrefix(data, []byte("\x00\x00\x00\x0cjP  \r\n\x87\n")),
		bytes.HasPrefix(data, []byte("\xff\x4f\xff\x51")):
		return JPEG2000
	case bytes.HasPrefix(data, []byte("\x00\x00\x00\x0cJXL \r\n\x87\n")),
		bytes.HasPrefix(data, []byte("\xff\x0a")):
		return JPEGXL
	}
	if f := sniffISOBMFF(data); f != Unknown {
		return f
	}
	switch {
	case len(data) >= 6 && data[0] == 0 && data[1] == 0 && (data[2] == 1 || data[2] == 2) && data[3] == 0 &&
		(data[4] != 0 || data[5] != 0):
		// ICONDIR: reserved 0, type 1 (icon) or 2 (cursor), a non-zero image count.
		return ICO
	}
	return sniffMarkup(data)
}

var (
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	jpegMagic = []byte("\xff\xd8\xff")
)

// sniffISOBMFF recognises HEIF/HEIC and AVIF by the brands of their leading ftyp box.
func sniffISOBMFF(data []byte) Format {
	if len(data) < 12 || string(data[4:8]) != "ftyp" {
		return Unknown
	}
	size := int(uint32(data[0])<<24 | uint32(data[1])<<16 | uint32(data[2])<<8 | uint32(data[3]))
	if size < 16 || size > len(data) {
		size = min(len(data), 64) // a damaged or cut size: still look at the brands we have
	}
	// The major brand, then the compatible brands after the minor version.
	brands := []string{string(data[8:12])}
	for i := 16; i+4 <= size; i += 4 {
		brands = append(brands, string(data[i:i+4]))
	}
	heif := false
	for _, b := range brands {
		switch b {
		case "avif", "avis":
			return AVIF
		case "heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1":
			heif = true
		}
	}
	if heif {
		return HEIC
	}
	return Unknown
}

// sniffMarkup recognises SVG and other XML or HTML text: after an optional byte-order mark
// and white space, a '<' that opens a tag, declaration or comment.
func sniffMarkup(data []byte) Format {
	head := data[:min(len(data), 4096)]
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) < 2 || head[0] != '<' {
		return Unknown
	}
	c := head[1]
	if !(c == '?' || c == '!' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return Unknown
	}
	if bytes.Contains(bytes.ToLower(head), []byte("<svg")) {
		return SVG
	}
	return XML
}
