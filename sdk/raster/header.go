package raster

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// Info is what an image's header says about it.
type Info struct {
	// Format is the file format, from its magic bytes.
	Format Format
	// Width and Height are the dimensions of the upright image, after Orientation is
	// applied: for orientations 5-8 they are the stored height and width.
	Width, Height int
	// Orientation is the EXIF orientation, 1 (upright, the default) to 8.
	Orientation int
}

// Pixels returns Width x Height.
func (i Info) Pixels() int64 { return int64(i.Width) * int64(i.Height) }

// stored returns the dimensions of the image as the file stores it, before orientation.
func (i Info) stored() (w, h int) {
	if i.Orientation >= 5 {
		return i.Height, i.Width
	}
	return i.Width, i.Height
}

// maxDimension is the largest width or height accepted, so that width x height x 8 bytes
// per pixel can never overflow an int.
const maxDimension = 1<<31 - 1

// Header reads the format, dimensions and orientation of the image in data from its
// header alone, without decoding pixels: a header declaring 100000 x 100000 pixels is
// answered as quickly as one declaring 10 x 10. Errors are *sdk.Error values with code
// sdk.CodeEmptyImage, sdk.CodeUnsupportedFormat (a format or a variant of one the
// decoders do not handle; the message names it), sdk.CodeTruncatedImage (data ends inside
// the header) or sdk.CodeCorruptImage. On error the returned Info still carries the
// format when it was recognised.
func Header(data []byte) (Info, error) {
	if len(data) == 0 {
		return Info{Format: Unknown, Orientation: 1}, errEmpty()
	}
	info := Info{Format: Sniff(data), Orientation: 1}
	var (
		w, h int
		err  error
	)
	switch info.Format {
	case PNG:
		w, h, info.Orientation, err = pngHeader(data)
	case JPEG:
		w, h, info.Orientation, err = jpegHeader(data)
	case WebP:
		var c webpContainer
		if c, err = parseWebP(data); err == nil {
			w, h, info.Orientation = c.width, c.height, c.orientation
		}
	case BMP:
		w, h, err = bmpHeader(data)
	case TIFF:
		w, h, info.Orientation, err = tiffHeader(data)
	default:
		if f := magicPrefixOf(data); f != Unknown {
			return Info{Format: f, Orientation: 1}, errTruncated(f, "header")
		}
		return info, errUnsupported(info.Format)
	}
	if err != nil {
		return info, classify(info.Format, err, "header")
	}
	if w <= 0 || h <= 0 {
		return info, errCorrupt(info.Format, fmt.Sprintf("its header says it is %d x %d pixels", w, h))
	}
	if w > maxDimension || h > maxDimension {
		return info, errCorrupt(info.Format, fmt.Sprintf("its header says it is %d x %d pixels", w, h))
	}
	if info.Orientation >= 5 {
		w, h = h, w
	}
	info.Width, info.Height = w, h
	return info, nil
}

// magicPrefixOf returns the supported format whose magic bytes data is a proper prefix
// of (a file cut off within its first few bytes), or Unknown.
func magicPrefixOf(data []byte) Format {
	if len(data) < 2 {
		return Unknown
	}
	for _, m := range []struct {
		magic  string
		format Format
	}{
		{string(pngMagic), PNG}, {string(jpegMagic), JPEG}, {"II*\x00", TIFF}, {"MM\x00*", TIFF},
	} {
		if len(data) < len(m.magic) && m.magic[:len(data)] == string(data) {
			return m.format
		}
	}
	if len(data) < 12 && bytes.HasPrefix(data, []byte("RIFF")) {
		return WebP
	}
	return Unknown
}

// pngHeader reads IHDR itself, so a header cut short is told apart from a damaged one,
// then lets image/png check what its decoder will insist on (CRC, bit depth, colour type).
func pngHeader(data []byte) (w, h, orientation int, err error) {
	const ihdrEnd = 8 + 8 + 13 + 4 // signature, length and type, IHDR data, CRC
	if len(data) < ihdrEnd {
		return 0, 0, 1, errTruncated(PNG, "header")
	}
	if binary.BigEndian.Uint32(data[8:12]) != 13 || string(data[12:16]) != "IHDR" {
		return 0, 0, 1, errCorrupt(PNG, "it does not start with an IHDR chunk")
	}
	uw, uh := binary.BigEndian.Uint32(data[16:20]), binary.BigEndian.Uint32(data[20:24])
	if uw > maxDimension || uh > maxDimension {
		return 0, 0, 1, errCorrupt(PNG, fmt.Sprintf("its header says it is %d x %d pixels", uw, uh))
	}
	if _, err := png.DecodeConfig(bytes.NewReader(data)); err != nil {
		return 0, 0, 1, err
	}
	return int(uw), int(uh), pngOrientation(data), nil
}

// pngOrientation returns the orientation in an eXIf chunk before the image data, or 1.
func pngOrientation(data []byte) int {
	for p := len(pngMagic); p+12 <= len(data); {
		n := binary.BigEndian.Uint32(data[p:])
		typ := string(data[p+4 : p+8])
		end := uint64(p) + 12 + uint64(n)
		if end > uint64(len(data)) || typ == "IDAT" || typ == "IEND" {
			return 1
		}
		if typ == "eXIf" {
			return exifOrientation(data[p+8 : p+8+int(n)])
		}
		p = int(end)
	}
	return 1
}

func jpegHeader(data []byte) (w, h, orientation int, err error) {
	c, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, 1, err
	}
	return c.Width, c.Height, jpegOrientation(data), nil
}

func bmpHeader(data []byte) (w, h int, err error) {
	c, err := bmp.DecodeConfig(bytes.NewReader(data))
	if errors.Is(err, bmp.ErrUnsupported) && len(data) >= 34 {
		return 0, 0, bmpVariant(data)
	}
	if err != nil {
		return 0, 0, err
	}
	return c.Width, c.Height, nil
}

// bmpVariant names what x/image/bmp refused in a BMP header.
func bmpVariant(data []byte) error {
	infoLen := binary.LittleEndian.Uint32(data[14:18])
	bpp := binary.LittleEndian.Uint16(data[28:30])
	compression := binary.LittleEndian.Uint32(data[30:34])
	switch {
	case infoLen == 12:
		return errVariant(BMP, "an OS/2 BMP")
	case infoLen != 40 && infoLen != 108 && infoLen != 124:
		return errVariant(BMP, fmt.Sprintf("a BMP with a %d-byte header", infoLen))
	case compression == 1 || compression == 2:
		return errVariant(BMP, "an RLE-compressed BMP")
	case compression == 4 || compression == 5:
		return errVariant(BMP, "a BMP holding a JPEG or PNG")
	case compression == 3 || bpp == 16:
		return errVariant(BMP, fmt.Sprintf("a %d-bit BMP with colour masks", bpp))
	case compression != 0:
		return errVariant(BMP, fmt.Sprintf("a BMP with compression %d", compression))
	}
	w := int32(binary.LittleEndian.Uint32(data[18:22]))
	h := int32(binary.LittleEndian.Uint32(data[22:26]))
	if w <= 0 || h == 0 {
		return errCorrupt(BMP, fmt.Sprintf("its header says it is %d x %d pixels", w, h))
	}
	return errVariant(BMP, fmt.Sprintf("a %d-bit BMP with this palette layout", bpp))
}

// tiffHeader reads the first IFD itself to name an unsupported colour model or
// compression clearly, then lets x/image/tiff read the dimensions and check the rest.
func tiffHeader(data []byte) (w, h, orientation int, err error) {
	ifd, ok := readIFD0(data)
	if !ok {
		if len(data) < 8 {
			return 0, 0, 1, errTruncated(TIFF, "header")
		}
		var order binary.ByteOrder = binary.LittleEndian
		if data[0] == 'M' {
			order = binary.BigEndian
		}
		if off := uint64(order.Uint32(data[4:8])); off >= 8 {
			return 0, 0, 1, errTruncated(TIFF, "header") // the directory lies past the end
		}
		return 0, 0, 1, errCorrupt(TIFF, "its first directory cannot be read")
	}
	if p, ok := ifd.uint(tagPhotometric); ok {
		switch p {
		case 0, 1, 2, 3: // white is zero, black is zero, RGB, palette
		case 5:
			return 0, 0, 1, errVariant(TIFF, "a CMYK TIFF")
		case 6:
			return 0, 0, 1, errVariant(TIFF, "a YCbCr TIFF")
		case 8, 9, 10:
			return 0, 0, 1, errVariant(TIFF, "a CIE L*a*b* TIFF")
		default:
			return 0, 0, 1, errVariant(TIFF, fmt.Sprintf("a TIFF with photometric interpretation %d", p))
		}
	}
	if c, ok := ifd.uint(tagCompression); ok {
		switch c {
		case 0, 1, 3, 4, 5, 8, 32773, 32946: // what x/image/tiff decodes
		case 6, 7:
			return 0, 0, 1, errVariant(TIFF, "a JPEG-compressed TIFF")
		case 34712:
			return 0, 0, 1, errVariant(TIFF, "a JPEG 2000-compressed TIFF")
		case 50000:
			return 0, 0, 1, errVariant(TIFF, "a Zstandard-compressed TIFF")
		case 34925:
			return 0, 0, 1, errVariant(TIFF, "an LZMA-compressed TIFF")
		default:
			return 0, 0, 1, errVariant(TIFF, fmt.Sprintf("a TIFF with compression %d", c))
		}
	}
	c, err := tiff.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, 1, err
	}
	return c.Width, c.Height, ifd.orientation(), nil
}

// webpContainer is what a walk over a WebP file's RIFF chunks finds.
type webpContainer struct {
	width, height int
	orientation   int
	animated      bool
	// frame is the payload of the first ANMF chunk of an animation.
	frame []byte
	// cut is set when the data stops before the RIFF size or a chunk says it ends.
	cut bool
}

// parseWebP walks the RIFF chunks of a WebP file: the first chunk gives the dimensions
// (VP8X's canvas, or the VP8 or VP8L bitstream's own), an EXIF chunk the orientation,
// and for an animation the first ANMF chunk the first frame. Data that stops after the
// header is reported by c.cut, not as an error.
func parseWebP(data []byte) (c webpContainer, err error) {
	c.orientation = 1
	if len(data) < 12+8 {
		return c, errTruncated(WebP, "header")
	}
	end := 8 + uint64(binary.LittleEndian.Uint32(data[4:8]))
	if end > uint64(len(data)) {
		c.cut = true
		end = uint64(len(data))
	}
	first := true
	for p := uint64(12); p < end; {
		if p+8 > end {
			if first || c.animated && c.frame == nil {
				return c, errTruncated(WebP, "header")
			}
			c.cut = true
			break
		}
		id := string(data[p : p+4])
		n := uint64(binary.LittleEndian.Uint32(data[p+4:]))
		payloadEnd := p + 8 + n
		if payloadEnd > end {
			if first && id != "VP8 " && id != "VP8L" || c.animated && c.frame == nil {
				return c, errTruncated(WebP, "header")
			}
			// A bitstream cut short still starts with its dimensions.
			c.cut = true
			payloadEnd = end
		}
		payload := data[p+8 : payloadEnd]
		if first {
			first = false
			switch id {
			case "VP8X":
				if len(payload) < 10 {
					return c, errCorrupt(WebP, "its VP8X chunk is too short")
				}
				c.animated = payload[0]&0x02 != 0
				c.width = int(le24(payload[4:])) + 1
				c.height = int(le24(payload[7:])) + 1
			case "VP8 ", "VP8L":
				if c.width, c.height, err = webpBitstreamSize(id, payload); err != nil {
					return c, err
				}
			default:
				return c, errCorrupt(WebP, fmt.Sprintf("its first chunk is %q, not image data", id))
			}
		}
		switch id {
		case "EXIF":
			c.orientation = exifOrientation(payload)
		case "ANMF":
			if c.frame == nil {
				c.frame = payload
			}
		}
		p = payloadEnd + n&1 // chunks are padded to an even length
	}
	if c.animated && c.frame == nil {
		if c.cut {
			return c, errTruncated(WebP, "header")
		}
		return c, errCorrupt(WebP, "it is an animation without frames")
	}
	if !c.animated {
		// Let x/image/webp check what its decoder will insist on.
		if _, err := webp.DecodeConfig(bytes.NewReader(data[:end])); err != nil {
			return c, classify(WebP, err, "header")
		}
	}
	return c, nil
}

// webpBitstreamSize reads the dimensions from the start of a VP8 (lossy) or VP8L
// (lossless) bitstream.
func webpBitstreamSize(id string, b []byte) (w, h int, err error) {
	if id == "VP8L" {
		if len(b) < 5 {
			return 0, 0, errTruncated(WebP, "header")
		}
		if b[0] != 0x2f {
			return 0, 0, errCorrupt(WebP, "its lossless bitstream has a bad signature")
		}
		bits := binary.LittleEndian.Uint32(b[1:5])
		return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, nil
	}
	if len(b) < 10 {
		return 0, 0, errTruncated(WebP, "header")
	}
	if b[0]&1 != 0 || b[3] != 0x9d || b[4] != 0x01 || b[5] != 0x2a {
		return 0, 0, errCorrupt(WebP, "its lossy bitstream does not start with a key frame")
	}
	return int(binary.LittleEndian.Uint16(b[6:]) & 0x3fff), int(binary.LittleEndian.Uint16(b[8:]) & 0x3fff), nil
}

func le24(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 }
