package ink

import (
	"image"
	"image/color"
	"sort"
)

// Strength returns how far each pixel of img, composited over white, is from white in
// its darkest channel: 255 - min(R, G, B). Unlike Darkness it sees light colours such
// as yellow as ink, for tracing strokes per colour.
func Strength(img *image.NRGBA) *Image {
	return overWhite(img, false)
}

// Palette clusters the colours of the ink pixels of img (those set in m) into at most
// k colours with k-means, seeded deterministically by the farthest-point rule from the
// darkest ink. It returns the colours, sorted dark to light, and the index of each
// pixel's colour (-1 for paper).
func Palette(img *image.NRGBA, m *Mask, k int) ([]color.NRGBA, []int) {
	w := m.W
	type rgb [3]float64
	var px []rgb
	var at []int
	for i, on := range m.Pix {
		if !on {
			continue
		}
		x, y := i%w, i/w
		p := img.Pix[y*img.Stride+4*x:]
		a := float64(p[3]) / 255
		px = append(px, rgb{float64(p[0])*a + 255*(1-a), float64(p[1])*a + 255*(1-a), float64(p[2])*a + 255*(1-a)})
		at = append(at, i)
	}
	labels := make([]int, len(m.Pix))
	for i := range labels {
		labels[i] = -1
	}
	if len(px) == 0 {
		return nil, labels
	}
	dist := func(a, b rgb) float64 {
		d0, d1, d2 := a[0]-b[0], a[1]-b[1], a[2]-b[2]
		return d0*d0 + d1*d1 + d2*d2
	}
	// Seeds: the darkest pixel, then repeatedly the pixel farthest from every seed,
	// while it is far enough (about 40 levels) to be a colour of its own.
	darkest := 0
	for i, p := range px {
		if p[0]+p[1]+p[2] < px[darkest][0]+px[darkest][1]+px[darkest][2] {
			darkest = i
		}
	}
	centres := []rgb{px[darkest]}
	near := make([]float64, len(px))
	for i, p := range px {
		near[i] = dist(p, centres[0])
	}
	for len(centres) < k {
		far := 0
		for i := range px {
			if near[i] > near[far] {
				far = i
			}
		}
		if near[far] < 40*40*3 {
			break
		}
		centres = append(centres, px[far])
		for i, p := range px {
			near[i] = min(near[i], dist(p, px[far]))
		}
	}
	lab := make([]int, len(px))
	for iter := 0; iter < 8; iter++ {
		sums := make([]rgb, len(centres))
		counts := make([]float64, len(centres))
		for i, p := range px {
			best := 0
			for c := range centres {
				if dist(p, centres[c]) < dist(p, centres[best]) {
					best = c
				}
			}
			lab[i] = best
			for j := 0; j < 3; j++ {
				sums[best][j] += p[j]
			}
			counts[best]++
		}
		for c := range centres {
			if counts[c] > 0 {
				for j := 0; j < 3; j++ {
					centres[c][j] = sums[c][j] / counts[c]
				}
			}
		}
	}
	order := make([]int, len(centres))
	for i := range order {
		order[i] = i
	}
	lum := func(c rgb) float64 { return 0.299*c[0] + 0.587*c[1] + 0.114*c[2] }
	sort.SliceStable(order, func(a, b int) bool { return lum(centres[order[a]]) < lum(centres[order[b]]) })
	rank := make([]int, len(centres))
	cols := make([]color.NRGBA, len(centres))
	for r, c := range order {
		rank[c] = r
		cols[r] = color.NRGBA{uint8(centres[c][0] + 0.5), uint8(centres[c][1] + 0.5), uint8(centres[c][2] + 0.5), 255}
	}
	for i, p := range at {
		labels[p] = rank[lab[i]]
	}
	return cols, labels
}
