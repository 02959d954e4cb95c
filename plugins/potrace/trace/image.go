package trace

import (
	"encoding/binary"
	"image"
)

// Threshold returns the bitmap to trace for img: each pixel composited over white, black
// where its BT.601 luma 0.299 R + 0.587 G + 0.114 B is below threshold. The arithmetic is
// the bench's (shared/bench/lib/refs.mjs makes the PBM its potrace reference traces): the
// composite is rounded to float32 and the luma summed in float64 in that order, so both
// give the same bitmap bit for bit.
func Threshold(img *image.NRGBA, threshold float64) *Bitmap {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	bm := NewBitmap(w, h)
	if w <= 0 || h <= 0 {
		return bm
	}
	// Lineart is long runs of one colour: remember the last pixel's answer.
	var last uint32
	lastBlack := isBlack(0, 0, 0, 0, threshold)
	for y := 0; y < h; y++ {
		pix := img.Pix[y*img.Stride : y*img.Stride+4*w]
		words := bm.Row(y)
		var acc uint64
		for x := 0; x < w; x++ {
			if key := binary.LittleEndian.Uint32(pix[4*x:]); key != last {
				last, lastBlack = key, isBlack(uint8(key), uint8(key>>8), uint8(key>>16), uint8(key>>24), threshold)
			}
			if lastBlack {
				acc |= 1 << (uint(x) & 63)
			}
			if x&63 == 63 {
				words[x>>6] = acc
				acc = 0
			}
		}
		if w&63 != 0 {
			words[(w-1)>>6] = acc
		}
	}
	return bm
}

// isBlack reports whether a pixel composited over white has a luma below threshold.
func isBlack(r, g, b, a uint8, threshold float64) bool {
	return luma(r, g, b, a) < threshold
}
