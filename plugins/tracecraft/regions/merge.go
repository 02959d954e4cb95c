package regions

import (
	"context"
	"image"
	"math"
	"slices"

	"github.com/tracecraft/tracecraft/plugins/tracecraft/quantize"
	"github.com/tracecraft/tracecraft/sdk/label"
	"github.com/tracecraft/tracecraft/sdk/parallel"
)

// merger holds the state of one mergeSmall run. Only the regions that start small get a
// slot: they alone keep pixel sums and neighbour lists, as only they ever look for a
// neighbour.
type merger struct {
	m             *Map
	q             *quantize.Result
	regionPalette []int32
	minRegion     int

	size   []int32      // pixel count per region (of the merged set, at its root)
	slot   []int32      // slot of each region that starts small, else -1
	sum    [][5]float64 // per slot: premultiplied R, G, B sums, alpha sum, pixel count
	nb     [][]int32    // per slot: neighbouring regions (not yet resolved to roots)
	pairs  []uint64     // every pair of touching regions one of which starts small, once
	parent []int32      // union-find forest of merged regions
	cache  []quantize.Lab
	cached []bool
}

// mergeSmall merges every region smaller than minRegion into its most similar
// neighbour (nearest palette colour in Oklab, alpha included, transparency counting as
// a colour of alpha 0; ties to the lower index), smallest first, until no region is
// smaller or one has no neighbour. A merged region takes the colour of the region it
// joins. comps holds the regions of m.Labels as components measured them. It sets
// m.Regions and rewrites m.Labels to them.
//
// Merging can join two regions of one colour through the region that merged; they
// become one region, as numbering the 4-connected components of the merged map's
// colours would make them, numbered in raster order of their first pixel.
func (m *Map) mergeSmall(ctx context.Context, img *image.NRGBA, q *quantize.Result, comps []component, minRegion int) error {
	n := len(comps)
	g := newMerger(m, q, comps, minRegion)
	if err := g.sumColours(ctx, img); err != nil {
		return err
	}
	if err := g.findNeighbours(ctx); err != nil {
		return err
	}
	if err := g.run(ctx); err != nil {
		return err
	}
	// Regions of the merged map: each merged region with the one it joined, and two
	// touching regions that now have one colour. Two touching regions had different
	// colours before merging (else they would be one component), so they have one
	// colour now only if one of them merged, and merged regions started small: their
	// pairs are all in g.pairs. A set's smallest region index is the one whose first
	// pixel comes first in raster order, so label.Number numbers the merged regions in
	// that order.
	final := make([]int32, n)
	for l := range final {
		final[l] = int32(l)
	}
	for l := range final {
		if r := g.find(int32(l)); r != int32(l) {
			label.Union(final, int32(l), r)
		}
	}
	for _, p := range g.pairs {
		a, b := g.find(int32(p>>32)), g.find(int32(uint32(p)))
		if a != b && g.regionPalette[a] == g.regionPalette[b] {
			label.Union(final, int32(p>>32), int32(uint32(p)))
		}
	}
	merged := make([]component, label.Number(final))
	for k := range merged {
		merged[k] = empty(0)
	}
	for l, c := range comps {
		k := final[l]
		merged[k].join(c)
		merged[k].key = int16(g.regionPalette[g.find(int32(l))]) // the colour it took
	}
	m.Regions = make([]Region, len(merged))
	for k, c := range merged {
		m.Regions[k] = c.region(q, int(c.key))
	}
	return parallel.For(ctx, len(m.Labels), 1<<16, func(_, lo, hi int) {
		for i, l := range m.Labels[lo:hi] {
			m.Labels[lo+i] = final[l]
		}
	})
}

// rowGrain is the fewest rows of width w worth handing to a goroutine of their own.
func rowGrain(w int) int { return max(1, 16384/max(1, w)) }

// newMerger gives a slot to each small region of comps.
func newMerger(m *Map, q *quantize.Result, comps []component, minRegion int) *merger {
	n := len(comps)
	g := &merger{m: m, q: q, minRegion: minRegion, regionPalette: make([]int32, n),
		size: make([]int32, n), slot: make([]int32, n), parent: make([]int32, n)}
	nSmall := int32(0)
	for l, c := range comps {
		g.size[l] = c.pixels
		g.regionPalette[l] = int32(c.key)
		g.parent[l] = int32(l)
		g.slot[l] = -1
		if g.small(int32(l)) {
			g.slot[l] = nSmall
			nSmall++
		}
	}
	g.sum = make([][5]float64, nSmall)
	g.nb = make([][]int32, nSmall)
	g.cache = make([]quantize.Lab, nSmall)
	g.cached = make([]bool, nSmall)
	return g
}

func (g *merger) small(l int32) bool { return int(g.size[l]) < g.minRegion }

func (g *merger) find(x int32) int32 { return label.Find(g.parent, x) }

// sumColours adds up each small region's own pixels. Small regions are compared by the
// mean of their own pixels (premultiplied sums, alpha and count), which for
// anti-aliasing specks can differ much from their palette colour; large ones by their
// palette colour.
//
// Rows are summed in parallel, each worker into sums of its own, added up after: the
// sums hold integers (products of 8-bit values), exact in any order.
func (g *merger) sumColours(ctx context.Context, img *image.NRGBA) error {
	w, h := g.m.Width, g.m.Height
	grain := rowGrain(w)
	sums := make([][][5]float64, parallel.Workers(h, grain))
	err := parallel.For(ctx, h, grain, func(worker, y0, y1 int) {
		if sums[worker] == nil {
			sums[worker] = make([][5]float64, len(g.sum))
		}
		sum := sums[worker]
		for y := y0; y < y1; y++ {
			row := img.Pix[y*img.Stride:]
			labels, index := g.m.Labels[y*w:(y+1)*w], g.q.Index[y*w:(y+1)*w]
			// Most pixels lie in regions that are not small: skip them run by run.
			for x0 := 0; x0 < w; {
				l := labels[x0]
				x1 := x0 + 1
				for x1 < w && labels[x1] == l {
					x1++
				}
				k := g.slot[l]
				if k < 0 {
					x0 = x1
					continue
				}
				s := &sum[k]
				for x := x0; x < x1; x++ {
					a := float64(row[4*x+3])
					if index[x] == quantize.Transparent {
						a = 0
					}
					s[0] += float64(row[4*x]) * a
					s[1] += float64(row[4*x+1]) * a
					s[2] += float64(row[4*x+2]) * a
					s[3] += a
					s[4]++
				}
				x0 = x1
			}
		}
	})
	if err != nil {
		return err
	}
	for _, sum := range sums {
		for k := range sum {
			for c, v := range sum[k] {
				g.sum[k][c] += v
			}
		}
	}
	return nil
}

// findNeighbours builds the neighbour lists of the small regions from the 4-adjacent
// pixel pairs with different labels, each pair once.
func (g *merger) findNeighbours(ctx context.Context) error {
	w, h, labels, slot := g.m.Width, g.m.Height, g.m.Labels, g.slot
	// A boundary runs along many pixels, so the pair just seen is skipped before it
	// reaches the sort (duplicates are dropped after it anyway). Rows are scanned in
	// parallel, each worker into a list of its own: the sort makes their order moot.
	grain := rowGrain(w)
	lists := make([][]uint64, parallel.Workers(h, grain))
	err := parallel.For(ctx, h, grain, func(worker, y0, y1 int) {
		pairs := lists[worker]
		lastH, lastV := uint64(math.MaxUint64), uint64(math.MaxUint64)
		for y := y0; y < y1; y++ {
			row := labels[y*w : (y+1)*w]
			a := row[0]
			for _, b := range row[1:] {
				if b != a {
					if slot[a] >= 0 || slot[b] >= 0 {
						if k := pairKey(a, b); k != lastH {
							pairs, lastH = append(pairs, k), k
						}
					}
					a = b
				}
			}
			if y+1 < h {
				below := labels[(y+1)*w : (y+2)*w]
				below = below[:len(row)]
				for x, a := range row {
					if b := below[x]; b != a && (slot[a] >= 0 || slot[b] >= 0) {
						if k := pairKey(a, b); k != lastV {
							pairs, lastV = append(pairs, k), k
						}
					}
				}
			}
		}
		lists[worker] = pairs
	})
	if err != nil {
		return err
	}
	pairs := slices.Concat(lists...)
	slices.Sort(pairs)
	pairs = slices.Compact(pairs)
	g.pairs = pairs
	for _, p := range pairs {
		a, b := int32(p>>32), int32(uint32(p))
		if k := slot[a]; k >= 0 {
			g.nb[k] = append(g.nb[k], b)
		}
		if k := slot[b]; k >= 0 {
			g.nb[k] = append(g.nb[k], a)
		}
	}
	return nil
}

// colour is the colour a region is compared by. The colour of a small region is cached
// until it grows.
func (g *merger) colour(l int32) quantize.Lab {
	if k := g.slot[l]; k >= 0 && g.small(l) {
		if !g.cached[k] {
			s := &g.sum[k]
			g.cache[k], g.cached[k] = quantize.Lab{}, true
			if s[3] > 0 {
				g.cache[k] = quantize.ToLabF(s[0]/s[3], s[1]/s[3], s[2]/s[3], s[3]/s[4]/255)
			}
		}
		return g.cache[k]
	}
	if k := g.regionPalette[l]; k >= 0 {
		return g.q.Lab[k]
	}
	return quantize.Lab{}
}

// run merges the small regions, smallest first, each into its nearest-coloured
// neighbour; a region that is still small after growing goes back on the queue.
func (g *merger) run(ctx context.Context) error {
	pq := &sizeQueue{}
	for l := int32(0); l < int32(len(g.size)); l++ {
		if g.small(l) {
			pq.items = append(pq.items, queued{g.size[l], l})
		}
	}
	pq.init()
	steps := 0
	for pq.Len() > 0 {
		it := pq.pop()
		l := it.id
		if g.find(l) != l || g.size[l] != it.size || !g.small(l) {
			continue
		}
		if steps++; steps%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		kl := g.slot[l]
		list := g.roots(kl, l)
		if len(list) == 0 {
			continue
		}
		cl := g.colour(l)
		best, bd := int32(-1), float32(math.MaxFloat32)
		for _, v := range list {
			if d := quantize.Dist2(cl, g.colour(v)); d < bd {
				best, bd = v, d
			}
		}
		g.parent[l] = best
		g.size[best] += g.size[l]
		if kb := g.slot[best]; kb >= 0 {
			for c, v := range g.sum[kl] {
				g.sum[kb][c] += v
			}
			g.cached[kb] = false
			if g.small(best) {
				g.nb[kb] = append(g.nb[kb], list...)
				pq.push(queued{g.size[best], best})
			}
		}
		g.nb[kl] = nil
	}
	return nil
}

// roots resolves slot k's neighbour list (of region l) to the current roots, sorted and
// without duplicates or l itself, and stores it back.
func (g *merger) roots(k, l int32) []int32 {
	list := g.nb[k]
	for i, v := range list {
		list[i] = g.find(v)
	}
	slices.Sort(list)
	n := 0
	for i, v := range list {
		if v != l && (i == 0 || v != list[i-1]) {
			list[n] = v
			n++
		}
	}
	g.nb[k] = list[:n]
	return g.nb[k]
}
