package raster

import (
	"image"
	"image/color"
)

// rowFunc writes row y (0-based, from the top of the source's bounds) of a source image
// into dst as non-premultiplied RGBA bytes; len(dst) is 4 x the source's width.
type rowFunc func(y int, dst []byte)

// ToNRGBA returns src as a non-premultiplied *image.NRGBA with Rect at 0,0, turned
// upright according to the EXIF orientation (1-8; anything else counts as 1). An
// *image.NRGBA already at 0,0 with orientation 1 is returned as it is, not copied.
//
// The common decoder outputs (NRGBA, RGBA, YCbCr, NYCbCrA, Gray, Paletted, NRGBA64,
// RGBA64, Gray16, CMYK) are converted a row at a time without an interface call per
// pixel; other image types go through color.NRGBAModel. 16-bit samples are reduced to 8
// bits by keeping the high byte. The orientation is applied while rows are written, so
// the only full-size allocation is the result.
func ToNRGBA(src image.Image, orientation int) *image.NRGBA {
	b := src.Bounds()
	if orientation < 1 || orientation > 8 {
		orientation = 1
	}
	if m, ok := src.(*image.NRGBA); ok && orientation == 1 && b.Min == (image.Point{}) {
		return m
	}
	w, h := b.Dx(), b.Dy()
	row := rowsOf(src)
	if orientation >= 5 {
		dst := image.NewNRGBA(image.Rect(0, 0, h, w))
		transposeRows(dst, row, w, h, orientation)
		return dst
	}
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		dy := y
		if orientation == 3 || orientation == 4 {
			dy = h - 1 - y
		}
		line := dst.Pix[dy*dst.Stride : dy*dst.Stride+4*w]
		row(y, line)
		if orientation == 2 || orientation == 3 {
			mirrorRow(line)
		}
	}
	return dst
}

// toNRGBAOwned is ToNRGBA for an image nobody else holds (a decoder's fresh result): an
// *image.RGBA at the origin that needs no turning is un-premultiplied in place and its
// pixels reused, saving a full-size copy.
func toNRGBAOwned(src image.Image, orientation int) *image.NRGBA {
	if m, ok := src.(*image.RGBA); ok && m.Rect.Min == (image.Point{}) && (orientation <= 1 || orientation > 8) {
		w := m.Rect.Dx()
		for y := range m.Rect.Dy() {
			row := m.Pix[y*m.Stride : y*m.Stride+4*w]
			unpremultiplyRow(row, row) // each pixel is read before it is written
		}
		return &image.NRGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}
	}
	return ToNRGBA(src, orientation)
}

// mirrorRow reverses the order of the 4-byte pixels of line.
func mirrorRow(line []byte) {
	for i, j := 0, len(line)-4; i < j; i, j = i+4, j-4 {
		line[i], line[i+1], line[i+2], line[i+3], line[j], line[j+1], line[j+2], line[j+3] =
			line[j], line[j+1], line[j+2], line[j+3], line[i], line[i+1], line[i+2], line[i+3]
	}
}

// transposeBand is how many source rows are converted before they are scattered into
// destination columns: a band's columns are short runs of adjacent bytes, which keeps the
// scattering from touching a new cache line for every pixel.
const transposeBand = 16

// transposeRows fills dst (h x w) from the w x h source rows for orientations 5-8, where
// source rows become destination columns:
//
//	5 transpose:        (x, y) -> (y, x)
//	6 rotate 90° CW:    (x, y) -> (h-1-y, x)
//	7 transverse:       (x, y) -> (h-1-y, w-1-x)
//	8 rotate 90° CCW:   (x, y) -> (y, w-1-x)
func transposeRows(dst *image.NRGBA, row rowFunc, w, h, orientation int) {
	band := make([]byte, transposeBand*4*w)
	for y0 := 0; y0 < h; y0 += transposeBand {
		n := min(transposeBand, h-y0)
		for i := range n {
			row(y0+i, band[i*4*w:(i+1)*4*w])
		}
		for x := range w {
			dy := x
			if orientation == 7 || orientation == 8 {
				dy = w - 1 - x
			}
			out := dst.Pix[dy*dst.Stride:]
			for i := range n {
				dx := y0 + i
				if orientation == 6 || orientation == 7 {
					dx = h - 1 - dx
				}
				s := band[i*4*w+4*x : i*4*w+4*x+4 : i*4*w+4*x+4]
				d := out[4*dx : 4*dx+4 : 4*dx+4]
				d[0], d[1], d[2], d[3] = s[0], s[1], s[2], s[3]
			}
		}
	}
}

// rowsOf returns the row converter for src, a fast one for the types decoders return.
func rowsOf(src image.Image) rowFunc {
	b := src.Bounds()
	w := b.Dx()
	switch m := src.(type) {
	case *image.NRGBA:
		return func(y int, dst []byte) {
			i := m.PixOffset(b.Min.X, b.Min.Y+y)
			copy(dst, m.Pix[i:i+4*w])
		}
	case *image.RGBA:
		return func(y int, dst []byte) {
			i := m.PixOffset(b.Min.X, b.Min.Y+y)
			unpremultiplyRow(dst, m.Pix[i:i+4*w])
		}
	case *image.YCbCr:
		if b.Min.X >= 0 && b.Min.Y >= 0 {
			return func(y int, dst []byte) { ycbcrRow(dst, m, nil, 0, b.Min.Y+y) }
		}
	case *image.NYCbCrA:
		if b.Min.X >= 0 && b.Min.Y >= 0 {
			return func(y int, dst []byte) {
				ai := m.AOffset(b.Min.X, b.Min.Y+y)
				ycbcrRow(dst, &m.YCbCr, m.A, ai, b.Min.Y+y)
			}
		}
	case *image.Gray:
		return func(y int, dst []byte) {
			i := m.PixOffset(b.Min.X, b.Min.Y+y)
			for x, v := range m.Pix[i : i+w] {
				d := dst[4*x : 4*x+4 : 4*x+4]
				d[0], d[1], d[2], d[3] = v, v, v, 0xff
			}
		}
	case *image.Gray16:
		return func(y int, dst []byte) {
			i := m.PixOffset(b.Min.X, b.Min.Y+y)
			s := m.Pix[i : i+2*w]
			for x := range w {
				v := s[2*x] // the high byte of the big-endian sample
				d := dst[4*x : 4*x+4 : 4*x+4]
				d[0], d[1], d[2], d[3] = v, v, v, 0xff
			}
		}
	case *image.Paletted:
		var lut [256][4]byte
		for i := range lut {
			lut[i] = [4]byte{0, 0, 0, 0xff} // an index past the palette reads as opaque black
			if i < len(m.Palette) && m.Palette[i] != nil {
				c := color.NRGBAModel.Convert(m.Palette[i]).(color.NRGBA)
				lut[i] = [4]byte{c.R, c.G, c.B, c.A}
			}
		}
		return func(y int, dst []byte) {
			i := m.PixOffset(b.Min.X, b.Min.Y+y)
			for x, v := range m.Pix[i : i+w] {
				c := &lut[v]
				d := dst[4*x : 4*x+4 : 4*x+4]
				d[0], d[1], d[2], d[3] = c[0], c[1], c[2], c[3]
			}
		}
	case *image.NRGBA64:
		return func(y int, dst []byte) {
			i := m.PixOffset(b.Min.X, b.Min.Y+y)
			s := m.Pix[i : i+8*w]
			for x := range w {
				p := s[8*x : 8*x+8 : 8*x+8]
				d := dst[4*x : 4*x+4 : 4*x+4]
				d[0], d[1], d[2], d[3] = p[0], p[2], p[4], p[6]
			}
		}
	case *image.RGBA64:
		return func(y int, dst []byte) {
			i := m.PixOffset(b.Min.X, b.Min.Y+y)
			rgba64Row(dst, m.Pix[i:i+8*w])
		}
	case *image.CMYK:
		return func(y int, dst []byte) {
			i := m.PixOffset(b.Min.X, b.Min.Y+y)
			cmykRow(dst, m.Pix[i:i+4*w])
		}
	}
	return func(y int, dst []byte) {
		for x := range w {
			c := color.NRGBAModel.Convert(src.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
			d := dst[4*x : 4*x+4 : 4*x+4]
			d[0], d[1], d[2], d[3] = c.R, c.G, c.B, c.A
		}
	}
}

// unpremultiplyRow converts premultiplied RGBA bytes to non-premultiplied ones, with the
// same integer arithmetic as color.NRGBAModel so both paths agree to the bit.
func unpremultiplyRow(dst, src []byte) {
	opaque := true
	for i := 3; i < len(src); i += 4 {
		if src[i] != 0xff {
			opaque = false
			break
		}
	}
	if opaque {
		copy(dst, src)
		return
	}
	for i := 0; i+4 <= len(src); i += 4 {
		s := src[i : i+4 : i+4]
		d := dst[i : i+4 : i+4]
		switch a := uint32(s[3]); a {
		case 0xff:
			d[0], d[1], d[2], d[3] = s[0], s[1], s[2], 0xff
		case 0:
			d[0], d[1], d[2], d[3] = 0, 0, 0, 0
		default:
			d[0] = uint8(uint32(s[0]) * 0xffff / a >> 8)
			d[1] = uint8(uint32(s[1]) * 0xffff / a >> 8)
			d[2] = uint8(uint32(s[2]) * 0xffff / a >> 8)
			d[3] = uint8(a)
		}
	}
}

// rgba64Row converts premultiplied big-endian 16-bit RGBA to 8-bit non-premultiplied
// RGBA, as color.NRGBAModel does.
func rgba64Row(dst, src []byte) {
	for x := 0; 8*x+8 <= len(src); x++ {
		p := src[8*x : 8*x+8 : 8*x+8]
		d := dst[4*x : 4*x+4 : 4*x+4]
		a := uint32(p[6])<<8 | uint32(p[7])
		switch a {
		case 0xffff:
			d[0], d[1], d[2], d[3] = p[0], p[2], p[4], 0xff
		case 0:
			d[0], d[1], d[2], d[3] = 0, 0, 0, 0
		default:
			r := uint32(p[0])<<8 | uint32(p[1])
			g := uint32(p[2])<<8 | uint32(p[3])
			bl := uint32(p[4])<<8 | uint32(p[5])
			d[0] = uint8(r * 0xffff / a >> 8)
			d[1] = uint8(g * 0xffff / a >> 8)
			d[2] = uint8(bl * 0xffff / a >> 8)
			d[3] = uint8(a >> 8)
		}
	}
}

// cmykRow converts CMYK bytes to opaque RGBA with color.CMYK's arithmetic.
func cmykRow(dst, src []byte) {
	for i := 0; i+4 <= len(src); i += 4 {
		s := src[i : i+4 : i+4]
		d := dst[i : i+4 : i+4]
		w := 0xffff - uint32(s[3])*0x101
		d[0] = uint8((0xffff - uint32(s[0])*0x101) * w / 0xffff >> 8)
		d[1] = uint8((0xffff - uint32(s[1])*0x101) * w / 0xffff >> 8)
		d[2] = uint8((0xffff - uint32(s[2])*0x101) * w / 0xffff >> 8)
		d[3] = 0xff
	}
}

// ycbcrRow converts row y of m (an absolute coordinate) to RGBA with color.YCbCrToRGB's
// arithmetic, inlined. alpha, when not nil, holds the row's alpha samples from index ai
// (an NYCbCrA image); the colour stays non-premultiplied. The chroma terms are computed
// once per chroma sample and shared by the 1, 2 or 4 pixels it covers.
func ycbcrRow(dst []byte, m *image.YCbCr, alpha []byte, ai int, y int) {
	b := m.Rect
	w := b.Dx()
	yi := m.YOffset(b.Min.X, y)
	ys := m.Y[yi : yi+w]
	dst = dst[:4*w]
	// The chroma sample of column x is at cy*CStride + x>>hs - b.Min.X>>hs (x >= 0), as in
	// image.YCbCr.COffset.
	var hs uint
	cy := y - b.Min.Y
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		hs = 1
	case image.YCbCrSubsampleRatio420:
		hs, cy = 1, y/2-b.Min.Y/2
	case image.YCbCrSubsampleRatio440:
		cy = y/2 - b.Min.Y/2
	case image.YCbCrSubsampleRatio411:
		hs = 2
	case image.YCbCrSubsampleRatio410:
		hs, cy = 2, y/2-b.Min.Y/2
	}
	start := cy * m.CStride
	cw := (b.Max.X-1)>>hs - b.Min.X>>hs + 1
	cbs := m.Cb[start : start+cw]
	crs := m.Cr[start : start+cw]
	var as []byte
	if alpha != nil {
		as = alpha[ai : ai+w]
	}
	x := 0
	for ci := range cbs {
		cb1 := int32(cbs[ci]) - 128
		cr1 := int32(crs[ci]) - 128
		rc := 91881 * cr1
		gc := -22554*cb1 - 46802*cr1
		bc := 116130 * cb1
		// The pixels sharing this chroma sample run to the next multiple of 1<<hs.
		end := min(w, (b.Min.X>>hs+ci+1)<<hs-b.Min.X)
		for ; x < end; x++ {
			yy1 := int32(ys[x]) * 0x10101
			r := yy1 + rc
			if uint32(r)&0xff000000 == 0 {
				r >>= 16
			} else {
				r = ^(r >> 31)
			}
			g := yy1 + gc
			if uint32(g)&0xff000000 == 0 {
				g >>= 16
			} else {
				g = ^(g >> 31)
			}
			bl := yy1 + bc
			if uint32(bl)&0xff000000 == 0 {
				bl >>= 16
			} else {
				bl = ^(bl >> 31)
			}
			a := uint8(0xff)
			if as != nil {
				a = as[x]
			}
			d := dst[4*x : 4*x+4 : 4*x+4]
			d[0], d[1], d[2], d[3] = uint8(r), uint8(g), uint8(bl), a
		}
	}
}
