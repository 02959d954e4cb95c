package raster

import (
	"errors"
	"fmt"
	"image/jpeg"
	"image/png"
	"io"
	"strconv"
	"strings"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"

	"github.com/tracecraft/tracecraft/sdk/internal/coded"
)

// The errors of this package, one constructor per code, so every message is phrased the
// same way wherever the failure is found.

func errEmpty() *coded.Error {
	return coded.Errorf(coded.CodeEmptyImage, "the file is empty; send the image file itself")
}

func errUnsupported(f Format) *coded.Error {
	switch f {
	case SVG:
		return coded.Errorf(coded.CodeUnsupportedFormat,
			"SVG files are already vector images and are not traced; send a bitmap: %s", supportedList)
	case XML:
		return coded.Errorf(coded.CodeUnsupportedFormat,
			"the file is XML or HTML text, not an image; send %s", supportedList)
	case PDF:
		return coded.Errorf(coded.CodeUnsupportedFormat,
			"PDF documents are not supported; export the page as PNG or JPEG and send that")
	case Unknown:
		return coded.Errorf(coded.CodeUnsupportedFormat,
			"the file is not in a recognised image format; send %s", supportedList)
	}
	return coded.Errorf(coded.CodeUnsupportedFormat, "%s images are not supported; send %s", f.Name(), supportedList)
}

// errVariant is for a supported format whose file uses a feature the decoders lack.
func errVariant(f Format, feature string) *coded.Error {
	alt := "PNG"
	if f == PNG {
		alt = "JPEG"
	}
	return coded.Errorf(coded.CodeUnsupportedFormat,
		"%s is not supported; re-save the image as a standard %s or as %s", feature, f.Name(), alt)
}

func errTruncated(f Format, part string) *coded.Error {
	return coded.Errorf(coded.CodeTruncatedImage,
		"the %s file ends before its %s does; the upload was probably cut off, so send the complete file", f.Name(), part)
}

func errCorrupt(f Format, reason string) *coded.Error {
	return coded.Errorf(coded.CodeCorruptImage,
		"the %s file is damaged and cannot be read (%s); re-save it and try again", f.Name(), reason)
}

func errTooManyPixels(info Info, limit int64) *coded.Error {
	return coded.Errorf(coded.CodeTooManyPixels,
		"the image is %d x %d pixels (%s megapixels), over the limit of %s megapixels; scale it down and try again",
		info.Width, info.Height, megapixels(info.Pixels(), true), megapixels(limit, false))
}

// megapixels formats n pixels in millions to one decimal, trimming ".0" ("40", "0.3");
// a count over a limit is rounded up, so it never reads as equal to the limit.
func megapixels(n int64, roundUp bool) string {
	t := (n*10 + 500_000) / 1_000_000
	if roundUp {
		t = (n*10 + 999_999) / 1_000_000
	}
	s := strconv.FormatInt(t/10, 10)
	if t%10 != 0 {
		s += "." + strconv.FormatInt(t%10, 10)
	}
	return s
}

// classify turns a decoder's error into an *sdk.Error: data that stops short is
// truncated, a feature the decoder lacks is unsupported, and anything else is corrupt.
// part names what the data was being read for ("header", "image data").
func classify(f Format, err error, part string) *coded.Error {
	var se *coded.Error
	if errors.As(err, &se) {
		return se
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || isShortDataMessage(err) {
		return errTruncated(f, part)
	}
	var (
		pu png.UnsupportedError
		ju jpeg.UnsupportedError
		tu tiff.UnsupportedError
	)
	switch {
	case errors.As(err, &pu):
		return errVariant(f, fmt.Sprintf("this PNG's %s", strings.TrimPrefix(string(pu), "png: ")))
	case errors.As(err, &ju):
		return errVariant(f, fmt.Sprintf("JPEG with %s", string(ju)))
	case errors.As(err, &tu):
		return errVariant(f, fmt.Sprintf("TIFF with %s", string(tu)))
	case errors.Is(err, bmp.ErrUnsupported):
		return errVariant(f, "this kind of BMP (compressed, 16-bit or an unusual header)")
	}
	return errCorrupt(f, err.Error())
}

// isShortDataMessage recognises the decoders' own words for data that stops short, where
// they do not use io.ErrUnexpectedEOF.
func isShortDataMessage(err error) bool {
	msg := err.Error()
	for _, s := range []string{"unexpected EOF", "short Huffman data", "not enough pixel data", "short chunk", "missing padding byte"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
