// Package ink turns an image into ink coverage and a binary ink mask: a grey level per
// pixel (how dark the ink is, composited over white) and the pixels counted as ink by a
// fixed threshold, Otsu's global threshold or Sauvola's adaptive one. The buffers of
// the images and masks a caller gives back (Release) are kept for the next calls (one
// of each kind of at most 4 MB outside a sync.Pool).
package ink

import (
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"math"

	"github.com/tracecraft/tracecraft/plugins/centerline/internal/grain"
	"github.com/tracecraft/tracecraft/plugins/centerline/internal/keep"
	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// Mode is how the ink/paper threshold is chosen.
type Mode int

const (
	// Fixed counts a pixel as ink when its darkness exceeds 255 - Level.
	Fixed Mode = iota
	// Otsu chooses the global level that best separates two classes of darkness.
	Otsu
	// Adaptive compares each pixel with its neighbourhood (Sauvola), for uneven lighting.
	Adaptive
	// Auto divides out the paper's lighting when it is uneven (Flatten) and then
	// thresholds like Fixed.
	Auto
)

// ParseMode returns the Mode called s: "fixed", "otsu", "adaptive" or "auto".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "fixed":
		return Fixed, nil
	case "otsu":
		return Otsu, nil
	case "adaptive":
		return Adaptive, nil
	case "auto":
		return Auto, nil
	}
	return 0, fmt.Errorf("unknown threshold mode %q", s)
}

// Image is a grey image of ink darkness: 0 is paper (white), 255 full ink.
type Image struct {
	W, H int
	Pix  []uint8
}

// At returns the darkness at (x, y), 0 outside the image.
func (m *Image) At(x, y int) uint8 {
	if x < 0 || y < 0 || x >= m.W || y >= m.H {
		return 0
	}
	return m.Pix[y*m.W+x]
}

// Bilinear returns the darkness at the real point (x, y) in pixel-centre coordinates
// (the centre of pixel (i, j) is (i+0.5, j+0.5)), interpolated, in [0, 1].
func (m *Image) Bilinear(x, y float64) float64 {
	x -= 0.5
	y -= 0.5
	if x >= 0 && y >= 0 && x < float64(m.W-1) && y < float64(m.H-1) {
		// Inside (most samples): the two pixels of each row read as one slice, and the
		// floor of a coordinate that is not negative is its integer part.
		i, j := int(x), int(y)
		fx, fy := x-float64(i), y-float64(j)
		k := j*m.W + i
		p, q := m.Pix[k:k+2:k+2], m.Pix[k+m.W:k+m.W+2:k+m.W+2]
		v00, v10, v01, v11 := p[0], p[1], q[0], q[1]
		a := float64(v00)*(1-fx) + float64(v10)*fx
		b := float64(v01)*(1-fx) + float64(v11)*fx
		return (a*(1-fy) + b*fy) / 255
	}
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := x-x0, y-y0
	i, j := int(x0), int(y0)
	v00, v10, v01, v11 := m.At(i, j), m.At(i+1, j), m.At(i, j+1), m.At(i+1, j+1)
	a := float64(v00)*(1-fx) + float64(v10)*fx
	b := float64(v01)*(1-fx) + float64(v11)*fx
	return (a*(1-fy) + b*fy) / 255
}

// Darkness returns the darkness of img composited over white: 255 minus the luma
// (0.299 R + 0.587 G + 0.114 B), as potrace's threshold measures it.
func Darkness(img *image.NRGBA) *Image { return overWhite(img, true) }

// overWhite returns 255 minus the lightness of each pixel of img composited over white,
// where lightness measures an opaque colour (0..255): its integer luma in 1/1000ths
// (luma true), or its darkest channel.
func overWhite(img *image.NRGBA, luma bool) *Image {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	pix, dirty := keep.Take(&pixCache, w*h)
	out := &Image{W: w, H: h, Pix: pix}
	_ = parallel.For(context.Background(), h, grain.Lines(h, w, 32), func(_, lo, hi int) {
		for y := lo; y < hi; y++ {
			row := img.Pix[y*img.Stride : y*img.Stride+4*w]
			dst := out.Pix[y*w : (y+1)*w]
			if dirty {
				clear(dst) // (a buffer given back: the paper below is not written)
			}
			// Two pixels (eight bytes) at a time, and four along paper: most of a
			// drawing is paper, transparent or opaque white, whose darkness is 0 (dst
			// is 0 already), and much of the rest solid black.
			x := 0
			for ; x+1 < len(dst); x += 2 {
				two := binary.LittleEndian.Uint64(row[4*x:])
				if paper(two) {
					// Paper: the pixels after it too, while they are; eight at a time
					// while they are all opaque white or all transparent, then four.
					for x+9 < len(dst) {
						e := row[4*x+8 : 4*x+40 : 4*x+40]
						a, b := binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint64(e[8:])
						c, d := binary.LittleEndian.Uint64(e[16:]), binary.LittleEndian.Uint64(e[24:])
						if a&b&c&d != 1<<64-1 && (a|b|c|d)&0xff000000_ff000000 != 0 {
							break
						}
						x += 8
					}
					for x+5 < len(dst) {
						four := row[4*x+8 : 4*x+24 : 4*x+24]
						if !paper(binary.LittleEndian.Uint64(four)) || !paper(binary.LittleEndian.Uint64(four[8:])) {
							break
						}
						x += 4
					}
					continue
				}
				switch {
				case two == 0xff000000_ff000000:
					dst[x], dst[x+1] = 255, 255
					// Solid black: the pixels after it too, while they are, eight at
					// a time (the filled areas of a drawing).
					for x+9 < len(dst) {
						e := row[4*x+8 : 4*x+40 : 4*x+40]
						a, b := binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint64(e[8:])
						c, d := binary.LittleEndian.Uint64(e[16:]), binary.LittleEndian.Uint64(e[24:])
						if a != 0xff000000_ff000000 || b != a || c != a || d != a {
							break
						}
						binary.LittleEndian.PutUint64(dst[x+2:], 1<<64-1)
						x += 8
					}
				case two&0xff000000_ff000000 == 0xff000000_ff000000 && two&0xffffff_00ffffff == (two&0xff_000000ff)*0x010101:
					// Two opaque greys (a grey scan's paper and ink): 255 less each.
					dst[x], dst[x+1] = 255-uint8(two), 255-uint8(two>>32)
				default:
					dst[x], dst[x+1] = darkness(uint32(two), luma), darkness(uint32(two>>32), luma)
				}
			}
			if x < len(dst) {
				dst[x] = darkness(binary.LittleEndian.Uint32(row[4*x:]), luma)
			}
		}
	})
	return out
}

// paper says whether the two pixels of two (R, G, B and A of each from its low byte
// up) are paper: transparent or opaque white.
func paper(two uint64) bool {
	return two&0xff000000_ff000000 == 0 || two == 0xffffffff_ffffffff
}

// darkness is 255 minus the lightness of pixel px (R, G, B and A from its low byte up)
// composited over white (see overWhite).
func darkness(px uint32, luma bool) uint8 {
	if px < 1<<24 {
		return 0 // transparent: paper
	}
	r, g, b, a := int(px&0xff), int(px>>8&0xff), int(px>>16&0xff), int(px>>24)
	var l int
	switch {
	case r == g && g == b:
		l = r // grey: its luma and its darkest channel
	case luma:
		l = (299*r + 587*g + 114*b + 500) / 1000
	default:
		l = min(r, g, b)
	}
	if a != 255 {
		l = (l*a + 255*(255-a) + 127) / 255
	}
	return uint8(255 - l)
}

// Mask is a binary image: true marks ink.
type Mask struct {
	W, H int
	Pix  []bool
}

// NewMask returns an empty w x h mask.
func NewMask(w, h int) *Mask { return &Mask{W: w, H: h, Pix: make([]bool, w*h)} }

// Count returns the number of ink pixels.
func (m *Mask) Count() int {
	n := 0
	for _, v := range m.Pix {
		if v {
			n++
		}
	}
	return n
}

// Binarise returns the darkness to measure the ink on and its ink mask: in Auto mode g
// with dim or uneven lighting divided out (Flatten) and its ink stretched to black
// (Stretch), thresholded as in Fixed mode; in the others g itself and Threshold's mask.
func Binarise(g *Image, mode Mode, level float64) (*Image, *Mask) {
	if mode == Auto {
		// The fixed threshold's mask is found in Flatten's read of g, and kept unless
		// the lighting is divided out.
		// The mask's buffer may be one given back: flatten clears what it sets.
		pix, _ := keep.Take(&maskCache, len(g.Pix))
		m := &Mask{W: g.W, H: g.H, Pix: pix}
		f, dim, found := flatten(g, m.Pix, fixedLevel(level))
		if !dim && found {
			return g, m
		}
		if g = f; dim {
			Stretch(g)
		}
		Release(nil, m) // for Threshold's mask
		mode = Fixed
	}
	return g, Threshold(g, mode, level)
}

// Release gives back the buffers of a darkness image and a mask that Darkness,
// Strength, Binarise or Threshold returned (either may be nil), for the later calls to
// fill instead of allocating them: on the horse of the line-art corpus they were 262
// KB of the 670 KB a centre-line trace allocated. The caller must not use g or m after.
// One buffer of each kind of at most keep.MaxPixels bytes is kept outside a sync.Pool.
func Release(g *Image, m *Mask) {
	if g != nil && cap(g.Pix) > 0 {
		pix := g.Pix
		pixCache.Put(&pix, cap(pix) <= keep.MaxPixels)
	}
	if m != nil && cap(m.Pix) > 0 {
		pix := m.Pix
		maskCache.Put(&pix, cap(pix) <= keep.MaxPixels)
	}
}

// The buffers given back with Release: darkness images' and masks'.
var (
	pixCache  keep.Cache[[]uint8]
	maskCache keep.Cache[[]bool]
)

// fixedLevel returns the darkness above which a pixel is ink at luma threshold level
// in Fixed mode: darkness is whole, so above 255 - level means above its floor (and no
// level that is not a number makes anything ink).
func fixedLevel(level float64) int {
	tb := 255
	if t := math.Floor(255 - level); t < 255 {
		tb = int(max(t, -1))
	}
	return tb
}

// Threshold returns the ink mask of g: pixels whose darkness is above 255 - level in
// Fixed (or Auto) mode (level is the luma threshold, as potrace's), above Otsu's
// level, or above Sauvola's local level over a window of about four line widths.
func Threshold(g *Image, mode Mode, level float64) *Mask {
	pix, dirty := keep.Take(&maskCache, len(g.Pix))
	m := &Mask{W: g.W, H: g.H, Pix: pix} // Otsu and sauvola set every pixel
	switch mode {
	case Otsu:
		t := OtsuLevel(g)
		for i, v := range g.Pix {
			m.Pix[i] = v > t
		}
	case Adaptive:
		sauvola(g, m, 0.2)
	default:
		tb := fixedLevel(level)
		_ = parallel.For(context.Background(), len(g.Pix), grain.Pixels(len(g.Pix), 1<<16), func(_, lo, hi int) {
			pix, out := g.Pix[lo:hi], m.Pix[lo:hi]
			if dirty {
				clear(out) // (a buffer given back: the paper below is not written)
			}
			// Eight pixels of paper (darkness 0, never ink unless tb < 0) at a time:
			// most of a drawing is paper, and out is false there already.
			i := 0
			if tb >= 0 {
				for ; i+8 <= len(pix); i += 8 {
					if binary.LittleEndian.Uint64(pix[i:]) == 0 {
						continue
					}
					for k, v := range pix[i : i+8] {
						out[i+k] = int(v) > tb
					}
				}
			}
			for k, v := range pix[i:] {
				out[i+k] = int(v) > tb
			}
		})
	}
	return m
}

// OtsuLevel returns the darkness that maximises the between-class variance of g's
// histogram (Otsu 1979); pixels above it are ink.
func OtsuLevel(g *Image) uint8 { return otsuOf(histogram(g)) }

// histogram returns the number of g's pixels at each darkness, counted in bands of the
// image across the machine's cores (whole numbers: the same sums in any order).
func histogram(g *Image) [256]float64 {
	parts := make([][256]int, parallel.Workers(len(g.Pix), grain.Pixels(len(g.Pix), 1<<16)))
	_ = parallel.For(context.Background(), len(g.Pix), grain.Pixels(len(g.Pix), 1<<16), func(worker, lo, hi int) {
		h := &parts[worker]
		for _, v := range g.Pix[lo:hi] {
			h[v]++
		}
	})
	var hist [256]float64
	for _, h := range parts {
		for v, c := range h {
			hist[v] += float64(c)
		}
	}
	return hist
}

// otsuOf is OtsuLevel of the histogram hist.
func otsuOf(hist [256]float64) uint8 {
	var total float64
	for _, c := range hist {
		total += c
	}
	var sum float64
	for i, c := range hist {
		sum += float64(i) * c
	}
	var wB, sumB, best float64
	level := uint8(127)
	for t := 0; t < 255; t++ {
		wB += hist[t]
		if wB == 0 {
			continue
		}
		wF := total - wB
		if wF == 0 {
			break
		}
		sumB += float64(t) * hist[t]
		mB, mF := sumB/wB, (sum-sumB)/wF
		if v := wB * wF * (mB - mF) * (mB - mF); v > best {
			best, level = v, uint8(t)
		}
	}
	return level
}

// sauvola thresholds g locally (Sauvola and Pietikäinen 2000): a pixel is ink when its
// brightness is below mean * (1 + k (sd/128 - 1)) over a window, computed with summed
// area tables. Pixels barely darker than paper (darkness under 32) are never ink, so
// flat paper does not turn to noise.
func sauvola(g *Image, m *Mask, k float64) {
	w, h := g.W, g.H
	r := max(7, min(w, h)/40)
	sum := make([]float64, (w+1)*(h+1))
	sq := make([]float64, (w+1)*(h+1))
	for y := 0; y < h; y++ {
		var rs, rq float64
		for x := 0; x < w; x++ {
			v := 255 - float64(g.Pix[y*w+x])
			rs += v
			rq += v * v
			sum[(y+1)*(w+1)+x+1] = sum[y*(w+1)+x+1] + rs
			sq[(y+1)*(w+1)+x+1] = sq[y*(w+1)+x+1] + rq
		}
	}
	for y := 0; y < h; y++ {
		y0, y1 := max(0, y-r), min(h, y+r+1)
		for x := 0; x < w; x++ {
			x0, x1 := max(0, x-r), min(w, x+r+1)
			n := float64((x1 - x0) * (y1 - y0))
			s := sum[y1*(w+1)+x1] - sum[y0*(w+1)+x1] - sum[y1*(w+1)+x0] + sum[y0*(w+1)+x0]
			q := sq[y1*(w+1)+x1] - sq[y0*(w+1)+x1] - sq[y1*(w+1)+x0] + sq[y0*(w+1)+x0]
			mean := s / n
			sd := math.Sqrt(math.Max(0, q/n-mean*mean))
			t := mean * (1 + k*(sd/128-1))
			d := g.Pix[y*w+x]
			m.Pix[y*w+x] = d >= 32 && 255-float64(d) < t
		}
	}
}
