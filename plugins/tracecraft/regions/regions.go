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
	"github.com/tracecraft/tracecraft/sdk/parallel"
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
	labels, comps, err := components(ctx, w, h, q.Index)
	if err != nil {
		return nil, err
	}
	m.Labels = labels
	if opt.MinRegion > 1 && len(comps) > 1 {
		return m, m.mergeSmall(ctx, img, q, comps, opt.MinRegion)
	}
	m.Regions = make([]Region, len(comps))
	for l, c := range comps {
		m.Regions[l] = c.region(q, int(c.key))
	}
	return m, nil
}

// component is what components measures of one component: the key of its pixels, their
// number and its bounds.
type component struct {
	key            int16
	pixels         int32
	x0, y0, x1, y1 int32
}

// add counts the run of pixels x0..x1-1 of row y into c.
func (c *component) add(x0, x1, y int32) {
	c.pixels += x1 - x0
	c.x0, c.x1 = min(c.x0, x0), max(c.x1, x1)
	c.y0, c.y1 = min(c.y0, y), max(c.y1, y+1)
}

// join adds the pixels of d to c, which takes d's key (both have the same key, or c is
// empty).
func (c *component) join(d component) {
	c.key = d.key
	c.pixels += d.pixels
	c.x0, c.x1 = min(c.x0, d.x0), max(c.x1, d.x1)
	c.y0, c.y1 = min(c.y0, d.y0), max(c.y1, d.y1)
}

// empty is a component of no pixels, which add and join widen.
func empty(key int16) component {
	return component{key: key, x0: math.MaxInt32, y0: math.MaxInt32, x1: math.MinInt32, y1: math.MinInt32}
}

// region returns the Region of c's pixels painted with palette index palette.
func (c component) region(q *quantize.Result, palette int) Region {
	r := Region{Palette: palette, Pixels: int(c.pixels), Bounds: image.Rect(int(c.x0), int(c.y0), int(c.x1), int(c.y1))}
	if !r.Transparent() {
		r.Color = q.Palette[palette]
	}
	return r
}

// components labels the 4-connected components of equal key, numbering them in raster
// order of their first pixel, and measures them. It is the classic two-pass union-find
// labelling, done by runs (each run of equal keys in a row takes one provisional label,
// joined with the labels of the equal-keyed pixels above it) and in bands of rows across
// cores (each band labels its rows with labels of its own, then the bands are joined
// along the rows where they meet).
//
// Provisional labels count up in raster order over the whole image (a band's follow the
// previous band's), a set's smallest label is its root (label.Union keeps the smaller)
// and was given at the set's first pixel in raster order, so label.Number numbers the
// components in that order, however the rows are split into bands.
func components(ctx context.Context, w, h int, key []int16) ([]int32, []component, error) {
	return componentsInBands(ctx, w, h, key, min(maxBands, (h+bandRows(w)-1)/bandRows(w)))
}

// componentsInBands is components with the rows cut into the given number of bands.
func componentsInBands(ctx context.Context, w, h int, key []int16, bands int) ([]int32, []component, error) {
	labels := make([]int32, w*h)
	bands = max(1, min(bands, h))
	first := func(b int) int { return b * h / bands } // first row of band b
	parents := make([][]int32, bands)
	measures := make([][]component, bands)
	err := parallel.For(ctx, bands, 1, func(_, lo, hi int) {
		for b := lo; b < hi; b++ {
			parents[b], measures[b] = labelRows(w, key, labels, first(b), first(b+1))
		}
	})
	if err != nil {
		return nil, nil, err
	}
	// One forest over every band's labels, band b's offset by the labels before it.
	offset := make([]int32, bands+1)
	for b, p := range parents {
		offset[b+1] = offset[b] + int32(len(p))
	}
	parent := make([]int32, offset[bands])
	for b, p := range parents {
		for i, v := range p {
			parent[offset[b]+int32(i)] = offset[b] + v
		}
	}
	for b := 1; b < bands; b++ {
		y := first(b)
		joinRows(w, key, labels, y, offset[b-1], offset[b], parent)
	}
	n := label.Number(parent)
	comps := make([]component, n)
	for i := range comps {
		comps[i] = empty(0)
	}
	for b, ms := range measures {
		for i, c := range ms {
			comps[parent[offset[b]+int32(i)]].join(c)
		}
	}
	err = parallel.For(ctx, bands, 1, func(_, lo, hi int) {
		for b := lo; b < hi; b++ {
			off := offset[b]
			band := labels[first(b)*w : first(b+1)*w]
			for i, l := range band {
				band[i] = parent[off+l]
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return labels, comps, nil
}

// bandRows is the fewest rows of width w worth labelling on a goroutine of their own,
// and maxBands the most bands: enough to share the rows among cores and to check for
// cancellation between bands often enough on the largest images.
func bandRows(w int) int { return max(1, 65536/max(1, w)) }

const maxBands = 64

// run is a run of equal keys in a row, pixels x0..x1-1, and its provisional label.
type run struct {
	x0, x1 int32
	label  int32
	key    int16
}

// labelRows labels rows y0..y1-1 of key by runs, with labels counted from 0 for these
// rows alone, into labels, and returns their union-find forest and what each label's
// runs hold. A run is joined with the equal-keyed runs of the row above it that it
// touches, found among that row's runs, not pixel by pixel.
func labelRows(w int, key []int16, labels []int32, y0, y1 int) ([]int32, []component) {
	parent := make([]int32, 0, 256)
	comps := make([]component, 0, 256)
	var above, cur []run
	for y := y0; y < y1; y++ {
		row, lab := key[y*w:(y+1)*w], labels[y*w:(y+1)*w]
		cur = cur[:0]
		j := 0 // the first run above that may touch the current run
		for x0 := 0; x0 < w; {
			k := row[x0]
			x1 := x0 + 1
			for x1 < w && row[x1] == k {
				x1++
			}
			l, last := int32(-1), int32(-1)
			for j < len(above) && int(above[j].x1) <= x0 {
				j++
			}
			for _, a := range above[j:] {
				if int(a.x0) >= x1 {
					break
				}
				if a.key != k || a.label == last {
					continue // another key, or a run of the label just joined
				}
				last = a.label
				switch {
				case l < 0:
					l = a.label
				case a.label != l:
					l = label.Union(parent, l, a.label)
				}
			}
			if l < 0 {
				l = int32(len(parent))
				parent = append(parent, l)
				comps = append(comps, empty(k))
			}
			comps[l].add(int32(x0), int32(x1), int32(y))
			cur = append(cur, run{x0: int32(x0), x1: int32(x1), label: l, key: k})
			for x := x0; x < x1; x++ {
				lab[x] = l
			}
			x0 = x1
		}
		above, cur = cur, above
	}
	return parent, comps
}

// joinRows joins the labels of row y (band labels offset by below) with those of the
// equal-keyed pixels of row y-1 (offset by above) in parent.
func joinRows(w int, key []int16, labels []int32, y int, above, below int32, parent []int32) {
	row, up := key[y*w:(y+1)*w], key[(y-1)*w:y*w]
	lab, labUp := labels[y*w:(y+1)*w], labels[(y-1)*w:y*w]
	lastA, lastB := int32(-1), int32(-1)
	for x, k := range row {
		if up[x] != k {
			continue
		}
		a, b := labUp[x], lab[x]
		if a == lastA && b == lastB {
			continue // the same two runs as the pixel before
		}
		lastA, lastB = a, b
		label.Union(parent, above+a, below+b)
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
