// Package regions splits a quantised image into regions, the 4-connected areas of one
// palette colour, and merges regions smaller than a minimum size into their most similar
// neighbour. Transparent areas are regions too (they are never drawn), so every pixel
// belongs to exactly one region.
package regions

import (
	"context"
	"image"
	"image/color"
	"math"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/quantize"
	"github.com/tracecraft/tracecraft/sdk/label"
)

// Region is one 4-connected area of the label map.
type Region struct {
	// Palette is the region's palette index, or quantize.Transparent.
	Palette int
	// Pixels is the region's area in pixels.
	Pixels int
	// Bounds is the smallest rectangle holding the region's pixels.
	Bounds image.Rectangle
	// Color is the region's palette colour (zero for transparent regions), so that
	// the output holds at most as many colours as the palette.
	Color color.NRGBA
}

// Transparent reports whether the region is a transparent area, which is never drawn.
func (r Region) Transparent() bool { return r.Palette == quantize.Transparent }

// Map is a partition of an image into regions.
type Map struct {
	// Width and Height are the image size in pixels.
	Width, Height int
	// Labels holds each pixel's region index in row-major order.
	Labels []int32
	// Regions holds the regions, numbered in the raster order of their first pixel.
	Regions []Region
}

// At returns the region index at pixel (x, y), or -1 outside the image.
func (m *Map) At(x, y int) int32 {
	if x < 0 || y < 0 || x >= m.Width || y >= m.Height {
		return -1
	}
	return m.Labels[y*m.Width+x]
}

// Options control Build.
type Options struct {
	// MinRegion is the size in pixels below which a region merges into its most
	// similar neighbour (0 or 1: no merging).
	MinRegion int
}

// Build finds the regions of q, the quantised img, and merges the small ones.
func Build(ctx context.Context, img *image.NRGBA, q *quantize.Result, opt Options) (*Map, error) {
	w, h := q.Width, q.Height
	m := &Map{Width: w, Height: h}
	labels, n, err := components(ctx, w, h, q.Index, nil)
	if err != nil {
		return nil, err
	}
	m.Labels = labels
	if opt.MinRegion > 1 && n > 1 {
		// A merged region keeps the palette index of the region it merged into.
		regionPalette := m.regionPalettes(q, n)
		if err := m.mergeSmall(ctx, img, q, regionPalette, n, opt.MinRegion); err != nil {
			return nil, err
		}
		// Merging can join two regions of one colour through the region that merged;
		// numbering components of the merged map's colours joins them for good.
		pal := make([]int16, len(m.Labels))
		for i, l := range m.Labels {
			pal[i] = int16(regionPalette[l])
		}
		if labels, n, err = components(ctx, w, h, pal, m.Labels); err != nil {
			return nil, err
		}
		m.Labels = labels
		m.measure(pal, q, n)
		return m, nil
	}
	m.measure(q.Index, q, n)
	return m, nil
}

// components labels the 4-connected components of equal key, numbering them in raster
// order of their first pixel. It is the classic two-pass union-find labelling, done by
// runs: each run of equal keys in a row takes one provisional label, joined with the
// labels of the equal-keyed pixels above it. The labels are written into dst when it is
// not nil (w*h long; its contents are lost).
//
// A set's smallest provisional label is its root (label.Union keeps the smaller) and
// was given at the set's first pixel in raster order, so label.Number numbers the
// components in that order.
func components(ctx context.Context, w, h int, key []int16, dst []int32) ([]int32, int, error) {
	labels := dst
	if labels == nil {
		labels = make([]int32, w*h)
	}
	parent := make([]int32, 0, 1024)
	for y := 0; y < h; y++ {
		if y%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		row, lab := key[y*w:(y+1)*w], labels[y*w:(y+1)*w]
		var up []int16
		var labUp []int32
		if y > 0 {
			up, labUp = key[(y-1)*w:y*w], labels[(y-1)*w:y*w]
		}
		for x0 := 0; x0 < w; {
			k := row[x0]
			x1 := x0 + 1
			for x1 < w && row[x1] == k {
				x1++
			}
			l, last := int32(-1), int32(-1)
			if up != nil {
				for x, u := range up[x0:x1] {
					lu := labUp[x0+x]
					if u != k || lu == last {
						continue // another key, or the run above already joined
					}
					last = lu
					switch {
					case l < 0:
						l = lu
					case lu != l:
						l = label.Union(parent, l, lu)
					}
				}
			}
			if l < 0 {
				l = int32(len(parent))
				parent = append(parent, l)
			}
			for x := x0; x < x1; x++ {
				lab[x] = l
			}
			x0 = x1
		}
	}
	n := label.Number(parent)
	for i, l := range labels {
		labels[i] = parent[l]
	}
	return labels, n, nil
}

// regionPalettes returns the palette index of each region of the current labels.
func (m *Map) regionPalettes(q *quantize.Result, n int) []int32 {
	pal := make([]int32, n)
	for i := range pal {
		pal[i] = math.MinInt32
	}
	for i, l := range m.Labels {
		if pal[l] == math.MinInt32 {
			pal[l] = int32(q.Index[i])
		}
	}
	return pal
}

// measure fills m.Regions from the labels: palette, colour, area and bounds. palette
// holds each pixel's palette index after merging. It reads the labels by runs.
func (m *Map) measure(palette []int16, q *quantize.Result, n int) {
	w, h := m.Width, m.Height
	m.Regions = make([]Region, n)
	seen := make([]bool, n)
	type box struct{ x0, y0, x1, y1 int }
	boxes := make([]box, n)
	for y := 0; y < h; y++ {
		row := m.Labels[y*w : (y+1)*w]
		for x0 := 0; x0 < w; {
			l := row[x0]
			x1 := x0 + 1
			for x1 < w && row[x1] == l {
				x1++
			}
			r := &m.Regions[l]
			b := &boxes[l]
			if !seen[l] {
				seen[l] = true
				r.Palette = int(palette[y*w+x0])
				*b = box{x0, y, x1, y + 1}
			} else {
				b.x0, b.x1, b.y1 = min(b.x0, x0), max(b.x1, x1), y+1
			}
			r.Pixels += x1 - x0
			x0 = x1
		}
	}
	for l := range m.Regions {
		r := &m.Regions[l]
		b := boxes[l]
		r.Bounds = image.Rect(b.x0, b.y0, b.x1, b.y1)
		if !r.Transparent() {
			r.Color = q.Palette[r.Palette]
		}
	}
}

func pairKey(a, b int32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(a)<<32 | uint64(uint32(b))
}

type queued struct {
	size int32
	id   int32
}

// sizeQueue is a min-heap of regions by size, then index, typed so that pushing and
// popping allocate nothing (container/heap boxes every item). Items are distinct, and
// their order is total, so every correct heap pops them in the same order.
type sizeQueue struct{ items []queued }

func (q *sizeQueue) Len() int { return len(q.items) }

func (q *sizeQueue) less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	return a.size < b.size || a.size == b.size && a.id < b.id
}

// init orders the items into a heap.
func (q *sizeQueue) init() {
	for i := len(q.items)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

func (q *sizeQueue) push(it queued) {
	q.items = append(q.items, it)
	for j := len(q.items) - 1; j > 0; {
		i := (j - 1) / 2
		if !q.less(j, i) {
			break
		}
		q.items[i], q.items[j] = q.items[j], q.items[i]
		j = i
	}
}

func (q *sizeQueue) pop() queued {
	it := q.items[0]
	n := len(q.items) - 1
	q.items[0] = q.items[n]
	q.items = q.items[:n]
	q.down(0)
	return it
}

func (q *sizeQueue) down(i int) {
	n := len(q.items)
	for {
		j := 2*i + 1
		if j >= n {
			return
		}
		if j+1 < n && q.less(j+1, j) {
			j++
		}
		if !q.less(j, i) {
			return
		}
		q.items[i], q.items[j] = q.items[j], q.items[i]
		i = j
	}
}
