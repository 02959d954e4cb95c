package trace

import (
	"image"
	"image/color"
	"math"
)

// InkColour returns the colour of the ink bm found in img: the mean colour, composited
// over white, of the darker half (by luma) of the pixels bm marks black. A glyph's
// anti-aliased rim is lighter than its core and is left out, so the colour is the core's,
// the colour a renderer's own anti-aliasing blends from. Black when bm marks nothing.
func InkColour(img *image.NRGBA, bm *Bitmap) color.NRGBA {
	w, h := min(img.Rect.Dx(), bm.Width), min(img.Rect.Dy(), bm.Height)
	var count [256]int
	var sum [256][3]float64
	total := 0
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride:]
		for x := 0; x < w; x++ {
			if !bm.At(x, y) {
				continue
			}
			p := row[4*x : 4*x+4]
			al := float64(p[3]) / 255
			bg := 255 * (1 - al)
			r, g, b := float64(p[0])*al+bg, float64(p[1])*al+bg, float64(p[2])*al+bg
			l := int(math.Round(0.299*r + 0.587*g + 0.114*b))
			l = min(max(l, 0), 255)
			count[l]++
			sum[l][0] += r
			sum[l][1] += g
			sum[l][2] += b
			total++
		}
	}
	if total == 0 {
		return color.NRGBA{A: 255}
	}
	// The darker half: whole luma levels from the darkest up to the median's.
	var n int
	var acc [3]float64
	for l := 0; l < 256 && 2*n < total; l++ {
		n += count[l]
		for c := range acc {
			acc[c] += sum[l][c]
		}
	}
	ch := func(v float64) uint8 { return uint8(min(max(math.Round(v/float64(n)), 0), 255)) }
	return color.NRGBA{R: ch(acc[0]), G: ch(acc[1]), B: ch(acc[2]), A: 255}
}
