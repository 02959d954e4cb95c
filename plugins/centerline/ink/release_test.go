package ink

import (
	"image"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomDrawing returns a w x h drawing on paper of brightness paper (transparent
// where paper is 0): strokes of black and grey dots, runs of paper long enough for
// overWhite's and Threshold's skips.
func randomDrawing(r *rand.Rand, w, h int, paper uint8) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		if paper > 0 {
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = paper, paper, paper, 255
		}
	}
	for range w * h / 40 {
		x, y, n := r.IntN(w), r.IntN(h), 1+r.IntN(12)
		v := uint8(r.IntN(2) * r.IntN(200))
		for k := range n {
			if x+k < w {
				i := y*img.Stride + 4*(x+k)
				img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = v, v, v, uint8(128+r.IntN(128))
			}
		}
	}
	return img
}

// TestReleasedBuffersGiveTheSameInk checks Darkness and Binarise on buffers given back
// with Release, filled with garbage first (and longer than needed), against their
// results on new buffers, in every mode, on white, transparent and dim paper (where
// Auto divides the lighting out and gives Threshold's mask back to it).
func TestReleasedBuffersGiveTheSameInk(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		w, h  int
		mode  Mode
		paper uint8
		extra int // more elements in the buffers given back
	}{
		{200, 150, Auto, 255, 0},
		{200, 150, Auto, 90, 13},
		{301, 77, Auto, 0, 5},
		{30, 20, Auto, 255, 1},
		{64, 64, Fixed, 255, 0},
		{97, 41, Otsu, 255, 40},
		{120, 90, Adaptive, 200, 3},
		{7, 300, Fixed, 0, 2},
	} {
		img := randomDrawing(r, tc.w, tc.h, tc.paper)
		g0, m0 := Binarise(Darkness(img), tc.mode, 128)
		wantG, wantM, wantD := slices.Clone(g0.Pix), slices.Clone(m0.Pix), slices.Clone(Darkness(img).Pix)
		n := tc.w*tc.h + tc.extra
		for range 2 { // one of each in the slot, the other in the pool
			g := &Image{Pix: make([]uint8, n)}
			m := &Mask{Pix: make([]bool, n)}
			for i := range n {
				g.Pix[i], m.Pix[i] = uint8(r.Uint32()), r.IntN(2) == 0
			}
			Release(g, m)
		}
		d := Darkness(img)
		if !slices.Equal(d.Pix, wantD) {
			t.Errorf("%dx%d paper %d: Darkness on a buffer given back differs", tc.w, tc.h, tc.paper)
		}
		g, m := Binarise(d, tc.mode, 128)
		if !slices.Equal(g.Pix, wantG) || !slices.Equal(m.Pix, wantM) {
			t.Errorf("%dx%d paper %d mode %d: Binarise on buffers given back differs", tc.w, tc.h, tc.paper, tc.mode)
		}
		// Empty the caches' slots for the next case's new buffers.
		pixCache.Get()
		maskCache.Get()
	}
}
