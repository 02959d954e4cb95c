package raster

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// DefaultMaxPixels is the pixel limit Decode applies when given none: the service's
// default of 40 megapixels.
const DefaultMaxPixels = 40_000_000

// Decode decodes the image in data into an upright (EXIF orientation applied),
// non-premultiplied *image.NRGBA whose Rect starts at 0,0. Transparency is kept, and of a
// multi-frame file (an animated WebP, a multi-page TIFF) only the first frame is decoded.
//
// The header is read first: an image of more than maxPixels pixels is refused with
// sdk.CodeTooManyPixels before any pixel is decoded (maxPixels <= 0 means
// DefaultMaxPixels, so a zero value never disables the check). Errors are *sdk.Error
// values: those of Header, sdk.CodeTooManyPixels, sdk.CodeTruncatedImage when the data
// stops before the image does, and sdk.CodeCorruptImage for anything else a decoder
// rejects, including a decoder panic. The returned Info is valid whenever Header
// succeeded.
func Decode(data []byte, maxPixels int64) (img *image.NRGBA, info Info, err error) {
	return decode(data, maxPixels, nil)
}

// DecodeContext is Decode, stopped when ctx ends: the PNG and JPEG decoders read their
// data through a reader that fails once ctx is done, so a large image's decoding stops
// within a few milliseconds of a cancellation. The error is then ctx's. The image it
// returns is the one Decode returns.
func DecodeContext(ctx context.Context, data []byte, maxPixels int64) (*image.NRGBA, Info, error) {
	img, info, err := decode(data, maxPixels, func(r io.Reader) io.Reader { return ctxReader{ctx, r} })
	if err != nil && ctx.Err() != nil {
		return nil, info, ctx.Err()
	}
	return img, info, err
}

// decode is Decode, the PNG and JPEG decoders reading through wrap when it is not nil.
func decode(data []byte, maxPixels int64, wrap func(io.Reader) io.Reader) (img *image.NRGBA, info Info, err error) {
	if info, err = Check(data, maxPixels); err != nil {
		return nil, info, err
	}
	img, err = recovered(info.Format, func() (*image.NRGBA, error) {
		src, err := decodeImage(data, info, wrap)
		if err != nil {
			return nil, classify(info.Format, err, "image data")
		}
		w, h := info.stored()
		if b := src.Bounds(); b.Dx() != w || b.Dy() != h {
			return nil, errCorrupt(info.Format,
				fmt.Sprintf("its header says %d x %d pixels but its image data holds %d x %d", w, h, b.Dx(), b.Dy()))
		}
		return toNRGBAOwned(src, info.Orientation), nil
	})
	return img, info, err
}

// recovered runs decode and turns a panic in it (a decoder bug a crafted file found) into
// a corrupt_image error, so one bad upload cannot take the engine process down.
func recovered(f Format, decode func() (*image.NRGBA, error)) (img *image.NRGBA, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, errCorrupt(f, fmt.Sprintf("its decoder failed: %v", r))
		}
	}()
	return decode()
}

// decodeImage runs the format's decoder; the result is as stored, not yet upright. With
// wrap, the PNG and JPEG decoders read through it.
func decodeImage(data []byte, info Info, wrap func(io.Reader) io.Reader) (image.Image, error) {
	r := bytes.NewReader(data)
	var stream io.Reader = r
	if wrap != nil {
		stream = wrap(r)
	}
	switch info.Format {
	case PNG:
		return png.Decode(stream)
	case JPEG:
		return jpeg.Decode(stream)
	case BMP:
		return bmp.Decode(r)
	case TIFF:
		return tiff.Decode(r)
	case WebP:
		return decodeWebP(data)
	}
	return nil, errUnsupported(info.Format)
}

// ctxReader reads r until ctx ends, then fails with ctx's error. The decoders read in
// blocks of kilobytes, so checking on every read costs nothing to speak of.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Check does what Decode does before it decodes: it reads the header, refuses an image
// of more than maxPixels pixels (maxPixels <= 0 means DefaultMaxPixels) and checks with
// CheckComplete that the file is whole. It costs microseconds whatever the file's size;
// its errors are Decode's. The returned Info is valid whenever Header succeeded.
func Check(data []byte, maxPixels int64) (Info, error) {
	info, err := Header(data)
	if err != nil {
		return info, err
	}
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	if info.Pixels() > maxPixels {
		return info, errTooManyPixels(info, maxPixels)
	}
	return info, CheckComplete(data)
}

// CheckComplete reports, without decoding, whether the data of a PNG or WebP file runs to
// the end its own structure declares: a PNG's chunks must all lie inside the data and end
// with IEND, a WebP's RIFF container and chunks must fit. It returns an *sdk.Error with
// sdk.CodeTruncatedImage (or sdk.CodeCorruptImage for a chunk length no PNG may have) and
// nil for other formats, whose structure it does not inspect. It computes no CRC, so it
// costs microseconds even for a large file.
func CheckComplete(data []byte) error {
	switch Sniff(data) {
	case PNG:
		return checkPNGChunks(data)
	case WebP:
		c, err := parseWebP(data)
		if err != nil {
			return err
		}
		if c.cut {
			return errTruncated(WebP, "image data")
		}
	}
	return nil
}

// checkPNGChunks walks the chunks of a PNG file up to IEND.
func checkPNGChunks(data []byte) error {
	p := uint64(len(pngMagic))
	for {
		if p+8 > uint64(len(data)) {
			return errTruncated(PNG, "image data")
		}
		n := uint64(binary.BigEndian.Uint32(data[p:]))
		if n > 1<<31-1 {
			return errCorrupt(PNG, "a chunk declares an impossible length")
		}
		end := p + 8 + n + 4 // length and type, data, CRC
		if end > uint64(len(data)) {
			return errTruncated(PNG, "image data")
		}
		if string(data[p+4:p+8]) == "IEND" {
			return nil
		}
		p = end
	}
}

// decodeWebP decodes a still WebP with x/image/webp, or the first frame of an animation:
// the frame's bitstream is rewrapped as a still WebP, decoded, and placed on a transparent
// canvas at the frame's offset. (The first frame has nothing under it, so its blending
// and disposal modes do not matter.)
func decodeWebP(data []byte) (image.Image, error) {
	c, err := parseWebP(data)
	if err != nil {
		return nil, err
	}
	if !c.animated {
		return webp.Decode(bytes.NewReader(data))
	}
	if len(c.frame) < 16 {
		return nil, errCorrupt(WebP, "its first animation frame is too short")
	}
	x, y := 2*int(le24(c.frame[0:])), 2*int(le24(c.frame[3:]))
	fw, fh := int(le24(c.frame[6:]))+1, int(le24(c.frame[9:]))+1
	if x+fw > c.width || y+fh > c.height {
		return nil, errCorrupt(WebP, "its first animation frame lies outside the canvas")
	}
	still, err := stillWebP(c.frame[16:], fw, fh)
	if err != nil {
		return nil, err
	}
	frame, err := webp.Decode(bytes.NewReader(still))
	if err != nil {
		return nil, err
	}
	if b := frame.Bounds(); b.Dx() != fw || b.Dy() != fh {
		return nil, errCorrupt(WebP, "its first animation frame is not the size it declares")
	}
	if x == 0 && y == 0 && fw == c.width && fh == c.height {
		return frame, nil
	}
	canvas := image.NewNRGBA(image.Rect(0, 0, c.width, c.height))
	f := ToNRGBA(frame, 1)
	for row := range fh {
		copy(canvas.Pix[(y+row)*canvas.Stride+4*x:], f.Pix[row*f.Stride:row*f.Stride+4*fw])
	}
	return canvas, nil
}

// stillWebP wraps the chunks of an animation frame (an optional ALPH chunk and a VP8 or
// VP8L chunk, with perhaps unknown chunks between) as a still WebP file: a lossy frame
// with alpha needs a VP8X chunk declaring the frame's size and alpha for x/image/webp to
// read its ALPH chunk.
func stillWebP(chunks []byte, w, h int) ([]byte, error) {
	var alph, bitstream []byte
	for p := 0; p+8 <= len(chunks); {
		id := string(chunks[p : p+4])
		n := int(binary.LittleEndian.Uint32(chunks[p+4:]))
		if n < 0 || n > len(chunks)-p-8 {
			return nil, errCorrupt(WebP, "a chunk of its first animation frame runs past the frame")
		}
		chunk := chunks[p : p+8+n]
		switch id {
		case "ALPH":
			if alph == nil {
				alph = chunk
			}
		case "VP8 ", "VP8L":
			bitstream = chunk
		}
		if bitstream != nil {
			break
		}
		p += 8 + n + n&1
	}
	if bitstream == nil {
		return nil, errCorrupt(WebP, "its first animation frame holds no image data")
	}
	var body bytes.Buffer
	body.WriteString("WEBP")
	if alph != nil && string(bitstream[:4]) == "VP8 " {
		vp8x := [18]byte{'V', 'P', '8', 'X', 10, 0, 0, 0, 0x10} // flags: alpha
		putLE24(vp8x[12:], uint32(w-1))
		putLE24(vp8x[15:], uint32(h-1))
		body.Write(vp8x[:])
		writeChunk(&body, alph)
	}
	writeChunk(&body, bitstream)
	out := make([]byte, 8, 8+body.Len())
	copy(out, "RIFF")
	binary.LittleEndian.PutUint32(out[4:], uint32(body.Len()))
	return append(out, body.Bytes()...), nil
}

// writeChunk appends a RIFF chunk (header and payload) and its padding byte.
func writeChunk(b *bytes.Buffer, chunk []byte) {
	b.Write(chunk)
	if len(chunk)&1 != 0 {
		b.WriteByte(0)
	}
}

func putLE24(b []byte, v uint32) { b[0], b[1], b[2] = byte(v), byte(v>>8), byte(v>>16) }
