package trace

import "math/bits"

// Bitmap is a black-and-white image, row 0 at the top, stored 64 pixels to a word: pixel
// (x, y) is bit x%64 of word x/64 of row y. Bits past Width in a row's last word are
// always 0.
type Bitmap struct {
	// Width and Height are the size in pixels.
	Width, Height int
	stride        int // words per row
	words         []uint64
}

// NewBitmap returns an all-white w x h bitmap. Negative sizes count as 0.
func NewBitmap(w, h int) *Bitmap {
	w, h = max(w, 0), max(h, 0)
	stride := (w + 63) / 64
	return &Bitmap{Width: w, Height: h, stride: stride, words: make([]uint64, stride*h)}
}

// At reports whether pixel (x, y) is black; pixels outside the bitmap are white.
func (b *Bitmap) At(x, y int) bool {
	if uint(x) >= uint(b.Width) || uint(y) >= uint(b.Height) {
		return false
	}
	return b.words[y*b.stride+x>>6]>>(uint(x)&63)&1 != 0
}

// Set makes pixel (x, y) black, or white when black is false. Pixels outside the bitmap
// are ignored.
func (b *Bitmap) Set(x, y int, black bool) {
	if uint(x) >= uint(b.Width) || uint(y) >= uint(b.Height) {
		return
	}
	i, m := y*b.stride+x>>6, uint64(1)<<(uint(x)&63)
	if black {
		b.words[i] |= m
	} else {
		b.words[i] &^= m
	}
}

// Row returns the packed words of row y, for callers that fill a bitmap a word at a
// time. They must leave the bits past Width at 0.
func (b *Bitmap) Row(y int) []uint64 { return b.words[y*b.stride : (y+1)*b.stride] }

// Count returns the number of black pixels.
func (b *Bitmap) Count() int {
	n := 0
	for _, w := range b.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// flipped returns a copy of b with the rows in reverse order: the bitmap in Potrace's
// coordinate system, where row 0 is at the bottom and y grows upwards.
func (b *Bitmap) flipped() *Bitmap {
	f := &Bitmap{Width: b.Width, Height: b.Height, stride: b.stride, words: make([]uint64, len(b.words))}
	for y := 0; y < b.Height; y++ {
		copy(f.Row(b.Height-1-y), b.Row(y))
	}
	return f
}
