package trace

import (
	"image"
	"math"
	"math/bits"
)

// SauvolaR is the dynamic range of the standard deviation in Sauvola's threshold, for
// 8-bit gray levels: half the range, as Sauvola and Pietikäinen (2000) use it.
const SauvolaR = 128

// AdaptiveThreshold returns the bitmap to trace for img under uneven lighting: each pixel
// composited over white (as Threshold does), black where its luma is below Sauvola's
// local threshold (J. Sauvola, M. Pietikäinen, "Adaptive document image binarization",
// Pattern Recognition 33, 2000):
//
//	T = m · (1 + k · (s / R − 1))
//
// with m and s the mean and standard deviation of the luma in the window x window square
// around the pixel (clipped to the image), R = SauvolaR and k the sensitivity (0.2 to 0.5
// in the paper; larger keeps less). On a flat background s is small and T falls well
// below m, so shading and stains stay white; at a stroke's edge s is large and T is near
// m. A gradient of lighting across the page moves m, and T with it, where one global
// threshold would turn the darker side black. Luma is rounded to whole levels so that the
// window sums are exact integers: the same image gives the same bitmap on any machine.
// A window flatter than minContrast (s in levels) holds no stroke edge to set a threshold
// from: it is paper, or the inside of a shape wider than the window. Such a pixel is
// black when it is darker than half the paper's brightness nearby, taken as the
// brightest mean of the blocks of 4 x window pixels around its own (3 x 3 blocks): a
// solid shape up to about a block and a half wide stays black inside, and paper in
// shadow stays white. An image with no contrast at all is thresholded globally at 128.
func AdaptiveThreshold(img *image.NRGBA, window int, k float64) *Bitmap {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	bm := NewBitmap(w, h)
	if w <= 0 || h <= 0 {
		return bm
	}
	r := max(1, window/2)
	paper := paperLevels(img, 4*(2*r+1))
	lumaRow := func(y int, dst []int32) {
		pix := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := range w {
			dst[x] = int32(math.Round(luma(pix[4*x], pix[4*x+1], pix[4*x+2], pix[4*x+3])))
		}
	}
	// Column sums of luma and its square over the rows of the window around row y.
	col := make([]int64, w)
	colSq := make([]int64, w)
	row := make([]int32, w)
	cur := make([]int32, w)
	add := func(y int, sign int64) {
		lumaRow(y, row)
		for x, v := range row {
			col[x] += sign * int64(v)
			colSq[x] += sign * int64(v) * int64(v)
		}
	}
	for y := 0; y <= min(r, h-1); y++ {
		add(y, 1)
	}
	for y := 0; y < h; y++ {
		if y > 0 {
			if y+r < h {
				add(y+r, 1)
			}
			if y-r-1 >= 0 {
				add(y-r-1, -1)
			}
		}
		rows := int64(min(h-1, y+r) - max(0, y-r) + 1)
		lumaRow(y, cur)
		var s, sq int64
		for x := 0; x <= min(r, w-1); x++ {
			s += col[x]
			sq += colSq[x]
		}
		for x := 0; x < w; x++ {
			if x > 0 {
				if x+r < w {
					s += col[x+r]
					sq += colSq[x+r]
				}
				if x-r-1 >= 0 {
					s -= col[x-r-1]
					sq -= colSq[x-r-1]
				}
			}
			n := float64(rows * int64(min(w-1, x+r)-max(0, x-r)+1))
			m := float64(s) / n
			sd := math.Sqrt(max(0, float64(sq)/n-m*m))
			v := float64(cur[x])
			var black bool
			if sd < minContrast {
				black = v < paper(x, y)/2
			} else {
				black = v < m*(1+k*(sd/SauvolaR-1))
			}
			if black {
				bm.Set(x, y, true)
			}
		}
	}
	return bm
}

// minContrast: see AdaptiveThreshold.
const minContrast = 8

// paperLevels returns, for a pixel, the brightest mean luma of the block x block blocks
// around its own (3 x 3), or 256 when the whole image is flatter than minContrast: a
// uniform image is then thresholded at 128, as by Threshold's default.
func paperLevels(img *image.NRGBA, block int) func(x, y int) float64 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	gw, gh := (w+block-1)/block, (h+block-1)/block
	sum := make([]float64, gw*gh)
	n := make([]float64, gw*gh)
	lo, hi := math.Inf(1), math.Inf(-1)
	for y := 0; y < h; y++ {
		pix := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := 0; x < w; x++ {
			v := math.Round(luma(pix[4*x], pix[4*x+1], pix[4*x+2], pix[4*x+3]))
			i := (y/block)*gw + x/block
			sum[i] += v
			n[i]++
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if hi-lo < minContrast {
		return func(int, int) float64 { return 256 }
	}
	best := make([]float64, gw*gh)
	for by := 0; by < gh; by++ {
		for bx := 0; bx < gw; bx++ {
			m := 0.0
			for j := max(0, by-1); j <= min(gh-1, by+1); j++ {
				for i := max(0, bx-1); i <= min(gw-1, bx+1); i++ {
					m = max(m, sum[j*gw+i]/n[j*gw+i])
				}
			}
			best[by*gw+bx] = m
		}
	}
	return func(x, y int) float64 { return best[(y/block)*gw+x/block] }
}

// luma is a pixel's BT.601 luma composited over white. The explicit float64 conversions
// keep the compiler from fusing multiply-adds, which would round differently from the
// bench's JavaScript.
func luma(r, g, b, a uint8) float64 {
	var cr, cg, cb float64
	if a == 255 {
		cr, cg, cb = float64(r), float64(g), float64(b)
	} else {
		al := float64(a) / 255
		bg := float64(255 * (1 - al))
		cr = float64(float32(float64(float64(r)*al) + bg))
		cg = float64(float32(float64(float64(g)*al) + bg))
		cb = float64(float32(float64(float64(b)*al) + bg))
	}
	return float64(float64(0.299*cr)+float64(0.587*cg)) + float64(0.114*cb)
}

// AutoThreshold returns Threshold's bitmap, or AdaptiveThreshold's when the global
// threshold fails the image the way it fails a page in uneven light: it makes black
// more than a twentieth of the image that the adaptive threshold calls paper, and those
// pixels are on average lighter than half the threshold (shadowed paper, not the inside
// of a dark shape, which the adaptive threshold may leave white when it is wider than
// its window). On clean line art the two bitmaps differ only along edges, well under
// a twentieth, so the global one, Potrace's, is kept.
func AutoThreshold(img *image.NRGBA, threshold float64, window int, k float64) *Bitmap {
	global := Threshold(img, threshold)
	adaptive := AdaptiveThreshold(img, window, k)
	w, h := img.Rect.Dx(), img.Rect.Dy()
	only, sum := 0, 0.0
	for y := 0; y < h; y++ {
		g, a := global.Row(y), adaptive.Row(y)
		for i := range g {
			extra := g[i] &^ a[i]
			for extra != 0 {
				x := i*64 + bits.TrailingZeros64(extra)
				extra &= extra - 1
				p := img.Pix[y*img.Stride+4*x:]
				only++
				sum += luma(p[0], p[1], p[2], p[3])
			}
		}
	}
	if only*20 > w*h && sum/float64(only) > threshold/2 {
		return adaptive
	}
	return global
}
