// Package quantize reduces an image to a small palette: median cut in the Oklab
// perceptual space, weighted by pixel count, with anti-aliased edge pixels kept out of the
// palette and assigned to one of the flat colours they blend. Pixels with alpha below one
// half are transparent and take no palette entry.
package quantize

import (
	"context"
	"encoding/binary"
	"image"
	"image/color"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// Transparent is the palette index of a pixel whose alpha is below one half.
const Transparent = -1

// Result is a quantised image: the palette and every pixel's index into it.
type Result struct {
	// Width and Height are the image size in pixels.
	Width, Height int
	// Palette holds the colours, each the mean of the pixels assigned to it.
	Palette []color.NRGBA
	// Lab holds the palette in Oklab, index for index.
	Lab []Lab
	// Index holds each pixel's palette index in row-major order, or Transparent.
	Index []int16
	// Flat marks pixels whose four neighbours have about the same colour (1) as
	// opposed to edge, anti-aliasing and texture pixels (0).
	Flat []uint8
	// FlatFraction is the share of opaque pixels that are flat: near 1 for logos
	// and posters, low for photographs.
	FlatFraction float64
}

// Options control Quantize.
type Options struct {
	// MaxColors bounds the palette size (2..256).
	MaxColors int
}

// minFlatFraction is the share of flat pixels below which an image is treated as texture
// (a photograph) and the blend analysis of edge pixels is skipped.
const minFlatFraction = 0.3

// maxUnexplained is the share of opaque pixels that may be edge pixels but no blend of
// flat colours (thin lines, small text) before the palette is rebuilt to include them.
const maxUnexplained = 0.002

// flatTolerance is the largest channel difference (premultiplied, 0..255) between
// neighbours that still counts as one flat colour; it absorbs JPEG noise.
const flatTolerance = 12

// Quantize builds the palette of img and assigns every pixel to it.
func Quantize(ctx context.Context, img *image.NRGBA, opt Options) (*Result, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	res := &Result{Width: w, Height: h, Index: make([]int16, w*h), Flat: make([]uint8, w*h)}
	maxColors := max(2, min(256, opt.MaxColors))
	opaque, flat, err := markFlat(ctx, img, res.Flat)
	if err != nil {
		return nil, err
	}
	if opaque == 0 {
		for i := range res.Index {
			res.Index[i] = Transparent
		}
		return res, nil
	}
	res.FlatFraction = float64(flat) / float64(opaque)
	if res.FlatFraction < minFlatFraction {
		// Texture everywhere (a photograph): every pixel counts alike.
		c, err := histogram(ctx, img, res.Flat, true)
		if err != nil {
			return nil, err
		}
		if _, err := buildPalette(ctx, img, res, c, maxColors); err != nil {
			return nil, err
		}
		if err := reassignEdges(ctx, img, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	// Flat colours first: the palette of the flat pixels alone, then every edge pixel
	// that is a blend of nearby flat colours is settled. Edge pixels that are no
	// blend (thin lines, small text) join the histogram for the final palette.
	c, err := histogram(ctx, img, res.Flat, false)
	if err != nil {
		return nil, err
	}
	sums, err := buildPalette(ctx, img, res, c, maxColors)
	if err != nil {
		return nil, err
	}
	var buf blendBuffers
	unexplainedPixels, err := assignBlends(ctx, img, res, &buf)
	if err != nil {
		return nil, err
	}
	// When nearly every edge pixel is a blend, the flat palette is the palette.
	if float64(unexplainedPixels) > maxUnexplained*float64(opaque) {
		c = c.with(img, w, slices.Concat(buf.unexplained...))
		if sums, err = buildPalette(ctx, img, res, c, maxColors); err != nil {
			return nil, err
		}
		if _, err = assignBlends(ctx, img, res, &buf); err != nil {
			return nil, err
		}
	}
	// The palette means over the final indices: flat pixels kept the index the last
	// assignment gave them, with the sums it made; the blend test summed the edge
	// pixels under the index it left them.
	for k := range sums {
		sums[k].edge = buf.edgeSums[k].edge
	}
	res.Palette = res.means(sums)
	if err := reassignPixels(ctx, img, res, slices.Concat(buf.unexplained...)); err != nil {
		return nil, err
	}
	return res, nil
}

// buildPalette sets res's palette to at most maxColors colours of the histogram c,
// assigns every pixel to it and returns the workers' colour sums under that assignment
// (see assign).
func buildPalette(ctx context.Context, img *image.NRGBA, res *Result, c counts, maxColors int) ([]meanSums, error) {
	bins := c.bins()
	res.Lab = lloyd(bins, medianCut(bins, maxColors), 2)
	sums, err := assign(ctx, img, res)
	if err != nil {
		return nil, err
	}
	res.Palette = res.means(sums)
	return sums, nil
}

// reassignEdges gives the edge pixels the nearest colour of the final palette, and
// reassignPixels the pixels it lists (the edge pixels that are no blend of flat colours).
// paletteMeans moves an
// entry to the mean of its flat pixels, and an edge pixel that joined a cluster before
// may no longer be near it: a light fringe along a boundary that joined a cluster of
// brown and fringe colours would be painted brown.
func reassignEdges(ctx context.Context, img *image.NRGBA, res *Result) error {
	w := res.Width
	return parallel.For(ctx, res.Height, rowGrain(w), func(_, y0, y1 int) {
		for y := y0; y < y1; y++ {
			row := img.Pix[y*img.Stride:]
			for x := 0; x < w; x++ {
				i := y*w + x
				if res.Flat[i] == 1 || res.Index[i] == Transparent {
					continue
				}
				res.Index[i] = int16(Nearest(res.Lab, ToLab(row[4*x], row[4*x+1], row[4*x+2], row[4*x+3])))
			}
		}
	})
}

// reassignPixels is reassignEdges for the listed pixels alone.
func reassignPixels(ctx context.Context, img *image.NRGBA, res *Result, pixels []int32) error {
	w := res.Width
	return parallel.For(ctx, len(pixels), 4096, func(_, lo, hi int) {
		for _, i := range pixels[lo:hi] {
			x, y := int(i)%w, int(i)/w
			p := img.Pix[y*img.Stride+4*x : y*img.Stride+4*x+4]
			res.Index[i] = int16(Nearest(res.Lab, ToLab(p[0], p[1], p[2], p[3])))
		}
	})
}

// rowGrain is the fewest rows of width w worth handing to a goroutine of their own.
func rowGrain(w int) int { return max(1, 16384/max(1, w)) }

// words writes the pixels of src (4 bytes each, R, G, B, A) into dst, one
// little-endian word a pixel.
func words(dst []uint32, src []uint8) {
	src = src[:4*len(dst)]
	for x := range dst {
		dst[x] = binary.LittleEndian.Uint32(src[4*x : 4*x+4])
	}
}

// premultipliedWord returns the pixel p (a little-endian word, R low, A high) premultiplied
// by its alpha, each channel rounded to 8 bits.
func premultipliedWord(p uint32) uint32 {
	a := p >> 24
	switch a {
	case 255:
		return p
	case 0:
		return 0
	}
	r, g, b := (p&0xff*a+127)/255, (p>>8&0xff*a+127)/255, (p>>16&0xff*a+127)/255
	return r | g<<8 | b<<16 | a<<24
}

// differRaw is differ for two pixels that are not premultiplied. Equal pixels are equal
// premultiplied: callers test a != b first, inline, and call it only for pixels that
// differ.
func differRaw(a, b uint32) bool {
	return a != b && differ(premultipliedWord(a), premultipliedWord(b))
}

// differ reports whether two premultiplied pixels, read as little-endian words, differ
// by more than flatTolerance in some channel.
func differ(a, b uint32) bool {
	if a == b {
		return false // the common case inside flat areas
	}
	for sh := 0; sh < 32; sh += 8 {
		d := int(a>>sh&0xff) - int(b>>sh&0xff)
		if d > flatTolerance || d < -flatTolerance {
			return true
		}
	}
	return false
}

// markFlat sets flat[i] = 1 for opaque pixels that do not differ from any 4-neighbour,
// and returns the counts of opaque and flat pixels. Pixels are compared premultiplied,
// as words: each worker reads the rows into word buffers of its own, and only pixels
// that differ from a neighbour are premultiplied.
// Each pair of neighbours is compared once: a pixel's comparison with the pixel to its
// right (below) is the right-hand (lower) one's with its left (upper) neighbour.
func markFlat(ctx context.Context, img *image.NRGBA, flat []uint8) (opaquePixels, flatPixels int, err error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	wordRow := func(y int, buf []uint32) []uint32 {
		words(buf, img.Pix[y*img.Stride:y*img.Stride+4*w])
		return buf
	}
	grain := rowGrain(w)
	workers := parallel.Workers(h, grain)
	downs := make([][]bool, workers)
	rows := make([][3][]uint32, workers) // per worker: this row, the row below, the row above
	counts := make([][2]int, workers)    // per worker: opaque, flat
	err = parallel.For(ctx, h, grain, func(worker, y0, y1 int) {
		if downs[worker] == nil {
			downs[worker] = make([]bool, w)
			for j := range rows[worker] {
				rows[worker][j] = make([]uint32, w)
			}
		}
		buf := &rows[worker]
		// down[x] says whether pixel x of the row above differs from the one below it.
		down := downs[worker]
		row := wordRow(y0, buf[0])
		if y0 > 0 {
			above := wordRow(y0-1, buf[2])
			for x, c := range row {
				down[x] = above[x] != c && differRaw(above[x], c)
			}
		} else {
			clear(down)
		}
		nOpaque, nFlat := 0, 0
		for y := y0; y < y1; y++ {
			below := row // the last row: no pixel below differs
			if y+1 < h {
				below = wordRow(y+1, buf[1])
			}
			below, down := below[:len(row)], down[:len(row)]
			fl := flat[w*y : w*y+len(row)]
			left := false // whether the pixel differs from its left neighbour
			for x, c := range row {
				right := false
				if x+1 < len(row) {
					right = c != row[x+1] && differRaw(c, row[x+1])
				}
				up, dn := down[x], c != below[x] && differRaw(c, below[x])
				down[x] = dn
				f := uint8(0)
				if c>>24 >= 128 {
					nOpaque++
					if !left && !right && !up && !dn {
						f = 1
						nFlat++
					}
				}
				fl[x] = f
				left = right
			}
			// The row below is the next row: its buffer is the next row's.
			buf[0], buf[1] = buf[1], buf[0]
			row = below
		}
		counts[worker][0] += nOpaque
		counts[worker][1] += nFlat
	})
	if err != nil {
		return 0, 0, err
	}
	for _, c := range counts {
		opaquePixels += c[0]
		flatPixels += c[1]
	}
	return opaquePixels, flatPixels, nil
}

// bin is a cell of the colour histogram: 5 bits per colour channel and 2 for alpha.
type bin struct {
	weight float64
	lab    Lab
	sum    [4]float64 // weighted channel sums, for the mean colour
}

// histogramKeys is the number of histogram cells: 5 bits per colour channel and 2 for
// alpha.
const histogramKeys = 1 << 17

// slotTables keeps histogram's key-to-slot tables (histogramKeys entries, every one -1
// when in the pool): each use sets back the entries it set, which costs far less than
// clearing half a megabyte.
var slotTables = sync.Pool{New: func() any {
	t := make([]int32, histogramKeys)
	for i := range t {
		t[i] = -1
	}
	return &t
}}

// counts is a histogram: its cells' keys in the order of their first pixel, the index of
// that pixel, and per cell the R, G, B, A sums and the pixel count.
type counts struct {
	keys, first []int32
	sums        [][5]uint64
}

// histogramKey is the histogram cell of the pixel p (a little-endian word, R low, A high,
// A at least 128).
func histogramKey(p uint32) int32 {
	return int32(p>>3&0x1f)<<12 | int32(p>>11&0x1f)<<7 | int32(p>>19&0x1f)<<2 | int32(p>>24-128)>>5
}

// addRun adds n pixels of value word (R in the low byte, A in the high one) to the sums
// s: R, G, B, A and the pixel count. Integer sums make n additions of one value and one
// addition of n times it the same.
func addRun(s *[5]uint64, word uint32, n uint64) {
	s[0] += n * uint64(word&0xff)
	s[1] += n * uint64(word>>8&0xff)
	s[2] += n * uint64(word>>16&0xff)
	s[3] += n * uint64(word>>24)
	s[4] += n
}

// histogram counts the opaque pixels of img: flat pixels, and edge pixels too with
// countEdges. Every pixel weighs one, so the sums are kept in integers and are exact.
//
// Bands of rows are counted in parallel and their parts joined in band order, so the
// cells come out in the raster order of their first pixel, as one pass would give them.
func histogram(ctx context.Context, img *image.NRGBA, flat []uint8, countEdges bool) (counts, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	grain := rowGrain(w)
	bands := 4 * parallel.Workers(h, grain)
	bandRows := (h + bands - 1) / bands
	parts := make([]counts, bands)
	le := binary.LittleEndian
	err := parallel.For(ctx, bands, 1, func(_, lo, hi int) {
		tp := slotTables.Get().(*[]int32)
		slot := *tp
		for band := lo; band < hi; band++ {
			part := &parts[band]
			// A run of one pixel value (pixels between that are not counted do not
			// end it) is added at once: n is its length so far.
			runWord, runSlot, n := uint32(0), int32(0), uint64(0)
			for y := band * bandRows; y < min(h, (band+1)*bandRows); y++ {
				row := img.Pix[y*img.Stride : y*img.Stride+4*w]
				fl := flat[y*w : (y+1)*w]
				for x := range fl {
					word := le.Uint32(row[4*x:])
					if word>>24 < 128 {
						continue
					}
					if !countEdges && fl[x] != 1 {
						continue
					}
					if n > 0 && word == runWord {
						n++
						continue
					}
					if n > 0 {
						addRun(&part.sums[runSlot], runWord, n)
					}
					runWord, runSlot, n = word, part.cell(slot, histogramKey(word), int32(y*w+x)), 1
				}
			}
			if n > 0 {
				addRun(&part.sums[runSlot], runWord, n)
			}
			for _, key := range part.keys {
				slot[key] = -1
			}
		}
		slotTables.Put(tp)
	})
	if err != nil {
		return counts{}, err
	}
	tp := slotTables.Get().(*[]int32)
	slot := *tp
	var all counts
	for _, part := range parts {
		for j, key := range part.keys {
			s := all.cell(slot, key, part.first[j])
			for c := range 5 {
				all.sums[s][c] += part.sums[j][c]
			}
		}
	}
	for _, key := range all.keys {
		slot[key] = -1
	}
	slotTables.Put(tp)
	return all, nil
}

// cell returns the index of key's cell in c, found in slot (cell indices by key, -1 for
// none), after adding an empty cell first counted at pixel first when c has none.
func (c *counts) cell(slot []int32, key, first int32) int32 {
	s := slot[key]
	if s < 0 {
		s = int32(len(c.sums))
		slot[key] = s
		c.keys = append(c.keys, key)
		c.first = append(c.first, first)
		c.sums = append(c.sums, [5]uint64{})
	}
	return s
}

// with returns the histogram c with the listed pixels of img (opaque, of w pixels a row)
// counted too, its cells in the raster order of their first pixel: what histogram would
// count over c's pixels and these. c is not changed.
func (c counts) with(img *image.NRGBA, w int, pixels []int32) counts {
	out := counts{keys: slices.Clone(c.keys), first: slices.Clone(c.first), sums: slices.Clone(c.sums)}
	tp := slotTables.Get().(*[]int32)
	slot := *tp
	for j, key := range out.keys {
		slot[key] = int32(j)
	}
	for _, i := range pixels {
		x, y := int(i)%w, int(i)/w
		word := binary.LittleEndian.Uint32(img.Pix[y*img.Stride+4*x:])
		s := out.cell(slot, histogramKey(word), i)
		out.first[s] = min(out.first[s], i)
		addRun(&out.sums[s], word, 1)
	}
	for _, key := range out.keys {
		slot[key] = -1
	}
	slotTables.Put(tp)
	order := make([]int, len(out.keys))
	for j := range order {
		order[j] = j
	}
	slices.SortFunc(order, func(a, b int) int { return int(out.first[a]) - int(out.first[b]) })
	sorted := counts{keys: make([]int32, len(order)), first: make([]int32, len(order)), sums: make([][5]uint64, len(order))}
	for j, o := range order {
		sorted.keys[j], sorted.first[j], sorted.sums[j] = out.keys[o], out.first[o], out.sums[o]
	}
	return sorted
}

// bins returns the histogram's cells as median cut takes them, in the same order.
func (c counts) bins() []bin {
	bins := make([]bin, len(c.sums))
	for i, sm := range c.sums {
		bn := &bins[i]
		bn.weight = float64(sm[4])
		for c := range 4 {
			bn.sum[c] = float64(sm[c])
		}
		bn.lab = ToLabF(bn.sum[0]/bn.weight, bn.sum[1]/bn.weight, bn.sum[2]/bn.weight, bn.sum[3]/bn.weight/255)
	}
	return bins
}

func coord(l Lab, axis int) float64 {
	switch axis {
	case 0:
		return float64(l.L)
	case 1:
		return float64(l.A)
	case 2:
		return float64(l.B)
	}
	return float64(l.Alpha) * alphaWeight
}

// box is a range of the bin order handled by median cut.
type box struct {
	lo, hi int // bins order[lo:hi]
	weight float64
	sse    float64 // weighted sum of squared distances to the mean
	gain   float64 // how much the best split would lower sse
	axis   int
	cut    int // split position in order for the best split
}

// medianCut splits the colour space into at most n boxes, each time cutting the box
// whose best cut lowers the total squared error most, along its widest axis, at the
// point that minimises the two halves' squared error. It stops early when no cut is
// worth a visible colour: a gain below minGain per unit of total weight.
func medianCut(bins []bin, n int) []Lab {
	order := make([]int, len(bins))
	total := 0.0
	for i := range order {
		order[i] = i
		total += bins[i].weight
	}
	// A split must gain at least this share of the total weight in squared Oklab
	// distance; finer differences are noise for a small palette. A larger palette asked
	// for resolves finer differences: the bar falls with the square of the palette size
	// beyond 16, so that maxColors 64 gives up to 64 colours on a photograph.
	minGain := 2e-5 * min(1, float64(16*16)/float64(n*n))
	boxes := []box{planBox(bins, order, 0, len(order))}
	for len(boxes) < n {
		best := -1
		for i, b := range boxes {
			if b.cut > b.lo && (best < 0 || b.gain > boxes[best].gain) {
				best = i
			}
		}
		if best < 0 || boxes[best].gain < minGain*total {
			break
		}
		b := boxes[best]
		sortAxis(bins, order[b.lo:b.hi], b.axis)
		boxes[best] = planBox(bins, order, b.lo, b.cut)
		boxes = append(boxes, planBox(bins, order, b.cut, b.hi))
	}
	pal := make([]Lab, len(boxes))
	for i, b := range boxes {
		var s [4]float64
		for _, k := range order[b.lo:b.hi] {
			for a := 0; a < 4; a++ {
				s[a] += bins[k].weight * coord(bins[k].lab, a)
			}
		}
		pal[i] = Lab{float32(s[0] / b.weight), float32(s[1] / b.weight), float32(s[2] / b.weight), float32(s[3] / b.weight / alphaWeight)}
	}
	return pal
}

func sortAxis(bins []bin, idx []int, axis int) {
	sort.Slice(idx, func(i, j int) bool {
		ci, cj := coord(bins[idx[i]].lab, axis), coord(bins[idx[j]].lab, axis)
		if ci != cj {
			return ci < cj
		}
		return idx[i] < idx[j]
	})
}

// planBox measures order[lo:hi] and finds its best cut.
func planBox(bins []bin, order []int, lo, hi int) box {
	b := box{lo: lo, hi: hi, cut: lo}
	var s, s2 [4]float64
	for _, k := range order[lo:hi] {
		wt := bins[k].weight
		b.weight += wt
		for a := 0; a < 4; a++ {
			c := coord(bins[k].lab, a)
			s[a] += wt * c
			s2[a] += wt * c * c
		}
	}
	varAxis := -1.0
	for a := 0; a < 4; a++ {
		v := s2[a] - s[a]*s[a]/b.weight
		b.sse += v
		if v > varAxis {
			varAxis, b.axis = v, a
		}
	}
	if hi-lo < 2 || b.sse <= 0 {
		return b
	}
	idx := append([]int(nil), order[lo:hi]...)
	sortAxis(bins, idx, b.axis)
	// Prefix sums over the sorted bins give each cut's squared error in O(1).
	var ls, ls2 [4]float64
	lw := 0.0
	bestSSE := b.sse
	for i := 0; i < len(idx)-1; i++ {
		k := idx[i]
		wt := bins[k].weight
		lw += wt
		for a := 0; a < 4; a++ {
			c := coord(bins[k].lab, a)
			ls[a] += wt * c
			ls2[a] += wt * c * c
		}
		if coord(bins[idx[i+1]].lab, b.axis) == coord(bins[k].lab, b.axis) {
			continue
		}
		rw := b.weight - lw
		sse := 0.0
		for a := 0; a < 4; a++ {
			sse += ls2[a] - ls[a]*ls[a]/lw + (s2[a] - ls2[a]) - (s[a]-ls[a])*(s[a]-ls[a])/rw
		}
		if sse < bestSSE {
			bestSSE, b.cut = sse, lo+i+1
		}
	}
	b.gain = b.sse - bestSSE
	return b
}

// lloyd moves each palette colour to the weighted mean of the bins nearest to it.
func lloyd(bins []bin, pal []Lab, rounds int) []Lab {
	for r := 0; r < rounds; r++ {
		sums := make([][5]float64, len(pal))
		for _, bn := range bins {
			k := Nearest(pal, bn.lab)
			for a := 0; a < 4; a++ {
				sums[k][a] += bn.weight * coord(bn.lab, a)
			}
			sums[k][4] += bn.weight
		}
		next := make([]Lab, 0, len(pal))
		for _, s := range sums {
			if s[4] == 0 {
				continue // an emptied entry is dropped
			}
			next = append(next, Lab{float32(s[0] / s[4]), float32(s[1] / s[4]), float32(s[2] / s[4]), float32(s[3] / s[4] / alphaWeight)})
		}
		pal = next
	}
	return pal
}

// Nearest returns the index of the palette colour closest to c.
func Nearest(pal []Lab, c Lab) int {
	best, bd := 0, float32(math.MaxFloat32)
	for i, p := range pal {
		if d := Dist2(p, c); d < bd {
			best, bd = i, d
		}
	}
	return best
}

// colourCacheBits sizes assign's cache of nearest palette entries by exact colour.
const colourCacheBits = 16

// colourEntry is a colour's nearest palette index, valid while gen is its cache's gen.
type colourEntry struct {
	key uint32
	idx int16
	gen uint16
}

// colourCache is a cache of nearest palette entries. Each use (one worker of one
// palette's assignment) counts gen up, which invalidates every entry at once.
type colourCache struct {
	entries []colourEntry
	gen     uint16
}

// colourCaches keeps released colour caches (*colourCache), so that a trace does not
// allocate and clear half a megabyte per worker for each palette.
var colourCaches = sync.Pool{New: func() any { return &colourCache{entries: make([]colourEntry, 1<<colourCacheBits)} }}

// assign gives every pixel its nearest palette index, caching by exact colour, and
// returns the workers' colour sums per palette entry, summed in the same pass, from
// which res.means makes the palette's mean colours.
func assign(ctx context.Context, img *image.NRGBA, res *Result) ([]meanSums, error) {
	w, h := res.Width, res.Height
	grain := rowGrain(w)
	workers := parallel.Workers(h, grain)
	sums := newMeanSums(workers, len(res.Lab))
	caches := make([]*colourCache, workers)
	for k := range caches {
		c := colourCaches.Get().(*colourCache)
		c.gen++
		if c.gen == 0 { // the stamps wrapped: forget every entry
			clear(c.entries)
			c.gen = 1
		}
		caches[k] = c
	}
	defer func() {
		for _, c := range caches {
			colourCaches.Put(c)
		}
	}()
	le := binary.LittleEndian
	err := parallel.For(ctx, h, grain, func(worker, y0, y1 int) {
		c := caches[worker]
		sum := sums[worker]
		for y := y0; y < y1; y++ {
			row := img.Pix[y*img.Stride : y*img.Stride+4*w]
			index, flat := res.Index[y*w:(y+1)*w], res.Flat[y*w:(y+1)*w]
			// A run of one colour (most of a flat image) looks its colour up once.
			lastKey, lastIdx := uint32(0), int16(Transparent)
			for x := range index {
				key := le.Uint32(row[4*x:]) // R in the low byte, A in the high one
				if key>>24 < 128 {
					index[x] = Transparent
					continue
				}
				if key != lastKey {
					e := &c.entries[(key*2654435761)>>(32-colourCacheBits)]
					if e.gen != c.gen || e.key != key {
						r, g, b, a := uint8(key), uint8(key>>8), uint8(key>>16), uint8(key>>24)
						*e = colourEntry{key: key, idx: int16(Nearest(res.Lab, ToLab(r, g, b, a))), gen: c.gen}
					}
					lastKey, lastIdx = key, e.idx
				}
				index[x] = lastIdx
				sum.add(lastIdx, flat[x], key)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return sums, nil
}

// meanSums holds one worker's integer colour sums per palette entry (R, G, B, A and the
// pixel count), over its flat pixels and over the others: exact, so the workers' sums
// add up to the same totals in any order.
type meanSums struct{ flat, edge [][5]uint64 }

func newMeanSums(workers, n int) []meanSums {
	sums := make([]meanSums, workers)
	for k := range sums {
		sums[k] = meanSums{make([][5]uint64, n), make([][5]uint64, n)}
	}
	return sums
}

// add counts pixel p (a little-endian word, R low, A high) of palette entry k, flat
// when flat is 1.
func (m meanSums) add(k int16, flat uint8, p uint32) {
	s := &m.edge[k]
	if flat == 1 {
		s = &m.flat[k]
	}
	s[0] += uint64(p & 0xff)
	s[1] += uint64(p >> 8 & 0xff)
	s[2] += uint64(p >> 16 & 0xff)
	s[3] += uint64(p >> 24)
	s[4]++
}

// means returns each palette entry's mean colour over its flat pixels, or over all its
// pixels when it has no flat ones, from the workers' sums, and updates res.Lab to match.
func (res *Result) means(sums []meanSums) []color.NRGBA {
	n := len(res.Lab)
	var flatSum, allSum = make([][5]float64, n), make([][5]float64, n)
	for k := range n {
		var fs, as [5]uint64
		for _, wk := range sums {
			for c := range 5 {
				fs[c] += wk.flat[k][c]
				as[c] += wk.flat[k][c] + wk.edge[k][c]
			}
		}
		for c := range 5 {
			flatSum[k][c], allSum[k][c] = float64(fs[c]), float64(as[c])
		}
	}
	pal := make([]color.NRGBA, n)
	for k := range pal {
		s := flatSum[k]
		if s[4] == 0 {
			s = allSum[k]
		}
		if s[4] == 0 {
			pal[k] = labToNRGBA(res.Lab[k])
			continue
		}
		u := func(v float64) uint8 { return uint8(math.Round(v / s[4])) }
		pal[k] = color.NRGBA{u(s[0]), u(s[1]), u(s[2]), u(s[3])}
		res.Lab[k] = ToLab(pal[k].R, pal[k].G, pal[k].B, pal[k].A)
	}
	return pal
}

// labToNRGBA converts back from Oklab, for palette entries no pixel uses.
func labToNRGBA(c Lab) color.NRGBA {
	l := float64(c.L) + 0.3963377774*float64(c.A) + 0.2158037573*float64(c.B)
	m := float64(c.L) - 0.1055613458*float64(c.A) - 0.0638541728*float64(c.B)
	s := float64(c.L) - 0.0894841775*float64(c.A) - 1.2914855480*float64(c.B)
	l, m, s = l*l*l, m*m*m, s*s*s
	r := 4.0767416621*l - 3.3077115913*m + 0.2309699292*s
	g := -1.2684380046*l + 2.6097574011*m - 0.3413193965*s
	b := -0.0041960863*l - 0.7034186147*m + 1.7076147010*s
	enc := func(v float64) uint8 {
		v = math.Max(0, math.Min(1, v))
		if v <= 0.0031308 {
			v *= 12.92
		} else {
			v = 1.055*math.Pow(v, 1/2.4) - 0.055
		}
		return uint8(math.Round(v * 255))
	}
	return color.NRGBA{enc(r), enc(g), enc(b), uint8(math.Round(math.Max(0, math.Min(1, float64(c.Alpha))) * 255))}
}

// Restrict repaints the palette with the colours of to: each entry becomes the colour
// of to nearest it in Oklab (alpha included), entries that become the same colour merge
// into one, and every pixel's index follows. Regions built afterwards therefore join
// neighbours that end up with the same colour, and hold no other colour. The merged
// palette keeps the order of the entries' first use, so the result is deterministic.
// An empty to leaves r as it is.
func (r *Result) Restrict(to []color.NRGBA) {
	if len(to) == 0 || len(r.Palette) == 0 {
		return
	}
	lab := make([]Lab, len(to))
	for i, c := range to {
		lab[i] = ToLab(c.R, c.G, c.B, c.A)
	}
	slot := make([]int16, len(to)) // new index + 1 of each colour of to, 0: unused
	remap := make([]int16, len(r.Palette))
	var pal []color.NRGBA
	var palLab []Lab
	for k := range r.Palette {
		j := Nearest(lab, r.Lab[k])
		if slot[j] == 0 {
			pal, palLab = append(pal, to[j]), append(palLab, lab[j])
			slot[j] = int16(len(pal))
		}
		remap[k] = slot[j] - 1
	}
	for i, k := range r.Index {
		if k >= 0 {
			r.Index[i] = remap[k]
		}
	}
	r.Palette, r.Lab = pal, palLab
}
