package trace

import (
	"context"
	"image"
	"image/color"
	"slices"

	"github.com/tracecraft/tracecraft/plugins/vtracer/cluster"
	"github.com/tracecraft/tracecraft/sdk/label"
)

// traceBW traces the dark pixels of img (see Binarize) as black shapes, without colour
// clustering: with two colours nothing merges, so the shapes are the 4-connected areas of
// dark pixels, those smaller than FilterSpeckle² dropped (unless no area is that large),
// drawn larger first and, between equal areas, the one whose first pixel comes later in
// raster order first. These are the shapes, in the order, that clustering Binarize's
// image gives, found with one labelling pass and no per-pixel colour image.
func traceBW(ctx context.Context, img *image.NRGBA, o Options) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	lab, n, err := labelDark(ctx, img)
	if err != nil {
		return nil, err
	}
	area := make([]int32, n)
	for _, l := range lab {
		if l >= 0 {
			area[l]++
		}
	}
	speckle := int32(o.FilterSpeckle * o.FilterSpeckle)
	big := false
	for _, a := range area {
		big = big || a >= speckle
	}
	var order []int32
	for c, a := range area {
		if !big || a >= speckle {
			order = append(order, int32(c))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		if area[a] != area[b] {
			return int(area[b] - area[a])
		}
		return int(b - a)
	})
	// The pixels below the top edges of each kept area, grouped by area in raster order
	// (a counting sort): the walker starts there.
	first := make([]int32, n+1) // first[c] is where area c's pixels start in starts
	for p, l := range lab {
		if l >= 0 && (p < w || lab[p-w] != l) && (!big || area[l] >= speckle) {
			first[l+1]++
		}
	}
	for c := 1; c <= n; c++ {
		first[c] += first[c-1]
	}
	starts := make([]int32, first[n])
	fill := area // the areas are no longer needed: reuse them as fill cursors
	copy(fill, first[:n])
	for p, l := range lab {
		if l >= 0 && (p < w || lab[p-w] != l) && (!big || first[l+1] > first[l]) {
			starts[fill[l]] = int32(p)
			fill[l]++
		}
	}
	wr := newWriter(w, h, o)
	black := color.NRGBA{A: 0xff}
	if len(o.Palette) > 0 {
		black = cluster.Nearest(o.Palette, black)
	}
	for i, c := range order {
		if i&63 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		wr.shape(starts[first[c]:first[c+1]], func(p int) bool { return lab[p] == c }, black)
	}
	return wr.finish(), nil
}

// labelDark returns, per pixel (y*w + x), the index of the 4-connected area of dark
// pixels (see dark) holding it, or -1 for a light pixel, and the number of areas. Areas
// are numbered in raster order of their first pixel (Hoshen-Kopelman: one raster pass
// with union-find over provisional labels, a second to number the areas).
func labelDark(ctx context.Context, img *image.NRGBA) ([]int32, int, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	lab := make([]int32, w*h)
	parent := make([]int32, 0, 256)
	for y := 0; y < h; y++ {
		if y&31 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		off := img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y)
		row := img.Pix[off : off+4*w]
		base := y * w
		for x := 0; x < w; x++ {
			p := base + x
			if !dark(row[4*x : 4*x+4]) {
				lab[p] = -1
				continue
			}
			l := int32(-1)
			if x > 0 {
				l = lab[p-1]
			}
			if y > 0 {
				if u := lab[p-w]; u >= 0 && u != l {
					if l < 0 {
						l = u
					} else {
						label.Union(parent, l, u)
					}
				}
			}
			if l < 0 {
				l = int32(len(parent))
				parent = append(parent, l)
			}
			lab[p] = l
		}
	}
	n := label.Number(parent)
	for p, l := range lab {
		if l >= 0 {
			lab[p] = parent[l]
		}
	}
	return lab, n, nil
}
