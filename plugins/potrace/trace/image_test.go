package trace

import (
	"image"
	"image/color"
	"testing"
)

// fill returns a w x h image of one colour.
func fill(w, h int, c color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

func TestThresholdCompositesOverWhiteAndComparesLuma(t *testing.T) {
	tests := []struct {
		name      string
		c         color.NRGBA
		threshold float64
		black     bool
	}{
		{"black", color.NRGBA{A: 255}, 128, true},
		{"white", color.NRGBA{255, 255, 255, 255}, 128, false},
		{"gray 127 is black", color.NRGBA{127, 127, 127, 255}, 128, true},
		// In floating point 0.299*128 + 0.587*128 + 0.114*128 is 127.99999999999999,
		// in the bench's JavaScript as here: the bitmaps agree bit for bit.
		{"gray 128 is black, as in the bench's PBM", color.NRGBA{128, 128, 128, 255}, 128, true},
		{"gray 129 is white", color.NRGBA{129, 129, 129, 255}, 128, false},
		{"pure red (luma 76.2) is black", color.NRGBA{255, 0, 0, 255}, 128, true},
		{"pure green (luma 149.7) is white", color.NRGBA{0, 255, 0, 255}, 128, false},
		{"fully transparent black is white", color.NRGBA{0, 0, 0, 0}, 128, false},
		{"half transparent black is gray 127.5: black", color.NRGBA{0, 0, 0, 128}, 128, true},
		{"a little transparent black is light: white", color.NRGBA{0, 0, 0, 100}, 128, false},
		{"threshold 0: nothing is black", color.NRGBA{A: 255}, 0, false},
		{"threshold 255: white stays white", color.NRGBA{255, 255, 255, 255}, 255, false},
		{"threshold 255: gray 254 is black", color.NRGBA{254, 254, 254, 255}, 255, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := fill(3, 2, tt.c)
			bm := Threshold(img, tt.threshold)
			want := 0
			if tt.black {
				want = 6
			}
			if got := bm.Count(); got != want {
				t.Errorf("%d black pixels, want %d", got, want)
			}
		})
	}
}

func TestThresholdKeepsPixelPositions(t *testing.T) {
	img := fill(70, 3, color.NRGBA{255, 255, 255, 255})
	for _, p := range [][2]int{{0, 0}, {63, 1}, {64, 1}, {69, 2}} {
		img.SetNRGBA(p[0], p[1], color.NRGBA{A: 255})
	}
	// A sub-image whose Rect does not start at 0,0.
	sub := img.SubImage(image.Rect(1, 1, 70, 3)).(*image.NRGBA)
	bm := Threshold(sub, 128)
	if bm.Width != 69 || bm.Height != 2 || bm.Count() != 3 || !bm.At(62, 0) || !bm.At(63, 0) || !bm.At(68, 1) {
		t.Errorf("sub-image bitmap %dx%d with %d black pixels, want 69x2 with (62,0), (63,0), (68,1)", bm.Width, bm.Height, bm.Count())
	}
}
