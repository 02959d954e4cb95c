// Package testimg draws the small images with known answers that tracecraft's unit tests
// share.
package testimg

import (
	"image"
	"image/color"
)

// Colours used by the test images.
var (
	White = color.NRGBA{255, 255, 255, 255}
	Red   = color.NRGBA{200, 30, 40, 255}
	Blue  = color.NRGBA{30, 60, 200, 255}
	Green = color.NRGBA{20, 140, 60, 255}
	Clear = color.NRGBA{}
)

// Paint returns a w x h image whose pixel (x, y) has colour at(x, y).
func Paint(w, h int, at func(x, y int) color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, at(x, y))
		}
	}
	return img
}

// TwoRects returns a w x h image: red on the left half, blue on the right, sharing the
// vertical boundary x = w/2.
func TwoRects(w, h int) *image.NRGBA {
	return Paint(w, h, func(x, y int) color.NRGBA {
		if x < w/2 {
			return Red
		}
		return Blue
	})
}

// Ring returns a size x size image: a red square ring, size/4 thick, on bg, with bg in its
// hole too (the hole is a separate region of the same colour).
func Ring(size int, bg color.NRGBA) *image.NRGBA {
	t := size / 4
	return Paint(size, size, func(x, y int) color.NRGBA {
		in := func(m int) bool { return x >= m && x < size-m && y >= m && y < size-m }
		if in(t/2) && !in(t/2+t) {
			return Red
		}
		return bg
	})
}

// Nested returns a w x h white image holding a blue rectangle, a red rectangle inside it
// and a green one inside that, plus a red bar beside them: shapes in holes of shapes.
func Nested(w, h int) *image.NRGBA {
	return Paint(w, h, func(x, y int) color.NRGBA {
		in := func(x0, y0, x1, y1 int) bool { return x >= x0 && x < x1 && y >= y0 && y < y1 }
		switch {
		case in(12, 12, 20, 20):
			return Green
		case in(8, 8, 24, 24):
			return Red
		case in(4, 4, 28, 28):
			return Blue
		case in(32, 4, 38, 28):
			return Red
		}
		return White
	})
}
