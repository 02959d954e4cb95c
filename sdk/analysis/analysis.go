// Package analysis measures an image for the host's automatic engine and preset
// selection: how many colours it has, how much of it the main colours cover, how much of
// it is edges or smooth gradients, how saturated and how transparent it is. The sdk
// computes the measurements inside the plugin process, where the image is decoded, and
// sends the host a handful of numbers.
package analysis

import (
	"image"
	"sync"
)

// Feature names, the keys of the map Measure returns. Shares are fractions in [0, 1] of
// the sampled pixels (of the opaque ones where the name says so).
const (
	// Colors is the number of distinct colours among opaque pixels after quantising each
	// channel to 4 bits.
	Colors = "colors"
	// Top1Share, Top4Share, Top16Share: share of opaque pixels in the 1, 4, 16 most
	// common quantised colours.
	Top1Share  = "top1_share"
	Top4Share  = "top4_share"
	Top16Share = "top16_share"
	// EdgeShare: share of pixels whose luma differs from a neighbour by more than 48.
	EdgeShare = "edge_share"
	// GradientShare: share of pixels whose luma differs from a neighbour by 3..48: smooth
	// shading, as in photographs.
	GradientShare = "gradient_share"
	// FlatShare: share of pixels equal (within 2 luma levels) to both neighbours.
	FlatShare = "flat_share"
	// Saturation is the mean HSV saturation of opaque pixels, in [0, 1].
	Saturation = "saturation"
	// GrayShare: share of opaque pixels whose channels differ by less than 16.
	GrayShare = "gray_share"
	// ExtremeShare: share of opaque pixels with luma below 64 or above 192.
	ExtremeShare = "extreme_share"
	// TransparentShare: share of pixels with alpha below 128.
	TransparentShare = "transparent_share"
	// PartialAlphaShare: share of pixels with alpha strictly between 0 and 255.
	PartialAlphaShare = "partial_alpha_share"
	// TextureShare: share of sampled pixels off edges (no neighbour more than 48 luma
	// levels away) whose luma differs from the mean of its four neighbours by more than
	// 1.5 levels: the grain and texture of photographs. Flat art, and the smooth
	// gradients of drawn art, have almost none; pixels on the image's border are not
	// counted.
	TextureShare = "texture_share"
	// Top16FineShare: share of opaque pixels in the 16 most common colours after
	// quantising each channel to 6 bits: where Top16Share (4 bits) cannot tell a slow
	// gradient's many close colours from one flat colour.
	Top16FineShare = "top16_fine_share"
	// Megapixels is width x height / 1e6.
	Megapixels = "megapixels"
)

// maxSamples bounds the pixels visited (on a regular grid), so that measuring costs
// well under a millisecond whatever the image's size; the shares it estimates move by
// well under a percent against visiting every pixel.
const maxSamples = 1 << 14

// fineHist counts colours at 6 bits per channel; used lists the bins counted, so that
// reading and clearing them costs the samples, not the 2^18 bins. Counts fit uint16: at
// most maxSamples pixels are counted.
type fineHist struct {
	counts [1 << 18]uint16
	used   []int32
}

func (h *fineHist) reset() {
	for _, k := range h.used {
		h.counts[k] = 0
	}
	h.used = h.used[:0]
	finePool.Put(h)
}

var finePool = sync.Pool{New: func() any { return new(fineHist) }}

// Measure returns the features of img. It samples a regular grid of rows and columns
// when the image is large; the result is deterministic.
func Measure(img *image.NRGBA) map[string]float64 {
	b := img.Rect
	w, h := b.Dx(), b.Dy()
	f := map[string]float64{Megapixels: float64(w) * float64(h) / 1e6}
	if w == 0 || h == 0 {
		return f
	}
	step := 1
	for (w/step)*(h/step) > maxSamples {
		step++
	}
	var hist [4096]uint32
	fb := finePool.Get().(*fineHist)
	defer fb.reset()
	fine := &fb.counts
	var n, opaque, transparent, partial, edge, gradient, flat, gray, extreme, inner, texture int
	var satSum float64
	var inv [256]float64 // 1/v, for the saturation (max-min)/max without a division
	for v := 1; v < 256; v++ {
		inv[v] = 1 / float64(v)
	}
	// luma is BT.601 luma composited over white, so transparent areas read as background.
	luma := func(p []uint8) int {
		a := int(p[3])
		l := (299*int(p[0]) + 587*int(p[1]) + 114*int(p[2])) / 1000
		return (l*a + 255*(255-a)) / 255
	}
	for y := 0; y < h; y += step {
		row := y * img.Stride
		for x := 0; x < w; x += step {
			i := row + x*4
			p := img.Pix[i : i+4 : i+4]
			n++
			if p[3] < 128 {
				transparent++
			}
			if p[3] > 0 && p[3] < 255 {
				partial++
			}
			l := luma(p)
			d := 0
			if x+1 < w {
				d = abs(l - luma(img.Pix[i+4:i+8:i+8]))
			}
			if y+1 < h {
				d = max(d, abs(l-luma(img.Pix[i+img.Stride:i+img.Stride+4:i+img.Stride+4])))
			}
			if x > 0 && y > 0 && x+1 < w && y+1 < h && d <= 48 {
				left := luma(img.Pix[i-4 : i : i])
				up := luma(img.Pix[i-img.Stride : i-img.Stride+4 : i-img.Stride+4])
				if abs(l-left) <= 48 && abs(l-up) <= 48 {
					inner++
					right := luma(img.Pix[i+4 : i+8 : i+8])
					down := luma(img.Pix[i+img.Stride : i+img.Stride+4 : i+img.Stride+4])
					if abs(4*l-left-up-right-down) > 6 {
						texture++
					}
				}
			}
			switch {
			case d > 48:
				edge++
			case d >= 3:
				gradient++
			default:
				if d <= 2 {
					flat++
				}
			}
			if p[3] < 128 {
				continue
			}
			opaque++
			hist[int(p[0]>>4)<<8|int(p[1]>>4)<<4|int(p[2]>>4)]++
			k := int(p[0]>>2)<<12 | int(p[1]>>2)<<6 | int(p[2]>>2)
			if fine[k] == 0 {
				fb.used = append(fb.used, int32(k))
			}
			fine[k]++
			mx := max(p[0], p[1], p[2])
			mn := min(p[0], p[1], p[2])
			satSum += float64(mx-mn) * inv[mx]
			if mx-mn < 16 {
				gray++
			}
			if l < 64 || l > 192 {
				extreme++
			}
		}
	}
	share := func(k, of int) float64 { return float64(k) / float64(of) }
	f[EdgeShare] = share(edge, n)
	f[GradientShare] = share(gradient, n)
	f[FlatShare] = share(flat, n)
	f[TransparentShare] = share(transparent, n)
	f[PartialAlphaShare] = share(partial, n)
	if inner > 0 {
		f[TextureShare] = share(texture, inner)
	}
	if opaque == 0 {
		return f
	}
	counts := make([]uint32, 0, 64)
	for _, c := range hist {
		if c > 0 {
			counts = append(counts, c)
		}
	}
	f[Colors] = float64(len(counts))
	top := topCounts(counts, 16)
	var sum float64
	for i, c := range top {
		sum += float64(c)
		switch i {
		case 0:
			f[Top1Share] = sum / float64(opaque)
		case 3:
			f[Top4Share] = sum / float64(opaque)
		}
	}
	if len(top) < 4 {
		f[Top4Share] = sum / float64(opaque)
	}
	f[Top16Share] = sum / float64(opaque)
	fineCounts := make([]uint32, 0, len(fb.used))
	for _, k := range fb.used {
		fineCounts = append(fineCounts, uint32(fine[k]))
	}
	var fineSum float64
	for _, c := range topCounts(fineCounts, 16) {
		fineSum += float64(c)
	}
	f[Top16FineShare] = fineSum / float64(opaque)
	f[Saturation] = satSum / float64(opaque)
	f[GrayShare] = share(gray, opaque)
	f[ExtremeShare] = share(extreme, opaque)
	return f
}

// topCounts returns the k largest counts, largest first.
func topCounts(counts []uint32, k int) []uint32 {
	top := make([]uint32, 0, k+1)
	for _, c := range counts {
		i := len(top)
		for i > 0 && top[i-1] < c {
			i--
		}
		if i >= k {
			continue
		}
		top = append(top, 0)
		copy(top[i+1:], top[i:])
		top[i] = c
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
